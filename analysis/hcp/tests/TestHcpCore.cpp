// The HCP core on the CPU backend: the ALPB formula against its Born limit and a direct double sum, the
// approximate charges' monopole and dipole, HCP against exact summation, the electrostatic size against closed
// forms, Shrake-Rupley points, and clear errors for bad input.

#include "ElectrostaticSize.h"
#include "HcpTestSystems.h"
#include "SurfacePoints.h"
#include "SurfacePotential.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <numeric>
#include <stdexcept>

using namespace OpenMMNarumi::Hcp;
using namespace OpenMMNarumi::Hcp::Test;

namespace {

SurfacePotentialOptions cpuOptions(double size, HcpThresholds thresholds = {}) {
    SurfacePotentialOptions options;
    options.electrostaticSize = size;
    options.thresholds = thresholds;
    options.backend = Backend::Cpu;
    options.numThreads = 2;
    return options;
}

SurfacePotential engineFor(const TestMolecule& m, const SurfacePotentialOptions& options) {
    return SurfacePotential(m.positions, m.charges, m.residueOfAtom, m.chainOfResidue, m.complexOfChain, options);
}

constexpr double kInfinity = std::numeric_limits<double>::infinity();

}  // namespace

TEST(Alpb, BornIonIsExact) {
    // A charge at the centre of a sphere of radius A: outside, phi = k q / (eps_out r) for any eps_in.
    const double radius = 0.3, charge = -2.0;
    for (double epsIn : {1.0, 4.0}) {
        SurfacePotentialOptions options = cpuOptions(radius);
        options.epsIn = epsIn;
        SurfacePotential engine({0.1, 0.2, 0.3}, {charge}, {0}, {0}, {0}, options);
        for (double offset : {0.0, 0.2, 1.5}) {
            const double r = radius + offset;
            const std::vector<double> point = {0.1 + r, 0.2, 0.3};
            for (SummationMode mode : {SummationMode::Exact, SummationMode::Hcp}) {
                const PotentialResult result = engine.compute(point, {offset}, mode);
                EXPECT_NEAR(result.potentials[0], COULOMB_CONSTANT * charge / (80.0 * r), 1e-12)
                    << "eps_in " << epsIn << ", offset " << offset;
            }
        }
    }
}

TEST(Alpb, ExactModeMatchesDirectDoubleSum) {
    const TestMolecule m = makeMolecule(2, 3, 12, 7, 11);
    const double center[3] = {3, 4, 0}, size = 2.5;
    const std::vector<double> points = shellPoints(300, center, 6.0, 5);
    SurfacePotentialOptions options = cpuOptions(size);
    options.epsIn = 2.0;
    options.epsOut = 78.5;
    SurfacePotential engine = engineFor(m, options);
    const PotentialResult result = engine.compute(points, {0.4}, SummationMode::Exact);
    const std::vector<double> expected = directAlpb(m, points, 2.0, 78.5, size + 0.4);
    EXPECT_LT(relativeRms(result.potentials, expected), 1e-12);
    EXPECT_NEAR(result.total, std::accumulate(expected.begin(), expected.end(), 0.0), 1e-9 * std::fabs(result.total) + 1e-9);
}

TEST(Hierarchy, ApproximateChargesKeepMonopoleAndDipole) {
    const TestMolecule m = makeMolecule(2, 3, 10, 6, 3);
    const ChargeHierarchy h(m.positions, m.charges, m.residueOfAtom, m.chainOfResidue, m.complexOfChain);
    EXPECT_EQ(h.residues.size(), 60);
    EXPECT_EQ(h.chains.size(), 6);
    EXPECT_EQ(h.complexes.size(), 2);
    auto checkLevel = [&](const ComponentLevel& level, auto atomRange) {
        for (int k = 0; k < level.size(); ++k) {
            const auto [first, last] = atomRange(k);
            double charge = 0, dipole[3] = {0, 0, 0}, center[3] = {0, 0, 0};
            for (int a = first; a < last; ++a) {
                // Original-order data through originalIndex: an independent path to the atoms.
                const int i = h.originalIndex[a];
                charge += m.charges[i];
                for (int d = 0; d < 3; ++d) {
                    dipole[d] += m.charges[i] * m.positions[3 * i + d];
                    center[d] += m.positions[3 * i + d] / (last - first);
                }
            }
            const ApproximateCharges& c = level.approximations[k];
            EXPECT_LE(c.negativeCharge, 0);
            EXPECT_GE(c.positiveCharge, 0);
            EXPECT_NEAR(c.negativeCharge + c.positiveCharge, charge, 1e-12);
            for (int d = 0; d < 3; ++d) {
                EXPECT_NEAR(c.negativeCharge * c.negativeCenter[d] + c.positiveCharge * c.positiveCenter[d], dipole[d], 1e-12);
                EXPECT_NEAR(level.centers[k][d], center[d], 1e-12);
            }
        }
    };
    checkLevel(h.residues, [&](int k) { return std::pair<int, int>(h.residues.childStart[k], h.residues.childStart[k + 1]); });
    checkLevel(h.chains, [&](int k) {
        return std::pair<int, int>(h.residues.childStart[h.chains.childStart[k]], h.residues.childStart[h.chains.childStart[k + 1]]);
    });
    checkLevel(h.complexes, [&](int k) {
        return std::pair<int, int>(h.residues.childStart[h.chains.childStart[h.complexes.childStart[k]]],
                                   h.residues.childStart[h.chains.childStart[h.complexes.childStart[k + 1]]]);
    });
}

TEST(Hierarchy, InterleavedAndEmptyComponentsAreOrderedAndDropped) {
    // Atoms listed out of hierarchy order; residue 1 and chain 2 have no atoms.
    const std::vector<double> positions = {0, 0, 0, 1, 0, 0, 2, 0, 0, 3, 0, 0};
    const ChargeHierarchy h(positions, {0.5, -0.5, 0.25, -0.25}, {2, 0, 2, 3}, {0, 0, 1, 1}, {0, 0, 0});
    EXPECT_EQ(h.residues.size(), 3);
    EXPECT_EQ(h.chains.size(), 2);
    EXPECT_EQ(h.complexes.size(), 1);
    EXPECT_EQ(h.originalIndex, (std::vector<int>{1, 0, 2, 3}));
}

TEST(Hcp, InfiniteThresholdsReproduceExact) {
    const TestMolecule m = makeMolecule(2, 2, 15, 5, 9);
    const double center[3] = {1.5, 4, 0};
    const std::vector<double> points = shellPoints(200, center, 5.0, 2);
    SurfacePotential exact = engineFor(m, cpuOptions(2.0));
    SurfacePotential open = engineFor(m, cpuOptions(2.0, {kInfinity, kInfinity, kInfinity}));
    const std::vector<double> expected = exact.compute(points, {}, SummationMode::Exact).potentials;
    EXPECT_LT(relativeRms(open.compute(points, {}, SummationMode::Hcp).potentials, expected), 1e-13);
}

TEST(Hcp, ApproximationErrorShrinksWithThresholds) {
    const TestMolecule m = makeMolecule(3, 4, 20, 8, 4);
    const double center[3] = {4.5, 8, 0};
    const std::vector<double> points = shellPoints(400, center, 9.0, 8);
    const std::vector<double> expected = engineFor(m, cpuOptions(3.0)).compute(points, {}, SummationMode::Exact).potentials;
    double previous = kInfinity;
    for (double scale : {0.5, 1.0, 2.0, 4.0}) {
        SurfacePotential hcp = engineFor(m, cpuOptions(3.0, {1.0 * scale, 3.0 * scale, 6.0 * scale}));
        const double error = relativeRms(hcp.compute(points, {}, SummationMode::Hcp).potentials, expected);
        EXPECT_GT(error, 0) << "the approximation must be used at scale " << scale;
        EXPECT_LT(error, previous) << "scale " << scale;
        previous = error;
    }
    EXPECT_LT(previous, 0.01);
}

TEST(Hcp, ResultDoesNotDependOnThreadCount) {
    const TestMolecule m = makeMolecule(1, 3, 20, 6, 21);
    const double center[3] = {3, 0, 0};
    const std::vector<double> points = shellPoints(1000, center, 4.0, 6);
    SurfacePotentialOptions one = cpuOptions(2.0), many = cpuOptions(2.0);
    one.numThreads = 1;
    many.numThreads = 5;
    for (SummationMode mode : {SummationMode::Exact, SummationMode::Hcp}) {
        const PotentialResult a = engineFor(m, one).compute(points, {}, mode);
        const PotentialResult b = engineFor(m, many).compute(points, {}, mode);
        EXPECT_EQ(a.potentials, b.potentials);
        EXPECT_EQ(a.total, b.total);
    }
}

TEST(Hcp, SetPositionsMovesTheApproximateCharges) {
    TestMolecule m = makeMolecule(1, 2, 10, 5, 13);
    SurfacePotential engine = engineFor(m, cpuOptions(2.0));
    for (size_t k = 0; k < m.positions.size(); k += 3) m.positions[k] += 0.7;
    engine.setPositions(m.positions);
    const double center[3] = {2.2, 0, 0};
    const std::vector<double> points = shellPoints(100, center, 5.0, 1);
    const std::vector<double> moved = engineFor(m, cpuOptions(2.0)).compute(points, {}, SummationMode::Hcp).potentials;
    EXPECT_EQ(engine.compute(points, {}, SummationMode::Hcp).potentials, moved);
}

TEST(ElectrostaticSize, CarlsonRFKnownValues) {
    // Reference values from Carlson (1995), Table 1.
    EXPECT_NEAR(carlsonRF(1, 2, 0), 1.3110287771461, 1e-12);
    EXPECT_NEAR(carlsonRF(2, 3, 4), 0.58408284167715, 1e-12);
    EXPECT_NEAR(carlsonRF(4, 4, 4), 0.5, 1e-15);
}

TEST(ElectrostaticSize, SingleAtomIsItsRadius) {
    const EffectiveEllipsoid e = effectiveEllipsoid({0.3, -0.2, 1.0}, {0.17});
    EXPECT_NEAR(e.sizeDeterminant, 0.17, 1e-12);
    EXPECT_NEAR(e.sizeEllipsoid, 0.17, 1e-12);
    for (double axis : e.semiAxes) EXPECT_NEAR(axis, 0.17, 1e-12);
}

TEST(ElectrostaticSize, ProlateSpheroidMatchesClosedForm) {
    // Equal atoms evenly along a line: the effective ellipsoid is a prolate spheroid (b = c), for which
    // A_ell = 2 a e / ln((1 + e) / (1 - e)), e = sqrt(1 - b^2 / a^2) (elsize's elementary form, exact when b = c).
    std::vector<double> positions, radii;
    for (int k = 0; k < 21; ++k) {
        positions.insert(positions.end(), {0.1 * k, 0.0, 0.0});
        radii.push_back(0.15);
    }
    const EffectiveEllipsoid e = effectiveEllipsoid(positions, radii);
    EXPECT_NEAR(e.semiAxes[1], e.semiAxes[2], 1e-12);
    const double a = e.semiAxes[0], b = e.semiAxes[1];
    const double ecc = std::sqrt(1 - b * b / (a * a));
    EXPECT_NEAR(e.sizeEllipsoid, 2 * a * ecc / std::log((1 + ecc) / (1 - ecc)), 1e-10);
    EXPECT_GT(e.sizeEllipsoid, b);
    EXPECT_LT(e.sizeEllipsoid, a);
    // A_det = [(b^2 + c^2)(a^2 + c^2)(a^2 + b^2) / 8]^(1/6) for an ellipsoid (the moments are M (b^2 + c^2) / 5, ...).
    EXPECT_NEAR(e.sizeDeterminant, std::pow(2 * b * b * (a * a + b * b) * (a * a + b * b) / 8, 1.0 / 6.0), 1e-10);
}

TEST(SurfacePoints, SingleAtomSphere) {
    const double radius = 0.15, probe = 0.14, density = 500;
    const SurfacePointSet set = surfacePoints({1, 2, 3}, {radius}, probe, density, SurfaceKind::SolventAccessible);
    const double expanded = radius + probe;
    EXPECT_EQ(set.atoms.size(), static_cast<size_t>(std::round(4 * M_PI * expanded * expanded * density)));
    EXPECT_DOUBLE_EQ(set.offset, probe);
    for (size_t p = 0; p < set.atoms.size(); ++p) {
        const double d[3] = {set.points[3 * p] - 1, set.points[3 * p + 1] - 2, set.points[3 * p + 2] - 3};
        EXPECT_NEAR(std::sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]), expanded, 1e-12);
        for (int k = 0; k < 3; ++k) EXPECT_NEAR(d[k] / expanded, set.normals[3 * p + k], 1e-12);
    }
    const SurfacePointSet contact = surfacePoints({1, 2, 3}, {radius}, probe, density, SurfaceKind::Contact);
    EXPECT_DOUBLE_EQ(contact.offset, 0);
    EXPECT_NEAR(contact.points[0] - 1, radius * contact.normals[0], 1e-12);
}

TEST(SurfacePoints, BuriedPointsAreRemoved) {
    // A row of overlapping atoms: no kept point lies inside another atom's expanded sphere.
    std::vector<double> positions, radii;
    for (int k = 0; k < 6; ++k) {
        positions.insert(positions.end(), {0.2 * k, 0.05 * (k % 2), 0.0});
        radii.push_back(0.17);
    }
    const double probe = 0.14;
    const SurfacePointSet set = surfacePoints(positions, radii, probe, 800, SurfaceKind::SolventAccessible, 2);
    ASSERT_GT(set.atoms.size(), 100u);
    size_t full = 0;
    for (size_t p = 0; p < set.atoms.size(); ++p)
        for (int j = 0; j < 6; ++j) {
            const double dx = set.points[3 * p] - positions[3 * j], dy = set.points[3 * p + 1] - positions[3 * j + 1],
                         dz = set.points[3 * p + 2] - positions[3 * j + 2];
            EXPECT_GE(std::sqrt(dx * dx + dy * dy + dz * dz), radii[j] + probe - 1e-12) << "point " << p << ", atom " << j;
        }
    for (int j = 0; j < 6; ++j) full += static_cast<size_t>(std::round(4 * M_PI * 0.31 * 0.31 * 800));
    EXPECT_LT(set.atoms.size(), full);  // some points were buried
}

TEST(BadInput, ClearErrors) {
    const TestMolecule m = makeMolecule(1, 1, 3, 4, 1);
    SurfacePotential engine = engineFor(m, cpuOptions(1.0));
    const std::vector<double> point = {5, 5, 5};
    EXPECT_THROW(engine.compute({}, {}, SummationMode::Hcp), std::invalid_argument);                        // empty point set
    EXPECT_THROW(engine.compute({5, 5, NAN}, {}, SummationMode::Hcp), std::invalid_argument);               // NaN point
    EXPECT_THROW(engine.compute(point, {-0.1}, SummationMode::Exact), std::invalid_argument);              // inside
    EXPECT_THROW(engine.compute(point, {0.1, 0.2}, SummationMode::Exact), std::invalid_argument);          // offsets
    const std::vector<double> onAtom(m.positions.begin(), m.positions.begin() + 3);
    EXPECT_THROW(engine.compute(onAtom, {}, SummationMode::Exact), std::invalid_argument);                 // distance 0
    std::vector<double> nanPositions = m.positions;
    nanPositions[4] = NAN;
    EXPECT_THROW(engine.setPositions(nanPositions), std::invalid_argument);
    const std::vector<double> zeros(m.charges.size(), 0.0);
    EXPECT_THROW(SurfacePotential(m.positions, zeros, m.residueOfAtom, m.chainOfResidue, m.complexOfChain, cpuOptions(1.0)),
                 std::invalid_argument);  // no charges
    EXPECT_THROW(SurfacePotential({}, {}, {}, {0}, {0}, cpuOptions(1.0)), std::invalid_argument);  // no atoms
    std::vector<int> badResidues = m.residueOfAtom;
    badResidues[0] = 99;
    EXPECT_THROW(SurfacePotential(m.positions, m.charges, badResidues, m.chainOfResidue, m.complexOfChain, cpuOptions(1.0)),
                 std::invalid_argument);
    EXPECT_THROW(engineFor(m, cpuOptions(0.0)), std::invalid_argument);    // electrostatic size
    EXPECT_THROW(engineFor(m, cpuOptions(1.0, {-1, 7, 15})), std::invalid_argument);
    SurfacePotentialOptions badEps = cpuOptions(1.0);
    badEps.epsOut = 0;
    EXPECT_THROW(engineFor(m, badEps), std::invalid_argument);
    EXPECT_THROW(effectiveEllipsoid({0, 0, 0}, {-0.1}), std::invalid_argument);
    EXPECT_THROW(surfacePoints({0, 0, 0}, {0.1}, 0.14, 0, SurfaceKind::Contact), std::invalid_argument);
    try {
        engine.compute({5, 5, 5, 1, NAN, 1}, {}, SummationMode::Hcp);
        FAIL() << "no exception";
    } catch (const std::invalid_argument& error) {
        EXPECT_NE(std::string(error.what()).find("point 1"), std::string::npos) << error.what();
    }
}
