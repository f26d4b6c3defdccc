/**
 * The driver-API half of CudaError.h, in its own object file: a static library contributes only the objects a
 * program uses, so the engines' modules (runtime API only) never need libcuda to load.
 */

#include "NarumiCommon/CudaError.h"

namespace OpenMMNarumi::Common {

std::string cudaErrorMessage(CUresult status, const std::string& what) {
    const char* description = nullptr;
    cuGetErrorString(status, &description);
    return "CUDA error in " + what + ": " + (description != nullptr ? description : "unknown error");
}

} // namespace OpenMMNarumi::Common
