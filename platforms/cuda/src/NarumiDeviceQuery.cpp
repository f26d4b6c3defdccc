/** A GPU's properties for the settings' choice, and narumi-check's report of each GPU (NarumiDeviceQuery.h). */

#include "NarumiDeviceQuery.h"
#include "NarumiCommon/CudaArchitectures.h"
#include "NarumiCommon/CudaAvailability.h"
#include "NarumiCommon/CudaError.h"
#include "NarumiCommon/CudaKernelImage.h"
#include <cstring>
#include <cuda_runtime_api.h>
#include <stdexcept>

using namespace OpenMMNarumi;

NarumiDeviceProperties OpenMMNarumi::queryNarumiDeviceProperties(int device) {
    NarumiDeviceProperties gpu;
    Common::CudaDeviceIdentity identity = Common::cudaDeviceIdentity(device);
    gpu.name = identity.name;
    gpu.major = identity.major;
    gpu.minor = identity.minor;
    auto attribute = [device](cudaDeviceAttr which, int& value) {
        Common::checkCuda(cudaDeviceGetAttribute(&value, which, device), "reading the device's properties");
    };
    attribute(cudaDevAttrSingleToDoublePrecisionPerfRatio, gpu.singleToDoubleRatio);
    attribute(cudaDevAttrMultiProcessorCount, gpu.multiprocessors);
    attribute(cudaDevAttrMaxSharedMemoryPerMultiprocessor, gpu.sharedMemoryPerMultiprocessor);
    return gpu;
}

int openmmNarumiCudaDeviceCount() {
    return Common::cudaDeviceCount();
}

int openmmNarumiDescribeCudaDevice(int device, char* text, int capacity) {
    std::string line;
    int status = 0;
    try {
        NarumiDeviceProperties gpu = queryNarumiDeviceProperties(device);
        std::string code = Common::builtCudaArchitectures().codeFor(gpu.major, gpu.minor);
        line = gpu.name + ", compute capability " + std::to_string(gpu.major) + "." + std::to_string(gpu.minor) + ", " +
               std::to_string(gpu.multiprocessors) + " multiprocessors, doubles at 1/" + std::to_string(gpu.singleToDoubleRatio) +
               " of the float rate; kernels: ";
        try {
            Common::selectCudaDevice(device, "NarumiNonbondedForce");
            line += (code.empty() ? "runnable" : code) + "; settings: " + chooseNarumiDeviceSettings(gpu).describe();
        }
        catch (const std::exception& error) {
            line += std::string("NONE: ") + error.what();
            status = 1;
        }
    }
    catch (const std::exception& error) {
        line = error.what();
        status = 1;
    }
    if (capacity > 0) {
        std::strncpy(text, line.c_str(), capacity - 1);
        text[capacity - 1] = '\0';
    }
    return status;
}
