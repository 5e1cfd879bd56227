// The tiny Transformer's own speed (issue #25): one training step (forward +
// backward + Adam, batch 32 of the count task, the defaults of exercise 7) and
// exercise 7's default run (5 schemes x 3 seeds x 400 steps, each followed by
// its evaluation), through today's kernels ("after") and the plain loops they
// replaced ("before", poslab::train_kernels::set_reference(true)), measured
// alternately in one process so that the machine's load hits both alike.
// Prints one JSON object on stdout; never a pass/fail test.
//
//   train_bench [--repeats 7] [--steps 20] [--full-runs 1] [--full-steps 400]
//
// The same file is built for wasm (build/wasm/train_bench.js, run by Node);
// bench/train.mjs runs both and prints the table.
//
// GFLOP/s counts the multiply-adds of the matrix products (2 per
// multiply-add: linear layers forward and backward, attention's lower
// triangles); LayerNorm, softmax, Adam are not counted, so the figure is a
// lower bound of the work done per second. The ceiling is the 128-bit SIMD
// peak: vector FP operations issued per cycle x 4 lanes x clock (the clock is
// measured natively with a chain of dependent integer adds, one per cycle on
// every x86-64 core, timed in this thread's CPU time; the issue width is assumed from the processor family).
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#include <time.h>
#if defined(__wasm__)
#include <emscripten.h>
#endif

#include "poslab/random.hpp"
#include "poslab/train.hpp"
#include "poslab/train_kernels.hpp"

namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t0) {
    return std::chrono::duration<double>(Clock::now() - t0).count();
}

// CPU time: unlike the wall clock, it does not grow while other processes
// hold the cores. Natively this thread's; in wasm, Node's process.cpuUsage()
// (the whole process: the wasm runs on its main thread, and V8's compiler and
// GC threads add a little).
double cpu_seconds() {
#if defined(__wasm__)
    return EM_ASM_DOUBLE({
        const u = process.cpuUsage();
        return (u.user + u.system) / 1e6;
    });
#else
    timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return double(ts.tv_sec) + 1e-9 * double(ts.tv_nsec);
#endif
}

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    const std::size_t n = v.size();
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

std::string json_escape(const std::string& s) {
    std::string out;
    for (char c : s) {
        if (c == '"' || c == '\\') out += '\\';
        if (static_cast<unsigned char>(c) >= 0x20) out += c;
    }
    return out;
}

struct Processor {
    std::string model = "unknown";
    std::string vendor = "unknown";
    int family = -1;
    double ghz = 0.0;             // measured (native) or 0
    int vector_ops_per_cycle = 0;  // 128-bit FP operations issued per cycle (assumed)
    std::string assumption;
};

#if defined(__x86_64__)
// Cycles ≈ dependent integer adds: one per cycle on every x86-64 core.
double measure_ghz() {
    std::vector<double> ghz;
    for (int rep = 0; rep < 9; ++rep) {
        const double t0 = cpu_seconds();
        std::uint64_t x = 0;
        const std::uint64_t n = 20'000'000;
        for (std::uint64_t i = 0; i < n; i += 10) {
            asm volatile(
                "add $1, %0\n\tadd $1, %0\n\tadd $1, %0\n\tadd $1, %0\n\tadd $1, %0\n\t"
                "add $1, %0\n\tadd $1, %0\n\tadd $1, %0\n\tadd $1, %0\n\tadd $1, %0\n\t"
                : "+r"(x));
        }
        ghz.push_back(double(n) / (cpu_seconds() - t0) / 1e9);
    }
    // The fastest repeat: the one least slowed by the other processes here.
    return *std::max_element(ghz.begin(), ghz.end());
}
#endif

Processor describe_processor() {
    Processor p;
    std::ifstream in("/proc/cpuinfo");
    std::string line;
    while (std::getline(in, line)) {
        auto value = [&] { return line.substr(line.find(':') + 2); };
        if (line.rfind("model name", 0) == 0 && p.model == "unknown") p.model = value();
        if (line.rfind("vendor_id", 0) == 0 && p.vendor == "unknown") p.vendor = value();
        if (line.rfind("cpu family", 0) == 0 && p.family < 0) p.family = std::atoi(value().c_str());
    }
#if defined(__x86_64__)
    p.ghz = measure_ghz();
#endif
    if (p.vendor == "AuthenticAMD" && p.family >= 0x17) {
        p.vector_ops_per_cycle = 4;
        p.assumption = "AMD Zen (family " + std::to_string(p.family) +
                       "): 2 FP multiply/FMA pipes + 2 FP add pipes, each one 128-bit op per cycle";
    } else if (p.vendor == "GenuineIntel") {
        p.vector_ops_per_cycle = 2;
        p.assumption = "Intel (family " + std::to_string(p.family) +
                       "): 2 vector FP pipes (ports 0 and 1), each one 128-bit op per cycle";
    } else {
        p.vector_ops_per_cycle = 2;
        p.assumption = "unknown processor: assumed 2 vector FP operations per cycle";
    }
    return p;
}

// Multiply-adds of one forward + backward on this batch (see the header).
double step_flops(const poslab::ExtrapolationOptions& o, const poslab::TokenBatch& b) {
    const double D = double(o.d_model), F = double(o.d_mlp), L = double(o.layers), H = double(o.heads);
    const double V = double(poslab::task_vocab(o)), dh = D / H;
    double N = 0, tri = 0;
    for (std::size_t S : b.lengths) {
        N += double(S);
        tri += double(S) * double(S + 1) / 2.0;
    }
    const double linear = N * (L * (D * 3 * D + D * D + 2 * D * F) + D * V);  // multiply-adds, forward
    const double attention = L * H * tri * dh * 2;  // scores and context, forward
    // backward: each linear twice (dW and dx), attention four products
    return 2.0 * (linear * 3.0 + attention * 3.0);
}

struct Timing {
    double step_ms = 0, cpu_ms = 0, gflops = 0;
};

// Median of `repeats` timings of `steps` training steps of a fresh run per repeat.
Timing time_steps(const poslab::ExtrapolationOptions& o, bool reference, int repeats, int steps,
                  double flops_per_step) {
    std::vector<double> ms, cpu;
    for (int r = 0; r < repeats; ++r) {
        poslab::train_kernels::set_reference(reference);
        poslab::ExtrapolationRun run(o);
        run.step(2);  // warm the workspaces
        const auto t0 = Clock::now();
        const double c0 = cpu_seconds();
        run.step(std::size_t(steps));
        cpu.push_back((cpu_seconds() - c0) * 1e3 / steps);
        ms.push_back(seconds_since(t0) * 1e3 / steps);
    }
    poslab::train_kernels::set_reference(false);
    Timing t;
    t.step_ms = median(ms);
    t.cpu_ms = median(cpu);
    t.gflops = flops_per_step / (t.step_ms * 1e-3) / 1e9;
    return t;
}

// Exercise 7's default run: 5 schemes x 3 seeds x 400 steps, each evaluated.
int full_steps = 400;  // --full-steps: exercise 7's 400, or fewer on a crowded machine

double full_run_seconds(bool reference, std::vector<double>* solved, double* cpu) {
    poslab::train_kernels::set_reference(reference);
    const auto t0 = Clock::now();
    const double c0 = cpu_seconds();
    for (auto scheme : {poslab::PositionScheme::none, poslab::PositionScheme::sinusoidal,
                        poslab::PositionScheme::learned, poslab::PositionScheme::rope,
                        poslab::PositionScheme::alibi})
        for (int seed = 1; seed <= 3; ++seed) {
            poslab::ExtrapolationOptions o;
            o.scheme = scheme;
            o.seed = seed;
            o.steps = full_steps;
            poslab::ExtrapolationRun run(o);
            run.step(std::size_t(o.steps));
            const auto ev = run.evaluate();
            if (solved) solved->push_back(double(ev.solved_up_to) + ev.mean_extrapolated + run.losses().back());
        }
    poslab::train_kernels::set_reference(false);
    *cpu = cpu_seconds() - c0;
    return seconds_since(t0);
}

}  // namespace

int main(int argc, char** argv) {
    int repeats = 7, steps = 20, full_runs = 1;
    bool ceiling_only = false;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        if (a == "--ceiling") {  // the processor and its ceiling only (bench/ceiling.mjs)
            ceiling_only = true;
            continue;
        }
        auto next = [&](int& v) {
            if (i + 1 >= argc) {
                std::fprintf(stderr, "%s needs a number\n", a.c_str());
                std::exit(2);
            }
            v = std::atoi(argv[++i]);
            if (v < 0 || v > 1000) {
                std::fprintf(stderr, "%s must be 0 … 1000\n", a.c_str());
                std::exit(2);
            }
        };
        if (a == "--repeats") next(repeats);
        else if (a == "--steps") next(steps);
        else if (a == "--full-runs") next(full_runs);
        else if (a == "--full-steps") next(full_steps);
        else {
            std::fprintf(stderr, "unknown option %s (allowed: --repeats N, --steps N, --full-runs N, --full-steps N, --ceiling)\n", a.c_str());
            return 2;
        }
    }
    if (repeats < 1) repeats = 1;
    if (steps < 1) steps = 1;
    if (full_steps < 1) full_steps = 1;

    const Processor p = describe_processor();
    const double ceiling = p.ghz * p.vector_ops_per_cycle * 4.0;
    if (ceiling_only) {
        std::printf("{\"processor\":\"%s\",\"vendor\":\"%s\",\"family\":%d,\"measured_ghz\":%.3f,"
                    "\"vector_ops_per_cycle\":%d,\"assumption\":\"%s\",\"ceiling_gflops\":%.2f}\n",
                    json_escape(p.model).c_str(), json_escape(p.vendor).c_str(), p.family, p.ghz,
                    p.vector_ops_per_cycle, json_escape(p.assumption).c_str(), ceiling);
        return 0;
    }

    // FLOPs of a step: the mean over the first batches of a run (n is random).
    poslab::ExtrapolationOptions o;  // exercise 7's defaults, learned positions
    double flops = 0;
    {
        poslab::Rng rng(poslab::mix_seed(std::uint64_t(o.seed), poslab::kDataStream));
        const int count = 64;
        for (int i = 0; i < count; ++i)
            flops += step_flops(o, poslab::task_batch(o, std::size_t(o.train_max), rng)) / count;
    }

    // Alternate before/after so both see the same load.
    std::vector<double> before_ms, after_ms, before_cpu, after_cpu;
    Timing before, after;
    for (int round = 0; round < repeats; ++round) {
        const Timing b = time_steps(o, true, 1, steps, flops);
        const Timing a = time_steps(o, false, 1, steps, flops);
        before_ms.push_back(b.step_ms);
        after_ms.push_back(a.step_ms);
        before_cpu.push_back(b.cpu_ms);
        after_cpu.push_back(a.cpu_ms);
    }
    before.step_ms = median(before_ms);
    after.step_ms = median(after_ms);
    before.cpu_ms = median(before_cpu);
    after.cpu_ms = median(after_cpu);
    // GFLOP/s per CPU second: what the core does while it runs this thread.
    before.gflops = flops / (before.cpu_ms * 1e-3) / 1e9;
    after.gflops = flops / (after.cpu_ms * 1e-3) / 1e9;

    std::vector<double> full_before, full_after, full_before_cpu, full_after_cpu;
    bool same = true;
    for (int r = 0; r < full_runs; ++r) {
        std::vector<double> sb, sa;
        double cb = 0, ca = 0;
        full_before.push_back(full_run_seconds(true, &sb, &cb));
        full_after.push_back(full_run_seconds(false, &sa, &ca));
        full_before_cpu.push_back(cb);
        full_after_cpu.push_back(ca);
        same = same && sb == sa;
    }

#if defined(__wasm__)
    const char* platform = "wasm";
#else
    const char* platform = "native";
#endif
    std::printf("{\"platform\":\"%s\",\"processor\":\"%s\",\"vendor\":\"%s\",\"family\":%d,", platform,
                json_escape(p.model).c_str(), json_escape(p.vendor).c_str(), p.family);
    std::printf("\"measured_ghz\":%.3f,\"vector_ops_per_cycle\":%d,\"assumption\":\"%s\",\"ceiling_gflops\":%.2f,",
                p.ghz, p.vector_ops_per_cycle, json_escape(p.assumption).c_str(), ceiling);
    std::printf("\"flops_per_step\":%.0f,\"repeats\":%d,\"steps\":%d,", flops, repeats, steps);
    std::printf("\"step\":{\"before_ms\":%.4f,\"after_ms\":%.4f,\"before_cpu_ms\":%.4f,\"after_cpu_ms\":%.4f,"
                "\"before_gflops\":%.3f,\"after_gflops\":%.3f,\"ratio\":%.3f,\"cpu_ratio\":%.3f},",
                before.step_ms, after.step_ms, before.cpu_ms, after.cpu_ms, before.gflops, after.gflops,
                before.step_ms / after.step_ms, before.cpu_ms / after.cpu_ms);
    if (full_runs > 0)
        std::printf("\"exercise7\":{\"runs\":%d,\"steps_per_run\":%d,\"before_s\":%.3f,\"after_s\":%.3f,\"before_cpu_s\":%.3f,"
                    "\"after_cpu_s\":%.3f,\"ratio\":%.3f,\"cpu_ratio\":%.3f,\"same_results\":%s}",
                    full_runs, full_steps, median(full_before), median(full_after), median(full_before_cpu),
                    median(full_after_cpu), median(full_before) / median(full_after),
                    median(full_before_cpu) / median(full_after_cpu), same ? "true" : "false");
    else
        std::printf("\"exercise7\":null");
    std::printf("}\n");
    return 0;
}
