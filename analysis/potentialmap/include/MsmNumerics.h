#ifndef NARUMI_POTENTIAL_MAP_MSM_NUMERICS_H_
#define NARUMI_POTENTIAL_MAP_MSM_NUMERICS_H_

/**
 * The numerics of multilevel summation (Hardy, Stone & Schulten, Parallel Computing 35, 164 (2009)), shared by the
 * MSM backends, as fixed by the NumPy prototype of studies/msm/:
 *
 *   1/r = [1/r - g_a(r)] + sum_l [g_{2^l a}(r) - g_{2^(l+1) a}(r)] + g_{2^L a}(r),   g_s(r) = gamma(r / s) / s
 *
 * with a Taylor smoothing gamma (the C2 one: 15/8 - 5/4 rho^2 + 3/8 rho^4 for rho <= 1, 1/rho beyond).  The first
 * bracket is short-ranged (zero beyond a) and summed exactly; level l's bracket is smooth and zero beyond 2^(l+1) a,
 * and lives on a lattice of spacing 2^l h with an interpolation basis phi; the top level's g is summed over all its
 * points.  Scaling: level l's kernel at lattice offset n is 2^-l times level 0's at the same offset, so one
 * stencil of weights serves every level.
 */

#include <array>
#include <cmath>

#ifdef __CUDACC__
#define MSM_HOST_DEVICE __host__ __device__
#else
#define MSM_HOST_DEVICE
#endif

namespace OpenMMNarumi::PotentialMap::Msm {

/**
 * The two schemes, named by the degree of their interpolation basis: 3, the C1 cubic basis (Catmull-Rom, support
 * [-2, 2]) with the C2 Taylor smoothing; 5, a C2 quintic basis (quintic Hermite pieces whose node derivatives are the
 * fourth-order central differences, support [-3, 3], exact for polynomials up to degree 4) with the C3 Taylor
 * smoothing.  The stencil of a point has order + 1 lattice points along each axis.
 */
constexpr int MSM_CUBIC = 3, MSM_QUINTIC = 5;

/** Taylor smoothing of 1/rho about rho = 1 in u = rho^2 - 1, C2 (cubic scheme) or C3 (quintic scheme). */
MSM_HOST_DEVICE inline double gamma(double rho, int order) {
    if (rho >= 1.0)
        return 1.0 / rho;
    double u = rho * rho - 1.0;
    double c2 = 1.0 - u * (0.5 - u * (3.0 / 8.0));
    return order == MSM_QUINTIC ? c2 - (5.0 / 16.0) * u * u * u : c2;
}

/** The smoothed kernel g_s(r) = gamma(r / s) / s. */
MSM_HOST_DEVICE inline double smoothed(double r, double s, int order) {
    return gamma(r / s, order) / s;
}

/** The short-range kernel 1/r - g_a(r) for r < a (0 beyond); at a coincident point (r below the map's coincidence
 *  radius, where the direct sum skips the atom) only -g_a(r), so that the smooth levels' share of it cancels. */
MSM_HOST_DEVICE inline double shortRange(double r, double a, double coincidenceRadius, int order) {
    if (r >= a)
        return 0.0;
    double smooth = smoothed(r, a, order);
    return r >= coincidenceRadius ? 1.0 / r - smooth : -smooth;
}

/** The interpolation basis of the scheme; support [-(order + 1) / 2, (order + 1) / 2]. */
MSM_HOST_DEVICE inline double phi(double t, int order) {
    t = fabs(t);
    if (order != MSM_QUINTIC) {
        if (t <= 1.0)
            return (1.0 - t) * (1.0 + t - 1.5 * t * t);
        if (t <= 2.0)
            return -0.5 * (t - 1.0) * (2.0 - t) * (2.0 - t);
        return 0.0;
    }
    if (t >= 3.0)
        return 0.0;
    // The cardinal function of quintic Hermite interpolation on [m, m + 1] with node values, first derivatives
    // D1 = (f[-2] - 8 f[-1] + 8 f[1] - f[2]) / 12 and second derivatives D2 = (-f[-2] + 16 f[-1] - 30 f[0] + 16 f[1]
    // - f[2]) / 12 of the data delta_0: per interval the coefficients of the six Hermite basis polynomials.
    int m = (int) t;
    double s = t - m, s2 = s * s, s3 = s2 * s, s4 = s3 * s, s5 = s4 * s;
    double h00 = 1 - 10 * s3 + 15 * s4 - 6 * s5;   // the value at m + 1 is 0 for every m >= 0: no h01 term
    double h10 = s - 6 * s3 + 8 * s4 - 3 * s5, h11 = -4 * s3 + 7 * s4 - 3 * s5;
    double h20 = 0.5 * (s2 - 3 * s3 + 3 * s4 - s5), h21 = 0.5 * (s3 - 2 * s4 + s5);
    auto d1 = [](int j) { return (j == 2 ? 1.0 : j == 1 ? -8.0 : j == -1 ? 8.0 : j == -2 ? -1.0 : 0.0) / 12.0; };
    auto d2 = [](int j) { return (j == 2 || j == -2 ? -1.0 : j == 1 || j == -1 ? 16.0 : j == 0 ? -30.0 : 0.0) / 12.0; };
    double value0 = m == 0 ? 1.0 : 0.0;
    return value0 * h00 + d1(m) * h10 + d1(m + 1) * h11 + d2(m) * h20 + d2(m + 1) * h21;
}

/** The order + 1 lattice indices along one axis that a coordinate s (in lattice units from the origin) touches:
 *  first, and their weights phi(s - first - k), k = 0..order. */
MSM_HOST_DEVICE inline int stencilWeights(double s, double weights[6], int order) {
    int first = (int) floor(s) - (order - 1) / 2;
    for (int k = 0; k <= order; k++)
        weights[k] = phi(s - (first + k), order);
    return first;
}

/** Weights of fine point 2m + k (k = -order..order) for coarse point m in restriction, and of coarse m for fine
 *  2m + k in prolongation: phi(k / 2); entry k + order. */
inline std::array<double, 11> transferWeights(int order) {
    std::array<double, 11> w{};
    for (int k = -order; k <= order; k++)
        w[k + order] = phi(k / 2.0, order);
    return w;
}

/**
 * Spacing h and cutoff a (nm) for a relative RMS error target, per scheme and boundary, each below the target by a
 * margin in the errors measured (docs/potentialmap.md, studies/msm/msm_engine_presets.py): open boundaries against
 * the direct sum (DHFR in vacuum; a charged cloud of dipoles; 99k atoms of TIP3P water as one open cluster, the
 * hardest), periodic cells against the Ewald sum (a 3 nm TIP3P cube; random charges with a net charge in a triclinic
 * cell); h is rounded down in a cell to fit whole powers of two of points into each cell vector.  Rows: {target, h,
 * a}, coarsest first; a target finer than the last row has no preset (finestPresetAccuracy).  The quintic scheme
 * reaches each target with coarser lattices: at 1e-4 it is many times faster than the cubic one.
 */
struct MsmPreset {
    double accuracy, spacing, cutoff;
};
// Measured on the GPU (2026-11-26):           open (DHFR, dipoles, water)        periodic (water, triclinic)
constexpr MsmPreset CUBIC_OPEN[] = {{1e-3, 0.15, 1.2},    // 2.3e-4, 2.8e-4, 7.0e-4
                                    {5e-5, 0.075, 1.6}};  // 9.3e-6, 1.5e-5, 3.8e-5
constexpr MsmPreset CUBIC_PERIODIC[] = {{1e-3, 0.15, 1.2},    // 4.1e-4, 5.0e-4
                                        {1e-4, 0.075, 1.2}};  // 6.3e-5, 5.7e-5
constexpr MsmPreset QUINTIC_OPEN[] = {{1e-3, 0.25, 1.2},   // 2.2e-4, 3.5e-4, 5.0e-4
                                      {1e-4, 0.15, 1.6},   // 7.6e-6, 1.5e-5, 2.9e-5
                                      {3e-5, 0.1, 1.6}};   // 1.4e-6, 6.4e-6, 8.6e-6
constexpr MsmPreset QUINTIC_PERIODIC[] = {{1e-3, 0.25, 1.2},   // 4.7e-4, 4.2e-4
                                          {1e-4, 0.15, 1.2},   // 4.7e-5, 7.6e-5
                                          {3e-5, 0.1, 1.2}};   // 1.6e-5, 1.9e-5

/** The presets of a scheme and boundary, and how many. */
inline const MsmPreset* presets(int order, bool periodic, int& count) {
    if (order == MSM_QUINTIC) {
        count = 3;
        return periodic ? QUINTIC_PERIODIC : QUINTIC_OPEN;
    }
    count = 2;
    return periodic ? CUBIC_PERIODIC : CUBIC_OPEN;
}

/** The finest target that a preset of the scheme and boundary meets. */
inline double finestPresetAccuracy(int order, bool periodic) {
    int count;
    const MsmPreset* rows = presets(order, periodic, count);
    return rows[count - 1].accuracy;
}

/** The coarsest preset whose target is at or below the accuracy asked for (the finest one for finer requests). */
inline void parametersForAccuracy(double accuracy, int order, bool periodic, double& spacing, double& cutoff) {
    int count;
    const MsmPreset* rows = presets(order, periodic, count);
    int k = 0;
    while (k < count - 1 && rows[k].accuracy > accuracy)
        k++;
    spacing = rows[k].spacing;
    cutoff = rows[k].cutoff;
}

} // namespace OpenMMNarumi::PotentialMap::Msm

#endif // NARUMI_POTENTIAL_MAP_MSM_NUMERICS_H_
