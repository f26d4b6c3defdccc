#ifndef NARUMI_TEST_SYSTEMS_H_
#define NARUMI_TEST_SYSTEMS_H_

// Shared by the C++ test executables: plugin loading, generated test systems (fixed seeds, no data files),
// builders that configure OpenMM's NonbondedForce and NarumiNonbondedForce identically, and comparisons.

#include "NarumiCommon/CoulombConstant.h"
#include "NarumiNonbondedForce.h"
#include "openmm/Context.h"
#include "openmm/NonbondedForce.h"
#include "openmm/OpenMMException.h"
#include "openmm/Platform.h"
#include "openmm/State.h"
#include "openmm/System.h"
#include "openmm/VerletIntegrator.h"
#include <gtest/gtest.h>
#include <algorithm>
#include <array>
#include <cmath>
#include <initializer_list>
#include <map>
#include <memory>
#include <random>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

namespace OpenMMNarumi::Test {

using Common::COULOMB_CONSTANT;
/** AMBER's 1-4 scale factors, used with createExceptionsFromBonds throughout. */
constexpr double COULOMB_14_SCALE = 0.8333, LJ_14_SCALE = 0.5;
/** Water molecules per nm^3 at 1 g/cm^3. */
constexpr double WATERS_PER_NM3 = 33.43;

/** Loads OpenMM's plugins (the CPU platform) and then this project's Reference/CPU kernels, once per process. */
inline void loadPlugins() {
    static const bool loaded = [] {
        // CUDA and OpenCL plugins fail to load without a driver; OpenMM records that and carries on.
        OpenMM::Platform::loadPluginsFromDirectory(OPENMM_PLUGIN_DIR);
        OpenMM::Platform::loadPluginLibrary(NARUMI_REFERENCE_PLUGIN);
        return true;
    }();
    (void) loaded;
}

inline OpenMM::Platform& getPlatform(const std::string& name) {
    loadPlugins();
    return OpenMM::Platform::getPlatformByName(name);
}

/**
 * Why the named platform cannot run this project's kernels here ("" when it can), found once per platform: the CPU
 * platform may be absent, and CUDA needs OpenMM's CUDA plugin, this project's (NARUMI_CUDA_PLUGIN, defined by the CUDA
 * test drivers) and a GPU that answers.  Tests skip with this reason, never pass.
 */
inline std::string platformUnavailableReason(const std::string& name) {
    static std::map<std::string, std::string> reasons;
    auto known = reasons.find(name);
    if (known != reasons.end())
        return known->second;
    std::string reason;
    try {
        loadPlugins();
#ifdef NARUMI_CUDA_PLUGIN
        if (name == "CUDA")
            OpenMM::Platform::loadPluginLibrary(NARUMI_CUDA_PLUGIN);
#endif
        OpenMM::System system;
        system.addParticle(1.0);
        OpenMM::VerletIntegrator integrator(0.001);
        OpenMM::Context context(system, integrator, OpenMM::Platform::getPlatformByName(name));
    }
    catch (const std::exception& error) {
        reason = "no usable " + name + " platform: " + error.what();
    }
    return reasons[name] = reason;
}

/** Skips (never passes) a test where OpenMM's CUDA platform or a GPU is missing. */
#define SKIP_WITHOUT_CUDA()                                           \
    if (!platformUnavailableReason("CUDA").empty())                   \
        GTEST_SKIP() << platformUnavailableReason("CUDA");

/**
 * The platform whose kernel is under test: its name, its Precision property ("" where it has none), the relative
 * energy and RMS force difference its arithmetic is held to against the double-precision oracles, and its
 * DeviceIndex property ("" for the platform's choice; "0,0" makes a two-device CUDA Context on one GPU).
 */
struct PlatformUnderTest {
    std::string platform;
    std::string precision;
    double tolerance;
    std::string deviceIndex = "";

    /** The GoogleTest name of an instantiation: "Reference", "CPU", "CUDA_mixed", "CUDA_mixed_devices_0_0". */
    std::string label() const {
        std::string name = precision.empty() ? platform : platform + "_" + precision;
        if (!deviceIndex.empty()) {
            name += "_devices_" + deviceIndex;
            for (char& c : name)
                if (c == ',')
                    c = '_';
        }
        return name;
    }
};

/** How GoogleTest shows a case's parameter (instead of its bytes). */
inline void PrintTo(const PlatformUnderTest& platform, std::ostream* out) {
    *out << platform.label();
}

/** INSTANTIATE_TEST_SUITE_P(Reference, SomeTest, ::testing::Values(...), platformLabel) names the cases by platform. */
inline std::string platformLabel(const ::testing::TestParamInfo<PlatformUnderTest>& info) {
    return info.param.label();
}


using Box = std::array<OpenMM::Vec3, 3>;

inline Box cubicBox(double edge) {
    return {OpenMM::Vec3(edge, 0, 0), OpenMM::Vec3(0, edge, 0), OpenMM::Vec3(0, 0, edge)};
}

inline double boxVolume(const Box& box) {
    return box[0][0] * box[1][1] * box[2][2]; // OpenMM's reduced form is lower triangular
}

/** OpenMM's periodic displacement in a reduced box: multiples of c, then b, then a rounded away (as its Reference platform does). */
inline OpenMM::Vec3 minimumImage(OpenMM::Vec3 delta, const Box& box) {
    for (int d = 2; d >= 0; d--)
        delta -= box[d] * std::round(delta[d] / box[d][d]);
    return delta;
}

/** The periodic image of position with 0 <= z < c_z, then 0 <= y < b_y, then 0 <= x < a_x (OpenMM's wrapping). */
inline OpenMM::Vec3 wrapIntoBox(OpenMM::Vec3 position, const Box& box) {
    for (int d = 2; d >= 0; d--)
        position -= box[d] * std::floor(position[d] / box[d][d]);
    return position;
}

/** Particles, bonds, positions and periodic box of a test system; forces are built from it by each test. */
struct TestSystem {
    std::vector<double> charges, sigmas, epsilons;
    std::vector<std::pair<int, int> > bonds;
    std::vector<OpenMM::Vec3> positions;
    Box box;

    int size() const {
        return positions.size();
    }
    int addAtom(const OpenMM::Vec3& position, double charge, double sigma, double epsilon) {
        positions.push_back(position);
        charges.push_back(charge);
        sigmas.push_back(sigma);
        epsilons.push_back(epsilon);
        return positions.size() - 1;
    }
};

/**
 * TIP3P-like rigid water (O -0.834 e, sigma 0.315061 nm, epsilon 0.636386 kJ/mol; H +0.417 e, no Lennard-Jones;
 * O-H 0.09572 nm, H-O-H 104.52 degrees) at about 1 g/cm^3: oxygens on a jittered lattice in fractional coordinates
 * (so triclinic boxes are filled too), each molecule in a random orientation.
 */
inline TestSystem waterBox(const Box& box, unsigned seed) {
    TestSystem water;
    water.box = box;
    int molecules = (int) std::lround(WATERS_PER_NM3 * boxVolume(box));
    int perSide = (int) std::ceil(std::cbrt((double) molecules));
    std::mt19937 random(seed);
    std::uniform_real_distribution<double> uniform(-0.5, 0.5);
    const double bondLength = 0.09572, halfAngle = 0.5 * 104.52 * M_PI / 180;
    for (int m = 0; m < molecules; m++) {
        int cell[3] = {m % perSide, (m / perSide) % perSide, m / (perSide * perSide)};
        OpenMM::Vec3 oxygen;
        for (int d = 0; d < 3; d++)
            oxygen += box[d] * ((cell[d] + 0.5 + 0.1 * uniform(random)) / perSide);
        // Two orthonormal vectors spanning the molecular plane.
        OpenMM::Vec3 u(uniform(random), uniform(random), uniform(random));
        u /= std::sqrt(u.dot(u));
        OpenMM::Vec3 v(uniform(random), uniform(random), uniform(random));
        v -= u * u.dot(v);
        v /= std::sqrt(v.dot(v));
        int o = water.addAtom(oxygen, -0.834, 0.315061, 0.636386);
        int h1 = water.addAtom(oxygen + (u * std::cos(halfAngle) + v * std::sin(halfAngle)) * bondLength, 0.417, 1.0, 0.0);
        int h2 = water.addAtom(oxygen + (u * std::cos(halfAngle) - v * std::sin(halfAngle)) * bondLength, 0.417, 1.0, 0.0);
        water.bonds.push_back({o, h1});
        water.bonds.push_back({o, h2});
    }
    return water;
}

/**
 * A charged Lennard-Jones fluid in a cubic box: four particle types with different sigma and epsilon, random
 * charges shifted to sum to zero, random positions at least 0.25 nm apart (minimum image).
 */
inline TestSystem chargedLJFluid(int particles, double edge, unsigned seed) {
    const double typeSigma[4] = {0.25, 0.30, 0.35, 0.40}, typeEpsilon[4] = {0.3, 0.5, 0.8, 1.2}, minimumSeparation = 0.25;
    TestSystem fluid;
    fluid.box = cubicBox(edge);
    std::mt19937 random(seed);
    std::uniform_real_distribution<double> coordinate(0.0, edge), charge(-1.0, 1.0);
    std::uniform_int_distribution<int> type(0, 3);
    while (fluid.size() < particles) {
        OpenMM::Vec3 candidate(coordinate(random), coordinate(random), coordinate(random));
        bool tooClose = false;
        for (const OpenMM::Vec3& p : fluid.positions) {
            OpenMM::Vec3 d = minimumImage(candidate - p, fluid.box);
            if (d.dot(d) < minimumSeparation * minimumSeparation) {
                tooClose = true;
                break;
            }
        }
        if (!tooClose) {
            int t = type(random);
            fluid.addAtom(candidate, charge(random), typeSigma[t], typeEpsilon[t]);
        }
    }
    double meanCharge = 0;
    for (double q : fluid.charges)
        meanCharge += q / particles;
    for (double& q : fluid.charges)
        q -= meanCharge;
    return fluid;
}

/**
 * A 16-atom molecule centred at centre: a five-membered ring (every ring pair is 1-2 or 1-3, and ring pairs
 * two bonds apart one way round are three bonds apart the other way), an 8-atom zig-zag chain on ring atom 0 and
 * four side atoms on the chain, so createExceptionsFromBonds gives exclusions and many 1-4 pairs.
 */
inline TestSystem ringWithChain(const OpenMM::Vec3& centre) {
    TestSystem molecule;
    const double ringRadius = 0.15 / (2 * std::sin(M_PI / 5)); // 0.15 nm ring bonds
    for (int k = 0; k < 5; k++) {
        OpenMM::Vec3 offset(ringRadius * std::cos(2 * M_PI * k / 5), ringRadius * std::sin(2 * M_PI * k / 5), 0);
        molecule.addAtom(centre + offset, -0.12, 0.339967, 0.359824);
        if (k > 0)
            molecule.bonds.push_back({k - 1, k});
    }
    molecule.bonds.push_back({4, 0});
    int previous = 0;
    for (int i = 0; i < 8; i++) {
        OpenMM::Vec3 offset(ringRadius + 0.15 + 0.125 * i, (i % 2 == 0 ? 0.04 : -0.04), 0);
        int atom = molecule.addAtom(centre + offset, (i % 3 == 0 ? -0.3 : 0.2), 0.339967, 0.457730);
        molecule.bonds.push_back({previous, atom});
        previous = atom;
        if (i % 2 == 1) {
            int side = molecule.addAtom(centre + offset + OpenMM::Vec3(0, -0.07, 0.08), 0.1, 0.264953, 0.0656888);
            molecule.bonds.push_back({atom, side});
        }
    }
    return molecule;
}

/** ringWithChain() at centre (atoms 0-15) in a water box, without the waters that come within 0.3 nm of it. */
inline TestSystem solvatedMolecule(const Box& box, const OpenMM::Vec3& centre, unsigned seed) {
    TestSystem solvated = ringWithChain(centre);
    solvated.box = box;
    const int moleculeAtoms = solvated.size();
    TestSystem water = waterBox(box, seed);
    for (int first = 0; first < water.size(); first += 3) {
        bool clash = false;
        for (int i = first; i < first + 3; i++)
            for (int j = 0; j < moleculeAtoms; j++) {
                OpenMM::Vec3 d = minimumImage(water.positions[i] - solvated.positions[j], box);
                clash |= (d.dot(d) < 0.3 * 0.3);
            }
        if (clash)
            continue;
        int o = solvated.addAtom(water.positions[first], water.charges[first], water.sigmas[first], water.epsilons[first]);
        for (int h = 1; h <= 2; h++) {
            solvated.addAtom(water.positions[first + h], water.charges[first + h], water.sigmas[first + h], water.epsilons[first + h]);
            solvated.bonds.push_back({o, o + h});
        }
    }
    return solvated;
}

/** Settings shared by the NonbondedForce oracle and the NarumiNonbondedForce under test. */
struct NonbondedSettings {
    OpenMMNarumi::NarumiNonbondedForce::NonbondedMethod method = OpenMMNarumi::NarumiNonbondedForce::CutoffPeriodic;
    double cutoff = 1.0;
    bool useSwitching = false;
    double switchingDistance = -1;
    bool dispersionCorrection = false;
    double reactionFieldDielectric = 78.3;
    bool exceptionsUsePeriodic = false;

    std::string describe() const {
        std::stringstream text;
        text << "method " << method << ", cutoff " << cutoff << ", switching " << (useSwitching ? std::to_string(switchingDistance) : "off")
             << ", dispersion correction " << dispersionCorrection << ", eps_rf " << reactionFieldDielectric << ", periodic exceptions "
             << exceptionsUsePeriodic;
        return text.str();
    }
};

inline OpenMM::NonbondedForce::NonbondedMethod toNonbondedForceMethod(OpenMMNarumi::NarumiNonbondedForce::NonbondedMethod method) {
    switch (method) {
    case OpenMMNarumi::NarumiNonbondedForce::NoCutoff:
        return OpenMM::NonbondedForce::NoCutoff;
    case OpenMMNarumi::NarumiNonbondedForce::CutoffNonPeriodic:
        return OpenMM::NonbondedForce::CutoffNonPeriodic;
    case OpenMMNarumi::NarumiNonbondedForce::CutoffPeriodic:
        return OpenMM::NonbondedForce::CutoffPeriodic;
    }
    throw OpenMM::OpenMMException("unknown nonbonded method");
}

/** Particles, createExceptionsFromBonds with AMBER 1-4 scales, and the settings: the same calls on either force class. */
template <class Force>
void configure(Force& force, const TestSystem& ts, const NonbondedSettings& settings) {
    for (int i = 0; i < ts.size(); i++)
        force.addParticle(ts.charges[i], ts.sigmas[i], ts.epsilons[i]);
    force.createExceptionsFromBonds(ts.bonds, COULOMB_14_SCALE, LJ_14_SCALE);
    force.setCutoffDistance(settings.cutoff);
    force.setUseSwitchingFunction(settings.useSwitching);
    if (settings.useSwitching)
        force.setSwitchingDistance(settings.switchingDistance);
    force.setUseDispersionCorrection(settings.dispersionCorrection);
    force.setReactionFieldDielectric(settings.reactionFieldDielectric);
    force.setExceptionsUsePeriodicBoundaryConditions(settings.exceptionsUsePeriodic);
}

inline OpenMM::NonbondedForce* makeNonbondedForce(const TestSystem& ts, const NonbondedSettings& settings) {
    auto force = new OpenMM::NonbondedForce();
    configure(*force, ts, settings);
    force->setNonbondedMethod(toNonbondedForceMethod(settings.method));
    return force;
}

inline OpenMMNarumi::NarumiNonbondedForce* makeNarumiForce(
    const TestSystem& ts, const NonbondedSettings& settings,
    OpenMMNarumi::NarumiNonbondedForce::ElectrostaticsMethod electrostatics = OpenMMNarumi::NarumiNonbondedForce::ReactionField) {
    auto force = new OpenMMNarumi::NarumiNonbondedForce();
    configure(*force, ts, settings);
    force->setNonbondedMethod(settings.method);
    force->setElectrostaticsMethod(electrostatics);
    return force;
}

/** A System with ts's particles (mass 1) and box, owning the given forces. */
inline std::unique_ptr<OpenMM::System> makeSystem(const TestSystem& ts, std::initializer_list<OpenMM::Force*> forces) {
    std::unique_ptr<OpenMM::System> system(new OpenMM::System());
    for (int i = 0; i < ts.size(); i++)
        system->addParticle(1.0);
    system->setDefaultPeriodicBoxVectors(ts.box[0], ts.box[1], ts.box[2]);
    for (OpenMM::Force* force : forces)
        system->addForce(force);
    return system;
}

struct EnergyAndForces {
    double energy;
    std::vector<OpenMM::Vec3> forces;
};

inline EnergyAndForces energyAndForces(OpenMM::Context& context, int groups = -1) {
    OpenMM::State state = context.getState(OpenMM::State::Energy | OpenMM::State::Forces, false, groups);
    return {state.getPotentialEnergy(), state.getForces()};
}

/** Force components of two evaluations that differ in any bit. */
inline int differingComponents(const EnergyAndForces& a, const EnergyAndForces& b) {
    int differences = 0;
    for (size_t i = 0; i < a.forces.size(); i++)
        for (int c = 0; c < 3; c++)
            differences += (a.forces[i][c] != b.forces[i][c]);
    return differences;
}

/** Energy and forces of system at positions, from a fresh Context on the named platform. */
/**
 * The Context's forces on the given atoms against central differences of its energy (step in nm), each component to
 * 1e-5 relative (of at least 10 kJ/mol/nm).  The Context's positions are left displaced: set them again after.
 */
inline void expectForcesAreMinusEnergyGradient(OpenMM::Context& context, const std::vector<OpenMM::Vec3>& positions,
                                               std::initializer_list<int> atoms, double step) {
    context.setPositions(positions);
    std::vector<OpenMM::Vec3> forces = energyAndForces(context).forces;
    for (int atom : atoms)
        for (int axis = 0; axis < 3; axis++) {
            std::vector<OpenMM::Vec3> displaced = positions;
            displaced[atom][axis] += step;
            context.setPositions(displaced);
            double plus = context.getState(OpenMM::State::Energy).getPotentialEnergy();
            displaced[atom][axis] -= 2 * step;
            context.setPositions(displaced);
            double minus = context.getState(OpenMM::State::Energy).getPotentialEnergy();
            double numeric = -(plus - minus) / (2 * step);
            EXPECT_NEAR(forces[atom][axis], numeric, 1e-5 * std::max(10.0, std::fabs(numeric))) << "atom " << atom << ", axis " << axis;
        }
}

inline EnergyAndForces evaluate(const OpenMM::System& system, const std::vector<OpenMM::Vec3>& positions, const std::string& platform) {
    OpenMM::VerletIntegrator integrator(0.001);
    OpenMM::Context context(system, integrator, getPlatform(platform));
    context.setPositions(positions);
    return energyAndForces(context);
}

/** A test suite run once per platform (and precision) under test: skips where that platform is unusable. */
class PlatformTest : public ::testing::TestWithParam<PlatformUnderTest> {
protected:
    void SetUp() override {
        std::string reason = platformUnavailableReason(GetParam().platform);
        if (!reason.empty())
            GTEST_SKIP() << reason;
    }
    OpenMM::Platform& platform() const {
        return getPlatform(GetParam().platform);
    }
    std::map<std::string, std::string> properties() const {
        std::map<std::string, std::string> values;
        if (!GetParam().precision.empty())
            values["Precision"] = GetParam().precision;
        if (!GetParam().deviceIndex.empty())
            values["DeviceIndex"] = GetParam().deviceIndex;
        return values;
    }
    double tolerance() const {
        return GetParam().tolerance;
    }
    /** Energy and forces of system at positions on the platform under test, in a Context of its own. */
    EnergyAndForces evaluateHere(const OpenMM::System& system, const std::vector<OpenMM::Vec3>& positions) const {
        OpenMM::VerletIntegrator integrator(0.001);
        OpenMM::Context context(system, integrator, platform(), properties());
        context.setPositions(positions);
        return energyAndForces(context);
    }
};

/** sqrt(sum |actual - expected|^2 / sum |expected|^2); NaN when expected is all zero, so such a comparison fails. */
inline double relativeRmsDifference(const std::vector<OpenMM::Vec3>& actual, const std::vector<OpenMM::Vec3>& expected) {
    double difference = 0, norm = 0;
    for (size_t i = 0; i < expected.size(); i++) {
        OpenMM::Vec3 d = actual[i] - expected[i];
        difference += d.dot(d);
        norm += expected[i].dot(expected[i]);
    }
    return std::sqrt(difference / norm);
}

/** Relative energy difference and relative RMS force difference both at most tolerance. */
inline ::testing::AssertionResult agree(const EnergyAndForces& actual, const EnergyAndForces& expected, double tolerance = 1e-6) {
    if (actual.forces.size() != expected.forces.size())
        return ::testing::AssertionFailure() << "different particle counts";
    double energyError = std::fabs(actual.energy - expected.energy) / std::fabs(expected.energy);
    double forceError = relativeRmsDifference(actual.forces, expected.forces);
    std::stringstream report;
    report.precision(17);
    report << "energy " << actual.energy << " vs " << expected.energy << " (relative difference " << energyError
           << "), relative RMS force difference " << forceError << ", tolerance " << tolerance;
    if (energyError <= tolerance && forceError <= tolerance)
        return ::testing::AssertionSuccess() << report.str();
    return ::testing::AssertionFailure() << report.str();
}

/** (min, max) particle pair -> (chargeProd, sigma, epsilon) of every exception of force. */
template <class Force>
std::map<std::pair<int, int>, std::array<double, 3> > exceptionsByPair(const Force& force) {
    std::map<std::pair<int, int>, std::array<double, 3> > byPair;
    for (int i = 0; i < force.getNumExceptions(); i++) {
        int p1, p2;
        double chargeProd, sigma, epsilon;
        force.getExceptionParameters(i, p1, p2, chargeProd, sigma, epsilon);
        byPair[{std::min(p1, p2), std::max(p1, p2)}] = {chargeProd, sigma, epsilon};
    }
    return byPair;
}

/** EXPECT that calling function throws an OpenMMException whose message contains text. */
template <class Function>
void expectThrowsNaming(Function function, const std::string& text) {
    try {
        function();
        ADD_FAILURE() << "no OpenMMException; expected one naming \"" << text << "\"";
    }
    catch (const OpenMM::OpenMMException& error) {
        EXPECT_NE(std::string(error.what()).find(text), std::string::npos) << error.what();
    }
}

/** EXPECT that statement throws an OpenMMException whose message contains fragment. */
#define EXPECT_OPENMM_EXCEPTION_CONTAINING(statement, fragment)                                                                   \
    try {                                                                                                                        \
        statement;                                                                                                               \
        ADD_FAILURE() << "no OpenMMException from: " #statement;                                                                 \
    } catch (const OpenMM::OpenMMException& error) {                                                                             \
        EXPECT_NE(std::string(error.what()).find(fragment), std::string::npos)                                                   \
            << "message \"" << error.what() << "\" lacks \"" << fragment << "\"";                                                \
    }

} // namespace OpenMMNarumi::Test

#endif // NARUMI_TEST_SYSTEMS_H_
