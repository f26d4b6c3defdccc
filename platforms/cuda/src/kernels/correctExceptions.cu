/**
 * "Exclude afterwards": correctExceptions subtracts exactly what computeTiles added for every exception pair, then
 * adds the exception's own interaction.
 */

#include "NarumiAccumulatorDispatch.cuh"
#include "NarumiKernelConstants.cuh"
#include "NarumiNonbondedStages.h"
#include "NarumiPairInteraction.cuh"
#include "NarumiPositions.cuh"
#include "NarumiTermAccumulators.cuh"

namespace NarumiPlugin {

namespace {

/**
 * One thread per exception pair (a, b).  First the pair's contribution from computeTiles is removed: the same
 * float inputs and the same pair function give the same force F bit for bit, and the accumulator's term(F) is
 * exactly what add(F) contributed, so for Narumi and FixedPoint64 the pair vanishes without a trace.  Then the
 * exception's own interaction (plain Coulomb + LJ, no cutoff) is added, from posq in its own precision.  Both go
 * to each atom in one atomic (term(E) - term(F) is exact for the integer methods); the energy is summed over the
 * warp first, so that 32 exceptions cost one atomic on the single energy word instead of 64.
 */
template <class Accumulator, class PosT, bool computeEnergy>
__global__ void correctExceptions(NarumiNonbondedData d) {
    using Term = typename Accumulator::Term;
    const PosT* posq = (const PosT*) d.posq;
    int errors = 0;
    Term energy = 0;
    // Every thread runs the same number of iterations, so that the whole warp reaches the shuffles below.
    int stride = gridDim.x * blockDim.x;
    for (int first = blockIdx.x * blockDim.x; first < d.numExceptions; first += stride) {
        int index = first + threadIdx.x;
        if (index >= d.numExceptions)
            continue;
        int2 atoms = d.exceptionAtoms[index];
        int slotA = d.slotOfAtom[atoms.x], slotB = d.slotOfAtom[atoms.y];
        int posqA = d.slotPosqIndex[slotA], posqB = d.slotPosqIndex[slotB];
        float4 positionA = d.slotPositions[slotA], positionB = d.slotPositions[slotB];
        Term removed[3] = {0, 0, 0}, added[3] = {0, 0, 0};

        float3 delta = narumiDisplacement(positionA, positionB, d.box);
        float r2 = narumiSquaredLength(delta);
        if (r2 < d.pair.cutoff2) {
            float2 ljA = d.slotLennardJones[slotA], ljB = d.slotLennardJones[slotB];
            float kq = __fmul_rn(positionA.w, positionB.w);
            float sigma = __fadd_rn(ljA.x, ljB.x);
            float eps4 = __fmul_rn(ljA.y, ljB.y);
            float dEdrOverR;
            float pairEnergy = narumiPairEnergy(d.pair, r2, kq, sigma, eps4, dEdrOverR);
            // Atom a received term(F); atom b, from its own side, term(-F) = -term(F).
            removed[0] = Accumulator::term(__fmul_rn(dEdrOverR, delta.x), errors);
            removed[1] = Accumulator::term(__fmul_rn(dEdrOverR, delta.y), errors);
            removed[2] = Accumulator::term(__fmul_rn(dEdrOverR, delta.z), errors);
            if (computeEnergy)
                energy -= Accumulator::term(pairEnergy, errors);
        }

        float4 parameters = d.exceptionParameters[index];
        if (parameters.x != 0.0f || parameters.z != 0.0f) {  // else an exclusion: nothing to add
            if (!d.exceptionsUsePeriodic) {
                auto ra = loadPosition(posq, posqA), rb = loadPosition(posq, posqB);
                delta = make_float3((float) (rb.x - ra.x), (float) (rb.y - ra.y), (float) (rb.z - ra.z));
            }
            float dEdrOverR;
            float exceptionEnergy = narumiExceptionEnergy(narumiSquaredLength(delta), parameters.x, parameters.y, parameters.z, dEdrOverR);
            added[0] = Accumulator::term(__fmul_rn(dEdrOverR, delta.x), errors);
            added[1] = Accumulator::term(__fmul_rn(dEdrOverR, delta.y), errors);
            added[2] = Accumulator::term(__fmul_rn(dEdrOverR, delta.z), errors);
            if (computeEnergy)
                energy += Accumulator::term(exceptionEnergy, errors);
        }
        for (int c = 0; c < 3; c++) {
            Term net = added[c] - removed[c];
            if (net != 0) {
                Accumulator::addForceTerm(d.sums, posqA, c, net);
                Accumulator::addForceTerm(d.sums, posqB, c, -net);
            }
        }
    }
    if (errors != 0)
        atomicOr(d.sums.errorFlags, errors);
    if (computeEnergy) {
        for (int offset = 16; offset > 0; offset /= 2)
            energy += __shfl_down_sync(FULL_MASK, energy, offset);
        if (threadIdx.x % 32 == 0 && energy != 0)
            Accumulator::addEnergyTerm(d.sums, energy);
    }
}

template <class Accumulator, class PosT>
void launchCorrectExceptions(const NarumiNonbondedData& d, bool includeEnergy, cudaStream_t stream) {
    if (includeEnergy)
        correctExceptions<Accumulator, PosT, true><<<blocksFor(d.numExceptions), THREADS, 0, stream>>>(d);
    else
        correctExceptions<Accumulator, PosT, false><<<blocksFor(d.numExceptions), THREADS, 0, stream>>>(d);
}

} // namespace

void narumiCorrectExceptions(const NarumiNonbondedData& data, NarumiAccumulation method, bool includeEnergy, bool posqIsDouble,
                             cudaStream_t stream) {
    if (data.numExceptions <= 0)
        return;
    narumiWithAccumulator(method, [&](auto tag) {
        using Accumulator = typename decltype(tag)::type;
        if (posqIsDouble)
            launchCorrectExceptions<Accumulator, PositionCharge64>(data, includeEnergy, stream);
        else
            launchCorrectExceptions<Accumulator, float4>(data, includeEnergy, stream);
    });
}

} // namespace NarumiPlugin
