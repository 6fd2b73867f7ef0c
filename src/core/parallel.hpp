// Work over a batch split across threads: pieces of [0, count) run body(from, to). Each item's
// result depends on the item alone, so the answer is the same bits on any number of threads.
#pragma once

#include <algorithm>
#include <atomic>
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

// body(from, to) over [0, count) on `workers` threads, the calling thread one of them; returns
// whether every call returned true. The range goes out in pieces, PIECES per worker, to whichever
// thread is free: a thread that starts late or runs on a slower core (a core waking from idle
// takes ~0.5 ms to come up to speed) takes fewer, so the batch is not held up by its last chunk.
template <class Body>
bool parallel_chunks(std::size_t count, std::size_t workers, Body body) {
    if (workers <= 1) return body(std::size_t{0}, count);
    constexpr std::size_t PIECES = 8;
    const std::size_t piece = std::max<std::size_t>(1, (count + workers * PIECES - 1) / (workers * PIECES));
    std::atomic<std::size_t> next{0};
    std::atomic<bool> ok{true};
    auto work = [&] {
        for (std::size_t from = next.fetch_add(piece); from < count; from = next.fetch_add(piece))
            if (!body(from, std::min(count, from + piece))) ok.store(false);
    };
    std::vector<std::thread> pool;
    for (std::size_t w = 1; w < workers; ++w) pool.emplace_back(work);
    work();
    for (auto& th : pool) th.join();
    return ok.load();
}

}  // namespace kc
