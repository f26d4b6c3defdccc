#include "NarumiNonbondedForceProxy.h"
#include "NarumiNonbondedForce.h"
#include "openmm/OpenMMException.h"
#include "openmm/serialization/SerializationNode.h"
#include <memory>
#include <sstream>

using namespace OpenMMNarumi;
using namespace OpenMM;
using namespace std;

namespace {
// Version 2 added the GROMACS conventions (Coulomb dielectric, Lennard-Jones modifier, reaction-field convention,
// Lennard-Jones types and type pairs); version 1 files are read with OpenMM's conventions, their defaults.
const int FORMAT_VERSION = 2;
}

NarumiNonbondedForceProxy::NarumiNonbondedForceProxy() : SerializationProxy("NarumiNonbondedForce") {
}

void NarumiNonbondedForceProxy::serialize(const void* object, SerializationNode& node) const {
    const NarumiNonbondedForce& force = *reinterpret_cast<const NarumiNonbondedForce*>(object);
    node.setIntProperty("version", FORMAT_VERSION);
    node.setIntProperty("forceGroup", force.getForceGroup());
    node.setStringProperty("name", force.getName());
    node.setIntProperty("method", (int) force.getNonbondedMethod());
    node.setIntProperty("electrostatics", (int) force.getElectrostaticsMethod());
    node.setIntProperty("accumulation", (int) force.getAccumulationMethod());
    node.setDoubleProperty("cutoff", force.getCutoffDistance());
    node.setDoubleProperty("rfDielectric", force.getReactionFieldDielectric());
    node.setBoolProperty("useSwitchingFunction", force.getUseSwitchingFunction());
    node.setDoubleProperty("switchingDistance", force.getSwitchingDistance());
    node.setBoolProperty("dispersionCorrection", force.getUseDispersionCorrection());
    node.setBoolProperty("exceptionsUsePeriodic", force.getExceptionsUsePeriodicBoundaryConditions());
    node.setDoubleProperty("coulombDielectric", force.getCoulombDielectric());
    node.setIntProperty("ljModifier", (int) force.getLennardJonesModifier());
    node.setIntProperty("rfConvention", (int) force.getReactionFieldConvention());
    SerializationNode& particles = node.createChildNode("Particles");
    for (int i = 0; i < force.getNumParticles(); i++) {
        double charge, sigma, epsilon;
        force.getParticleParameters(i, charge, sigma, epsilon);
        SerializationNode& particle = particles.createChildNode("Particle");
        particle.setDoubleProperty("q", charge).setDoubleProperty("sig", sigma).setDoubleProperty("eps", epsilon);
        int type = force.getParticleLennardJonesType(i);
        if (type >= 0)
            particle.setIntProperty("type", type); // untyped particles (-1) leave it out, as version 1 has them
    }
    SerializationNode& typePairs = node.createChildNode("LennardJonesTypePairs");
    for (int i = 0; i < force.getNumLennardJonesTypePairs(); i++) {
        int type1, type2;
        double c6, c12;
        force.getLennardJonesTypePairParameters(i, type1, type2, c6, c12);
        typePairs.createChildNode("TypePair").setIntProperty("t1", type1).setIntProperty("t2", type2).setDoubleProperty("c6", c6).setDoubleProperty("c12", c12);
    }
    SerializationNode& exceptions = node.createChildNode("Exceptions");
    for (int i = 0; i < force.getNumExceptions(); i++) {
        int p1, p2;
        double chargeProd, sigma, epsilon;
        force.getExceptionParameters(i, p1, p2, chargeProd, sigma, epsilon);
        exceptions.createChildNode("Exception")
            .setIntProperty("p1", p1)
            .setIntProperty("p2", p2)
            .setDoubleProperty("q", chargeProd)
            .setDoubleProperty("sig", sigma)
            .setDoubleProperty("eps", epsilon);
    }
}

void* NarumiNonbondedForceProxy::deserialize(const SerializationNode& node) const {
    int version = node.getIntProperty("version");
    if (version < 1 || version > FORMAT_VERSION) {
        stringstream msg;
        msg << "NarumiNonbondedForce: unsupported serialization version " << version << " (this build reads versions 1 to " << FORMAT_VERSION << ")";
        throw OpenMMException(msg.str());
    }
    // Missing properties and children throw from SerializationNode; illegal values throw from the setters.
    unique_ptr<NarumiNonbondedForce> force(new NarumiNonbondedForce());
    force->setForceGroup(node.getIntProperty("forceGroup", 0));
    force->setName(node.getStringProperty("name", force->getName()));
    force->setNonbondedMethod((NarumiNonbondedForce::NonbondedMethod) node.getIntProperty("method"));
    force->setElectrostaticsMethod((NarumiNonbondedForce::ElectrostaticsMethod) node.getIntProperty("electrostatics"));
    force->setAccumulationMethod((NarumiNonbondedForce::AccumulationMethod) node.getIntProperty("accumulation"));
    force->setCutoffDistance(node.getDoubleProperty("cutoff"));
    force->setReactionFieldDielectric(node.getDoubleProperty("rfDielectric"));
    force->setUseSwitchingFunction(node.getBoolProperty("useSwitchingFunction"));
    force->setSwitchingDistance(node.getDoubleProperty("switchingDistance"));
    force->setUseDispersionCorrection(node.getBoolProperty("dispersionCorrection"));
    force->setExceptionsUsePeriodicBoundaryConditions(node.getBoolProperty("exceptionsUsePeriodic"));
    if (version >= 2) {
        force->setCoulombDielectric(node.getDoubleProperty("coulombDielectric"));
        force->setLennardJonesModifier((NarumiNonbondedForce::LennardJonesModifier) node.getIntProperty("ljModifier"));
        force->setReactionFieldConvention((NarumiNonbondedForce::ReactionFieldConvention) node.getIntProperty("rfConvention"));
    }
    for (const SerializationNode& particle : node.getChildNode("Particles").getChildren()) {
        int index = force->addParticle(particle.getDoubleProperty("q"), particle.getDoubleProperty("sig"), particle.getDoubleProperty("eps"));
        if (version >= 2)
            force->setParticleLennardJonesType(index, particle.getIntProperty("type", -1));
    }
    if (version >= 2)
        for (const SerializationNode& typePair : node.getChildNode("LennardJonesTypePairs").getChildren())
            force->addLennardJonesTypePair_usingC6C12(typePair.getIntProperty("t1"), typePair.getIntProperty("t2"),
                                                      typePair.getDoubleProperty("c6"), typePair.getDoubleProperty("c12"));
    for (const SerializationNode& exception : node.getChildNode("Exceptions").getChildren())
        force->addException(exception.getIntProperty("p1"), exception.getIntProperty("p2"), exception.getDoubleProperty("q"),
                            exception.getDoubleProperty("sig"), exception.getDoubleProperty("eps"));
    return force.release();
}
