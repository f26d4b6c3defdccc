#ifndef NARUMI_NONBONDED_STAGES_H_
#define NARUMI_NONBONDED_STAGES_H_

/**
 * The host launchers of the stages of one evaluation (src/kernels/*.cu), in the order narumiLaunchNonbonded
 * (src/NarumiNonbondedLaunch.cu) calls them: one launcher per span the stage timer reports, so that it can mark the
 * end of each.  Each queues its kernels on stream and returns at once; a CUDA call that reports an error (CUB, the
 * occupancy query) throws through Common::checkCuda, and the launches' own errors are read once, after the last stage.
 */

#include "NarumiCommon/CudaError.h"
#include "NarumiNonbondedLaunch.h"
#include "NarumiNonbondedTypes.h"
#include <cstddef>
#include <cuda_runtime_api.h>

namespace OpenMMNarumi {

// src/kernels/sortAtoms.cu
/** computeSortKeys and the radix sort: the atoms into slots along the Hilbert curve (slotPosqIndex). */
void narumiSortAtoms(const NarumiNonbondedData& data, bool posqIsDouble, cudaStream_t stream);

// src/kernels/gatherSlots.cu
/** gatherSlotsAndBounds: slot positions (and parameters right after a sort: betweenSorts false), block and superblock bounds. */
void narumiGatherSlots(const NarumiNonbondedData& data, bool posqIsDouble, bool betweenSorts, cudaStream_t stream);

// src/kernels/findNeighbors.cu
/**
 * findNeighborTiles: per block, its candidate blocks and its tiles of atoms near it (tileAtoms, tileCounts,
 * overflowBlocks), and in its last thread block the scan of tileCounts into tileOffsets, the tiles' numbers.
 */
void narumiFindNeighborTiles(const NarumiNonbondedData& data, cudaStream_t stream);

// src/kernels/computeTiles.cu
/** computeTiles: all pairs of the listed tiles, then those of the blocks whose tiles did not fit into the list. */
void narumiComputeTiles(const NarumiNonbondedData& data, NarumiAccumulation method, bool includeEnergy, cudaStream_t stream);

// src/kernels/correctExceptions.cu
/** correctExceptions: "exclude afterwards" (nothing is launched without exceptions). */
void narumiCorrectExceptions(const NarumiNonbondedData& data, NarumiAccumulation method, bool includeEnergy, bool posqIsDouble,
                             cudaStream_t stream);

// src/kernels/finishSums.cu
/** mergeFloatingForces (methods A to E) and finishEnergy (the energy into the status words). */
void narumiFinishSums(const NarumiNonbondedData& data, NarumiAccumulation method, bool includeEnergy, cudaStream_t stream);

} // namespace OpenMMNarumi

#endif // NARUMI_NONBONDED_STAGES_H_
