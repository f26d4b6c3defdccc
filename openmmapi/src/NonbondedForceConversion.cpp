#include "NonbondedForceConversion.h"
#include "openmm/OpenMMException.h"
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
    // Convert everything before touching the System, so a refusal leaves it unchanged.
    vector<int> indices;
    vector<unique_ptr<NarumiNonbondedForce> > replacements;
    for (int i = 0; i < system.getNumForces(); i++) {
        const NonbondedForce* nonbonded = dynamic_cast<const NonbondedForce*>(&system.getForce(i));
        if (nonbonded != nullptr) {
            indices.push_back(i);
            replacements.emplace_back(createNarumiNonbondedForce(*nonbonded));
        }
    }
    for (int k = indices.size() - 1; k >= 0; k--)
        system.removeForce(indices[k]);
    for (auto& force : replacements)
        system.addForce(force.release());
    return indices.size();
}
