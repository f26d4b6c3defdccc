#include "PairTableFusion.h"
#include "NonbondedForceConversion.h"
#include "openmm/Context.h"
#include "openmm/CustomBondForce.h"
#include "openmm/CustomNonbondedForce.h"
#include "openmm/NonbondedForce.h"
#include "openmm/OpenMMException.h"
#include "openmm/Platform.h"
#include "openmm/State.h"
#include "openmm/TabulatedFunction.h"
#include "openmm/VerletIntegrator.h"
#include "openmm/serialization/XmlSerializer.h"
#include <algorithm>
#include <cctype>
#include <cmath>
#include <map>
#include <memory>
#include <set>
#include <sstream>
#include <utility>

using namespace OpenMMNarumi;
using namespace OpenMM;
using namespace std;

namespace {

// The expressions that OpenMM 8.6's loaders write, without white space and trailing semicolons.
const string PAIR_TABLE_EXPRESSION = "(a/r6)^2-b/r6;r6=r^6;a=acoef(type1,type2);b=bcoef(type1,type2)";
const string PAIRS_14_EXPRESSION = "-C/r^6+A/r^12";
const double RELATIVE_TOLERANCE = 1e-9;
// OpenMM stops integrating a CustomNonbondedForce's long-range correction once a step changes it by less than 1e-5.
const double LONG_RANGE_TOLERANCE = 1e-5;

string normalised(const string& expression) {
    string result;
    for (char c : expression)
        if (!isspace((unsigned char) c))
            result += c;
    while (!result.empty() && result.back() == ';')
        result.pop_back();
    return result;
}

string describe(const System& system, int index) {
    stringstream text;
    text << "force " << index << " (" << system.getForce(index).getName() << ")";
    return text.str();
}

[[noreturn]] void refuse(const string& why) {
    throw OpenMMException("replaceNonbondedForces cannot fuse OpenMM's pair-table forces into one NarumiNonbondedForce: " + why +
                          " (to keep them apart, replace the NonbondedForce by createNarumiNonbondedForce yourself)");
}

bool isPairTableForce(const CustomNonbondedForce& force) {
    for (int i = 0; i < force.getNumTabulatedFunctions(); i++) {
        const string& name = force.getTabulatedFunctionName(i);
        if (name == "acoef" || name == "bcoef")
            return true;
    }
    return false;
}

/** A square Discrete2DFunction of the pair-table force by name (size n x n), its values in values. */
int squareTable(const CustomNonbondedForce& force, const string& where, const string& name, vector<double>& values) {
    for (int i = 0; i < force.getNumTabulatedFunctions(); i++) {
        if (force.getTabulatedFunctionName(i) != name)
            continue;
        const Discrete2DFunction* table = dynamic_cast<const Discrete2DFunction*>(&force.getTabulatedFunction(i));
        if (table == nullptr)
            refuse(where + "'s tabulated function " + name + " is not a Discrete2DFunction");
        int xsize, ysize;
        table->getFunctionParameters(xsize, ysize, values);
        if (xsize != ysize) {
            stringstream msg;
            msg << where << "'s table " << name << " is " << xsize << " x " << ysize << ", not square";
            refuse(msg.str());
        }
        return xsize;
    }
    refuse(where + " has no tabulated function " + name);
}

pair<int, int> ordered(int a, int b) {
    return make_pair(min(a, b), max(a, b));
}

} // namespace

PairTableForceSet OpenMMNarumi::findPairTableForces(const System& system) {
    PairTableForceSet set;
    vector<int> nonbonded, pairTables, pairs14;
    for (int i = 0; i < system.getNumForces(); i++) {
        const Force& force = system.getForce(i);
        if (dynamic_cast<const NonbondedForce*>(&force) != nullptr)
            nonbonded.push_back(i);
        else if (auto table = dynamic_cast<const CustomNonbondedForce*>(&force)) {
            if (isPairTableForce(*table))
                pairTables.push_back(i);
        }
        else if (auto bonds = dynamic_cast<const CustomBondForce*>(&force)) {
            if (normalised(bonds->getEnergyFunction()) == PAIRS_14_EXPRESSION)
                pairs14.push_back(i);
        }
    }
    if (pairTables.empty())
        return set;
    if (pairTables.size() > 1)
        refuse("the System has " + to_string(pairTables.size()) + " CustomNonbondedForces with tables acoef or bcoef (" +
               describe(system, pairTables[0]) + ", " + describe(system, pairTables[1]) + "); OpenMM's loaders make one");
    if (nonbonded.size() != 1)
        refuse(describe(system, pairTables[0]) + " needs exactly one NonbondedForce beside it, for the charges; the System has " +
               to_string(nonbonded.size()));
    if (pairs14.size() > 1)
        refuse("the System has " + to_string(pairs14.size()) + " CustomBondForces of 1-4 Lennard-Jones pairs (" +
               describe(system, pairs14[0]) + ", " + describe(system, pairs14[1]) + "); GromacsTopFile makes one");
    set.nonbonded = nonbonded[0];
    set.pairTable = pairTables[0];
    set.pairs14 = (pairs14.empty() ? -1 : pairs14[0]);
    return set;
}

NarumiNonbondedForce* OpenMMNarumi::fusePairTableForces(const System& system, const PairTableForceSet& set) {
    const NonbondedForce& nonbonded = dynamic_cast<const NonbondedForce&>(system.getForce(set.nonbonded));
    const CustomNonbondedForce& table = dynamic_cast<const CustomNonbondedForce&>(system.getForce(set.pairTable));
    const string where = describe(system, set.pairTable), nonbondedName = describe(system, set.nonbonded);
    stringstream msg;
    msg.precision(15);

    // The force must be exactly what the loaders write: one expression, one per-particle type, two tables.
    if (normalised(table.getEnergyFunction()) != PAIR_TABLE_EXPRESSION)
        refuse(where + "'s energy expression '" + table.getEnergyFunction() +
               "' is not the loaders' '(a/r6)^2-b/r6; r6=r^6; a=acoef(type1, type2); b=bcoef(type1, type2)'");
    if (table.getNumPerParticleParameters() != 1 || table.getPerParticleParameterName(0) != "type")
        refuse(where + " must have one per-particle parameter, type; it has " + to_string(table.getNumPerParticleParameters()));
    if (table.getNumTabulatedFunctions() != 2)
        refuse(where + " has " + to_string(table.getNumTabulatedFunctions()) + " tabulated functions, not acoef and bcoef alone");
    if (table.getNumInteractionGroups() > 0)
        refuse(where + " has " + to_string(table.getNumInteractionGroups()) + " interaction groups; all pairs must interact");
    if (table.getNumGlobalParameters() > 0 || table.getNumEnergyParameterDerivatives() > 0 || table.getNumComputedValues() > 0)
        refuse(where + " has global parameters, parameter derivatives or computed values");
    vector<double> acoef, bcoef;
    int numTypes = squareTable(table, where, "acoef", acoef);
    if (squareTable(table, where, "bcoef", bcoef) != numTypes)
        refuse(where + "'s tables acoef and bcoef differ in size");

    // Settings: the NonbondedForce's method and cutoff are the fused force's, so the table's must equal them.
    unique_ptr<NarumiNonbondedForce> fused(createNarumiNonbondedForce(nonbonded));
    if ((int) table.getNonbondedMethod() != (int) fused->getNonbondedMethod())
        refuse(where + " uses nonbonded method " + to_string(table.getNonbondedMethod()) + " and " + nonbondedName +
               " method " + to_string(nonbonded.getNonbondedMethod()) + " (0 NoCutoff, 1 CutoffNonPeriodic, 2 CutoffPeriodic)");
    if (nonbonded.getNonbondedMethod() != NonbondedForce::NoCutoff && table.getCutoffDistance() != nonbonded.getCutoffDistance()) {
        msg << where << " has cutoff " << table.getCutoffDistance() << " nm and " << nonbondedName << " " << nonbonded.getCutoffDistance()
            << " nm; one NarumiNonbondedForce has one cutoff";
        refuse(msg.str());
    }
    for (int index : {set.pairTable, set.pairs14})
        if (index >= 0 && system.getForce(index).getForceGroup() != nonbonded.getForceGroup())
            refuse(describe(system, index) + " is in force group " + to_string(system.getForce(index).getForceGroup()) + " and " +
                   nonbondedName + " in " + to_string(nonbonded.getForceGroup()) + "; the fused force has one group");
    fused->setUseSwitchingFunction(table.getUseSwitchingFunction());
    fused->setSwitchingDistance(table.getSwitchingDistance());
    fused->setUseDispersionCorrection(table.getUseLongRangeCorrection());

    // Particles: charges from the NonbondedForce (whose Lennard-Jones must be off), types from the table force.
    if (table.getNumParticles() != nonbonded.getNumParticles())
        refuse(where + " has " + to_string(table.getNumParticles()) + " particles and " + nonbondedName + " " +
               to_string(nonbonded.getNumParticles()));
    std::set<int> usedTypes;
    vector<double> parameters;
    for (int i = 0; i < nonbonded.getNumParticles(); i++) {
        double charge, sigma, epsilon;
        nonbonded.getParticleParameters(i, charge, sigma, epsilon);
        if (epsilon != 0) {
            msg << nonbondedName << " gives particle " << i << " epsilon " << epsilon
                << " kJ/mol; beside a pair-table force its Lennard-Jones must be off (epsilon 0)";
            refuse(msg.str());
        }
        table.getParticleParameters(i, parameters);
        double type = parameters[0];
        if (!(type >= 0 && type < numTypes && type == floor(type))) {
            msg << where << " gives particle " << i << " type " << type << ", not an integer from 0 to " << numTypes - 1;
            refuse(msg.str());
        }
        fused->setParticleLennardJonesType(i, (int) type);
        usedTypes.insert((int) type);
    }

    // Type pairs: C12 = acoef^2, C6 = bcoef, which a pair reads in either order, so the tables must be symmetric.
    for (int t1 : usedTypes)
        for (int t2 : usedTypes) {
            if (t2 < t1)
                continue;
            int forward = t1 + numTypes * t2, backward = t2 + numTypes * t1;
            if (acoef[forward] != acoef[backward] || bcoef[forward] != bcoef[backward]) {
                msg << where << "'s tables are not symmetric for types " << t1 << " and " << t2 << ": acoef " << acoef[forward]
                    << " and " << acoef[backward] << ", bcoef " << bcoef[forward] << " and " << bcoef[backward];
                refuse(msg.str());
            }
            double c12 = acoef[forward] * acoef[forward], c6 = bcoef[forward];
            if (!isfinite(c12) || !isfinite(c6)) {
                msg << where << " gives types " << t1 << " and " << t2 << " acoef " << acoef[forward] << " and bcoef " << c6;
                refuse(msg.str());
            }
            fused->addLennardJonesTypePair_usingC6C12(t1, t2, c6, c12);
        }

    // Exclusions: the table force's must be the NonbondedForce's exception pairs, which the fused force excludes.
    map<pair<int, int>, int> exceptionOfPair;
    for (int i = 0; i < nonbonded.getNumExceptions(); i++) {
        int p1, p2;
        double chargeProd, sigma, epsilon;
        nonbonded.getExceptionParameters(i, p1, p2, chargeProd, sigma, epsilon);
        exceptionOfPair[ordered(p1, p2)] = i;
    }
    std::set<pair<int, int> > excluded;
    for (int i = 0; i < table.getNumExclusions(); i++) {
        int p1, p2;
        table.getExclusionParticles(i, p1, p2);
        if (exceptionOfPair.count(ordered(p1, p2)) == 0) {
            msg << where << " excludes particles " << p1 << " and " << p2 << ", which are no exception of " << nonbondedName;
            refuse(msg.str());
        }
        excluded.insert(ordered(p1, p2));
    }
    if (excluded.size() != exceptionOfPair.size())
        for (const auto& exception : exceptionOfPair)
            if (excluded.count(exception.first) == 0) {
                msg << nonbondedName << " has an exception for particles " << exception.first.first << " and "
                    << exception.first.second << ", which " << where << " does not exclude";
                refuse(msg.str());
            }

    // 1-4 pairs of GromacsTopFile's CustomBondForce: C6 (C) and C12 (A) of an exception whose epsilon the loader zeroed.
    if (set.pairs14 >= 0) {
        const CustomBondForce& pairs = dynamic_cast<const CustomBondForce&>(system.getForce(set.pairs14));
        const string pairsName = describe(system, set.pairs14);
        if (pairs.getNumPerBondParameters() != 2 || pairs.getPerBondParameterName(0) != "C" || pairs.getPerBondParameterName(1) != "A")
            refuse(pairsName + " must have the per-bond parameters C and A, in that order");
        if (pairs.getNumGlobalParameters() > 0 || pairs.getNumEnergyParameterDerivatives() > 0)
            refuse(pairsName + " has global parameters or parameter derivatives");
        if (pairs.usesPeriodicBoundaryConditions() != nonbonded.getExceptionsUsePeriodicBoundaryConditions())
            refuse(pairsName + " and the exceptions of " + nonbondedName + " differ in whether they use periodic boundary conditions");
        std::set<pair<int, int> > seen;
        for (int i = 0; i < pairs.getNumBonds(); i++) {
            int p1, p2;
            pairs.getBondParameters(i, p1, p2, parameters);
            double c6 = parameters[0], c12 = parameters[1];
            auto exception = exceptionOfPair.find(ordered(p1, p2));
            if (exception == exceptionOfPair.end() || !seen.insert(ordered(p1, p2)).second) {
                msg << pairsName << "'s bond " << i << " (particles " << p1 << " and " << p2 << ") is "
                    << (exception == exceptionOfPair.end() ? "no exception of " + nonbondedName : "a second bond of its pair");
                refuse(msg.str());
            }
            int q1, q2;
            double chargeProd, sigma, epsilon;
            fused->getExceptionParameters(exception->second, q1, q2, chargeProd, sigma, epsilon);
            // An exception holds sigma and epsilon, which C6 = C12 = 0 or C6 > 0, C12 > 0 can be written as.
            bool representable = (c6 == 0 && c12 == 0) || (c6 > 0 && c12 > 0 && isfinite(c6) && isfinite(c12));
            if (epsilon != 0 || !representable) {
                msg << pairsName << "'s bond " << i << " (particles " << p1 << " and " << p2 << ") has C " << c6 << ", A " << c12;
                if (epsilon != 0)
                    msg << " and its exception in " << nonbondedName << " epsilon " << epsilon << " kJ/mol beside it";
                else
                    msg << ", which an exception's sigma and epsilon cannot hold";
                refuse(msg.str());
            }
            if (c6 > 0)
                fused->setExceptionParameters(exception->second, q1, q2, chargeProd, pow(c12 / c6, 1.0 / 6.0), c6 * c6 / (4 * c12));
        }
    }
    return fused.release();
}

namespace {

/** A System with system's particles and default box and no forces. */
unique_ptr<System> particlesOf(const System& system) {
    unique_ptr<System> copy(new System());
    for (int i = 0; i < system.getNumParticles(); i++)
        copy->addParticle(system.getParticleMass(i));
    Vec3 a, b, c;
    system.getDefaultPeriodicBoxVectors(a, b, c);
    copy->setDefaultPeriodicBoxVectors(a, b, c);
    return copy;
}

void addCopy(System& system, const Force& force, int group) {
    Force* copy = XmlSerializer::clone<Force>(force);
    copy->setForceGroup(group);
    system.addForce(copy);
}

/** Energy (kJ/mol) and, with forces, forces (kJ/mol/nm) of a set of force groups. */
double evaluate(Context& context, int groups, vector<Vec3>* forces = nullptr) {
    State state = context.getState(State::Energy | (forces ? State::Forces : 0), false, groups);
    if (forces)
        *forces = state.getForces();
    return state.getPotentialEnergy();
}

} // namespace

void OpenMMNarumi::checkFusedForce(const System& system, const PairTableForceSet& set, const NarumiNonbondedForce& fused,
                                   const vector<Vec3>& positions) {
    const CustomNonbondedForce& table = dynamic_cast<const CustomNonbondedForce&>(system.getForce(set.pairTable));
    bool longRange = table.getUseLongRangeCorrection() && table.getNonbondedMethod() == CustomNonbondedForce::CutoffPeriodic;
    // The replaced forces in groups 0-2, the table force with its long-range correction in group 3; the fused force
    // without it in group 0, with it in group 1.
    unique_ptr<System> replaced = particlesOf(system), replacing = particlesOf(system);
    addCopy(*replaced, system.getForce(set.nonbonded), 0);
    unique_ptr<CustomNonbondedForce> shortRange(XmlSerializer::clone<CustomNonbondedForce>(table));
    shortRange->setUseLongRangeCorrection(false);
    addCopy(*replaced, *shortRange, 1);
    if (set.pairs14 >= 0)
        addCopy(*replaced, system.getForce(set.pairs14), 2);
    if (longRange)
        addCopy(*replaced, table, 3);
    unique_ptr<NarumiNonbondedForce> fusedShortRange(XmlSerializer::clone<NarumiNonbondedForce>(fused));
    fusedShortRange->setUseDispersionCorrection(false);
    addCopy(*replacing, *fusedShortRange, 0);
    if (longRange)
        addCopy(*replacing, fused, 1);

    Platform& reference = Platform::getPlatformByName("Reference");
    VerletIntegrator integrator1(0.001), integrator2(0.001);
    Context replacedContext(*replaced, integrator1, reference);
    unique_ptr<Context> replacingContext;
    try {
        replacingContext.reset(new Context(*replacing, integrator2, reference));
    }
    catch (const OpenMMException& e) {
        throw OpenMMException(string("replaceNonbondedForces cannot check the fused NarumiNonbondedForce on the Reference platform: ") + e.what());
    }
    replacedContext.setPositions(positions);
    replacingContext->setPositions(positions);

    // The table force (the slow one on Reference) is evaluated once without and once with its long-range correction.
    vector<Vec3> expectedForces, forces;
    double expected = evaluate(replacedContext, 7, &expectedForces);
    double parts[3] = {evaluate(replacedContext, 1 << 0), 0, (set.pairs14 >= 0 ? evaluate(replacedContext, 1 << 2) : 0)};
    parts[1] = expected - parts[0] - parts[2];
    double energy = evaluate(*replacingContext, 1, &forces);
    double expectedLongRange = (longRange ? evaluate(replacedContext, 1 << 3) - parts[1] : 0);
    double longRangeEnergy = (longRange ? evaluate(*replacingContext, 1 << 1) - energy : 0);
    double forceDifference = 0, forceNorm = 0;
    for (size_t i = 0; i < forces.size(); i++) {
        Vec3 delta = forces[i] - expectedForces[i];
        forceDifference += delta.dot(delta);
        forceNorm += expectedForces[i].dot(expectedForces[i]);
    }
    forceDifference = sqrt(forceDifference);
    forceNorm = sqrt(forceNorm);
    double energyScale = fabs(parts[0]) + fabs(parts[1]) + fabs(parts[2]);
    bool energyAgrees = fabs(energy - expected) <= RELATIVE_TOLERANCE * energyScale;
    bool forcesAgree = forceDifference <= RELATIVE_TOLERANCE * forceNorm;
    bool longRangeAgrees = fabs(longRangeEnergy - expectedLongRange) <= LONG_RANGE_TOLERANCE * fabs(expectedLongRange);
    if (energyAgrees && forcesAgree && longRangeAgrees)
        return;
    stringstream msg;
    msg.precision(15);
    msg << "replaceNonbondedForces: the fused NarumiNonbondedForce does not reproduce the forces it would replace on the "
           "Reference platform at the positions given, so the System is left unchanged: energy without the long-range "
           "correction " << energy << " kJ/mol against " << expected << " (difference " << energy - expected
        << ", tolerance " << RELATIVE_TOLERANCE << " x " << energyScale << "), relative RMS force difference "
        << (forceNorm > 0 ? forceDifference / forceNorm : forceDifference) << " (tolerance " << RELATIVE_TOLERANCE
        << "), long-range correction " << longRangeEnergy << " kJ/mol against " << expectedLongRange << " (relative tolerance "
        << LONG_RANGE_TOLERANCE << ")";
    if (!isfinite(expected) || !isfinite(energy))
        msg << "; the energy is not finite at these positions (do particles overlap?)";
    throw OpenMMException(msg.str());
}
