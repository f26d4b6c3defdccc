/** The runtime-API half of CudaError.h; the driver half is in CudaDriverError.cpp so that only its callers need libcuda. */

#include "NarumiCommon/CudaError.h"

namespace OpenMMNarumi::Common {

std::string cudaErrorMessage(cudaError_t status, const std::string& what) {
    return "CUDA error in " + what + ": " + cudaGetErrorString(status);
}

} // namespace OpenMMNarumi::Common
