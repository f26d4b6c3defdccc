#ifndef OPENMM_REFERENCE_NARUMI_KERNELS_H_
#define OPENMM_REFERENCE_NARUMI_KERNELS_H_

#include "NarumiKernels.h"
#include "NarumiPairPotential.h"
#include "internal/NarumiLennardJonesPairs.h"
#include <memory>
#include <vector>

namespace OpenMMNarumi {

/**
 * Double-precision NarumiNonbondedForce on OpenMM's Reference and CPU platforms.  Excluded and
 * exception pairs are skipped on the fly in the pair pass (GromacsReactionField gives them their reaction-field term
 * there, from the pass's minimum image) and their exception terms added after it.
 * Work is split over the platform's thread pool by cell with one force buffer per thread, summed in
 * thread order, so a given thread count always gives bitwise-identical results.
 */
class ReferenceCalcNarumiNonbondedForceKernel : public CalcNarumiNonbondedForceKernel {
public:
    ReferenceCalcNarumiNonbondedForceKernel(std::string name, const OpenMM::Platform& platform)
        : CalcNarumiNonbondedForceKernel(name, platform) {
    }
    void initialize(const OpenMM::System& system, const NarumiNonbondedForce& force) override;
    double execute(OpenMM::ContextImpl& context, bool includeForces, bool includeEnergy) override;
    void copyParametersToContext(OpenMM::ContextImpl& context, const NarumiNonbondedForce& force) override;

private:
    struct Exception {
        int particle1, particle2;
        double chargeProd, c6, c12;
    };
    void copyParameters(const OpenMM::System& system, const NarumiNonbondedForce& force);

    std::unique_ptr<NarumiPairPotential> potential;
    NarumiNonbondedForce::NonbondedMethod method;
    bool exceptionsUsePeriodic;
    double dispersionCoefficient; // energy correction = coefficient / box volume
    double selfEnergy;            // GromacsReactionField's self term (0 otherwise)
    std::vector<double> charges;
    std::unique_ptr<NarumiLennardJonesPairs> lennardJones;
    std::vector<Exception> exceptions;
    std::vector<std::vector<int> > excludedPartners; // sorted, for every particle
};

} // namespace OpenMMNarumi

#endif // OPENMM_REFERENCE_NARUMI_KERNELS_H_
