/**
 * requireKernelImage on the GPUs of this machine, against CUDA's compatibility rules (CudaArchitectures::codeFor): a
 * GPU that this build's code serves must pass, any other must get the one clear error naming the GPU, its compute
 * capability and the build's code, and the engines' device selection must give the same.  Run on a build without
 * code for the GPU (-DCMAKE_CUDA_ARCHITECTURES=80-real on an H100), it checks the refusal on real hardware.  Skips
 * without a GPU.
 */

#include "NarumiCommon/CudaArchitectures.h"
#include "NarumiCommon/CudaAvailability.h"
#include "NarumiCommon/CudaKernelImage.h"
#include <gtest/gtest.h>
#include <stdexcept>
#include <string>

using namespace OpenMMNarumi::Common;

TEST(CudaKernelImage, EveryGpuIsServedOrRefusedByName) {
    if (cudaDeviceCount() == 0)
        GTEST_SKIP() << "no CUDA device";
    for (int device = 0; device < cudaDeviceCount(); device++) {
        CudaDeviceIdentity gpu = cudaDeviceIdentity(device);
        std::string capability = std::to_string(gpu.major) + "." + std::to_string(gpu.minor);
        bool served = !builtCudaArchitectures().codeFor(gpu.major, gpu.minor).empty();
        std::string context = gpu.name + " (" + capability + "), build " + builtCudaArchitectures().describe();
        for (bool throughEngine : {false, true}) {
            try {
                if (throughEngine)
                    selectCudaDevice(device, "the RDF engine");
                else
                    requireKernelImage(device, "NarumiNonbondedForce (CUDA)");
                EXPECT_TRUE(served) << context << ": accepted";
            }
            catch (const std::runtime_error& error) {
                std::string message = error.what();
                EXPECT_FALSE(served) << context << ": " << message;
                EXPECT_EQ(message.find(throughEngine ? "the RDF engine: GPU " : "NarumiNonbondedForce (CUDA): GPU "), 0u) << message;
                for (const std::string& part : {gpu.name, "compute capability " + capability, builtCudaArchitectures().describe(),
                                                "-DCMAKE_CUDA_ARCHITECTURES=" + std::to_string(10 * gpu.major + gpu.minor)})
                    EXPECT_NE(message.find(part), std::string::npos) << "'" << part << "' not in: " << message;
            }
        }
    }
}
