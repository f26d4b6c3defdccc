#ifndef NARUMI_COMMON_COULOMB_CONSTANT_H_
#define NARUMI_COMMON_COULOMB_CONSTANT_H_

/** The one Coulomb constant of the plugin: the forces, the platforms and the analysis engines all use it. */

namespace OpenMMNarumi::Common {

/**
 * 1/(4 pi eps0) in kJ nm / (mol e^2): OpenMM's ONE_4PI_EPS0 (openmm/reference/SimTKOpenMMRealType.h) bit for bit,
 * written out because common/ includes no OpenMM header (tests/cpp checks the two are equal).
 */
constexpr double COULOMB_CONSTANT = 138.93545764438198;

} // namespace OpenMMNarumi::Common

#endif // NARUMI_COMMON_COULOMB_CONSTANT_H_
