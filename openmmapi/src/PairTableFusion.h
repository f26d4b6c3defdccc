#ifndef OPENMM_NARUMI_PAIR_TABLE_FUSION_H_
#define OPENMM_NARUMI_PAIR_TABLE_FUSION_H_

// The pair-table force sets of OpenMM's GromacsTopFile, CharmmPsfFile and AmberPrmtopFile (a NonbondedForce for the
// charges, a CustomNonbondedForce with the Lennard-Jones tables acoef and bcoef, and GromacsTopFile's CustomBondForce
// of 1-4 Lennard-Jones pairs) as one NarumiNonbondedForce with Lennard-Jones types, checked on the Reference platform.
// Private to the API library: replaceNonbondedForces is its only user.

#include "NarumiNonbondedForce.h"
#include "openmm/System.h"
#include "openmm/Vec3.h"
#include <vector>

namespace OpenMMNarumi {

/** The indices in a System of the forces that one NarumiNonbondedForce replaces; -1 where there is none. */
struct PairTableForceSet {
    int nonbonded = -1, pairTable = -1, pairs14 = -1;
    /** Whether the System has a pair-table force at all. */
    bool found() const {
        return pairTable >= 0;
    }
    /** Whether force index is one of the set. */
    bool contains(int index) const {
        return index == nonbonded || index == pairTable || index == pairs14;
    }
};

/**
 * The pair-table force set of system.  A CustomNonbondedForce with a tabulated function named acoef or bcoef is a
 * pair-table force; a CustomBondForce with GromacsTopFile's expression -C/r^6+A/r^12 is the 1-4 force.  Throws
 * OpenMMException when there are several of either, or when a pair-table force has no single NonbondedForce beside it.
 */
PairTableForceSet findPairTableForces(const OpenMM::System& system);

/**
 * The NarumiNonbondedForce that computes what the set's forces compute together.  Throws OpenMMException naming what
 * differs from the loaders' forces (expression, tables, interaction groups, cutoff, switching, exclusions, ...).
 */
NarumiNonbondedForce* fusePairTableForces(const OpenMM::System& system, const PairTableForceSet& set);

/**
 * Checks on the Reference platform, at positions (nm) and the System's default box, that fused gives the set's energy
 * and forces: relative differences within 1e-9, the long-range correction within 1e-5 (OpenMM integrates a
 * CustomNonbondedForce's numerically to about that).  Throws OpenMMException with the numbers otherwise.
 */
void checkFusedForce(const OpenMM::System& system, const PairTableForceSet& set, const NarumiNonbondedForce& fused,
                     const std::vector<OpenMM::Vec3>& positions);

} // namespace OpenMMNarumi

#endif // OPENMM_NARUMI_PAIR_TABLE_FUSION_H_
