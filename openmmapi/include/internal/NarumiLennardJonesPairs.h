#ifndef OPENMM_NARUMI_LENNARD_JONES_PAIRS_H_
#define OPENMM_NARUMI_LENNARD_JONES_PAIRS_H_

#include "NarumiNonbondedForce.h"
#include "internal/NarumiExport.h"
#include <cmath>
#include <vector>

namespace OpenMMNarumi {

/**
 * The Lennard-Jones C6 and C12 of every pair of particles of a NarumiNonbondedForce (not exceptions), by one rule:
 * the type-pair entry where both particles are typed and their types have an entry, else Lorentz-Berthelot of the
 * particles' own sigma and epsilon.  The pair potential is C12/r^12 - C6/r^6.  A snapshot of the force's parameters,
 * for the platforms' kernels and the dispersion correction.
 */
class OPENMM_EXPORT_NARUMI NarumiLennardJonesPairs {
public:
    explicit NarumiLennardJonesPairs(const NarumiNonbondedForce& force);

    /** C6 (kJ/mol nm^6) and C12 (kJ/mol nm^12) of particles i and j. */
    void pairParameters(int i, int j, double& c6, double& c12) const {
        int ti = tableType[i], tj = tableType[j];
        if (ti >= 0 && tj >= 0) {
            const Entry& entry = table[(size_t) ti * numTableTypes + tj];
            if (entry.listed) {
                c6 = entry.c6;
                c12 = entry.c12;
                return;
            }
        }
        combined(sigma[i], epsilon[i], sigma[j], epsilon[j], c6, c12);
    }
    /** Lorentz-Berthelot: sigma = (sigma1 + sigma2)/2, epsilon = sqrt(epsilon1 epsilon2), C6 = 4 epsilon sigma^6,
     *  C12 = 4 epsilon sigma^12. */
    static void combined(double sigma1, double epsilon1, double sigma2, double epsilon2, double& c6, double& c12) {
        double s = 0.5 * (sigma1 + sigma2), s2 = s * s, s6 = s2 * s2 * s2;
        c6 = 4 * std::sqrt(epsilon1 * epsilon2) * s6;
        c12 = c6 * s6;
    }
    /**
     * The classes of particles that behave alike, (table type, sigma, epsilon): a pair's C6 and C12 depend only on
     * its particles' classes, so that a (class, class) table holds every pair's parameters.
     */
    int getNumClasses() const {
        return (int) classMembers.size();
    }
    /** A particle's class. */
    int classOf(int particle) const {
        return particleClass[particle];
    }
    /** The first particle of a class and how many particles it has. */
    int classMember(int lennardJonesClass) const {
        return classMembers[lennardJonesClass].first;
    }
    long long classSize(int lennardJonesClass) const {
        return classMembers[lennardJonesClass].second;
    }
    /** Whether any pair of particles may use a type-pair entry (some particle has a type that has an entry). */
    bool usesTable() const {
        return numTableTypes > 0;
    }

private:
    struct Entry {
        bool listed;
        double c6, c12;
    };
    std::vector<double> sigma, epsilon;
    std::vector<int> tableType;  // per particle: dense index of its type among the types that have entries, or -1
    int numTableTypes;
    std::vector<Entry> table;    // numTableTypes^2, symmetric
    std::vector<int> particleClass;
    std::vector<std::pair<int, long long> > classMembers;   // per class: its first particle, its size
};

} // namespace OpenMMNarumi

#endif // OPENMM_NARUMI_LENNARD_JONES_PAIRS_H_
