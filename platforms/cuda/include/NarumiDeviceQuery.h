#ifndef NARUMI_DEVICE_QUERY_H_
#define NARUMI_DEVICE_QUERY_H_

#include "NarumiDeviceSettings.h"

namespace OpenMMNarumi {

/** The properties of CUDA runtime device `device` that the settings are chosen from; std::runtime_error on failure. */
NarumiDeviceProperties queryNarumiDeviceProperties(int device);

} // namespace OpenMMNarumi

extern "C" {
/** The CUDA devices this library's runtime sees (0 without a driver or a device), for narumi-check through ctypes. */
int openmmNarumiCudaDeviceCount();
/**
 * One line about device `device` into text (at most capacity bytes, NUL included): its name, compute capability and
 * multiprocessors, the code of this build it runs (or why none), and the settings the force would choose for it.
 * Returns 0, or 1 when the GPU cannot run this build (the line says why).
 */
int openmmNarumiDescribeCudaDevice(int device, char* text, int capacity);
}

#endif // NARUMI_DEVICE_QUERY_H_
