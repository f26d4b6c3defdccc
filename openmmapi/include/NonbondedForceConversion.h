#ifndef OPENMM_NARUMI_NONBONDED_FORCE_CONVERSION_H_
#define OPENMM_NARUMI_NONBONDED_FORCE_CONVERSION_H_

#include "NarumiNonbondedForce.h"
#include "internal/NarumiExport.h"
#include "openmm/NonbondedForce.h"
#include "openmm/System.h"
#include "openmm/Vec3.h"
#include <vector>

namespace OpenMMNarumi {

/**
 * A NarumiNonbondedForce equivalent to a cutoff (or NoCutoff) NonbondedForce: same particles, exceptions, cutoff,
 * reaction-field dielectric, switching, dispersion correction, periodic exceptions, force group and name (a
 * NonbondedForce's default name "NonbondedForce" becomes "NarumiNonbondedForce"); every parameter keeps its value in
 * OpenMM's units (nm, e, kJ/mol).  Throws OpenMMException for PME, Ewald and LJPME, and for features it cannot
 * represent (global parameters, parameter offsets).  The caller owns the returned force.
 */
OPENMM_EXPORT_NARUMI NarumiNonbondedForce* createNarumiNonbondedForce(const OpenMM::NonbondedForce& force);

/**
 * Replace every NonbondedForce in system by its NarumiNonbondedForce equivalent (createNarumiNonbondedForce) at the
 * same index, and return how many NarumiNonbondedForces were made.  The System can only append forces, so every force
 * after the first one replaced is replaced by an XmlSerializer copy of itself: pointers (and Python references) to
 * those forces taken before the call are no longer valid; get them again from the System.  If a force cannot be
 * converted or copied, nothing is changed.  A Context must be created again afterwards.  The forces made sum with
 * accumulationMethod (default Narumi; NarumiNonbondedForce::TileSums gives up exact cancellation: README, "Accumulation
 * methods").
 *
 * A System with a pair-table force set, as OpenMM's GromacsTopFile, CharmmPsfFile and AmberPrmtopFile make for
 * NBFIX/nonbond_params (a NonbondedForce with the charges and epsilon 0, a CustomNonbondedForce
 * "(a/r6)^2-b/r6; r6=r^6; a=acoef(type1, type2); b=bcoef(type1, type2)" with a per-particle type, and GromacsTopFile's
 * CustomBondForce "-C/r^6+A/r^12" of 1-4 pairs), needs the overload with positions: this one refuses it.
 */
OPENMM_EXPORT_NARUMI int replaceNonbondedForces(OpenMM::System& system,
                                                NarumiNonbondedForce::AccumulationMethod accumulationMethod = NarumiNonbondedForce::Narumi);

/**
 * As replaceNonbondedForces(system), and a pair-table force set becomes one NarumiNonbondedForce at the index of the
 * set's first force: the NonbondedForce's charges, exceptions and settings, the table force's types as Lennard-Jones
 * types with one type pair (C6 = bcoef, C12 = acoef^2) for each pair of types in use, its switching and long-range
 * correction, and the 1-4 pairs' C6 and C12 in their exceptions.  The set is fused only after a check on the Reference
 * platform at positions (nm, one per particle) and the System's default box: the fused force's energy and forces
 * must equal the replaced forces' within 1e-9 relative (energy relative to the sum of their magnitudes, forces as RMS),
 * and its long-range correction the table force's within 1e-5 relative (OpenMM integrates that one numerically).
 * Anything else (a different expression, cutoff, method, force group, interaction groups, exclusions that are not the
 * NonbondedForce's exceptions, asymmetric tables, a failed check) throws an OpenMMException naming it, with the System
 * unchanged.  A CustomNonbondedForce without tables acoef or bcoef is copied, not fused.
 */
OPENMM_EXPORT_NARUMI int replaceNonbondedForces(OpenMM::System& system, const std::vector<OpenMM::Vec3>& positions,
                                                NarumiNonbondedForce::AccumulationMethod accumulationMethod = NarumiNonbondedForce::Narumi);

} // namespace OpenMMNarumi

#endif // OPENMM_NARUMI_NONBONDED_FORCE_CONVERSION_H_
