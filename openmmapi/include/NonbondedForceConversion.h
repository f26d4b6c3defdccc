#ifndef OPENMM_NARUMI_NONBONDED_FORCE_CONVERSION_H_
#define OPENMM_NARUMI_NONBONDED_FORCE_CONVERSION_H_

#include "NarumiNonbondedForce.h"
#include "openmm/NonbondedForce.h"
#include "openmm/System.h"

namespace OpenMMNarumi {

/**
 * A NarumiNonbondedForce equivalent to a cutoff (or NoCutoff) NonbondedForce: same particles,
 * exceptions, cutoff, reaction-field dielectric, switching, dispersion correction, periodic exceptions
 * and force group.  Throws OpenMMException for PME, Ewald and LJPME, and for features it cannot
 * represent (global parameters, parameter offsets).  The caller owns the returned force.
 */
NarumiNonbondedForce* createNarumiNonbondedForce(const OpenMM::NonbondedForce& force);

/**
 * Replace every NonbondedForce in system by its NarumiNonbondedForce equivalent (see above), in place,
 * and return how many were replaced.  A Context must be created again afterwards.
 */
int replaceNonbondedForces(OpenMM::System& system);

} // namespace OpenMMNarumi

#endif // OPENMM_NARUMI_NONBONDED_FORCE_CONVERSION_H_
