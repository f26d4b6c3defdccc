#ifndef NARUMI_COMMON_NARUMI_ACCUMULATOR_CUH_
#define NARUMI_COMMON_NARUMI_ACCUMULATOR_CUH_

/**
 * Narumi's quasi double-precision accumulator (Narumi et al. 2008, section 3.3, Figures 8 and 9).
 *
 * A sum is a float hi plus an int32 lo:   value = (hi - LARGE) + lo * 2^-LOW_FRACTION_BITS
 * hi never leaves the binade [2^LARGE_SHIFT, 2^(LARGE_SHIFT+1)), so its exponent is fixed and it holds a multiple
 * of HI_UNIT; lo counts units of 2^-25 and, after a carry, spans exactly one HI_UNIT.  The pair is therefore one
 * 46-bit fixed-point number: every term is rounded onto the same grid whatever the order, and the additions are
 * exact, so any order of summation gives bitwise the same result (after narumiCarry) and Newton's third law holds.
 *
 * Adding a float y (the paper's add_narumi): Knuth & Dekker's fast two-sum splits hi + y into the new hi (rounded
 * to a multiple of HI_UNIT) and the exact residual; the residual, rounded to nearest on the 2^-25 grid, goes into
 * lo.  Every CARRY_INTERVAL additions narumiCarry moves lo's top LOWER_SHIFT bits into hi: lo cannot overflow.
 * The paper converts the residual with an (int) cast; here adding a magic float puts it, rounded, into the low bits
 * of a float of fixed exponent, read back as an integer: one float add instead of a multiply and a conversion, the
 * latter a quarter-rate instruction on today's GPUs.  Net effect: a term y contributes exactly rint(y * 2^25) units
 * (round half to even), a function of y alone and odd in y.
 *
 * Units are those of the terms: kJ/mol/nm for the forces this is built for (the CUDA platform's pair kernels), kJ/mol/e
 * for the potential map engine's points.  Header only; compile with nvcc.
 */

#include <climits>
#include <cstring>

namespace OpenMMNarumi::Common {

// Why LARGE_SHIFT = 21 (the paper's value) suits forces in kJ/mol/nm:
// - range: every term and every partial sum must stay below 2^20 = 1.05e6 in magnitude;
// - total forces on protein atoms rarely exceed 1e4-1e5 and single pair terms are smaller: 10-100x headroom;
// - beyond that are only clashes (unminimized structures), and those set outOfRange rather than wrap;
// - resolution: each term is rounded to nearest on a 2^-25 = 3.0e-8 grid, under 1e-10 of a typical 1e3 force;
// - that is 2000x finer than a float's spacing at 1e3 (6.1e-5), the error of plain float accumulation;
// - each step up doubles the range and halves the resolution (OpenMM's own grid: 2^-32, range 2^31).
constexpr int NARUMI_LARGE_SHIFT = 21;
static_assert(NARUMI_LARGE_SHIFT > 0 && NARUMI_LARGE_SHIFT <= 23, "hi must hold a multiple of a power of two <= 1");

/** hi starts at 1.5 * 2^LARGE_SHIFT, the middle of its binade: the sum may go 2^(LARGE_SHIFT-1) either way. */
constexpr float NARUMI_LARGE = (float) (3 << (NARUMI_LARGE_SHIFT - 1));
/** Largest magnitude a partial sum may reach, 2^20 (the sum must stay inside [-2^20, 2^20)). */
constexpr double NARUMI_RANGE = (double) (1 << (NARUMI_LARGE_SHIFT - 1));
/** hi's spacing: a float in [2^21, 2^22) has 23 fraction bits, so it is a multiple of 2^(21-23) = 0.25. */
constexpr double NARUMI_HI_UNIT = 1.0 / (1 << (23 - NARUMI_LARGE_SHIFT));
/**
 * lo counts units of 2^-25.  A residual is at most HI_UNIT/2 = 2^(LARGE_SHIFT-24) in magnitude, and the magic
 * float below keeps it exact on a grid 2^-LOW_FRACTION_BITS only while that is at most 2^(22-LOW_FRACTION_BITS):
 * LOW_FRACTION_BITS = 46 - LARGE_SHIFT = 25 is the finest grid one float add can round to.
 */
constexpr int NARUMI_LOW_FRACTION_BITS = 46 - NARUMI_LARGE_SHIFT;
/** Leading bits of lo kept free to absorb residuals between carries (the paper's LOWER_SHIFT; 9 here, 7 there). */
constexpr int NARUMI_LOWER_SHIFT = 32 - (NARUMI_LOW_FRACTION_BITS - (23 - NARUMI_LARGE_SHIFT));
/** The value of one unit of lo, 2^-25 (2.98e-8; the paper's LOWER_FACTOR_1). */
constexpr double NARUMI_LOW_UNIT = 1.0 / (1LL << NARUMI_LOW_FRACTION_BITS);
/**
 * 1.5 * 2^-2: a float in its binade [2^-2, 2^-1) is a multiple of 2^-25, and residual + MAGIC stays in that binade
 * (its upper end 2^-1 included, where the bit pattern still counts on) for every |residual| <= 2^-3 = HI_UNIT/2.
 * Its bit pattern minus MAGIC's is then the residual in units of lo, rounded to nearest (ties to even: MAGIC is an
 * even number of units, so the tie rule is that of rint(residual * 2^25)).
 */
constexpr float NARUMI_RESIDUAL_MAGIC = 1.5f / (1 << (NARUMI_LOW_FRACTION_BITS - 23));
constexpr int NARUMI_RESIDUAL_MAGIC_BITS = (127 + 23 - NARUMI_LOW_FRACTION_BITS) << 23 | 1 << 22;
/** Bits of lo kept by a carry: 0 <= lo < 2^23 afterwards, which is exactly one HI_UNIT. */
constexpr int NARUMI_LOW_KEPT_BITS = 32 - NARUMI_LOWER_SHIFT;
constexpr int NARUMI_LOW_KEPT_MASK = (1 << NARUMI_LOW_KEPT_BITS) - 1;
/** Carry at least this often: a residual can be as large as HI_UNIT/2 = 2^22 units of lo, and a carried lo */
/** (below 2^23) plus 256 such terms stays below 2^30 + 2^23, far from INT_MAX. */
constexpr int NARUMI_CARRY_INTERVAL = 1 << (NARUMI_LOWER_SHIFT - 1);
/** Sign and biased exponent bits (bits 31..23) of every float in hi's binade [2^21, 2^22). */
constexpr unsigned int NARUMI_HI_SIGN_EXPONENT = 127 + NARUMI_LARGE_SHIFT;
/** OpenMM's force buffer counts 2^-32; one unit of lo is 2^(32-25) = 128 of them, so conversion is a shift. */
constexpr int NARUMI_FIXED_POINT_SHIFT = 32 - NARUMI_LOW_FRACTION_BITS;

static_assert((1LL << NARUMI_LOW_KEPT_BITS) * NARUMI_LOW_UNIT == NARUMI_HI_UNIT, "lo after a carry spans one HI_UNIT");
static_assert(NARUMI_HI_UNIT / 2 <= NARUMI_RESIDUAL_MAGIC / 3, "residual + MAGIC stays in MAGIC's binade");
static_assert((1LL << NARUMI_LOW_KEPT_BITS) - 1 + (long long) NARUMI_CARRY_INTERVAL * (1LL << (NARUMI_LOW_KEPT_BITS - 1)) <= INT_MAX,
              "lo cannot overflow between carries");
static_assert(NARUMI_FIXED_POINT_SHIFT >= 0, "the Narumi grid must be a subset of OpenMM's 2^-32 grid");

struct NarumiAccumulator {
    float hi;                   // NARUMI_LARGE plus a multiple of NARUMI_HI_UNIT
    int lo;                     // units of NARUMI_LOW_UNIT
    unsigned int outOfRange;    // nonzero once hi has left its binade (sticky): the value is then meaningless
};

/** hi's sign and exponent bits differ from its binade's; 0 while in range (NaN, infinity and negative included). */
__device__ inline unsigned int narumiExponentError(float hi) {
    return (__float_as_uint(hi) >> 23) ^ NARUMI_HI_SIGN_EXPONENT;
}

__host__ __device__ inline NarumiAccumulator narumiZero() {
    return NarumiAccumulator{NARUMI_LARGE, 0, 0u};
}

/** The bit pattern of residual + MAGIC: the residual rounded to nearest on lo's grid, in units of lo, plus MAGIC_BITS. */
__device__ inline int narumiResidualBits(float residual) {
    return __float_as_int(__fadd_rn(residual, NARUMI_RESIDUAL_MAGIC));
}

/** The residual of a fast two-sum, rounded to nearest on lo's grid, in units of lo (exact integer arithmetic). */
__device__ inline int narumiResidualUnits(float residual) {
    return narumiResidualBits(residual) - NARUMI_RESIDUAL_MAGIC_BITS;
}

/** The paper's add_narumi.  Precondition: at most NARUMI_CARRY_INTERVAL calls since the last narumiCarry. */
__device__ inline void narumiAdd(NarumiAccumulator& a, float y) {
    // Fast two-sum (Figure 1) is exact because |hi| >= 2^21 > |y| for every y that keeps hi in its binade.
    // The _rn intrinsics keep the compiler from contracting or reordering these operations.
    float sum = __fadd_rn(a.hi, y);
    float residual = __fsub_rn(y, __fsub_rn(sum, a.hi));
    a.hi = sum;
    a.lo += narumiResidualUnits(residual);
    a.outOfRange |= narumiExponentError(sum);
}

/**
 * narumiAdd without its per-addition range check, for pair loops that call narumiCarry (which checks hi) after
 * every few terms: a partial sum that leaves the range and stays out is still reported.  One that leaves and
 * returns between two carries (|partial sum| >= 2^20 kJ/mol/nm mid-tile, i.e. a blown-up system) would only shift
 * the rounding grid of those few terms by one binade; the saving is three integer instructions per term.
 */
__device__ inline void narumiAddUnchecked(float& hi, int& lo, float y) {
    float sum = __fadd_rn(hi, y);
    float residual = __fsub_rn(y, __fsub_rn(sum, hi));
    hi = sum;
    lo += narumiResidualUnits(residual);
}

__device__ inline void narumiAddUnchecked(NarumiAccumulator& a, float y) {
    narumiAddUnchecked(a.hi, a.lo, y);
}

/**
 * A term split once for both atoms of a pair (Newton's third law): hiPart is y rounded to hi's grid (a multiple of
 * HI_UNIT), and the rest, rounded to nearest in units of lo, is loBits - NARUMI_RESIDUAL_MAGIC_BITS (loBits:
 * narumiResidualBits of the residual).  Adding the split term to one pair and
 * subtracting it from another contributes +-rint(y * 2^25) units to each (hiPart is a whole number of units, the
 * residual exact), exactly what narumiAdd contributes; after narumiCarry the bits are narumiAdd's too.  hi's additions
 * are exact: multiples of HI_UNIT inside hi's binade.  Three float adds per term serve both atoms.  Precondition:
 * |y| < 2^20.
 */
struct NarumiSplitTerm {
    float hiPart;
    int loBits;
};

__device__ inline NarumiSplitTerm narumiSplit(float y) {
    float shifted = __fadd_rn(y, NARUMI_LARGE);        // y rounded onto hi's grid, read off a float of hi's binade
    float hiPart = __fsub_rn(shifted, NARUMI_LARGE);    // exact
    float residual = __fsub_rn(y, hiPart);              // exact, |residual| <= HI_UNIT/2
    return NarumiSplitTerm{hiPart, narumiResidualBits(residual)};
}

/**
 * (hi, lo) += term, or -= term: exact while the sum stays in range (checked by narumiCarry).  The magic bits are
 * taken off in the same expression, which ptxas turns into one three-operand add per sum (6 instructions fewer per two
 * steps of the pair loop than subtracting them once in narumiSplit); no intermediate leaves int32 (lo stays within
 * +-(2^30 + 2^23) between carries, loBits below 2^30).
 */
__device__ inline void narumiAddSplit(float& hi, int& lo, NarumiSplitTerm term) {
    hi = __fadd_rn(hi, term.hiPart);
    lo = lo + term.loBits - NARUMI_RESIDUAL_MAGIC_BITS;
}

__device__ inline void narumiSubtractSplit(float& hi, int& lo, NarumiSplitTerm term) {
    hi = __fsub_rn(hi, term.hiPart);
    lo = lo - term.loBits + NARUMI_RESIDUAL_MAGIC_BITS;
}

/**
 * Normalize: move lo's top LOWER_SHIFT bits (a signed multiple of HI_UNIT) into hi, leaving 0 <= lo < 2^23
 * (Figure 8, lines 46-49).  Exact; afterwards (hi, lo) is the unique representation of the value.
 */
__device__ inline void narumiCarry(NarumiAccumulator& a) {
    int carried = a.lo & ~NARUMI_LOW_KEPT_MASK;  // two's complement: negative lo carries a negative amount
    a.hi = __fadd_rn(a.hi, __fmul_rn((float) carried, (float) NARUMI_LOW_UNIT));
    a.lo &= NARUMI_LOW_KEPT_MASK;
    a.outOfRange |= narumiExponentError(a.hi);
}

__host__ __device__ inline bool narumiOutOfRange(const NarumiAccumulator& a) {
    return a.outOfRange != 0;
}

/** The value in double: exact (hi - LARGE needs 22 bits, lo 32, their sum fewer than 53).  Any lo, carried or not. */
__host__ __device__ inline double narumiToDouble(const NarumiAccumulator& a) {
    return ((double) a.hi - (double) NARUMI_LARGE) + (double) a.lo * NARUMI_LOW_UNIT;
}

/**
 * The value in OpenMM's 64-bit fixed point (scale 2^32, i.e. (long long) (x * 0x100000000)): exact, since the
 * Narumi grid 2^-25 is part of OpenMM's 2^-32 grid and |value| < 2^20 fits easily.  Check narumiOutOfRange first.
 */
__host__ __device__ inline long long narumiToFixedPoint(const NarumiAccumulator& a) {
    long long hiUnits = (long long) (((double) a.hi - (double) NARUMI_LARGE) * (double) (1LL << NARUMI_LOW_FRACTION_BITS));
    return (hiUnits + (long long) a.lo) * (1LL << NARUMI_FIXED_POINT_SHIFT);
}

/**
 * The value of (hi, lo) in units of lo, by integer arithmetic alone: hi = 2^21 (1 + m 2^-23) with m its 23 fraction
 * bits, so hi - LARGE = (m - 2^22) HI_UNIT, and one HI_UNIT is 2^23 units of lo.  Only for hi inside its binade.
 */
__host__ __device__ inline long long narumiUnitsInBinade(float hi, int lo) {
#ifdef __CUDA_ARCH__
    unsigned int bits = __float_as_uint(hi);
#else
    unsigned int bits;
    std::memcpy(&bits, &hi, sizeof(bits));
#endif
    long long fraction = bits & ((1u << 23) - 1);
    return ((fraction - (1LL << 22)) << NARUMI_LOW_KEPT_BITS) + lo;
}

} // namespace OpenMMNarumi::Common

#endif // NARUMI_COMMON_NARUMI_ACCUMULATOR_CUH_
