#ifndef OPENMM_NARUMI_NONBONDED_FORCE_CONVERSION_H_
#define OPENMM_NARUMI_NONBONDED_FORCE_CONVERSION_H_

#include "NarumiNonbondedForce.h"
#include "internal/NarumiExport.h"
#include "openmm/NonbondedForce.h"
#include "openmm/System.h"

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
 * same index, and return how many were replaced.  The System can only append forces, so every force after the first
 * NonbondedForce is replaced by an XmlSerializer copy of itself: pointers (and Python references) to those forces
 * taken before the call are no longer valid; get them again from the System.  If a force cannot be converted or
 * copied, nothing is changed.  A Context must be created again afterwards.
 */
OPENMM_EXPORT_NARUMI int replaceNonbondedForces(OpenMM::System& system);

} // namespace OpenMMNarumi

#endif // OPENMM_NARUMI_NONBONDED_FORCE_CONVERSION_H_
