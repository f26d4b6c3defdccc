#ifndef NARUMI_COMMON_CUDA_ARCHITECTURES_H_
#define NARUMI_COMMON_CUDA_ARCHITECTURES_H_

/**
 * The GPU code a build carries and which GPUs it serves.  A build holds SASS (machine code) for some architectures
 * and PTX for others (CMake's CUDA_ARCHITECTURES: "89-real" is SASS sm_89, "120-virtual" PTX compute_120, "120" both).
 * SASS for sm_XY runs on compute capability X.Z for Z >= Y; PTX for compute_XY is compiled by the driver for any
 * compute capability >= X.Y.  The lowest compute capability the project supports is that of OpenMM's CUDA 13
 * platform, 7.5.  Host code: the engines and the plugin check a device with requireKernelImage (CudaKernelImage.h).
 */

#include <string>
#include <vector>

namespace OpenMMNarumi::Common {

/** The lowest compute capability (major * 10 + minor) that openmm-narumi runs on: OpenMM's CUDA 13 platform's. */
constexpr int LOWEST_COMPUTE_CAPABILITY = 75;

/** The code of a build: SASS architectures and PTX architectures, each as major * 10 + minor, ascending. */
struct CudaArchitectures {
    std::vector<int> sass, ptx;
    /** Anything parse could not read ("native", "all"): the build's code is then known only by trying it. */
    std::string unparsed;

    /** From a CMake CUDA_ARCHITECTURES list ("75-real;80-real;120"); std::invalid_argument names a malformed entry. */
    static CudaArchitectures parse(const std::string& cmakeList);
    /** "SASS sm_75, sm_80; PTX compute_120", or the unparsed list as given. */
    std::string describe() const;
    /**
     * Which of this code a GPU of the given compute capability runs: "SASS sm_86", "PTX compute_120 (compiled by the
     * driver)", or "" when none of it can (below LOWEST_COMPUTE_CAPABILITY nothing is served).  SASS is preferred.
     */
    std::string codeFor(int major, int minor) const;
};

/** This build's code (CMAKE_CUDA_ARCHITECTURES when NarumiCommon was configured; empty in a build without CUDA). */
const CudaArchitectures& builtCudaArchitectures();

} // namespace OpenMMNarumi::Common

#endif // NARUMI_COMMON_CUDA_ARCHITECTURES_H_
