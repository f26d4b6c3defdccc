#ifndef NARUMI_POTENTIAL_MAP_ACCUMULATORS_CUH_
#define NARUMI_POTENTIAL_MAP_ACCUMULATORS_CUH_

/**
 * Per-lattice-point accumulators of the map kernels and the two reciprocal square roots.
 *
 * A kernel sums the terms of each block of (at most) 32 atoms into a plain float partial, then hands the partial to
 * one of these accumulators: the per-term cost stays one FMA, and the rounding of long sums is confined to the
 * accumulator.  Terms are already in kJ/mol/e (charges are scaled by COULOMB_CONSTANT on the host), which puts
 * Narumi's fixed 2^-25 resolution at 3.0e-8 kJ/mol/e and its range at +-2^20 kJ/mol/e.
 */

#include "NarumiCommon/NarumiAccumulator.cuh"

namespace OpenMMNarumi::PotentialMap {

/** Atoms summed in float into a partial before the partial goes to the accumulator. */
constexpr int MAP_ATOM_BLOCK = 32;

/** Block partials added in float (the fastest, least accurate). */
struct FloatAccumulator {
    float sum;
    __device__ void init() { sum = 0.0f; }
    __device__ void add(float partial) { sum += partial; }
    __device__ void carry() {}
    __device__ float value() const { return sum; }
    __device__ bool outOfRange() const { return false; }
};

/** Block partials added with Knuth's TwoSum: the rounding error of every addition is kept and added at the end. */
struct CompensatedAccumulator {
    float sum, error;
    __device__ void init() { sum = 0.0f; error = 0.0f; }
    __device__ void add(float partial) {
        // The _rn intrinsics keep the compiler from contracting or reassociating the error-free transformation.
        float total = __fadd_rn(sum, partial);
        float partialPart = __fsub_rn(total, sum);
        float rounding = __fadd_rn(__fsub_rn(sum, __fsub_rn(total, partialPart)), __fsub_rn(partial, partialPart));
        sum = total;
        error = __fadd_rn(error, rounding);
    }
    __device__ void carry() {}
    __device__ float value() const { return __fadd_rn(sum, error); }
    __device__ bool outOfRange() const { return false; }
};

/** Block partials added to Narumi's float + int32 accumulator (common/'s NarumiAccumulator.cuh). */
struct NarumiMapAccumulator {
    Common::NarumiAccumulator sum;
    __device__ void init() { sum = Common::narumiZero(); }
    __device__ void add(float partial) { Common::narumiAdd(sum, partial); }
    /** The kernels call this every NARUMI_CARRY_INTERVAL additions, as narumiAdd requires. */
    __device__ void carry() { Common::narumiCarry(sum); }
    __device__ float value() const { return (float) Common::narumiToDouble(sum); }
    __device__ bool outOfRange() const { return Common::narumiOutOfRange(sum); }
};

/** The SFU's reciprocal square root, without the denormal fix-up rsqrtf adds (inputs are >= 1e-6 or guarded). */
__device__ __forceinline__ float sfuRsqrt(float x) {
    float y;
    asm("rsqrt.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x));
    return y;
}

/**
 * 1/sqrt(x) on the FMA pipe: Lomont's initial guess (one integer shift and subtract) and three Newton steps, whose
 * relative error 1.8e-3 -> 4.6e-6 -> 3e-11 ends at float rounding, as accurate as the SFU.  Used for some of a thread's
 * lattice points so that the FMA pipe takes load off the SFU, which otherwise caps direct summation.
 */
__device__ __forceinline__ float fmaRsqrt(float x) {
    float half = 0.5f * x;
    float y = __int_as_float(0x5f375a86 - (__float_as_int(x) >> 1));
    y = y * fmaf(-half, y * y, 1.5f);
    y = y * fmaf(-half, y * y, 1.5f);
    y = y * fmaf(-half, y * y, 1.5f);
    return y;
}

} // namespace OpenMMNarumi::PotentialMap

#endif // NARUMI_POTENTIAL_MAP_ACCUMULATORS_CUH_
