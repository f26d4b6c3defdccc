#include "internal/NarumiLennardJonesPairs.h"
#include <map>
#include <tuple>

using namespace OpenMMNarumi;
using namespace std;

NarumiLennardJonesPairs::NarumiLennardJonesPairs(const NarumiNonbondedForce& force) : numTableTypes(0) {
    int numParticles = force.getNumParticles();
    sigma.resize(numParticles);
    epsilon.resize(numParticles);
    tableType.assign(numParticles, -1);
    // Dense indices for the types that particles have and entries name: the table stays as small as those types.
    map<int, int> hasEntry;
    for (int k = 0; k < force.getNumLennardJonesTypePairs(); k++) {
        int type1, type2;
        double c6, c12;
        force.getLennardJonesTypePairParameters(k, type1, type2, c6, c12);
        hasEntry[type1] = hasEntry[type2] = -1;
    }
    for (int i = 0; i < numParticles; i++) {
        double charge;
        force.getParticleParameters(i, charge, sigma[i], epsilon[i]);
        auto type = hasEntry.find(force.getParticleLennardJonesType(i));
        if (type == hasEntry.end())
            continue;
        if (type->second < 0)
            type->second = numTableTypes++;
        tableType[i] = type->second;
    }
    table.assign((size_t) numTableTypes * numTableTypes, Entry{false, 0.0, 0.0});
    for (int k = 0; k < force.getNumLennardJonesTypePairs(); k++) {
        int type1, type2;
        double c6, c12;
        force.getLennardJonesTypePairParameters(k, type1, type2, c6, c12);
        int a = hasEntry[type1], b = hasEntry[type2];
        if (a < 0 || b < 0)
            continue; // no particle has one of the types
        table[(size_t) a * numTableTypes + b] = table[(size_t) b * numTableTypes + a] = Entry{true, c6, c12};
    }
    map<tuple<int, double, double>, int> classOfParameters;
    particleClass.resize(numParticles);
    for (int i = 0; i < numParticles; i++) {
        auto inserted = classOfParameters.insert({make_tuple(tableType[i], sigma[i], epsilon[i]), (int) classMembers.size()});
        if (inserted.second)
            classMembers.push_back({i, 0});
        particleClass[i] = inserted.first->second;
        classMembers[particleClass[i]].second++;
    }
}
