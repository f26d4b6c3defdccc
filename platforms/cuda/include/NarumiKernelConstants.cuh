#ifndef NARUMI_KERNEL_CONSTANTS_CUH_
#define NARUMI_KERNEL_CONSTANTS_CUH_

/** Launch geometry shared by the stages of the nonbonded kernels (src/kernels/*.cu). */

#include "NarumiCommon/CudaError.h"
#include <algorithm>
#include <cmath>
#include <map>
#include <mutex>
#include <utility>
#include <cuda.h>
#include <cuda_runtime.h>

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

/** Superblocks (candidate tasks) or candidate blocks (tile tasks) a warp of findNeighborTiles loads at once. */
constexpr int BLOCKS_IN_FLIGHT = 4;

/** Thread blocks of THREADS threads for one thread per item (at least one block). */
inline int blocksFor(long long threads) {
    return (int) std::max(1LL, (threads + THREADS - 1) / THREADS);
}

/**
 * Thread blocks of THREADS_PER_BLOCK threads that one multiprocessor of the current GPU runs of KERNEL at once (its
 * occupancy, with at most MAX_DYNAMIC_SHARED bytes of dynamic shared memory per block; at least 1), and the GPU's
 * multiprocessors; cached per kernel, device and host thread (OpenMM drives each device of a Context from its own thread).
 */
struct KernelWave {
    int multiprocessors = 0, blocksPerMultiprocessor = 0;
};
template <auto KERNEL, int THREADS_PER_BLOCK, size_t MAX_DYNAMIC_SHARED = 0>
const KernelWave& kernelWave() {
    static thread_local int cachedDevice = -1;
    static thread_local KernelWave wave;
    int device;
    Common::checkCuda(cudaGetDevice(&device), "cudaGetDevice");
    if (device != cachedDevice) {
        int blocksPerMultiprocessor;
        Common::checkCuda(cudaDeviceGetAttribute(&wave.multiprocessors, cudaDevAttrMultiProcessorCount, device), "reading the multiprocessor count");
        Common::checkCuda(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocksPerMultiprocessor, KERNEL, THREADS_PER_BLOCK, MAX_DYNAMIC_SHARED),
                          "reading the occupancy");
        wave.blocksPerMultiprocessor = std::max(1, blocksPerMultiprocessor);
        cachedDevice = device;
    }
    return wave;
}

/** One full wave of KERNEL's thread blocks on the current GPU (kernelWave), for kernels whose blocks take their work from a counter. */
template <auto KERNEL, int THREADS_PER_BLOCK, size_t MAX_DYNAMIC_SHARED = 0>
int fullWaveBlocks() {
    const KernelWave& wave = kernelWave<KERNEL, THREADS_PER_BLOCK, MAX_DYNAMIC_SHARED>();
    return wave.multiprocessors * wave.blocksPerMultiprocessor;
}

/**
 * The preferred shared-memory carveout, in percent of a multiprocessor's shared memory, that holds blocks thread blocks
 * of kernel with dynamicShared bytes each on the current device (the driver rounds it up to a configuration it has).
 */
template <class Kernel>
int carveoutHolding(Kernel kernel, int blocks, size_t dynamicShared) {
    int device, perMultiprocessor, reservedPerBlock;
    cudaFuncAttributes attributes;
    Common::checkCuda(cudaGetDevice(&device), "cudaGetDevice");
    Common::checkCuda(cudaFuncGetAttributes(&attributes, kernel), "reading a kernel's attributes");
    Common::checkCuda(cudaDeviceGetAttribute(&perMultiprocessor, cudaDevAttrMaxSharedMemoryPerMultiprocessor, device), "reading the shared memory");
    Common::checkCuda(cudaDeviceGetAttribute(&reservedPerBlock, cudaDevAttrReservedSharedMemoryPerBlock, device), "reading the shared memory");
    double needed = (double) blocks * (double) (attributes.sharedSizeBytes + dynamicShared + reservedPerBlock);
    return std::min(100, (int) std::ceil(100.0 * needed / std::max(1, perMultiprocessor)));
}

/**
 * KERNEL's preferred shared-memory carveout for this launch (percent; -1: the driver's choice).  The attribute belongs
 * to the function as loaded into a CUDA context (each OpenMM Context has its own), so every launch asks for its own;
 * the driver is called only when the function's last setting was for another context, known by its ID, which CUDA
 * never reuses, or another value (a call costs about 0.4 us of the host's time, which adds to every step where the
 * host waits for the GPU each step, as OpenMM's CCMA constraints make it).
 */
template <class Kernel>
void preferSharedCarveout(Kernel kernel, int percent) {
    static std::mutex guard;
    static std::map<const void*, std::pair<unsigned long long, int>> lastSet;  // function -> (context ID, percent)
    CUcontext context;
    Common::checkCuda(cuCtxGetCurrent(&context), "reading the current CUDA context");
    unsigned long long contextId = 0;
    if (context != nullptr)
        Common::checkCuda(cuCtxGetId(context, &contextId), "reading the CUDA context's ID");
    const std::pair<unsigned long long, int> setting(contextId, percent);
    std::lock_guard<std::mutex> lock(guard);
    auto found = lastSet.find((const void*) kernel);
    if (context != nullptr && found != lastSet.end() && found->second == setting)
        return;
    Common::checkCuda(cudaFuncSetAttribute(kernel, cudaFuncAttributePreferredSharedMemoryCarveout, percent), "setting the shared-memory carveout");
    if (context != nullptr)
        lastSet[(const void*) kernel] = setting;
}

} // namespace OpenMMNarumi

#endif // NARUMI_KERNEL_CONSTANTS_CUH_
