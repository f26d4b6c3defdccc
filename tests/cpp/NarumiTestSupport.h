#ifndef NARUMI_TEST_SUPPORT_H_
#define NARUMI_TEST_SUPPORT_H_

// Shared by the C++ tests: plugin loading, generated test systems and comparison helpers.

#include "NarumiNonbondedForce.h"
#include "openmm/Context.h"
#include "openmm/NonbondedForce.h"
#include "openmm/Platform.h"
#include "openmm/State.h"
#include "openmm/System.h"
#include "openmm/VerletIntegrator.h"
#include <gtest/gtest.h>
#include <cmath>
#include <random>
#include <string>
#include <utility>
#include <vector>

namespace NarumiTest {

/** Loads OpenMM's plugins (for the CPU platform) and this plugin's Reference/CPU kernels, once per process. */
inline void loadPlugins() {
    static bool loaded = false;
    if (loaded)
        return;
    OpenMM::Platform::loadPluginsFromDirectory(OPENMM_PLUGIN_DIR); // CUDA/OpenCL may fail to load here: no driver
    OpenMM::Platform::loadPluginLibrary(NARUMI_REFERENCE_PLUGIN);
    loaded = true;
}

/** The named platform, or a GoogleTest skip when this machine lacks it. */
inline bool hasPlatform(const std::string& name) {
    loadPlugins();
    for (int i = 0; i < OpenMM::Platform::getNumPlatforms(); i++)
        if (OpenMM::Platform::getPlatform(i).getName() == name)
            return true;
    return false;
}

/** Particles, bonds and positions of a test system; forces are added by each test. */
struct TestSystem {
    std::vector<double> charges, sigmas, epsilons;
    std::vector<std::pair<int, int> > bonds;
    std::vector<OpenMM::Vec3> positions;
    OpenMM::Vec3 box[3];
};

/**
 * Rigid-geometry TIP3P-like water (O -0.834, H +0.417; sigma_O 0.315061 nm, epsilon_O 0.636386 kJ/mol) on a
 * jittered cubic lattice at about 1 g/cm^3 in the given box (rectangular or OpenMM's reduced triclinic form).
 */
inline TestSystem waterBox(int molecules, const OpenMM::Vec3* boxVectors, unsigned seed = 1) {
    TestSystem water;
    for (int d = 0; d < 3; d++)
        water.box[d] = boxVectors[d];
    std::mt19937 random(seed);
    std::uniform_real_distribution<double> uniform(0.0, 1.0);
    int perSide = (int) std::ceil(std::cbrt((double) molecules));
    const double bond = 0.09572, angle = 104.52 * M_PI / 180;
    for (int m = 0; m < molecules; m++) {
        // Lattice in fractional coordinates, so triclinic boxes are filled too.
        double f[3] = {(m % perSide + 0.5 + 0.1 * (uniform(random) - 0.5)) / perSide,
                       ((m / perSide) % perSide + 0.5 + 0.1 * (uniform(random) - 0.5)) / perSide,
                       (m / (perSide * perSide) + 0.5 + 0.1 * (uniform(random) - 0.5)) / perSide};
        OpenMM::Vec3 oxygen = boxVectors[0] * f[0] + boxVectors[1] * f[1] + boxVectors[2] * f[2];
        // A random orientation: two orthonormal vectors in the molecular plane.
        OpenMM::Vec3 u(uniform(random) - 0.5, uniform(random) - 0.5, uniform(random) - 0.5);
        u /= std::sqrt(u.dot(u));
        OpenMM::Vec3 v(uniform(random) - 0.5, uniform(random) - 0.5, uniform(random) - 0.5);
        v -= u * u.dot(v);
        v /= std::sqrt(v.dot(v));
        OpenMM::Vec3 h1 = oxygen + (u * std::cos(angle / 2) + v * std::sin(angle / 2)) * bond;
        OpenMM::Vec3 h2 = oxygen + (u * std::cos(angle / 2) - v * std::sin(angle / 2)) * bond;
        int first = water.positions.size();
        water.positions.insert(water.positions.end(), {oxygen, h1, h2});
        water.charges.insert(water.charges.end(), {-0.834, 0.417, 0.417});
        water.sigmas.insert(water.sigmas.end(), {0.315061, 1.0, 1.0});
        water.epsilons.insert(water.epsilons.end(), {0.636386, 0.0, 0.0});
        water.bonds.push_back({first, first + 1});
        water.bonds.push_back({first, first + 2});
    }
    return water;
}

inline TestSystem cubicWaterBox(int molecules, double edge, unsigned seed = 1) {
    OpenMM::Vec3 box[3] = {OpenMM::Vec3(edge, 0, 0), OpenMM::Vec3(0, edge, 0), OpenMM::Vec3(0, 0, edge)};
    return waterBox(molecules, box, seed);
}

/** A charged Lennard-Jones fluid: four particle types, charges summing to zero, a minimum separation of 0.25 nm. */
inline TestSystem chargedLJFluid(int particles, double edge, unsigned seed = 2) {
    TestSystem fluid;
    fluid.box[0] = OpenMM::Vec3(edge, 0, 0);
    fluid.box[1] = OpenMM::Vec3(0, edge, 0);
    fluid.box[2] = OpenMM::Vec3(0, 0, edge);
    const double typeCharge[4] = {0.8, -0.8, 0.3, -0.3}, typeSigma[4] = {0.30, 0.35, 0.25, 0.40},
                 typeEpsilon[4] = {0.5, 0.8, 0.3, 1.2};
    std::mt19937 random(seed);
    std::uniform_real_distribution<double> uniform(0.0, edge);
    while ((int) fluid.positions.size() < particles) {
        OpenMM::Vec3 p(uniform(random), uniform(random), uniform(random));
        bool clash = false;
        for (const OpenMM::Vec3& q : fluid.positions) {
            OpenMM::Vec3 d = p - q;
            for (int k = 0; k < 3; k++)
                d[k] -= edge * std::round(d[k] / edge);
            clash |= (d.dot(d) < 0.25 * 0.25);
        }
        if (clash)
            continue;
        int type = fluid.positions.size() % 4;
        fluid.positions.push_back(p);
        fluid.charges.push_back(typeCharge[type]);
        fluid.sigmas.push_back(typeSigma[type]);
        fluid.epsilons.push_back(typeEpsilon[type]);
    }
    return fluid;
}

/** Water plus a 14-atom branched chain molecule (bonds give 1-2, 1-3 and 1-4 pairs) in the middle of the box. */
inline TestSystem solvatedChain(int waters, double edge) {
    TestSystem system = cubicWaterBox(waters, edge, 3);
    // Remove waters near the centre to make room, then add the chain along x.
    TestSystem kept;
    for (int d = 0; d < 3; d++)
        kept.box[d] = system.box[d];
    OpenMM::Vec3 centre(edge / 2, edge / 2, edge / 2);
    for (size_t m = 0; m < system.positions.size(); m += 3) {
        OpenMM::Vec3 d = system.positions[m] - centre;
        if (std::fabs(d[0]) < 0.95 && std::fabs(d[1]) < 0.45 && std::fabs(d[2]) < 0.45)
            continue;
        int first = kept.positions.size();
        for (int k = 0; k < 3; k++) {
            kept.positions.push_back(system.positions[m + k]);
            kept.charges.push_back(system.charges[m + k]);
            kept.sigmas.push_back(system.sigmas[m + k]);
            kept.epsilons.push_back(system.epsilons[m + k]);
        }
        kept.bonds.push_back({first, first + 1});
        kept.bonds.push_back({first, first + 2});
    }
    int first = kept.positions.size();
    for (int i = 0; i < 10; i++) { // backbone zig-zag, 0.153 nm bonds
        kept.positions.push_back(centre + OpenMM::Vec3(-0.65 + 0.13 * i, (i % 2) * 0.08, 0));
        kept.charges.push_back(i % 3 == 0 ? -0.3 : 0.15);
        kept.sigmas.push_back(0.339967);
        kept.epsilons.push_back(0.45773);
        if (i > 0)
            kept.bonds.push_back({first + i - 1, first + i});
    }
    for (int b = 0; b < 4; b++) { // side atoms on backbone atoms 1, 3, 5, 7
        int anchor = first + 1 + 2 * b;
        kept.positions.push_back(kept.positions[anchor] + OpenMM::Vec3(0, -0.1, 0.05));
        kept.charges.push_back(0.0);
        kept.sigmas.push_back(0.264953);
        kept.epsilons.push_back(0.0656888);
        kept.bonds.push_back({anchor, (int) kept.positions.size() - 1});
    }
    return kept;
}

/** OpenMM's NonbondedForce with the test system's particles and createExceptionsFromBonds(bonds, 0.8333, 0.5). */
inline OpenMM::NonbondedForce* makeNonbondedForce(const TestSystem& ts, OpenMM::NonbondedForce::NonbondedMethod method, double cutoff) {
    OpenMM::NonbondedForce* force = new OpenMM::NonbondedForce();
    for (size_t i = 0; i < ts.charges.size(); i++)
        force->addParticle(ts.charges[i], ts.sigmas[i], ts.epsilons[i]);
    force->createExceptionsFromBonds(ts.bonds, 0.8333, 0.5);
    force->setNonbondedMethod(method);
    force->setCutoffDistance(cutoff);
    return force;
}

/** A System holding ts's particles (mass 1) and its box, with no forces. */
inline OpenMM::System* makeSystem(const TestSystem& ts) {
    OpenMM::System* system = new OpenMM::System();
    for (size_t i = 0; i < ts.positions.size(); i++)
        system->addParticle(1.0);
    system->setDefaultPeriodicBoxVectors(ts.box[0], ts.box[1], ts.box[2]);
    return system;
}

struct EnergyAndForces {
    double energy;
    std::vector<OpenMM::Vec3> forces;
};

inline EnergyAndForces evaluate(const OpenMM::System& system, const std::vector<OpenMM::Vec3>& positions, const std::string& platform,
                                int groups = -1) {
    loadPlugins();
    OpenMM::VerletIntegrator integrator(0.001);
    OpenMM::Context context(system, integrator, OpenMM::Platform::getPlatformByName(platform));
    context.setPositions(positions);
    OpenMM::State state = context.getState(OpenMM::State::Energy | OpenMM::State::Forces, false, groups);
    return {state.getPotentialEnergy(), state.getForces()};
}

inline double relativeRmsDifference(const std::vector<OpenMM::Vec3>& actual, const std::vector<OpenMM::Vec3>& expected) {
    double difference = 0, norm = 0;
    for (size_t i = 0; i < expected.size(); i++) {
        OpenMM::Vec3 d = actual[i] - expected[i];
        difference += d.dot(d);
        norm += expected[i].dot(expected[i]);
    }
    return std::sqrt(difference / norm);
}

/** Energy within relative tolerance and forces within relative RMS tolerance. */
inline void expectClose(const EnergyAndForces& actual, const EnergyAndForces& expected, double tolerance = 1e-6) {
    EXPECT_NEAR(actual.energy, expected.energy, tolerance * std::fabs(expected.energy));
    EXPECT_LE(relativeRmsDifference(actual.forces, expected.forces), tolerance);
}

} // namespace NarumiTest

#endif // NARUMI_TEST_SUPPORT_H_
