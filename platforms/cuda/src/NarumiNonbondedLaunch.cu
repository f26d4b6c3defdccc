/**
 * The host side of NarumiNonbondedForce's kernels on the CUDA platform: the sequence of stages of one evaluation, in
 * the order it launches them, each stage's kernels and host launcher in its own file of src/kernels/:
 *
 *   computeSortKeys   Hilbert key of every atom's cell (periodic: its position in the wrapped brick); only every
 *   (CUB radix sort)  few evaluations: atoms -> slots along the Hilbert curve; 32 consecutive slots are a block
 *                     [sortAtoms.cu]
 *   gatherSlotsAndBounds  float positions, charges and LJ parameters in slot order (every evaluation), and the
 *                     bounding boxes of blocks (32 slots) and of superblocks (32 blocks)   [gatherSlots.cu]
 *   findCandidateBlocks   per block I, the later blocks whose boxes come within cutoff + skin of I's
 *                     [findNeighbors.cu; both search kernels return at once while the list is kept]
 *   findNeighborTiles per block I, the atoms of its candidates within cutoff + skin of one of I's atoms, packed 32 to
 *                     a tile in I's segment of the list; its last thread block scans the counts into the tiles'
 *                     numbers   [findNeighbors.cu]
 *   computeTiles      all pairs of the listed tiles, NO exclusion test, one warp per contiguous run of tiles, then
 *                     the blocks whose tiles did not fit into the list (none once the host has grown it)
 *                     [computeTiles.cu, which also explains how each pair is computed once]
 *   correctExceptions "exclude afterwards": subtract exactly what computeTiles added for every exception pair,
 *                     then add the exception's own interaction   [correctExceptions.cu]
 *   finish            merge float/double sums (methods A to E), add the energy to OpenMM's energy buffer
 *                     [finishSums.cu]
 *
 * Their host launchers are declared in include/NarumiNonbondedStages.h; device code that several stages share is in
 * include/NarumiPositions.cuh, NarumiBoundsTests.cuh and NarumiKernelConstants.cuh, and the switch from the
 * accumulation method to the kernels' accumulator type in NarumiAccumulatorDispatch.cuh.  This file also holds the
 * stage timer (NARUMI_PROFILE_STAGES) and the one CUDA error check of the stages, narumiCheck.
 */

#include "NarumiNonbondedLaunch.h"
#include "NarumiNonbondedStages.h"
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <vector>

namespace NarumiPlugin {

/** Events recorded after each stage of an evaluation; the times between them summed per stage name. */
struct NarumiStageTimer {
    std::vector<cudaEvent_t> events;        // events[0] opens the evaluation, events[k] closes stage k
    std::vector<std::string> pending;       // names of this evaluation's stages, in order
    std::vector<std::string> names;         // every stage seen, in first-seen order
    std::vector<double> totalMilliseconds;  // per entry of names
    std::vector<long long> counts;
    long long evaluations = 0;

    void start(cudaStream_t stream) {
        pending.clear();
        record(0, stream);
    }
    void mark(const char* name, cudaStream_t stream) {
        pending.push_back(name);
        record(pending.size(), stream);
    }
    void finish() {
        cudaEventSynchronize(events[pending.size()]);
        for (size_t k = 0; k < pending.size(); k++) {
            float ms = 0;
            cudaEventElapsedTime(&ms, events[k], events[k + 1]);
            size_t index = std::find(names.begin(), names.end(), pending[k]) - names.begin();
            if (index == names.size()) {
                names.push_back(pending[k]);
                totalMilliseconds.push_back(0);
                counts.push_back(0);
            }
            totalMilliseconds[index] += ms;
            counts[index]++;
        }
        evaluations++;
    }

private:
    void record(size_t index, cudaStream_t stream) {
        while (events.size() <= index) {
            cudaEvent_t event;
            cudaEventCreate(&event);
            events.push_back(event);
        }
        cudaEventRecord(events[index], stream);
    }
};

NarumiStageTimer* narumiCreateStageTimerFromEnvironment() {
    const char* setting = std::getenv("NARUMI_PROFILE_STAGES");
    return (setting != nullptr && setting[0] != '\0' && setting[0] != '0') ? new NarumiStageTimer() : nullptr;
}

void narumiDestroyStageTimer(NarumiStageTimer* timer) {
    if (timer == nullptr)
        return;
    double total = 0;
    for (double ms : timer->totalMilliseconds)
        total += ms;
    std::fprintf(stderr, "NarumiNonbondedForce stage times, %lld evaluations (us per evaluation; runs = evaluations that ran it):\n",
                 timer->evaluations);
    for (size_t k = 0; k < timer->names.size(); k++)
        std::fprintf(stderr, "  %-22s %10.2f us  (runs %lld, %.2f us per run)\n", timer->names[k].c_str(),
                     1000 * timer->totalMilliseconds[k] / std::max(1LL, timer->evaluations), timer->counts[k],
                     1000 * timer->totalMilliseconds[k] / std::max(1LL, timer->counts[k]));
    std::fprintf(stderr, "  %-22s %10.2f us\n", "total", 1000 * total / std::max(1LL, timer->evaluations));
    for (cudaEvent_t event : timer->events)
        cudaEventDestroy(event);
    delete timer;
}

void narumiCheck(cudaError_t status, const char* what) {
    if (status != cudaSuccess)
        throw std::runtime_error(std::string("NarumiNonbondedForce CUDA kernels: ") + what + ": " + cudaGetErrorString(status));
}

namespace {

/** Marks the end of a stage when profiling (no-op otherwise). */
inline void markStage(NarumiStageTimer* timer, const char* name, cudaStream_t stream) {
    if (timer != nullptr)
        timer->mark(name, stream);
}

} // namespace

size_t narumiCubStorageBytes(int numAtoms) {
    return narumiSortStorageBytes(numAtoms);
}

void narumiLaunchNonbonded(const NarumiNonbondedData& data, NarumiAccumulation method, bool includeEnergy, bool posqIsDouble,
                           bool energyIsDouble, bool resort, cudaStream_t stream, NarumiStageTimer* timer) {
    if (timer != nullptr)
        timer->start(stream);
    if (resort) {
        narumiSortAtoms(data, posqIsDouble, stream);
        markStage(timer, "computeSortKeys+sort", stream);
    }
    narumiGatherSlots(data, posqIsDouble, !resort, stream);
    markStage(timer, "gatherSlotsAndBounds", stream);
    narumiFindCandidateBlocks(data, stream);
    markStage(timer, "findCandidateBlocks", stream);
    narumiFindNeighborTiles(data, stream);
    markStage(timer, "findNeighborTiles", stream);
    narumiComputeTiles(data, method, includeEnergy, stream);
    markStage(timer, "computeTiles", stream);
    narumiCorrectExceptions(data, method, includeEnergy, posqIsDouble, stream);
    markStage(timer, "correctExceptions", stream);
    narumiFinishSums(data, method, includeEnergy, energyIsDouble, stream);
    markStage(timer, "merge+finishEnergy", stream);
    narumiCheck(cudaGetLastError(), "launching the nonbonded kernels");
    if (timer != nullptr)
        timer->finish();
}

} // namespace NarumiPlugin
