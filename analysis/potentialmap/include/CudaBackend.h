#ifndef NARUMI_POTENTIAL_MAP_CUDA_BACKEND_H_
#define NARUMI_POTENTIAL_MAP_CUDA_BACKEND_H_

/** The CUDA backend's entry point, defined in cuda/ and compiled only when the build has CUDA. */

#include "PotentialMap.h"

namespace OpenMMNarumi::PotentialMap {

std::unique_ptr<MapBackend> createCudaBackend(const Lattice& lattice, const std::vector<double>& charges, const Options& options);

} // namespace OpenMMNarumi::PotentialMap

#endif // NARUMI_POTENTIAL_MAP_CUDA_BACKEND_H_
