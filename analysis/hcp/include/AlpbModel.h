#pragma once
// The analytic linearized Poisson-Boltzmann (ALPB) potential outside a molecule, salt-free form.
//
// For point charges q_i inside a molecule of electrostatic size A, the potential at a point outside it is
//   phi = k_e / (eps_out (1 + alpha beta)) * sum_i q_i [ (1 + alpha) / d_i - alpha (1 - beta) / r ]
//       = chargeScale * sum_i q_i / d_i  -  monopoleScale * Q / r,          beta = eps_in / eps_out,
// with d_i the distance from charge i to the point, r = A + p the point's distance from the centre of the
// equivalent sphere (p: its distance outside the molecular surface, 0 on the surface) and Q the total charge.
// References: Sigalov, Fenley & Onufriev, J Chem Phys 124, 124902 (2006) (ALPB, alpha = 0.580127, the
// electrostatic size A); Fenley, Gordon & Onufriev, J Chem Phys 129, 075101 (2008) (the potential outside);
// Daga, Feng & Scogland (HCP on the GPU), eq. (1).  Daga et al. print the prefactor as 1/eps_in; we use
// 1/eps_out, as the GEM code of Gordon et al. does (inverse_one_plus_ab_by_diel_ext), because only that gives
// the exact Born result q / (eps_out r) for a charge at the centre of a sphere (tests check this limit).
// Because the second term does not depend on i, the sum over charges is a plain Coulomb sum: the hierarchical
// charge partitioning approximates only sum_i q_i / d_i, and the monopole term is exact.
//
// Units as in OpenMM: nm, e, kJ/mol; the potential comes out in kJ/mol/e.

#include <cmath>
#include <stdexcept>
#include <string>

#include "NarumiCommon/CoulombConstant.h"

namespace OpenMMNarumi::Hcp {

/// The ALPB constant alpha (Sigalov, Fenley & Onufriev 2006).
constexpr double kAlpbAlpha = 0.580127;
using Common::COULOMB_CONSTANT;

/// phi = chargeScale * sum_i q_i / d_i - monopoleScale * Q / r   (kJ/mol/e with d, r in nm).
struct AlpbCoefficients {
    double chargeScale;
    double monopoleScale;
};

inline AlpbCoefficients alpbCoefficients(double epsIn, double epsOut) {
    if (!(std::isfinite(epsIn) && epsIn > 0))
        throw std::invalid_argument("eps_in must be a positive finite number, got " + std::to_string(epsIn));
    if (!(std::isfinite(epsOut) && epsOut > 0))
        throw std::invalid_argument("eps_out must be a positive finite number, got " + std::to_string(epsOut));
    const double beta = epsIn / epsOut;
    const double prefactor = COULOMB_CONSTANT / (epsOut * (1.0 + kAlpbAlpha * beta));
    return {prefactor * (1.0 + kAlpbAlpha), prefactor * kAlpbAlpha * (1.0 - beta)};
}

}  // namespace OpenMMNarumi::Hcp
