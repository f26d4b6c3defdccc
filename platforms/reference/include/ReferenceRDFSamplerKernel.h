#ifndef OPENMM_REFERENCE_RDF_SAMPLER_KERNEL_H_
#define OPENMM_REFERENCE_RDF_SAMPLER_KERNEL_H_

#include "RDFSamplerKernels.h"
#include "RdfEngine.h"
#include <memory>

namespace OpenMMNarumi {

/**
 * RDFSampler on OpenMM's Reference and CPU platforms: the RDF engine's multithreaded CPU backend counts the
 * platform's double-precision positions, so the counts are RDFEngine's for the same frames by construction.
 */
class ReferenceCalcRDFSamplerKernel : public CalcRDFSamplerKernel {
public:
    ReferenceCalcRDFSamplerKernel(std::string name, const OpenMM::Platform& platform) : CalcRDFSamplerKernel(name, platform) {
    }
    void initialize(const OpenMM::System& system, const RDFSampler& sampler) override;
    void sample(OpenMM::ContextImpl& context) override;
    void getResult(OpenMM::ContextImpl& context, RDFSamplerResult& result) override;
    void reset(OpenMM::ContextImpl& context) override;

private:
    std::unique_ptr<OpenMMNarumi::Rdf::RdfEngine> engine;
    bool periodic = false;
};

} // namespace OpenMMNarumi

#endif // OPENMM_REFERENCE_RDF_SAMPLER_KERNEL_H_
