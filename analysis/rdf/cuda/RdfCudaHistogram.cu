/**
 * CudaPairHistogram: the host side of one frame on the GPU (RdfCudaHistogram.h).  The kernels are in RdfKernels.cu;
 * this file owns the memory and the launch geometry.
 */

#include "RdfCudaHistogram.h"
#include "RdfKernels.cuh"
#include "NarumiCommon/RadixSortBits.h"
#include <cub/device/device_histogram.cuh>
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_scan.cuh>
#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace OpenMMNarumi::Rdf {

using Common::checkCuda;

namespace {

/** Enough blocks to fill the GPU many times over, each covering at most MAX_CHUNKS_PER_BLOCK chunks. */
Cuda::AllPairsGeometry allPairsGeometry(int numA, int numB, bool sameSelection, int numMultiprocessors) {
    long long tilesA = (numA + Cuda::TILE - 1) / Cuda::TILE, chunksB = (numB + Cuda::TILE - 1) / Cuda::TILE;
    long long tilePairs = sameSelection ? tilesA * (tilesA + 1) / 2 : tilesA * chunksB;
    // 256 blocks per SM: single-chunk ranges up to ~100k atoms, so that no SM waits on a long block at the end (H100,
    // all-pairs frame with 240 bins: 1.25 -> 1.42 T pairs/s at 101k atoms, 1.72 -> 1.84 T at 1.0M against 32 per SM).
    long long targetBlocks = 256LL * numMultiprocessors;
    long long chunksPerRange = std::min<long long>(Cuda::MAX_CHUNKS_PER_BLOCK,
                                                   std::max<long long>(1, (tilePairs + targetBlocks - 1) / targetBlocks));
    long long numRanges = (chunksB + chunksPerRange - 1) / chunksPerRange;
    if (tilesA * numRanges > 0x7fffffffLL)
        throw std::invalid_argument("the all-pairs grid is too large for one launch");
    return Cuda::AllPairsGeometry{(int) numRanges, (int) chunksPerRange, (int) (tilesA * numRanges)};
}

/**
 * The first selection-1 tile of the share that starts at fraction of the frame's all-pairs work: a tile's work is
 * its chunks of selection 2, all of them, or for identical selections those from its own on (a triangle).  The same
 * function on every device, so that neighbouring shares meet at the same tile.
 */
int allPairsShareTile(double fraction, long long tilesA, long long chunksB, bool sameSelection) {
    if (fraction <= 0)
        return 0;
    if (fraction >= 1)
        return (int) tilesA;
    if (!sameSelection)
        return (int) std::llround(fraction * tilesA);
    double total = 0.5 * (double) tilesA * (double) (tilesA + 1), wanted = fraction * total, done = 0;
    for (long long t = 0; t < tilesA; t++) {
        if (done >= wanted)
            return (int) t;
        done += (double) (chunksB - t);
    }
    return (int) tilesA;
}

} // namespace

CudaPairHistogram::CudaPairHistogram(const RdfProblem& problem, int numMultiprocessors, bool posqInput, cudaStream_t stream)
    : problem_(problem), numMultiprocessors_(std::max(1, numMultiprocessors)) {
    upload(selectionA_, problem_.selectionA, problem_.groupA, posqInput, stream);
    if (!problem_.sameSelection)
        upload(selectionB_, problem_.selectionB, problem_.groupB, posqInput, stream);
    counts_.resize(problem_.settings.bins);
    clear(stream);
}

void CudaPairHistogram::upload(Selection& s, const std::vector<int>& selection, const std::vector<int>& groupOfSlot,
                               bool posqInput, cudaStream_t stream) {
    s.count = selection.size();
    if (!groupOfSlot.empty())
        s.groups.upload(groupOfSlot, stream);
    // For posq input: each atom's slot in this selection, -1 for atoms outside it.
    std::vector<int> indexOfAtom(posqInput ? std::max(1, problem_.numAtoms) : 0, -1);
    for (int k = 0; posqInput && k < s.count; k++)
        indexOfAtom[selection[k]] = k;
    if (posqInput)
        s.indexOfAtom.upload(indexOfAtom, stream);
    // Copies from pageable memory on a stream: the host vectors must outlive them.
    checkCuda(cudaStreamSynchronize(stream), "upload selection");
}

void CudaPairHistogram::clear(cudaStream_t stream) {
    counts_.zero(stream);
}

std::vector<uint64_t> CudaPairHistogram::download(cudaStream_t stream) {
    std::vector<uint64_t> counts(problem_.settings.bins);
    static_assert(sizeof(uint64_t) == sizeof(unsigned long long), "the counts are 64-bit on both sides");
    counts_.download(reinterpret_cast<unsigned long long*>(counts.data()), counts.size(), stream);
    checkCuda(cudaStreamSynchronize(stream), "download counts");
    return counts;
}

void CudaPairHistogram::accumulate(const DevicePositions& positions, const BoxDouble& box, const CellGrid& grid,
                                   Algorithm algorithm, cudaStream_t stream, WorkShare share) {
    if (share.end <= share.begin)
        return;  // a device with no part of this frame
    bool cellList = algorithm == Algorithm::CellList;
    prepare(selectionA_, 0, positions, box, grid, cellList, stream);
    if (!problem_.sameSelection)
        prepare(selectionB_, 1, positions, box, grid, cellList, stream);
    const Selection& b = problem_.sameSelection ? selectionA_ : selectionB_;
    Cuda::DeviceAtoms atomsA{selectionA_.sorted.data(), selectionA_.count, selectionA_.cellStart.data()};
    Cuda::DeviceAtoms atomsB{b.sorted.data(), b.count, b.cellStart.data()};
    if (atomsA.count == 0 || atomsB.count == 0)
        return;
    bool exclusions = !problem_.groupA.empty();
    BoxFloat boxF = boxFloat(box);
    // This share's rows: cells of selection 1 (uniform work per cell), or tiles of selection 1 weighted by their work.
    int numCells = grid.numCells();
    Cuda::CellRange cells{(int) std::llround(share.begin * numCells), (int) std::llround(share.end * numCells)};
    Cuda::AllPairsGeometry geometry = allPairsGeometry(atomsA.count, atomsB.count, problem_.sameSelection, numMultiprocessors_);
    long long tilesA = (atomsA.count + Cuda::TILE - 1) / Cuda::TILE, chunksB = (atomsB.count + Cuda::TILE - 1) / Cuda::TILE;
    int endTile = allPairsShareTile(share.end, tilesA, chunksB, problem_.sameSelection);
    geometry.firstTile = allPairsShareTile(share.begin, tilesA, chunksB, problem_.sameSelection);
    geometry.numBlocks = (endTile - geometry.firstTile) * geometry.numRanges;
    if (cellList ? cells.endCell <= cells.firstCell : geometry.numBlocks <= 0)
        return;
    int bins = problem_.settings.bins;
    for (int firstBin = 0; firstBin < bins; firstBin += Cuda::MAX_PASS_BINS) {
        Cuda::BinPass pass{firstBin, std::min(Cuda::MAX_PASS_BINS, bins - firstBin)};
        if (cellList)
            checkCuda(Cuda::launchCellList(box.kind, problem_.sameSelection, exclusions, atomsA, atomsB, grid, cells, boxF,
                                           problem_.binning, pass, counts_.data(), stream), "cell-list kernel");
        else
            checkCuda(Cuda::launchAllPairs(box.kind, problem_.sameSelection, exclusions, atomsA, atomsB, geometry, boxF,
                                           problem_.binning, pass, counts_.data(), stream), "all-pairs kernel");
    }
}

void CudaPairHistogram::prepare(Selection& s, int which, const DevicePositions& positions, const BoxDouble& box,
                                const CellGrid& grid, bool cellList, cudaStream_t stream) {
    int n = s.count;
    if (n == 0)
        return;
    int numCells = grid.numCells();
    int keyBits = Common::radixSortEndBit((unsigned) numCells);
    const int* groups = problem_.groupA.empty() ? nullptr : s.groups.data();
    float4* wrapped = s.wrapped.resize(n);
    unsigned int* cellKeys = s.cellKeys.resize(n);
    int* slots = s.slots.resize(n);
    if (positions.posq != nullptr) {
        const PosqPositions& p = *positions.posq;
        checkCuda(Cuda::launchPrepareFromPosq(p.posq, p.correction, p.doublePrecision, p.atomIndex, p.numSlots,
                                              s.indexOfAtom.data(), groups, box, grid, wrapped, cellKeys, slots, stream),
                  "prepare atoms from posq");
    } else {
        checkCuda(Cuda::launchPrepareAtoms(positions.selectedFloat[which], positions.selectedDouble[which], groups, n, box, grid,
                                           wrapped, cellKeys, slots, stream),
                  "prepare atoms");
    }
    size_t sortBytes = 0, histogramBytes = 0, scanBytes = 0;
    checkCuda(cub::DeviceRadixSort::SortPairs(nullptr, sortBytes, s.cellKeys.data(), s.sortedKeys.resize(n), s.slots.data(),
                                              s.sortedSlots.resize(n), n, 0, keyBits, stream), "sort size");
    if (cellList) {
        checkCuda(cub::DeviceHistogram::HistogramEven(nullptr, histogramBytes, s.cellKeys.data(), s.cellCounts.resize(numCells + 1),
                                                      numCells + 1, 0u, (unsigned) numCells, n, stream), "histogram size");
        checkCuda(cub::DeviceScan::ExclusiveSum(nullptr, scanBytes, s.cellCounts.data(), s.cellStart.resize(numCells + 1),
                                                numCells + 1, stream), "scan size");
    }
    void* temporary = temporary_.resize(std::max({sortBytes, histogramBytes, scanBytes}));
    checkCuda(cub::DeviceRadixSort::SortPairs(temporary, sortBytes, s.cellKeys.data(), s.sortedKeys.data(), s.slots.data(),
                                              s.sortedSlots.data(), n, 0, keyBits, stream), "sort atoms by cell");
    checkCuda(Cuda::launchGatherAtoms(s.wrapped.data(), s.sortedSlots.data(), n, s.sorted.resize(n), stream), "gather atoms");
    if (cellList) {
        // numCells bins of width 1, plus a zero in the last entry so that the exclusive sum ends with n.
        checkCuda(cudaMemsetAsync(s.cellCounts.data(), 0, (numCells + 1) * sizeof(int), stream), "clear cell counts");
        checkCuda(cub::DeviceHistogram::HistogramEven(temporary, histogramBytes, s.cellKeys.data(), s.cellCounts.data(),
                                                      numCells + 1, 0u, (unsigned) numCells, n, stream), "count atoms per cell");
        checkCuda(cub::DeviceScan::ExclusiveSum(temporary, scanBytes, s.cellCounts.data(), s.cellStart.data(), numCells + 1, stream),
                  "cell starts");
    }
}

} // namespace OpenMMNarumi::Rdf
