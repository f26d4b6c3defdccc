#ifndef NARUMI_COMMON_CUDA_EVENT_H_
#define NARUMI_COMMON_CUDA_EVENT_H_

/**
 * CudaEvent: a move-only RAII CUDA event, the one way the project orders work between streams, lets the host wait for
 * a point in a stream and, made with timing, measures a span of GPU time between two events (StageTimer keeps its
 * own for per-stage reports).  Create, record and destroy it while the device context it belongs to is current.
 */

#include "NarumiCommon/CudaError.h"
#include <cuda_runtime_api.h>
#include <utility>

namespace OpenMMNarumi::Common {

class CudaEvent {
public:
    /** timing: whether millisecondsSince can measure spans that end at this event (timing costs a little). */
    explicit CudaEvent(bool timing = false) {
        checkCuda(cudaEventCreateWithFlags(&event_, timing ? cudaEventDefault : cudaEventDisableTiming), "cudaEventCreate");
    }
    CudaEvent(const CudaEvent&) = delete;
    CudaEvent& operator=(const CudaEvent&) = delete;
    CudaEvent(CudaEvent&& other) noexcept : event_(std::exchange(other.event_, nullptr)) {
    }
    CudaEvent& operator=(CudaEvent&& other) noexcept {
        std::swap(event_, other.event_);
        return *this;
    }
    ~CudaEvent() {
        if (event_ != nullptr)
            cudaEventDestroy(event_);
    }

    /** Marks the point that the work queued on stream so far reaches. */
    void record(cudaStream_t stream) {
        checkCuda(cudaEventRecord(event_, stream), "cudaEventRecord");
    }
    /** Makes later work on stream wait for the recorded point (the host does not wait). */
    void makeWait(cudaStream_t stream) const {
        checkCuda(cudaStreamWaitEvent(stream, event_, 0), "cudaStreamWaitEvent");
    }
    /** Whether the recorded point has been reached, without waiting; an error of the work before it is thrown here. */
    bool reached(const char* what) const {
        cudaError_t status = cudaEventQuery(event_);
        if (status == cudaErrorNotReady)
            return false;
        checkCuda(status, what);
        return true;
    }
    /** Blocks the host until the recorded point is reached; an error of the work before it is thrown here. */
    void synchronize(const char* what) const {
        checkCuda(cudaEventSynchronize(event_), what);
    }
    /** GPU milliseconds from start to this event, both timed and reached. */
    float millisecondsSince(const CudaEvent& start) const {
        float milliseconds = 0;
        checkCuda(cudaEventElapsedTime(&milliseconds, start.event_, event_), "cudaEventElapsedTime");
        return milliseconds;
    }

private:
    cudaEvent_t event_ = nullptr;
};

} // namespace OpenMMNarumi::Common

#endif // NARUMI_COMMON_CUDA_EVENT_H_
