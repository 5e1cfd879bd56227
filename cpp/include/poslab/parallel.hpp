#pragma once
// Independent runs on several threads (issue 25): `poslab extrapolate` and
// `poslab extend` train one model per scheme and seed, and no run reads
// another's state, so they can go side by side. Each run's numbers depend
// only on its own options and seed (the core's caches are thread_local or
// locked), and the caller collects results by index, so the output is the
// same for any thread count; with one thread the runs go in order on the
// calling thread, as before. Native only (the page uses Web Workers).
#include <algorithm>
#include <atomic>
#include <cstddef>
#include <exception>
#include <string>
#include <thread>
#include <vector>

namespace poslab {

// The most threads a caller may ask for: more than any machine here has
// cores, few enough that a typo (--threads 100000) is an error, not a crash.
constexpr std::size_t kMaxThreads = 256;

// std::thread::hardware_concurrency(), or 1 when the system does not say.
inline std::size_t default_thread_count() {
    const unsigned n = std::thread::hardware_concurrency();
    return std::clamp<std::size_t>(n ? n : 1, 1, kMaxThreads);
}

// Calls task(i) once for every i in 0…count-1 on up to `threads` threads
// (never more than count; 0 is taken as 1). The indices are handed out in
// order, each to the next free thread. An exception stops new indices being
// handed out; when every thread has ended, the one thrown by the lowest index
// is rethrown. task must only write to what belongs to its own index.
template <class Task>
void for_each_index(std::size_t count, std::size_t threads, Task task) {
    threads = std::max<std::size_t>(1, std::min(threads, count));
    if (threads <= 1) {
        for (std::size_t i = 0; i < count; ++i) task(i);
        return;
    }
    std::atomic<std::size_t> next{0};
    std::atomic<bool> failed{false};
    std::vector<std::exception_ptr> errors(count);
    auto work = [&] {
        for (;;) {
            if (failed.load()) return;
            const std::size_t i = next.fetch_add(1);
            if (i >= count) return;
            try {
                task(i);
            } catch (...) {
                errors[i] = std::current_exception();
                failed.store(true);
            }
        }
    };
    std::vector<std::thread> pool;
    pool.reserve(threads - 1);
    for (std::size_t t = 1; t < threads; ++t) pool.emplace_back(work);
    work();  // the calling thread takes its share
    for (std::thread& t : pool) t.join();
    for (const std::exception_ptr& e : errors)
        if (e) std::rethrow_exception(e);
}

}  // namespace poslab
