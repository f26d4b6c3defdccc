/** The all-pairs stage with per-particle Lennard-Jones, or handed to the type-table copy (computeTilesTypeTable.cu). */

#include "computeTiles.cuh"

namespace OpenMMNarumi {

void narumiComputeTilesWithTypeTable(const NarumiNonbondedData& data, NarumiAccumulation method, bool includeEnergy, cudaStream_t stream);

void narumiComputeTiles(const NarumiNonbondedData& data, NarumiAccumulation method, bool includeEnergy, cudaStream_t stream) {
    if (data.numTableTypes > 0)
        narumiComputeTilesWithTypeTable(data, method, includeEnergy, stream);
    else
        launchComputeTilesForMethod<false>(data, method, includeEnergy, stream);
}

} // namespace OpenMMNarumi
