#ifndef NARUMI_PAIR_EXPRESSION_CUH_
#define NARUMI_PAIR_EXPRESSION_CUH_

/**
 * The float-pair accumulators that Narumi et al. 2008 compare their method with (section 2, Figures 1-6; Table 1's
 * methods C, D and E).  A sum is a "pair expression" (hi, lo) of two floats, value hi + lo:
 *
 *   C  Takahashi & Iitaka: Dekker's two-sum of hi and the term, the low parts added, then renormalized by a fast
 *      two-sum (Figure 4): ten operations, about 2^-44 relative accuracy whatever the terms;
 *   D  Nitadori: a fast two-sum of hi and the term, its residual added to lo (Figure 5): four operations, exact
 *      residuals only while |hi| >= |term| (the first condition), and lo's own rounding grows with the number of terms;
 *   E  modified Nitadori: D with hi starting at LARGE = 3 * 2^20 (Figure 6, LARGE_SHIFT 21), so that the first
 *      condition holds for every term below LARGE; the value is then (hi - LARGE) + lo.
 *
 * Narumi's own method F is NarumiAccumulator.cuh.  The _rn intrinsics keep nvcc from contracting or reordering the
 * error-free transformations.  Compile with nvcc.
 */

namespace OpenMMNarumi {

struct FloatPair {
    float hi, lo;
};

/** Knuth & Dekker's fast two-sum (Figure 1): hi + lo == x + y exactly when |x| >= |y|. */
__device__ inline FloatPair fastTwoSum(float x, float y) {
    float sum = __fadd_rn(x, y);
    float addedPart = __fsub_rn(sum, x);
    return FloatPair{sum, __fsub_rn(y, addedPart)};
}

/** Dekker's two-sum for any x and y (Figure 2): hi + lo == x + y exactly. */
__device__ inline FloatPair twoSum(float x, float y) {
    float sum = __fadd_rn(x, y);
    float addedPart = __fsub_rn(sum, x);
    float errorOfY = __fsub_rn(y, addedPart);
    float errorOfX = __fsub_rn(__fsub_rn(sum, addedPart), x);
    return FloatPair{sum, __fsub_rn(errorOfY, errorOfX)};
}

/** Method C, Takahashi & Iitaka's trick (Figures 3 and 4). */
__device__ inline FloatPair addTakahashiIitaka(FloatPair a, float y) {
    FloatPair z = twoSum(a.hi, y);
    return fastTwoSum(z.hi, __fadd_rn(a.lo, z.lo));
}

/** Methods D and E, Nitadori's trick (Figure 5). */
__device__ inline FloatPair addNitadori(FloatPair a, float y) {
    FloatPair b = fastTwoSum(a.hi, y);
    b.lo = __fadd_rn(a.lo, b.lo);
    return b;
}

enum class PairExpressionRule { TakahashiIitaka, Nitadori, ModifiedNitadori };

/** Where hi starts: LARGE (Figure 6) for the modified Nitadori trick, 0 otherwise. */
template <PairExpressionRule RULE>
__host__ __device__ constexpr float pairExpressionStart() {
    return RULE == PairExpressionRule::ModifiedNitadori ? (float) (3 << 20) : 0.0f;
}

template <PairExpressionRule RULE>
__device__ inline FloatPair pairExpressionZero() {
    return FloatPair{pairExpressionStart<RULE>(), 0.0f};
}

template <PairExpressionRule RULE>
__device__ inline FloatPair pairExpressionAdd(FloatPair a, float y) {
    return RULE == PairExpressionRule::TakahashiIitaka ? addTakahashiIitaka(a, y) : addNitadori(a, y);
}

/** The value in double, as the paper's Figure 6 reads it out: fd = hi - LARGE; fd += lo. */
template <PairExpressionRule RULE>
__host__ __device__ inline double pairExpressionValue(FloatPair a) {
    return ((double) a.hi - (double) pairExpressionStart<RULE>()) + (double) a.lo;
}

} // namespace OpenMMNarumi

#endif // NARUMI_PAIR_EXPRESSION_CUH_
