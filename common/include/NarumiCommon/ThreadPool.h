#ifndef NARUMI_COMMON_THREAD_POOL_H_
#define NARUMI_COMMON_THREAD_POOL_H_

/**
 * The one way the CPU backends of the analysis engines share work among threads: numbered tasks handed out through
 * an atomic counter (dynamic scheduling, so uneven tasks balance), the calling thread working as thread 0, the first
 * exception rethrown once all threads have stopped.  Threads are started per call: the engines' tasks run for
 * milliseconds or more, so a persistent pool would save nothing worth its shutdown logic.
 *
 * The force's Reference/CPU kernel does not use this: it runs on OpenMM's own ThreadPool, which the CPU platform's
 * Threads property sizes (platforms/reference/src/ReferenceNarumiKernels.cpp).
 */

#include <algorithm>
#include <atomic>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

namespace OpenMMNarumi::Common {

/** The threads to use for a request: requested when positive, else every hardware thread (at least one). */
inline int threadCount(int requested) {
    if (requested > 0)
        return requested;
    return (int) std::max(1u, std::thread::hardware_concurrency());
}

/** The threads parallelFor runs numTasks tasks on: threadCount(requested), but never more than the tasks (>= 1). */
inline int threadsForTasks(long numTasks, int requested) {
    return (int) std::max(1L, std::min<long>(threadCount(requested), numTasks));
}

/**
 * Runs body(task, thread) for every task in [0, numTasks) on threadsForTasks(numTasks, requestedThreads) threads;
 * thread (0 to that count - 1) lets a body keep per-thread results such as private histograms.
 */
template <class Body>
void parallelFor(long numTasks, int requestedThreads, const Body& body) {
    const int numThreads = threadsForTasks(numTasks, requestedThreads);
    std::atomic<long> nextTask(0);
    std::exception_ptr failure;
    std::mutex failureLock;
    auto worker = [&](int thread) {
        try {
            for (long task = nextTask++; task < numTasks; task = nextTask++)
                body(task, thread);
        }
        catch (...) {
            std::lock_guard<std::mutex> guard(failureLock);
            if (!failure)
                failure = std::current_exception();
            nextTask = numTasks;  // the other threads stop at their next task
        }
    };
    std::vector<std::thread> threads;
    for (int thread = 1; thread < numThreads; thread++)
        threads.emplace_back(worker, thread);
    worker(0);
    for (std::thread& thread : threads)
        thread.join();
    if (failure)
        std::rethrow_exception(failure);
}

/** parallelFor over [0, count) cut into chunks of `chunk` items: work(first, last) for each chunk [first, last). */
template <class Work>
void parallelChunks(long count, long chunk, int requestedThreads, const Work& work) {
    const long numChunks = (count + chunk - 1) / chunk;
    parallelFor(numChunks, requestedThreads, [&](long index, int) {
        const long first = index * chunk;
        work(first, std::min(count, first + chunk));
    });
}

} // namespace OpenMMNarumi::Common

#endif // NARUMI_COMMON_THREAD_POOL_H_
