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
     * integral included), evaluated independently by Gauss-Legendre quadrature.
     */
    static double calcDispersionCorrection(const OpenMM::System& system, const NarumiNonbondedForce& force);

private:
    /** The indices of the exceptions that interact (chargeProd or epsilon not 0), ascending. */
    static std::vector<int> interactingExceptions(const NarumiNonbondedForce& force);

    const NarumiNonbondedForce& owner;
    OpenMM::Kernel kernel;
    std::vector<int> interacting; // interactingExceptions(owner) when the Context was created: no other may interact
};

} // namespace OpenMMNarumi

#endif // OPENMM_NARUMI_NONBONDED_FORCE_IMPL_H_
