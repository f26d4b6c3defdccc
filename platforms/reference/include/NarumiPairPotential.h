#ifndef OPENMM_NARUMI_PAIR_POTENTIAL_H_
#define OPENMM_NARUMI_PAIR_POTENTIAL_H_

#include "NarumiNonbondedForce.h"

namespace OpenMMNarumi {

/**
 * The double-precision pair potential of NarumiNonbondedForce: Coulomb (reaction field, shifted,
 * plain or none) plus Lennard-Jones with optional switching.  Every other implementation is checked against it.
 */
class NarumiPairPotential {
public:
    explicit NarumiPairPotential(const NarumiNonbondedForce& force);

    /**
     * Energy of a non-excepted pair at squared distance r2 (< cutoff^2 for cutoff methods), with the pair's
     * combined parameters; dEdrOverR receives (dE/dr)/r so that the force on particle i is dEdrOverR * (r_j - r_i).
     */
    double pairEnergy(double r2, double chargeProd, double sigma, double epsilon, double& dEdrOverR) const;

    /** Energy of an exception pair: plain Coulomb plus plain Lennard-Jones, no cutoff, as NonbondedForce defines it. */
    static double exceptionEnergy(double r2, double chargeProd, double sigma, double epsilon, double& dEdrOverR);

    bool usesCutoff() const {
        return useCutoff;
    }
    double getCutoff() const {
        return cutoff;
    }

private:
    bool useCutoff, useSwitch;
    NarumiNonbondedForce::ElectrostaticsMethod electrostatics;
    double cutoff, switchingDistance, krf, crf;
};

} // namespace OpenMMNarumi

#endif // OPENMM_NARUMI_PAIR_POTENTIAL_H_
