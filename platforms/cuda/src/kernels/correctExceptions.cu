/**
 * "Exclude afterwards": correctExceptions subtracts exactly what computeTiles added for every exception pair, then
 * adds the exception's own interaction (and, with GROMACS's reaction field, the excluded charges' term).
 */

#include "NarumiAccumulatorDispatch.cuh"
#include "NarumiKernelConstants.cuh"
#include "NarumiNonbondedStages.h"
#include "NarumiPairInteraction.cuh"
#include "NarumiPairParameters.cuh"
#include "NarumiPositions.cuh"
#include "NarumiTermAccumulators.cuh"

namespace OpenMMNarumi {

namespace {

/**
 * One thread per exception pair (a, b) whose tile lies in this device's share.  First the pair's contribution from
 * computeTiles is removed: the same float inputs and the same pair function give the same force F bit for bit, and
 * the accumulator's term(F) is exactly what add(F) contributed, so for Narumi and FixedPoint64 the pair vanishes
 * without a trace.  Then the exception's own interaction (plain Coulomb + LJ, no cutoff) is added, from posq in its
 * own precision.  Both go to each atom in one atomic (term(E) - term(F) is exact for the integer methods); the
 * energy is summed over the warp first, so that 32 exceptions cost one atomic on the single energy word instead of
 * 64.  A huge pair (narumiHugePair) was left out by computeTiles and is not subtracted, but taken off its count.  With GROMACS's reaction field
 * (excludedChargeTerms) every exception pair within the cutoff also gets kq (krf r^2 - crf) from the atoms' charges, at
 * the same displacement as the subtracted pair.
 */
template <class Accumulator, class PosT, bool computeEnergy>
__global__ void correctExceptions(NarumiNonbondedData d) {
    using Term = typename Accumulator::Term;
    using Real = typename Accumulator::Real;
    using V3 = typename NarumiVectors<Real>::V3;
    const PosT* posq = (const PosT*) d.posq;
    int errors = 0, hugePairs = 0;
    Term energy = 0;
    // Every thread runs the same number of iterations, so that the whole warp reaches the shuffles below.
    int stride = gridDim.x * blockDim.x;
    for (int first = blockIdx.x * blockDim.x; first < d.numExceptions; first += stride) {
        int index = first + threadIdx.x;
        if (index >= d.numExceptions)
            continue;
        int2 atoms = d.exceptionAtoms[index];
        int slotA = d.slotOfAtom[atoms.x], slotB = d.slotOfAtom[atoms.y];
        // The device whose share holds the pair's tile (its lower block's) corrects it, so that what computeTiles
        // added and what this removes meet in the same sums on several devices too.
        int ownerBlock = min(slotA, slotB) / 32;
        if (ownerBlock < d.shareBlockBegin || ownerBlock >= d.shareBlockEnd)
            continue;
        int posqA = d.slotPosqIndex[slotA], posqB = d.slotPosqIndex[slotB];
        auto positionA = slotPosition(d, slotA, Real()), positionB = slotPosition(d, slotB, Real());
        Term removed[3] = {0, 0, 0}, added[3] = {0, 0, 0};

        V3 delta = narumiDisplacement(positionA, positionB, d.box);
        Real r2 = narumiSquaredLength(delta);
        const NarumiPairConstantsOf<Real>& constants = pairConstants(d, Real());
        if (r2 < constants.cutoff2) {
            auto ljA = slotLennardJones(d, slotA, Real()), ljB = slotLennardJones(d, slotB, Real());
            Real kq = narumiMul(positionA.w, positionB.w);
            Real dEdrOverR;
            Real pairEnergy = d.numTableClasses > 0 ?
                narumiPairEnergy(constants, r2, kq, narumiPairLennardJones<true>(d, ljA, slotTableClass(d, slotA), ljB, slotTableClass(d, slotB)),
                                 dEdrOverR) :
                narumiPairEnergy(constants, r2, kq, narumiPairLennardJones<false>(d, ljA, 0, ljB, 0), dEdrOverR);
            if (narumiHugePair(dEdrOverR, r2))
                hugePairs++;  // computeTiles left it out and counted it
            else {
                // Atom a received term(F); atom b, from its own side, term(-F) = -term(F).
                removed[0] = Accumulator::term(narumiMul(dEdrOverR, delta.x), errors);
                removed[1] = Accumulator::term(narumiMul(dEdrOverR, delta.y), errors);
                removed[2] = Accumulator::term(narumiMul(dEdrOverR, delta.z), errors);
                if (computeEnergy)
                    energy -= Accumulator::term(pairEnergy, errors);
            }
            if (constants.excludedChargeTerms) {
                Real chargeDerivative;
                Real chargeEnergy = narumiExcludedChargeEnergy(constants, r2, kq, chargeDerivative);
                added[0] = Accumulator::term(narumiMul(chargeDerivative, delta.x), errors);
                added[1] = Accumulator::term(narumiMul(chargeDerivative, delta.y), errors);
                added[2] = Accumulator::term(narumiMul(chargeDerivative, delta.z), errors);
                if (computeEnergy)
                    energy += Accumulator::term(chargeEnergy, errors);
            }
        }

        auto parameters = exceptionParameters(d, index, Real());
        if (parameters.x != Real(0) || parameters.z != Real(0)) {  // else an exclusion: nothing to add
            if (!d.exceptionsUsePeriodic) {
                auto ra = loadPosition(posq, posqA), rb = loadPosition(posq, posqB);
                delta = V3{(Real) (rb.x - ra.x), (Real) (rb.y - ra.y), (Real) (rb.z - ra.z)};
            }
            Real dEdrOverR;
            Real exceptionEnergy = narumiExceptionEnergy(narumiSquaredLength(delta), parameters.x, parameters.y, parameters.z, dEdrOverR);
            added[0] += Accumulator::term(narumiMul(dEdrOverR, delta.x), errors);
            added[1] += Accumulator::term(narumiMul(dEdrOverR, delta.y), errors);
            added[2] += Accumulator::term(narumiMul(dEdrOverR, delta.z), errors);
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
    if (hugePairs != 0)
        atomicSub(&d.status->hugePairBalance, hugePairs);
    if (computeEnergy) {
        energy = narumiWarpSum(energy);
        if (threadIdx.x % 32 == 0 && energy != 0)
            Accumulator::addEnergyTerm(d.sums, energy);
    }
}

template <class Accumulator, class PosT>
void launchCorrectExceptions(const NarumiNonbondedData& d, bool includeEnergy, cudaStream_t stream) {
    if (includeEnergy) {
        preferSharedCarveout(correctExceptions<Accumulator, PosT, true>, d.sharedCarveout);
        correctExceptions<Accumulator, PosT, true><<<blocksFor(d.numExceptions), THREADS, 0, stream>>>(d);
    }
    else {
        preferSharedCarveout(correctExceptions<Accumulator, PosT, false>, d.sharedCarveout);
        correctExceptions<Accumulator, PosT, false><<<blocksFor(d.numExceptions), THREADS, 0, stream>>>(d);
    }
}

} // namespace

void narumiCorrectExceptions(const NarumiNonbondedData& data, NarumiAccumulation method, bool includeEnergy, bool posqIsDouble,
                             cudaStream_t stream) {
    if (data.numExceptions <= 0 || data.shareBlockEnd <= data.shareBlockBegin)
        return;
    narumiWithAccumulator(method, data.slotPositionsDouble != nullptr, data.narumiSumsInDouble != 0, [&](auto tag) {
        using Accumulator = typename decltype(tag)::type;
        if (posqIsDouble)
            launchCorrectExceptions<Accumulator, NarumiDouble4>(data, includeEnergy, stream);
        else
            launchCorrectExceptions<Accumulator, float4>(data, includeEnergy, stream);
    });
}

} // namespace OpenMMNarumi
