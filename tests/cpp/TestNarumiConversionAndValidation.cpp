// The platform-independent API of NarumiNonbondedForce: the NonbondedForce converter (createNarumiNonbondedForce,
// replaceNonbondedForces), createExceptionsFromBonds, usesPeriodicBoundaryConditions, and bad input: every error is an
// OpenMMException, with the offending value in its message where there is one.  (What each platform's kernel computes
// is tested by NarumiNonbondedForceTests.h through the platforms' drivers.)

#include "NarumiTestSystems.h"
#include "NonbondedForceConversion.h"
#include "openmm/CustomBondForce.h"
#include "openmm/CustomNonbondedForce.h"
#include "openmm/HarmonicBondForce.h"
#include "openmm/serialization/XmlSerializer.h"
#include <algorithm>
#include <limits>

using namespace OpenMMNarumi;
using namespace OpenMMNarumi::Test;
using namespace OpenMM;
using namespace std;

namespace {

using Narumi = NarumiNonbondedForce;

const double NaN = numeric_limits<double>::quiet_NaN();

// ---------------------------------------------------------------------------------------------------------------
// Converter

/** A NonbondedForce for ts with every setting away from its default. */
unique_ptr<NonbondedForce> nonDefaultNonbondedForce(const TestSystem& ts, NonbondedForce::NonbondedMethod method) {
    NonbondedSettings settings;
    settings.cutoff = 0.95;
    settings.useSwitching = true;
    settings.switchingDistance = 0.81;
    settings.dispersionCorrection = false;
    settings.reactionFieldDielectric = 20.5;
    settings.exceptionsUsePeriodic = true;
    unique_ptr<NonbondedForce> force(makeNonbondedForce(ts, settings));
    force->setNonbondedMethod(method);
    force->setForceGroup(5);
    return force;
}

TEST(Converter, CopiesEverySettingParticleAndException) {
    TestSystem solvated = solvatedMolecule(cubicBox(2.0), Vec3(0.5, 1, 1), 11);
    const pair<NonbondedForce::NonbondedMethod, Narumi::NonbondedMethod> methods[] = {
        {NonbondedForce::NoCutoff, Narumi::NoCutoff},
        {NonbondedForce::CutoffNonPeriodic, Narumi::CutoffNonPeriodic},
        {NonbondedForce::CutoffPeriodic, Narumi::CutoffPeriodic}};
    for (const auto& method : methods) {
        SCOPED_TRACE("method " + to_string(method.first));
        unique_ptr<NonbondedForce> source = nonDefaultNonbondedForce(solvated, method.first);
        unique_ptr<Narumi> force(createNarumiNonbondedForce(*source));
        EXPECT_EQ(force->getNonbondedMethod(), method.second);
        EXPECT_EQ(force->getElectrostaticsMethod(), Narumi::ReactionField);
        EXPECT_EQ(force->getCutoffDistance(), source->getCutoffDistance());
        EXPECT_EQ(force->getReactionFieldDielectric(), source->getReactionFieldDielectric());
        EXPECT_EQ(force->getUseSwitchingFunction(), source->getUseSwitchingFunction());
        EXPECT_EQ(force->getSwitchingDistance(), source->getSwitchingDistance());
        EXPECT_EQ(force->getUseDispersionCorrection(), source->getUseDispersionCorrection());
        EXPECT_EQ(force->getExceptionsUsePeriodicBoundaryConditions(), source->getExceptionsUsePeriodicBoundaryConditions());
        EXPECT_EQ(force->getForceGroup(), source->getForceGroup());
        EXPECT_EQ(force->usesPeriodicBoundaryConditions(), source->usesPeriodicBoundaryConditions());
        // NonbondedForce's conventions are OpenMM's: the defaults.
        EXPECT_EQ(force->getCoulombDielectric(), 1.0);
        EXPECT_EQ(force->getLennardJonesModifier(), Narumi::NoLennardJonesModifier);
        EXPECT_EQ(force->getReactionFieldConvention(), Narumi::OpenMMReactionField);
        EXPECT_EQ(force->getNumLennardJonesTypePairs(), 0);
        ASSERT_EQ(force->getNumParticles(), source->getNumParticles());
        for (int i = 0; i < source->getNumParticles(); i++) {
            double q1, s1, e1, q2, s2, e2;
            force->getParticleParameters(i, q1, s1, e1);
            source->getParticleParameters(i, q2, s2, e2);
            ASSERT_EQ(make_tuple(q1, s1, e1), make_tuple(q2, s2, e2)) << "particle " << i;
        }
        ASSERT_EQ(force->getNumExceptions(), source->getNumExceptions());
        for (int i = 0; i < source->getNumExceptions(); i++) {
            int a1, b1, a2, b2;
            double q1, s1, e1, q2, s2, e2;
            force->getExceptionParameters(i, a1, b1, q1, s1, e1);
            source->getExceptionParameters(i, a2, b2, q2, s2, e2);
            ASSERT_EQ(make_tuple(a1, b1, q1, s1, e1), make_tuple(a2, b2, q2, s2, e2)) << "exception " << i;
        }
    }
}

TEST(Converter, ConvertedSystemGivesTheNonbondedForceEnergy) {
    TestSystem solvated = solvatedMolecule(cubicBox(2.0), Vec3(0.5, 1, 1), 11);
    auto system = makeSystem(solvated, {nonDefaultNonbondedForce(solvated, NonbondedForce::CutoffPeriodic).release()});
    EnergyAndForces expected = evaluate(*system, solvated.positions, "Reference");
    EXPECT_EQ(replaceNonbondedForces(*system), 1);
    ASSERT_NE(dynamic_cast<Narumi*>(&system->getForce(0)), nullptr);
    EXPECT_TRUE(agree(evaluate(*system, solvated.positions, "Reference"), expected));
}

/** A System of two particles with the given NonbondedForces (first a cutoff one, then one of method) and a bond. */
unique_ptr<System> systemWithTwoNonbondedForces(NonbondedForce::NonbondedMethod secondMethod) {
    unique_ptr<System> system(new System());
    system->addParticle(1.0);
    system->addParticle(1.0);
    for (NonbondedForce::NonbondedMethod method : {NonbondedForce::CutoffPeriodic, secondMethod}) {
        auto force = new NonbondedForce();
        force->addParticle(0.1, 0.3, 0.2);
        force->addParticle(-0.1, 0.3, 0.2);
        force->setNonbondedMethod(method);
        force->setForceGroup(system->getNumForces() + 1);
        system->addForce(force);
    }
    auto bonds = new HarmonicBondForce();
    bonds->addBond(0, 1, 0.2, 1000);
    system->addForce(bonds);
    return system;
}

string xmlOf(const Force& force) {
    stringstream xml;
    XmlSerializer::serialize<Force>(&force, "Force", xml);
    return xml.str();
}

TEST(Converter, ReplaceNonbondedForcesReplacesEveryOneKeepingIndexGroupAndName) {
    unique_ptr<System> system = systemWithTwoNonbondedForces(NonbondedForce::NoCutoff);
    system->getForce(1).setName("MyNB");
    string bondsXml = xmlOf(system->getForce(2));
    EXPECT_EQ(replaceNonbondedForces(*system), 2);
    ASSERT_EQ(system->getNumForces(), 3);
    for (int i : {0, 1}) {
        const Narumi* force = dynamic_cast<const Narumi*>(&system->getForce(i));
        ASSERT_NE(force, nullptr) << "force " << i << " was not replaced in place";
        EXPECT_EQ(force->getForceGroup(), i + 1);
    }
    EXPECT_EQ(system->getForce(0).getName(), "NarumiNonbondedForce"); // NonbondedForce's default name
    EXPECT_EQ(system->getForce(1).getName(), "MyNB");
    // The force after them is a copy of itself.
    ASSERT_NE(dynamic_cast<const HarmonicBondForce*>(&system->getForce(2)), nullptr);
    EXPECT_EQ(xmlOf(system->getForce(2)), bondsXml);
}

TEST(Converter, RefusesEwaldMethodsNamingThem) {
    const pair<NonbondedForce::NonbondedMethod, string> refused[] = {
        {NonbondedForce::Ewald, "Ewald"}, {NonbondedForce::PME, "PME"}, {NonbondedForce::LJPME, "LJPME"}};
    for (const auto& method : refused) {
        NonbondedForce force;
        force.addParticle(0.1, 0.3, 0.2);
        force.setNonbondedMethod(method.first);
        EXPECT_OPENMM_EXCEPTION_CONTAINING(createNarumiNonbondedForce(force), "uses " + method.second + ":");
    }
}

TEST(Converter, LeavesTheSystemUnchangedWhenANonbondedForceIsRefused) {
    for (auto method : {NonbondedForce::Ewald, NonbondedForce::PME, NonbondedForce::LJPME}) {
        unique_ptr<System> system = systemWithTwoNonbondedForces(method);
        vector<const Force*> before;
        for (int i = 0; i < system->getNumForces(); i++)
            before.push_back(&system->getForce(i));
        EXPECT_THROW(replaceNonbondedForces(*system), OpenMMException);
        ASSERT_EQ(system->getNumForces(), (int) before.size());
        for (int i = 0; i < system->getNumForces(); i++)
            EXPECT_EQ(&system->getForce(i), before[i]) << "force " << i;
        EXPECT_EQ(dynamic_cast<const NonbondedForce&>(system->getForce(1)).getNonbondedMethod(), method);
    }
}

TEST(Converter, RefusesGlobalParametersAndParameterOffsets) {
    NonbondedForce withOffset;
    withOffset.addParticle(0.1, 0.3, 0.2);
    withOffset.addGlobalParameter("lambda", 1.0);
    withOffset.addParticleParameterOffset("lambda", 0, 0.1, 0, 0);
    EXPECT_OPENMM_EXCEPTION_CONTAINING(createNarumiNonbondedForce(withOffset), "global parameters");
    NonbondedForce withGlobal;
    withGlobal.addGlobalParameter("lambda", 1.0);
    EXPECT_OPENMM_EXCEPTION_CONTAINING(createNarumiNonbondedForce(withGlobal), "global parameters");
}

// ---------------------------------------------------------------------------------------------------------------
// Pair-table fusion: replaceNonbondedForces(system, positions) (the loaders' systems themselves: test_pair_table_fusion.py)

/**
 * GromacsTopFile's set for a charged Lennard-Jones fluid: a NonbondedForce with the charges and epsilon 0, a
 * CustomNonbondedForce with the fluid's four types in tables acoef = sqrt(C12), bcoef = C6 (Lorentz-Berthelot, one
 * pair overridden), a 1-4 pair in the CustomBondForce -C/r^6+A/r^12, an excluded pair, and a bond force after them.
 */
unique_ptr<System> pairTableSystem(const TestSystem& fluid) {
    const double typeSigma[4] = {0.25, 0.30, 0.35, 0.40}, typeEpsilon[4] = {0.3, 0.5, 0.8, 1.2};
    auto nonbonded = new NonbondedForce();
    auto table = new CustomNonbondedForce("(a/r6)^2-b/r6; r6=r^6; a=acoef(type1, type2); b=bcoef(type1, type2)");
    auto pairs = new CustomBondForce("-C/r^6+A/r^12");
    vector<double> acoef(16), bcoef(16);
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < 4; j++) {
            double sigma = 0.5 * (typeSigma[i] + typeSigma[j]), epsilon = sqrt(typeEpsilon[i] * typeEpsilon[j]);
            if (min(i, j) == 1 && max(i, j) == 3)
                epsilon *= 0.3; // an NBFIX entry
            acoef[i + 4 * j] = sqrt(4 * epsilon * pow(sigma, 12));
            bcoef[i + 4 * j] = 4 * epsilon * pow(sigma, 6);
        }
    table->addTabulatedFunction("acoef", new Discrete2DFunction(4, 4, acoef));
    table->addTabulatedFunction("bcoef", new Discrete2DFunction(4, 4, bcoef));
    table->addPerParticleParameter("type");
    for (int i = 0; i < fluid.size(); i++) {
        nonbonded->addParticle(fluid.charges[i], 1.0, 0.0);
        table->addParticle({(double) (find(typeSigma, typeSigma + 4, fluid.sigmas[i]) - typeSigma)});
    }
    nonbonded->addException(0, 1, 0.0, 1.0, 0.0);
    nonbonded->addException(2, 3, 0.5 * fluid.charges[2] * fluid.charges[3], 1.0, 0.0);
    pairs->addPerBondParameter("C");
    pairs->addPerBondParameter("A");
    pairs->addBond(2, 3, {0.004, 5e-6});
    table->addExclusion(0, 1);
    table->addExclusion(2, 3);
    nonbonded->setNonbondedMethod(NonbondedForce::CutoffPeriodic);
    table->setNonbondedMethod(CustomNonbondedForce::CutoffPeriodic);
    nonbonded->setCutoffDistance(1.0);
    table->setCutoffDistance(1.0);
    auto bonds = new HarmonicBondForce();
    bonds->addBond(4, 5, 0.3, 1000);
    return makeSystem(fluid, {nonbonded, table, pairs, bonds});
}

string systemXml(const System& system) {
    stringstream xml;
    XmlSerializer::serialize<System>(&system, "System", xml);
    return xml.str();
}

TEST(PairTableFusion, FusedForceGivesTheReplacedForcesEnergyAndForces) {
    TestSystem fluid = chargedLJFluid(60, 2.4, 7);
    unique_ptr<System> system = pairTableSystem(fluid);
    EnergyAndForces expected = evaluate(*system, fluid.positions, "Reference");
    EXPECT_EQ(replaceNonbondedForces(*system, fluid.positions), 1);
    ASSERT_EQ(system->getNumForces(), 2);
    const Narumi* fused = dynamic_cast<const Narumi*>(&system->getForce(0));
    ASSERT_NE(fused, nullptr);
    EXPECT_EQ(fused->getNumLennardJonesTypePairs(), 10);
    EXPECT_NE(dynamic_cast<const HarmonicBondForce*>(&system->getForce(1)), nullptr);
    // OpenMM integrates the table force's long-range correction numerically, to about 1e-5 of it (under 1e-7 here).
    EXPECT_TRUE(agree(evaluate(*system, fluid.positions, "Reference"), expected, 1e-7));
}

TEST(PairTableFusion, RefusesWithoutPositionsOrWithTheWrongNumberLeavingTheSystemUnchanged) {
    TestSystem fluid = chargedLJFluid(60, 2.4, 7);
    unique_ptr<System> system = pairTableSystem(fluid);
    string before = systemXml(*system);
    EXPECT_OPENMM_EXCEPTION_CONTAINING(replaceNonbondedForces(*system), "pass positions");
    vector<Vec3> tooFew(fluid.positions.begin(), fluid.positions.end() - 1);
    EXPECT_OPENMM_EXCEPTION_CONTAINING(replaceNonbondedForces(*system, tooFew), "59 positions for a System of 60 particles");
    dynamic_cast<CustomNonbondedForce&>(system->getForce(1)).setCutoffDistance(0.9);
    string changed = systemXml(*system);
    EXPECT_OPENMM_EXCEPTION_CONTAINING(replaceNonbondedForces(*system, fluid.positions), "one cutoff");
    EXPECT_EQ(systemXml(*system), changed);
    EXPECT_NE(before, changed);
}

// ---------------------------------------------------------------------------------------------------------------
// Bad input to the force's API

Narumi twoParticleForce() {
    Narumi force;
    force.addParticle(0.1, 0.3, 0.2);
    force.addParticle(-0.1, 0.3, 0.2);
    return force;
}

TEST(Validation, ParticleIndexOutOfRangeThrowsNamingIt) {
    Narumi force = twoParticleForce();
    double charge, sigma, epsilon;
    EXPECT_OPENMM_EXCEPTION_CONTAINING(force.getParticleParameters(2, charge, sigma, epsilon), "index 2");
    EXPECT_OPENMM_EXCEPTION_CONTAINING(force.getParticleParameters(-1, charge, sigma, epsilon), "index -1");
    EXPECT_OPENMM_EXCEPTION_CONTAINING(force.setParticleParameters(7, 0.1, 0.3, 0.2), "index 7");
    EXPECT_OPENMM_EXCEPTION_CONTAINING(force.setParticleParameters(-3, 0.1, 0.3, 0.2), "index -3");
    EXPECT_OPENMM_EXCEPTION_CONTAINING(force.createExceptionsFromBonds({{0, 5}}, 0.8333, 0.5), "index 5");
}

TEST(Validation, ExceptionIndexOutOfRangeThrowsNamingIt) {
    Narumi force = twoParticleForce();
    force.addException(0, 1, 0, 1, 0);
    int p1, p2;
    double chargeProd, sigma, epsilon;
    EXPECT_OPENMM_EXCEPTION_CONTAINING(force.getExceptionParameters(1, p1, p2, chargeProd, sigma, epsilon), "index 1");
    EXPECT_OPENMM_EXCEPTION_CONTAINING(force.setExceptionParameters(-1, 0, 1, 0, 1, 0), "index -1");
}

TEST(Validation, NegativeOrNonFiniteParametersThrowNamingThem) {
    Narumi force = twoParticleForce();
    const double infinity = numeric_limits<double>::infinity();
    EXPECT_OPENMM_EXCEPTION_CONTAINING(force.addParticle(0.1, -0.3, 0.2), "-0.3");
    EXPECT_OPENMM_EXCEPTION_CONTAINING(force.addParticle(0.1, 0.3, -0.25), "-0.25");
    EXPECT_OPENMM_EXCEPTION_CONTAINING(force.addParticle(NaN, 0.3, 0.2), "charge must be finite, got nan");
    EXPECT_OPENMM_EXCEPTION_CONTAINING(force.addParticle(0.1, NaN, 0.2), "sigma must be finite, got nan");
    EXPECT_OPENMM_EXCEPTION_CONTAINING(force.addParticle(0.1, 0.3, NaN), "epsilon must be finite, got nan");
    EXPECT_OPENMM_EXCEPTION_CONTAINING(force.addParticle(infinity, 0.3, 0.2), "inf");
    EXPECT_OPENMM_EXCEPTION_CONTAINING(force.setParticleParameters(1, 0.1, -0.35, 0.2), "-0.35");
    EXPECT_OPENMM_EXCEPTION_CONTAINING(force.setParticleParameters(1, 0.1, 0.3, -1.5), "-1.5");
    EXPECT_OPENMM_EXCEPTION_CONTAINING(force.setParticleParameters(1, NaN, 0.3, 0.2), "nan");
    EXPECT_OPENMM_EXCEPTION_CONTAINING(force.setParticleParameters(1, 0.1, NaN, 0.2), "nan");
    EXPECT_OPENMM_EXCEPTION_CONTAINING(force.setParticleParameters(1, 0.1, 0.3, NaN), "nan");
    EXPECT_OPENMM_EXCEPTION_CONTAINING(force.addException(0, 1, 0.0, -0.3, 0.1), "-0.3");
    EXPECT_OPENMM_EXCEPTION_CONTAINING(force.addException(0, 1, 0.0, 0.3, -0.1), "-0.1");
    EXPECT_OPENMM_EXCEPTION_CONTAINING(force.addException(0, 1, NaN, 0.3, 0.1), "nan");
    EXPECT_EQ(force.getNumParticles(), 2) << "a refused particle was added";
    EXPECT_EQ(force.getNumExceptions(), 0) << "a refused exception was added";
    force.addException(0, 1, 0.0, 0.3, 0.1);
    EXPECT_OPENMM_EXCEPTION_CONTAINING(force.setExceptionParameters(0, 0, 1, 0.0, NaN, 0.1), "nan");
    EXPECT_OPENMM_EXCEPTION_CONTAINING(force.setExceptionParameters(0, 0, 1, 0.0, 0.3, -2.5), "-2.5");
}

TEST(Validation, IllegalSettingsThrowNamingThem) {
    Narumi force;
    EXPECT_OPENMM_EXCEPTION_CONTAINING(force.setCutoffDistance(0.0), "got 0");
    EXPECT_OPENMM_EXCEPTION_CONTAINING(force.setCutoffDistance(-2.5), "-2.5");
    EXPECT_OPENMM_EXCEPTION_CONTAINING(force.setCutoffDistance(NaN), "nan");
    EXPECT_OPENMM_EXCEPTION_CONTAINING(force.setReactionFieldDielectric(-1.5), "-1.5");
    EXPECT_OPENMM_EXCEPTION_CONTAINING(force.setSwitchingDistance(NaN), "nan");
    EXPECT_OPENMM_EXCEPTION_CONTAINING(force.setNonbondedMethod((Narumi::NonbondedMethod) 4), "method 4");
    EXPECT_OPENMM_EXCEPTION_CONTAINING(force.setElectrostaticsMethod((Narumi::ElectrostaticsMethod) 3), "method 3");
    EXPECT_OPENMM_EXCEPTION_CONTAINING(force.setAccumulationMethod((Narumi::AccumulationMethod) 8), "method 8");
    EXPECT_OPENMM_EXCEPTION_CONTAINING(force.setAccumulationMethod((Narumi::AccumulationMethod) -1), "method -1");
    // The paper's float pairs (4-6) are the CUDA platform's diagnostics only: the refusal says where they went.
    for (int reserved : {4, 5, 6}) {
        EXPECT_OPENMM_EXCEPTION_CONTAINING(force.setAccumulationMethod((Narumi::AccumulationMethod) reserved),
                                           "method " + to_string(reserved) + ";");
        EXPECT_OPENMM_EXCEPTION_CONTAINING(force.setAccumulationMethod((Narumi::AccumulationMethod) reserved),
                                           "NARUMI_DIAGNOSTICS=accumulation=");
    }
    EXPECT_EQ(force.getAccumulationMethod(), Narumi::Narumi) << "a refused value was kept";
    EXPECT_EQ(force.getCutoffDistance(), 1.0) << "a refused value was kept";
    EXPECT_EQ(force.getNonbondedMethod(), Narumi::NoCutoff) << "a refused value was kept";
}

TEST(Validation, ReactionFieldDielectricTakesInfinityButNotZero) {
    Narumi force;
    const double infinity = numeric_limits<double>::infinity();
    force.setReactionFieldDielectric(infinity);
    EXPECT_EQ(force.getReactionFieldDielectric(), infinity);
    EXPECT_OPENMM_EXCEPTION_CONTAINING(force.setReactionFieldDielectric(0.0), "pass infinity");
    EXPECT_OPENMM_EXCEPTION_CONTAINING(force.setReactionFieldDielectric(-infinity), "-inf");
    EXPECT_OPENMM_EXCEPTION_CONTAINING(force.setReactionFieldDielectric(NaN), "nan");
    EXPECT_EQ(force.getReactionFieldDielectric(), infinity) << "a refused value was kept";
}

TEST(Validation, GromacsConventionSettingsThrowNamingTheBadValue) {
    Narumi force;
    EXPECT_EQ(force.getCoulombDielectric(), 1.0);
    EXPECT_OPENMM_EXCEPTION_CONTAINING(force.setCoulombDielectric(0.0), "Coulomb dielectric must be positive, got 0");
    EXPECT_OPENMM_EXCEPTION_CONTAINING(force.setCoulombDielectric(-15), "-15");
    EXPECT_OPENMM_EXCEPTION_CONTAINING(force.setCoulombDielectric(numeric_limits<double>::infinity()), "must be finite, got inf");
    EXPECT_OPENMM_EXCEPTION_CONTAINING(force.setCoulombDielectric(NaN), "nan");
    EXPECT_OPENMM_EXCEPTION_CONTAINING(force.setLennardJonesModifier((Narumi::LennardJonesModifier) 2), "Lennard-Jones modifier 2");
    EXPECT_OPENMM_EXCEPTION_CONTAINING(force.setReactionFieldConvention((Narumi::ReactionFieldConvention) -1), "convention -1");
    EXPECT_EQ(force.getCoulombDielectric(), 1.0) << "a refused value was kept";
    EXPECT_EQ(force.getLennardJonesModifier(), Narumi::NoLennardJonesModifier);
    EXPECT_EQ(force.getReactionFieldConvention(), Narumi::OpenMMReactionField);
}

TEST(Validation, LennardJonesTypesThrowNamingTheBadValue) {
    Narumi force = twoParticleForce();
    EXPECT_EQ(force.getParticleLennardJonesType(1), -1);
    force.setParticleLennardJonesType(1, 12);
    EXPECT_EQ(force.getParticleLennardJonesType(1), 12);
    force.setParticleLennardJonesType(1, -1);
    EXPECT_EQ(force.getParticleLennardJonesType(1), -1);
    EXPECT_OPENMM_EXCEPTION_CONTAINING(force.setParticleLennardJonesType(0, -2), "got -2");
    EXPECT_OPENMM_EXCEPTION_CONTAINING(force.setParticleLennardJonesType(2, 0), "index 2");
    EXPECT_OPENMM_EXCEPTION_CONTAINING(force.getParticleLennardJonesType(-1), "index -1");
    EXPECT_OPENMM_EXCEPTION_CONTAINING(force.addLennardJonesTypePair(-1, 0, 0.3, 0.5), "(-1, 0)");
    EXPECT_OPENMM_EXCEPTION_CONTAINING(force.addLennardJonesTypePair(0, 0, -0.3, 0.5), "-0.3");
    EXPECT_OPENMM_EXCEPTION_CONTAINING(force.addLennardJonesTypePair(0, 0, 0.3, -0.5), "-0.5");
    EXPECT_OPENMM_EXCEPTION_CONTAINING(force.addLennardJonesTypePair_usingC6C12(0, 3, 0.001, -1e-6), "C12 cannot be negative, got -1e-06");
    EXPECT_OPENMM_EXCEPTION_CONTAINING(force.addLennardJonesTypePair_usingC6C12(0, 3, NaN, 1e-6), "C6 must be finite, got nan");
    EXPECT_OPENMM_EXCEPTION_CONTAINING(force.addLennardJonesTypePair_usingC6C12(0, 3, 0.001, numeric_limits<double>::infinity()), "got inf");
    EXPECT_EQ(force.getNumLennardJonesTypePairs(), 0) << "a refused entry was added";
    // sigma/epsilon are stored as C6 = 4 eps sigma^6, C12 = 4 eps sigma^12; C6 = 0 and C12 = 0 are allowed.
    EXPECT_EQ(force.addLennardJonesTypePair(2, 1, 0.5, 0.75), 0);
    int type1, type2;
    double c6, c12;
    force.getLennardJonesTypePairParameters(0, type1, type2, c6, c12);
    EXPECT_EQ(make_pair(type1, type2), make_pair(2, 1));
    EXPECT_DOUBLE_EQ(c6, 4 * 0.75 * pow(0.5, 6));
    EXPECT_DOUBLE_EQ(c12, 4 * 0.75 * pow(0.5, 12));
    EXPECT_EQ(force.addLennardJonesTypePair_usingC6C12(3, 3, 0.0, 2e-6), 1);
    EXPECT_EQ(force.addLennardJonesTypePair_usingC6C12(4, 3, 1e-3, 0.0), 2);
    // A duplicate (in either order) is an error unless replaced; replacing keeps the index.
    EXPECT_OPENMM_EXCEPTION_CONTAINING(force.addLennardJonesTypePair_usingC6C12(1, 2, 0.1, 0.2), "already a Lennard-Jones type pair entry for types 1 and 2");
    EXPECT_EQ(force.addLennardJonesTypePair_usingC6C12(1, 2, 0.1, 0.2, true), 0);
    force.getLennardJonesTypePairParameters(0, type1, type2, c6, c12);
    EXPECT_EQ(make_tuple(type1, type2, c6, c12), make_tuple(1, 2, 0.1, 0.2));
    EXPECT_EQ(force.getNumLennardJonesTypePairs(), 3);
    EXPECT_OPENMM_EXCEPTION_CONTAINING(force.setLennardJonesTypePairParameters(1, 3, 4, 0.1, 0.2), "already a Lennard-Jones type pair entry for types 3 and 4");
    EXPECT_OPENMM_EXCEPTION_CONTAINING(force.setLennardJonesTypePairParameters(1, 3, 3, 0.1, -0.2), "-0.2");
    EXPECT_OPENMM_EXCEPTION_CONTAINING(force.setLennardJonesTypePairParameters(3, 3, 3, 0.1, 0.2), "type pair index 3");
    EXPECT_OPENMM_EXCEPTION_CONTAINING(force.getLennardJonesTypePairParameters(-1, type1, type2, c6, c12), "type pair index -1");
    // Moving an entry to a new pair frees its old one.
    force.setLennardJonesTypePairParameters(1, 5, 6, 0.3, 0.4);
    EXPECT_EQ(force.addLennardJonesTypePair_usingC6C12(3, 3, 0.0, 1e-6), 3);
}

TEST(Validation, DuplicateOrDegenerateExceptionsThrow) {
    Narumi force = twoParticleForce();
    force.addParticle(0.0, 0.3, 0.2);
    force.addException(0, 1, 0, 1, 0);
    force.addException(1, 2, 0, 1, 0);
    EXPECT_OPENMM_EXCEPTION_CONTAINING(force.addException(1, 0, 0.01, 0.3, 0.1), "already an exception for particles 1 and 0");
    EXPECT_OPENMM_EXCEPTION_CONTAINING(force.setExceptionParameters(1, 0, 1, 0, 1, 0), "already an exception for particles 0 and 1");
    EXPECT_OPENMM_EXCEPTION_CONTAINING(force.addException(2, 2, 0, 1, 0), "two different particles");
    EXPECT_OPENMM_EXCEPTION_CONTAINING(force.addException(-4, 2, 0, 1, 0), "-4");
    EXPECT_EQ(force.getNumExceptions(), 2);
    // replace = true overwrites the existing exception instead.
    EXPECT_EQ(force.addException(1, 0, 0.01, 0.3, 0.1, true), 0);
    EXPECT_EQ(force.getNumExceptions(), 2);
}

// ---------------------------------------------------------------------------------------------------------------
// Bad input found when a Context is created or evaluated

/** Creates (and destroys) a Reference Context for force in a System of the given particles and cubic box. */
void createContext(Narumi* force, int particles = 2, double boxEdge = 3.0) {
    System system;
    for (int i = 0; i < particles; i++)
        system.addParticle(1.0);
    system.setDefaultPeriodicBoxVectors(Vec3(boxEdge, 0, 0), Vec3(0, boxEdge, 0), Vec3(0, 0, boxEdge));
    system.addForce(force);
    VerletIntegrator integrator(0.001);
    Context context(system, integrator, getPlatform("Reference"));
}

Narumi* newTwoParticleForce() {
    return new Narumi(twoParticleForce());
}

TEST(Validation, ContextCreationRefusesExceptionsWithParticlesOutOfRange) {
    Narumi* force = newTwoParticleForce();
    force->addException(0, 7, 0, 1, 0);
    EXPECT_OPENMM_EXCEPTION_CONTAINING(createContext(force), "illegal particle index 7 in exception 0");
}

TEST(Validation, ContextCreationRefusesAParticleCountMismatch) {
    EXPECT_OPENMM_EXCEPTION_CONTAINING(createContext(newTwoParticleForce(), 3), "it has 2, the System has 3");
    EXPECT_OPENMM_EXCEPTION_CONTAINING(createContext(newTwoParticleForce(), 1), "it has 2, the System has 1");
}

TEST(Validation, ContextCreationRefusesASwitchingDistanceOutsideTheCutoff) {
    for (double switchingDistance : {1.2, 1.0, -0.5}) {
        Narumi* force = newTwoParticleForce();
        force->setNonbondedMethod(Narumi::CutoffNonPeriodic);
        force->setUseSwitchingFunction(true);
        force->setSwitchingDistance(switchingDistance);
        stringstream expected;
        expected << "r_switch = " << switchingDistance << " nm";
        EXPECT_OPENMM_EXCEPTION_CONTAINING(createContext(force), expected.str());
    }
}

TEST(Validation, ContextCreationRefusesConventionsThatCannotBeCombined) {
    auto shifted = [](Narumi::NonbondedMethod method) {
        Narumi* force = newTwoParticleForce();
        force->setNonbondedMethod(method);
        force->setLennardJonesModifier(Narumi::LennardJonesPotentialShift);
        return force;
    };
    Narumi* switched = shifted(Narumi::CutoffNonPeriodic);
    switched->setUseSwitchingFunction(true);
    switched->setSwitchingDistance(0.8);
    EXPECT_OPENMM_EXCEPTION_CONTAINING(createContext(switched), "LennardJonesPotentialShift cannot be combined with the switching function");
    EXPECT_OPENMM_EXCEPTION_CONTAINING(createContext(shifted(Narumi::NoCutoff)), "LennardJonesPotentialShift cannot be combined with NoCutoff");
    EXPECT_OPENMM_EXCEPTION_CONTAINING(createContext(shifted(Narumi::CutoffPeriodic)),
                                       "LennardJonesPotentialShift cannot be combined with the dispersion correction");
    Narumi* withoutCorrection = shifted(Narumi::CutoffPeriodic);
    withoutCorrection->setUseDispersionCorrection(false);
    EXPECT_NO_THROW(createContext(withoutCorrection));
    EXPECT_NO_THROW(createContext(shifted(Narumi::CutoffNonPeriodic)));  // no dispersion correction without periodicity

    auto gromacs = [](Narumi::NonbondedMethod method, Narumi::ElectrostaticsMethod electrostatics) {
        Narumi* force = newTwoParticleForce();
        force->setNonbondedMethod(method);
        force->setElectrostaticsMethod(electrostatics);
        force->setReactionFieldConvention(Narumi::GromacsReactionField);
        return force;
    };
    for (auto electrostatics : {Narumi::Shifted, Narumi::NoCoulomb})
        EXPECT_OPENMM_EXCEPTION_CONTAINING(createContext(gromacs(Narumi::CutoffPeriodic, electrostatics)),
                                           "GromacsReactionField needs ElectrostaticsMethod ReactionField and a cutoff");
    EXPECT_OPENMM_EXCEPTION_CONTAINING(createContext(gromacs(Narumi::NoCutoff, Narumi::ReactionField)),
                                       "GromacsReactionField needs ElectrostaticsMethod ReactionField and a cutoff");
    EXPECT_NO_THROW(createContext(gromacs(Narumi::CutoffNonPeriodic, Narumi::ReactionField)));
}

TEST(Validation, ContextCreationRefusesACutoffLargerThanHalfTheBox) {
    Narumi* force = newTwoParticleForce();
    force->setNonbondedMethod(Narumi::CutoffPeriodic);
    force->setCutoffDistance(1.6);
    EXPECT_OPENMM_EXCEPTION_CONTAINING(createContext(force, 2, 3.0), "cutoff distance (1.6 nm) cannot be larger than half");
    // Half the box exactly is allowed, and a non-periodic cutoff ignores the box.
    Narumi* halfBox = newTwoParticleForce();
    halfBox->setNonbondedMethod(Narumi::CutoffPeriodic);
    halfBox->setCutoffDistance(1.5);
    EXPECT_NO_THROW(createContext(halfBox, 2, 3.0));
    Narumi* nonPeriodic = newTwoParticleForce();
    nonPeriodic->setNonbondedMethod(Narumi::CutoffNonPeriodic);
    nonPeriodic->setCutoffDistance(1.6);
    EXPECT_NO_THROW(createContext(nonPeriodic, 2, 3.0));
}

TEST(Validation, TriclinicBoxUsesItsShortestWidth) {
    System system;
    system.addParticle(1.0);
    system.setDefaultPeriodicBoxVectors(Vec3(3, 0, 0), Vec3(1, 2.8, 0), Vec3(-1, 1, 2.7));
    Narumi* force = new Narumi();
    force->addParticle(0, 0.3, 0.2);
    force->setNonbondedMethod(Narumi::CutoffPeriodic);
    force->setCutoffDistance(1.36);
    system.addForce(force);
    VerletIntegrator integrator(0.001);
    EXPECT_OPENMM_EXCEPTION_CONTAINING(Context(system, integrator, getPlatform("Reference")), "(2.7 nm)");
}

TEST(Validation, ShrinkingTheBoxBelowTwiceTheCutoffThrowsWhenEvaluated) {
    TestSystem water = waterBox(cubicBox(2.2), 9);
    NonbondedSettings settings;
    settings.cutoff = 1.0;
    auto system = makeSystem(water, {makeNarumiForce(water, settings)});
    VerletIntegrator integrator(0.001);
    Context context(*system, integrator, getPlatform("Reference"));
    context.setPositions(water.positions);
    double energy = context.getState(State::Energy).getPotentialEnergy();
    context.setPeriodicBoxVectors(Vec3(1.9, 0, 0), Vec3(0, 1.9, 0), Vec3(0, 0, 1.9));
    EXPECT_OPENMM_EXCEPTION_CONTAINING(context.getState(State::Energy), "half the shortest periodic box width (1.9 nm)");
    EXPECT_OPENMM_EXCEPTION_CONTAINING(context.getState(State::Forces), "half the shortest periodic box width (1.9 nm)");
    // The original box works again.
    context.setPeriodicBoxVectors(water.box[0], water.box[1], water.box[2]);
    EXPECT_EQ(context.getState(State::Energy).getPotentialEnergy(), energy);
}

TEST(Validation, NonFinitePositionsThrowNamingTheParticle) {
    TestSystem water = waterBox(cubicBox(1.5), 10);
    NonbondedSettings settings;
    settings.method = Narumi::NoCutoff;
    auto system = makeSystem(water, {makeNarumiForce(water, settings)});
    water.positions[4][1] = NaN;
    EXPECT_OPENMM_EXCEPTION_CONTAINING(evaluate(*system, water.positions, "Reference"), "particle 4");
}

// ---------------------------------------------------------------------------------------------------------------
// createExceptionsFromBonds and periodicity

/** ringWithChain() inside a 2.6 nm cube of water (about 1700 atoms). */
TestSystem solvatedMoleculeInCube() {
    return solvatedMolecule(cubicBox(2.6), Vec3(0.7, 1.3, 1.3), 3);
}

TEST(CreateExceptionsFromBonds, GivesNonbondedForceExceptions) {
    TestSystem solvated = solvatedMoleculeInCube();
    unique_ptr<NonbondedForce> expected(makeNonbondedForce(solvated, NonbondedSettings()));
    unique_ptr<Narumi> actual(makeNarumiForce(solvated, NonbondedSettings()));
    auto expectedExceptions = exceptionsByPair(*expected), actualExceptions = exceptionsByPair(*actual);
    ASSERT_EQ(actual->getNumExceptions(), expected->getNumExceptions());
    ASSERT_EQ(actualExceptions.size(), expectedExceptions.size());
    int oneFourPairs = 0;
    for (const auto& pairAndParameters : expectedExceptions) {
        const auto& pair = pairAndParameters.first;
        SCOPED_TRACE("pair " + to_string(pair.first) + "-" + to_string(pair.second));
        ASSERT_EQ(actualExceptions.count(pair), 1u);
        for (int k = 0; k < 3; k++)
            EXPECT_DOUBLE_EQ(actualExceptions[pair][k], pairAndParameters.second[k]);
        oneFourPairs += (pairAndParameters.second[2] != 0);
    }
    // The molecule gives 1-4 pairs; pairs 0-2 and 0-3 of the five-membered ring are 1-3 one way round and 1-4 the
    // other, and must be excluded.
    EXPECT_GT(oneFourPairs, 10);
    for (auto ringPair : {make_pair(0, 2), make_pair(0, 3)})
        EXPECT_EQ(actualExceptions[ringPair], (array<double, 3>{0.0, 1.0, 0.0}));
}

TEST(UsesPeriodicBoundaryConditions, OnlyForCutoffPeriodic) {
    Narumi force;
    EXPECT_FALSE(force.usesPeriodicBoundaryConditions());
    force.setNonbondedMethod(Narumi::CutoffNonPeriodic);
    EXPECT_FALSE(force.usesPeriodicBoundaryConditions());
    force.setNonbondedMethod(Narumi::CutoffPeriodic);
    EXPECT_TRUE(force.usesPeriodicBoundaryConditions());
    force.setNonbondedMethod(Narumi::NoCutoff);
    EXPECT_FALSE(force.usesPeriodicBoundaryConditions());
}

} // namespace

// Last: OpenMM's reference header defines macros (ONE_4PI_EPS0, PI_M, ...) that must not reach the code above.
#include "openmm/reference/SimTKOpenMMRealType.h"

namespace {

TEST(CoulombConstant, IsOpenMMsBitForBit) {
    EXPECT_EQ(Common::COULOMB_CONSTANT, ONE_4PI_EPS0);
}

} // namespace
