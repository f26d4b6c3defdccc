/**
 * A program that uses the installed C++ package (find_package(OpenMMNarumi)) as a user's would: a periodic box of
 * charged Lennard-Jones particles in bonded chains, its energy and forces from NarumiNonbondedForce on OpenMM's
 * Reference platform against OpenMM's NonbondedForce with the same parameters (reaction field, switching, dispersion
 * correction, exclusions and 1-4 exceptions), then the same force made by the converter and read back from XML.
 * Exits non-zero, naming the difference, on any mismatch or error.
 */

#include "NarumiNonbondedForce.h"
#include "NonbondedForceConversion.h"
#include "OpenMM.h"
#include "openmm/serialization/XmlSerializer.h"
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <exception>
#include <memory>
#include <random>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

using namespace OpenMM;
using OpenMMNarumi::NarumiNonbondedForce;

namespace {

// Both forces sum in double on Reference, each pair and exception term by the same formula; only the order differs.
constexpr double TOLERANCE = 1e-9;
constexpr int LATTICE = 8;
constexpr double SPACING = 0.31, CUTOFF = 1.0, SWITCH = 0.9, DIELECTRIC = 78.3;

struct Evaluation {
    double energy;
    std::vector<Vec3> forces;
};

Evaluation evaluate(const System& system, const std::vector<Vec3>& positions) {
    VerletIntegrator integrator(0.001);
    Context context(system, integrator, Platform::getPlatformByName("Reference"));
    context.setPositions(positions);
    State state = context.getState(State::Energy | State::Forces);
    return {state.getPotentialEnergy(), state.getForces()};
}

/** The largest of the energy's and the forces' differences, relative to the oracle's energy and largest force. */
double relativeDifference(const Evaluation& tested, const Evaluation& oracle) {
    double largestForce = 0, largestDifference = 0;
    for (size_t i = 0; i < oracle.forces.size(); i++) {
        Vec3 difference = tested.forces[i] - oracle.forces[i];
        largestForce = std::max(largestForce, std::sqrt(oracle.forces[i].dot(oracle.forces[i])));
        largestDifference = std::max(largestDifference, std::sqrt(difference.dot(difference)));
    }
    return std::max(std::fabs(tested.energy - oracle.energy) / std::max(1.0, std::fabs(oracle.energy)),
                    largestDifference / largestForce);
}

bool agree(const char* what, const Evaluation& tested, const Evaluation& oracle) {
    double difference = relativeDifference(tested, oracle);
    bool ok = difference <= TOLERANCE;
    std::printf("%-48s energy %.12g kJ/mol (oracle %.12g), relative difference %.2e: %s\n", what, tested.energy,
                oracle.energy, difference, ok ? "ok" : "MISMATCH");
    return ok;
}

} // namespace

int main() {
    std::setvbuf(stdout, nullptr, _IOLBF, 0);  // each line reaches the log, even if the program then crashes
    try {
        std::vector<std::string> loaded = Platform::loadPluginsFromDirectory(NARUMI_PLUGIN_DIR);
        std::printf("plugins loaded from %s: %zu\n", NARUMI_PLUGIN_DIR, loaded.size());
        for (const std::string& failure : Platform::getPluginLoadFailures())
            std::printf("  not loaded (a CUDA plugin without a GPU driver is expected to fail): %s\n", failure.c_str());

        // A jittered lattice in a box of 2.48 nm, alternating charges, chains of four bonded particles along x.
        const int numParticles = LATTICE * LATTICE * LATTICE;
        const double box = LATTICE * SPACING;
        std::mt19937 random(5);
        std::uniform_real_distribution<double> jitter(-0.05, 0.05);
        std::vector<Vec3> positions;
        std::vector<std::pair<int, int>> bonds;
        System oracleSystem, narumiSystem, convertedSystem;
        auto* oracle = new NonbondedForce();
        auto* narumi = new NarumiNonbondedForce();
        for (int i = 0; i < numParticles; i++) {
            int x = i % LATTICE, y = i / LATTICE % LATTICE, z = i / (LATTICE * LATTICE);
            positions.push_back(Vec3((x + 0.5) * SPACING + jitter(random), (y + 0.5) * SPACING + jitter(random),
                                     (z + 0.5) * SPACING + jitter(random)));
            double charge = (i % 2 == 0 ? 0.4 : -0.4), sigma = (i % 3 == 0 ? 0.3 : 0.25), epsilon = (i % 2 == 0 ? 0.6 : 0.4);
            for (System* system : {&oracleSystem, &narumiSystem, &convertedSystem})
                system->addParticle(12.0);
            oracle->addParticle(charge, sigma, epsilon);
            narumi->addParticle(charge, sigma, epsilon);
            if (x % 4 != 0)
                bonds.emplace_back(i - 1, i);
        }
        for (System* system : {&oracleSystem, &narumiSystem, &convertedSystem})
            system->setDefaultPeriodicBoxVectors(Vec3(box, 0, 0), Vec3(0, box, 0), Vec3(0, 0, box));
        oracle->setNonbondedMethod(NonbondedForce::CutoffPeriodic);
        narumi->setNonbondedMethod(NarumiNonbondedForce::CutoffPeriodic);
        oracle->setCutoffDistance(CUTOFF);
        narumi->setCutoffDistance(CUTOFF);
        oracle->setReactionFieldDielectric(DIELECTRIC);
        narumi->setReactionFieldDielectric(DIELECTRIC);
        oracle->setUseSwitchingFunction(true);
        narumi->setUseSwitchingFunction(true);
        oracle->setSwitchingDistance(SWITCH);
        narumi->setSwitchingDistance(SWITCH);
        oracle->setUseDispersionCorrection(true);
        narumi->setUseDispersionCorrection(true);
        oracle->createExceptionsFromBonds(bonds, 0.8333, 0.5);
        narumi->createExceptionsFromBonds(bonds, 0.8333, 0.5);
        oracleSystem.addForce(oracle);
        narumiSystem.addForce(narumi);
        std::printf("%d particles, %d exceptions\n", numParticles, narumi->getNumExceptions());

        Evaluation expected = evaluate(oracleSystem, positions);
        bool ok = agree("NarumiNonbondedForce vs NonbondedForce", evaluate(narumiSystem, positions), expected);

        convertedSystem.addForce(OpenMMNarumi::createNarumiNonbondedForce(*oracle));
        ok &= agree("createNarumiNonbondedForce vs NonbondedForce", evaluate(convertedSystem, positions), expected);

        std::stringstream xml;
        XmlSerializer::serialize<System>(&narumiSystem, "System", xml);
        std::unique_ptr<System> copy(XmlSerializer::deserialize<System>(xml));
        if (dynamic_cast<NarumiNonbondedForce*>(&copy->getForce(0)) == nullptr) {
            std::printf("the System read back from XML holds no NarumiNonbondedForce\n");
            return 1;
        }
        ok &= agree("NarumiNonbondedForce from XML vs NonbondedForce", evaluate(*copy, positions), expected);
        return ok ? 0 : 1;
    }
    catch (const std::exception& error) {
        std::printf("error: %s\n", error.what());
        return 1;
    }
}
