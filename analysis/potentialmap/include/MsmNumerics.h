#ifndef NARUMI_POTENTIAL_MAP_MSM_NUMERICS_H_
#define NARUMI_POTENTIAL_MAP_MSM_NUMERICS_H_

/**
 * The numerics of multilevel summation (Hardy, Stone & Schulten, Parallel Computing 35, 164 (2009)), shared by the
 * MSM backends, as fixed by the NumPy prototype of studies/msm/:
 *
 *   1/r = [1/r - g_a(r)] + sum_l [g_{2^l a}(r) - g_{2^(l+1) a}(r)] + g_{2^L a}(r),   g_s(r) = gamma(r / s) / s
 *
 * with the C2 Taylor smoothing gamma(rho) = 15/8 - 5/4 rho^2 + 3/8 rho^4 for rho <= 1, 1/rho beyond.  The first
 * bracket is short-ranged (zero beyond a) and summed exactly; level l's bracket is smooth and zero beyond 2^(l+1) a,
 * and lives on a lattice of spacing 2^l h with the C1 cubic basis phi; the top level's g is summed over all its
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

/** C2 Taylor smoothing of 1/rho. */
MSM_HOST_DEVICE inline double gamma(double rho) {
    if (rho >= 1.0)
        return 1.0 / rho;
    double rho2 = rho * rho;
    return 15.0 / 8.0 - rho2 * (5.0 / 4.0 - rho2 * (3.0 / 8.0));
}

/** The smoothed kernel g_s(r) = gamma(r / s) / s. */
MSM_HOST_DEVICE inline double smoothed(double r, double s) {
    return gamma(r / s) / s;
}

/** The short-range kernel 1/r - g_a(r) for r < a (0 beyond); at a coincident point (r below the map's coincidence
 *  radius, where the direct sum skips the atom) only -g_a(r), so that the smooth levels' share of it cancels. */
MSM_HOST_DEVICE inline double shortRange(double r, double a, double coincidenceRadius) {
    if (r >= a)
        return 0.0;
    double smooth = smoothed(r, a);
    return r >= coincidenceRadius ? 1.0 / r - smooth : -smooth;
}

/** The C1 cubic interpolation basis, support [-2, 2]. */
MSM_HOST_DEVICE inline double phi(double t) {
    t = fabs(t);
    if (t <= 1.0)
        return (1.0 - t) * (1.0 + t - 1.5 * t * t);
    if (t <= 2.0)
        return -0.5 * (t - 1.0) * (2.0 - t) * (2.0 - t);
    return 0.0;
}

/** The 4 lattice indices along one axis that a coordinate s (in lattice units from the origin) touches: first, and
 *  their weights phi(s - first - k), k = 0..3. */
MSM_HOST_DEVICE inline int stencilWeights(double s, double weights[4]) {
    int first = (int) floor(s) - 1;
    for (int k = 0; k < 4; k++)
        weights[k] = phi(s - (first + k));
    return first;
}

/** Weights of fine point 2m + k (k = -3..3) for coarse point m in restriction, and of coarse m for fine 2m + k in
 *  prolongation: phi(k / 2). */
inline std::array<double, 7> transferWeights() {
    std::array<double, 7> w{};
    for (int k = -3; k <= 3; k++)
        w[k + 3] = phi(k / 2.0);
    return w;
}

/** The finest relative RMS error a preset of parametersForAccuracy is measured to meet (open, periodic). */
constexpr double FINEST_PRESET_ACCURACY = 5e-5;
constexpr double FINEST_PERIODIC_PRESET_ACCURACY = 1e-4;

/**
 * Spacing h and cutoff a (nm) for a relative RMS error target (open boundaries), each below the target by a margin
 * in the errors measured by the CPU engine against the direct sum (docs/potentialmap.md: DHFR in vacuum and two
 * charged clouds of dipoles): 1e-3 and above: h 0.2, a 1.2 (5.6e-4, 6.4e-4, 7.2e-4); 1e-4 and above: h 0.125, a 1.6
 * (4.3e-5, 6.3e-5, 6.0e-5); finer, down to FINEST_PRESET_ACCURACY: h 0.1, a 1.6 (2.0e-5, 2.5e-5 and 2.7e-5).
 */
inline void parametersForAccuracy(double accuracy, double& spacing, double& cutoff) {
    cutoff = accuracy >= 1e-3 ? 1.2 : 1.6;
    spacing = accuracy >= 1e-3 ? 0.2 : (accuracy >= 1e-4 ? 0.125 : 0.1);
}

/**
 * The same in a periodic cell, where dense water needs finer lattices (and the lattice spacing is rounded down to
 * fit whole powers of two of points into each cell vector): 1e-3 and above: h 0.15, a 1.2 (measured 4.1e-4 in a
 * 3 nm TIP3P cube, 4.5e-4 for charged random charges in a triclinic cell, against the Ewald sum); down to
 * FINEST_PERIODIC_PRESET_ACCURACY: h 0.075, a 1.2 (6.3e-5 in the water cube).  a = 1.2 nm fits boxes of 2.4 nm.
 */
inline void periodicParametersForAccuracy(double accuracy, double& spacing, double& cutoff) {
    cutoff = 1.2;
    spacing = accuracy >= 1e-3 ? 0.15 : 0.075;
}

} // namespace OpenMMNarumi::PotentialMap::Msm

#endif // NARUMI_POTENTIAL_MAP_MSM_NUMERICS_H_
