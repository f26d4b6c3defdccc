/**
 * The end of an evaluation: mergeFloatingForces merges the float/double force sums of methods A to E into OpenMM's
 * buffer, and finishEnergy hands the energy to the host in the status words (the host returns it to OpenMM in
 * double, so that the fixed-point sums of several devices add exactly before their one conversion).
 */

#include "NarumiKernelConstants.cuh"
#include "NarumiNonbondedStages.h"

namespace OpenMMNarumi {

namespace {

/** Methods A to E: their float/double force sums into OpenMM's fixed-point buffer (then cleared for next time). */
__global__ void mergeFloatingForces(NarumiNonbondedData d, int useDouble) {
    for (int atom = blockIdx.x * blockDim.x + threadIdx.x; atom < d.numAtoms; atom += gridDim.x * blockDim.x)
        for (int c = 0; c < 3; c++) {
            int index = atom + c * d.sums.paddedNumAtoms;
            double value = useDouble ? d.sums.forceDouble[index] : (double) d.sums.forceFloat[index];
            if (useDouble)
                d.sums.forceDouble[index] = 0.0;
            else
                d.sums.forceFloat[index] = 0.0f;
            if (!(fabs(value) < 2147483648.0))
                atomicOr(d.sums.errorFlags, NARUMI_ERROR_TERM_RANGE);
            else
                d.sums.forceFixed[index] += (unsigned long long) __double2ll_rn(value * 4294967296.0);
        }
}

/** The energy of every method into the status words; the sums are cleared, the tile count published. */
__global__ void finishEnergy(NarumiNonbondedData d, int includeEnergy) {
    if (blockIdx.x != 0 || threadIdx.x != 0)
        return;
    if (includeEnergy) {
        d.status->energyFixed = (long long) *d.sums.energyFixed;
        d.status->energyFloating = (double) *d.sums.energyFloat + *d.sums.energyDouble;
    }
    *d.sums.energyFixed = 0;
    *d.sums.energyFloat = 0.0f;
    *d.sums.energyDouble = 0.0;
    if (d.status->tileChunksTaken > 0)
        d.status->chunkedEvaluations++;
    d.status->tileChunksTaken = 0;
    // A huge pair that is not an exception really interacts at a force beyond OpenMM's fixed point.
    if (d.status->hugePairBalance != 0)
        d.status->errorFlags |= NARUMI_ERROR_TERM_RANGE;
    d.status->hugePairBalance = 0;
    d.status->evaluations++;
    d.status->listedTiles += (unsigned long long) d.tileOffsets[d.numBlocks];
    if (d.status->rebuildList) {
        d.status->listBuilds++;
        d.status->rebuildList = 0;
    }
}

} // namespace

void narumiFinishSums(const NarumiNonbondedData& data, NarumiAccumulation method, bool includeEnergy, cudaStream_t stream) {
    if (method == NarumiAccumulation::SingleFloat || narumiSumsForcesInDouble(method)) {
        preferSharedCarveout(mergeFloatingForces, data.sharedCarveout);
        mergeFloatingForces<<<blocksFor(data.numAtoms), THREADS, 0, stream>>>(data, narumiSumsForcesInDouble(method));
    }
    preferSharedCarveout(finishEnergy, data.sharedCarveout);
    finishEnergy<<<1, 32, 0, stream>>>(data, includeEnergy);
}

} // namespace OpenMMNarumi
