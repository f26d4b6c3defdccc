#ifndef NARUMI_PAIR_INTERACTION_CUH_
#define NARUMI_PAIR_INTERACTION_CUH_

/**
 * The pair interaction shared by the all-pairs tile kernel and the exclusion kernel, in float (single and mixed
 * precision) or double (double precision, for the methods whose sums hold double terms).
 *
 * "Exclude afterwards" is exact only if the exclusion kernel reproduces, bit for bit, the force the tile kernel
 * added for an excluded pair.  Both kernels therefore call these functions on the same inputs, and every operation
 * is an explicit round-to-nearest intrinsic (__fmul_rn, __dmul_rn, ...): nvcc may not contract or reorder them, so
 * the result cannot depend on where the function was inlined.  Every input enters symmetrically (q'_i q'_j,
 * sigma_i/2 + sigma_j/2, products of 2 sqrt(eps)), so the force on j is exactly minus the force on i.
 */

#include "NarumiNonbondedTypes.h"

namespace OpenMMNarumi {

// ---- round-to-nearest arithmetic in either precision ------------------------------------------------------------

__device__ inline float narumiMul(float a, float b) { return __fmul_rn(a, b); }
__device__ inline double narumiMul(double a, double b) { return __dmul_rn(a, b); }
__device__ inline float narumiAdd(float a, float b) { return __fadd_rn(a, b); }
__device__ inline double narumiAdd(double a, double b) { return __dadd_rn(a, b); }
__device__ inline float narumiSub(float a, float b) { return __fsub_rn(a, b); }
__device__ inline double narumiSub(double a, double b) { return __dsub_rn(a, b); }
__device__ inline float narumiFma(float a, float b, float c) { return __fmaf_rn(a, b, c); }
__device__ inline double narumiFma(double a, double b, double c) { return __fma_rn(a, b, c); }
__device__ inline float narumiRint(float a) { return rintf(a); }
__device__ inline double narumiRint(double a) { return rint(a); }

/**
 * 1/sqrt(x), a function of x alone.  Float: the hardware approximation alone (rsqrtf adds a rescaling for subnormal x,
 * which a squared pair distance never is; for every normal x the two give the same bits).  Double: PTX's approximation
 * (MUFU's estimate with a third-order correction, in ptxas's SASS) and one Newton step, which leaves only rounding
 * error; OpenMM's double kernels take rsqrt too, where a correctly rounded square root and reciprocal cost twice as much.
 */
__device__ inline float narumiRsqrt(float x) {
    float result;
    asm("rsqrt.approx.ftz.f32 %0, %1;" : "=f"(result) : "f"(x));
    return result;
}
__device__ inline double narumiRsqrt(double x) {
    double y;
    asm("rsqrt.approx.f64 %0, %1;" : "=d"(y) : "d"(x));
    double error = __fma_rn(-__dmul_rn(x, y), y, 1.0);  // 1 - x y^2
    return __fma_rn(__dmul_rn(0.5, y), error, y);
}

// ---- displacements ----------------------------------------------------------------------------------------------

/** The periodic box in the precision of the pairs (OpenMM's reduced form: a along x, b in the xy plane). */
template <class Real>
struct NarumiLattice {
    typename NarumiVectors<Real>::V3 size, invSize, vecX, vecY, vecZ;
    int triclinic;
};

__device__ inline NarumiLattice<float> narumiLattice(const NarumiBox& box, float) {
    return {box.size, box.invSize, box.vecX, box.vecY, box.vecZ, box.triclinic};
}
__device__ inline NarumiLattice<double> narumiLattice(const NarumiBox& box, double) {
    return {box.sizeDouble, box.invSizeDouble, box.vecXDouble, box.vecYDouble, box.vecZDouble, box.triclinic};
}

/** Minimum-image displacement; rint is odd, so the displacement of (j, i) is exactly minus that of (i, j). */
template <class V3, class Real>
__device__ inline V3 narumiMinimumImage(V3 delta, const NarumiLattice<Real>& box) {
    if (box.triclinic) {
        Real nz = narumiRint(narumiMul(delta.z, box.invSize.z));
        delta.x = narumiFma(-nz, box.vecZ.x, delta.x);
        delta.y = narumiFma(-nz, box.vecZ.y, delta.y);
        delta.z = narumiFma(-nz, box.vecZ.z, delta.z);
        Real ny = narumiRint(narumiMul(delta.y, box.invSize.y));
        delta.x = narumiFma(-ny, box.vecY.x, delta.x);
        delta.y = narumiFma(-ny, box.vecY.y, delta.y);
        Real nx = narumiRint(narumiMul(delta.x, box.invSize.x));
        delta.x = narumiFma(-nx, box.vecX.x, delta.x);
    }
    else {
        delta.x = narumiFma(-narumiRint(narumiMul(delta.x, box.invSize.x)), box.size.x, delta.x);
        delta.y = narumiFma(-narumiRint(narumiMul(delta.y, box.invSize.y)), box.size.y, delta.y);
        delta.z = narumiFma(-narumiRint(narumiMul(delta.z, box.invSize.z)), box.size.z, delta.z);
    }
    return delta;
}

/** The float minimum image of the search and of float pairs. */
__device__ inline float3 narumiMinimumImage(float3 delta, const NarumiBox& box) {
    return narumiMinimumImage(delta, narumiLattice(box, 0.0f));
}

/** r_j - r_i of two staged positions (x, y, z, charge), exactly antisymmetric in i and j. */
template <class V4>
__device__ inline auto narumiDifference(V4 positionI, V4 positionJ) {
    using V3 = typename NarumiVectors<decltype(positionI.x)>::V3;
    return V3{narumiSub(positionJ.x, positionI.x), narumiSub(positionJ.y, positionI.y), narumiSub(positionJ.z, positionI.z)};
}

/** Displacement from atom i to atom j, with the minimum image when the box is periodic. */
template <class V4>
__device__ inline auto narumiDisplacement(V4 positionI, V4 positionJ, const NarumiBox& box) {
    auto delta = narumiDifference(positionI, positionJ);
    using Real = decltype(positionI.x);
    return box.periodic ? narumiMinimumImage(delta, narumiLattice(box, Real())) : delta;
}

template <class V3>
__device__ inline auto narumiSquaredLength(V3 delta) {
    return narumiFma(delta.z, delta.z, narumiFma(delta.y, delta.y, narumiMul(delta.x, delta.x)));
}

// ---- the pair potential -----------------------------------------------------------------------------------------

/** A pair's Lennard-Jones from the particles' own parameters: sigma = sigma_i/2 + sigma_j/2, eps4 = 4 sqrt(eps_i eps_j). */
template <class Real>
struct NarumiCombinedLennardJones {
    Real sigma, eps4;
};
/** A pair's Lennard-Jones C6 and C12 (the type table's entry of the pair's classes). */
template <class Real>
struct NarumiTableLennardJones {
    Real c6, c12;
};

/** 4 eps ((sigma/r)^6 - 1) (sigma/r)^6 and its (dE/dr)/r; eps4 = 4 eps. */
template <class Real>
__device__ inline Real narumiLennardJones(Real invR2, NarumiCombinedLennardJones<Real> p, Real& dEdrOverR) {
    Real sigma2 = narumiMul(narumiMul(p.sigma, p.sigma), invR2);
    Real sigma6 = narumiMul(narumiMul(sigma2, sigma2), sigma2);
    Real eps4Sigma6 = narumiMul(p.eps4, sigma6);
    // dE/dr / r = 4 eps (6 s6 - 12 s12) / r^2
    dEdrOverR = narumiMul(narumiMul(eps4Sigma6, narumiFma(Real(-12), sigma6, Real(6))), invR2);
    return narumiMul(eps4Sigma6, narumiSub(sigma6, Real(1)));
}

/** (C12/r^6 - C6)/r^6 and its (dE/dr)/r. */
template <class Real>
__device__ inline Real narumiLennardJones(Real invR2, NarumiTableLennardJones<Real> p, Real& dEdrOverR) {
    Real invR6 = narumiMul(narumiMul(invR2, invR2), invR2);
    Real repulsion = narumiMul(narumiMul(p.c12, invR6), invR6);
    Real dispersion = narumiMul(p.c6, invR6);
    // dE/dr / r = (6 C6/r^6 - 12 C12/r^12) / r^2
    dEdrOverR = narumiMul(narumiFma(Real(-12), repulsion, narumiMul(Real(6), dispersion)), invR2);
    return narumiSub(repulsion, dispersion);
}

/**
 * Energy of a non-excluded pair at squared distance r2 < cutoff2 and its (dE/dr)/r, so that the force on i is
 * (dE/dr)/r * (r_j - r_i).  kq = k q_i q_j / eps_r; ljParameters: NarumiCombinedLennardJones or NarumiTableLennardJones.
 */
template <int COULOMB = NARUMI_COULOMB_ANY, int SWITCH = NARUMI_SWITCH_ANY, class Real, class LennardJonesParameters>
__device__ inline Real narumiPairEnergy(const NarumiPairConstantsOf<Real>& c, Real r2, Real kq, LennardJonesParameters ljParameters,
                                        Real& dEdrOverR) {
    // COULOMB and SWITCH fix the form at compile time (the same operations either way, so the same bits).
    const int coulombKind = (COULOMB == NARUMI_COULOMB_ANY ? c.coulombKind : COULOMB);
    const bool useSwitch = (SWITCH == NARUMI_SWITCH_ANY ? c.useSwitch != 0 : SWITCH != 0);
    Real invR = narumiRsqrt(r2);
    Real invR2 = narumiMul(invR, invR);
    Real energy = Real(0);
    dEdrOverR = Real(0);
    if (coulombKind == NARUMI_COULOMB_PLAIN) {
        energy = narumiMul(kq, invR);
        dEdrOverR = -narumiMul(energy, invR2);
    }
    else if (coulombKind == NARUMI_COULOMB_REACTION_FIELD) {
        energy = narumiMul(kq, narumiSub(narumiFma(c.krf, r2, invR), c.crf));
        dEdrOverR = narumiMul(kq, narumiFma(-invR, invR2, c.twoKrf));
    }
    else if (coulombKind == NARUMI_COULOMB_SHIFTED) {
        Real oneMinusX = narumiFma(-r2, c.invCutoff2, Real(1));
        Real kqOverR = narumiMul(kq, invR);
        energy = narumiMul(narumiMul(kqOverR, oneMinusX), oneMinusX);
        // d/dr [kq/r (1-x)^2] / r = -kq (1-x)^2 / r^3 - 4 kq (1-x) / (rc^2 r)
        dEdrOverR = -narumiFma(energy, invR2, narumiMul(narumiMul(Real(4), kqOverR), narumiMul(oneMinusX, c.invCutoff2)));
    }
    // No branch on eps4: for eps4 = 0 the terms are exactly 0, and a branch here costs the pair loop more than the
    // Lennard-Jones arithmetic of the lanes that do not need it.
    {
        Real ljDerivative;
        Real lj = narumiLennardJones(invR2, ljParameters, ljDerivative);
        Real r = useSwitch ? narumiMul(r2, invR) : Real(0);
        if (useSwitch && r > c.switchDistance) {
            // OpenMM's switching polynomial S(t) = 1 - 10 t^3 + 15 t^4 - 6 t^5 on t = (r - rs)/(rc - rs).
            Real t = narumiMul(narumiSub(r, c.switchDistance), c.invSwitchWidth);
            Real t2 = narumiMul(t, t);
            Real switchValue = narumiFma(narumiMul(t2, t), narumiFma(t, narumiFma(Real(-6), t, Real(15)), Real(-10)), Real(1));
            Real switchDerivative = narumiMul(narumiMul(t2, narumiFma(t, narumiFma(Real(-30), t, Real(60)), Real(-30))), c.invSwitchWidth);
            ljDerivative = narumiFma(ljDerivative, switchValue, narumiMul(narumiMul(lj, switchDerivative), invR));
            lj = narumiMul(lj, switchValue);
        }
        // Energy only: kernels that need no energy drop this arithmetic with the energy.
        if (c.shiftLennardJones) {
            Real unused;
            lj = narumiSub(lj, narumiLennardJones(c.invCutoff2, ljParameters, unused));
        }
        energy = narumiAdd(energy, lj);
        dEdrOverR = narumiAdd(dEdrOverR, ljDerivative);
    }
    return energy;
}

/** An exception (1-4 pair): plain Coulomb with its own charge product plus Lennard-Jones, no cutoff, no switch. */
template <class Real>
__device__ inline Real narumiExceptionEnergy(Real r2, Real kq, Real sigma, Real eps4, Real& dEdrOverR) {
    Real invR = narumiRsqrt(r2);
    Real invR2 = narumiMul(invR, invR);
    Real energy = narumiMul(kq, invR);
    dEdrOverR = -narumiMul(energy, invR2);
    if (eps4 != Real(0)) {
        Real ljDerivative;
        energy = narumiAdd(energy, narumiLennardJones(invR2, NarumiCombinedLennardJones<Real>{sigma, eps4}, ljDerivative));
        dEdrOverR = narumiAdd(dEdrOverR, ljDerivative);
    }
    return energy;
}

/** GROMACS's reaction-field term of an exception pair within the cutoff: kq (krf r^2 - crf), from the atoms' charges. */
template <class Real>
__device__ inline Real narumiExcludedChargeEnergy(const NarumiPairConstantsOf<Real>& c, Real r2, Real kq, Real& dEdrOverR) {
    dEdrOverR = narumiMul(kq, c.twoKrf);
    return narumiMul(kq, narumiSub(narumiMul(c.krf, r2), c.crf));
}

/**
 * Whether a pair's force is huge (|F| >= 2^30 kJ/mol/nm) or not finite, a function of the pair's bits alone.  An
 * excluded pair that sits far closer than any interacting one (a virtual site on its parent, a collapsed constraint, a
 * Drude-like pair at one point) can have terms beyond OpenMM's fixed point, or infinite ones, which no subtraction can
 * cancel: computeTiles leaves every huge pair out and counts it, correctExceptions takes the exception pairs among them
 * off the count, and a count left over is a pair that really interacts at such a force, an error.
 */
template <class Real>
__device__ inline bool narumiHugePair(Real dEdrOverR, Real r2) {
    return !(narumiMul(narumiMul(dEdrOverR, dEdrOverR), r2) < Real(NARUMI_HUGE_FORCE_SQUARED));
}

} // namespace OpenMMNarumi

#endif // NARUMI_PAIR_INTERACTION_CUH_
