#ifndef NARUMI_COMMON_STAGE_TIMER_H_
#define NARUMI_COMMON_STAGE_TIMER_H_

/**
 * Per-stage GPU times of a sequence of launches, from CUDA events recorded between them: start() opens an
 * evaluation (a force evaluation, a map frame), mark(name) closes the stage since the previous event, finish() waits
 * for the last event and gives this evaluation's stage times, and keeps totals per stage name over all evaluations.
 * Timing makes each evaluation wait for its events, so callers create a timer only when they are asked to profile
 * (or, like the potential map, report stage times as a result).
 */

#include <cuda_runtime_api.h>
#include <cstdio>
#include <string>
#include <vector>

namespace OpenMMNarumi::Common {

class StageTimer {
public:
    /** One stage's time: in one evaluation (finish()), or summed over evaluations that ran it (totals()). */
    struct Stage {
        std::string name;
        double milliseconds = 0;
        long long runs = 0;
    };

    StageTimer() = default;
    StageTimer(const StageTimer&) = delete;
    StageTimer& operator=(const StageTimer&) = delete;
    ~StageTimer();

    /** Opens an evaluation: records its first event on stream. */
    void start(cudaStream_t stream = 0);
    /** Closes the stage called name, the span since the last start() or mark(). */
    void mark(const char* name, cudaStream_t stream = 0);
    /** Waits for the last event; returns this evaluation's stages in order and adds them to the totals. */
    const std::vector<Stage>& finish();

    /** Every stage seen, in first-seen order, summed over the finished evaluations. */
    const std::vector<Stage>& totals() const {
        return totals_;
    }
    long long evaluations() const {
        return evaluations_;
    }
    /** Forgets the totals so far, e.g. of a first evaluation that does work the later ones do not. */
    void clearTotals() {
        totals_.clear();
        evaluations_ = 0;
    }
    /** The totals as a table to out: microseconds per evaluation and per run of each stage, under a title line. */
    void printTotals(std::FILE* out, const std::string& title) const;

private:
    void record(size_t index, cudaStream_t stream);

    std::vector<cudaEvent_t> events_;       // events_[0] opens the evaluation, events_[k] closes stage k
    std::vector<std::string> pending_;      // the open evaluation's stage names, in order
    std::vector<Stage> last_, totals_;
    long long evaluations_ = 0;
};

} // namespace OpenMMNarumi::Common

#endif // NARUMI_COMMON_STAGE_TIMER_H_
