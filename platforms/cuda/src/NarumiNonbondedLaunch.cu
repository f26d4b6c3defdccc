/**
 * The host side of NarumiNonbondedForce's kernels on the CUDA platform: the sequence of stages of one evaluation, in
 * the order it launches them, each stage's kernels and host launcher in its own file of src/kernels/:
 *
 *   computeSortKeys   Hilbert key of every atom's cell (periodic: its position in the wrapped brick); only every
 *   (CUB radix sort)  few evaluations: atoms -> slots along the Hilbert curve; 32 consecutive slots are a block
 *                     [sortAtoms.cu]
 *   gatherSlotsAndBounds  float positions in slot order (every evaluation; charges and LJ parameters after a sort),
 *                     and the bounding boxes of blocks (32 slots) and of superblocks (32 blocks)   [gatherSlots.cu]
 *   findNeighborTiles per block I, its candidates (the later blocks whose boxes come within cutoff + skin of I's),
 *                     then their atoms within cutoff + skin of one of I's atoms, packed 32 to a tile in I's segment
 *                     of the list; its last thread block scans the counts into the tiles' numbers
 *                     [findNeighbors.cu; returns at once while the list is kept]
 *   computeTiles      all pairs of the listed tiles of this device's share of the blocks, NO exclusion test, the
 *                     warps taking the list in chunks (of 4 tiles from a long list, single tiles from a short one;
 *                     one fixed run each for the floating-point methods), then the blocks whose tiles did not fit
 *                     into the list (none once the host has grown it)
 *                     [computeTiles.cu, which also explains how each pair is computed once]
 *   correctExceptions "exclude afterwards": subtract exactly what computeTiles added for every exception pair,
 *                     then add the exception's own interaction   [correctExceptions.cu; on a second stream, when
 *                     given one, from the gather on, beside the search and the pairs: the sums are integers]
 *   finish            merge float/double sums (methods A to E), the energy into the status words for the host
 *                     [finishSums.cu]
 *
 * Their host launchers are declared in include/NarumiNonbondedStages.h; device code that several stages share is in
 * include/NarumiPositions.cuh, NarumiBoundsTests.cuh and NarumiKernelConstants.cuh, and the switch from the
 * accumulation method to the kernels' accumulator type in NarumiAccumulatorDispatch.cuh.  The stage timer
 * (the diagnostic profile-stages) and the CUDA error check are the shared ones of common/ (NarumiCommon).
 */

#include "NarumiNonbondedLaunch.h"
#include "NarumiNonbondedStages.h"
#include <stdexcept>

namespace OpenMMNarumi {

namespace {

/** Marks the end of a stage when profiling (no-op otherwise). */
inline void markStage(Common::StageTimer* timer, const char* name, cudaStream_t stream) {
    if (timer != nullptr)
        timer->mark(name, stream);
}

} // namespace

void narumiLaunchNonbonded(const NarumiNonbondedData& data, NarumiAccumulation method, bool includeEnergy, bool posqIsDouble,
                           bool resort, cudaStream_t stream, NarumiExceptionsStream* exceptions, Common::StageTimer* timer,
                           cudaEvent_t shareStarted, cudaEvent_t shareFinished) {
    if (timer != nullptr && exceptions != nullptr)
        throw std::runtime_error("narumiLaunchNonbonded: the stage timer needs every stage on one stream");
    if (timer != nullptr)
        timer->start(stream);
    if (resort) {
        narumiSortAtoms(data, posqIsDouble, stream);
        markStage(timer, "computeSortKeys+sort", stream);
    }
    narumiGatherSlots(data, posqIsDouble, !resort, stream);
    markStage(timer, "gatherSlotsAndBounds", stream);
    if (exceptions != nullptr) {
        exceptions->mayStart.record(stream);
        exceptions->mayStart.makeWait(exceptions->stream);
        narumiCorrectExceptions(data, method, includeEnergy, posqIsDouble, exceptions->stream);
        exceptions->done.record(exceptions->stream);
    }
    narumiFindNeighborTiles(data, stream);
    markStage(timer, "findNeighborTiles", stream);
    if (shareStarted != nullptr)
        Common::checkCuda(cudaEventRecord(shareStarted, stream), "recording the share's start");
    narumiComputeTiles(data, method, includeEnergy, stream);
    markStage(timer, "computeTiles", stream);
    if (exceptions != nullptr)
        exceptions->done.makeWait(stream);
    else {
        narumiCorrectExceptions(data, method, includeEnergy, posqIsDouble, stream);
        markStage(timer, "correctExceptions", stream);
    }
    if (shareFinished != nullptr)
        Common::checkCuda(cudaEventRecord(shareFinished, stream), "recording the share's end");
    narumiFinishSums(data, method, includeEnergy, stream);
    markStage(timer, "merge+finishEnergy", stream);
    Common::checkCuda(cudaGetLastError(), "launching the nonbonded kernels");
    if (timer != nullptr)
        timer->finish();
}

} // namespace OpenMMNarumi
