#ifndef NARUMI_NONBONDED_LAUNCH_H_
#define NARUMI_NONBONDED_LAUNCH_H_

/**
 * Host entry points of the nonbonded kernels (src/NarumiNonbondedLaunch.cu, which launches the stages of
 * src/kernels/), callable from plain C++.
 */

#include "NarumiAccumulation.h"
#include "NarumiCommon/CudaEvent.h"
#include "NarumiCommon/CudaStream.h"
#include "NarumiCommon/StageTimer.h"
#include "NarumiNonbondedTypes.h"
#include <cuda_runtime_api.h>

namespace OpenMMNarumi {

/** Bytes of CUB storage the atom sort needs for numAtoms atoms (src/kernels/sortAtoms.cu). */
size_t narumiSortStorageBytes(int numAtoms);

/** The neighbour search's warps per thread block for data's list (src/kernels/findNeighbors.cu): data.searchWarps, or by size. */
int narumiSearchWarps(const NarumiNonbondedData& data);

/**
 * The preferred shared-memory carveout (percent) that holds a full wave of the pair kernel that narumiComputeTiles
 * launches for data and method on the current device (src/kernels/computeTiles.cu); -1, the driver's choice, where it
 * has none.  Every kernel of the force is launched in it (data.sharedCarveout).
 */
int narumiPairKernelCarveout(const NarumiNonbondedData& data, NarumiAccumulation method);

/**
 * A second stream for the exclusion pass, which needs only the gathered slots: it then runs beside the search and the
 * pairs (filling the GPU while the small search kernels leave most of it idle), forked after the gather by mayStart and
 * joined before the finish by done; the sums are integers, so the order does not matter.  Create and destroy it while
 * the device's context is current, and synchronize the stream before freeing what the pass reads.
 */
struct NarumiExceptionsStream {
    Common::CudaStream stream;
    Common::CudaEvent mayStart, done;
};

/**
 * Queue one evaluation on stream: (sort), tiles, all pairs, exclusions afterwards, energy (into data.status: the host
 * reads it back).  posq holds double4 when posqIsDouble (OpenMM's double precision), else float4.  Only the pairs of
 * data's share are computed (all of them on one GPU); shareStarted and shareFinished (or nullptr) are recorded
 * before and after the stages that compute it, so that a multi-device Context can balance the shares.  resort
 * re-sorts the atoms along the Hilbert curve (required on the first evaluation; otherwise the previous order is
 * kept, which affects only how compact the blocks are, never the result).  exceptions: the exclusion pass's own stream
 * (above), or nullptr: every stage on stream, in order.  timer (profiling only, else nullptr; then exceptions must be
 * nullptr) gets one mark per stage and waits for them.  Throws std::runtime_error (Common::checkCuda) when a launch
 * fails.
 */
void narumiLaunchNonbonded(const NarumiNonbondedData& data, NarumiAccumulation method, bool includeEnergy, bool posqIsDouble,
                           bool resort, cudaStream_t stream, NarumiExceptionsStream* exceptions = nullptr,
                           Common::StageTimer* timer = nullptr, cudaEvent_t shareStarted = nullptr,
                           cudaEvent_t shareFinished = nullptr);

} // namespace OpenMMNarumi

#endif // NARUMI_NONBONDED_LAUNCH_H_
