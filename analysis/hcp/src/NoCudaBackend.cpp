// Built instead of cuda/CudaSurfacePotential.cu when no CUDA compiler was found: the CUDA backend is absent.

#include "SurfacePotential.h"

#include <stdexcept>

namespace narumi {
namespace hcp {

std::unique_ptr<SurfacePotentialBackend> createCudaBackend(int) {
    throw std::runtime_error("the CUDA backend is not available: openmm-narumi was built without CUDA");
}

int cudaDeviceCount() { return 0; }

}  // namespace hcp
}  // namespace narumi
