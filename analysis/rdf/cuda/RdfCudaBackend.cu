/**
 * The CUDA backend of RdfEngine: host side.  Per frame: gather the selected atoms' positions into page-locked memory,
 * upload them in one copy, and let CudaPairHistogram (RdfCudaHistogram.cu) wrap, sort and histogram them on this
 * backend's stream; the frame is synchronous, so the caller may reuse its positions at once.
 */

#include "RdfCudaHistogram.h"
#include "RdfEngine.h"
#include <memory>
#include <sstream>
#include <stdexcept>

namespace NarumiRdf {

namespace {

/** Page-locked host memory that only grows: the staging area of each frame's upload. */
template <class T>
class PinnedBuffer {
public:
    PinnedBuffer() = default;
    PinnedBuffer(const PinnedBuffer&) = delete;
    PinnedBuffer& operator=(const PinnedBuffer&) = delete;
    ~PinnedBuffer() {
        cudaFreeHost(data_);
    }
    T* reserve(size_t count) {
        if (count > capacity_) {
            cudaFreeHost(data_);
            data_ = nullptr;
            capacity_ = 0;
            checkCuda(cudaMallocHost(&data_, (count > 0 ? count : 1) * sizeof(T)), "cudaMallocHost");
            capacity_ = count;
        }
        return data_;
    }

private:
    T* data_ = nullptr;
    size_t capacity_ = 0;
};

/** Copies the selected atoms' coordinates, in selection order, to staging (3 values per atom). */
template <class Real>
void gatherSelected(const Real* positions, const std::vector<int>& selection, Real* staging) {
    for (size_t k = 0; k < selection.size(); k++) {
        const Real* p = positions + 3 * (size_t) selection[k];
        staging[3 * k] = p[0];
        staging[3 * k + 1] = p[1];
        staging[3 * k + 2] = p[2];
    }
}

class CudaBackend : public PairHistogramBackend {
public:
    explicit CudaBackend(const RdfProblem& problem) : problem_(problem), device_(problem.settings.cudaDevice) {
        int numDevices = 0;
        checkCuda(cudaGetDeviceCount(&numDevices), "cudaGetDeviceCount");
        if (device_ < 0 || device_ >= numDevices) {
            std::ostringstream text;
            text << "cudaDevice = " << device_ << " does not exist (" << numDevices << " CUDA devices)";
            throw std::invalid_argument(text.str());
        }
        checkCuda(cudaSetDevice(device_), "cudaSetDevice");
        int numSMs = 1;
        checkCuda(cudaDeviceGetAttribute(&numSMs, cudaDevAttrMultiProcessorCount, device_), "multiprocessor count");
        checkCuda(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking), "cudaStreamCreate");
        histogram_ = std::make_unique<CudaPairHistogram>(problem_, numSMs, false, stream_);
        checkCuda(cudaStreamSynchronize(stream_), "RDF set-up");
    }

    ~CudaBackend() override {
        cudaSetDevice(device_);
        histogram_.reset();
        cudaStreamDestroy(stream_);
    }

    std::string name() const override {
        return "cuda";
    }

    void reset() override {
        checkCuda(cudaSetDevice(device_), "cudaSetDevice");
        histogram_->clear(stream_);
        checkCuda(cudaStreamSynchronize(stream_), "reset");
    }

    std::vector<uint64_t> rawCounts() override {
        checkCuda(cudaSetDevice(device_), "cudaSetDevice");
        return histogram_->download(stream_);
    }

    void accumulate(const FrameInput& frame) override {
        checkCuda(cudaSetDevice(device_), "cudaSetDevice");
        // Only the selected atoms travel: gathered in selection order into page-locked memory, one copy.
        size_t valuesA = 3 * problem_.selectionA.size(), valuesB = 3 * problem_.selectionB.size();
        DevicePositions positions;
        if (frame.positionsFloat) {
            float* staging = stagingFloat_.reserve(valuesA + valuesB);
            gatherSelected(frame.positionsFloat, problem_.selectionA, staging);
            gatherSelected(frame.positionsFloat, problem_.selectionB, staging + valuesA);
            float* device = positionsFloat_.reserve(valuesA + valuesB);
            checkCuda(cudaMemcpyAsync(device, staging, (valuesA + valuesB) * sizeof(float), cudaMemcpyHostToDevice, stream_),
                      "upload positions");
            positions.selectedFloat[0] = device;
            positions.selectedFloat[1] = device + valuesA;
        } else {
            double* staging = stagingDouble_.reserve(valuesA + valuesB);
            gatherSelected(frame.positionsDouble, problem_.selectionA, staging);
            gatherSelected(frame.positionsDouble, problem_.selectionB, staging + valuesA);
            double* device = positionsDouble_.reserve(valuesA + valuesB);
            checkCuda(cudaMemcpyAsync(device, staging, (valuesA + valuesB) * sizeof(double), cudaMemcpyHostToDevice, stream_),
                      "upload positions");
            positions.selectedDouble[0] = device;
            positions.selectedDouble[1] = device + valuesA;
        }
        histogram_->accumulate(positions, frame.box, frame.grid, frame.algorithm, stream_);
        // Synchronous: the caller may reuse its positions at once, and errors surface in this frame.
        checkCuda(cudaStreamSynchronize(stream_), "RDF frame");
    }

private:
    RdfProblem problem_;
    int device_ = 0;
    cudaStream_t stream_ = nullptr;
    std::unique_ptr<CudaPairHistogram> histogram_;
    PinnedBuffer<float> stagingFloat_;
    PinnedBuffer<double> stagingDouble_;
    DeviceBuffer<float> positionsFloat_;
    DeviceBuffer<double> positionsDouble_;
};

} // namespace

bool cudaDevicePresent() {
    int count = 0;
    cudaError_t status = cudaGetDeviceCount(&count);
    if (status != cudaSuccess) {
        cudaGetLastError();   // clear the error so later runtime calls are not affected
        return false;
    }
    return count > 0;
}

std::unique_ptr<PairHistogramBackend> createCudaBackend(const RdfProblem& problem) {
    return std::make_unique<CudaBackend>(problem);
}

} // namespace NarumiRdf
