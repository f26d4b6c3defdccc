/** StageTimer (StageTimer.h): CUDA events between stages, summed per stage name. */

#include "NarumiCommon/StageTimer.h"
#include "NarumiCommon/CudaError.h"
#include <algorithm>

namespace OpenMMNarumi::Common {

StageTimer::~StageTimer() {
    for (cudaEvent_t event : events_)
        cudaEventDestroy(event);
}

void StageTimer::start(cudaStream_t stream) {
    pending_.clear();
    record(0, stream);
}

void StageTimer::mark(const char* name, cudaStream_t stream) {
    pending_.push_back(name);
    record(pending_.size(), stream);
}

const std::vector<StageTimer::Stage>& StageTimer::finish() {
    checkCuda(cudaEventSynchronize(events_[pending_.size()]), "waiting for the stage timer's events");
    last_.clear();
    for (size_t k = 0; k < pending_.size(); k++) {
        float milliseconds = 0;
        checkCuda(cudaEventElapsedTime(&milliseconds, events_[k], events_[k + 1]), "reading a stage time");
        last_.push_back({pending_[k], milliseconds, 1});
        auto total = std::find_if(totals_.begin(), totals_.end(), [&](const Stage& s) { return s.name == pending_[k]; });
        if (total == totals_.end())
            total = totals_.insert(totals_.end(), Stage{pending_[k], 0, 0});
        total->milliseconds += milliseconds;
        total->runs++;
    }
    evaluations_++;
    return last_;
}

void StageTimer::printTotals(std::FILE* out, const std::string& title) const {
    double total = 0;
    for (const Stage& stage : totals_)
        total += stage.milliseconds;
    long long evaluations = std::max(1LL, evaluations_);
    std::fprintf(out, "%s stage times, %lld evaluations (us per evaluation; runs = evaluations that ran it):\n", title.c_str(),
                 evaluations_);
    for (const Stage& stage : totals_)
        std::fprintf(out, "  %-22s %10.2f us  (runs %lld, %.2f us per run)\n", stage.name.c_str(),
                     1000 * stage.milliseconds / evaluations, stage.runs, 1000 * stage.milliseconds / std::max(1LL, stage.runs));
    std::fprintf(out, "  %-22s %10.2f us\n", "total", 1000 * total / evaluations);
}

void StageTimer::record(size_t index, cudaStream_t stream) {
    while (events_.size() <= index) {
        cudaEvent_t event;
        checkCuda(cudaEventCreate(&event), "creating a stage timer event");
        events_.push_back(event);
    }
    checkCuda(cudaEventRecord(events_[index], stream), "recording a stage timer event");
}

} // namespace OpenMMNarumi::Common
