#ifndef OPENMM_NARUMI_RDF_SAMPLER_KERNELS_H_
#define OPENMM_NARUMI_RDF_SAMPLER_KERNELS_H_

#include "RDFSampler.h"
#include "openmm/KernelImpl.h"
#include "openmm/Platform.h"
#include "openmm/System.h"
#include <string>

namespace OpenMMNarumi {

/** Samples an RDFSampler's histogram from a Context's positions; one implementation per platform. */
class CalcRDFSamplerKernel : public OpenMM::KernelImpl {
public:
    /** The kernel's name, by which a Platform's KernelFactory is asked for it. */
    static std::string Name() {
        return "CalcRDFSampler";
    }
    /** Called by the platform's KernelFactory. */
    CalcRDFSamplerKernel(std::string name, const OpenMM::Platform& platform) : OpenMM::KernelImpl(name, platform) {
    }
    /**
     * Set up for a System: first check the sampler against it (indices in range, no duplicates, bins, range, one
     * exclusion group per particle, rMax against a periodic System's default box), throwing an OpenMMException
     * "RDFSampler: ..." that names the first bad value.
     */
    virtual void initialize(const OpenMM::System& system, const RDFSampler& sampler) = 0;
    /** Add one frame of the context's current positions (and box, for a periodic System). */
    virtual void sample(OpenMM::ContextImpl& context) = 0;
    /** The counts so far, as ordered pairs, with the frame bookkeeping (lastSampledStep is the ForceImpl's). */
    virtual void getResult(OpenMM::ContextImpl& context, RDFSamplerResult& result) = 0;
    /** Discard the frames so far. */
    virtual void reset(OpenMM::ContextImpl& context) = 0;
};

} // namespace OpenMMNarumi

#endif // OPENMM_NARUMI_RDF_SAMPLER_KERNELS_H_
