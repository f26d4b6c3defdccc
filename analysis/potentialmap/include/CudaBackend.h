#ifndef NARUMI_POTENTIAL_MAP_CUDA_BACKEND_H_
#define NARUMI_POTENTIAL_MAP_CUDA_BACKEND_H_

/** The CUDA backend's entry points, defined in cuda/ and linked only when the build has CUDA. */

#include "PotentialMap.h"

namespace NarumiPotentialMap {

/** True if the CUDA runtime sees at least one device. */
bool cudaDeviceAvailable();
std::unique_ptr<MapBackend> createCudaBackend(const Lattice& lattice, const std::vector<double>& charges, const Options& options);

} // namespace NarumiPotentialMap

#endif // NARUMI_POTENTIAL_MAP_CUDA_BACKEND_H_
