#include "NonbondedForceConversion.h"
#include "PairTableFusion.h"
#include "openmm/OpenMMException.h"
#include "openmm/serialization/XmlSerializer.h"
#include <cmath>
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

namespace {

int replace(System& system, const vector<Vec3>* positions, NarumiNonbondedForce::AccumulationMethod accumulationMethod) {
    NarumiNonbondedForce().setAccumulationMethod(accumulationMethod);  // an illegal value throws before any work
    // A pair-table set becomes one fused force at the index of its first force; every other NonbondedForce its
    // converted self at its index.  The System can only append, so the forces from the first one replaced on are
    // rebuilt in order, the others as XmlSerializer copies.  Everything is converted, checked and copied before the
    // System is touched, so a refusal leaves it unchanged.
    PairTableForceSet set = findPairTableForces(system);
    unique_ptr<NarumiNonbondedForce> fused;
    if (set.found()) {
        fused.reset(fusePairTableForces(system, set));
        if (positions == nullptr)
            throw OpenMMException("replaceNonbondedForces: the System's " + system.getForce(set.pairTable).getName() +
                                  " (force " + to_string(set.pairTable) + ") and NonbondedForce can be fused into one "
                                  "NarumiNonbondedForce only after a check of their energy and forces; pass positions: "
                                  "replaceNonbondedForces(system, positions)");
        checkFusedForce(system, set, *fused, *positions);
    }
    int first = -1, replaced = 0;
    vector<unique_ptr<Force> > rebuilt;
    for (int i = 0; i < system.getNumForces(); i++) {
        const Force& force = system.getForce(i);
        const NonbondedForce* nonbonded = dynamic_cast<const NonbondedForce*>(&force);
        if (set.contains(i)) {
            first = (first < 0 ? i : first);
            if (fused) {
                fused->setAccumulationMethod(accumulationMethod);
                rebuilt.emplace_back(fused.release());
                replaced++;
            }
        }
        else if (nonbonded != nullptr) {
            first = (first < 0 ? i : first);
            rebuilt.emplace_back(createNarumiNonbondedForce(*nonbonded));
            static_cast<NarumiNonbondedForce&>(*rebuilt.back()).setAccumulationMethod(accumulationMethod);
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

} // namespace

int OpenMMNarumi::replaceNonbondedForces(System& system, NarumiNonbondedForce::AccumulationMethod accumulationMethod) {
    return replace(system, nullptr, accumulationMethod);
}

int OpenMMNarumi::replaceNonbondedForces(System& system, const vector<Vec3>& positions, NarumiNonbondedForce::AccumulationMethod accumulationMethod) {
    if ((int) positions.size() != system.getNumParticles())
        throw OpenMMException("replaceNonbondedForces: " + to_string(positions.size()) + " positions for a System of " +
                              to_string(system.getNumParticles()) + " particles");
    for (size_t i = 0; i < positions.size(); i++)
        if (!isfinite(positions[i][0]) || !isfinite(positions[i][1]) || !isfinite(positions[i][2])) {
            stringstream msg;
            msg << "replaceNonbondedForces: the position of particle " << i << " is not finite: " << positions[i];
            throw OpenMMException(msg.str());
        }
    return replace(system, &positions, accumulationMethod);
}
