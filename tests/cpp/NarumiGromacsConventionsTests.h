#ifndef NARUMI_GROMACS_CONVENTIONS_TESTS_H_
#define NARUMI_GROMACS_CONVENTIONS_TESTS_H_

/**
 * The GROMACS conventions of NarumiNonbondedForce (Lennard-Jones types with NBFIX semantics, Lennard-Jones potential
 * shift, the Coulomb dielectric, an infinite reaction-field dielectric, GROMACS's reaction field with the terms of
 * excluded charges), written once for the platforms that compute them: the double-precision Reference and CPU
 * platforms (platforms/reference/tests).  The CUDA platform's driver (platforms/cuda/tests) uses this file's oracle at
 * single precision's grade.
 * Oracles: the same physics written with OpenMM's custom forces on OpenMM's Reference platform, analytic values of two
 * particles, and central differences.  GROMACS itself is the oracle of tests/python/test_gromacs_conventions.py.
 */

#include "NarumiTestSystems.h"
#include "openmm/CustomBondForce.h"
#include "openmm/CustomExternalForce.h"
#include "openmm/CustomNonbondedForce.h"
#include <algorithm>
#include <limits>
#include <map>
#include <set>

using namespace OpenMMNarumi;
using namespace OpenMMNarumi::Test;
using namespace OpenMM;
using namespace std;

namespace {

using Narumi = NarumiNonbondedForce;

class NarumiGromacsConventionsTest : public PlatformTest {};

const double INFINITE = numeric_limits<double>::infinity();

/** A Lennard-Jones type-pair entry: the types and C6, C12. */
struct TypePair {
    int type1, type2;
    double c6, c12;
};

/** How a test system's particles are typed and which type pairs have entries; everything else is Lorentz-Berthelot. */
struct TypeTable {
    map<pair<double, double>, int> typeOfClass;  // (sigma, epsilon) of a particle -> its type; absent: untyped
    map<int, int> typeOfParticle;                // particle -> its type, before typeOfClass
    vector<TypePair> entries;

    int typeOf(const TestSystem& ts, int i) const {
        auto particle = typeOfParticle.find(i);
        if (particle != typeOfParticle.end())
            return particle->second;
        auto found = typeOfClass.find({ts.sigmas[i], ts.epsilons[i]});
        return found == typeOfClass.end() ? -1 : found->second;
    }
};

/**
 * The water and molecule classes of solvatedMolecule() typed: water O type 4 (every fifth water's O type 5 instead:
 * the same sigma and epsilon, another type), ring atoms 7, chain atoms 2, water H 9 (its own epsilon is 0), the chain's
 * side atoms untyped.  Entries override Lorentz-Berthelot for O-O, O-ring (no dispersion: C6 = 0), ring-chain (from
 * sigma, epsilon), H-O (C12 only) and the pairs of type 5 with 4 and 5; O-chain, chain-chain, ring-ring, H-H, 5-ring,
 * 5-H and every pair with a side atom stay Lorentz-Berthelot.  The entry (11, 4) names a type no particle has.
 */
TypeTable solvatedMoleculeTypes(const TestSystem& ts) {
    TypeTable table;
    table.typeOfClass = {{{0.315061, 0.636386}, 4}, {{0.339967, 0.359824}, 7}, {{0.339967, 0.457730}, 2}, {{1.0, 0.0}, 9}};
    for (int i = 0, waters = 0; i < ts.size(); i++)
        if (ts.sigmas[i] == 0.315061 && waters++ % 5 == 0)
            table.typeOfParticle[i] = 5;
    auto fromSigmaEpsilon = [](int t1, int t2, double sigma, double epsilon) {
        double s6 = pow(sigma, 6);
        return TypePair{t1, t2, 4 * epsilon * s6, 4 * epsilon * s6 * s6};
    };
    table.entries = {fromSigmaEpsilon(4, 4, 0.3166, 0.65), {7, 4, 0.0, 3e-6}, fromSigmaEpsilon(2, 7, 0.35, 0.5),
                     {4, 9, 0.0, 1e-8}, {11, 4, 0.01, 1e-5}, fromSigmaEpsilon(5, 4, 0.33, 0.9), {5, 5, 0.0032, 4e-6}};
    return table;
}

/** The conventions under test, beside NonbondedSettings. */
struct Conventions {
    bool types = false;
    bool potentialShift = false;
    bool gromacsReactionField = false;
    double coulombDielectric = 1.0;
};

void applyConventions(Narumi& force, const TestSystem& ts, const TypeTable& table, const Conventions& conventions) {
    force.setCoulombDielectric(conventions.coulombDielectric);
    if (conventions.potentialShift)
        force.setLennardJonesModifier(Narumi::LennardJonesPotentialShift);
    if (conventions.gromacsReactionField)
        force.setReactionFieldConvention(Narumi::GromacsReactionField);
    if (!conventions.types)
        return;
    for (int i = 0; i < ts.size(); i++)
        force.setParticleLennardJonesType(i, table.typeOf(ts, i));
    for (const TypePair& entry : table.entries)
        force.addLennardJonesTypePair_usingC6C12(entry.type1, entry.type2, entry.c6, entry.c12);
}

Narumi* makeConventionsForce(const TestSystem& ts, const NonbondedSettings& settings, const TypeTable& table,
                             const Conventions& conventions) {
    Narumi* force = makeNarumiForce(ts, settings);
    applyConventions(*force, ts, table, conventions);
    return force;
}

/** k_rf and c_rf written out from GROMACS's manual (its reaction-field section), infinity included. */
pair<double, double> gromacsReactionFieldConstants(double cutoff, double epsR, double epsRF) {
    double krf = isinf(epsRF) ? 1 / (2 * pow(cutoff, 3)) : (epsRF - epsR) / ((2 * epsRF + epsR) * pow(cutoff, 3));
    return {krf, 1 / cutoff + krf * cutoff * cutoff};
}

string exactly(double value) {
    stringstream text;
    text.precision(17);
    text << value;
    return text.str();
}

/**
 * The oracle: what these conventions define, written with OpenMM's custom forces (periodic cutoff, reaction field):
 * a CustomNonbondedForce for the non-excepted pairs (Coulomb / eps_r with k_rf, c_rf; Lennard-Jones from tabulated
 * type pairs or Lorentz-Berthelot, shifted or not), a CustomBondForce for the exceptions' own terms, a periodic
 * CustomBondForce for GROMACS's reaction field of the exception pairs within the cutoff, and a CustomExternalForce
 * carrying each particle's self term as a constant.  Without charges the Coulomb term is left out of the expression (so
 * that CustomNonbondedForce's long-range correction integrates Lennard-Jones alone).
 */
unique_ptr<System> conventionsOracle(const TestSystem& ts, const NonbondedSettings& settings, const TypeTable& table,
                                     const Conventions& conventions) {
    double rc = settings.cutoff;
    auto rf = gromacsReactionFieldConstants(rc, conventions.coulombDielectric, settings.reactionFieldDielectric);
    string f = exactly(COULOMB_CONSTANT / conventions.coulombDielectric);
    // Dense table indices: the types that particles have, plus one row without entries for untyped particles.
    map<int, int> denseIndex;
    for (int i = 0; i < ts.size(); i++) {
        int type = conventions.types ? table.typeOf(ts, i) : -1;
        if (type >= 0)
            denseIndex.insert({type, (int) denseIndex.size()});
    }
    int n = denseIndex.size() + 1;
    vector<double> listed(n * n, 0.0), c6(n * n, 0.0), c12(n * n, 0.0);
    for (const TypePair& entry : table.entries) {
        if (!conventions.types || !denseIndex.count(entry.type1) || !denseIndex.count(entry.type2))
            continue;
        int a = denseIndex[entry.type1], b = denseIndex[entry.type2];
        for (int k : {a + n * b, b + n * a}) {
            listed[k] = 1;
            c6[k] = entry.c6;
            c12[k] = entry.c12;
        }
    }
    string shift = conventions.potentialShift ? "1" : "0";
    bool charged = any_of(ts.charges.begin(), ts.charges.end(), [](double q) { return q != 0; });
    auto pairs = new CustomNonbondedForce(
        (charged ? f + "*q1*q2*(1/r + krf*r^2 - crf) + " : string()) + "select(listed(t1, t2), tabled, combined);"
        "tabled = c12(t1, t2)*(1/r^12 - " + shift + "/rc^12) - c6(t1, t2)*(1/r^6 - " + shift + "/rc^6);"
        "combined = 4*eps*((sig/r)^12 - (sig/r)^6 - " + shift + "*((sig/rc)^12 - (sig/rc)^6));"
        "sig = 0.5*(sigma1 + sigma2); eps = sqrt(epsilon1*epsilon2)");
    pairs->addGlobalParameter("krf", rf.first);
    pairs->addGlobalParameter("crf", rf.second);
    pairs->addGlobalParameter("rc", rc);
    pairs->addTabulatedFunction("listed", new Discrete2DFunction(n, n, listed));
    pairs->addTabulatedFunction("c6", new Discrete2DFunction(n, n, c6));
    pairs->addTabulatedFunction("c12", new Discrete2DFunction(n, n, c12));
    for (const char* name : {"q", "sigma", "epsilon", "t"})
        pairs->addPerParticleParameter(name);
    for (int i = 0; i < ts.size(); i++) {
        int type = conventions.types ? table.typeOf(ts, i) : -1;
        pairs->addParticle({ts.charges[i], ts.sigmas[i], ts.epsilons[i], (double) (type >= 0 ? denseIndex[type] : n - 1)});
    }
    pairs->setNonbondedMethod(CustomNonbondedForce::CutoffPeriodic);
    pairs->setCutoffDistance(rc);
    pairs->setUseLongRangeCorrection(settings.dispersionCorrection);

    auto exceptions = new CustomBondForce(f + "*chargeProd/r + 4*epsilon*((sigma/r)^12 - (sigma/r)^6)");
    for (const char* name : {"chargeProd", "sigma", "epsilon"})
        exceptions->addPerBondParameter(name);
    auto excludedCharges = new CustomBondForce(f + "*q1q2*(krf*r^2 - crf)*step(rc - r)");
    excludedCharges->addPerBondParameter("q1q2");
    for (const char* name : {"krf", "crf", "rc"})
        excludedCharges->addGlobalParameter(name, name == string("krf") ? rf.first : name == string("crf") ? rf.second : rc);
    excludedCharges->setUsesPeriodicBoundaryConditions(true);
    unique_ptr<NonbondedForce> exceptionSource(makeNonbondedForce(ts, settings));
    for (const auto& exception : exceptionsByPair(*exceptionSource)) {
        int i = exception.first.first, j = exception.first.second;
        pairs->addExclusion(i, j);
        if (exception.second[0] != 0 || exception.second[2] != 0)
            exceptions->addBond(i, j, {exception.second[0], exception.second[1], exception.second[2]});
        if (conventions.gromacsReactionField)
            excludedCharges->addBond(i, j, {ts.charges[i] * ts.charges[j]});
    }
    auto selfTerms = new CustomExternalForce("self");
    selfTerms->addPerParticleParameter("self");
    for (int i = 0; i < ts.size(); i++)
        if (conventions.gromacsReactionField)
            selfTerms->addParticle(i, {-0.5 * COULOMB_CONSTANT / conventions.coulombDielectric * rf.second * ts.charges[i] * ts.charges[i]});
    return makeSystem(ts, {pairs, exceptions, excludedCharges, selfTerms});
}

NonbondedSettings periodicReactionField(double cutoff, double reactionFieldDielectric) {
    NonbondedSettings settings;
    settings.method = Narumi::CutoffPeriodic;
    settings.cutoff = cutoff;
    settings.reactionFieldDielectric = reactionFieldDielectric;
    return settings;
}

/** ringWithChain() inside a 2.6 nm cube of water (about 1700 atoms): exclusions, 1-4 pairs and five particle classes. */
/** Each convention alone (types, potential shift, GROMACS's reaction field, eps_r 15) and all of them together, named. */
vector<pair<string, Conventions>> conventionCases() {
    Conventions types, shift, gromacs, dielectric, all;
    types.types = true;
    shift.potentialShift = true;
    gromacs.gromacsReactionField = true;
    dielectric.coulombDielectric = 15;
    all.types = all.potentialShift = all.gromacsReactionField = true;
    all.coulombDielectric = 15;
    return {{"types", types}, {"potential shift", shift}, {"GROMACS reaction field", gromacs}, {"Coulomb dielectric 15", dielectric},
            {"all", all}};
}

TestSystem solvatedMoleculeInCube() {
    return solvatedMolecule(cubicBox(2.6), Vec3(0.7, 1.3, 1.3), 3);
}

// ---------------------------------------------------------------------------------------------------------------
// Against the same conventions written with OpenMM's custom forces

TEST_P(NarumiGromacsConventionsTest, EachConventionAloneAndAllTogetherMatchCustomForces) {
    TestSystem solvated = solvatedMoleculeInCube();
    TypeTable table = solvatedMoleculeTypes(solvated);
    const vector<pair<string, Conventions>> cases = conventionCases();
    for (double reactionFieldDielectric : {78.3, INFINITE})
        for (const auto& testCase : cases) {
            SCOPED_TRACE(testCase.first + ", eps_rf " + to_string(reactionFieldDielectric));
            NonbondedSettings settings = periodicReactionField(1.0, reactionFieldDielectric);
            auto narumi = makeSystem(solvated, {makeConventionsForce(solvated, settings, table, testCase.second)});
            auto oracle = conventionsOracle(solvated, settings, table, testCase.second);
            EXPECT_TRUE(agree(evaluateHere(*narumi, solvated.positions), evaluate(*oracle, solvated.positions, "Reference"), tolerance()));
        }
}

TEST_P(NarumiGromacsConventionsTest, DefaultConventionsAreTheOraclesOpenMMCase) {
    // The oracle without any convention is OpenMM's NonbondedForce: this pins the oracle itself.
    TestSystem solvated = solvatedMoleculeInCube();
    NonbondedSettings settings = periodicReactionField(1.0, 78.3);
    auto oracle = conventionsOracle(solvated, settings, TypeTable(), Conventions());
    auto nonbonded = makeSystem(solvated, {makeNonbondedForce(solvated, settings)});
    EXPECT_TRUE(agree(evaluate(*oracle, solvated.positions, "Reference"), evaluate(*nonbonded, solvated.positions, "Reference"), 1e-10));
}

TEST_P(NarumiGromacsConventionsTest, TypeTableOverridesOnlyListedPairs) {
    TestSystem solvated = solvatedMoleculeInCube();
    TypeTable table = solvatedMoleculeTypes(solvated);
    NonbondedSettings settings = periodicReactionField(1.0, 78.3);
    Conventions typed;
    typed.types = true;
    // Types without entries change nothing: the particles' own sigma and epsilon are combined.
    TypeTable noEntries = table;
    noEntries.entries.clear();
    auto untypedSystem = makeSystem(solvated, {makeNarumiForce(solvated, settings)});
    auto typedWithoutEntries = makeSystem(solvated, {makeConventionsForce(solvated, settings, noEntries, typed)});
    EnergyAndForces untyped = evaluateHere(*untypedSystem, solvated.positions);
    EnergyAndForces withoutEntries = evaluateHere(*typedWithoutEntries, solvated.positions);
    EXPECT_EQ(withoutEntries.energy, untyped.energy);
    EXPECT_EQ(withoutEntries.forces, untyped.forces);
    // Entries that repeat Lorentz-Berthelot for every typed pair change nothing either (C6, C12 in the other form).
    TypeTable lorentzBerthelot = noEntries;
    for (auto& a : table.typeOfClass)
        for (auto& b : table.typeOfClass) {
            if (a.second > b.second)
                continue;
            double sigma = 0.5 * (a.first.first + b.first.first), epsilon = sqrt(a.first.second * b.first.second);
            double c6 = 4 * epsilon * pow(sigma, 6);
            lorentzBerthelot.entries.push_back({a.second, b.second, c6, c6 * pow(sigma, 6)});
        }
    auto sameAsCombined = makeSystem(solvated, {makeConventionsForce(solvated, settings, lorentzBerthelot, typed)});
    EXPECT_TRUE(agree(evaluateHere(*sameAsCombined, solvated.positions), untyped, 1e-13));
    // The real table moves the energy.
    auto tabled = makeSystem(solvated, {makeConventionsForce(solvated, settings, table, typed)});
    EXPECT_GT(fabs(evaluateHere(*tabled, solvated.positions).energy - untyped.energy), 1.0);
}

// ---------------------------------------------------------------------------------------------------------------
// Two particles: analytic values

/** Two particles in a 6 nm periodic box, cutoff 1.2 nm, no dispersion correction; settings through getForce(). */
class TwoParticleSystem {
public:
    TwoParticleSystem(double charge1, double sigma1, double epsilon1, double charge2, double sigma2, double epsilon2) : force(new Narumi()) {
        force->setNonbondedMethod(Narumi::CutoffPeriodic);
        force->setCutoffDistance(1.2);
        force->setUseDispersionCorrection(false);
        force->addParticle(charge1, sigma1, epsilon1);
        force->addParticle(charge2, sigma2, epsilon2);
        system.addParticle(1.0);
        system.addParticle(1.0);
        system.setDefaultPeriodicBoxVectors(Vec3(6, 0, 0), Vec3(0, 6, 0), Vec3(0, 0, 6));
        system.addForce(force);
    }
    Narumi& getForce() {
        return *force;
    }
    /** Energy and forces at distance r (along x), on the platform under test. */
    EnergyAndForces at(Platform& platform, double r) {
        if (!context) {
            context.reset(new Context(system, integrator, platform));
        }
        context->setPositions({Vec3(1, 1, 1), Vec3(1 + r, 1, 1)});
        return energyAndForces(*context);
    }

private:
    System system;
    Narumi* force;
    VerletIntegrator integrator{0.001};
    unique_ptr<Context> context;
};

TEST_P(NarumiGromacsConventionsTest, PotentialShiftSubtractsEachPairsValueAtTheCutoff) {
    const double rc = 1.2, sigma = 0.47, epsilon = 0.8, c6 = 4 * epsilon * pow(sigma, 6), c12 = c6 * pow(sigma, 6);
    TwoParticleSystem plain(0, 0.4, 0.6, 0, 0.54, epsilon * epsilon / 0.6), shifted(0, 0.4, 0.6, 0, 0.54, epsilon * epsilon / 0.6);
    shifted.getForce().setLennardJonesModifier(Narumi::LennardJonesPotentialShift);
    for (double r : {0.42, 0.53, 0.9, 1.19}) {
        SCOPED_TRACE("r = " + to_string(r));
        EnergyAndForces a = shifted.at(platform(), r), b = plain.at(platform(), r);
        double expected = c12 / pow(r, 12) - c6 / pow(r, 6) - (c12 / pow(rc, 12) - c6 / pow(rc, 6));
        EXPECT_NEAR(a.energy, expected, 1e-12 * max(1.0, fabs(expected)));
        EXPECT_NEAR(a.energy - b.energy, -(c12 / pow(rc, 12) - c6 / pow(rc, 6)), 1e-14);
        EXPECT_EQ(a.forces, b.forces) << "the shift moved the forces";
        double expectedForce = 12 * c12 / pow(r, 13) - 6 * c6 / pow(r, 7);  // -dE/dr on the second particle, along x
        EXPECT_NEAR(a.forces[1][0], expectedForce, 1e-12 * max(1.0, fabs(expectedForce)));
    }
    // Beyond the cutoff nothing; just inside, almost nothing.
    EXPECT_EQ(shifted.at(platform(), 1.21).energy, 0.0);
    EXPECT_NEAR(shifted.at(platform(), rc - 1e-9).energy, 0.0, 1e-9);
}

TEST_P(NarumiGromacsConventionsTest, TypePairEntriesAreUsedOnlyBetweenTypedParticles) {
    // Three particles: 0 and 1 typed with an entry (C6 = 0: pure repulsion), 2 typed without an entry with 0, and 3
    // untyped.  Pairs: 0-1 the entry, 0-2 and 1-2 Lorentz-Berthelot, 0-3 Lorentz-Berthelot.
    Narumi* force = new Narumi();
    force->setNonbondedMethod(Narumi::CutoffNonPeriodic);
    force->setCutoffDistance(2.0);
    const double sigmas[] = {0.3, 0.35, 0.4, 0.45}, epsilons[] = {0.5, 0.6, 0.7, 0.8};
    for (int i = 0; i < 4; i++)
        force->addParticle(0, sigmas[i], epsilons[i]);
    force->setParticleLennardJonesType(0, 5);
    force->setParticleLennardJonesType(1, 6);
    force->setParticleLennardJonesType(2, 8);
    const double c12Entry = 2.5e-6;
    EXPECT_EQ(force->addLennardJonesTypePair_usingC6C12(6, 5, 0.0, c12Entry), 0);
    System system;
    for (int i = 0; i < 4; i++)
        system.addParticle(1.0);
    system.addForce(force);
    const vector<Vec3> positions = {Vec3(0, 0, 0), Vec3(0.5, 0, 0), Vec3(0, 0.6, 0), Vec3(0, 0, 0.7)};
    double expected = 0;
    for (int i = 0; i < 4; i++)
        for (int j = i + 1; j < 4; j++) {
            Vec3 d = positions[j] - positions[i];
            double r = sqrt(d.dot(d)), sigma = 0.5 * (sigmas[i] + sigmas[j]), epsilon = sqrt(epsilons[i] * epsilons[j]);
            expected += (i == 0 && j == 1) ? c12Entry / pow(r, 12) : 4 * epsilon * (pow(sigma / r, 12) - pow(sigma / r, 6));
        }
    EXPECT_NEAR(evaluateHere(system, positions).energy, expected, 1e-13 * fabs(expected));
}

TEST_P(NarumiGromacsConventionsTest, InfiniteReactionFieldDielectricIsAConductingBoundary) {
    const double rc = 1.2, q1 = 0.7, q2 = -0.45;
    for (double epsR : {1.0, 15.0}) {
        TwoParticleSystem pair(q1, 0.3, 0.0, q2, 0.3, 0.0);
        pair.getForce().setReactionFieldDielectric(INFINITE);
        pair.getForce().setCoulombDielectric(epsR);
        const double f = COULOMB_CONSTANT / epsR, krf = 1 / (2 * rc * rc * rc), crf = 3 / (2 * rc);
        for (double r : {0.3, 0.8, 1.15}) {
            SCOPED_TRACE("eps_r " + to_string(epsR) + ", r = " + to_string(r));
            EnergyAndForces result = pair.at(platform(), r);
            double expected = f * q1 * q2 * (1 / r + krf * r * r - crf), expectedForce = f * q1 * q2 * (1 / (r * r) - 2 * krf * r);
            EXPECT_NEAR(result.energy, expected, 1e-13 * fabs(expected));
            EXPECT_NEAR(result.forces[1][0], expectedForce, 1e-13 * fabs(expectedForce));
        }
        // Energy and force vanish at the cutoff, as a conducting boundary makes them.
        EXPECT_NEAR(pair.at(platform(), rc - 1e-9).energy, 0.0, 1e-6);
    }
}

TEST_P(NarumiGromacsConventionsTest, CoulombDielectricDividesEveryCoulombTermAndEntersKrf) {
    // A pair of particles and a 1-4-like exception of two others, far apart: each Coulomb term is divided by eps_r.
    const double rc = 1.2, epsRF = 78.3, epsR = 2.5, r = 0.7, rException = 0.4;
    auto build = [&](double coulombDielectric) {
        TestSystem ts;
        ts.box = cubicBox(6);
        ts.addAtom(Vec3(1, 1, 1), 0.6, 0.3, 0.0);
        ts.addAtom(Vec3(1 + r, 1, 1), -0.4, 0.3, 0.0);
        ts.addAtom(Vec3(4, 4, 4), 0.3, 0.3, 0.0);
        ts.addAtom(Vec3(4 + rException, 4, 4), 0.5, 0.3, 0.0);
        NonbondedSettings settings = periodicReactionField(rc, epsRF);
        Narumi* force = makeNarumiForce(ts, settings);
        force->addException(2, 3, -0.2, 0.3, 0.0);
        force->setCoulombDielectric(coulombDielectric);
        auto system = makeSystem(ts, {force});
        VerletIntegrator integrator(0.001);
        Context context(*system, integrator, platform());
        context.setPositions(ts.positions);
        return context.getState(State::Energy).getPotentialEnergy();
    };
    auto rf = gromacsReactionFieldConstants(rc, epsR, epsRF);
    double expected = COULOMB_CONSTANT / epsR * (0.6 * -0.4 * (1 / r + rf.first * r * r - rf.second) + -0.2 / rException);
    EXPECT_NEAR(build(epsR), expected, 1e-13 * fabs(expected));
    // eps_r = 1 is OpenMM's k_rf = (eps_rf - 1) / ((2 eps_rf + 1) rc^3).
    double krf = (epsRF - 1) / ((2 * epsRF + 1) * pow(rc, 3)), crf = 3 * epsRF / ((2 * epsRF + 1) * rc);
    double openmm = COULOMB_CONSTANT * (0.6 * -0.4 * (1 / r + krf * r * r - crf) + -0.2 / rException);
    EXPECT_NEAR(build(1.0), openmm, 1e-13 * fabs(openmm));
}

TEST_P(NarumiGromacsConventionsTest, GromacsReactionFieldAddsExcludedPairsWithinTheCutoffAndTheSelfTerm) {
    const double rc = 1.2, q1 = 0.8, q2 = -0.35, epsR = 15;
    for (double epsRF : {INFINITE, 60.0}) {
        auto rf = gromacsReactionFieldConstants(rc, epsR, epsRF);
        const double f = COULOMB_CONSTANT / epsR, self = -0.5 * f * rf.second * (q1 * q1 + q2 * q2);
        for (bool excluded : {true, false}) {
            TwoParticleSystem pair(q1, 0.3, 0.0, q2, 0.3, 0.0);
            pair.getForce().setReactionFieldDielectric(epsRF);
            pair.getForce().setCoulombDielectric(epsR);
            pair.getForce().setReactionFieldConvention(Narumi::GromacsReactionField);
            if (excluded)
                pair.getForce().addException(0, 1, 0.0, 1.0, 0.0);
            for (double r : {0.25, 1.1, 1.3, 2.9}) {
                SCOPED_TRACE("eps_rf " + to_string(epsRF) + (excluded ? ", excluded" : ", not excluded") + ", r = " + to_string(r));
                EnergyAndForces result = pair.at(platform(), r);
                double energy = self, force = 0;
                if (r < rc) {
                    energy += f * q1 * q2 * ((excluded ? 0 : 1 / r) + rf.first * r * r - rf.second);
                    force = f * q1 * q2 * ((excluded ? 0 : 1 / (r * r)) - 2 * rf.first * r);
                }
                EXPECT_NEAR(result.energy, energy, 1e-13 * fabs(energy));
                EXPECT_NEAR(result.forces[1][0], force, 1e-12 * max(1.0, fabs(force)));
                EXPECT_NEAR(result.forces[0][0], -force, 1e-12 * max(1.0, fabs(force)));
            }
        }
    }
}

TEST_P(NarumiGromacsConventionsTest, ExcludedPairsUseTheMinimumImageWhateverExceptionsUse) {
    // An excluded pair split by the box face: its reaction-field term is that of its minimum image (0.4 nm), with
    // exceptions periodic or not, as GROMACS's pair list finds it.
    const double rc = 1.2, epsR = 15, q1 = 0.5, q2 = 0.5;
    for (bool exceptionsUsePeriodic : {false, true}) {
        TwoParticleSystem pair(q1, 0.3, 0.0, q2, 0.3, 0.0);
        pair.getForce().setReactionFieldDielectric(INFINITE);
        pair.getForce().setCoulombDielectric(epsR);
        pair.getForce().setReactionFieldConvention(Narumi::GromacsReactionField);
        pair.getForce().setExceptionsUsePeriodicBoundaryConditions(exceptionsUsePeriodic);
        pair.getForce().addException(0, 1, 0.0, 1.0, 0.0);
        EnergyAndForces result = pair.at(platform(), 6 - 0.4);
        auto rf = gromacsReactionFieldConstants(rc, epsR, INFINITE);
        double f = COULOMB_CONSTANT / epsR;
        double expected = f * q1 * q2 * (rf.first * 0.16 - rf.second) - 0.5 * f * rf.second * (q1 * q1 + q2 * q2);
        EXPECT_NEAR(result.energy, expected, 1e-13 * fabs(expected));
    }
}

// ---------------------------------------------------------------------------------------------------------------
// Dispersion correction, finite differences, updateParametersInContext

/** C6 and C12 of particles i and j by the rule NBFIX defines: the entry of two typed particles' types, else
 *  Lorentz-Berthelot of their own sigma and epsilon. */
pair<double, double> pairC6C12(const TestSystem& ts, const TypeTable& table, int i, int j) {
    int ti = table.typeOf(ts, i), tj = table.typeOf(ts, j);
    for (const TypePair& entry : table.entries)
        if (ti >= 0 && tj >= 0 && ((entry.type1 == ti && entry.type2 == tj) || (entry.type1 == tj && entry.type2 == ti)))
            return {entry.c6, entry.c12};
    double sigma = 0.5 * (ts.sigmas[i] + ts.sigmas[j]), epsilon = sqrt(ts.epsilons[i] * ts.epsilons[j]);
    return {4 * epsilon * pow(sigma, 6), 4 * epsilon * pow(sigma, 12)};
}

TEST_P(NarumiGromacsConventionsTest, DispersionCorrectionAveragesThePairParametersUsed) {
    // The oracle is OpenMM's definition written out: 2 pi N^2 (<C12> (1/(9 rc^9) + I12) - <C6> (1/(3 rc^3) + I6)) / V,
    // the means over the N(N+1)/2 pairs i <= j with the parameters each pair uses, I12 and I6 the integrals over the
    // switching range of r^-10 (1 - S) and r^-4 (1 - S) (composite Simpson here, Gauss-Legendre in the code).
    // (CustomNonbondedForce's long-range correction, OpenMM's integration over particle classes, agrees to 5e-7.)
    TestSystem solvated = solvatedMoleculeInCube();
    fill(solvated.charges.begin(), solvated.charges.end(), 0.0);
    TypeTable table = solvatedMoleculeTypes(solvated);
    Conventions typed;
    typed.types = true;
    double sum6 = 0, sum12 = 0;
    for (int i = 0; i < solvated.size(); i++)
        for (int j = i; j < solvated.size(); j++) {
            auto c = pairC6C12(solvated, table, i, j);
            sum6 += c.first;
            sum12 += c.second;
        }
    double n = solvated.size(), numPairs = 0.5 * n * (n + 1), rc = 1.0;
    for (double switchingDistance : {-1.0, 0.85}) {
        SCOPED_TRACE("switching distance " + to_string(switchingDistance));
        double integral12 = 0, integral6 = 0;
        if (switchingDistance > 0) {
            const int intervals = 20000;
            double h = (rc - switchingDistance) / intervals;
            for (int k = 0; k <= intervals; k++) {
                double r = switchingDistance + k * h, t = (r - switchingDistance) / (rc - switchingDistance);
                double weight = (k == 0 || k == intervals ? 1 : k % 2 == 1 ? 4 : 2) * h / 3;
                double offFraction = 1 - (1 + t * t * t * (-10 + t * (15 - 6 * t)));
                integral12 += weight * pow(r, -10) * offFraction;
                integral6 += weight * pow(r, -4) * offFraction;
            }
        }
        double definition = 2 * M_PI * n * n * (sum12 * (1 / (9 * pow(rc, 9)) + integral12) - sum6 * (1 / (3 * pow(rc, 3)) + integral6)) /
                            numPairs / boxVolume(solvated.box);
        NonbondedSettings settings = periodicReactionField(rc, 78.3);
        settings.useSwitching = switchingDistance > 0;
        settings.switchingDistance = switchingDistance;
        NonbondedSettings without = settings;
        settings.dispersionCorrection = true;
        auto with = makeSystem(solvated, {makeConventionsForce(solvated, settings, table, typed)});
        auto withoutCorrection = makeSystem(solvated, {makeConventionsForce(solvated, without, table, typed)});
        double correction = evaluateHere(*with, solvated.positions).energy - evaluateHere(*withoutCorrection, solvated.positions).energy;
        EXPECT_LT(correction, -1.0);
        EXPECT_NEAR(correction, definition, 1e-11 * fabs(definition));
    }
}

TEST_P(NarumiGromacsConventionsTest, ForcesAreMinusTheGradientOfTheEnergy) {
    // Every convention at once; the shift and the reaction field make the energy continuous at the cutoff.
    TestSystem solvated = solvatedMolecule(cubicBox(2.2), Vec3(0.5, 1.1, 1.1), 7);
    NonbondedSettings settings = periodicReactionField(0.9, INFINITE);
    Conventions all;
    all.types = all.potentialShift = all.gromacsReactionField = true;
    all.coulombDielectric = 2.5;
    auto system = makeSystem(solvated, {makeConventionsForce(solvated, settings, solvatedMoleculeTypes(solvated), all)});
    VerletIntegrator integrator(0.001);
    Context context(*system, integrator, platform(), properties());
    expectForcesAreMinusEnergyGradient(context, solvated.positions, {0, 7, 14, 16, 17, 400}, 1e-5);
}

TEST_P(NarumiGromacsConventionsTest, UpdateParametersInContextCarriesTypesAndTypePairs) {
    TestSystem solvated = solvatedMoleculeInCube();
    TypeTable table = solvatedMoleculeTypes(solvated);
    NonbondedSettings settings = periodicReactionField(1.0, INFINITE);
    settings.dispersionCorrection = true;  // it depends on the pair parameters
    Conventions all;
    all.types = all.gromacsReactionField = true;
    all.coulombDielectric = 15;
    Narumi* force = makeConventionsForce(solvated, settings, table, all);
    auto system = makeSystem(solvated, {force});
    VerletIntegrator integrator(0.001);
    Context context(*system, integrator, platform(), properties());
    context.setPositions(solvated.positions);
    double before = energyAndForces(context).energy;
    // Retype the chain's side atoms (untyped) as ring atoms, change an entry and a charge (the self term follows it).
    for (int i = 0; i < solvated.size(); i++)
        if (force->getParticleLennardJonesType(i) < 0 && solvated.epsilons[i] > 0)
            force->setParticleLennardJonesType(i, 7);
    force->setLennardJonesTypePairParameters(0, 4, 4, 0.0026, 2.6e-6);
    double charge, sigma, epsilon;
    force->getParticleParameters(3, charge, sigma, epsilon);
    force->setParticleParameters(3, charge + 0.3, sigma, epsilon);
    force->updateParametersInContext(context);
    EnergyAndForces updated = energyAndForces(context);
    EXPECT_GT(fabs(updated.energy - before), 1.0) << "the update changed nothing";
    EXPECT_TRUE(agree(updated, evaluateHere(*system, solvated.positions), 1e-14)) << "the update differs from a new Context";
}

} // namespace

#endif // NARUMI_GROMACS_CONVENTIONS_TESTS_H_
