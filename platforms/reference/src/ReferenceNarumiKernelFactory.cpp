// Registers the double-precision kernels (NarumiNonbondedForce, RDFSampler) on the Reference platform and on the
// CPU platform (which derives from it).
#include "NarumiKernels.h"
#include "ReferenceNarumiKernels.h"
#include "ReferenceRDFSamplerKernel.h"
#include "openmm/KernelFactory.h"
#include "openmm/OpenMMException.h"
#include "openmm/reference/ReferencePlatform.h"

using namespace OpenMMNarumi;
using namespace OpenMM;

namespace {

class ReferenceNarumiKernelFactory : public KernelFactory {
public:
    KernelImpl* createKernelImpl(std::string name, const Platform& platform, ContextImpl& context) const override {
        if (name == CalcNarumiNonbondedForceKernel::Name())
            return new ReferenceCalcNarumiNonbondedForceKernel(name, platform);
        if (name == CalcRDFSamplerKernel::Name())
            return new ReferenceCalcRDFSamplerKernel(name, platform);
        throw OpenMMException("ReferenceNarumiKernelFactory: no kernel named '" + name + "'");
    }
};

} // namespace

extern "C" OPENMM_EXPORT void registerPlatforms() {
}

extern "C" OPENMM_EXPORT void registerKernelFactories() {
    for (int i = 0; i < Platform::getNumPlatforms(); i++) {
        Platform& platform = Platform::getPlatform(i);
        if (dynamic_cast<ReferencePlatform*>(&platform) != nullptr) {
            platform.registerKernelFactory(CalcNarumiNonbondedForceKernel::Name(), new ReferenceNarumiKernelFactory());
            platform.registerKernelFactory(CalcRDFSamplerKernel::Name(), new ReferenceNarumiKernelFactory());
        }
    }
}
