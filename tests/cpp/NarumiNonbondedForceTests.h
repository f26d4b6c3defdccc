#ifndef NARUMI_NONBONDED_FORCE_TESTS_H_
#define NARUMI_NONBONDED_FORCE_TESTS_H_

/**
 * The behaviour every platform's NarumiNonbondedForce kernel must have, written once (OpenMM's pattern of one test
 * body per feature): a platform's driver (platforms/<platform>/tests/Test<Platform>NarumiNonbondedForce.cpp) includes
 * this file and instantiates the suites with the platforms and precisions it runs, each with the tolerance of its
 * arithmetic.  The oracles are OpenMM's own forces on its double-precision Reference platform (NonbondedForce for
 * reaction field, plain Coulomb, cutoffs, switching, dispersion correction and exceptions; CustomNonbondedForce +
 * CustomBondForce for Shifted electrostatics), a brute-force direct sum where OpenMM's Reference platform is
 * unreliable, and central differences of the energy.
 */

#include "NarumiTestSystems.h"
#include "openmm/CustomBondForce.h"
#include "openmm/CustomExternalForce.h"
#include "openmm/CustomNonbondedForce.h"
#include <algorithm>
#include <map>
#include <set>

using namespace OpenMMNarumi;
using namespace OpenMMNarumi::Test;
using namespace OpenMM;
using namespace std;

namespace {

using Narumi = NarumiNonbondedForce;

class NarumiNonbondedForceTest : public PlatformTest {
protected:
    /** Our force on the platform under test against NonbondedForce on the Reference platform, both from ts and settings. */
    void expectMatchesNonbondedForce(const TestSystem& ts, const NonbondedSettings& settings,
                                     Narumi::ElectrostaticsMethod electrostatics = Narumi::ReactionField) const {
        SCOPED_TRACE(settings.describe() + ", electrostatics " + to_string(electrostatics));
        auto oracle = makeSystem(ts, {makeNonbondedForce(ts, settings)});
        auto narumi = makeSystem(ts, {makeNarumiForce(ts, settings, electrostatics)});
        EXPECT_TRUE(agree(evaluateHere(*narumi, ts.positions), evaluate(*oracle, ts.positions, "Reference"), tolerance()));
    }
};

/**
 * Central differences of the energy: only for double-precision energies summed exactly enough (Reference and CPU).  A
 * GPU's energy is a sum of pair energies each rounded to the 2^-25 kJ/mol Narumi grid, ~1e-5 kJ/mol of noise on a
 * 1e-5 nm step: the differences would measure that grid, not the force.
 */
class NarumiNonbondedForceGradientTest : public NarumiNonbondedForceTest {};



NonbondedSettings periodic(double cutoff, double switchingDistance = -1, bool dispersionCorrection = false) {
    NonbondedSettings settings;
    settings.method = Narumi::CutoffPeriodic;
    settings.cutoff = cutoff;
    settings.useSwitching = (switchingDistance > 0);
    settings.switchingDistance = switchingDistance;
    settings.dispersionCorrection = dispersionCorrection;
    return settings;
}

NonbondedSettings withMethod(NonbondedSettings settings, Narumi::NonbondedMethod method) {
    settings.method = method;
    return settings;
}

/** About 1300 waters (3975 atoms) in a 3.41 nm cube. */
TestSystem largeWaterBox() {
    return waterBox(cubicBox(3.41), 1);
}

/** ringWithChain() inside a 2.6 nm cube of water (about 1700 atoms). */
TestSystem solvatedMoleculeInCube() {
    return solvatedMolecule(cubicBox(2.6), Vec3(0.7, 1.3, 1.3), 3);
}

// ---------------------------------------------------------------------------------------------------------------
// Against NonbondedForce

TEST_P(NarumiNonbondedForceTest, WaterBoxWithCutoffPeriodicMatchesNonbondedForce) {
    TestSystem water = largeWaterBox();
    for (double switchingDistance : {-1.0, 0.8, 0.9})
        for (bool dispersionCorrection : {false, true})
            expectMatchesNonbondedForce(water, periodic(1.0, switchingDistance, dispersionCorrection));
}

TEST_P(NarumiNonbondedForceTest, WaterBoxWithoutPeriodicityMatchesNonbondedForce) {
    TestSystem water = largeWaterBox();
    // With NoCutoff both electrostatics methods are plain Coulomb.
    NonbondedSettings noCutoff = withMethod(NonbondedSettings(), Narumi::NoCutoff);
    expectMatchesNonbondedForce(water, noCutoff, Narumi::ReactionField);
    expectMatchesNonbondedForce(water, noCutoff, Narumi::Shifted);
    // Neither force applies the dispersion correction without periodicity.
    expectMatchesNonbondedForce(water, withMethod(periodic(1.0), Narumi::CutoffNonPeriodic));
    expectMatchesNonbondedForce(water, withMethod(periodic(1.0, 0.9, true), Narumi::CutoffNonPeriodic));
}

TEST_P(NarumiNonbondedForceTest, ChargedLJFluidMatchesNonbondedForce) {
    TestSystem fluid = chargedLJFluid(1000, 3.2, 2);
    NonbondedSettings lowDielectric = periodic(1.2, 1.0, true);
    lowDielectric.reactionFieldDielectric = 40;
    expectMatchesNonbondedForce(fluid, lowDielectric);
    expectMatchesNonbondedForce(fluid, periodic(1.0));
    expectMatchesNonbondedForce(fluid, withMethod(periodic(1.2), Narumi::CutoffNonPeriodic));
    expectMatchesNonbondedForce(fluid, withMethod(periodic(1.2), Narumi::NoCutoff));
}

TEST_P(NarumiNonbondedForceTest, SolvatedMoleculeWithOneFourPairsMatchesNonbondedForce) {
    TestSystem solvated = solvatedMoleculeInCube();
    expectMatchesNonbondedForce(solvated, periodic(0.9, 0.75, true));
    expectMatchesNonbondedForce(solvated, withMethod(periodic(0.9), Narumi::CutoffNonPeriodic));
    expectMatchesNonbondedForce(solvated, withMethod(periodic(0.9), Narumi::NoCutoff));
}


// ---------------------------------------------------------------------------------------------------------------
// Triclinic boxes

/** OpenMM's reduced form; perpendicular widths 2.55, 2.63 and 2.7 nm. */
Box skewedBox() {
    return {Vec3(3, 0, 0), Vec3(1, 2.8, 0), Vec3(-1, 1, 2.7)};
}

TEST_P(NarumiNonbondedForceTest, TriclinicWaterBoxMatchesNonbondedForce) {
    TestSystem water = waterBox(skewedBox(), 4);
    expectMatchesNonbondedForce(water, periodic(1.0));
    expectMatchesNonbondedForce(water, periodic(1.2, 0.9, true));
}

TEST_P(NarumiNonbondedForceTest, MoleculeSplitByTriclinicBoundaryMatchesNonbondedForce) {
    // The chain runs along +x from x = 2.3 and crosses the face at x = 3: wrapping atoms one by one splits it.
    TestSystem whole = solvatedMolecule(skewedBox(), Vec3(2.3, 1.4, 1.35), 5);
    TestSystem split = whole;
    for (Vec3& p : split.positions)
        p = wrapIntoBox(p, split.box);
    unique_ptr<Narumi> wholeForce(makeNarumiForce(whole, NonbondedSettings()));
    bool splitOneFourPair = false;
    for (const auto& exception : exceptionsByPair(*wholeForce)) {
        Vec3 d = split.positions[exception.first.second] - split.positions[exception.first.first];
        splitOneFourPair |= (exception.second[2] != 0 && sqrt(d.dot(d)) > 1.0);
    }
    ASSERT_TRUE(splitOneFourPair) << "the molecule does not straddle the boundary";

    NonbondedSettings settings = periodic(1.0, 0.85, true);
    for (bool exceptionsUsePeriodic : {false, true}) {
        settings.exceptionsUsePeriodic = exceptionsUsePeriodic;
        expectMatchesNonbondedForce(split, settings);
    }
    // With periodic exceptions the split molecule has the energy of the whole one.
    settings.exceptionsUsePeriodic = true;
    auto system = makeSystem(split, {makeNarumiForce(split, settings)});
    double wholeEnergy = evaluateHere(*system, whole.positions).energy;
    EXPECT_NEAR(evaluateHere(*system, split.positions).energy, wholeEnergy, max(1e-10, tolerance()) * fabs(wholeEnergy));
}

/**
 * Reaction-field + Lennard-Jones energy and forces summed over every pair, each at its true minimum image (the
 * nearest of the 27 images around the reduced displacement), and every nonzero exception as plain Coulomb + LJ.
 */
EnergyAndForces directSum(const TestSystem& ts, const Narumi& force) {
    double rc = force.getCutoffDistance(), eps = force.getReactionFieldDielectric();
    double krf = (eps - 1) / ((2 * eps + 1) * rc * rc * rc), crf = 3 * eps / ((2 * eps + 1) * rc);
    auto exceptions = exceptionsByPair(force);
    EnergyAndForces result{0.0, vector<Vec3>(ts.size())};
    auto addPair = [&](int i, int j, const Vec3& delta, double energy, double dEdr) {
        double r = sqrt(delta.dot(delta));
        result.energy += energy;
        result.forces[i] += delta * (dEdr / r);
        result.forces[j] -= delta * (dEdr / r);
    };
    for (int i = 0; i < ts.size(); i++)
        for (int j = i + 1; j < ts.size(); j++) {
            if (exceptions.count({i, j}))
                continue;
            Vec3 reduced = minimumImage(ts.positions[j] - ts.positions[i], ts.box), delta = reduced;
            for (int a = -1; a <= 1; a++)
                for (int b = -1; b <= 1; b++)
                    for (int c = -1; c <= 1; c++) {
                        Vec3 image = reduced + ts.box[0] * a + ts.box[1] * b + ts.box[2] * c;
                        if (image.dot(image) < delta.dot(delta))
                            delta = image;
                    }
            double r = sqrt(delta.dot(delta));
            if (r >= rc)
                continue;
            double kq = COULOMB_CONSTANT * ts.charges[i] * ts.charges[j];
            double sigma = 0.5 * (ts.sigmas[i] + ts.sigmas[j]), epsilon = sqrt(ts.epsilons[i] * ts.epsilons[j]);
            double sr6 = pow(sigma / r, 6);
            addPair(i, j, delta, kq * (1 / r + krf * r * r - crf) + 4 * epsilon * (sr6 * sr6 - sr6),
                    kq * (-1 / (r * r) + 2 * krf * r) + 4 * epsilon * (6 * sr6 - 12 * sr6 * sr6) / r);
        }
    for (const auto& exception : exceptions) {
        int i = exception.first.first, j = exception.first.second;
        double chargeProd = exception.second[0], sigma = exception.second[1], epsilon = exception.second[2];
        Vec3 delta = ts.positions[j] - ts.positions[i];
        double r = sqrt(delta.dot(delta)), sr6 = pow(sigma / r, 6);
        if (chargeProd != 0 || epsilon != 0)
            addPair(i, j, delta, COULOMB_CONSTANT * chargeProd / r + 4 * epsilon * (sr6 * sr6 - sr6),
                    -COULOMB_CONSTANT * chargeProd / (r * r) + 4 * epsilon * (6 * sr6 - 12 * sr6 * sr6) / r);
    }
    return result;
}

TEST_P(NarumiNonbondedForceTest, TruncatedOctahedronMatchesDirectSum) {
    // OpenMM 8.6.1's Reference NonbondedForce misses interactions in this box with a 0.9 nm cutoff (it agrees with
    // a 1.0 nm cutoff; OpenMM's CPU platform agrees with the direct sum in both), so the oracle here is a direct sum.
    const double d = 3.0;
    Box octahedron = {Vec3(d, 0, 0), Vec3(d / 3, 2 * sqrt(2.0) * d / 3, 0), Vec3(-d / 3, sqrt(2.0) * d / 3, sqrt(6.0) * d / 3)};
    TestSystem water = waterBox(octahedron, 6);
    NonbondedSettings settings = periodic(0.9);
    Narumi* force = makeNarumiForce(water, settings);
    auto system = makeSystem(water, {force});
    EXPECT_TRUE(agree(evaluateHere(*system, water.positions), directSum(water, *force), max(1e-9, tolerance())));
}

// ---------------------------------------------------------------------------------------------------------------
// Shifted electrostatics and NoCoulomb

/**
 * Shifted electrostatics written out with OpenMM's custom forces: a CustomNonbondedForce for the pairs (every
 * exception pair excluded) and a CustomBondForce with plain Coulomb + LJ for the nonzero exceptions.
 */
unique_ptr<System> shiftedOracle(const TestSystem& ts, const NonbondedSettings& settings) {
    stringstream coulomb;
    coulomb.precision(17);
    coulomb << COULOMB_CONSTANT;
    auto pairs = new CustomNonbondedForce(coulomb.str() + "*q1*q2/r*(1-r^2/rc^2)^2 + 4*eps*((sig/r)^12-(sig/r)^6);"
                                                           "sig=0.5*(sigma1+sigma2); eps=sqrt(epsilon1*epsilon2)");
    pairs->addGlobalParameter("rc", settings.cutoff);
    for (const char* name : {"q", "sigma", "epsilon"})
        pairs->addPerParticleParameter(name);
    for (int i = 0; i < ts.size(); i++)
        pairs->addParticle({ts.charges[i], ts.sigmas[i], ts.epsilons[i]});
    pairs->setNonbondedMethod(settings.method == Narumi::CutoffPeriodic ? CustomNonbondedForce::CutoffPeriodic
                                                                        : CustomNonbondedForce::CutoffNonPeriodic);
    pairs->setCutoffDistance(settings.cutoff);
    auto exceptions = new CustomBondForce(coulomb.str() + "*chargeProd/r + 4*epsilon*((sigma/r)^12-(sigma/r)^6)");
    for (const char* name : {"chargeProd", "sigma", "epsilon"})
        exceptions->addPerBondParameter(name);
    unique_ptr<NonbondedForce> exceptionSource(makeNonbondedForce(ts, settings));
    for (const auto& exception : exceptionsByPair(*exceptionSource)) {
        pairs->addExclusion(exception.first.first, exception.first.second);
        if (exception.second[0] != 0 || exception.second[2] != 0)
            exceptions->addBond(exception.first.first, exception.first.second,
                                {exception.second[0], exception.second[1], exception.second[2]});
    }
    return makeSystem(ts, {pairs, exceptions});
}

TEST_P(NarumiNonbondedForceTest, ShiftedElectrostaticsMatchCustomForces) {
    TestSystem solvated = solvatedMoleculeInCube();
    // CustomNonbondedForce has no switching and no long-range correction by default: neither has ours here.
    for (Narumi::NonbondedMethod method : {Narumi::CutoffPeriodic, Narumi::CutoffNonPeriodic}) {
        NonbondedSettings settings = withMethod(periodic(1.0), method);
        SCOPED_TRACE(settings.describe());
        auto narumi = makeSystem(solvated, {makeNarumiForce(solvated, settings, Narumi::Shifted)});
        EXPECT_TRUE(agree(evaluateHere(*narumi, solvated.positions), evaluate(*shiftedOracle(solvated, settings), solvated.positions, "Reference"), tolerance()));
    }
}

TEST_P(NarumiNonbondedForceTest, NoCoulombMatchesNonbondedForceWithoutCharges) {
    // The solvated molecule has charged 1-4 exceptions: NoCoulomb must drop their Coulomb term too.
    TestSystem charged = solvatedMoleculeInCube();
    TestSystem uncharged = charged;
    fill(uncharged.charges.begin(), uncharged.charges.end(), 0.0);
    for (const NonbondedSettings& settings : {periodic(0.9, 0.75, true), withMethod(periodic(0.9), Narumi::NoCutoff)}) {
        SCOPED_TRACE(settings.describe());
        auto narumi = makeSystem(charged, {makeNarumiForce(charged, settings, Narumi::NoCoulomb)});
        auto oracle = makeSystem(uncharged, {makeNonbondedForce(uncharged, settings)});
        EXPECT_TRUE(agree(evaluateHere(*narumi, charged.positions), evaluate(*oracle, charged.positions, "Reference"), tolerance()));
    }
}

// ---------------------------------------------------------------------------------------------------------------
// Finite differences

TEST_P(NarumiNonbondedForceGradientTest, ForcesAreMinusTheGradientOfTheEnergy) {
    // Switching makes every cutoff method continuous in energy, so central differences apply.
    TestSystem solvated = solvatedMolecule(cubicBox(2.2), Vec3(0.5, 1.1, 1.1), 7);
    // Atoms 0, 7, 14, 16, 17 and 400: ring, chain, side atom, a water O and H, another water.
    const pair<NonbondedSettings, Narumi::ElectrostaticsMethod> cases[] = {
        {periodic(0.9, 0.75, true), Narumi::ReactionField},
        {periodic(0.9, 0.75, true), Narumi::Shifted},
        {periodic(0.9, 0.75, true), Narumi::NoCoulomb},
        {withMethod(periodic(0.9, 0.75), Narumi::CutoffNonPeriodic), Narumi::Shifted},
        {withMethod(periodic(0.9), Narumi::NoCutoff), Narumi::ReactionField}};
    for (const auto& testCase : cases) {
        SCOPED_TRACE(testCase.first.describe() + ", electrostatics " + to_string(testCase.second));
        auto system = makeSystem(solvated, {makeNarumiForce(solvated, testCase.first, testCase.second)});
        VerletIntegrator integrator(0.001);
        Context context(*system, integrator, platform(), properties());
        expectForcesAreMinusEnergyGradient(context, solvated.positions, {0, 7, 14, 16, 17, 400}, 1e-5);
    }
}

// ---------------------------------------------------------------------------------------------------------------
// updateParametersInContext

TEST_P(NarumiNonbondedForceTest, UpdateParametersInContextMatchesNonbondedForce) {
    TestSystem solvated = solvatedMoleculeInCube();
    NonbondedSettings settings = periodic(1.0, 0.85, true); // the dispersion correction depends on the parameters
    NonbondedForce* nonbonded = makeNonbondedForce(solvated, settings);
    Narumi* narumi = makeNarumiForce(solvated, settings);
    auto oracleSystem = makeSystem(solvated, {nonbonded}), narumiSystem = makeSystem(solvated, {narumi});
    VerletIntegrator oracleIntegrator(0.001), narumiIntegrator(0.001);
    Context oracle(*oracleSystem, oracleIntegrator, getPlatform("Reference"));
    Context context(*narumiSystem, narumiIntegrator, platform(), properties());
    oracle.setPositions(solvated.positions);
    context.setPositions(solvated.positions);
    double energyBefore = energyAndForces(context).energy;

    // New parameters for molecule atoms and for a water (a new Lennard-Jones class), and rescaled 1-4 exceptions.
    for (int i : {0, 3, 6, 11, 16, 17}) {
        double charge = 0.4 - 0.1 * (i % 5), sigma = 0.28 + 0.01 * (i % 4), epsilon = 0.2 + 0.15 * (i % 3);
        nonbonded->setParticleParameters(i, charge, sigma, epsilon);
        narumi->setParticleParameters(i, charge, sigma, epsilon);
    }
    map<pair<int, int>, int> oracleIndex;
    for (int i = 0; i < nonbonded->getNumExceptions(); i++) {
        int p1, p2;
        double chargeProd, sigma, epsilon;
        nonbonded->getExceptionParameters(i, p1, p2, chargeProd, sigma, epsilon);
        oracleIndex[{min(p1, p2), max(p1, p2)}] = i;
    }
    int changedExceptions = 0;
    for (int i = 0; i < narumi->getNumExceptions(); i++) {
        int p1, p2;
        double chargeProd, sigma, epsilon;
        narumi->getExceptionParameters(i, p1, p2, chargeProd, sigma, epsilon);
        if (epsilon == 0)
            continue;
        narumi->setExceptionParameters(i, p1, p2, 1.5 * chargeProd, 1.1 * sigma, 0.5 * epsilon);
        nonbonded->setExceptionParameters(oracleIndex.at({min(p1, p2), max(p1, p2)}), p1, p2, 1.5 * chargeProd, 1.1 * sigma, 0.5 * epsilon);
        changedExceptions++;
    }
    ASSERT_GT(changedExceptions, 10);
    nonbonded->updateParametersInContext(oracle);
    narumi->updateParametersInContext(context);
    EnergyAndForces updated = energyAndForces(context);
    EXPECT_GT(fabs(updated.energy - energyBefore), 1.0) << "the update changed nothing";
    EXPECT_TRUE(agree(updated, energyAndForces(oracle), tolerance()));
}

TEST_P(NarumiNonbondedForceTest, UpdateParametersInContextRefusesToTurnAnExclusionIntoAnExceptionLikeNonbondedForce) {
    TestSystem solvated = solvatedMoleculeInCube();
    NonbondedSettings settings = periodic(1.0);
    NonbondedForce* nonbonded = makeNonbondedForce(solvated, settings);
    Narumi* narumi = makeNarumiForce(solvated, settings);
    auto oracleSystem = makeSystem(solvated, {nonbonded}), narumiSystem = makeSystem(solvated, {narumi});
    VerletIntegrator oracleIntegrator(0.001), narumiIntegrator(0.001);
    Context oracle(*oracleSystem, oracleIntegrator, getPlatform("Reference"));
    Context context(*narumiSystem, narumiIntegrator, platform(), properties());
    context.setPositions(solvated.positions);
    EnergyAndForces before = energyAndForces(context);
    // Pair 0-2 is a 1-3 exclusion in the ring: it may not start to interact, in NonbondedForce either.
    int ringExclusion = -1;
    for (int i = 0; i < nonbonded->getNumExceptions() && ringExclusion < 0; i++) {
        int p1, p2;
        double chargeProd, sigma, epsilon;
        nonbonded->getExceptionParameters(i, p1, p2, chargeProd, sigma, epsilon);
        ringExclusion = (min(p1, p2) == 0 && max(p1, p2) == 2 ? i : -1);
    }
    ASSERT_GE(ringExclusion, 0);
    nonbonded->setExceptionParameters(ringExclusion, 0, 2, 0.05, 0.3, 0.4);
    EXPECT_THROW(nonbonded->updateParametersInContext(oracle), OpenMMException);
    int index = narumi->addException(0, 2, 0.05, 0.3, 0.4, true);
    EXPECT_OPENMM_EXCEPTION_CONTAINING(narumi->updateParametersInContext(context),
                                       "the set of non-excluded exceptions has changed (exception " + to_string(index) +
                                       ", particles 0 and 2, was excluded");
    EXPECT_TRUE(agree(energyAndForces(context), before, 1e-12)) << "a refused update changed the Context";
    // An interacting exception may be set to zero, in NonbondedForce too.
    nonbonded->setExceptionParameters(ringExclusion, 0, 2, 0.0, 1.0, 0.0);
    narumi->addException(0, 2, 0.0, 1.0, 0.0, true);
    int zeroed = 0;
    for (int i = 0; i < nonbonded->getNumExceptions() && zeroed < 3; i++) {
        int p1, p2;
        double chargeProd, sigma, epsilon;
        nonbonded->getExceptionParameters(i, p1, p2, chargeProd, sigma, epsilon);
        if (epsilon == 0)
            continue;
        nonbonded->setExceptionParameters(i, p1, p2, 0.0, sigma, 0.0);
        narumi->addException(p1, p2, 0.0, sigma, 0.0, true);
        zeroed++;
    }
    ASSERT_EQ(zeroed, 3);
    nonbonded->updateParametersInContext(oracle);
    narumi->updateParametersInContext(context);
    oracle.setPositions(solvated.positions);
    EnergyAndForces updated = energyAndForces(context);
    EXPECT_GT(fabs(updated.energy - before.energy), 1e-3) << "the update changed nothing";
    EXPECT_TRUE(agree(updated, energyAndForces(oracle), tolerance()));
}

TEST_P(NarumiNonbondedForceTest, UpdateParametersInContextRefusesNewExceptionPairs) {
    TestSystem solvated = solvatedMoleculeInCube();
    Narumi* narumi = makeNarumiForce(solvated, periodic(1.0));
    auto system = makeSystem(solvated, {narumi});
    VerletIntegrator integrator(0.001);
    Context context(*system, integrator, platform(), properties());
    int p1, p2;
    double chargeProd, sigma, epsilon;
    narumi->getExceptionParameters(0, p1, p2, chargeProd, sigma, epsilon);
    narumi->setExceptionParameters(0, p1, solvated.size() - 1, chargeProd, sigma, epsilon); // a pair with a far water
    EXPECT_OPENMM_EXCEPTION_CONTAINING(narumi->updateParametersInContext(context), "cannot change which pairs are exceptions");
}

// ---------------------------------------------------------------------------------------------------------------
// Force groups, periodicity, determinism

TEST_P(NarumiNonbondedForceTest, ForceGroupsSelectTheForce) {
    TestSystem water = waterBox(cubicBox(2.2), 8);
    Narumi* narumi = makeNarumiForce(water, periodic(1.0));
    narumi->setForceGroup(3);
    auto external = new CustomExternalForce("0.5*x^2+y");
    for (int i = 0; i < water.size(); i++)
        external->addParticle(i);
    auto both = makeSystem(water, {narumi, external});
    auto narumiAlone = makeSystem(water, {makeNarumiForce(water, periodic(1.0))});
    EnergyAndForces expected = evaluateHere(*narumiAlone, water.positions);

    VerletIntegrator integrator(0.001);
    Context context(*both, integrator, platform(), properties());
    context.setPositions(water.positions);
    EnergyAndForces group3 = energyAndForces(context, 1 << 3), group0 = energyAndForces(context, 1 << 0);
    EnergyAndForces all = energyAndForces(context);
    EXPECT_EQ(group3.energy, expected.energy);
    EXPECT_EQ(group3.forces, expected.forces);
    double externalEnergy = 0;
    for (int i = 0; i < water.size(); i++) {
        externalEnergy += 0.5 * water.positions[i][0] * water.positions[i][0] + water.positions[i][1];
        for (int k = 0; k < 3; k++)
            ASSERT_NEAR(group0.forces[i][k], Vec3(-water.positions[i][0], -1, 0)[k], max(1e-12, tolerance()) * max(1.0, fabs(water.positions[i][0]))) << "particle " << i;
    }
    EXPECT_NEAR(group0.energy, externalEnergy, max(1e-12, tolerance()) * fabs(externalEnergy));
    EXPECT_NEAR(all.energy, group3.energy + group0.energy, max(1e-12, tolerance()) * fabs(all.energy));
}

TEST_P(NarumiNonbondedForceTest, RepeatedEvaluationsAndContextsAreBitwiseIdentical) {
    TestSystem water = largeWaterBox();
    auto system = makeSystem(water, {makeNarumiForce(water, periodic(1.0, 0.9, true))});
    VerletIntegrator integrator(0.001);
    Context context(*system, integrator, platform(), properties());
    context.setPositions(water.positions);
    EnergyAndForces first = energyAndForces(context);
    EnergyAndForces second = energyAndForces(context);
    context.setPositions(water.positions);
    EnergyAndForces afterSetPositions = energyAndForces(context);
    VerletIntegrator otherIntegrator(0.001);
    Context other(*system, otherIntegrator, platform(), properties());
    other.setPositions(water.positions);
    EnergyAndForces otherContext = energyAndForces(other);
    for (const EnergyAndForces& again : {second, afterSetPositions, otherContext}) {
        EXPECT_EQ(again.energy, first.energy);
        for (int i = 0; i < water.size(); i++)
            for (int k = 0; k < 3; k++)
                ASSERT_EQ(again.forces[i][k], first.forces[i][k]) << "particle " << i << ", component " << k;
    }
}


} // namespace

#endif // NARUMI_NONBONDED_FORCE_TESTS_H_
