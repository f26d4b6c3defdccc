#ifndef NARUMI_COMMON_CUDA_KERNEL_IMAGE_H_
#define NARUMI_COMMON_CUDA_KERNEL_IMAGE_H_

/**
 * Whether a GPU can run this build's kernels, asked once where a Context or an engine takes a device, so that a GPU
 * the build cannot serve gets one clear error there instead of CUDA's "no kernel image" at the first launch.
 * CUDA builds only (src/CudaKernelImage.cu).
 */

#include <string>

namespace OpenMMNarumi::Common {

/** A GPU's name and compute capability, as the runtime reports them. */
struct CudaDeviceIdentity {
    std::string name;
    int major = 0, minor = 0;
};

/** The identity of runtime device `device`; std::runtime_error if the query fails. */
CudaDeviceIdentity cudaDeviceIdentity(int device);

/**
 * Returns normally when the current device (`device`, current in the calling thread or through OpenMM's context) runs
 * this build's kernels: a compute capability of at least 7.5 and SASS or PTX of this build that the driver loads for
 * it (tried on a kernel compiled with every other).  Otherwise std::runtime_error naming `requester`, the GPU, its
 * compute capability, the build's code (CudaArchitectures) and how to build for the GPU.
 */
void requireKernelImage(int device, const std::string& requester);

} // namespace OpenMMNarumi::Common

#endif // NARUMI_COMMON_CUDA_KERNEL_IMAGE_H_
