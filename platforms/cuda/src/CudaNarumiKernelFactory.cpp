// Registers the CUDA kernels of NarumiNonbondedForce and RDFSampler on OpenMM's CUDA platform (loaded as a plugin library).
#include "CudaNarumiKernels.h"
#include "CudaParallelNarumiKernels.h"
#include "CudaRDFSamplerKernel.h"
#include "openmm/KernelFactory.h"
#include "openmm/OpenMMException.h"
#include "openmm/cuda/CudaPlatform.h"
#include "openmm/internal/ContextImpl.h"
#include <cstdio>

using namespace OpenMMNarumi;
using namespace OpenMM;

namespace {

class CudaNarumiKernelFactory : public KernelFactory {
public:
    KernelImpl* createKernelImpl(std::string name, const Platform& platform, ContextImpl& context) const override {
        auto& platformData = *static_cast<CudaPlatform::PlatformData*>(context.getPlatformData());
        if (name == CalcNarumiNonbondedForceKernel::Name()) {
            // Read once per Context, before any work (a bad setting is an OpenMMException), and never silently.
            NarumiDiagnostics diagnostics = NarumiDiagnostics::fromEnvironment();
            if (diagnostics.any())
                fprintf(stderr, "NarumiNonbondedForce (CUDA): %s is set, this Context is a measurement, not a production run: %s\n",
                        NarumiDiagnostics::VARIABLE, diagnostics.describe().c_str());
            if (platformData.contexts.size() > 1)
                return new CudaParallelCalcNarumiNonbondedForceKernel(name, platform, platformData, diagnostics);
            return new CudaCalcNarumiNonbondedForceKernel(name, platform, *platformData.contexts[0], diagnostics);
        }
        // The sampler samples at the start of a step (updateContextState), when no work thread is running, from the
        // first device's positions, which integration keeps current; on several devices each counts a share.
        if (name == CalcRDFSamplerKernel::Name()) {
            if (platformData.contexts.size() > 1)
                return new CudaParallelCalcRDFSamplerKernel(name, platform, platformData);
            return new CudaCalcRDFSamplerKernel(name, platform, *platformData.contexts[0]);
        }
        throw OpenMMException("CudaNarumiKernelFactory: no kernel named '" + name + "'");
    }
};

} // namespace

extern "C" OPENMM_EXPORT void registerPlatforms() {
}

extern "C" OPENMM_EXPORT void registerKernelFactories() {
    try {
        Platform::getPlatformByName("CUDA").registerKernelFactory(CalcNarumiNonbondedForceKernel::Name(), new CudaNarumiKernelFactory());
        Platform::getPlatformByName("CUDA").registerKernelFactory(CalcRDFSamplerKernel::Name(), new CudaNarumiKernelFactory());
    }
    catch (const OpenMMException&) {
        // No CUDA platform (OpenMM's CUDA plugin did not load): nothing to register.
    }
}
