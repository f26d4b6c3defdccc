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
    : nonbondedMethod(NoCutoff), electrostaticsMethod(ReactionField), accumulationMethod(Narumi),
      lennardJonesModifier(NoLennardJonesModifier), reactionFieldConvention(OpenMMReactionField), cutoffDistance(1.0),
      switchingDistance(-1.0), reactionFieldDielectric(78.3), coulombDielectric(1.0), useSwitchingFunction(false),
      useDispersionCorrection(true), exceptionsUsePeriodic(false) {
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
    if (method < Narumi || (method > FixedPoint64 && method != TileSums)) {
        stringstream msg;
        msg << "NarumiNonbondedForce: illegal accumulation method " << (int) method
            << "; the methods are Narumi (0), SingleFloat (1), DoubleFloat (2), FixedPoint64 (3) and TileSums (7)";
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
    if (dielectric == 0)
        throw OpenMMException("NarumiNonbondedForce: reaction field dielectric 0 is not allowed; for a conducting boundary "
                              "(GROMACS's epsilon-rf = 0) pass infinity");
    if (std::isnan(dielectric) || dielectric < 0) {
        stringstream msg;
        msg << "NarumiNonbondedForce: reaction field dielectric must be positive (or infinity), got " << dielectric;
        throw OpenMMException(msg.str());
    }
    reactionFieldDielectric = dielectric;
}

double NarumiNonbondedForce::getCoulombDielectric() const {
    return coulombDielectric;
}

void NarumiNonbondedForce::setCoulombDielectric(double dielectric) {
    requireFinite("Coulomb dielectric", dielectric);
    if (dielectric <= 0) {
        stringstream msg;
        msg << "NarumiNonbondedForce: Coulomb dielectric must be positive, got " << dielectric;
        throw OpenMMException(msg.str());
    }
    coulombDielectric = dielectric;
}

NarumiNonbondedForce::LennardJonesModifier NarumiNonbondedForce::getLennardJonesModifier() const {
    return lennardJonesModifier;
}

void NarumiNonbondedForce::setLennardJonesModifier(LennardJonesModifier modifier) {
    if (modifier != NoLennardJonesModifier && modifier != LennardJonesPotentialShift) {
        stringstream msg;
        msg << "NarumiNonbondedForce: illegal Lennard-Jones modifier " << (int) modifier
            << "; the modifiers are NoLennardJonesModifier (0) and LennardJonesPotentialShift (1)";
        throw OpenMMException(msg.str());
    }
    lennardJonesModifier = modifier;
}

NarumiNonbondedForce::ReactionFieldConvention NarumiNonbondedForce::getReactionFieldConvention() const {
    return reactionFieldConvention;
}

void NarumiNonbondedForce::setReactionFieldConvention(ReactionFieldConvention convention) {
    if (convention != OpenMMReactionField && convention != GromacsReactionField) {
        stringstream msg;
        msg << "NarumiNonbondedForce: illegal reaction field convention " << (int) convention
            << "; the conventions are OpenMMReactionField (0) and GromacsReactionField (1)";
        throw OpenMMException(msg.str());
    }
    reactionFieldConvention = convention;
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

void NarumiNonbondedForce::checkTypePairIndex(int index) const {
    if (index < 0 || index >= (int) typePairs.size()) {
        stringstream msg;
        msg << "NarumiNonbondedForce: Lennard-Jones type pair index " << index << " is out of range [0, " << typePairs.size() << ")";
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
    particles.push_back({charge, sigma, epsilon, -1});
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
    ParticleInfo& p = particles[index];
    p.charge = charge;
    p.sigma = sigma;
    p.epsilon = epsilon;
}

void NarumiNonbondedForce::setParticleLennardJonesType(int particle, int type) {
    checkParticleIndex(particle);
    if (type < -1) {
        stringstream msg;
        msg << "NarumiNonbondedForce: Lennard-Jones type of particle " << particle << " must be >= 0, or -1 for none, got " << type;
        throw OpenMMException(msg.str());
    }
    particles[particle].lennardJonesType = type;
}

int NarumiNonbondedForce::getParticleLennardJonesType(int particle) const {
    checkParticleIndex(particle);
    return particles[particle].lennardJonesType;
}

namespace {

void requireTypePair(int type1, int type2) {
    if (type1 < 0 || type2 < 0) {
        stringstream msg;
        msg << "NarumiNonbondedForce: the types of a Lennard-Jones type pair must be >= 0, got (" << type1 << ", " << type2 << ")";
        throw OpenMMException(msg.str());
    }
}

void requireC6C12(double c6, double c12) {
    requireFinite("Lennard-Jones type pair C6", c6);
    requireNonNegative("Lennard-Jones type pair C12", c12);
}

} // namespace

int NarumiNonbondedForce::addLennardJonesTypePair(int type1, int type2, double sigma, double epsilon, bool replace) {
    requireNonNegative("Lennard-Jones type pair sigma", sigma);
    requireNonNegative("Lennard-Jones type pair epsilon", epsilon);
    double sigma6 = pow(sigma, 6);
    return addLennardJonesTypePair_usingC6C12(type1, type2, 4 * epsilon * sigma6, 4 * epsilon * sigma6 * sigma6, replace);
}

int NarumiNonbondedForce::addLennardJonesTypePair_usingC6C12(int type1, int type2, double c6, double c12, bool replace) {
    requireTypePair(type1, type2);
    requireC6C12(c6, c12);
    pair<int, int> key(min(type1, type2), max(type1, type2));
    auto existing = typePairIndexOfPair.find(key);
    if (existing != typePairIndexOfPair.end()) {
        if (!replace) {
            stringstream msg;
            msg << "NarumiNonbondedForce: there is already a Lennard-Jones type pair entry for types " << type1 << " and " << type2
                << " (pass replace = true to overwrite it)";
            throw OpenMMException(msg.str());
        }
        typePairs[existing->second] = {type1, type2, c6, c12};
        return existing->second;
    }
    typePairs.push_back({type1, type2, c6, c12});
    typePairIndexOfPair[key] = typePairs.size() - 1;
    return typePairs.size() - 1;
}

void NarumiNonbondedForce::getLennardJonesTypePairParameters(int index, int& type1, int& type2, double& c6, double& c12) const {
    checkTypePairIndex(index);
    const TypePairInfo& entry = typePairs[index];
    type1 = entry.type1;
    type2 = entry.type2;
    c6 = entry.c6;
    c12 = entry.c12;
}

void NarumiNonbondedForce::setLennardJonesTypePairParameters(int index, int type1, int type2, double c6, double c12) {
    checkTypePairIndex(index);
    requireTypePair(type1, type2);
    requireC6C12(c6, c12);
    TypePairInfo& entry = typePairs[index];
    pair<int, int> oldKey(min(entry.type1, entry.type2), max(entry.type1, entry.type2));
    pair<int, int> newKey(min(type1, type2), max(type1, type2));
    if (newKey != oldKey) {
        if (typePairIndexOfPair.count(newKey) != 0) {
            stringstream msg;
            msg << "NarumiNonbondedForce: there is already a Lennard-Jones type pair entry for types " << type1 << " and " << type2;
            throw OpenMMException(msg.str());
        }
        typePairIndexOfPair.erase(oldKey);
        typePairIndexOfPair[newKey] = index;
    }
    entry = {type1, type2, c6, c12};
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
