/** requireKernelImage (CudaKernelImage.h): a probe kernel compiled for the same architectures as every other. */

#include "NarumiCommon/CudaArchitectures.h"
#include "NarumiCommon/CudaError.h"
#include "NarumiCommon/CudaKernelImage.h"
#include <cuda_runtime.h>

namespace OpenMMNarumi::Common {

namespace {

/** Never launched: asking for its attributes makes the driver load (or JIT-compile) this build's code for the GPU. */
__global__ void kernelImageProbe() {
}

std::string described(int device, const CudaDeviceIdentity& gpu) {
    return "GPU " + std::to_string(device) + " (" + gpu.name + ", compute capability " + std::to_string(gpu.major) + "." +
           std::to_string(gpu.minor) + ")";
}

} // namespace

CudaDeviceIdentity cudaDeviceIdentity(int device) {
    cudaDeviceProp properties;
    checkCuda(cudaGetDeviceProperties(&properties, device), "reading the device's properties");
    return CudaDeviceIdentity{properties.name, properties.major, properties.minor};
}

void requireKernelImage(int device, const std::string& requester) {
    const std::string who = requester.empty() ? "" : requester + ": ";
    CudaDeviceIdentity gpu = cudaDeviceIdentity(device);
    const CudaArchitectures& built = builtCudaArchitectures();
    std::string rebuild = " Build openmm-narumi for it with -DCMAKE_CUDA_ARCHITECTURES=" + std::to_string(gpu.major) +
                          std::to_string(gpu.minor) + " (pip: -Ccmake.define.CMAKE_CUDA_ARCHITECTURES=" + std::to_string(gpu.major) +
                          std::to_string(gpu.minor) + ").";
    if (10 * gpu.major + gpu.minor < LOWEST_COMPUTE_CAPABILITY)
        throw std::runtime_error(who + described(device, gpu) + " is older than openmm-narumi supports: it needs "
                                 "compute capability 7.5 or higher (Turing and newer), as OpenMM's CUDA 13 platform does.");
    cudaFuncAttributes attributes;
    cudaError_t status = cudaFuncGetAttributes(&attributes, kernelImageProbe);
    if (status != cudaSuccess) {
        cudaGetLastError();  // not sticky: clear it so that later runtime calls do not report it again
        throw std::runtime_error(who + described(device, gpu) + " cannot run this build's kernels (" + built.describe() +
                                 "): " + cudaGetErrorString(status) + "." + rebuild);
    }
}

} // namespace OpenMMNarumi::Common
