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
const int FORMAT_VERSION = 1;
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
    SerializationNode& particles = node.createChildNode("Particles");
    for (int i = 0; i < force.getNumParticles(); i++) {
        double charge, sigma, epsilon;
        force.getParticleParameters(i, charge, sigma, epsilon);
        particles.createChildNode("Particle").setDoubleProperty("q", charge).setDoubleProperty("sig", sigma).setDoubleProperty("eps", epsilon);
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
    if (version != FORMAT_VERSION) {
        stringstream msg;
        msg << "NarumiNonbondedForce: unsupported serialization version " << version << " (this build reads version " << FORMAT_VERSION << ")";
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
    for (const SerializationNode& particle : node.getChildNode("Particles").getChildren())
        force->addParticle(particle.getDoubleProperty("q"), particle.getDoubleProperty("sig"), particle.getDoubleProperty("eps"));
    for (const SerializationNode& exception : node.getChildNode("Exceptions").getChildren())
        force->addException(exception.getIntProperty("p1"), exception.getIntProperty("p2"), exception.getDoubleProperty("q"),
                            exception.getDoubleProperty("sig"), exception.getDoubleProperty("eps"));
    return force.release();
}
