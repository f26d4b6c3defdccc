// XML serialization, the NonbondedForce converter, and bad input: every failure an OpenMMException naming the value.

#include "NarumiTestSupport.h"
#include "NonbondedForceConversion.h"
#include "openmm/OpenMMException.h"
#include "openmm/serialization/XmlSerializer.h"
#include <limits>
#include <memory>
#include <sstream>

using namespace NarumiPlugin;
using namespace NarumiTest;
using namespace OpenMM;
using namespace std;

namespace {

/** EXPECT that statement throws an OpenMMException whose message contains fragment. */
#define EXPECT_OPENMM_ERROR(statement, fragment)                                                                                    \
    try {                                                                                                                          \
        statement;                                                                                                                 \
        ADD_FAILURE() << "no exception from: " #statement;                                                                         \
    } catch (const OpenMMException& error) {                                                                                       \
        EXPECT_NE(string(error.what()).find(fragment), string::npos) << "message: " << error.what();                              \
    }

NarumiNonbondedForce fullySetForce() {
    NarumiNonbondedForce force;
    force.setNonbondedMethod(NarumiNonbondedForce::CutoffPeriodic);
    force.setElectrostaticsMethod(NarumiNonbondedForce::Shifted);
    force.setAccumulationMethod(NarumiNonbondedForce::DoubleFloat);
    force.setCutoffDistance(1.1);
    force.setReactionFieldDielectric(55.5);
    force.setUseSwitchingFunction(true);
    force.setSwitchingDistance(0.95);
    force.setUseDispersionCorrection(false);
    force.setExceptionsUsePeriodicBoundaryConditions(true);
    force.setForceGroup(7);
    force.setName("solvent nonbonded");
    for (int i = 0; i < 5; i++)
        force.addParticle(0.1 * i - 0.2, 0.3 + 0.01 * i, 0.5 + 0.1 * i);
    force.addException(0, 1, 0.0, 1.0, 0.0);
    force.addException(1, 4, -0.05, 0.31, 0.25);
    return force;
}

TEST(Serialization, RoundTripKeepsEveryField) {
    NarumiNonbondedForce force = fullySetForce();
    stringstream buffer;
    XmlSerializer::serialize<NarumiNonbondedForce>(&force, "Force", buffer);
    unique_ptr<NarumiNonbondedForce> copy(XmlSerializer::deserialize<NarumiNonbondedForce>(buffer));
    EXPECT_EQ(copy->getNonbondedMethod(), force.getNonbondedMethod());
    EXPECT_EQ(copy->getElectrostaticsMethod(), force.getElectrostaticsMethod());
    EXPECT_EQ(copy->getAccumulationMethod(), force.getAccumulationMethod());
    EXPECT_EQ(copy->getCutoffDistance(), force.getCutoffDistance());
    EXPECT_EQ(copy->getReactionFieldDielectric(), force.getReactionFieldDielectric());
    EXPECT_EQ(copy->getUseSwitchingFunction(), force.getUseSwitchingFunction());
    EXPECT_EQ(copy->getSwitchingDistance(), force.getSwitchingDistance());
    EXPECT_EQ(copy->getUseDispersionCorrection(), force.getUseDispersionCorrection());
    EXPECT_EQ(copy->getExceptionsUsePeriodicBoundaryConditions(), force.getExceptionsUsePeriodicBoundaryConditions());
    EXPECT_EQ(copy->getForceGroup(), force.getForceGroup());
    EXPECT_EQ(copy->getName(), force.getName());
    ASSERT_EQ(copy->getNumParticles(), force.getNumParticles());
    for (int i = 0; i < force.getNumParticles(); i++) {
        double q1, s1, e1, q2, s2, e2;
        force.getParticleParameters(i, q1, s1, e1);
        copy->getParticleParameters(i, q2, s2, e2);
        EXPECT_EQ(q1, q2);
        EXPECT_EQ(s1, s2);
        EXPECT_EQ(e1, e2);
    }
    ASSERT_EQ(copy->getNumExceptions(), force.getNumExceptions());
    for (int i = 0; i < force.getNumExceptions(); i++) {
        int a1, b1, a2, b2;
        double q1, s1, e1, q2, s2, e2;
        force.getExceptionParameters(i, a1, b1, q1, s1, e1);
        copy->getExceptionParameters(i, a2, b2, q2, s2, e2);
        EXPECT_EQ(make_tuple(a1, b1, q1, s1, e1), make_tuple(a2, b2, q2, s2, e2));
    }
}

TEST(Serialization, DeserializedForceGivesBitwiseTheSameEnergy) {
    TestSystem water = cubicWaterBox(300, 2.1);
    unique_ptr<NonbondedForce> nonbonded(makeNonbondedForce(water, NonbondedForce::CutoffPeriodic, 0.9));
    unique_ptr<System> original(makeSystem(water));
    original->addForce(createNarumiNonbondedForce(*nonbonded));
    stringstream buffer;
    XmlSerializer::serialize<System>(original.get(), "System", buffer);
    unique_ptr<System> copy(XmlSerializer::deserialize<System>(buffer));
    EXPECT_EQ(evaluate(*copy, water.positions, "Reference").energy, evaluate(*original, water.positions, "Reference").energy);
}

string serializedForce() {
    NarumiNonbondedForce force = fullySetForce();
    stringstream buffer;
    XmlSerializer::serialize<NarumiNonbondedForce>(&force, "Force", buffer);
    return buffer.str();
}

TEST(Serialization, MalformedXmlThrows) {
    string xml = serializedForce();
    auto deserialize = [](const string& text) {
        stringstream in(text);
        delete XmlSerializer::deserialize<NarumiNonbondedForce>(in);
    };
    EXPECT_THROW(deserialize(xml.substr(0, xml.size() / 2)), OpenMMException);              // truncated
    EXPECT_THROW(deserialize("<Force type=\"NarumiNonbondedForce\" version=\"1\"/>"), OpenMMException); // no properties
    string badVersion = xml;
    badVersion.replace(badVersion.find("version=\"1\""), 11, "version=\"42\"");
    EXPECT_OPENMM_ERROR(deserialize(badVersion), "42");
    string negativeSigma = xml;
    size_t at = negativeSigma.find("sig=\"");
    negativeSigma.replace(at, 5, "sig=\"-");
    EXPECT_OPENMM_ERROR(deserialize(negativeSigma), "sigma");
    string badMethod = xml;
    badMethod.replace(badMethod.find("method=\"2\""), 10, "method=\"4\"");
    EXPECT_OPENMM_ERROR(deserialize(badMethod), "4");
}

TEST(Converter, CopiesEverySetting) {
    NonbondedForce source;
    for (int i = 0; i < 6; i++)
        source.addParticle(0.1 * i, 0.3, 0.2 * i);
    source.addException(0, 3, 0.02, 0.28, 0.1);
    source.setNonbondedMethod(NonbondedForce::CutoffNonPeriodic);
    source.setCutoffDistance(1.3);
    source.setReactionFieldDielectric(20);
    source.setUseSwitchingFunction(true);
    source.setSwitchingDistance(1.1);
    source.setUseDispersionCorrection(false);
    source.setExceptionsUsePeriodicBoundaryConditions(true);
    source.setForceGroup(4);
    unique_ptr<NarumiNonbondedForce> force(createNarumiNonbondedForce(source));
    EXPECT_EQ(force->getNonbondedMethod(), NarumiNonbondedForce::CutoffNonPeriodic);
    EXPECT_EQ(force->getElectrostaticsMethod(), NarumiNonbondedForce::ReactionField);
    EXPECT_EQ(force->getCutoffDistance(), 1.3);
    EXPECT_EQ(force->getReactionFieldDielectric(), 20);
    EXPECT_TRUE(force->getUseSwitchingFunction());
    EXPECT_EQ(force->getSwitchingDistance(), 1.1);
    EXPECT_FALSE(force->getUseDispersionCorrection());
    EXPECT_TRUE(force->getExceptionsUsePeriodicBoundaryConditions());
    EXPECT_EQ(force->getForceGroup(), 4);
    EXPECT_EQ(force->getNumParticles(), 6);
    ASSERT_EQ(force->getNumExceptions(), 1);
    int p1, p2;
    double q, s, e;
    force->getExceptionParameters(0, p1, p2, q, s, e);
    EXPECT_EQ(make_tuple(p1, p2, q, s, e), make_tuple(0, 3, 0.02, 0.28, 0.1));
}

TEST(Converter, RefusesEwaldMethodsAndLeavesTheSystemUnchanged) {
    const pair<NonbondedForce::NonbondedMethod, const char*> refused[] = {
        {NonbondedForce::PME, "PME"}, {NonbondedForce::Ewald, "Ewald"}, {NonbondedForce::LJPME, "LJPME"}};
    for (const auto& method : refused) {
        System system;
        for (int i = 0; i < 2; i++)
            system.addParticle(1.0);
        NonbondedForce* cutoff = new NonbondedForce();
        NonbondedForce* ewald = new NonbondedForce();
        for (NonbondedForce* f : {cutoff, ewald})
            for (int i = 0; i < 2; i++)
                f->addParticle(0.1, 0.3, 0.1);
        cutoff->setNonbondedMethod(NonbondedForce::CutoffPeriodic);
        ewald->setNonbondedMethod(method.first);
        system.addForce(cutoff);
        system.addForce(ewald);
        EXPECT_OPENMM_ERROR(replaceNonbondedForces(system), method.second);
        ASSERT_EQ(system.getNumForces(), 2);
        EXPECT_EQ(&system.getForce(0), cutoff);
        EXPECT_EQ(&system.getForce(1), ewald);
    }
}

TEST(Converter, ReplacesEveryNonbondedForce) {
    System system;
    system.addParticle(1.0);
    for (int k = 0; k < 2; k++) {
        NonbondedForce* force = new NonbondedForce();
        force->addParticle(0.0, 0.3, 0.1);
        force->setForceGroup(k + 1);
        system.addForce(force);
    }
    EXPECT_EQ(replaceNonbondedForces(system), 2);
    ASSERT_EQ(system.getNumForces(), 2);
    for (int k = 0; k < 2; k++) {
        ASSERT_NE(dynamic_cast<NarumiNonbondedForce*>(&system.getForce(k)), nullptr);
        EXPECT_EQ(system.getForce(k).getForceGroup(), k + 1);
    }
}

TEST(Validation, SettersRejectBadValuesNamingThem) {
    NarumiNonbondedForce force;
    force.addParticle(0.1, 0.3, 0.2);
    const double nan = numeric_limits<double>::quiet_NaN();
    int p1, p2;
    double q, s, e;
    EXPECT_OPENMM_ERROR(force.addParticle(0.1, -0.3, 0.2), "-0.3");
    EXPECT_OPENMM_ERROR(force.addParticle(0.1, 0.3, -0.25), "-0.25");
    EXPECT_OPENMM_ERROR(force.addParticle(nan, 0.3, 0.2), "nan");
    EXPECT_OPENMM_ERROR(force.setParticleParameters(0, 0.1, nan, 0.2), "nan");
    EXPECT_OPENMM_ERROR(force.getParticleParameters(3, q, s, e), "3");
    EXPECT_OPENMM_ERROR(force.setParticleParameters(-1, 0.1, 0.3, 0.2), "-1");
    EXPECT_OPENMM_ERROR(force.setCutoffDistance(0.0), "0");
    EXPECT_OPENMM_ERROR(force.setCutoffDistance(-2.5), "-2.5");
    EXPECT_OPENMM_ERROR(force.setReactionFieldDielectric(-1.5), "-1.5");
    EXPECT_OPENMM_ERROR(force.setNonbondedMethod((NarumiNonbondedForce::NonbondedMethod) 4), "PME");
    EXPECT_OPENMM_ERROR(force.addException(0, 0, 0, 1, 0), "two different particles");
    force.addException(0, 1, 0, 1, 0);
    EXPECT_OPENMM_ERROR(force.addException(1, 0, 0, 1, 0), "already an exception");
    EXPECT_OPENMM_ERROR(force.getExceptionParameters(5, p1, p2, q, s, e), "5");
}

/** Context creation with force in a two-particle System in a 3 nm box. */
void createContext(NarumiNonbondedForce* force, int particles = 2) {
    System system;
    for (int i = 0; i < particles; i++)
        system.addParticle(1.0);
    system.setDefaultPeriodicBoxVectors(Vec3(3, 0, 0), Vec3(0, 3, 0), Vec3(0, 0, 3));
    system.addForce(force);
    VerletIntegrator integrator(0.001);
    loadPlugins();
    Context context(system, integrator, Platform::getPlatformByName("Reference"));
}

TEST(Validation, ContextCreationChecksTheForceAgainstTheSystem) {
    auto twoParticles = [] {
        NarumiNonbondedForce* force = new NarumiNonbondedForce();
        force->addParticle(0.1, 0.3, 0.2);
        force->addParticle(-0.1, 0.3, 0.2);
        return force;
    };
    NarumiNonbondedForce* tooLargeCutoff = twoParticles();
    tooLargeCutoff->setNonbondedMethod(NarumiNonbondedForce::CutoffPeriodic);
    tooLargeCutoff->setCutoffDistance(1.6);
    EXPECT_OPENMM_ERROR(createContext(tooLargeCutoff), "half the shortest periodic box width");
    NarumiNonbondedForce* badException = twoParticles();
    badException->addException(0, 7, 0, 1, 0);
    EXPECT_OPENMM_ERROR(createContext(badException), "7");
    NarumiNonbondedForce* badSwitch = twoParticles();
    badSwitch->setNonbondedMethod(NarumiNonbondedForce::CutoffNonPeriodic);
    badSwitch->setUseSwitchingFunction(true);
    badSwitch->setSwitchingDistance(1.2);
    EXPECT_OPENMM_ERROR(createContext(badSwitch), "1.2");
    EXPECT_OPENMM_ERROR(createContext(twoParticles(), 3), "3");
}

TEST(Validation, ShrinkingTheBoxBelowTwiceTheCutoffThrows) {
    TestSystem water = cubicWaterBox(216, 1.9);
    unique_ptr<NonbondedForce> nonbonded(makeNonbondedForce(water, NonbondedForce::CutoffPeriodic, 0.9));
    unique_ptr<System> system(makeSystem(water));
    system->addForce(createNarumiNonbondedForce(*nonbonded));
    VerletIntegrator integrator(0.001);
    loadPlugins();
    Context context(*system, integrator, Platform::getPlatformByName("Reference"));
    context.setPositions(water.positions);
    context.setPeriodicBoxVectors(Vec3(1.7, 0, 0), Vec3(0, 1.7, 0), Vec3(0, 0, 1.7));
    EXPECT_OPENMM_ERROR(context.getState(State::Energy), "half the shortest periodic box width");
}

TEST(Validation, NonFinitePositionsThrow) {
    TestSystem water = cubicWaterBox(27, 1.0);
    unique_ptr<NonbondedForce> nonbonded(makeNonbondedForce(water, NonbondedForce::NoCutoff, 0.45));
    unique_ptr<System> system(makeSystem(water));
    system->addForce(createNarumiNonbondedForce(*nonbonded));
    water.positions[4][1] = numeric_limits<double>::quiet_NaN();
    EXPECT_OPENMM_ERROR(evaluate(*system, water.positions, "Reference"), "particle 4");
}

TEST(Force, UsesPeriodicBoundaryConditionsOnlyWhenPeriodic) {
    NarumiNonbondedForce force;
    EXPECT_FALSE(force.usesPeriodicBoundaryConditions());
    force.setNonbondedMethod(NarumiNonbondedForce::CutoffNonPeriodic);
    EXPECT_FALSE(force.usesPeriodicBoundaryConditions());
    force.setNonbondedMethod(NarumiNonbondedForce::CutoffPeriodic);
    EXPECT_TRUE(force.usesPeriodicBoundaryConditions());
}

} // namespace
