/** cudaDeviceCount, selectCudaDevice, resolveCudaDevices and the engines' "no CUDA" error (CudaAvailability.h); builds without CUDA compile
 *  the same file. */

#include "NarumiCommon/CudaAvailability.h"
#include <stdexcept>
#if NARUMI_HAVE_CUDA
#include "NarumiCommon/CudaError.h"
#include "NarumiCommon/CudaKernelImage.h"
#include <cuda_runtime_api.h>
#endif

namespace OpenMMNarumi::Common {

int cudaDeviceCount() {
#if NARUMI_HAVE_CUDA
    int count = 0;
    if (cudaGetDeviceCount(&count) != cudaSuccess) {
        cudaGetLastError();  // no driver or no device: clear the error so that later runtime calls do not see it
        return 0;
    }
    return count;
#else
    return 0;
#endif
}

int selectCudaDevice(int device, const std::string& requester) {
    int count = cudaDeviceCount();  // 0 in a build without CUDA: nothing below the check runs there
    if (device < 0 || device >= count)
        throw std::invalid_argument("cudaDevice = " + std::to_string(device) + " does not exist (" +
                                    std::to_string(count) + " CUDA devices)");
#if NARUMI_HAVE_CUDA
    checkCuda(cudaSetDevice(device), "cudaSetDevice");
    requireKernelImage(device, requester);
#endif
    return device;
}

void resolveCudaDevices(int& device, std::vector<int>& devices) {
    for (int listed : devices)
        if (listed < 0)
            throw std::invalid_argument("cudaDevices lists " + std::to_string(listed) + ", which is not a device number (0 or more)");
    if (devices.size() == 1) {
        device = devices[0];
        devices.clear();
    }
}

void throwCudaUnavailable(const std::string& requester) {
    if (!builtWithCuda)
        throw std::runtime_error(requester + ": the CUDA backend was requested, but this build of openmm-narumi has no "
                                 "CUDA (nvcc was not found when it was built)");
    throw std::runtime_error(requester + ": the CUDA backend was requested, but no CUDA device is available");
}

} // namespace OpenMMNarumi::Common
