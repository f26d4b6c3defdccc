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

#include <algorithm>
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
 * How msmAccuracy sets the lattice spacing h: the error model (docs/potentialmap.md, "Accuracy";
 * studies/msm/msm_error_model.py).  The relative RMS error of a map, over its points at least 0.15 nm from every
 * charge, is below
 *     coefficient * (h / a)^exponent
 * with exponent 4 for the quintic scheme (its C3 splitting limits the order) and 3 for the cubic one.  Each
 * coefficient is 1.25 times the largest error / (h / a)^exponent measured for h / a from 0.25 down to 0.047 over
 * random neutral charges (two densities; cubic, triclinic, skewed and elongated cells down to widths of 2a), TIP3P
 * water (cubes, truncated octahedra, a rhombic dodecahedron; open clusters) and DHFR in vacuum; in a periodic cell h
 * is the largest lattice spacing along a cell vector, at most the h chosen here.  Dense water sets the coefficients:
 * its potential between the molecules nearly cancels, so the same lattice error is a larger relative error than for
 * random charges or a protein.
 */
struct MsmErrorModel {
    int exponent;
    double coefficient;
};
inline MsmErrorModel errorModel(int order, bool periodic) {
    if (order == MSM_QUINTIC)
        return periodic ? MsmErrorModel{4, 6.0} : MsmErrorModel{4, 2.1};
    return periodic ? MsmErrorModel{3, 5.3} : MsmErrorModel{3, 2.1};
}

/** The coarsest h / a measured: coarser targets get it, and an error below the target. */
constexpr double COARSEST_SPACING_RATIO = 0.25;

/** The finest msmAccuracy of a scheme: finer targets need lattices too fine to compute (a periodic cell's h would be
 *  below 0.06 nm for the quintic scheme at 3e-5 and 0.07 nm for the cubic one at 1e-3). */
inline double finestAccuracy(int order) {
    return order == MSM_QUINTIC ? 3e-5 : 1e-3;
}

/**
 * Spacing h and cutoff a (nm) for a relative RMS error target: a = 1.2 nm (1.6 nm for open boundaries below 1e-3,
 * where the coarser lattices save more than the longer short range costs), h from the error model.
 */
inline void parametersForAccuracy(double accuracy, int order, bool periodic, double& spacing, double& cutoff) {
    cutoff = !periodic && accuracy < 1e-3 ? 1.6 : 1.2;
    const MsmErrorModel model = errorModel(order, periodic);
    spacing = cutoff * std::min(COARSEST_SPACING_RATIO, std::pow(accuracy / model.coefficient, 1.0 / model.exponent));
}

} // namespace OpenMMNarumi::PotentialMap::Msm

#endif // NARUMI_POTENTIAL_MAP_MSM_NUMERICS_H_
