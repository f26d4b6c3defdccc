#ifndef NARUMI_COMPUTE_TILES_GROUPS_H_
#define NARUMI_COMPUTE_TILES_GROUPS_H_

/**
 * computeTiles' kernels in groups of accumulation methods (narumiTileGroup, computeTiles.cuh): each group's copies,
 * with per-particle Lennard-Jones and with type tables (TABLE), form a translation unit of their own, made by
 * platforms/cuda/CMakeLists.txt from computeTilesGroup.cu.in, so that a build compiles them in parallel (one file held
 * every copy, and the whole build waited for it).  narumiComputeTilesInGroup<GROUP, TABLE> launches computeTiles if
 * the method's accumulator is in GROUP, and says whether it did.
 */

#include "NarumiNonbondedLaunch.h"
#include "NarumiNonbondedTypes.h"
#include <cuda_runtime_api.h>

namespace OpenMMNarumi {

/** The number of groups; platforms/cuda/CMakeLists.txt reads it from this line. */
constexpr int NARUMI_TILE_GROUPS = 5;

template <int GROUP, bool TABLE>
bool narumiComputeTilesInGroup(const NarumiNonbondedData& data, NarumiAccumulation method, bool includeEnergy, cudaStream_t stream);

/** The carveout of method's pair kernel (tileKernelCarveout, computeTiles.cuh) into percent if its accumulator is in GROUP; whether it is. */
template <int GROUP, bool TABLE>
bool narumiTileCarveoutInGroup(const NarumiNonbondedData& data, NarumiAccumulation method, int& percent);

/** A group's launcher and carveout query, declared here for every unit and defined in its generated one. */
#define NARUMI_TILE_GROUP_LAUNCHER(GROUP, TABLE)                                                                           \
    template <>                                                                                                        \
    bool narumiComputeTilesInGroup<GROUP, TABLE>(const NarumiNonbondedData& data, NarumiAccumulation method, bool includeEnergy, \
                                                 cudaStream_t stream)

#define NARUMI_TILE_GROUP_CARVEOUT(GROUP, TABLE)                                                                           \
    template <>                                                                                                        \
    bool narumiTileCarveoutInGroup<GROUP, TABLE>(const NarumiNonbondedData& data, NarumiAccumulation method, int& percent)

NARUMI_TILE_GROUP_LAUNCHER(0, false);
NARUMI_TILE_GROUP_LAUNCHER(0, true);
NARUMI_TILE_GROUP_LAUNCHER(1, false);
NARUMI_TILE_GROUP_LAUNCHER(1, true);
NARUMI_TILE_GROUP_LAUNCHER(2, false);
NARUMI_TILE_GROUP_LAUNCHER(2, true);
NARUMI_TILE_GROUP_LAUNCHER(3, false);
NARUMI_TILE_GROUP_LAUNCHER(3, true);
NARUMI_TILE_GROUP_LAUNCHER(4, false);
NARUMI_TILE_GROUP_LAUNCHER(4, true);
NARUMI_TILE_GROUP_CARVEOUT(0, false);
NARUMI_TILE_GROUP_CARVEOUT(0, true);
NARUMI_TILE_GROUP_CARVEOUT(1, false);
NARUMI_TILE_GROUP_CARVEOUT(1, true);
NARUMI_TILE_GROUP_CARVEOUT(2, false);
NARUMI_TILE_GROUP_CARVEOUT(2, true);
NARUMI_TILE_GROUP_CARVEOUT(3, false);
NARUMI_TILE_GROUP_CARVEOUT(3, true);
NARUMI_TILE_GROUP_CARVEOUT(4, false);
NARUMI_TILE_GROUP_CARVEOUT(4, true);

} // namespace OpenMMNarumi

#endif // NARUMI_COMPUTE_TILES_GROUPS_H_
