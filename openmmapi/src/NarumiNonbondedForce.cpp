#include "NarumiNonbondedForce.h"
#include "internal/NarumiNonbondedForceImpl.h"
#include "openmm/OpenMMException.h"
#include "openmm/internal/ContextImpl.h"
#include <algorithm>
#include <cmath>
#include <set>
#include <sstream>

using namespace OpenMMNarumi;
using namespace OpenMM;
using namespace std;

namespace {

void requireFinite(const char* what, double value) {
    if (!std::isfinite(value)) {
        stringstream msg;
        msg << "NarumiNonbondedForce: " << what << " must be finite, got " << value;
        throw OpenMMException(msg.str());
    }
}

void requireNonNegative(const char* what, double value) {
    requireFinite(what, value);
    if (value < 0) {
        stringstream msg;
        msg << "NarumiNonbondedForce: " << what << " cannot be negative, got " << value;
        throw OpenMMException(msg.str());
    }
}

} // namespace

NarumiNonbondedForce::NarumiNonbondedForce()
    : nonbondedMethod(NoCutoff), electrostaticsMethod(ReactionField), accumulationMethod(Narumi), cutoffDistance(1.0),
      switchingDistance(-1.0), reactionFieldDielectric(78.3), useSwitchingFunction(false), useDispersionCorrection(true),
      exceptionsUsePeriodic(false) {
    setName("NarumiNonbondedForce");
}

NarumiNonbondedForce::NonbondedMethod NarumiNonbondedForce::getNonbondedMethod() const {
    return nonbondedMethod;
}

void NarumiNonbondedForce::setNonbondedMethod(NonbondedMethod method) {
    if (method < NoCutoff || method > CutoffPeriodic) {
        stringstream msg;
        msg << "NarumiNonbondedForce: illegal nonbonded method " << (int) method
            << " (PME, Ewald and LJPME are not supported: use NoCutoff, CutoffNonPeriodic or CutoffPeriodic)";
        throw OpenMMException(msg.str());
    }
    nonbondedMethod = method;
}

NarumiNonbondedForce::ElectrostaticsMethod NarumiNonbondedForce::getElectrostaticsMethod() const {
    return electrostaticsMethod;
}

void NarumiNonbondedForce::setElectrostaticsMethod(ElectrostaticsMethod method) {
    if (method < ReactionField || method > NoCoulomb) {
        stringstream msg;
        msg << "NarumiNonbondedForce: illegal electrostatics method " << (int) method;
        throw OpenMMException(msg.str());
    }
    electrostaticsMethod = method;
}

NarumiNonbondedForce::AccumulationMethod NarumiNonbondedForce::getAccumulationMethod() const {
    return accumulationMethod;
}

void NarumiNonbondedForce::setAccumulationMethod(AccumulationMethod method) {
    if (method < Narumi || method > FixedPoint64) {
        stringstream msg;
        msg << "NarumiNonbondedForce: illegal accumulation method " << (int) method
            << "; the methods are Narumi (0), SingleFloat (1), DoubleFloat (2) and FixedPoint64 (3)";
        if (method >= 4 && method <= 6)
            msg << ". The paper's float pairs (4-6: TakahashiIitaka, Nitadori, ModifiedNitadori) are no accumulation "
                   "method of a force: the CUDA platform runs them for accuracy studies with NARUMI_DIAGNOSTICS="
                   "accumulation=NAME (docs/development.md, \"Diagnostics\")";
        throw OpenMMException(msg.str());
    }
    accumulationMethod = method;
}

double NarumiNonbondedForce::getCutoffDistance() const {
    return cutoffDistance;
}

void NarumiNonbondedForce::setCutoffDistance(double distance) {
    requireFinite("cutoff distance", distance);
    if (distance <= 0) {
        stringstream msg;
        msg << "NarumiNonbondedForce: cutoff distance must be positive, got " << distance;
        throw OpenMMException(msg.str());
    }
    cutoffDistance = distance;
}

double NarumiNonbondedForce::getReactionFieldDielectric() const {
    return reactionFieldDielectric;
}

void NarumiNonbondedForce::setReactionFieldDielectric(double dielectric) {
    requireFinite("reaction field dielectric", dielectric);
    if (dielectric <= 0) {
        stringstream msg;
        msg << "NarumiNonbondedForce: reaction field dielectric must be positive, got " << dielectric;
        throw OpenMMException(msg.str());
    }
    reactionFieldDielectric = dielectric;
}

bool NarumiNonbondedForce::getUseSwitchingFunction() const {
    return useSwitchingFunction;
}

void NarumiNonbondedForce::setUseSwitchingFunction(bool use) {
    useSwitchingFunction = use;
}

double NarumiNonbondedForce::getSwitchingDistance() const {
    return switchingDistance;
}

void NarumiNonbondedForce::setSwitchingDistance(double distance) {
    // Negative values are allowed while switching is off (NonbondedForce's default is -1); initialize() checks the range.
    requireFinite("switching distance", distance);
    switchingDistance = distance;
}

bool NarumiNonbondedForce::getUseDispersionCorrection() const {
    return useDispersionCorrection;
}

void NarumiNonbondedForce::setUseDispersionCorrection(bool use) {
    useDispersionCorrection = use;
}

bool NarumiNonbondedForce::getExceptionsUsePeriodicBoundaryConditions() const {
    return exceptionsUsePeriodic;
}

void NarumiNonbondedForce::setExceptionsUsePeriodicBoundaryConditions(bool periodic) {
    exceptionsUsePeriodic = periodic;
}

void NarumiNonbondedForce::checkParticleIndex(int index) const {
    if (index < 0 || index >= (int) particles.size()) {
        stringstream msg;
        msg << "NarumiNonbondedForce: particle index " << index << " is out of range [0, " << particles.size() << ")";
        throw OpenMMException(msg.str());
    }
}

void NarumiNonbondedForce::checkExceptionIndex(int index) const {
    if (index < 0 || index >= (int) exceptions.size()) {
        stringstream msg;
        msg << "NarumiNonbondedForce: exception index " << index << " is out of range [0, " << exceptions.size() << ")";
        throw OpenMMException(msg.str());
    }
}

int NarumiNonbondedForce::addParticle(double charge, double sigma, double epsilon) {
    requireFinite("particle charge", charge);
    requireNonNegative("particle sigma", sigma);
    requireNonNegative("particle epsilon", epsilon);
    particles.push_back({charge, sigma, epsilon});
    return particles.size() - 1;
}

void NarumiNonbondedForce::getParticleParameters(int index, double& charge, double& sigma, double& epsilon) const {
    checkParticleIndex(index);
    const ParticleInfo& p = particles[index];
    charge = p.charge;
    sigma = p.sigma;
    epsilon = p.epsilon;
}

void NarumiNonbondedForce::setParticleParameters(int index, double charge, double sigma, double epsilon) {
    checkParticleIndex(index);
    requireFinite("particle charge", charge);
    requireNonNegative("particle sigma", sigma);
    requireNonNegative("particle epsilon", epsilon);
    particles[index] = {charge, sigma, epsilon};
}

int NarumiNonbondedForce::addException(int particle1, int particle2, double chargeProd, double sigma, double epsilon, bool replace) {
    // Indices are checked against the System in initialize(), because exceptions may be added before particles.
    if (particle1 < 0 || particle2 < 0) {
        stringstream msg;
        msg << "NarumiNonbondedForce: exception particle index cannot be negative, got (" << particle1 << ", " << particle2 << ")";
        throw OpenMMException(msg.str());
    }
    if (particle1 == particle2) {
        stringstream msg;
        msg << "NarumiNonbondedForce: an exception needs two different particles, got " << particle1 << " twice";
        throw OpenMMException(msg.str());
    }
    requireFinite("exception chargeProd", chargeProd);
    requireNonNegative("exception sigma", sigma);
    requireNonNegative("exception epsilon", epsilon);
    pair<int, int> key(min(particle1, particle2), max(particle1, particle2));
    auto existing = exceptionIndexOfPair.find(key);
    if (existing != exceptionIndexOfPair.end()) {
        if (!replace) {
            stringstream msg;
            msg << "NarumiNonbondedForce: there is already an exception for particles " << particle1 << " and " << particle2;
            throw OpenMMException(msg.str());
        }
        exceptions[existing->second] = {particle1, particle2, chargeProd, sigma, epsilon};
        return existing->second;
    }
    exceptions.push_back({particle1, particle2, chargeProd, sigma, epsilon});
    exceptionIndexOfPair[key] = exceptions.size() - 1;
    return exceptions.size() - 1;
}

void NarumiNonbondedForce::getExceptionParameters(int index, int& particle1, int& particle2, double& chargeProd, double& sigma, double& epsilon) const {
    checkExceptionIndex(index);
    const ExceptionInfo& e = exceptions[index];
    particle1 = e.particle1;
    particle2 = e.particle2;
    chargeProd = e.chargeProd;
    sigma = e.sigma;
    epsilon = e.epsilon;
}

void NarumiNonbondedForce::setExceptionParameters(int index, int particle1, int particle2, double chargeProd, double sigma, double epsilon) {
    checkExceptionIndex(index);
    requireFinite("exception chargeProd", chargeProd);
    requireNonNegative("exception sigma", sigma);
    requireNonNegative("exception epsilon", epsilon);
    ExceptionInfo& e = exceptions[index];
    pair<int, int> oldKey(min(e.particle1, e.particle2), max(e.particle1, e.particle2));
    pair<int, int> newKey(min(particle1, particle2), max(particle1, particle2));
    if (newKey != oldKey) {
        if (particle1 < 0 || particle2 < 0 || particle1 == particle2) {
            stringstream msg;
            msg << "NarumiNonbondedForce: illegal exception particles (" << particle1 << ", " << particle2 << ")";
            throw OpenMMException(msg.str());
        }
        if (exceptionIndexOfPair.count(newKey) != 0) {
            stringstream msg;
            msg << "NarumiNonbondedForce: there is already an exception for particles " << particle1 << " and " << particle2;
            throw OpenMMException(msg.str());
        }
        exceptionIndexOfPair.erase(oldKey);
        exceptionIndexOfPair[newKey] = index;
    }
    e = {particle1, particle2, chargeProd, sigma, epsilon};
}

void NarumiNonbondedForce::createExceptionsFromBonds(const vector<pair<int, int> >& bonds, double coulomb14Scale, double lj14Scale) {
    requireFinite("coulomb14Scale", coulomb14Scale);
    requireFinite("lj14Scale", lj14Scale);
    vector<set<int> > neighbors(particles.size());
    for (const auto& bond : bonds) {
        checkParticleIndex(bond.first);
        checkParticleIndex(bond.second);
        neighbors[bond.first].insert(bond.second);
        neighbors[bond.second].insert(bond.first);
    }
    // NonbondedForce's exceptions in NonbondedForce's order (for each particle i, its partners j < i within three
    // bonds, ascending), so that exception indices are the same: depth 1 and 2 are excluded, depth 3 is a 1-4 pair.
    vector<ExceptionInfo> created;
    for (int i = 0; i < (int) particles.size(); i++) {
        set<int> within2(neighbors[i].begin(), neighbors[i].end());
        for (int j : neighbors[i])
            within2.insert(neighbors[j].begin(), neighbors[j].end());
        set<int> within3(within2);
        for (int j : within2)
            within3.insert(neighbors[j].begin(), neighbors[j].end());
        for (int j : within3) {
            if (j >= i)
                break;
            if (within2.count(j) != 0) {
                created.push_back({j, i, 0.0, 1.0, 0.0});
                continue;
            }
            const ParticleInfo& a = particles[j];
            const ParticleInfo& b = particles[i];
            created.push_back({j, i, coulomb14Scale * a.charge * b.charge, 0.5 * (a.sigma + b.sigma),
                               lj14Scale * sqrt(a.epsilon * b.epsilon)});
        }
    }
    // An exception added before is an error, as in NonbondedForce; checked first so that a refusal changes nothing.
    for (const ExceptionInfo& e : created)
        if (exceptionIndexOfPair.count(make_pair(e.particle1, e.particle2)) != 0) {
            stringstream msg;
            msg << "NarumiNonbondedForce: createExceptionsFromBonds: there is already an exception for particles "
                << e.particle1 << " and " << e.particle2;
            throw OpenMMException(msg.str());
        }
    for (const ExceptionInfo& e : created)
        addException(e.particle1, e.particle2, e.chargeProd, e.sigma, e.epsilon);
}

ForceImpl* NarumiNonbondedForce::createImpl() const {
    return new NarumiNonbondedForceImpl(*this);
}

void NarumiNonbondedForce::updateParametersInContext(Context& context) {
    dynamic_cast<NarumiNonbondedForceImpl&>(getImplInContext(context)).updateParametersInContext(getContextImpl(context));
}
