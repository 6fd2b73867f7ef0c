// Work over a batch split across threads: chunk k of [0, count) runs body(from, to). Each item's
// result depends on the item alone, so the answer is the same bits on any number of threads.
#pragma once

#include <algorithm>
#include <cstddef>
#include <thread>
#include <vector>

namespace kc {

// Threads for `count` items of which one thread is worth at least `grain`: all the cores for a
// large batch, one for a small one (a thread costs tens of µs to start). requested > 0 fixes it.
inline std::size_t workers_for(std::size_t count, std::size_t grain, int requested = 0) {
    std::size_t cores = requested > 0 ? static_cast<std::size_t>(requested)
                                      : std::max(1u, std::thread::hardware_concurrency());
    return std::max<std::size_t>(1, std::min(cores, count / std::max<std::size_t>(grain, 1)));
}

// body(from, to) over [0, count) in `workers` contiguous chunks, the calling thread taking the
// first; returns whether every chunk returned true.
template <class Body>
bool parallel_chunks(std::size_t count, std::size_t workers, Body body) {
    if (workers <= 1) return body(std::size_t{0}, count);
    const std::size_t per = (count + workers - 1) / workers;
    std::vector<char> ok(workers, 1);
    std::vector<std::thread> pool;
    for (std::size_t w = 1; w < workers; ++w)
        pool.emplace_back([&, w] { ok[w] = body(std::min(count, w * per), std::min(count, (w + 1) * per)); });
    ok[0] = body(std::size_t{0}, std::min(count, per));
    for (auto& th : pool) th.join();
    return std::all_of(ok.begin(), ok.end(), [](char x) { return x != 0; });
}

}  // namespace kc
