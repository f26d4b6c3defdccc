#ifndef OPENMM_NARUMI_RDF_SAMPLER_IMPL_H_
#define OPENMM_NARUMI_RDF_SAMPLER_IMPL_H_

#include "RDFSampler.h"
#include "internal/NarumiExport.h"
#include "openmm/Kernel.h"
#include "openmm/internal/ForceImpl.h"
#include <map>
#include <string>
#include <vector>

namespace OpenMMNarumi {

/**
 * The ForceImpl of RDFSampler.  OpenMM's integrators call updateContextState() once at the start of every step
 * (ContextImpl::updateContextState, before the step's force evaluation): that is where frames are taken, from the
 * positions after getStepCount() steps.  calcForcesAndEnergy() does nothing.
 */
class OPENMM_EXPORT_NARUMI RDFSamplerImpl : public OpenMM::ForceImpl {
public:
    explicit RDFSamplerImpl(const RDFSampler& owner) : owner(owner) {
    }
    void initialize(OpenMM::ContextImpl& context) override;
    const RDFSampler& getOwner() const override {
        return owner;
    }
    void updateContextState(OpenMM::ContextImpl& context, bool& forcesInvalid) override;
    double calcForcesAndEnergy(OpenMM::ContextImpl& context, bool includeForces, bool includeEnergy, int groups) override {
        return 0.0;
    }
    std::map<std::string, double> getDefaultParameters() override {
        return {};
    }
    std::vector<std::string> getKernelNames() override;

    RDFSamplerResult getResult(OpenMM::ContextImpl& context);
    void reset(OpenMM::ContextImpl& context);
    void sample(OpenMM::ContextImpl& context);

private:
    const RDFSampler& owner;
    OpenMM::Kernel kernel;
    int samplingInterval = 1;      // the owner's, when the Context was created
    long long lastSampledStep = -1;
};

} // namespace OpenMMNarumi

#endif // OPENMM_NARUMI_RDF_SAMPLER_IMPL_H_
