#ifndef NARUMI_COMMON_CUDA_ERROR_H_
#define NARUMI_COMMON_CUDA_ERROR_H_

/**
 * The one CUDA error check of the project.  Its message names the call or stage and gives CUDA's own description,
 * "CUDA error in <what>: <error string>".  It throws std::runtime_error, the engines' exception type for device
 * failures; OpenMM's plugin turns that into OpenMMException at its own boundary.
 */

#include <cuda.h>
#include <cuda_runtime_api.h>
#include <stdexcept>
#include <string>

namespace OpenMMNarumi::Common {

/** "CUDA error in <what>: <CUDA's description of status>". */
std::string cudaErrorMessage(cudaError_t status, const std::string& what);

/** The same for the driver API (src/CudaDriverError.cpp; the caller links the driver library, as OpenMM's plugin does). */
std::string cudaErrorMessage(CUresult status, const std::string& what);

/** Throws std::runtime_error(cudaErrorMessage(status, what)) unless status is cudaSuccess. */
inline void checkCuda(cudaError_t status, const char* what) {
    if (status != cudaSuccess)
        throw std::runtime_error(cudaErrorMessage(status, what));
}

/** The same check for the driver API. */
inline void checkCuda(CUresult status, const char* what) {
    if (status != CUDA_SUCCESS)
        throw std::runtime_error(cudaErrorMessage(status, what));
}

} // namespace OpenMMNarumi::Common

#endif // NARUMI_COMMON_CUDA_ERROR_H_
