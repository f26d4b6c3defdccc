#ifndef NARUMI_KERNEL_CONSTANTS_CUH_
#define NARUMI_KERNEL_CONSTANTS_CUH_

/** Launch geometry shared by the stages of the nonbonded kernels (src/kernels/*.cu). */

#include <algorithm>

namespace OpenMMNarumi {

constexpr int THREADS = 128;
constexpr int WARPS_PER_BLOCK = THREADS / 32;
// Thread blocks of the pair kernels that must fit on one multiprocessor (__launch_bounds__), which caps their
// registers; unset, nvcc's own choice.  Capping registers for more blocks made them slower, and an explicit 1 let nvcc
// take more registers for no gain (benchmarks/tune_tile_kernel.sh, docs/benchmarks.md).
#ifdef NARUMI_TILE_MIN_BLOCKS
#define NARUMI_TILE_LAUNCH_BOUNDS __launch_bounds__(THREADS, NARUMI_TILE_MIN_BLOCKS)
#else
#define NARUMI_TILE_LAUNCH_BOUNDS __launch_bounds__(THREADS)
#endif
constexpr unsigned FULL_MASK = 0xffffffffu;

/** Threads of gatherSlotsAndBounds' thread blocks: one superblock, 32 blocks of 32 slots. */
constexpr int SUPERBLOCK_THREADS = 32 * 32;

/** Superblocks (findCandidateBlocks) or candidate blocks (findNeighborTiles) a warp loads at once. */
constexpr int BLOCKS_IN_FLIGHT = 4;

/** Thread blocks of THREADS threads for one thread per item (at least one block). */
inline int blocksFor(long long threads) {
    return (int) std::max(1LL, (threads + THREADS - 1) / THREADS);
}

} // namespace OpenMMNarumi

#endif // NARUMI_KERNEL_CONSTANTS_CUH_
