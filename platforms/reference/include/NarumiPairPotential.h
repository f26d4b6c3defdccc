#ifndef OPENMM_NARUMI_PAIR_POTENTIAL_H_
#define OPENMM_NARUMI_PAIR_POTENTIAL_H_

#include "NarumiNonbondedForce.h"

namespace OpenMMNarumi {

/**
 * The double-precision pair potential of NarumiNonbondedForce: Coulomb (reaction field, shifted, plain or none)
 * divided by the Coulomb dielectric, plus Lennard-Jones C12/r^12 - C6/r^6 with optional switching or potential shift,
 * and the GROMACS reaction field's terms of excluded charges.  Every other implementation is checked against it.
 */
class NarumiPairPotential {
public:
    explicit NarumiPairPotential(const NarumiNonbondedForce& force);

    /**
     * Energy of a non-excepted pair at squared distance r2 (< cutoff^2 for cutoff methods), with the product of the
     * charges and the pair's C6 and C12; dEdrOverR receives (dE/dr)/r so that the force on particle i is
     * dEdrOverR * (r_j - r_i).
     */
    double pairEnergy(double r2, double chargeProd, double c6, double c12, double& dEdrOverR) const;

    /** Energy of an exception pair: plain Coulomb (divided by the Coulomb dielectric) plus plain Lennard-Jones, no
     *  cutoff, as NonbondedForce defines it. */
    double exceptionEnergy(double r2, double chargeProd, double c6, double c12, double& dEdrOverR) const;

    /** Whether exception pairs within the cutoff get excludedPairEnergy (GromacsReactionField). */
    bool hasExcludedChargeTerms() const {
        return excludedChargeTerms;
    }
    /** GROMACS's reaction field of an exception pair within the cutoff, from the particles' charges:
     *  f q1 q2 (k_rf r^2 - c_rf), f = 1/(4 pi eps0 eps_r). */
    double excludedPairEnergy(double r2, double chargeProd, double& dEdrOverR) const;

    bool usesCutoff() const {
        return useCutoff;
    }
    double getCutoff() const {
        return cutoff;
    }

private:
    bool useCutoff, useSwitch, shiftLennardJones, excludedChargeTerms;
    NarumiNonbondedForce::ElectrostaticsMethod electrostatics;
    double cutoff, switchingDistance, krf, crf, coulombFactor, inverseCutoff6;
};

} // namespace OpenMMNarumi

#endif // OPENMM_NARUMI_PAIR_POTENTIAL_H_
