/**
 * The CUDA backend of RdfEngine: host side.  Per frame: gather the selected atoms' positions into page-locked memory
 * (on the settings' cpuThreads), upload them in one copy on a copy stream, and let CudaPairHistogram
 * (RdfCudaHistogram.cu) wrap, sort and histogram them on the compute stream.  Frames are pipelined: accumulate()
 * returns once the frame is queued (the caller may reuse its positions at once, they were copied), so the host
 * gathers and uploads frame k+1 while the GPU counts frame k; two staging slots bound how far the host runs ahead.
 * Reading, clearing or destroying the counts waits for every queued frame, and an error of a queued frame is thrown
 * there or by a later accumulate().
 */

#include "RdfCudaHistogram.h"
#include "RdfEngine.h"
#include "NarumiCommon/CudaAvailability.h"
#include "NarumiCommon/CudaEvent.h"
#include "NarumiCommon/CudaStream.h"
#include "NarumiCommon/ThreadPool.h"
#include <array>
#include <memory>

namespace OpenMMNarumi::Rdf {

using Common::checkCuda;

namespace {

/**
 * Copies the selected atoms' coordinates, in selection order, to staging (3 values per atom), on threads: a frame's
 * gather bounds how fast frames go through (24 MB a frame for a million atoms in double, 5 ms on one thread).
 */
template <class Real>
void gatherSelected(const Real* positions, const std::vector<int>& selection, Real* staging, int threads) {
    Common::parallelChunks((long) selection.size(), HOST_CHUNK_ATOMS, threads, [&](long first, long last) {
        for (long k = first; k < last; k++) {
            const Real* p = positions + 3 * (size_t) selection[k];
            staging[3 * k] = p[0];
            staging[3 * k + 1] = p[1];
            staging[3 * k + 2] = p[2];
        }
    });
}

class CudaBackend : public PairHistogramBackend {
public:
    explicit CudaBackend(const RdfProblem& problem)
        : problem_(problem), device_(Common::selectCudaDevice(problem.settings.cudaDevice, "the RDF engine")) {
        int numSMs = 1;
        checkCuda(cudaDeviceGetAttribute(&numSMs, cudaDevAttrMultiProcessorCount, device_), "multiprocessor count");
        for (FrameSlot& slot : slots_) {
            slot.uploaded = std::make_unique<Common::CudaEvent>();
            slot.consumed = std::make_unique<Common::CudaEvent>();
            slot.countingStarted = std::make_unique<Common::CudaEvent>(true);
            slot.countingFinished = std::make_unique<Common::CudaEvent>(true);
            slot.consumed->record(stream_);
        }
        histogram_ = std::make_unique<CudaPairHistogram>(problem_, numSMs, false, stream_);
        checkCuda(cudaStreamSynchronize(stream_), "RDF set-up");
    }

    ~CudaBackend() override {
        cudaSetDevice(device_);
        cudaStreamSynchronize(stream_);   // queued frames still read the slots' memory
        histogram_.reset();
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

    bool canTakeFrameNow() override {
        checkCuda(cudaSetDevice(device_), "cudaSetDevice");
        return slots_[nextSlot_].consumed->reached("RDF frame");
    }

    Common::ShareTiming lastFrameTiming() override {
        checkCuda(cudaSetDevice(device_), "cudaSetDevice");
        // The newest frame whose counting has finished: the slot used last, else the one before it.
        for (size_t age = 1; age <= slots_.size(); age++) {
            const FrameSlot& slot = slots_[(nextSlot_ + slots_.size() - age) % slots_.size()];
            if (slot.frame >= 0 && slot.countingFinished->reached("RDF frame"))
                return {slot.countingFinished->millisecondsSince(*slot.countingStarted), slot.share, slot.frame};
        }
        return {};
    }

    void accumulate(const FrameInput& frame) override {
        checkCuda(cudaSetDevice(device_), "cudaSetDevice");
        FrameSlot& slot = slots_[nextSlot_];
        nextSlot_ = (nextSlot_ + 1) % slots_.size();
        // The frame that used this slot two frames ago must have left its staging and device memory.
        slot.consumed->synchronize("RDF frame");
        DevicePositions positions;
        if (frame.positionsFloat)
            uploadSelected(frame.positionsFloat, slot.stagingFloat, slot.positionsFloat, positions.selectedFloat);
        else
            uploadSelected(frame.positionsDouble, slot.stagingDouble, slot.positionsDouble, positions.selectedDouble);
        slot.uploaded->record(copyStream_);
        slot.uploaded->makeWait(stream_);
        slot.countingStarted->record(stream_);
        histogram_->accumulate(positions, frame.box, frame.grid, frame.algorithm, stream_, frame.share);
        slot.countingFinished->record(stream_);
        slot.frame = framesQueued_++;
        slot.share = frame.share.end - frame.share.begin;
        slot.consumed->record(stream_);
    }

private:
    /** What one frame in flight owns: its staged host copy, its device copy, and the points where the copy is
     *  uploaded and where the GPU no longer needs either. */
    struct FrameSlot {
        Common::PinnedBuffer<float> stagingFloat;
        Common::PinnedBuffer<double> stagingDouble;
        Common::DeviceBuffer<float> positionsFloat;
        Common::DeviceBuffer<double> positionsDouble;
        std::unique_ptr<Common::CudaEvent> uploaded, consumed;
        std::unique_ptr<Common::CudaEvent> countingStarted, countingFinished;   // timed: the devices' load balance
        long long frame = -1;                                                   // the frame counted from it last
        double share = 0;                                                       // the part of that frame counted
    };

    /** Only the selected atoms travel: gathered in selection order into page-locked memory, uploaded in one copy;
     *  selected[0] and selected[1] point at the device copies of selections A and B. */
    template <class Real>
    void uploadSelected(const Real* frame, Common::PinnedBuffer<Real>& staging, Common::DeviceBuffer<Real>& device,
                        const Real* selected[2]) {
        size_t valuesA = 3 * problem_.selectionA.size(), valuesB = 3 * problem_.selectionB.size();
        Real* host = staging.resize(valuesA + valuesB);
        gatherSelected(frame, problem_.selectionA, host, problem_.settings.cpuThreads);
        gatherSelected(frame, problem_.selectionB, host + valuesA, problem_.settings.cpuThreads);
        device.upload(host, valuesA + valuesB, copyStream_);
        selected[0] = device.data();
        selected[1] = device.data() + valuesA;
    }

    RdfProblem problem_;
    int device_ = 0;  // made current before the streams below are made on it
    Common::CudaStream stream_, copyStream_;
    std::unique_ptr<CudaPairHistogram> histogram_;
    std::array<FrameSlot, 2> slots_;
    size_t nextSlot_ = 0;
    long long framesQueued_ = 0;
};

} // namespace

std::unique_ptr<PairHistogramBackend> createCudaBackend(const RdfProblem& problem) {
    return std::make_unique<CudaBackend>(problem);
}

} // namespace OpenMMNarumi::Rdf
