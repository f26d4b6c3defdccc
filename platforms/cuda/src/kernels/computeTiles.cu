/** The all-pairs stage: computeTiles from the translation unit of the method's group (computeTilesGroups.h). */

#include "NarumiNonbondedStages.h"
#include "computeTilesGroups.h"
#include <stdexcept>
#include <string>
#include <utility>

namespace OpenMMNarumi {

namespace {

template <bool TABLE, int... GROUPS>
bool carveoutInItsGroup(std::integer_sequence<int, GROUPS...>, const NarumiNonbondedData& data, NarumiAccumulation method, int& percent) {
    return (narumiTileCarveoutInGroup<GROUPS, TABLE>(data, method, percent) || ...);
}

template <bool TABLE, int... GROUPS>
bool launchInItsGroup(std::integer_sequence<int, GROUPS...>, const NarumiNonbondedData& data, NarumiAccumulation method, bool includeEnergy,
                      cudaStream_t stream) {
    return (narumiComputeTilesInGroup<GROUPS, TABLE>(data, method, includeEnergy, stream) || ...);
}

} // namespace

void narumiComputeTiles(const NarumiNonbondedData& data, NarumiAccumulation method, bool includeEnergy, cudaStream_t stream) {
    const auto groups = std::make_integer_sequence<int, NARUMI_TILE_GROUPS>();
    const bool table = data.numTableClasses > 0;
    bool launched = table ? launchInItsGroup<true>(groups, data, method, includeEnergy, stream)
                          : launchInItsGroup<false>(groups, data, method, includeEnergy, stream);
    // The host refuses type tables with the diagnostics' methods C-E before any launch; this guards that rule.
    if (!launched)
        throw std::runtime_error("narumiComputeTiles: no kernel for accumulation method " + std::to_string((int) method) +
                                 (table ? " with Lennard-Jones types" : ""));
}

int narumiPairKernelCarveout(const NarumiNonbondedData& data, NarumiAccumulation method) {
    const auto groups = std::make_integer_sequence<int, NARUMI_TILE_GROUPS>();
    int percent = -1;
    bool found = data.numTableClasses > 0 ? carveoutInItsGroup<true>(groups, data, method, percent)
                                          : carveoutInItsGroup<false>(groups, data, method, percent);
    return found ? percent : -1;  // no kernel (C-E with types, refused before any launch): the driver's choice
}

} // namespace OpenMMNarumi
