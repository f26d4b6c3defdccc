#include "NarumiPairPotential.h"
#include "NarumiCommon/CoulombConstant.h"
#include "internal/NarumiNonbondedForceImpl.h"
#include <cmath>

using namespace OpenMMNarumi;
using Common::COULOMB_CONSTANT;

namespace {

/** C12/r^12 - C6/r^6 and its (dE/dr)/r. */
double lennardJones(double r2, double c6, double c12, double& dEdrOverR) {
    double inverseR2 = 1 / r2, inverseR6 = inverseR2 * inverseR2 * inverseR2;
    double repulsion = c12 * inverseR6 * inverseR6, dispersion = c6 * inverseR6;
    dEdrOverR = (-12 * repulsion + 6 * dispersion) * inverseR2;
    return repulsion - dispersion;
}

} // namespace

NarumiPairPotential::NarumiPairPotential(const NarumiNonbondedForce& force)
    : useCutoff(force.getNonbondedMethod() != NarumiNonbondedForce::NoCutoff), electrostatics(force.getElectrostaticsMethod()),
      cutoff(force.getCutoffDistance()), switchingDistance(force.getSwitchingDistance()) {
    useSwitch = useCutoff && force.getUseSwitchingFunction();
    shiftLennardJones = useCutoff && force.getLennardJonesModifier() == NarumiNonbondedForce::LennardJonesPotentialShift;
    excludedChargeTerms = NarumiNonbondedForceImpl::hasExcludedChargeTerms(force);
    NarumiNonbondedForceImpl::ReactionFieldConstants rf = NarumiNonbondedForceImpl::reactionFieldConstants(force);
    krf = rf.krf;
    crf = rf.crf;
    coulombFactor = COULOMB_CONSTANT / force.getCoulombDielectric();
    inverseCutoff6 = 1 / (cutoff * cutoff * cutoff * cutoff * cutoff * cutoff);
}

double NarumiPairPotential::pairEnergy(double r2, double chargeProd, double c6, double c12, double& dEdrOverR) const {
    double r = std::sqrt(r2);
    double energy = 0;
    dEdrOverR = 0;

    // Coulomb.
    if (electrostatics != NarumiNonbondedForce::NoCoulomb && chargeProd != 0) {
        double kq = coulombFactor * chargeProd;
        if (!useCutoff) {
            energy += kq / r;
            dEdrOverR += -kq / (r2 * r);
        }
        else if (electrostatics == NarumiNonbondedForce::ReactionField) {
            energy += kq * (1 / r + krf * r2 - crf);
            dEdrOverR += kq * (-1 / (r2 * r) + 2 * krf);
        }
        else {
            // Shifted: kq/r (1 - x)^2 with x = r^2/rc^2.
            double oneMinusX = 1 - r2 / (cutoff * cutoff);
            energy += kq * oneMinusX * oneMinusX / r;
            dEdrOverR += kq * (-oneMinusX * oneMinusX / (r2 * r) - 4 * oneMinusX / (cutoff * cutoff * r));
        }
    }

    // Lennard-Jones, multiplied by OpenMM's switching polynomial beyond the switching distance, or shifted to zero
    // at the cutoff (energy only).
    if (c6 == 0 && c12 == 0)
        return energy;
    double ljDerivative;
    double lj = lennardJones(r2, c6, c12, ljDerivative);
    if (useSwitch && r > switchingDistance) {
        double width = cutoff - switchingDistance;
        double t = (r - switchingDistance) / width;
        double switchValue = 1 + t * t * t * (-10 + t * (15 - 6 * t));
        double switchDerivative = t * t * (-30 + t * (60 - 30 * t)) / width;
        ljDerivative = ljDerivative * switchValue + lj * switchDerivative / r;
        lj *= switchValue;
    }
    if (shiftLennardJones)
        lj -= (c12 * inverseCutoff6 - c6) * inverseCutoff6;
    dEdrOverR += ljDerivative;
    return energy + lj;
}

double NarumiPairPotential::exceptionEnergy(double r2, double chargeProd, double c6, double c12, double& dEdrOverR) const {
    double r = std::sqrt(r2);
    double lj = lennardJones(r2, c6, c12, dEdrOverR);
    double kq = coulombFactor * chargeProd;
    dEdrOverR += -kq / (r2 * r);
    return lj + kq / r;
}

double NarumiPairPotential::excludedPairEnergy(double r2, double chargeProd, double& dEdrOverR) const {
    double kq = coulombFactor * chargeProd;
    dEdrOverR = 2 * kq * krf;
    return kq * (krf * r2 - crf);
}

