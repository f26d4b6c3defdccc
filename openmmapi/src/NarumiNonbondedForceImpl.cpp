#include "internal/NarumiNonbondedForceImpl.h"
#include "NarumiKernels.h"
#include "openmm/OpenMMException.h"
#include "openmm/internal/ContextImpl.h"
#include <algorithm>
#include <cmath>
#include <iterator>
#include <set>
#include <sstream>

using namespace OpenMMNarumi;
using namespace OpenMM;
using namespace std;

NarumiNonbondedForceImpl::NarumiNonbondedForceImpl(const NarumiNonbondedForce& owner) : owner(owner) {
}

void NarumiNonbondedForceImpl::checkCutoffAgainstBox(double cutoff, const Vec3* boxVectors) {
    // OpenMM's reduced box form: the diagonal elements are the perpendicular widths of the box.
    double shortestWidth = min(boxVectors[0][0], min(boxVectors[1][1], boxVectors[2][2]));
    if (cutoff > 0.5 * shortestWidth) {
        stringstream msg;
        msg << "NarumiNonbondedForce: the cutoff distance (" << cutoff << " nm) cannot be larger than half the shortest"
            << " periodic box width (" << shortestWidth << " nm)";
        throw OpenMMException(msg.str());
    }
}

void NarumiNonbondedForceImpl::validate(const System& system, const NarumiNonbondedForce& force) {
    if (force.getNumParticles() != system.getNumParticles()) {
        stringstream msg;
        msg << "NarumiNonbondedForce must have exactly as many particles as the System it belongs to: it has "
            << force.getNumParticles() << ", the System has " << system.getNumParticles();
        throw OpenMMException(msg.str());
    }
    for (int i = 0; i < force.getNumParticles(); i++) {
        double charge, sigma, epsilon;
        force.getParticleParameters(i, charge, sigma, epsilon);
        if (!isfinite(charge) || !isfinite(sigma) || !isfinite(epsilon) || sigma < 0 || epsilon < 0) {
            stringstream msg;
            msg << "NarumiNonbondedForce: illegal parameters for particle " << i << ": charge " << charge << ", sigma "
                << sigma << ", epsilon " << epsilon;
            throw OpenMMException(msg.str());
        }
    }
    set<pair<int, int> > seenPairs;
    for (int i = 0; i < force.getNumExceptions(); i++) {
        int p1, p2;
        double chargeProd, sigma, epsilon;
        force.getExceptionParameters(i, p1, p2, chargeProd, sigma, epsilon);
        for (int p : {p1, p2})
            if (p < 0 || p >= force.getNumParticles()) {
                stringstream msg;
                msg << "NarumiNonbondedForce: illegal particle index " << p << " in exception " << i << " (the System has "
                    << force.getNumParticles() << " particles)";
                throw OpenMMException(msg.str());
            }
        if (!seenPairs.insert(make_pair(min(p1, p2), max(p1, p2))).second) {
            stringstream msg;
            msg << "NarumiNonbondedForce: multiple exceptions are specified for particles " << p1 << " and " << p2;
            throw OpenMMException(msg.str());
        }
    }
    NarumiNonbondedForce::NonbondedMethod method = force.getNonbondedMethod();
    if (force.getUseSwitchingFunction()) {  // with NoCutoff too, as NonbondedForce, although NoCutoff does not switch
        double rs = force.getSwitchingDistance();
        if (rs < 0 || rs >= force.getCutoffDistance()) {
            stringstream msg;
            msg << "NarumiNonbondedForce: the switching distance must satisfy 0 <= r_switch < r_cutoff, got r_switch = "
                << rs << " nm with r_cutoff = " << force.getCutoffDistance() << " nm";
            throw OpenMMException(msg.str());
        }
    }
    bool useCutoff = (method != NarumiNonbondedForce::NoCutoff);
    if (force.getLennardJonesModifier() == NarumiNonbondedForce::LennardJonesPotentialShift) {
        const char* conflict = nullptr;
        if (!useCutoff)
            conflict = "NoCutoff (there is no cutoff to shift at)";
        else if (force.getUseSwitchingFunction())
            conflict = "the switching function (GROMACS too takes one vdw-modifier); call setUseSwitchingFunction(false)";
        else if (method == NarumiNonbondedForce::CutoffPeriodic && force.getUseDispersionCorrection())
            conflict = "the dispersion correction (OpenMM's formula has no term for the shift inside the cutoff); call "
                       "setUseDispersionCorrection(false)";
        if (conflict != nullptr)
            throw OpenMMException(string("NarumiNonbondedForce: LennardJonesPotentialShift cannot be combined with ") + conflict);
    }
    if (force.getReactionFieldConvention() == NarumiNonbondedForce::GromacsReactionField &&
        (!useCutoff || force.getElectrostaticsMethod() != NarumiNonbondedForce::ReactionField))
        throw OpenMMException("NarumiNonbondedForce: GromacsReactionField needs ElectrostaticsMethod ReactionField and a cutoff "
                              "(CutoffPeriodic or CutoffNonPeriodic)");
    if (method == NarumiNonbondedForce::CutoffPeriodic) {
        Vec3 box[3];
        system.getDefaultPeriodicBoxVectors(box[0], box[1], box[2]);
        checkCutoffAgainstBox(force.getCutoffDistance(), box);
    }
}

NarumiNonbondedForceImpl::ReactionFieldConstants NarumiNonbondedForceImpl::reactionFieldConstants(const NarumiNonbondedForce& force) {
    double rc = force.getCutoffDistance(), epsRF = force.getReactionFieldDielectric(), epsR = force.getCoulombDielectric();
    if (isinf(epsRF))
        return {1 / (2 * rc * rc * rc), 3 / (2 * rc)};
    return {(epsRF - epsR) / ((2 * epsRF + epsR) * rc * rc * rc), 3 * epsRF / ((2 * epsRF + epsR) * rc)};
}

bool NarumiNonbondedForceImpl::hasExcludedChargeTerms(const NarumiNonbondedForce& force) {
    return force.getNonbondedMethod() != NarumiNonbondedForce::NoCutoff && force.getElectrostaticsMethod() == NarumiNonbondedForce::ReactionField &&
           force.getReactionFieldConvention() == NarumiNonbondedForce::GromacsReactionField;
}

double NarumiNonbondedForceImpl::reactionFieldSelfEnergy(const NarumiNonbondedForce& force, double coulombConstant) {
    if (!hasExcludedChargeTerms(force))
        return 0.0;
    double sumSquaredCharges = 0;
    for (int i = 0; i < force.getNumParticles(); i++) {
        double charge, sigma, epsilon;
        force.getParticleParameters(i, charge, sigma, epsilon);
        sumSquaredCharges += charge * charge;
    }
    return -0.5 * coulombConstant / force.getCoulombDielectric() * reactionFieldConstants(force).crf * sumSquaredCharges;
}

vector<int> NarumiNonbondedForceImpl::interactingExceptions(const NarumiNonbondedForce& force) {
    vector<int> interacting;
    for (int i = 0; i < force.getNumExceptions(); i++) {
        int p1, p2;
        double chargeProd, sigma, epsilon;
        force.getExceptionParameters(i, p1, p2, chargeProd, sigma, epsilon);
        if (chargeProd != 0 || epsilon != 0)
            interacting.push_back(i);
    }
    return interacting;
}

void NarumiNonbondedForceImpl::initialize(ContextImpl& context) {
    validate(context.getSystem(), owner);
    interacting = interactingExceptions(owner);
    kernel = context.getPlatform().createKernel(CalcNarumiNonbondedForceKernel::Name(), context);
    kernel.getAs<CalcNarumiNonbondedForceKernel>().initialize(context.getSystem(), owner);
}

double NarumiNonbondedForceImpl::calcForcesAndEnergy(ContextImpl& context, bool includeForces, bool includeEnergy, int groups) {
    if ((groups & (1 << owner.getForceGroup())) == 0)
        return 0.0;
    return kernel.getAs<CalcNarumiNonbondedForceKernel>().execute(context, includeForces, includeEnergy);
}

vector<string> NarumiNonbondedForceImpl::getKernelNames() {
    return {CalcNarumiNonbondedForceKernel::Name()};
}

vector<pair<int, int> > NarumiNonbondedForceImpl::getBondedParticles() const {
    // Exception pairs keep molecules whole when OpenMM reorders or wraps atoms, as NonbondedForce's do.
    vector<pair<int, int> > bonded;
    for (int i = 0; i < owner.getNumExceptions(); i++) {
        int p1, p2;
        double chargeProd, sigma, epsilon;
        owner.getExceptionParameters(i, p1, p2, chargeProd, sigma, epsilon);
        bonded.emplace_back(p1, p2);
    }
    return bonded;
}

void NarumiNonbondedForceImpl::updateParametersInContext(ContextImpl& context) {
    validate(context.getSystem(), owner);
    // As NonbondedForce: an exception that was excluded (chargeProd = epsilon = 0) when the Context was created may not
    // start to interact (an interacting one may become zero); reinitialize the Context instead.
    vector<int> now = interactingExceptions(owner), added;
    set_difference(now.begin(), now.end(), interacting.begin(), interacting.end(), back_inserter(added));
    if (!added.empty()) {
        int p1, p2;
        double chargeProd, sigma, epsilon;
        owner.getExceptionParameters(added[0], p1, p2, chargeProd, sigma, epsilon);
        stringstream msg;
        msg << "NarumiNonbondedForce: updateParametersInContext: the set of non-excluded exceptions has changed (exception "
            << added[0] << ", particles " << p1 << " and " << p2 << ", was excluded when the Context was created); "
            << "reinitialize the Context to change it";
        throw OpenMMException(msg.str());
    }
    kernel.getAs<CalcNarumiNonbondedForceKernel>().copyParametersToContext(context, owner);
    context.systemChanged();
}
