// Builds without a CUDA compiler: the CUDA backend does not exist and is never chosen automatically.
#include "RdfEngine.h"
#include <stdexcept>

namespace NarumiRdf {

bool cudaDevicePresent() {
    return false;
}

std::unique_ptr<PairHistogramBackend> createCudaBackend(const RdfProblem&) {
    throw std::runtime_error("this build of openmm-narumi has no CUDA backend (nvcc was not found when it was built)");
}

} // namespace NarumiRdf
