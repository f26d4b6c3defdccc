/**
 * The CUDA backend: host side.  Per frame: upload the selected atoms' positions, wrap and sort the selected atoms by cell
 * (cub::DeviceRadixSort; the sort also gives the all-pairs tiles spatial locality), count cell occupancy
 * (cub::DeviceHistogram + cub::DeviceScan) for the cell list, then histogram in shared memory, one pass per
 * MAX_PASS_BINS bins, into 64-bit global counts that persist across frames.
 */

#include "RdfEngine.h"
#include "RdfKernels.cuh"
#include <cub/device/device_histogram.cuh>
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_scan.cuh>
#include <algorithm>
#include <sstream>
#include <stdexcept>

namespace NarumiRdf {

namespace {

void check(cudaError_t status, const char* what) {
    if (status != cudaSuccess) {
        std::ostringstream text;
        text << "CUDA error in the RDF engine (" << what << "): " << cudaGetErrorString(status);
        throw std::runtime_error(text.str());
    }
}

/** Device memory that only grows. */
template <class T>
class DeviceBuffer {
public:
    DeviceBuffer() = default;
    DeviceBuffer(const DeviceBuffer&) = delete;
    DeviceBuffer& operator=(const DeviceBuffer&) = delete;
    ~DeviceBuffer() {
        cudaFree(data_);
    }
    T* reserve(size_t count) {
        if (count > capacity_) {
            cudaFree(data_);
            data_ = nullptr;
            capacity_ = 0;
            check(cudaMalloc(&data_, std::max<size_t>(count, 1) * sizeof(T)), "cudaMalloc");
            capacity_ = count;
        }
        return data_;
    }
    T* data() const {
        return data_;
    }

private:
    T* data_ = nullptr;
    size_t capacity_ = 0;
};

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
            check(cudaMallocHost(&data_, std::max<size_t>(count, 1) * sizeof(T)), "cudaMallocHost");
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

/** One selection on the device: exclusion groups, and this frame's wrapped, sorted atoms and cell ranges. */
struct DeviceSelection {
    int count = 0;
    DeviceBuffer<int> groups;
    DeviceBuffer<float4> wrapped, sorted;
    DeviceBuffer<unsigned int> cellKeys, sortedKeys;
    DeviceBuffer<int> slots, sortedSlots, cellCounts, cellStart;

    void upload(const std::vector<int>& selection, const std::vector<int>& groupOfSlot, cudaStream_t stream) {
        count = selection.size();
        if (!groupOfSlot.empty())
            check(cudaMemcpyAsync(groups.reserve(count), groupOfSlot.data(), count * sizeof(int), cudaMemcpyHostToDevice, stream),
                  "upload groups");
    }
};

int bitsFor(unsigned int value) {
    int bits = 1;
    while (bits < 32 && (value >> bits) != 0)
        bits++;
    return bits;
}

class CudaBackend : public PairHistogramBackend {
public:
    explicit CudaBackend(const RdfProblem& problem) : problem_(problem), device_(problem.settings.cudaDevice) {
        int numDevices = 0;
        check(cudaGetDeviceCount(&numDevices), "cudaGetDeviceCount");
        if (device_ < 0 || device_ >= numDevices) {
            std::ostringstream text;
            text << "cudaDevice = " << device_ << " does not exist (" << numDevices << " CUDA devices)";
            throw std::invalid_argument(text.str());
        }
        check(cudaSetDevice(device_), "cudaSetDevice");
        check(cudaDeviceGetAttribute(&numSMs_, cudaDevAttrMultiProcessorCount, device_), "multiprocessor count");
        check(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking), "cudaStreamCreate");
        selectionA_.upload(problem_.selectionA, problem_.groupA, stream_);
        if (!problem.sameSelection)
            selectionB_.upload(problem_.selectionB, problem_.groupB, stream_);
        counts_.reserve(problem.settings.bins);
        reset();
    }

    ~CudaBackend() override {
        cudaStreamDestroy(stream_);
    }

    std::string name() const override {
        return "cuda";
    }

    void reset() override {
        check(cudaSetDevice(device_), "cudaSetDevice");
        check(cudaMemsetAsync(counts_.data(), 0, problem_.settings.bins * sizeof(unsigned long long), stream_), "clear counts");
        check(cudaStreamSynchronize(stream_), "reset");
    }

    std::vector<uint64_t> rawCounts() override {
        check(cudaSetDevice(device_), "cudaSetDevice");
        std::vector<uint64_t> counts(problem_.settings.bins);
        check(cudaMemcpyAsync(counts.data(), counts_.data(), counts.size() * sizeof(uint64_t), cudaMemcpyDeviceToHost, stream_),
              "download counts");
        check(cudaStreamSynchronize(stream_), "download counts");
        return counts;
    }

    void accumulate(const FrameInput& frame) override {
        check(cudaSetDevice(device_), "cudaSetDevice");
        // Only the selected atoms travel: gathered in selection order into page-locked memory, one copy.
        size_t valuesA = 3 * (size_t) selectionA_.count, valuesB = 3 * (size_t) selectionB_.count;
        const float* positionsFloat[2] = {nullptr, nullptr};
        const double* positionsDouble[2] = {nullptr, nullptr};
        if (frame.positionsFloat) {
            float* staging = stagingFloat_.reserve(valuesA + valuesB);
            gatherSelected(frame.positionsFloat, problem_.selectionA, staging);
            gatherSelected(frame.positionsFloat, problem_.selectionB, staging + valuesA);
            float* device = positionsFloat_.reserve(valuesA + valuesB);
            check(cudaMemcpyAsync(device, staging, (valuesA + valuesB) * sizeof(float), cudaMemcpyHostToDevice, stream_),
                  "upload positions");
            positionsFloat[0] = device;
            positionsFloat[1] = device + valuesA;
        } else {
            double* staging = stagingDouble_.reserve(valuesA + valuesB);
            gatherSelected(frame.positionsDouble, problem_.selectionA, staging);
            gatherSelected(frame.positionsDouble, problem_.selectionB, staging + valuesA);
            double* device = positionsDouble_.reserve(valuesA + valuesB);
            check(cudaMemcpyAsync(device, staging, (valuesA + valuesB) * sizeof(double), cudaMemcpyHostToDevice, stream_),
                  "upload positions");
            positionsDouble[0] = device;
            positionsDouble[1] = device + valuesA;
        }
        bool cellList = frame.algorithm == Algorithm::CellList;
        prepare(selectionA_, positionsFloat[0], positionsDouble[0], frame, cellList);
        if (!problem_.sameSelection)
            prepare(selectionB_, positionsFloat[1], positionsDouble[1], frame, cellList);
        const DeviceSelection& b = problem_.sameSelection ? selectionA_ : selectionB_;
        Cuda::DeviceAtoms atomsA{selectionA_.sorted.data(), selectionA_.count, selectionA_.cellStart.data()};
        Cuda::DeviceAtoms atomsB{b.sorted.data(), b.count, b.cellStart.data()};
        bool exclusions = !problem_.groupA.empty();
        BoxFloat box = boxFloat(frame.box);
        if (atomsA.count > 0 && atomsB.count > 0) {
            int bins = problem_.settings.bins;
            for (int firstBin = 0; firstBin < bins; firstBin += Cuda::MAX_PASS_BINS) {
                Cuda::BinPass pass{firstBin, std::min(Cuda::MAX_PASS_BINS, bins - firstBin)};
                if (cellList)
                    check(Cuda::launchCellList(frame.box.kind, problem_.sameSelection, exclusions, atomsA, atomsB, frame.grid, box,
                                               problem_.binning, pass, counts_.data(), stream_), "cell-list kernel");
                else
                    check(Cuda::launchAllPairs(frame.box.kind, problem_.sameSelection, exclusions, atomsA, atomsB,
                                               allPairsGeometry(atomsA.count, atomsB.count), box, problem_.binning, pass,
                                               counts_.data(), stream_), "all-pairs kernel");
            }
        }
        // Synchronous: the caller may reuse its positions at once, and errors surface in this frame.
        check(cudaStreamSynchronize(stream_), "RDF frame");
    }

private:
    /** Enough blocks to fill the GPU many times over, each covering at most MAX_CHUNKS_PER_BLOCK chunks. */
    Cuda::AllPairsGeometry allPairsGeometry(int numA, int numB) const {
        long long tilesA = (numA + Cuda::TILE - 1) / Cuda::TILE, chunksB = (numB + Cuda::TILE - 1) / Cuda::TILE;
        long long tilePairs = problem_.sameSelection ? tilesA * (tilesA + 1) / 2 : tilesA * chunksB;
        long long targetBlocks = 32LL * numSMs_;
        long long chunksPerRange = std::min<long long>(Cuda::MAX_CHUNKS_PER_BLOCK,
                                                       std::max<long long>(1, (tilePairs + targetBlocks - 1) / targetBlocks));
        long long numRanges = (chunksB + chunksPerRange - 1) / chunksPerRange;
        if (tilesA * numRanges > 0x7fffffffLL)
            throw std::invalid_argument("the all-pairs grid is too large for one launch");
        return Cuda::AllPairsGeometry{(int) numRanges, (int) chunksPerRange, (int) (tilesA * numRanges)};
    }

    /** Wrap, sort by cell and (cell list) find each cell's range, for one selection. */
    void prepare(DeviceSelection& s, const float* positionsFloat, const double* positionsDouble, const FrameInput& frame,
                 bool cellList) {
        int n = s.count;
        if (n == 0)
            return;
        int numCells = frame.grid.numCells();
        int keyBits = bitsFor((unsigned) numCells);
        check(Cuda::launchPrepareAtoms(positionsFloat, positionsDouble, problem_.groupA.empty() ? nullptr : s.groups.data(),
                                       n, frame.box, frame.grid, s.wrapped.reserve(n), s.cellKeys.reserve(n), s.slots.reserve(n), stream_),
              "prepare atoms");
        size_t sortBytes = 0, histogramBytes = 0, scanBytes = 0;
        check(cub::DeviceRadixSort::SortPairs(nullptr, sortBytes, s.cellKeys.data(), s.sortedKeys.reserve(n), s.slots.data(),
                                              s.sortedSlots.reserve(n), n, 0, keyBits, stream_), "sort size");
        if (cellList) {
            check(cub::DeviceHistogram::HistogramEven(nullptr, histogramBytes, s.cellKeys.data(), s.cellCounts.reserve(numCells + 1),
                                                      numCells + 1, 0u, (unsigned) numCells, n, stream_), "histogram size");
            check(cub::DeviceScan::ExclusiveSum(nullptr, scanBytes, s.cellCounts.data(), s.cellStart.reserve(numCells + 1),
                                                numCells + 1, stream_), "scan size");
        }
        void* temporary = temporary_.reserve(std::max({sortBytes, histogramBytes, scanBytes}));
        check(cub::DeviceRadixSort::SortPairs(temporary, sortBytes, s.cellKeys.data(), s.sortedKeys.data(), s.slots.data(),
                                              s.sortedSlots.data(), n, 0, keyBits, stream_), "sort atoms by cell");
        check(Cuda::launchGatherAtoms(s.wrapped.data(), s.sortedSlots.data(), n, s.sorted.reserve(n), stream_), "gather atoms");
        if (cellList) {
            // numCells bins of width 1, plus a zero in the last entry so that the exclusive sum ends with n.
            check(cudaMemsetAsync(s.cellCounts.data(), 0, (numCells + 1) * sizeof(int), stream_), "clear cell counts");
            check(cub::DeviceHistogram::HistogramEven(temporary, histogramBytes, s.cellKeys.data(), s.cellCounts.data(),
                                                      numCells + 1, 0u, (unsigned) numCells, n, stream_), "count atoms per cell");
            check(cub::DeviceScan::ExclusiveSum(temporary, scanBytes, s.cellCounts.data(), s.cellStart.data(), numCells + 1, stream_),
                  "cell starts");
        }
    }

    RdfProblem problem_;
    int device_ = 0;
    int numSMs_ = 1;
    cudaStream_t stream_ = nullptr;
    DeviceSelection selectionA_, selectionB_;
    PinnedBuffer<float> stagingFloat_;
    PinnedBuffer<double> stagingDouble_;
    DeviceBuffer<float> positionsFloat_;
    DeviceBuffer<double> positionsDouble_;
    DeviceBuffer<unsigned char> temporary_;
    DeviceBuffer<unsigned long long> counts_;
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
