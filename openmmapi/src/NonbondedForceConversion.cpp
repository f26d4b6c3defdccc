#include "NonbondedForceConversion.h"
#include "openmm/OpenMMException.h"
#include "openmm/serialization/XmlSerializer.h"
#include <memory>
#include <sstream>
#include <vector>

using namespace OpenMMNarumi;
using namespace OpenMM;
using namespace std;

NarumiNonbondedForce* OpenMMNarumi::createNarumiNonbondedForce(const NonbondedForce& source) {
    unique_ptr<NarumiNonbondedForce> force(new NarumiNonbondedForce());
    switch (source.getNonbondedMethod()) {
    case NonbondedForce::NoCutoff:
        force->setNonbondedMethod(NarumiNonbondedForce::NoCutoff);
        break;
    case NonbondedForce::CutoffNonPeriodic:
        force->setNonbondedMethod(NarumiNonbondedForce::CutoffNonPeriodic);
        break;
    case NonbondedForce::CutoffPeriodic:
        force->setNonbondedMethod(NarumiNonbondedForce::CutoffPeriodic);
        break;
    default: {
        const char* names[] = {"NoCutoff", "CutoffNonPeriodic", "CutoffPeriodic", "Ewald", "PME", "LJPME"};
        int method = source.getNonbondedMethod();
        stringstream msg;
        msg << "NarumiNonbondedForce cannot replace a NonbondedForce that uses " << (method >= 0 && method < 6 ? names[method] : "an unknown method")
            << ": only NoCutoff, CutoffNonPeriodic and CutoffPeriodic (reaction field) are supported";
        throw OpenMMException(msg.str());
    }
    }
    if (source.getNumGlobalParameters() > 0 || source.getNumParticleParameterOffsets() > 0 || source.getNumExceptionParameterOffsets() > 0)
        throw OpenMMException("NarumiNonbondedForce cannot replace a NonbondedForce with global parameters or parameter offsets");
    force->setElectrostaticsMethod(NarumiNonbondedForce::ReactionField);
    force->setCutoffDistance(source.getCutoffDistance());
    force->setReactionFieldDielectric(source.getReactionFieldDielectric());
    force->setUseSwitchingFunction(source.getUseSwitchingFunction());
    force->setSwitchingDistance(source.getSwitchingDistance());
    force->setUseDispersionCorrection(source.getUseDispersionCorrection());
    force->setExceptionsUsePeriodicBoundaryConditions(source.getExceptionsUsePeriodicBoundaryConditions());
    force->setForceGroup(source.getForceGroup());
    if (source.getName() != NonbondedForce().getName())
        force->setName(source.getName()); // a name the user gave; the default one becomes NarumiNonbondedForce
    for (int i = 0; i < source.getNumParticles(); i++) {
        double charge, sigma, epsilon;
        source.getParticleParameters(i, charge, sigma, epsilon);
        force->addParticle(charge, sigma, epsilon);
    }
    for (int i = 0; i < source.getNumExceptions(); i++) {
        int p1, p2;
        double chargeProd, sigma, epsilon;
        source.getExceptionParameters(i, p1, p2, chargeProd, sigma, epsilon);
        force->addException(p1, p2, chargeProd, sigma, epsilon);
    }
    return force.release();
}

int OpenMMNarumi::replaceNonbondedForces(System& system) {
    // Each replacement takes its NonbondedForce's index: the System can only append, so the forces from the first
    // NonbondedForce on are rebuilt in order, the others as XmlSerializer copies.  Everything is converted and copied
    // before the System is touched, so a refusal leaves it unchanged.
    int first = -1, replaced = 0;
    vector<unique_ptr<Force> > rebuilt;
    for (int i = 0; i < system.getNumForces(); i++) {
        const Force& force = system.getForce(i);
        const NonbondedForce* nonbonded = dynamic_cast<const NonbondedForce*>(&force);
        if (nonbonded != nullptr) {
            first = (first < 0 ? i : first);
            rebuilt.emplace_back(createNarumiNonbondedForce(*nonbonded));
            replaced++;
        }
        else if (first >= 0)
            rebuilt.emplace_back(XmlSerializer::clone<Force>(force));
    }
    while (first >= 0 && system.getNumForces() > first)
        system.removeForce(system.getNumForces() - 1);
    for (auto& force : rebuilt)
        system.addForce(force.release());
    return replaced;
}
