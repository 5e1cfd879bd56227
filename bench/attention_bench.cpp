// Native side of `npm run bench`: one attention forward at GPT-2-small shape
// (D=768, H=12, random Q/K/V/output projections) through poslab::forward, the
// same call the wasm module makes, plus the same computation with OpenBLAS's
// sgemm when libopenblas is installed. Prints one JSON object on stdout; never
// a pass/fail test.
//
//   attention_bench [--sizes 128,512,1024,2048] [--runs 5] [--d-model 768] [--heads 12]
//
// OpenBLAS is opened with dlopen, one thread (OPENBLAS_NUM_THREADS=1), so the
// library target needs no BLAS dependency and the bench still runs without it.
#include <dlfcn.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <iostream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "poslab/attention.hpp"
#include "poslab/kernels.hpp"
#include "poslab/model.hpp"

namespace {

using json = nlohmann::json;
using Clock = std::chrono::steady_clock;

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    const std::size_t n = v.size();
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

// Runs f once to warm up, then `runs` times; returns the times in ms.
std::vector<double> time_runs(int runs, const std::function<void()>& f) {
    f();
    std::vector<double> ms;
    for (int r = 0; r < runs; ++r) {
        const auto t0 = Clock::now();
        f();
        ms.push_back(std::chrono::duration<double, std::milli>(Clock::now() - t0).count());
    }
    return ms;
}

// The FLOP count every implementation is credited with: 4 projections
// [S,D]·[D,D] (2·S·D² each) plus, per head, QKᵀ and weights·V (2·S²·d_head
// each, so 4·S²·D over all heads). Softmax, bias and masking are not counted.
double attention_flop(double s, double d) { return 8.0 * s * d * d + 4.0 * s * s * d; }

// cblas_sgemm(order, transA, transB, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc)
using SgemmFn = void (*)(int, int, int, int, int, int, float, const float*, int, const float*, int, float,
                         float*, int);
constexpr int kRowMajor = 101, kNoTrans = 111, kTrans = 112;

struct OpenBlas {
    SgemmFn sgemm = nullptr;
    std::string library;
};

OpenBlas open_openblas() {
    setenv("OPENBLAS_NUM_THREADS", "1", 1);  // before the library reads it
    OpenBlas b;
    for (const char* name : {"libopenblas.so.0", "libopenblas.so"}) {
        void* h = dlopen(name, RTLD_NOW | RTLD_LOCAL);
        if (!h) continue;
        b.sgemm = reinterpret_cast<SgemmFn>(dlsym(h, "cblas_sgemm"));
        if (auto set_threads = reinterpret_cast<void (*)(int)>(dlsym(h, "openblas_set_num_threads")))
            set_threads(1);
        if (b.sgemm) {
            b.library = name;
            break;
        }
    }
    return b;
}

// The same attention (no mask, no position information) on OpenBLAS: four
// sgemm projections, per head sgemm for QKᵀ and weights·V, a plain softmax.
struct BlasAttention {
    const OpenBlas& blas;
    std::size_t s, d, heads;
    const poslab::AttentionWeights& w;
    std::vector<float> q, k, v, ctx, scores, out;

    BlasAttention(const OpenBlas& b, std::size_t s_, std::size_t d_, std::size_t h_, const poslab::AttentionWeights& w_)
        : blas(b), s(s_), d(d_), heads(h_), w(w_), q(s * d), k(s * d), v(s * d), ctx(s * d), scores(s * s), out(s * d) {}

    void gemm(const float* a, const float* b, float* c, int m, int n, int kk) const {
        blas.sgemm(kRowMajor, kNoTrans, kNoTrans, m, n, kk, 1.0f, a, kk, b, n, 0.0f, c, n);
    }
    void projections(const float* x) {
        gemm(x, w.wq.data(), q.data(), int(s), int(d), int(d));
        gemm(x, w.wk.data(), k.data(), int(s), int(d), int(d));
        gemm(x, w.wv.data(), v.data(), int(s), int(d), int(d));
    }
    void run(const float* x) {
        projections(x);
        const std::size_t dh = d / heads;
        const float scale = 1.0f / std::sqrt(float(dh));
        const int S = int(s), D = int(d), DH = int(dh);
        for (std::size_t h = 0; h < heads; ++h) {
            blas.sgemm(kRowMajor, kNoTrans, kTrans, S, S, DH, scale, q.data() + h * dh, D, k.data() + h * dh, D, 0.0f,
                       scores.data(), S);
            for (std::size_t i = 0; i < s; ++i) {
                float* row = scores.data() + i * s;
                const float mx = *std::max_element(row, row + s);
                float sum = 0;
                for (std::size_t j = 0; j < s; ++j) sum += row[j] = std::exp(row[j] - mx);
                for (std::size_t j = 0; j < s; ++j) row[j] /= sum;
            }
            blas.sgemm(kRowMajor, kNoTrans, kNoTrans, S, DH, S, 1.0f, scores.data(), S, v.data() + h * dh, D, 0.0f,
                       ctx.data() + h * dh, D);
        }
        gemm(ctx.data(), w.wo.data(), out.data(), S, D, D);
    }
};

std::vector<std::size_t> parse_sizes(const std::string& text) {
    std::vector<std::size_t> sizes;
    std::stringstream ss(text);
    std::string item;
    while (std::getline(ss, item, ',')) sizes.push_back(std::stoul(item));
    return sizes;
}

json timing(const std::vector<double>& ms, double flop) {
    const double med = median(ms);
    return {{"median_ms", med}, {"runs_ms", ms}, {"gflops", flop / (med * 1e-3) / 1e9}};
}

}  // namespace

int main(int argc, char** argv) {
    std::vector<std::size_t> sizes = {128, 512, 1024, 2048};
    int runs = 5;
    std::size_t d = 768, heads = 12;
    for (int i = 1; i + 1 < argc; i += 2) {
        const std::string flag = argv[i], value = argv[i + 1];
        if (flag == "--sizes") sizes = parse_sizes(value);
        else if (flag == "--runs") runs = std::max(1, std::stoi(value));
        else if (flag == "--d-model") d = std::stoul(value);
        else if (flag == "--heads") heads = std::stoul(value);
        else {
            std::cerr << "attention_bench: unknown flag " << flag
                      << "; allowed: --sizes, --runs, --d-model, --heads\n";
            return 2;
        }
    }
    const std::uint32_t seed = 7;
    const OpenBlas blas = open_openblas();
    const poslab::AttentionWeights w = poslab::make_attention_weights(poslab::WeightsKind::random, d, seed);
    std::mt19937 gen(1);
    std::normal_distribution<float> normal(0.0f, 1.0f);

    json results = json::array();
    for (std::size_t s : sizes) {
        std::vector<float> x(s * d);
        for (float& e : x) e = normal(gen);
        poslab::ForwardOptions o;
        o.vectors = std::vector<std::vector<double>>(s, std::vector<double>(d));
        for (std::size_t i = 0; i < s; ++i)
            for (std::size_t j = 0; j < d; ++j) (*o.vectors)[i][j] = x[i * d + j];
        o.heads = heads;
        o.weights = poslab::WeightsKind::random;
        o.seed = seed;
        o.return_attention = false;
        const double flop = attention_flop(double(s), double(d));
        const double proj_flop = 8.0 * double(s) * double(d) * double(d);

        poslab::ForwardResult r;
        json row = {{"S", s}, {"D", d}, {"H", heads}, {"gflop", flop / 1e9}};
        row["poslab_forward"] = timing(time_runs(runs, [&] { r = poslab::forward(o); }), flop);
        // The projections alone, on our kernels (4 × matmul), to set against sgemm.
        std::vector<float> out(s * d);
        row["poslab_projections"] = timing(time_runs(runs, [&] {
            for (const auto* m : {&w.wq, &w.wk, &w.wv, &w.wo})
                poslab::kernels::matmul(x.data(), m->data(), out.data(), s, d, d);
        }), proj_flop);
        if (blas.sgemm) {
            BlasAttention ba(blas, s, d, heads, w);
            row["openblas_full"] = timing(time_runs(runs, [&] { ba.run(x.data()); }), flop);
            row["openblas_projections"] = timing(time_runs(runs, [&] {
                ba.projections(x.data());
                ba.gemm(x.data(), w.wo.data(), ba.out.data(), int(s), int(d), int(d));
            }), proj_flop);
            ba.run(x.data());
            // Same numbers? max |ours − OpenBLAS| relative to the largest |output|.
            double diff = 0, scale = 0;
            for (std::size_t i = 0; i < s * d; ++i) {
                diff = std::max(diff, double(std::abs(r.output.data()[i] - ba.out[i])));
                scale = std::max(scale, double(std::abs(ba.out[i])));
            }
            row["openblas_max_rel_diff"] = diff / scale;
        }
        results.push_back(row);
        std::cerr << "native S=" << s << " done\n";
    }

    // Lab sizes: a short sentence and S=32 vectors, attention returned (the page draws it).
    json lab = json::array();
    struct LabCase {
        const char* name;
        std::size_t s, d, h;
    };
    for (const LabCase& c : {LabCase{"text 犬が猫を追いかけた (S=6) D=8 H=1 sinusoidal", 6, 8, 1}, LabCase{"vectors S=32 D=64 H=4 sinusoidal", 32, 64, 4}}) {
        poslab::ForwardOptions o;
        if (c.s == 6) {
            o.text = "犬が猫を追いかけた";
            o.d_model = c.d;
        } else {
            o.vectors = std::vector<std::vector<double>>(c.s, std::vector<double>(c.d));
            for (auto& rowv : *o.vectors)
                for (double& e : rowv) e = normal(gen);
        }
        o.heads = c.h;
        o.pe = poslab::PositionScheme::sinusoidal;
        o.return_attention = true;
        const int reps = 200;
        std::vector<double> per_call_us;
        poslab::forward(o);
        for (int r = 0; r < 9; ++r) {
            const auto t0 = Clock::now();
            for (int i = 0; i < reps; ++i) poslab::forward(o);
            per_call_us.push_back(std::chrono::duration<double, std::micro>(Clock::now() - t0).count() / reps);
        }
        lab.push_back({{"case", c.name}, {"median_us", median(per_call_us)}});
    }

    const json report = {{"flop_formula", "8·S·D² + 4·S²·D"},
                         {"openblas", blas.sgemm ? json(blas.library + ", 1 thread") : json(nullptr)},
                         {"runs", runs},
                         {"results", results},
                         {"lab", lab}};
    std::cout << report.dump() << "\n";
    return 0;
}
