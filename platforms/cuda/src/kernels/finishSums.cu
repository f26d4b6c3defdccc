/**
 * The end of an evaluation: mergeFloatingForces merges the float/double force sums of methods A to E into OpenMM's
 * buffer, and finishEnergy adds the energy to OpenMM's energy buffer.
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

/** The energy of every method into OpenMM's energy buffer; the sums are cleared, the tile count published. */
template <class EnergyT>
__global__ void finishEnergy(NarumiNonbondedData d, int includeEnergy) {
    if (blockIdx.x != 0 || threadIdx.x != 0)
        return;
    double energy = (double) (long long) *d.sums.energyFixed / 4294967296.0 + (double) *d.sums.energyFloat + *d.sums.energyDouble;
    if (includeEnergy)
        ((EnergyT*) d.energyBuffer)[0] += (EnergyT) energy;
    *d.sums.energyFixed = 0;
    *d.sums.energyFloat = 0.0f;
    *d.sums.energyDouble = 0.0;
    d.status->evaluations++;
    d.status->listedTiles += (unsigned long long) d.tileOffsets[d.numBlocks];
    if (d.status->rebuildList) {
        d.status->listBuilds++;
        d.status->rebuildList = 0;
    }
}

} // namespace

void narumiFinishSums(const NarumiNonbondedData& data, NarumiAccumulation method, bool includeEnergy, bool energyIsDouble,
                      cudaStream_t stream) {
    if (method == NarumiAccumulation::SingleFloat || narumiSumsForcesInDouble(method))
        mergeFloatingForces<<<blocksFor(data.numAtoms), THREADS, 0, stream>>>(data, narumiSumsForcesInDouble(method));
    if (energyIsDouble)
        finishEnergy<double><<<1, 32, 0, stream>>>(data, includeEnergy);
    else
        finishEnergy<float><<<1, 32, 0, stream>>>(data, includeEnergy);
}

} // namespace OpenMMNarumi
