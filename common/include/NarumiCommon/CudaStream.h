#ifndef NARUMI_COMMON_CUDA_STREAM_H_
#define NARUMI_COMMON_CUDA_STREAM_H_

/**
 * CudaStream: a move-only RAII CUDA stream that does not wait for the legacy default stream (nor it for this one), the
 * one way the project makes a stream of its own; CudaEvent orders work between streams.  Create and destroy it while
 * the device context it belongs to is current.  Destruction does not wait: work queued on it still completes.
 */

#include "NarumiCommon/CudaError.h"
#include <cuda_runtime_api.h>
#include <utility>

namespace OpenMMNarumi::Common {

class CudaStream {
public:
    CudaStream() {
        checkCuda(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking), "cudaStreamCreate");
    }
    CudaStream(const CudaStream&) = delete;
    CudaStream& operator=(const CudaStream&) = delete;
    CudaStream(CudaStream&& other) noexcept : stream_(std::exchange(other.stream_, nullptr)) {
    }
    CudaStream& operator=(CudaStream&& other) noexcept {
        std::swap(stream_, other.stream_);
        return *this;
    }
    ~CudaStream() {
        if (stream_ != nullptr)
            cudaStreamDestroy(stream_);
    }

    operator cudaStream_t() const {
        return stream_;
    }

private:
    cudaStream_t stream_ = nullptr;
};

} // namespace OpenMMNarumi::Common

#endif // NARUMI_COMMON_CUDA_STREAM_H_
