#ifndef OPENMM_NARUMI_NONBONDED_FORCE_IMPL_H_
#define OPENMM_NARUMI_NONBONDED_FORCE_IMPL_H_

#include "NarumiNonbondedForce.h"
#include "internal/NarumiExport.h"
#include "openmm/Kernel.h"
#include "openmm/internal/ForceImpl.h"
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace OpenMMNarumi {

/** The ForceImpl of NarumiNonbondedForce: validates the force against its System and drives the kernel. */
class OPENMM_EXPORT_NARUMI NarumiNonbondedForceImpl : public OpenMM::ForceImpl {
public:
    explicit NarumiNonbondedForceImpl(const NarumiNonbondedForce& owner);
    void initialize(OpenMM::ContextImpl& context) override;
    const NarumiNonbondedForce& getOwner() const override {
        return owner;
    }
    double calcForcesAndEnergy(OpenMM::ContextImpl& context, bool includeForces, bool includeEnergy, int groups) override;
    std::map<std::string, double> getDefaultParameters() override {
        return {};
    }
    std::vector<std::string> getKernelNames() override;
    std::vector<std::pair<int, int> > getBondedParticles() const override;
    void updateParametersInContext(OpenMM::ContextImpl& context);

    /**
     * Check every parameter of force against system (particle count, indices, NaN, signs,
     * duplicate exceptions, switching distance, cutoff against the default box) and throw
     * an OpenMMException naming the first bad value.
     */
    static void validate(const OpenMM::System& system, const NarumiNonbondedForce& force);
    /** Throw if the cutoff exceeds half of the shortest width of the periodic box given by boxVectors. */
    static void checkCutoffAgainstBox(double cutoff, const OpenMM::Vec3* boxVectors);
    /**
     * Long-range Lennard-Jones correction coefficient C: the energy correction is C / volume.
     * Same definition as OpenMM's NonbondedForce (mean over particle-class pairs, switching
     * integral included), evaluated independently by Gauss-Legendre quadrature; with Lennard-Jones types
     * the mean is over the C6 and C12 that the pairs use (NarumiLennardJonesPairs).
     */
    static double calcDispersionCorrection(const OpenMM::System& system, const NarumiNonbondedForce& force);
    /** The reaction field's constants (1/nm^3 and 1/nm) of a force with a cutoff. */
    struct ReactionFieldConstants {
        double krf, crf;
    };
    /**
     * k_rf = (eps_rf - eps_r) / ((2 eps_rf + eps_r) rc^3) and c_rf = 1/rc + k_rf rc^2 = 3 eps_rf / ((2 eps_rf + eps_r) rc)
     * (GROMACS's; OpenMM's for eps_r = 1), and their limits 1/(2 rc^3) and 3/(2 rc) for eps_rf = infinity.
     */
    static ReactionFieldConstants reactionFieldConstants(const NarumiNonbondedForce& force);
    /** Whether exception pairs within the cutoff get GROMACS's reaction-field terms: a cutoff, ReactionField, GromacsReactionField. */
    static bool hasExcludedChargeTerms(const NarumiNonbondedForce& force);
    /**
     * GROMACS's reaction-field self term, -(k / eps_r) (c_rf / 2) sum q^2 in kJ/mol, with the platform's Coulomb
     * constant k; 0 without excluded-charge terms.  A constant that every platform adds on the host.
     */
    static double reactionFieldSelfEnergy(const NarumiNonbondedForce& force, double coulombConstant);

private:
    /** The indices of the exceptions that interact (chargeProd or epsilon not 0), ascending. */
    static std::vector<int> interactingExceptions(const NarumiNonbondedForce& force);

    const NarumiNonbondedForce& owner;
    OpenMM::Kernel kernel;
    std::vector<int> interacting; // interactingExceptions(owner) when the Context was created: no other may interact
};

} // namespace OpenMMNarumi

#endif // OPENMM_NARUMI_NONBONDED_FORCE_IMPL_H_
