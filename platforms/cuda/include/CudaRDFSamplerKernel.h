#ifndef OPENMM_CUDA_RDF_SAMPLER_KERNEL_H_
#define OPENMM_CUDA_RDF_SAMPLER_KERNEL_H_

#include "RDFSamplerKernels.h"
#include "RdfCudaHistogram.h"
#include "RdfEngine.h"
#include "openmm/cuda/CudaContext.h"
#include <memory>

namespace OpenMMNarumi {

/**
 * RDFSampler on OpenMM's CUDA platform.  A frame reads OpenMM's own posq (float4, double4 in double precision; in
 * mixed precision posq + posqCorrection, summed in double as getState does, so the counts equal the CPU path's for
 * the same frames) through atomIndex (OpenMM reorders atoms), and runs the RDF engine's kernels
 * (OpenMMNarumi::Rdf::CudaPairHistogram) on OpenMM's current stream into 64-bit device counts: no synchronisation, no
 * download.  The box and the cell grid are worked out on the host from the CudaContext's box vectors.
 */
class CudaCalcRDFSamplerKernel : public CalcRDFSamplerKernel {
public:
    CudaCalcRDFSamplerKernel(std::string name, const OpenMM::Platform& platform, OpenMM::CudaContext& cu)
        : CalcRDFSamplerKernel(name, platform), cu(cu) {
    }
    ~CudaCalcRDFSamplerKernel();
    void initialize(const OpenMM::System& system, const RDFSampler& sampler) override;
    void sample(OpenMM::ContextImpl& context) override;
    void getResult(OpenMM::ContextImpl& context, RDFSamplerResult& result) override;
    void reset(OpenMM::ContextImpl& context) override;

private:
    OpenMM::CudaContext& cu;
    OpenMMNarumi::Rdf::RdfProblem problem;
    std::unique_ptr<OpenMMNarumi::Rdf::CudaPairHistogram> histogram;
    bool periodic = false;
    long long numFrames = 0, framesWithoutBox = 0;
    double sumInverseVolume = 0;
};

} // namespace OpenMMNarumi

#endif // OPENMM_CUDA_RDF_SAMPLER_KERNEL_H_
