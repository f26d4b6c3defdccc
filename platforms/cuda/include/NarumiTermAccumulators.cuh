#ifndef NARUMI_TERM_ACCUMULATORS_CUH_
#define NARUMI_TERM_ACCUMULATORS_CUH_

/**
 * The per-thread accumulators of the nonbonded kernels, one per NarumiNonbondedForce::AccumulationMethod, with one
 * interface so that the kernels are templates over the method (the accuracy study compares them in one kernel):
 *
 *   Real            the precision of the pair terms it takes (float, or double for double-precision pairs)
 *   exact           whether its global sums are integers (the result then independent of the order in which the tiles
 *                   are taken; for all but TileSums also of the order of the terms)
 *   add(y)          add one pair term (a force component or a pair energy)
 *   carry()         called after at most NARUMI_CARRY_INTERVAL additions
 *   flush(target)   merge the thread's sum into the global sum of the method (see NarumiGlobalSums); flushEnergy
 *                   is called by all 32 lanes of a warp at once
 *   term(y)         for the exclusion kernel: exactly what add(y) contributes, in the global sum's units (type Term)
 *   addForceTerm, addEnergyTerm   the exclusion kernel's side: add a Term to an atom's force or to the energy
 *
 *   addVector(x, y, z, f)  add the three components of a pair force (one range test per pair for Narumi)
 *   addPairForce(...)      a pair force on i and, negated, on its partner j (each component split once for Narumi,
 *                          rounded once for the fixed-point sums), with the caller's word on whether every component
 *                          is below NARUMI_LARGE_TERM (the range test of Narumi and TileSums; the other methods ignore it)
 *
 * and, for the partner atoms j of a tile (Newton's third law: each pair is computed once, and j's share summed in
 * shared memory for the tile's at most 32 terms, then merged into the global sum):
 *
 *   Partner         the shared-memory sum of one component of one partner atom over one tile
 *   PartnerXY<Partner>   a partner's x and y sums side by side (its z sum apart), for one shared access to both
 *   partnerZero()   an empty Partner
 *   addPartner(p, y, sums, atom, component, errors)   add a term exactly as add(y) would (not Narumi: see addPairForce)
 *   flushPartner(first, second, sums, atom, component, errors)   merge a partner's two sums of a tile (the tile's
 *                   two halves of its rotation, computeTiles.cu) into the global sum of atom's component
 *
 * Narumi and FixedPoint64 sum into OpenMM's 64-bit fixed-point buffers with integer atomics, so their results do not
 * depend on the order of the terms, and term(y) cancels add(y) exactly.  TileSums merges float sums of each tile into
 * the same buffers: deterministic, but term(y) cancels a small add(y) only up to the float sum's rounding.  The paper's other methods (A single, B
 * double, C-E float pairs) sum in floating point and merge with floating-point atomics: order-dependent by design.
 */

#include "NarumiCommon/NarumiAccumulator.cuh"
#include "NarumiKernelConstants.cuh"
#include "NarumiNonbondedTypes.h"
#include "NarumiPairInteraction.cuh"
#include "PairExpression.cuh"
#include <type_traits>

namespace OpenMMNarumi {

/**
 * A partner's x and y sums side by side: one shared-memory access reads or writes both, and a warp's accesses to 32
 * consecutive entries take as many bank cycles as two accesses to 8-byte entries would.
 */
template <class Partner>
struct alignas(2 * sizeof(Partner)) PartnerXY {
    Partner x, y;
};

/** A term must stay below 2^31 to have a 64-bit fixed-point value at OpenMM's scale. */
constexpr float NARUMI_FIXED_POINT_LIMIT = 2147483648.0f;

__device__ inline long long narumiRoundToInteger(float y) {
    return __float2ll_rn(y);
}
__device__ inline long long narumiRoundToInteger(double y) {
    return __double2ll_rn(y);
}

/** Double terms below this magnitude round by narumiMagicRoundedTerm: |y * 2^FRACTION_BITS| < 2^51. */
template <int FRACTION_BITS>
__host__ __device__ constexpr double narumiMagicRoundingLimit() {
    return double(1LL << (51 - FRACTION_BITS));
}

/**
 * rint(y * 2^FRACTION_BITS) in OpenMM's fixed point for |y| < narumiMagicRoundingLimit: y * 2^FRACTION_BITS + 1.5 * 2^52
 * lies in [2^52, 2^53), where the doubles are the integers, so one FMA rounds it to nearest (ties to even, as
 * __double2ll_rn: the magic number is even) and its bits minus the magic number's are that integer.  Bit for bit the
 * conversion of narumiRoundedTerm, with an FMA and an integer add where the conversion is a slow instruction.
 */
template <int FRACTION_BITS>
__device__ inline long long narumiMagicRoundedTerm(double y) {
    constexpr double magic = 6755399441055744.0;
    return (__double_as_longlong(__fma_rn(y, double(1LL << FRACTION_BITS), magic)) - __double_as_longlong(magic)) *
           (1LL << (32 - FRACTION_BITS));
}

/**
 * A term (float, or double for double-precision pairs) rounded to nearest on the grid 2^-FRACTION_BITS, in OpenMM's
 * fixed point (units of 2^-32): exact (a number times a power of two is an integer unless tiny) and odd.  A term
 * beyond OpenMM's range (or NaN) raises NARUMI_ERROR_TERM_RANGE and saturates (NaN gives 0), still as a function of
 * the term alone, so that an excluded pair cancels even then; the host never lets such an evaluation pass silently.
 */
template <int FRACTION_BITS, class Real>
__device__ inline long long narumiRoundedTerm(Real y, int& errors) {
    static_assert(FRACTION_BITS <= 32, "the grid must be part of OpenMM's 2^-32 grid");
    if constexpr (std::is_same<Real, double>::value)
        if (fabs(y) < narumiMagicRoundingLimit<FRACTION_BITS>())
            return narumiMagicRoundedTerm<FRACTION_BITS>(y);
    if (!(fabs(y) < Real(NARUMI_FIXED_POINT_LIMIT))) {
        errors |= NARUMI_ERROR_TERM_RANGE;
        const long long saturated = 0x7fffffff00000000LL;
        return y > Real(0) ? saturated : (y < Real(0) ? -saturated : 0);
    }
    return narumiRoundToInteger(narumiMul(y, Real(1LL << FRACTION_BITS))) * (1LL << (32 - FRACTION_BITS));
}

/** What a Narumi pair adds for a term y, in OpenMM's fixed point: rint(y * 2^25) * 2^7 (NarumiAccumulator.cuh). */
__device__ inline long long narumiGridTerm(float y, int& errors) {
    return narumiRoundedTerm<Common::NARUMI_LOW_FRACTION_BITS>(y, errors);
}

/** The sum of value over the warp's 32 lanes, in lane 0 (all lanes call it). */
template <class T>
__device__ inline T narumiWarpSum(T value) {
    for (int offset = 16; offset > 0; offset /= 2)
        value += __shfl_down_sync(FULL_MASK, value, offset);
    return value;
}

/**
 * Global sums in OpenMM's 64-bit fixed point, merged with integer atomics (Narumi and FixedPoint64: exact, so the
 * result does not depend on the order); a thread reports its terms' error bits when it merges its sums.
 */
struct FixedGlobalSum {
    using Term = long long;
    static constexpr bool exact = true;

    __device__ static void addForceTerm(const NarumiGlobalSums& sums, int atom, int component, Term value) {
        atomicAdd(&sums.forceFixed[atom + component * sums.paddedNumAtoms], (unsigned long long) value);
    }
    __device__ static void addEnergyTerm(const NarumiGlobalSums& sums, Term value) {
        atomicAdd(sums.energyFixed, (unsigned long long) value);
    }
    /**
     * The warp's 32 values summed (integers: exactly) and added by one lane: one atomic per warp on the one energy
     * word, where one per thread (a full wave of the pair kernel holds over 100,000 threads) queued at it.
     */
    __device__ static void addWarpEnergyTerm(const NarumiGlobalSums& sums, Term value) {
        value = narumiWarpSum(value);
        if (threadIdx.x % 32 == 0 && value != 0)
            addEnergyTerm(sums, value);
    }
    __device__ static void reportErrors(const NarumiGlobalSums& sums, int errors) {
        if (errors)
            atomicOr(sums.errorFlags, errors);
    }
};

/**
 * What Narumi's two accumulators share (NarumiTermAccumulator, NarumiGridInDoubleAccumulator; Sum is either): the
 * large terms' 64-bit integer, the error bits, term(), and the merge of Sum::fixedPoint() into OpenMM's buffer.
 */
template <class Sum>
struct NarumiGridSum : FixedGlobalSum {
    using Real = float;
    long long large;
    int errors;

    /** Exactly what add(y) contributes to fixedPoint(), whatever else was added before or after. */
    __device__ static long long term(float y, int& errors) {
        return narumiGridTerm(y, errors);
    }
    __device__ void flushForce(const NarumiGlobalSums& sums, int atom, int component) {
        addForceTerm(sums, atom, component, static_cast<Sum*>(this)->fixedPoint());
        reportErrors(sums, errors);
    }
    __device__ void flushEnergy(const NarumiGlobalSums& sums) {
        addWarpEnergyTerm(sums, static_cast<Sum*>(this)->fixedPoint());
        reportErrors(sums, errors);
    }
};

/**
 * Narumi's trick for sums of pair terms.  A Narumi pair (float hi + int32 lo, NarumiAccumulator.cuh) holds sums up
 * to 2^20 on a 2^-25 grid; a thread's forces are far below that, but the all-pairs pass also sees the excluded
 * bonded pairs, whose Lennard-Jones terms at 0.1-0.15 nm reach 1e6-1e8 kJ/mol/nm before the exclusion kernel
 * removes them.  So terms of at least NARUMI_LARGE_TERM go to a 64-bit integer instead, rounded onto the same grid:
 * whichever way a term goes it contributes narumiGridTerm(y), a function of the term alone (odd, exact), which is
 * all exact cancellation needs; and the Narumi pair keeps 32x headroom for the sum of the small terms.
 */
struct NarumiTermAccumulator : NarumiGridSum<NarumiTermAccumulator> {
    Common::NarumiAccumulator small;

    __device__ void zero() {
        small = Common::narumiZero();
        large = 0;
        errors = 0;
    }
    __device__ void add(float y) {
        if (fabsf(y) < NARUMI_LARGE_TERM)
            Common::narumiAddUnchecked(small, y);  // the range is checked by carry(), after every tile
        else
            large += narumiGridTerm(y, errors);
    }
    __device__ void carry() {
        Common::narumiCarry(small);
    }
    /** The sum in OpenMM's fixed point; exact. */
    __device__ long long fixedPoint() {
        if (Common::narumiOutOfRange(small))
            errors |= NARUMI_ERROR_ACCUMULATOR_RANGE;
        return Common::narumiToFixedPoint(small) + large;
    }

    /**
     * A Narumi pair without its range word (8 bytes, so that a warp's rotating accesses hit distinct banks): at most
     * 32 terms below NARUMI_LARGE_TERM = 2^15 sum to less than 2^20, so one tile needs neither a carry nor a range test.
     */
    struct Partner {
        float hi;
        int lo;
    };
    __device__ static Partner partnerZero() {
        return Partner{Common::NARUMI_LARGE, 0};
    }
    // No addPartner(): Narumi's partner terms are the split terms of addPairForce (below the accumulators).
    /** The two sums add exactly as integers, so the value is that of one sum of all the terms. */
    __device__ static void flushPartner(const Partner& first, const Partner& second, const NarumiGlobalSums& sums, int atom,
                                        int component, int& errors) {
        if ((Common::narumiExponentError(first.hi) | Common::narumiExponentError(second.hi)) != 0) {
            errors |= NARUMI_ERROR_ACCUMULATOR_RANGE;
            return;
        }
        long long units = Common::narumiUnitsInBinade(first.hi, first.lo) + Common::narumiUnitsInBinade(second.hi, second.lo);
        long long value = units * (1LL << Common::NARUMI_FIXED_POINT_SHIFT);
        if (value != 0)
            addForceTerm(sums, atom, component, value);
    }
};

/**
 * Every term rounded onto the grid 2^-FRACTION_BITS and summed in a 64-bit integer (exact, order-independent, one
 * 64-bit add per term): OpenMM's own fixed point (32 bits, method FixedPoint64), and in double precision Narumi's grid
 * (25 bits) for double terms, which the float + int32 Narumi pair cannot hold without rounding them to float first.
 */
template <int FRACTION_BITS, class RealT>
struct FixedPointTermAccumulator : FixedGlobalSum {
    using Real = RealT;
    long long sum;
    int errors;

    __device__ void zero() {
        sum = 0;
        errors = 0;
    }
    __device__ void add(Real y) {
        sum += narumiRoundedTerm<FRACTION_BITS>(y, errors);
    }
    __device__ void carry() {
    }
    __device__ static long long term(Real y, int& errors) {
        return narumiRoundedTerm<FRACTION_BITS>(y, errors);
    }
    __device__ void flushForce(const NarumiGlobalSums& sums, int atom, int component) {
        addForceTerm(sums, atom, component, sum);
        reportErrors(sums, errors);
    }
    __device__ void flushEnergy(const NarumiGlobalSums& sums) {
        addWarpEnergyTerm(sums, sum);
        reportErrors(sums, errors);
    }

    using Partner = long long;
    __device__ static Partner partnerZero() {
        return 0;
    }
    __device__ static void addPartner(Partner& p, Real y, const NarumiGlobalSums&, int, int, int& errors) {
        p += narumiRoundedTerm<FRACTION_BITS>(y, errors);
    }
    __device__ static void flushPartner(Partner first, Partner second, const NarumiGlobalSums& sums, int atom, int component, int&) {
        Partner p = first + second;
        if (p != 0)
            addForceTerm(sums, atom, component, p);
    }
};

using FixedPoint64TermAccumulator = FixedPointTermAccumulator<32, float>;
/** Double precision: Narumi's and FixedPoint64's sums of double-precision pair terms. */
using NarumiGridDoubleTermAccumulator = FixedPointTermAccumulator<Common::NARUMI_LOW_FRACTION_BITS, double>;
using FixedPoint64DoubleTermAccumulator = FixedPointTermAccumulator<32, double>;

/**
 * add()'s bound for TileSums: terms from here on (pair energies, and the forces of a diagonal tile, where a molecule's
 * own excluded pairs sit: O-H in water 5e3 kJ/mol/nm) are rounded into the fixed point, at the cost of one conversion
 * and no atomic, so that the exclusion pass cancels them exactly.
 */
constexpr float NARUMI_TILE_SUM_EXACT_TERM = 128.0f;

/**
 * OpenMM CUDA's scheme (method TileSums): a thread sums its atom's terms of one tile in Real (float; double for
 * double-precision pairs), and carry(), at the end of every tile, rounds that sum into a 64-bit integer in OpenMM's
 * fixed point; a partner's sums of a tile are rounded in once too.  Large terms would swamp a float sum: those of
 * add() from NARUMI_TILE_SUM_EXACT_TERM, and the pair forces of a cross tile from NARUMI_LARGE_TERM (an excluded bonded
 * pair's Lennard-Jones, 1e6-1e8 kJ/mol/nm; there j's share costs atomics) are rounded into the fixed point directly,
 * where the exclusion pass cancels them exactly; smaller excluded terms leave their float rounding behind.
 * Deterministic: a tile's sums depend on that tile alone (its atoms in a fixed order: slotOrderedPartners), and the
 * integers add in any order.
 */
template <class RealT>
struct TileSumTermAccumulator : FixedGlobalSum {
    using Real = RealT;
    Real tile;
    long long sum;
    int errors;

    __device__ void zero() {
        tile = Real(0);
        sum = 0;
        errors = 0;
    }
    __device__ void add(Real y) {
        if (fabs(y) < Real(NARUMI_TILE_SUM_EXACT_TERM))
            tile += y;
        else
            sum += narumiRoundedTerm<32>(y, errors);
    }
    __device__ void carry() {
        sum += narumiRoundedTerm<32>(tile, errors);
        tile = Real(0);
    }
    __device__ static long long term(Real y, int& errors) {
        return narumiRoundedTerm<32>(y, errors);
    }
    __device__ void flushForce(const NarumiGlobalSums& sums, int atom, int component) {
        carry();
        addForceTerm(sums, atom, component, sum);
        reportErrors(sums, errors);
    }
    __device__ void flushEnergy(const NarumiGlobalSums& sums) {
        carry();
        addWarpEnergyTerm(sums, sum);
        reportErrors(sums, errors);
    }

    using Partner = Real;
    __device__ static Partner partnerZero() {
        return Real(0);
    }
    __device__ static void flushPartner(Partner first, Partner second, const NarumiGlobalSums& sums, int atom, int component, int& errors) {
        Partner p = first + second;
        if (p != Real(0))
            addForceTerm(sums, atom, component, narumiRoundedTerm<32>(p, errors));
    }
};

/** Narumi's method A: float sums, merged with float atomics. */
struct SingleFloatTermAccumulator {
    using Real = float;
    using Term = float;
    static constexpr bool exact = false;
    float sum;

    __device__ void zero() {
        sum = 0.0f;
    }
    __device__ void add(float y) {
        sum += y;
    }
    __device__ void carry() {
    }
    __device__ static float term(float y, int&) {
        return y;
    }
    __device__ void flushForce(const NarumiGlobalSums& sums, int atom, int component) {
        atomicAdd(&sums.forceFloat[atom + component * sums.paddedNumAtoms], sum);
    }
    __device__ void flushEnergy(const NarumiGlobalSums& sums) {
        atomicAdd(sums.energyFloat, sum);
    }
    __device__ static void addForceTerm(const NarumiGlobalSums& sums, int atom, int component, float value) {
        atomicAdd(&sums.forceFloat[atom + component * sums.paddedNumAtoms], value);
    }
    __device__ static void addEnergyTerm(const NarumiGlobalSums& sums, float value) {
        atomicAdd(sums.energyFloat, value);
    }

    using Partner = float;
    __device__ static Partner partnerZero() {
        return 0.0f;
    }
    __device__ static void addPartner(Partner& p, float y, const NarumiGlobalSums&, int, int, int&) {
        p += y;
    }
    __device__ static void flushPartner(Partner first, Partner second, const NarumiGlobalSums& sums, int atom, int component, int&) {
        Partner p = first + second;
        if (p != 0.0f)
            addForceTerm(sums, atom, component, p);
    }
};

/** Global sums in double, merged with double atomics: methods B to E (the paper's exclusion pass, on the CPU there). */
template <class RealT>
struct DoubleGlobalSum {
    using Real = RealT;
    using Term = double;
    static constexpr bool exact = false;
    __device__ static double term(Real y, int&) {
        return (double) y;
    }
    __device__ static void addForceTerm(const NarumiGlobalSums& sums, int atom, int component, double value) {
        atomicAdd(&sums.forceDouble[atom + component * sums.paddedNumAtoms], value);
    }
    __device__ static void addEnergyTerm(const NarumiGlobalSums& sums, double value) {
        atomicAdd(sums.energyDouble, value);
    }
};

/** Narumi's method B: single-precision terms (double ones in double precision) summed in double. */
template <class RealT>
struct DoubleSumTermAccumulator : DoubleGlobalSum<RealT> {
    using Real = RealT;
    using DoubleGlobalSum<RealT>::addForceTerm;
    using DoubleGlobalSum<RealT>::addEnergyTerm;
    double sum;

    __device__ void zero() {
        sum = 0.0;
    }
    __device__ void add(Real y) {
        sum += (double) y;
    }
    __device__ void carry() {
    }
    __device__ void flushForce(const NarumiGlobalSums& sums, int atom, int component) {
        addForceTerm(sums, atom, component, sum);
    }
    __device__ void flushEnergy(const NarumiGlobalSums& sums) {
        addEnergyTerm(sums, sum);
    }

    using Partner = double;
    __device__ static Partner partnerZero() {
        return 0.0;
    }
    __device__ static void addPartner(Partner& p, Real y, const NarumiGlobalSums&, int, int, int&) {
        p += (double) y;
    }
    __device__ static void flushPartner(Partner first, Partner second, const NarumiGlobalSums& sums, int atom, int component, int&) {
        Partner p = first + second;
        if (p != 0.0)
            addForceTerm(sums, atom, component, p);
    }
};
using DoubleFloatTermAccumulator = DoubleSumTermAccumulator<float>;
using DoubleDoubleTermAccumulator = DoubleSumTermAccumulator<double>;

/**
 * Narumi's methods C, D and E (PairExpression.cuh): each thread's and each tile partner's sum a float pair, read out
 * in double once per atom and tile (as the paper reads fd out per i-particle) and merged like method B.  No large-term
 * path: a term beyond what the rule handles exactly shows in eqs. 10-11, which is what the study measures.
 */
template <PairExpressionRule RULE>
struct PairExpressionTermAccumulator : DoubleGlobalSum<float> {
    FloatPair sum;

    __device__ void zero() {
        sum = pairExpressionZero<RULE>();
    }
    __device__ void add(float y) {
        sum = pairExpressionAdd<RULE>(sum, y);
    }
    __device__ void carry() {
    }
    __device__ void flushForce(const NarumiGlobalSums& sums, int atom, int component) {
        addForceTerm(sums, atom, component, pairExpressionValue<RULE>(sum));
    }
    __device__ void flushEnergy(const NarumiGlobalSums& sums) {
        addEnergyTerm(sums, pairExpressionValue<RULE>(sum));
    }

    using Partner = FloatPair;
    __device__ static Partner partnerZero() {
        return pairExpressionZero<RULE>();
    }
    __device__ static void addPartner(Partner& p, float y, const NarumiGlobalSums&, int, int, int&) {
        p = pairExpressionAdd<RULE>(p, y);
    }
    __device__ static void flushPartner(Partner first, Partner second, const NarumiGlobalSums& sums, int atom, int component, int&) {
        double value = pairExpressionValue<RULE>(first) + pairExpressionValue<RULE>(second);
        if (value != 0.0)
            addForceTerm(sums, atom, component, value);
    }
};

using TakahashiIitakaTermAccumulator = PairExpressionTermAccumulator<PairExpressionRule::TakahashiIitaka>;
using NitadoriTermAccumulator = PairExpressionTermAccumulator<PairExpressionRule::Nitadori>;
using ModifiedNitadoriTermAccumulator = PairExpressionTermAccumulator<PairExpressionRule::ModifiedNitadori>;

/** Whether an accumulator is one of the accuracy study's methods C-E, which the diagnostics run and no force chooses. */
template <class Accumulator>
constexpr bool narumiStudyOnly = false;
template <PairExpressionRule RULE>
constexpr bool narumiStudyOnly<PairExpressionTermAccumulator<RULE>> = true;

/** The three components of one pair force, one add() each. */
template <class Accumulator>
__device__ inline void addVector(Accumulator& x, Accumulator& y, Accumulator& z, typename NarumiVectors<typename Accumulator::Real>::V3 f) {
    x.add(f.x);
    y.add(f.y);
    z.add(f.z);
}

/**
 * A pair force f on atom i (sums x, y, z) and -f on its partner j (shared sums px, py, pz; global index partnerAtom),
 * Newton's third law in a cross tile: add() for i and addPartner() of -f for j.
 */
template <class Accumulator>
__device__ inline void addPairForce(Accumulator& x, Accumulator& y, Accumulator& z, PartnerXY<typename Accumulator::Partner>& pxy,
                                    typename Accumulator::Partner& pz, typename NarumiVectors<typename Accumulator::Real>::V3 f, bool,
                                    const NarumiGlobalSums& sums, int partnerAtom, int& errors) {
    addVector(x, y, z, f);
    Accumulator::addPartner(pxy.x, -f.x, sums, partnerAtom, 0, errors);
    Accumulator::addPartner(pxy.y, -f.y, sums, partnerAtom, 1, errors);
    Accumulator::addPartner(pz, -f.z, sums, partnerAtom, 2, errors);
}

/**
 * Fixed point: each component rounded once for both atoms (the rounding is odd, so j's term is exactly minus i's),
 * where the generic addPairForce rounds f for i and -f for j.
 */
template <int FRACTION_BITS, class Real>
__device__ inline void addPairForce(FixedPointTermAccumulator<FRACTION_BITS, Real>& x, FixedPointTermAccumulator<FRACTION_BITS, Real>& y,
                                    FixedPointTermAccumulator<FRACTION_BITS, Real>& z, PartnerXY<long long>& pxy, long long& pz,
                                    typename NarumiVectors<Real>::V3 f, bool, const NarumiGlobalSums&, int, int&) {
    // Double terms: one branch for the pair, the rare large or NaN ones taking narumiRoundedTerm's per-component path.
    bool magic = false;
    if constexpr (std::is_same<Real, double>::value) {
        constexpr double limit = narumiMagicRoundingLimit<FRACTION_BITS>();
        magic = fabs(f.x) < limit && fabs(f.y) < limit && fabs(f.z) < limit;
    }
    long long tx, ty, tz;
    if (magic) {
        tx = narumiMagicRoundedTerm<FRACTION_BITS>(f.x);
        ty = narumiMagicRoundedTerm<FRACTION_BITS>(f.y);
        tz = narumiMagicRoundedTerm<FRACTION_BITS>(f.z);
    }
    else {
        tx = narumiRoundedTerm<FRACTION_BITS>(f.x, x.errors);
        ty = narumiRoundedTerm<FRACTION_BITS>(f.y, x.errors);
        tz = narumiRoundedTerm<FRACTION_BITS>(f.z, x.errors);
    }
    x.sum += tx;
    y.sum += ty;
    z.sum += tz;
    PartnerXY<long long> partnerXY = pxy;
    partnerXY.x -= tx;
    partnerXY.y -= ty;
    pxy = partnerXY;
    pz -= tz;
}

/** A pair force rounded onto a grid 2^-FRACTION_BITS in OpenMM's fixed point (2^-32), and the error bits of that rounding. */
struct FixedPointVector {
    long long x, y, z;
    int errors;
};

/**
 * The rare path of a pair force with a large component (excluded bonded pairs, overlaps): its three components rounded
 * onto the grid 2^-FRACTION_BITS (Narumi's 2^-25, or OpenMM's 2^-32 for TileSums), what the common path contributes
 * for each of them too.  Not inlined, so that the pair loops stay small enough for the instruction cache; it takes and
 * returns values, so that the caller's sums stay in registers (references to them would put them in local memory).
 */
template <int FRACTION_BITS, class V3>
__device__ inline __noinline__ FixedPointVector fixedPointVector(V3 f) {
    FixedPointVector g;
    g.errors = 0;
    g.x = narumiRoundedTerm<FRACTION_BITS>(f.x, g.errors);
    g.y = narumiRoundedTerm<FRACTION_BITS>(f.y, g.errors);
    g.z = narumiRoundedTerm<FRACTION_BITS>(f.z, g.errors);
    return g;
}

/** Narumi's rare path: fixedPointVector onto the 2^-25 grid, what the Narumi pair would contribute (narumiGridTerm). */
__device__ inline FixedPointVector narumiGridVector(float3 f) {
    return fixedPointVector<Common::NARUMI_LOW_FRACTION_BITS>(f);
}

/** The rare path's force g (already rounded) into 64-bit sums xi, yi, zi (Narumi's large, TileSums' sum) and its error bits. */
__device__ inline void addRoundedVector(long long& xi, long long& yi, long long& zi, int& errors, const FixedPointVector& g) {
    xi += g.x;
    yi += g.y;
    zi += g.z;
    errors |= g.errors;
}

/**
 * The rare path's pair force g into i's 64-bit sums (addRoundedVector) and, negated, straight into j's global sum: j's
 * share of a large force costs atomics, which only such pairs pay.
 */
__device__ inline void addRoundedPairForce(long long& xi, long long& yi, long long& zi, int& errors, const FixedPointVector& g,
                                           const NarumiGlobalSums& sums, int partnerAtom) {
    addRoundedVector(xi, yi, zi, errors, g);
    FixedGlobalSum::addForceTerm(sums, partnerAtom, 0, -g.x);
    FixedGlobalSum::addForceTerm(sums, partnerAtom, 1, -g.y);
    FixedGlobalSum::addForceTerm(sums, partnerAtom, 2, -g.z);
}

/**
 * TileSums: one range test per pair (the caller's for float pairs, as Narumi's; its own for double pairs), then three
 * adds for i and three for j in shared memory.
 */
template <class Real>
__device__ inline void addPairForce(TileSumTermAccumulator<Real>& x, TileSumTermAccumulator<Real>& y, TileSumTermAccumulator<Real>& z,
                                    PartnerXY<Real>& pxy, Real& pz, typename NarumiVectors<Real>::V3 f, bool small,
                                    const NarumiGlobalSums& sums, int partnerAtom, int&) {
    if constexpr (std::is_same<Real, double>::value)
        small = fmax(fabs(f.x), fmax(fabs(f.y), fabs(f.z))) < double(NARUMI_LARGE_TERM);
    if (small) {
        x.tile += f.x;
        y.tile += f.y;
        z.tile += f.z;
        PartnerXY<Real> partnerXY = pxy;   // x and y in one shared-memory access each way
        partnerXY.x -= f.x;
        partnerXY.y -= f.y;
        pxy = partnerXY;
        pz -= f.z;
    }
    else
        addRoundedPairForce(x.sum, y.sum, z.sum, x.errors, fixedPointVector<32>(f), sums, partnerAtom);
}

/** Whether every component of f takes the Narumi pair's path (a NaN component does, and its hi is then checked). */
__device__ inline bool narumiSmallVector(float3 f) {
    return fmaxf(fabsf(f.x), fmaxf(fabsf(f.y), fabsf(f.z))) < NARUMI_LARGE_TERM;
}

/** Narumi: one range test for the pair rather than one per component. */
__device__ inline void addVector(NarumiTermAccumulator& x, NarumiTermAccumulator& y, NarumiTermAccumulator& z, float3 f) {
    if (narumiSmallVector(f)) {
        Common::narumiAddUnchecked(x.small, f.x);
        Common::narumiAddUnchecked(y.small, f.y);
        Common::narumiAddUnchecked(z.small, f.z);
    }
    else
        addRoundedVector(x.large, y.large, z.large, x.errors, narumiGridVector(f));
}

/**
 * Narumi: one range test per pair (small: every component of f is below NARUMI_LARGE_TERM, as narumiSmallVector(f)
 * or a cheaper sufficient test tells), and each component split once (narumiSplit) for both atoms, added to i's pair
 * and subtracted from j's: three float adds and two integer adds per component instead of eight and two.  Large
 * forces go to i's 64-bit sums and straight to j's global sum, rounded onto the same grid: either way a term adds
 * narumiGridTerm(y), so a test that sends a few small forces the long way changes no bit.
 */
__device__ inline void addPairForce(NarumiTermAccumulator& x, NarumiTermAccumulator& y, NarumiTermAccumulator& z,
                                    PartnerXY<NarumiTermAccumulator::Partner>& pxy, NarumiTermAccumulator::Partner& pz, float3 f,
                                    bool small, const NarumiGlobalSums& sums, int partnerAtom, int& errors) {
    if (small) {
        Common::NarumiSplitTerm tx = Common::narumiSplit(f.x), ty = Common::narumiSplit(f.y), tz = Common::narumiSplit(f.z);
        Common::narumiAddSplit(x.small.hi, x.small.lo, tx);
        Common::narumiAddSplit(y.small.hi, y.small.lo, ty);
        Common::narumiAddSplit(z.small.hi, z.small.lo, tz);
        PartnerXY<NarumiTermAccumulator::Partner> partnerXY = pxy;   // x and y in one shared-memory access each way
        Common::narumiSubtractSplit(partnerXY.x.hi, partnerXY.x.lo, tx);
        Common::narumiSubtractSplit(partnerXY.y.hi, partnerXY.y.lo, ty);
        pxy = partnerXY;
        Common::narumiSubtractSplit(pz.hi, pz.lo, tz);
    }
    else
        addRoundedPairForce(x.large, y.large, z.large, x.errors, narumiGridVector(f), sums, partnerAtom);
}

/**
 * 1.5 * 2^27: y + MAGIC, for |y| < 2^26, lies in [2^27, 2^28), where the doubles are exactly the multiples of
 * 2^-25, Narumi's grid; MAGIC is an even number of them, so the addition rounds y to nearest, ties to even.
 */
constexpr double NARUMI_GRID_DOUBLE_MAGIC = 1.5 * double(1LL << (52 - Common::NARUMI_LOW_FRACTION_BITS));
static_assert(NARUMI_LARGE_TERM < NARUMI_GRID_DOUBLE_MAGIC / 3, "a small term stays inside the magic number's binade");

/** y rounded onto Narumi's grid, rint(y * 2^25) * 2^-25, as a double: what a Narumi pair adds for y (|y| < 2^26). */
__device__ inline double narumiGridRounded(float y) {
    return __dsub_rn(__dadd_rn((double) y, NARUMI_GRID_DOUBLE_MAGIC), NARUMI_GRID_DOUBLE_MAGIC);
}

/**
 * Narumi's sums with the (hi, lo) pair held in one double, for GPUs whose double adds run at half the float rate
 * (NarumiNonbondedData::narumiSumsInDouble): every small term is rounded onto the same 2^-25 grid, ties to even
 * (narumiGridRounded: two double adds), and a sum of such terms below 2^28 is a multiple of 2^-25 with at most 53
 * significant bits, so each double addition is exact.  The terms, the sums and therefore every bit of the result
 * are those of NarumiTermAccumulator, in five instructions per component of a pair where the split and the two
 * (hi, lo) pairs take eight.  The range is Narumi's too: a sum that reaches 2^20 at a tile's end (carry) is an
 * error, so partial sums stay below 2^21 and exact.  Large terms go the same 64-bit way as Narumi's.
 */
struct NarumiGridInDoubleAccumulator : NarumiGridSum<NarumiGridInDoubleAccumulator> {
    double small;

    __device__ void zero() {
        small = 0.0;
        large = 0;
        errors = 0;
    }
    __device__ void add(float y) {
        if (fabsf(y) < NARUMI_LARGE_TERM)
            small = __dadd_rn(small, narumiGridRounded(y));
        else
            large += narumiGridTerm(y, errors);
    }
    /** Narumi's range test: a NaN or a sum of 2^20 or more sets the range error. */
    __device__ static bool inRange(double value, int& errors) {
        bool inside = fabs(value) < Common::NARUMI_RANGE;
        if (!inside)
            errors |= NARUMI_ERROR_ACCUMULATOR_RANGE;
        return inside;
    }
    /** After every tile. */
    __device__ void carry() {
        inRange(small, errors);
    }
    /** A sum of grid terms in range is a multiple of 2^-25 below 2^20: in OpenMM's fixed point an exact integer. */
    __device__ static long long gridFixedPoint(double value, int& errors) {
        return inRange(value, errors) ? __double2ll_rn(value * 4294967296.0) : 0;
    }
    __device__ long long fixedPoint() {
        return gridFixedPoint(small, errors) + large;
    }

    /** A partner's sum over one tile: at most 32 terms below 2^15, so below 2^20 and exact. */
    using Partner = double;
    __device__ static Partner partnerZero() {
        return 0.0;
    }
    __device__ static void flushPartner(Partner first, Partner second, const NarumiGlobalSums& sums, int atom, int component, int& errors) {
        long long value = gridFixedPoint(__dadd_rn(first, second), errors);
        if (value != 0)
            addForceTerm(sums, atom, component, value);
    }
};

/** As Narumi's addVector: one range test per pair (a NaN component passes it, and carry() then reports it). */
__device__ inline void addVector(NarumiGridInDoubleAccumulator& x, NarumiGridInDoubleAccumulator& y, NarumiGridInDoubleAccumulator& z,
                                 float3 f) {
    if (narumiSmallVector(f)) {
        x.small = __dadd_rn(x.small, narumiGridRounded(f.x));
        y.small = __dadd_rn(y.small, narumiGridRounded(f.y));
        z.small = __dadd_rn(z.small, narumiGridRounded(f.z));
    }
    else
        addRoundedVector(x.large, y.large, z.large, x.errors, narumiGridVector(f));
}

/** As Narumi's addPairForce: each component rounded once, added to i's sum and subtracted from j's. */
__device__ inline void addPairForce(NarumiGridInDoubleAccumulator& x, NarumiGridInDoubleAccumulator& y, NarumiGridInDoubleAccumulator& z,
                                    PartnerXY<double>& pxy, double& pz, float3 f, bool small, const NarumiGlobalSums& sums,
                                    int partnerAtom, int& errors) {
    if (small) {
        double tx = narumiGridRounded(f.x), ty = narumiGridRounded(f.y), tz = narumiGridRounded(f.z);
        x.small = __dadd_rn(x.small, tx);
        y.small = __dadd_rn(y.small, ty);
        z.small = __dadd_rn(z.small, tz);
        PartnerXY<double> partnerXY = pxy;   // x and y in one shared-memory access each way
        partnerXY.x = __dsub_rn(partnerXY.x, tx);
        partnerXY.y = __dsub_rn(partnerXY.y, ty);
        pxy = partnerXY;
        pz = __dsub_rn(pz, tz);
    }
    else
        addRoundedPairForce(x.large, y.large, z.large, x.errors, narumiGridVector(f), sums, partnerAtom);
}

} // namespace OpenMMNarumi

#endif // NARUMI_TERM_ACCUMULATORS_CUH_
