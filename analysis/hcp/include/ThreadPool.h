#pragma once
// Runs work(first, last) over [0, count) in chunks on several std::threads (dynamic scheduling).

#include <algorithm>
#include <atomic>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

namespace narumi {
namespace hcp {

inline int resolveThreadCount(int requested) {
    if (requested > 0) return requested;
    return std::max(1u, std::thread::hardware_concurrency());
}

template <typename Work>
void parallelChunks(long count, long chunk, int numThreads, const Work& work) {
    numThreads = std::max(1, std::min<int>(resolveThreadCount(numThreads), static_cast<int>((count + chunk - 1) / chunk)));
    std::atomic<long> next{0};
    std::exception_ptr failure;
    std::mutex failureLock;
    auto worker = [&]() {
        try {
            for (long first = next.fetch_add(chunk); first < count; first = next.fetch_add(chunk))
                work(first, std::min(count, first + chunk));
        } catch (...) {
            std::lock_guard<std::mutex> guard(failureLock);
            if (!failure) failure = std::current_exception();
            next = count;  // the others stop at their next chunk
        }
    };
    std::vector<std::thread> threads;
    for (int t = 1; t < numThreads; ++t) threads.emplace_back(worker);
    worker();
    for (std::thread& thread : threads) thread.join();
    if (failure) std::rethrow_exception(failure);
}

}  // namespace hcp
}  // namespace narumi
