#ifndef NARUMI_RDF_CUDA_HISTOGRAM_H_
#define NARUMI_RDF_CUDA_HISTOGRAM_H_

/**
 * The GPU half of one RDF frame, from positions already on the device to 64-bit counts on the device: wrap, sort the
 * selected atoms by cell (cub::DeviceRadixSort; the sort also gives the all-pairs tiles spatial locality), find the
 * cell ranges (cub::DeviceHistogram + cub::DeviceScan) for the cell list, then histogram in shared memory, one pass
 * per MAX_PASS_BINS bins, into counts that persist across frames.  Everything is queued on the caller's stream and
 * nothing waits for it except download().
 *
 * Two callers: the engine's CUDA backend (positions uploaded from the host, in selection order) and OpenMM's
 * in-context RDFSampler (OpenMM's own posq, in OpenMM's atom order, inside OpenMM's CUDA context).  Memory is
 * allocated with the runtime API (Common::DeviceBuffer) in the device context current at construction; use it only
 * with that context.
 */

#include "NarumiCommon/DeviceBuffer.h"
#include "RdfEngine.h"
#include <cuda_runtime_api.h>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace OpenMMNarumi::Rdf {

/**
 * OpenMM's positions on the device: slot i of posq (float4 in single and mixed precision, double4 in double)
 * holds original atom atomIndex[i]; in mixed precision the position is posq + correction (both float4), summed in
 * double exactly as OpenMM's getState does.
 */
struct PosqPositions {
    const void* posq = nullptr;
    const void* correction = nullptr;   // float4 per slot (mixed precision), or nullptr
    bool doublePrecision = false;
    const int* atomIndex = nullptr;
    int numSlots = 0;                   // the atoms (not OpenMM's padded count)
};

/** Where one frame's selected atoms come from: device arrays of 3 values per atom in selection order (one of the two
 *  pointers per selection), or OpenMM's posq. */
struct DevicePositions {
    const float* selectedFloat[2] = {nullptr, nullptr};
    const double* selectedDouble[2] = {nullptr, nullptr};
    const PosqPositions* posq = nullptr;
};

class CudaPairHistogram {
public:
    /** Uploads the exclusion groups (and, with posqInput, each atom's place in the selections) and clears the
     *  counts; numMultiprocessors sizes the all-pairs grid. */
    CudaPairHistogram(const RdfProblem& problem, int numMultiprocessors, bool posqInput, cudaStream_t stream);

    /** Queues one frame: box and grid from the host (parseBox, periodicCellGrid), algorithm already resolved; share:
     *  which part of the frame's pair work to count (its selection-1 tiles or cells; the whole by default). */
    void accumulate(const DevicePositions& positions, const BoxDouble& box, const CellGrid& grid, Algorithm algorithm,
                    cudaStream_t stream, WorkShare share = WorkShare());
    /** Queues clearing the counts. */
    void clear(cudaStream_t stream);
    /** The raw counts (see PairHistogramBackend::rawCounts); waits for the stream. */
    std::vector<uint64_t> download(cudaStream_t stream);

private:
    /** One selection on the device: exclusion groups, this frame's wrapped, sorted atoms and cell ranges. */
    struct Selection {
        int count = 0;
        Common::DeviceBuffer<int> groups, indexOfAtom;
        Common::DeviceBuffer<float4> wrapped, sorted;
        Common::DeviceBuffer<unsigned int> cellKeys, sortedKeys;
        Common::DeviceBuffer<int> slots, sortedSlots, cellCounts, cellStart;
    };
    void upload(Selection& s, const std::vector<int>& selection, const std::vector<int>& groupOfSlot, bool posqInput,
                cudaStream_t stream);
    void prepare(Selection& s, int which, const DevicePositions& positions, const BoxDouble& box, const CellGrid& grid,
                 bool cellList, cudaStream_t stream);

    RdfProblem problem_;
    int numMultiprocessors_;
    Selection selectionA_, selectionB_;
    Common::DeviceBuffer<unsigned char> temporary_;
    Common::DeviceBuffer<unsigned long long> counts_;
};

} // namespace OpenMMNarumi::Rdf

#endif // NARUMI_RDF_CUDA_HISTOGRAM_H_
