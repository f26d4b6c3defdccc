#ifndef NARUMI_PAIR_INTERACTION_CUH_
#define NARUMI_PAIR_INTERACTION_CUH_

/**
 * The single-precision pair interaction shared by the all-pairs tile kernel and the exclusion kernel.
 *
 * "Exclude afterwards" is exact only if the exclusion kernel reproduces, bit for bit, the force the tile kernel
 * added for an excluded pair.  Both kernels therefore call these functions on the same float inputs, and every
 * operation is an explicit round-to-nearest intrinsic (__fmul_rn, __fadd_rn, __fmaf_rn): nvcc may not contract or
 * reorder them, so the result cannot depend on where the function was inlined.  Every input enters symmetrically
 * (q'_i q'_j, sigma_i/2 + sigma_j/2, products of 2 sqrt(eps)), so the force on j is exactly minus the force on i.
 */

#include "NarumiNonbondedTypes.h"

namespace NarumiPlugin {

/** Minimum-image displacement; rintf is odd, so the displacement of (j, i) is exactly minus that of (i, j). */
__device__ inline float3 narumiMinimumImage(float3 delta, const NarumiBox& box) {
    if (box.triclinic) {
        float nz = rintf(__fmul_rn(delta.z, box.invSize.z));
        delta.x = __fmaf_rn(-nz, box.vecZ.x, delta.x);
        delta.y = __fmaf_rn(-nz, box.vecZ.y, delta.y);
        delta.z = __fmaf_rn(-nz, box.vecZ.z, delta.z);
        float ny = rintf(__fmul_rn(delta.y, box.invSize.y));
        delta.x = __fmaf_rn(-ny, box.vecY.x, delta.x);
        delta.y = __fmaf_rn(-ny, box.vecY.y, delta.y);
        float nx = rintf(__fmul_rn(delta.x, box.invSize.x));
        delta.x = __fmaf_rn(-nx, box.vecX.x, delta.x);
    }
    else {
        delta.x = __fmaf_rn(-rintf(__fmul_rn(delta.x, box.invSize.x)), box.size.x, delta.x);
        delta.y = __fmaf_rn(-rintf(__fmul_rn(delta.y, box.invSize.y)), box.size.y, delta.y);
        delta.z = __fmaf_rn(-rintf(__fmul_rn(delta.z, box.invSize.z)), box.size.z, delta.z);
    }
    return delta;
}

/** Displacement from atom i to atom j, with the minimum image when the box is periodic. */
__device__ inline float3 narumiDisplacement(float4 positionI, float4 positionJ, const NarumiBox& box) {
    float3 delta = make_float3(__fsub_rn(positionJ.x, positionI.x), __fsub_rn(positionJ.y, positionI.y),
                               __fsub_rn(positionJ.z, positionI.z));
    return box.periodic ? narumiMinimumImage(delta, box) : delta;
}

__device__ inline float narumiSquaredLength(float3 delta) {
    return __fmaf_rn(delta.z, delta.z, __fmaf_rn(delta.y, delta.y, __fmul_rn(delta.x, delta.x)));
}

/**
 * 1/sqrt(x) by the hardware approximation alone.  rsqrtf adds a rescaling for subnormal x, which a squared pair
 * distance never is; for every normal x the two give the same bits.
 */
__device__ inline float narumiRsqrt(float x) {
    float result;
    asm("rsqrt.approx.ftz.f32 %0, %1;" : "=f"(result) : "f"(x));
    return result;
}

/** 4 eps ((sigma/r)^6 - 1) (sigma/r)^6 and its (dE/dr)/r; eps4 = 4 eps. */
__device__ inline float narumiLennardJones(float invR2, float sigma, float eps4, float& dEdrOverR) {
    float sigma2 = __fmul_rn(__fmul_rn(sigma, sigma), invR2);
    float sigma6 = __fmul_rn(__fmul_rn(sigma2, sigma2), sigma2);
    float eps4Sigma6 = __fmul_rn(eps4, sigma6);
    // dE/dr / r = 4 eps (6 s6 - 12 s12) / r^2
    dEdrOverR = __fmul_rn(__fmul_rn(eps4Sigma6, __fmaf_rn(-12.0f, sigma6, 6.0f)), invR2);
    return __fmul_rn(eps4Sigma6, __fsub_rn(sigma6, 1.0f));
}

/**
 * Energy of a non-excluded pair at squared distance r2 < cutoff2 and its (dE/dr)/r, so that the force on i is
 * (dE/dr)/r * (r_j - r_i).  kq = k q_i q_j, sigma = (sigma_i + sigma_j)/2, eps4 = 4 sqrt(eps_i eps_j).
 */
template <int COULOMB = NARUMI_COULOMB_ANY, int SWITCH = NARUMI_SWITCH_ANY>
__device__ inline float narumiPairEnergy(const NarumiPairConstants& c, float r2, float kq, float sigma, float eps4,
                                         float& dEdrOverR) {
    // COULOMB and SWITCH fix the form at compile time (the same operations either way, so the same bits).
    const int coulombKind = (COULOMB == NARUMI_COULOMB_ANY ? c.coulombKind : COULOMB);
    const bool useSwitch = (SWITCH == NARUMI_SWITCH_ANY ? c.useSwitch != 0 : SWITCH != 0);
    float invR = narumiRsqrt(r2);
    float invR2 = __fmul_rn(invR, invR);
    float energy = 0.0f;
    dEdrOverR = 0.0f;
    if (coulombKind == NARUMI_COULOMB_PLAIN) {
        energy = __fmul_rn(kq, invR);
        dEdrOverR = -__fmul_rn(energy, invR2);
    }
    else if (coulombKind == NARUMI_COULOMB_REACTION_FIELD) {
        energy = __fmul_rn(kq, __fsub_rn(__fmaf_rn(c.krf, r2, invR), c.crf));
        dEdrOverR = __fmul_rn(kq, __fmaf_rn(-invR, invR2, c.twoKrf));
    }
    else if (coulombKind == NARUMI_COULOMB_SHIFTED) {
        float oneMinusX = __fmaf_rn(-r2, c.invCutoff2, 1.0f);
        float kqOverR = __fmul_rn(kq, invR);
        energy = __fmul_rn(__fmul_rn(kqOverR, oneMinusX), oneMinusX);
        // d/dr [kq/r (1-x)^2] / r = -kq (1-x)^2 / r^3 - 4 kq (1-x) / (rc^2 r)
        dEdrOverR = -__fmaf_rn(energy, invR2, __fmul_rn(__fmul_rn(4.0f, kqOverR), __fmul_rn(oneMinusX, c.invCutoff2)));
    }
    // No branch on eps4: for eps4 = 0 the terms are exactly 0, and a branch here costs the pair loop more than the
    // Lennard-Jones arithmetic of the lanes that do not need it.
    {
        float ljDerivative;
        float lj = narumiLennardJones(invR2, sigma, eps4, ljDerivative);
        float r = useSwitch ? __fmul_rn(r2, invR) : 0.0f;
        if (useSwitch && r > c.switchDistance) {
            // OpenMM's switching polynomial S(t) = 1 - 10 t^3 + 15 t^4 - 6 t^5 on t = (r - rs)/(rc - rs).
            float t = __fmul_rn(__fsub_rn(r, c.switchDistance), c.invSwitchWidth);
            float t2 = __fmul_rn(t, t);
            float switchValue = __fmaf_rn(__fmul_rn(t2, t), __fmaf_rn(t, __fmaf_rn(-6.0f, t, 15.0f), -10.0f), 1.0f);
            float switchDerivative = __fmul_rn(__fmul_rn(t2, __fmaf_rn(t, __fmaf_rn(-30.0f, t, 60.0f), -30.0f)), c.invSwitchWidth);
            ljDerivative = __fmaf_rn(ljDerivative, switchValue, __fmul_rn(__fmul_rn(lj, switchDerivative), invR));
            lj = __fmul_rn(lj, switchValue);
        }
        energy = __fadd_rn(energy, lj);
        dEdrOverR = __fadd_rn(dEdrOverR, ljDerivative);
    }
    return energy;
}

/** An exception (1-4 pair): plain Coulomb with its own charge product plus Lennard-Jones, no cutoff, no switch. */
__device__ inline float narumiExceptionEnergy(float r2, float kq, float sigma, float eps4, float& dEdrOverR) {
    float invR = narumiRsqrt(r2);
    float invR2 = __fmul_rn(invR, invR);
    float energy = __fmul_rn(kq, invR);
    dEdrOverR = -__fmul_rn(energy, invR2);
    if (eps4 != 0.0f) {
        float ljDerivative;
        energy = __fadd_rn(energy, narumiLennardJones(invR2, sigma, eps4, ljDerivative));
        dEdrOverR = __fadd_rn(dEdrOverR, ljDerivative);
    }
    return energy;
}

} // namespace NarumiPlugin

#endif // NARUMI_PAIR_INTERACTION_CUH_
