#ifndef NARUMI_POTENTIAL_MAP_MULTI_DEVICE_BACKEND_H_
#define NARUMI_POTENTIAL_MAP_MULTI_DEVICE_BACKEND_H_

/** The map on several devices (src/MultiDeviceBackend.cpp): z slabs, one per device of options.cudaDevices. */

#include "PotentialMap.h"
#include <functional>

namespace OpenMMNarumi::PotentialMap {

/** Makes one device's backend for a lattice (createCudaBackend). */
using BackendFactory = std::function<std::unique_ptr<MapBackend>(const Lattice&, const std::vector<double>&, const Options&)>;

std::unique_ptr<MapBackend> createMultiDeviceBackend(const Lattice& lattice, const std::vector<double>& charges, const Options& options,
                                                     const BackendFactory& create);

} // namespace OpenMMNarumi::PotentialMap

#endif // NARUMI_POTENTIAL_MAP_MULTI_DEVICE_BACKEND_H_
