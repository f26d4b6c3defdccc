/** The all-pairs stage with Lennard-Jones type tables (NBFIX, GROMACS's [ nonbond_params ]). */

#include "computeTiles.cuh"

namespace OpenMMNarumi {

void narumiComputeTilesWithTypeTable(const NarumiNonbondedData& data, NarumiAccumulation method, bool includeEnergy, cudaStream_t stream) {
    launchComputeTilesForMethod<true>(data, method, includeEnergy, stream);
}

} // namespace OpenMMNarumi
