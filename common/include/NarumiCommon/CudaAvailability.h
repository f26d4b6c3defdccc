#ifndef NARUMI_COMMON_CUDA_AVAILABILITY_H_
#define NARUMI_COMMON_CUDA_AVAILABILITY_H_

/**
 * The one "no CUDA" fallback of the analysis engines.  Builds without nvcc compile no CUDA backend at all; an
 * engine's backend factory then reaches its CUDA factory only inside `if constexpr (builtWithCuda)`, whose discarded
 * branch needs no definition, and throws the shared error otherwise, so no engine carries a stub file of its own.
 */

#include <string>
#include <vector>

// Defined by the NarumiCommon target for everything that links it: 1 when the CUDA backends are compiled.
#ifndef NARUMI_HAVE_CUDA
#error "NARUMI_HAVE_CUDA is set by the NarumiCommon CMake target: link NarumiCommon"
#endif

namespace OpenMMNarumi::Common {

/** True when this build compiled the CUDA backends (nvcc was found when it was configured). */
constexpr bool builtWithCuda = NARUMI_HAVE_CUDA != 0;

/**
 * The CUDA devices the runtime sees: 0 in a build without CUDA, without a driver or without a device.  A failed
 * query's error is cleared, so that it does not surface in later runtime calls.
 */
int cudaDeviceCount();

/**
 * Makes `device` the calling thread's current device and returns it: std::invalid_argument naming it unless it is one
 * of the cudaDeviceCount() devices, std::runtime_error if setting it fails or if it cannot run this build's kernels
 * (requireKernelImage, naming `requester`: "the RDF engine").
 */
int selectCudaDevice(int device, const std::string& requester);

/**
 * An engine's device settings, checked and made canonical: std::invalid_argument naming a negative entry of
 * `devices`; a list of one device becomes `device` (the one-device engine), leaving `devices` empty.
 */
void resolveCudaDevices(int& device, std::vector<int>& devices);

/**
 * Throws the std::runtime_error of a CUDA backend that cannot be made, naming what asked for it ("the RDF engine"):
 * the build has no CUDA, or no CUDA device is visible.
 */
[[noreturn]] void throwCudaUnavailable(const std::string& requester);

} // namespace OpenMMNarumi::Common

#endif // NARUMI_COMMON_CUDA_AVAILABILITY_H_
