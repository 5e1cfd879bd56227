// Native side of `npm run bench`: one attention forward at GPT-2-small shape
// (D=768, H=12, random Q/K/V/output projections) through poslab::forward, the
// same call the wasm module makes, plus the same computation with OpenBLAS's
// sgemm when libopenblas is installed. Prints one JSON object on stdout; never
// a pass/fail test.
//
//   attention_bench [--sizes 128,512,1024,2048] [--runs 5] [--d-model 768] [--heads 12]
//   attention_bench --serve     (line requests from run.mjs, see main)
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
#include <memory>
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
// sgemm projections, per head sgemm for QKᵀ and weights·V; the softmax is
// ours, so the difference is the matrix products alone.
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
            poslab::kernels::softmax_rows(scores.data(), s, s);
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

// The input run.mjs gives the wasm module (mulberry32, uniform in [-1, 1)),
// so native and wasm outputs can be compared.
std::vector<float> make_input(std::size_t rows, std::size_t cols, std::uint32_t seed) {
    std::vector<float> data(rows * cols);
    std::uint32_t a = seed;
    for (float& v : data) {
        a += 0x6d2b79f5u;
        std::uint32_t t = a;
        t = (t ^ (t >> 15)) * (t | 1u);
        t ^= t + (t ^ (t >> 7)) * (t | 61u);
        v = static_cast<float>(static_cast<double>(t ^ (t >> 14)) / 4294967296.0 * 2.0 - 1.0);
    }
    return data;
}

double ms_of(const std::function<void()>& f) {
    const auto t0 = Clock::now();
    f();
    return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
}

// Everything timed at one S; once() times one run of each.
struct SizeBench {
    std::size_t s, d, heads;
    const poslab::AttentionWeights& w;
    const OpenBlas& blas;
    std::vector<float> x, out;
    poslab::ForwardOptions options;
    poslab::ForwardResult result;
    std::unique_ptr<BlasAttention> reference;

    SizeBench(std::size_t s_, std::size_t d_, std::size_t h_, std::uint32_t seed, const poslab::AttentionWeights& w_,
              const OpenBlas& b)
        : s(s_), d(d_), heads(h_), w(w_), blas(b), x(make_input(s_, d_, std::uint32_t(s_))), out(s_ * d_) {
        options.vectors = std::vector<std::vector<double>>(s, std::vector<double>(d));
        for (std::size_t i = 0; i < s; ++i)
            for (std::size_t j = 0; j < d; ++j) (*options.vectors)[i][j] = x[i * d + j];
        options.heads = heads;
        options.weights = poslab::WeightsKind::random;
        options.seed = seed;
        options.return_attention = false;
        if (blas.sgemm) reference = std::make_unique<BlasAttention>(blas, s, d, heads, w);
        once();  // warm-up: weights drawn, buffers grown
    }

    json once() {
        json t;
        t["forward_ms"] = ms_of([&] { result = poslab::forward(options); });
        // The projections alone, on our kernels (4 × matmul), to set against sgemm.
        t["projections_ms"] = ms_of([&] {
            for (const auto* m : {&w.wq, &w.wk, &w.wv, &w.wo})
                poslab::kernels::matmul(x.data(), m->data(), out.data(), s, d, d);
        });
        if (reference) {
            t["openblas_ms"] = ms_of([&] { reference->run(x.data()); });
            t["openblas_projections_ms"] = ms_of([&] {
                reference->projections(x.data());
                reference->gemm(x.data(), w.wo.data(), reference->out.data(), int(s), int(d), int(d));
            });
        }
        return t;
    }

    // sum |output| (compared with the wasm module's) and max |ours − OpenBLAS| / max |OpenBLAS|.
    json check() {
        double sum_abs = 0;
        for (float v : result.output) sum_abs += std::abs(v);
        json c = {{"sum_abs_output", sum_abs}};
        if (reference) {
            reference->run(x.data());
            double diff = 0, scale = 0;
            for (std::size_t i = 0; i < s * d; ++i) {
                diff = std::max(diff, double(std::abs(result.output.data()[i] - reference->out[i])));
                scale = std::max(scale, double(std::abs(reference->out[i])));
            }
            c["openblas_max_rel_diff"] = diff / scale;
        }
        return c;
    }
};

// Lab sizes: a short sentence and S=32 vectors, attention returned (the page draws it).
json lab_sizes() {
    json lab = json::array();
    struct LabCase {
        const char* name;
        std::size_t s, d, h;
    };
    for (const LabCase& c : {LabCase{"text 犬が猫を追いかけた (S=6) D=8 H=1 sinusoidal", 6, 8, 1},
                             LabCase{"vectors S=32 D=64 H=4 sinusoidal", 32, 64, 4}}) {
        poslab::ForwardOptions o;
        if (c.s == 6) {
            o.text = "犬が猫を追いかけた";
            o.d_model = c.d;
        } else {
            const std::vector<float> x = make_input(c.s, c.d, std::uint32_t(c.s));
            o.vectors = std::vector<std::vector<double>>(c.s, std::vector<double>(c.d));
            for (std::size_t i = 0; i < c.s; ++i)
                for (std::size_t j = 0; j < c.d; ++j) (*o.vectors)[i][j] = x[i * c.d + j];
        }
        o.heads = c.h;
        o.pe = poslab::PositionScheme::sinusoidal;
        o.return_attention = true;
        const int calls = 200;
        std::vector<double> per_call_us;
        poslab::forward(o);
        for (int r = 0; r < 9; ++r)
            per_call_us.push_back(1000.0 * ms_of([&] {
                for (int i = 0; i < calls; ++i) poslab::forward(o);
            }) / calls);
        lab.push_back({{"case", c.name}, {"median_us", median(per_call_us)}});
    }
    return lab;
}

json info(const OpenBlas& blas) {
    // The FLOP count every implementation is credited with: 4 projections
    // [S,D]·[D,D] (2·S·D² each) plus, per head, QKᵀ and weights·V (2·S²·d_head
    // each, so 4·S²·D over all heads). Softmax, bias and masking are not counted.
    return {{"flop_formula", "8·S·D² + 4·S²·D"},
            {"openblas", blas.sgemm ? json(blas.library + ", 1 thread") : json(nullptr)}};
}

}  // namespace

int main(int argc, char** argv) {
    std::vector<std::size_t> sizes = {128, 512, 1024, 2048};
    int runs = 5;
    bool serve = false;
    std::size_t d = 768, heads = 12;
    for (int i = 1; i < argc; ++i) {
        const std::string flag = argv[i];
        if (flag == "--serve") {
            serve = true;
            continue;
        }
        if (i + 1 >= argc) {
            std::cerr << "attention_bench: " << flag << " needs a value\n";
            return 2;
        }
        const std::string value = argv[++i];
        if (flag == "--sizes") sizes = parse_sizes(value);
        else if (flag == "--runs") runs = std::max(1, std::stoi(value));
        else if (flag == "--d-model") d = std::stoul(value);
        else if (flag == "--heads") heads = std::stoul(value);
        else {
            std::cerr << "attention_bench: unknown flag " << flag
                      << "; allowed: --sizes, --runs, --d-model, --heads, --serve\n";
            return 2;
        }
    }
    const std::uint32_t seed = 7;
    const OpenBlas blas = open_openblas();
    const poslab::AttentionWeights w = poslab::make_attention_weights(poslab::WeightsKind::random, d, seed);

    if (serve) {
        // One request per line, one JSON answer per line, so run.mjs can
        // interleave single runs with the other implementations:
        //   "size S" (set up S, warm up) · "run" (time one run) · "check" · "lab" · "info" · "quit"
        std::unique_ptr<SizeBench> bench;
        std::string line;
        while (std::getline(std::cin, line)) {
            std::stringstream req(line);
            std::string what;
            req >> what;
            json answer;
            if (what == "size") {
                std::size_t s = 0;
                req >> s;
                bench.reset();
                bench = std::make_unique<SizeBench>(s, d, heads, seed, w, blas);
                answer = {{"S", s}};
            } else if (what == "run" && bench) {
                answer = bench->once();
            } else if (what == "check" && bench) {
                answer = bench->check();
            } else if (what == "lab") {
                answer = lab_sizes();
            } else if (what == "info") {
                answer = info(blas);
            } else if (what == "quit") {
                break;
            } else {
                answer = {{"error", "unknown request '" + line + "'; allowed: size S, run, check, lab, info, quit"}};
            }
            std::cout << answer.dump() << std::endl;
        }
        return 0;
    }

    json results = json::array();
    for (std::size_t s : sizes) {
        SizeBench bench(s, d, heads, seed, w, blas);
        std::vector<json> timings;
        for (int r = 0; r < runs; ++r) timings.push_back(bench.once());
        json row = {{"S", s}, {"D", d}, {"H", heads}, {"check", bench.check()}};
        for (const char* key : {"forward_ms", "projections_ms", "openblas_ms", "openblas_projections_ms"}) {
            if (!timings[0].contains(key)) continue;
            std::vector<double> ms;
            for (const json& t : timings) ms.push_back(t[key]);
            row[key] = {{"median", median(ms)}, {"runs", ms}};
        }
        results.push_back(row);
    }
    json report = info(blas);
    report["runs"] = runs;
    report["results"] = results;
    report["lab"] = lab_sizes();
    std::cout << report.dump(2) << "\n";
    return 0;
}
