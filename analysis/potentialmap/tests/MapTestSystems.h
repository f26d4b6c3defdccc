#ifndef NARUMI_POTENTIAL_MAP_TEST_SYSTEMS_H_
#define NARUMI_POTENTIAL_MAP_TEST_SYSTEMS_H_

/** Test systems and the double-precision brute-force oracle shared by the CPU and CUDA suites. */

#include "PotentialMap.h"
#include <gtest/gtest.h>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <random>
#include <vector>

namespace OpenMMNarumi::PotentialMap::Test {

using namespace OpenMMNarumi::PotentialMap;

struct System {
    std::vector<double> positions;  // 3 per atom, nm
    std::vector<double> charges;
};

/** Random charges in [-1, 1] (a few zero) at random positions in [lo, hi)^3. */
inline System randomSystem(int numAtoms, double lo, double hi, unsigned seed) {
    std::mt19937 random(seed);
    std::uniform_real_distribution<double> position(lo, hi), charge(-1.0, 1.0);
    System system;
    for (int i = 0; i < numAtoms; i++) {
        for (int d = 0; d < 3; d++)
            system.positions.push_back(position(random));
        system.charges.push_back(i % 17 == 0 ? 0.0 : charge(random));
    }
    return system;
}

inline Lattice makeLattice(Vec3 origin, Vec3 spacing, std::array<int, 3> dims) {
    Lattice lattice;
    lattice.origin = origin;
    lattice.spacing = spacing;
    lattice.dims = dims;
    return lattice;
}

/**
 * The definition, summed in double: every atom (direct) or every periodic image n_a a + n_b b + n_c c with
 * |n| <= 2 within the cutoff; pairs closer than COINCIDENCE_RADIUS are skipped.  With `sensitivity`, also each
 * point's sum over terms of |t| + |dt/dr| (|a - o| + |p - o| + r): how much the point's value moves when every
 * coordinate (relative to the lattice origin o) and every term is perturbed by one relative unit, so that
 * single-precision rounding of inputs and terms gives |V - V_ref| <= (a few eps_float) * sensitivity.
 */
inline std::vector<double> bruteForce(const Lattice& lattice, const System& system, Method method, double cutoff, const PeriodicBox* box,
                                      std::vector<double>* sensitivity = nullptr) {
    std::vector<double> map(lattice.numPoints(), 0.0);
    if (sensitivity != nullptr)
        sensitivity->assign(lattice.numPoints(), 0.0);
    const int range = box != nullptr ? 2 : 0;
    for (int iz = 0; iz < lattice.dims[2]; iz++)
        for (int iy = 0; iy < lattice.dims[1]; iy++)
            for (int ix = 0; ix < lattice.dims[0]; ix++) {
                const double p[3] = {lattice.origin[0] + ix * lattice.spacing[0], lattice.origin[1] + iy * lattice.spacing[1],
                                     lattice.origin[2] + iz * lattice.spacing[2]};
                double sum = 0, perturbation = 0;
                const double pointFromOrigin = std::sqrt(std::pow(p[0] - lattice.origin[0], 2) + std::pow(p[1] - lattice.origin[1], 2) +
                                                         std::pow(p[2] - lattice.origin[2], 2));
                for (size_t a = 0; a < system.charges.size(); a++)
                    for (int i = -range; i <= range; i++)
                        for (int j = -range; j <= range; j++)
                            for (int k = -range; k <= range; k++) {
                                double r[3];
                                for (int d = 0; d < 3; d++) {
                                    r[d] = system.positions[3 * a + d] - p[d];
                                    if (box != nullptr)
                                        r[d] += i * box->a[d] + j * box->b[d] + k * box->c[d];
                                }
                                const double distance = std::sqrt(r[0] * r[0] + r[1] * r[1] + r[2] * r[2]);
                                if (distance < COINCIDENCE_RADIUS)
                                    continue;
                                double term = 0, slope = 0;  // t and |dt/dr|
                                const double q = std::abs(system.charges[a]);
                                if (method == Method::Direct) {
                                    term = system.charges[a] / distance;
                                    slope = q / (distance * distance);
                                }
                                else if (distance < cutoff) {
                                    const double s = 1 - distance * distance / (cutoff * cutoff);
                                    term = system.charges[a] * s * s / distance;
                                    slope = q * (s * s / (distance * distance) + 4 * s / (cutoff * cutoff));
                                }
                                sum += term;
                                double atomFromOrigin = 0;
                                for (int d = 0; d < 3; d++)
                                    atomFromOrigin += std::pow(p[d] + r[d] - lattice.origin[d], 2);
                                perturbation += std::abs(term) + slope * (std::sqrt(atomFromOrigin) + pointFromOrigin + distance);
                            }
                const size_t index = ((size_t) iz * lattice.dims[1] + iy) * lattice.dims[0] + ix;
                map[index] = COULOMB_CONSTANT * sum;
                if (sensitivity != nullptr)
                    (*sensitivity)[index] = COULOMB_CONSTANT * perturbation;
            }
    return map;
}

/** The paper's Table 2 measure: max |V - V_ref| / |V_ref| over points with |V_ref| > 1e-4 e/A = 0.1389 kJ/mol/e. */
inline double maxRelativeError(const std::vector<float>& map, const std::vector<double>& reference) {
    const double threshold = 1e-4 * 10 * COULOMB_CONSTANT;
    double worst = 0;
    for (size_t i = 0; i < map.size(); i++) {
        if (!std::isfinite(map[i]))
            return INFINITY;
        if (std::abs(reference[i]) > threshold)
            worst = std::max(worst, std::abs(map[i] - reference[i]) / std::abs(reference[i]));
    }
    return worst;
}

/** max |V - V_ref| / sensitivity over all points (bruteForce's sensitivity): the error in units of input rounding. */
inline double maxScaledError(const std::vector<float>& map, const std::vector<double>& reference, const std::vector<double>& sensitivity) {
    double worst = 0;
    for (size_t i = 0; i < map.size(); i++) {
        if (!std::isfinite(map[i]))
            return INFINITY;
        if (sensitivity[i] > 0)
            worst = std::max(worst, std::abs(map[i] - reference[i]) / sensitivity[i]);
        else if (map[i] != 0)
            return INFINITY;  // no term reaches this point, so its value must be exactly zero
    }
    return worst;
}

inline std::vector<float> computeMap(const Lattice& lattice, const System& system, Options options, const PeriodicBox* box) {
    PotentialMapEngine engine(lattice, system.charges, options);
    std::vector<float> map(lattice.numPoints());
    engine.compute(system.positions.data(), box, map.data());
    return map;
}

/** Relative RMS difference of a map from a double-precision reference. */
inline double relativeRms(const std::vector<float>& map, const std::vector<double>& reference) {
    double error = 0, norm = 0;
    for (size_t k = 0; k < map.size(); k++) {
        error += (map[k] - reference[k]) * (map[k] - reference[k]);
        norm += reference[k] * reference[k];
    }
    return std::sqrt(error / norm);
}

/** A neutral cloud of dipolar "molecules" (charge pairs 0.1 nm apart), the electrostatics of a solute. */
inline System dipoleCloud(int numPairs, double edge, unsigned seed) {
    System system = randomSystem(2 * numPairs, 0.0, edge, seed);
    for (int p = 0; p < numPairs; p++) {
        for (int d = 0; d < 3; d++)
            system.positions[3 * (2 * p + 1) + d] = system.positions[3 * (2 * p) + d] + (d == 0 ? 0.1 : 0.0);
        double q = std::fabs(system.charges[2 * p]) + 0.1;
        system.charges[2 * p] = q;
        system.charges[2 * p + 1] = -q;
    }
    system.charges[0] += 2.0;   // and a net charge, whose long range the method must carry
    return system;
}

/**
 * Method msm on options' backend at one scheme and accuracy target against a double-precision reference: the relative
 * RMS error, printed (what names the case), below the target and above zero.
 */
inline void expectMsmWithinAccuracy(const Lattice& lattice, const System& system, const std::vector<double>& reference,
                                    Options options, int order, double accuracy, const char* what) {
    options.method = Method::Msm;
    options.msmOrder = order;
    options.msmAccuracy = accuracy;
    double error = relativeRms(computeMap(lattice, system, options, nullptr), reference);
    std::printf("[ measure  ] MSM %s, order %d, accuracy %g: relative RMS error %.3g\n", what, order, accuracy, error);
    EXPECT_LT(error, accuracy) << what << ", order " << order;
    EXPECT_GT(error, 0.0);
}

inline PeriodicBox triclinicBox() {
    PeriodicBox box;  // a reduced rhombic-dodecahedron-like cell
    box.a = {3.0, 0.0, 0.0};
    box.b = {0.9, 2.9, 0.0};
    box.c = {-1.2, 1.1, 2.6};
    return box;
}

} // namespace OpenMMNarumi::PotentialMap::Test

#endif // NARUMI_POTENTIAL_MAP_TEST_SYSTEMS_H_
