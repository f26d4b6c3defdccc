#ifndef OPENMM_NARUMI_KERNELS_H_
#define OPENMM_NARUMI_KERNELS_H_

#include "NarumiNonbondedForce.h"
#include "openmm/KernelImpl.h"
#include "openmm/Platform.h"
#include "openmm/System.h"
#include <string>

namespace OpenMMNarumi {

/** Computes the forces and energy of a NarumiNonbondedForce; one implementation per platform. */
class CalcNarumiNonbondedForceKernel : public OpenMM::KernelImpl {
public:
    /** The kernel's name, by which a Platform's KernelFactory is asked for it. */
    static std::string Name() {
        return "CalcNarumiNonbondedForce";
    }
    /** Called by the platform's KernelFactory. */
    CalcNarumiNonbondedForceKernel(std::string name, const OpenMM::Platform& platform) : OpenMM::KernelImpl(name, platform) {
    }
    /** Set up for a System; force has already been validated by NarumiNonbondedForceImpl. */
    virtual void initialize(const OpenMM::System& system, const NarumiNonbondedForce& force) = 0;
    /** Add this force's contribution to the context's forces and return its energy (kJ/mol). */
    virtual double execute(OpenMM::ContextImpl& context, bool includeForces, bool includeEnergy) = 0;
    /** Copy changed particle and exception parameters (same exception pairs) into the context. */
    virtual void copyParametersToContext(OpenMM::ContextImpl& context, const NarumiNonbondedForce& force) = 0;
};

} // namespace OpenMMNarumi

#endif // OPENMM_NARUMI_KERNELS_H_
