#include "NarumiPairPotential.h"
#include "NarumiCommon/CoulombConstant.h"
#include <cmath>

using namespace OpenMMNarumi;
using Common::COULOMB_CONSTANT;

namespace {

/** 4 epsilon ((sigma/r)^12 - (sigma/r)^6) and its (dE/dr)/r. */
double lennardJones(double r2, double sigma, double epsilon, double& dEdrOverR) {
    if (epsilon == 0) {
        dEdrOverR = 0;
        return 0;
    }
    double sr2 = sigma * sigma / r2;
    double sr6 = sr2 * sr2 * sr2;
    dEdrOverR = 4 * epsilon * (-12 * sr6 * sr6 + 6 * sr6) / r2;
    return 4 * epsilon * (sr6 * sr6 - sr6);
}

} // namespace

NarumiPairPotential::NarumiPairPotential(const NarumiNonbondedForce& force)
    : useCutoff(force.getNonbondedMethod() != NarumiNonbondedForce::NoCutoff), electrostatics(force.getElectrostaticsMethod()),
      cutoff(force.getCutoffDistance()), switchingDistance(force.getSwitchingDistance()) {
    useSwitch = useCutoff && force.getUseSwitchingFunction();
    double eps = force.getReactionFieldDielectric();
    krf = (eps - 1) / ((2 * eps + 1) * cutoff * cutoff * cutoff);
    crf = 3 * eps / ((2 * eps + 1) * cutoff);
}

double NarumiPairPotential::pairEnergy(double r2, double chargeProd, double sigma, double epsilon, double& dEdrOverR) const {
    double r = std::sqrt(r2);
    double energy = 0;
    dEdrOverR = 0;

    // Coulomb.
    if (electrostatics != NarumiNonbondedForce::NoCoulomb && chargeProd != 0) {
        double kq = COULOMB_CONSTANT * chargeProd;
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

    // Lennard-Jones, multiplied by OpenMM's switching polynomial beyond the switching distance.
    double ljDerivative;
    double lj = lennardJones(r2, sigma, epsilon, ljDerivative);
    if (useSwitch && r > switchingDistance) {
        double width = cutoff - switchingDistance;
        double t = (r - switchingDistance) / width;
        double switchValue = 1 + t * t * t * (-10 + t * (15 - 6 * t));
        double switchDerivative = t * t * (-30 + t * (60 - 30 * t)) / width;
        ljDerivative = ljDerivative * switchValue + lj * switchDerivative / r;
        lj *= switchValue;
    }
    dEdrOverR += ljDerivative;
    return energy + lj;
}

double NarumiPairPotential::exceptionEnergy(double r2, double chargeProd, double sigma, double epsilon, double& dEdrOverR) {
    double r = std::sqrt(r2);
    double lj = lennardJones(r2, sigma, epsilon, dEdrOverR);
    double kq = COULOMB_CONSTANT * chargeProd;
    dEdrOverR += -kq / (r2 * r);
    return lj + kq / r;
}
