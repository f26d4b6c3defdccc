// XML serialization of NarumiNonbondedForce: a round trip keeps every field and gives bitwise the same energy;
// malformed XML is refused with an OpenMMException.

#include "NarumiTestSystems.h"
#include "openmm/serialization/XmlSerializer.h"
#include <limits>
#include <regex>

using namespace OpenMMNarumi;
using namespace OpenMMNarumi::Test;
using namespace OpenMM;
using namespace std;

namespace {

using Narumi = NarumiNonbondedForce;

/** A force with every setting away from its default and parameters that are not short decimal numbers. */
Narumi fullySetForce() {
    Narumi force;
    force.setNonbondedMethod(Narumi::CutoffPeriodic);
    force.setElectrostaticsMethod(Narumi::Shifted);
    force.setAccumulationMethod(Narumi::DoubleFloat);
    force.setCutoffDistance(1.1 / 0.9);
    force.setReactionFieldDielectric(55.5);
    force.setUseSwitchingFunction(true);
    force.setSwitchingDistance(0.95);
    force.setUseDispersionCorrection(false);
    force.setExceptionsUsePeriodicBoundaryConditions(true);
    force.setForceGroup(7);
    force.setName("solvent nonbonded");
    force.setCoulombDielectric(15.0 / 7);
    force.setLennardJonesModifier(Narumi::LennardJonesPotentialShift);
    force.setReactionFieldConvention(Narumi::GromacsReactionField);
    for (int i = 0; i < 6; i++)
        force.addParticle(0.1 * i - 0.2 / 3, 0.3 + 0.01 / (i + 1), M_PI * i / 7);
    force.setParticleLennardJonesType(1, 3);
    force.setParticleLennardJonesType(2, 0);
    force.setParticleLennardJonesType(5, 3);
    force.addException(0, 1, 0.0, 1.0, 0.0);
    force.addException(4, 1, -0.05 / 3, 0.31, 0.25);
    force.addException(5, 2, 1e-300, 0.29, 1e-7);
    force.addLennardJonesTypePair_usingC6C12(3, 0, 0.0, 1.0 / 3 * 1e-6);
    force.addLennardJonesTypePair_usingC6C12(3, 3, 0.2 / 7, 0.0);
    force.addLennardJonesTypePair(7, 0, 0.47, 5.0 / 9);
    return force;
}

string toXml(const Narumi& force) {
    stringstream buffer;
    XmlSerializer::serialize<Narumi>(&force, "Force", buffer);
    return buffer.str();
}

unique_ptr<Narumi> fromXml(const string& xml) {
    stringstream buffer(xml);
    return unique_ptr<Narumi>(XmlSerializer::deserialize<Narumi>(buffer));
}

void expectSameForce(const Narumi& actual, const Narumi& expected) {
    EXPECT_EQ(actual.getNonbondedMethod(), expected.getNonbondedMethod());
    EXPECT_EQ(actual.getElectrostaticsMethod(), expected.getElectrostaticsMethod());
    EXPECT_EQ(actual.getAccumulationMethod(), expected.getAccumulationMethod());
    EXPECT_EQ(actual.getCutoffDistance(), expected.getCutoffDistance());
    EXPECT_EQ(actual.getReactionFieldDielectric(), expected.getReactionFieldDielectric());
    EXPECT_EQ(actual.getUseSwitchingFunction(), expected.getUseSwitchingFunction());
    EXPECT_EQ(actual.getSwitchingDistance(), expected.getSwitchingDistance());
    EXPECT_EQ(actual.getUseDispersionCorrection(), expected.getUseDispersionCorrection());
    EXPECT_EQ(actual.getExceptionsUsePeriodicBoundaryConditions(), expected.getExceptionsUsePeriodicBoundaryConditions());
    EXPECT_EQ(actual.getCoulombDielectric(), expected.getCoulombDielectric());
    EXPECT_EQ(actual.getLennardJonesModifier(), expected.getLennardJonesModifier());
    EXPECT_EQ(actual.getReactionFieldConvention(), expected.getReactionFieldConvention());
    EXPECT_EQ(actual.getForceGroup(), expected.getForceGroup());
    EXPECT_EQ(actual.getName(), expected.getName());
    EXPECT_EQ(actual.usesPeriodicBoundaryConditions(), expected.usesPeriodicBoundaryConditions());
    ASSERT_EQ(actual.getNumParticles(), expected.getNumParticles());
    for (int i = 0; i < expected.getNumParticles(); i++) {
        double q1, s1, e1, q2, s2, e2;
        actual.getParticleParameters(i, q1, s1, e1);
        expected.getParticleParameters(i, q2, s2, e2);
        EXPECT_EQ(make_tuple(q1, s1, e1), make_tuple(q2, s2, e2)) << "particle " << i;
        EXPECT_EQ(actual.getParticleLennardJonesType(i), expected.getParticleLennardJonesType(i)) << "particle " << i;
    }
    ASSERT_EQ(actual.getNumLennardJonesTypePairs(), expected.getNumLennardJonesTypePairs());
    for (int i = 0; i < expected.getNumLennardJonesTypePairs(); i++) {
        int a1, b1, a2, b2;
        double c6a, c12a, c6b, c12b;
        actual.getLennardJonesTypePairParameters(i, a1, b1, c6a, c12a);
        expected.getLennardJonesTypePairParameters(i, a2, b2, c6b, c12b);
        EXPECT_EQ(make_tuple(a1, b1, c6a, c12a), make_tuple(a2, b2, c6b, c12b)) << "type pair " << i;
    }
    ASSERT_EQ(actual.getNumExceptions(), expected.getNumExceptions());
    for (int i = 0; i < expected.getNumExceptions(); i++) {
        int a1, b1, a2, b2;
        double q1, s1, e1, q2, s2, e2;
        actual.getExceptionParameters(i, a1, b1, q1, s1, e1);
        expected.getExceptionParameters(i, a2, b2, q2, s2, e2);
        EXPECT_EQ(make_tuple(a1, b1, q1, s1, e1), make_tuple(a2, b2, q2, s2, e2)) << "exception " << i;
    }
}

TEST(Serialization, RoundTripKeepsEveryField) {
    Narumi force = fullySetForce();
    unique_ptr<Narumi> copy = fromXml(toXml(force));
    expectSameForce(*copy, force);
}

TEST(Serialization, RoundTripKeepsAnInfiniteReactionFieldDielectric) {
    Narumi force;
    force.setReactionFieldDielectric(numeric_limits<double>::infinity());
    EXPECT_EQ(fromXml(toXml(force))->getReactionFieldDielectric(), numeric_limits<double>::infinity());
}

TEST(Serialization, RoundTripKeepsEveryMethod) {
    for (auto method : {Narumi::NoCutoff, Narumi::CutoffNonPeriodic, Narumi::CutoffPeriodic})
        for (auto electrostatics : {Narumi::ReactionField, Narumi::Shifted, Narumi::NoCoulomb})
            for (auto accumulation : {Narumi::Narumi, Narumi::SingleFloat, Narumi::DoubleFloat, Narumi::FixedPoint64, Narumi::TileSums}) {
                Narumi force;
                force.setNonbondedMethod(method);
                force.setElectrostaticsMethod(electrostatics);
                force.setAccumulationMethod(accumulation);
                unique_ptr<Narumi> copy = fromXml(toXml(force));
                EXPECT_EQ(copy->getNonbondedMethod(), method);
                EXPECT_EQ(copy->getElectrostaticsMethod(), electrostatics);
                EXPECT_EQ(copy->getAccumulationMethod(), accumulation);
            }
    for (auto modifier : {Narumi::NoLennardJonesModifier, Narumi::LennardJonesPotentialShift})
        for (auto convention : {Narumi::OpenMMReactionField, Narumi::GromacsReactionField}) {
            Narumi force;
            force.setLennardJonesModifier(modifier);
            force.setReactionFieldConvention(convention);
            unique_ptr<Narumi> copy = fromXml(toXml(force));
            EXPECT_EQ(copy->getLennardJonesModifier(), modifier);
            EXPECT_EQ(copy->getReactionFieldConvention(), convention);
        }
}

/** A version 1 document (written before the GROMACS conventions): two particles, one exception. */
const char* VERSION_1_XML = R"(<?xml version="1.0" ?>
<Force accumulation="2" cutoff="1.2" dispersionCorrection="0" electrostatics="1" exceptionsUsePeriodic="1" forceGroup="3" method="2" name="old" rfDielectric="55.5" switchingDistance="-1" type="NarumiNonbondedForce" useSwitchingFunction="0" version="1">
	<Particles>
		<Particle eps=".5" q=".25" sig=".3"/>
		<Particle eps=".75" q="-.25" sig=".35"/>
	</Particles>
	<Exceptions>
		<Exception eps="0" p1="0" p2="1" q="0" sig="1"/>
	</Exceptions>
</Force>
)";

TEST(Serialization, Version1IsReadWithOpenMMsConventions) {
    unique_ptr<Narumi> force = fromXml(VERSION_1_XML);
    EXPECT_EQ(force->getNonbondedMethod(), Narumi::CutoffPeriodic);
    EXPECT_EQ(force->getElectrostaticsMethod(), Narumi::Shifted);
    EXPECT_EQ(force->getAccumulationMethod(), Narumi::DoubleFloat);
    EXPECT_EQ(force->getCutoffDistance(), 1.2);
    EXPECT_EQ(force->getReactionFieldDielectric(), 55.5);
    EXPECT_EQ(force->getForceGroup(), 3);
    EXPECT_EQ(force->getName(), "old");
    ASSERT_EQ(force->getNumParticles(), 2);
    double charge, sigma, epsilon;
    force->getParticleParameters(1, charge, sigma, epsilon);
    EXPECT_EQ(make_tuple(charge, sigma, epsilon), make_tuple(-0.25, 0.35, 0.75));
    EXPECT_EQ(force->getNumExceptions(), 1);
    // What version 1 could not hold: OpenMM's conventions, no types.
    EXPECT_EQ(force->getCoulombDielectric(), 1.0);
    EXPECT_EQ(force->getLennardJonesModifier(), Narumi::NoLennardJonesModifier);
    EXPECT_EQ(force->getReactionFieldConvention(), Narumi::OpenMMReactionField);
    EXPECT_EQ(force->getParticleLennardJonesType(0), -1);
    EXPECT_EQ(force->getParticleLennardJonesType(1), -1);
    EXPECT_EQ(force->getNumLennardJonesTypePairs(), 0);
    // Written again, it is version 2 and reads back the same.
    expectSameForce(*fromXml(toXml(*force)), *force);
}

TEST(Serialization, DeserializedSystemGivesBitwiseTheSameEnergyAndForces) {
    TestSystem solvated = solvatedMolecule(cubicBox(2.4), Vec3(0.6, 1.2, 1.2), 3);
    NonbondedSettings settings;
    settings.cutoff = 1.0;
    settings.useSwitching = true;
    settings.switchingDistance = 0.8;
    settings.dispersionCorrection = true;
    auto original = makeSystem(solvated, {makeNarumiForce(solvated, settings, Narumi::Shifted)});
    stringstream buffer;
    XmlSerializer::serialize<System>(original.get(), "System", buffer);
    unique_ptr<System> copy(XmlSerializer::deserialize<System>(buffer));
    ASSERT_EQ(copy->getNumForces(), 1);
    ASSERT_NE(dynamic_cast<const Narumi*>(&copy->getForce(0)), nullptr);
    EnergyAndForces expected = evaluate(*original, solvated.positions, "Reference");
    EnergyAndForces actual = evaluate(*copy, solvated.positions, "Reference");
    EXPECT_EQ(actual.energy, expected.energy);
    EXPECT_EQ(actual.forces, expected.forces);
}

TEST(Serialization, DeserializedGromacsConventionsGiveBitwiseTheSameEnergyAndForces) {
    TestSystem solvated = solvatedMolecule(cubicBox(2.4), Vec3(0.6, 1.2, 1.2), 3);
    NonbondedSettings settings;
    settings.cutoff = 1.0;
    settings.reactionFieldDielectric = numeric_limits<double>::infinity();
    Narumi* force = makeNarumiForce(solvated, settings);
    force->setCoulombDielectric(15);
    force->setReactionFieldConvention(Narumi::GromacsReactionField);
    force->setLennardJonesModifier(Narumi::LennardJonesPotentialShift);
    for (int i = 0; i < solvated.size(); i++)
        if (solvated.epsilons[i] > 0.6)  // the water oxygens
            force->setParticleLennardJonesType(i, 3);
    force->addLennardJonesTypePair_usingC6C12(3, 3, 0.0026, 2.6e-6);
    auto original = makeSystem(solvated, {force});
    stringstream buffer;
    XmlSerializer::serialize<System>(original.get(), "System", buffer);
    unique_ptr<System> copy(XmlSerializer::deserialize<System>(buffer));
    EnergyAndForces expected = evaluate(*original, solvated.positions, "Reference");
    EnergyAndForces actual = evaluate(*copy, solvated.positions, "Reference");
    EXPECT_EQ(actual.energy, expected.energy);
    EXPECT_EQ(actual.forces, expected.forces);
    // And the conventions are there: OpenMM's would give another energy.
    Narumi* withOpenMMsConventions = makeNarumiForce(solvated, settings);
    EXPECT_GT(fabs(evaluate(*makeSystem(solvated, {withOpenMMsConventions}), solvated.positions, "Reference").energy - expected.energy), 1.0);
}

/** xml with the first occurrence of from replaced by to; fails the test when from is absent. */
string replaced(string xml, const string& from, const string& to) {
    size_t at = xml.find(from);
    EXPECT_NE(at, string::npos) << "\"" << from << "\" is not in the XML";
    return at == string::npos ? xml : xml.replace(at, from.size(), to);
}

string withoutAttribute(const string& xml, const string& attribute) {
    string result = regex_replace(xml, regex(" " + attribute + "=\"[^\"]*\""), "", regex_constants::format_first_only);
    EXPECT_NE(result, xml) << "no attribute " << attribute;
    return result;
}

TEST(Serialization, TruncatedXmlThrows) {
    // Cut after every complete line from the <Force> tag to the last exception, so data is missing.  Other cuts are
    // not tested because OpenMM 8.6.1's XML reader (libOpenMM, before our proxy is called) misbehaves on them:
    // inside a tag it reads past the end of the input and may crash, and without a root element (an empty document
    // or the <?xml?> line alone) it reads uninitialised memory (valgrind).
    string xml = toXml(fullySetForce());
    size_t forceTag = xml.find("<Force"), lastException = xml.find("</Exceptions>");
    ASSERT_NE(forceTag, string::npos);
    ASSERT_NE(lastException, string::npos);
    vector<size_t> lengths;
    for (size_t end = xml.find('\n', forceTag); end < lastException; end = xml.find('\n', end + 1))
        lengths.push_back(end + 1);
    ASSERT_GT(lengths.size(), 10u);
    for (size_t length : lengths)
        EXPECT_THROW(fromXml(xml.substr(0, length)), OpenMMException) << "truncated to " << length << " characters";
}

TEST(Serialization, MissingPropertiesThrow) {
    string xml = toXml(fullySetForce());
    EXPECT_THROW(fromXml(replaced(xml, " version=\"2\"", "")), OpenMMException) << "without version";
    for (const char* attribute : {"method", "electrostatics", "accumulation", "cutoff", "rfDielectric", "useSwitchingFunction",
                                  "switchingDistance", "dispersionCorrection", "exceptionsUsePeriodic", "coulombDielectric",
                                  "ljModifier", "rfConvention", "sig", "p2", "t2", "c12"})
        EXPECT_THROW(fromXml(withoutAttribute(xml, attribute)), OpenMMException) << "without " << attribute;
    EXPECT_THROW(fromXml(replaced(xml, "<Particles>", "<Atoms>")), OpenMMException);
    EXPECT_THROW(fromXml(replaced(xml, "<Exceptions>", "<Pairs>")), OpenMMException);
    EXPECT_THROW(fromXml(replaced(xml, "<LennardJonesTypePairs>", "<TypePairs>")), OpenMMException);
}

TEST(Serialization, WrongVersionThrowsNamingIt) {
    string xml = toXml(fullySetForce());
    EXPECT_OPENMM_EXCEPTION_CONTAINING(fromXml(replaced(xml, "version=\"2\"", "version=\"42\"")), "42");
    EXPECT_OPENMM_EXCEPTION_CONTAINING(fromXml(replaced(xml, "version=\"2\"", "version=\"0\"")), "version 0");
}

TEST(Serialization, IllegalValuesThrowNamingThem) {
    string xml = toXml(fullySetForce());
    EXPECT_OPENMM_EXCEPTION_CONTAINING(fromXml(replaced(xml, "sig=\".31\"", "sig=\"-.31\"")), "-0.31");
    EXPECT_OPENMM_EXCEPTION_CONTAINING(fromXml(replaced(xml, "sig=\".31\"", "sig=\"nan\"")), "sigma");
    EXPECT_OPENMM_EXCEPTION_CONTAINING(fromXml(replaced(xml, "eps=\".25\"", "eps=\"-.25\"")), "-0.25");
    EXPECT_OPENMM_EXCEPTION_CONTAINING(fromXml(replaced(xml, "method=\"2\"", "method=\"4\"")), "4");
    EXPECT_OPENMM_EXCEPTION_CONTAINING(fromXml(replaced(xml, "electrostatics=\"1\"", "electrostatics=\"3\"")), "3");
    EXPECT_OPENMM_EXCEPTION_CONTAINING(fromXml(replaced(xml, "accumulation=\"2\"", "accumulation=\"-1\"")), "-1");
    // 4-6: the paper's float pairs, which a force no longer holds (an XML file of 0.2.0 may); 8: no method.
    for (const char* reserved : {"4", "5", "6", "8"})
        EXPECT_OPENMM_EXCEPTION_CONTAINING(fromXml(replaced(xml, "accumulation=\"2\"", string("accumulation=\"") + reserved + "\"")),
                                           string("illegal accumulation method ") + reserved);
    EXPECT_OPENMM_EXCEPTION_CONTAINING(fromXml(replaced(xml, "cutoff=\"", "cutoff=\"-")), "cutoff");
    EXPECT_OPENMM_EXCEPTION_CONTAINING(fromXml(replaced(xml, "p1=\"4\"", "p1=\"1\"")), "two different particles");
    EXPECT_OPENMM_EXCEPTION_CONTAINING(fromXml(replaced(xml, "p1=\"4\"", "p1=\"0\"")), "already"); // 0-1 again
    EXPECT_OPENMM_EXCEPTION_CONTAINING(fromXml(replaced(xml, "p2=\"2\"", "p2=\"-2\"")), "-2");
    EXPECT_OPENMM_EXCEPTION_CONTAINING(fromXml(replaced(xml, "coulombDielectric=\"", "coulombDielectric=\"-")), "Coulomb dielectric");
    EXPECT_OPENMM_EXCEPTION_CONTAINING(fromXml(replaced(xml, "ljModifier=\"1\"", "ljModifier=\"2\"")), "Lennard-Jones modifier 2");
    EXPECT_OPENMM_EXCEPTION_CONTAINING(fromXml(replaced(xml, "rfConvention=\"1\"", "rfConvention=\"5\"")), "convention 5");
    EXPECT_OPENMM_EXCEPTION_CONTAINING(fromXml(replaced(xml, "type=\"3\"", "type=\"-4\"")), "-4");
    EXPECT_OPENMM_EXCEPTION_CONTAINING(fromXml(replaced(xml, "c12=\"0\"", "c12=\"-1\"")), "C12 cannot be negative, got -1");
    EXPECT_OPENMM_EXCEPTION_CONTAINING(fromXml(replaced(xml, "t1=\"7\"", "t1=\"3\"")), "already a Lennard-Jones type pair entry for types 3 and 0");
}

TEST(Serialization, UnknownTypeThrows) {
    string xml = toXml(fullySetForce());
    EXPECT_THROW(fromXml(replaced(xml, "type=\"NarumiNonbondedForce\"", "type=\"NoSuchForce\"")), OpenMMException);
}

} // namespace
