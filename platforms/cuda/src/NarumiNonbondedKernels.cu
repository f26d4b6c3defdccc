/**
 * The kernels of NarumiNonbondedForce on the CUDA platform, in the order one evaluation launches them:
 *
 *   computeSortKeys   Hilbert key of every atom's cell (periodic: wrapped fractional coordinates); only every
 *   (CUB radix sort)  few evaluations: atoms -> slots along the Hilbert curve; 32 consecutive slots are a block
 *   gatherSlotsAndBounds  float positions, charges and LJ parameters in slot order (every evaluation), and the
 *                     bounding boxes of blocks (32 slots) and of superblocks (32 blocks)
 *   findCandidateBlocks   per block I, the later blocks whose boxes come within the cutoff of I's
 *   findNeighborTiles, (CUB scan)   per block I, the atoms of its candidates within the cutoff of one of I's atoms,
 *                     packed 32 to a tile in I's segment of the list; the scan numbers the tiles
 *   computeTiles      all pairs of the listed tiles, NO exclusion test, one warp per contiguous run of tiles
 *   computeOverflowTiles  blocks whose tiles did not fit into the list (none once the host has grown it)
 *   correctExceptions "exclude afterwards": subtract exactly what computeTiles added for every exception pair,
 *                     then add the exception's own interaction
 *   finish            merge float/double sums (methods A, B), add the energy to OpenMM's energy buffer
 *
 * Each pair of different blocks is computed once (Newton's third law): each thread keeps its atom i's Narumi sums in
 * registers for a whole run of tiles, and the partners' sums of a tile live in shared memory, where the lanes meet
 * their partners in rotation, so that no two touch the same one; they are merged into OpenMM's buffer once per tile.
 * (Passing the partners' (hi, lo) pairs round the warp by shuffles instead was slower.)  The pairs inside a block are
 * computed from both sides.
 */

#include "NarumiNonbondedLaunch.h"
#include "NarumiPairInteraction.cuh"
#include "NarumiTermAccumulators.cuh"
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_scan.cuh>
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <vector>

namespace NarumiPlugin {

/** Events recorded after each stage of an evaluation; the times between them summed per stage name. */
struct NarumiStageTimer {
    std::vector<cudaEvent_t> events;        // events[0] opens the evaluation, events[k] closes stage k
    std::vector<std::string> pending;       // names of this evaluation's stages, in order
    std::vector<std::string> names;         // every stage seen, in first-seen order
    std::vector<double> totalMilliseconds;  // per entry of names
    std::vector<long long> counts;
    long long evaluations = 0;

    void start(cudaStream_t stream) {
        pending.clear();
        record(0, stream);
    }
    void mark(const char* name, cudaStream_t stream) {
        pending.push_back(name);
        record(pending.size(), stream);
    }
    void finish() {
        cudaEventSynchronize(events[pending.size()]);
        for (size_t k = 0; k < pending.size(); k++) {
            float ms = 0;
            cudaEventElapsedTime(&ms, events[k], events[k + 1]);
            size_t index = std::find(names.begin(), names.end(), pending[k]) - names.begin();
            if (index == names.size()) {
                names.push_back(pending[k]);
                totalMilliseconds.push_back(0);
                counts.push_back(0);
            }
            totalMilliseconds[index] += ms;
            counts[index]++;
        }
        evaluations++;
    }

private:
    void record(size_t index, cudaStream_t stream) {
        while (events.size() <= index) {
            cudaEvent_t event;
            cudaEventCreate(&event);
            events.push_back(event);
        }
        cudaEventRecord(events[index], stream);
    }
};

NarumiStageTimer* narumiCreateStageTimerFromEnvironment() {
    const char* setting = std::getenv("NARUMI_PROFILE_STAGES");
    return (setting != nullptr && setting[0] != '\0' && setting[0] != '0') ? new NarumiStageTimer() : nullptr;
}

void narumiDestroyStageTimer(NarumiStageTimer* timer) {
    if (timer == nullptr)
        return;
    double total = 0;
    for (double ms : timer->totalMilliseconds)
        total += ms;
    std::fprintf(stderr, "NarumiNonbondedForce stage times, %lld evaluations (us per evaluation; runs = evaluations that ran it):\n",
                 timer->evaluations);
    for (size_t k = 0; k < timer->names.size(); k++)
        std::fprintf(stderr, "  %-22s %10.2f us  (runs %lld, %.2f us per run)\n", timer->names[k].c_str(),
                     1000 * timer->totalMilliseconds[k] / std::max(1LL, timer->evaluations), timer->counts[k],
                     1000 * timer->totalMilliseconds[k] / std::max(1LL, timer->counts[k]));
    std::fprintf(stderr, "  %-22s %10.2f us\n", "total", 1000 * total / std::max(1LL, timer->evaluations));
    for (cudaEvent_t event : timer->events)
        cudaEventDestroy(event);
    delete timer;
}

namespace {

/** Marks the end of a stage when profiling (no-op otherwise). */
inline void markStage(NarumiStageTimer* timer, const char* name, cudaStream_t stream) {
    if (timer != nullptr)
        timer->mark(name, stream);
}

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

int blocksFor(long long threads) {
    return (int) std::max(1LL, (threads + THREADS - 1) / THREADS);
}

void check(cudaError_t status, const char* what) {
    if (status != cudaSuccess)
        throw std::runtime_error(std::string("NarumiNonbondedForce CUDA kernels: ") + what + ": " + cudaGetErrorString(status));
}

// ---- positions --------------------------------------------------------------------------------------------------

/** OpenMM's double-precision posq element (32 bytes; CUDA 13 deprecates the unaligned double4). */
struct __align__(32) PositionCharge64 {
    double x, y, z, q;
};

template <class Real>
struct Vector3 {
    Real x, y, z;
};

/** Shift a position into the periodic box (the reduced-form parallelepiped), in the precision of posq. */
template <class Real>
__device__ Vector3<Real> wrapIntoBox(Vector3<Real> r, const NarumiBox& box) {
    if (!box.periodic)
        return r;
    Real nz = floor(r.z * (Real) box.invSize.z);
    r.x -= nz * (Real) box.vecZ.x;
    r.y -= nz * (Real) box.vecZ.y;
    r.z -= nz * (Real) box.vecZ.z;
    Real ny = floor(r.y * (Real) box.invSize.y);
    r.x -= ny * (Real) box.vecY.x;
    r.y -= ny * (Real) box.vecY.y;
    Real nx = floor(r.x * (Real) box.invSize.x);
    r.x -= nx * (Real) box.vecX.x;
    return r;
}

__device__ inline Vector3<float> loadPosition(const float4* posq, int index) {
    float4 p = posq[index];
    return {p.x, p.y, p.z};
}

__device__ inline Vector3<double> loadPosition(const PositionCharge64* posq, int index) {
    PositionCharge64 p = posq[index];
    return {p.x, p.y, p.z};
}

/** Spread the low 10 bits of v so that two zero bits follow each one. */
__device__ inline unsigned int spreadBits(unsigned int v) {
    v &= 0x3ff;
    v = (v | (v << 16)) & 0x030000ff;
    v = (v | (v << 8)) & 0x0300f00f;
    v = (v | (v << 4)) & 0x030c30c3;
    v = (v | (v << 2)) & 0x09249249;
    return v;
}

__device__ inline unsigned int cellCoordinate(float fraction) {
    return (unsigned int) min(1023, max(0, (int) (fraction * 1024.0f)));
}

/**
 * Position of cell (x, y, z) of a 1024^3 grid along a 3-d Hilbert curve (Skilling's transpose algorithm, AIP Conf.
 * Proc. 707, 381 (2004)).  Unlike the Morton curve it never jumps, so 32 consecutive atoms make compact blocks:
 * on the DHFR box their bounding boxes are 2.5x smaller and the blocks within the cutoff of a block 1.4x fewer.
 */
__device__ inline unsigned int hilbertKey(unsigned int x, unsigned int y, unsigned int z) {
    unsigned int axes[3] = {x, y, z};
    for (unsigned int q = 1u << 9; q > 1; q >>= 1) {
        unsigned int p = q - 1;
        for (int i = 0; i < 3; i++) {
            if (axes[i] & q) {
                axes[0] ^= p;
            }
            else {
                unsigned int t = (axes[0] ^ axes[i]) & p;
                axes[0] ^= t;
                axes[i] ^= t;
            }
        }
    }
    axes[1] ^= axes[0];
    axes[2] ^= axes[1];
    unsigned int flip = 0;
    for (unsigned int q = 1u << 9; q > 1; q >>= 1)
        if (axes[2] & q)
            flip ^= q - 1;
    for (int i = 0; i < 3; i++)
        axes[i] ^= flip;
    return (spreadBits(axes[0]) << 2) | (spreadBits(axes[1]) << 1) | spreadBits(axes[2]);
}

template <class PosT>
__global__ void computeSortKeys(NarumiNonbondedData d) {
    const PosT* posq = (const PosT*) d.posq;
    for (int atom = blockIdx.x * blockDim.x + threadIdx.x; atom < d.numAtoms; atom += gridDim.x * blockDim.x) {
        auto r = wrapIntoBox(loadPosition(posq, atom), d.box);
        unsigned int cx, cy, cz;
        if (d.box.periodic) {
            // Fractional coordinates along the box vectors, so that blocks are compact in triclinic boxes too.
            float fz = (float) r.z * d.box.invSize.z;
            float fy = ((float) r.y - fz * d.box.vecZ.y) * d.box.invSize.y;
            float fx = ((float) r.x - fz * d.box.vecZ.x - fy * d.box.vecY.x) * d.box.invSize.x;
            cx = cellCoordinate(fx);
            cy = cellCoordinate(fy);
            cz = cellCoordinate(fz);
        }
        else {
            // 1024 cells per axis, repeating: far-apart atoms may share a key, which costs speed, never correctness.
            cx = (unsigned int) (int) floorf((float) r.x / d.sortCellSize);
            cy = (unsigned int) (int) floorf((float) r.y / d.sortCellSize);
            cz = (unsigned int) (int) floorf((float) r.z / d.sortCellSize);
        }
        d.sortKeys[atom] = hilbertKey(cx & 1023, cy & 1023, cz & 1023);
        d.sortValues[atom] = atom;
    }
}

/** One warp's min and max of a float over its lanes. */
__device__ inline void warpMinMax(float& low, float& high) {
    for (int offset = 16; offset > 0; offset /= 2) {
        low = fminf(low, __shfl_xor_sync(FULL_MASK, low, offset));
        high = fmaxf(high, __shfl_xor_sync(FULL_MASK, high, offset));
    }
}

/** The bounding box of the lanes' points (low, high) as a centre and half extents, w the bounding radius, into lane 0's outputs. */
__device__ inline void reduceBounds(float3 low, float3 high, float4& center, float4& halfExtents) {
    warpMinMax(low.x, high.x);
    warpMinMax(low.y, high.y);
    warpMinMax(low.z, high.z);
    float3 half = make_float3(0.5f * (high.x - low.x), 0.5f * (high.y - low.y), 0.5f * (high.z - low.z));
    center = make_float4(low.x + half.x, low.y + half.y, low.z + half.z, 0.0f);
    halfExtents = make_float4(half.x, half.y, half.z, sqrtf(half.x * half.x + half.y * half.y + half.z * half.z));
}

constexpr int SUPERBLOCK_THREADS = 32 * 32;

/**
 * One thread per slot, one thread block per superblock (32 blocks of 32 slots): float positions, charges and LJ
 * parameters in slot order, then each block's bounding box (a warp's reduction) and the superblock's (a reduction over
 * its blocks' boxes), in one launch.  Right after a sort every atom is wrapped into the box; between sorts an atom
 * keeps the periodic image nearest to its position at the previous evaluation, so that one crossing a face of the box
 * does not stretch its block's bounding box across the whole box (pairs use the minimum image either way).
 */
template <class PosT>
__global__ void __launch_bounds__(SUPERBLOCK_THREADS) gatherSlotsAndBounds(NarumiNonbondedData d, int keepImages) {
    __shared__ float4 lows[32], highs[32];
    const PosT* posq = (const PosT*) d.posq;
    const int slot = blockIdx.x * SUPERBLOCK_THREADS + threadIdx.x, warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    const int block = slot / 32;
    float3 low = make_float3(INFINITY, INFINITY, INFINITY), high = make_float3(-INFINITY, -INFINITY, -INFINITY);
    if (slot < d.numAtoms) {
        int posqIndex = d.slotPosqIndex[slot];
        int atom = d.atomIndex[posqIndex];
        auto wrapped = wrapIntoBox(loadPosition(posq, posqIndex), d.box);
        float3 r = make_float3((float) wrapped.x, (float) wrapped.y, (float) wrapped.z);
        if (keepImages && d.box.periodic) {
            float4 previous = d.slotPositions[slot];
            float3 step = narumiMinimumImage(make_float3(r.x - previous.x, r.y - previous.y, r.z - previous.z), d.box);
            r = make_float3(previous.x + step.x, previous.y + step.y, previous.z + step.z);
        }
        float4 parameters = d.atomParameters[atom];
        d.slotPositions[slot] = make_float4(r.x, r.y, r.z, parameters.x);
        d.slotLennardJones[slot] = make_float2(parameters.y, parameters.z);
        d.slotOfAtom[atom] = slot;
        low = high = r;
    }
    else if (slot < d.numSlots) {
        d.slotPositions[slot] = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
        d.slotLennardJones[slot] = make_float2(0.0f, 0.0f);
    }
    if (block < d.numBlocks) {
        float4 center, halfExtents;
        reduceBounds(low, high, center, halfExtents);
        if (lane == 0) {
            d.blockCenters[block] = center;
            d.blockHalfExtents[block] = halfExtents;
            lows[warp] = make_float4(center.x - halfExtents.x, center.y - halfExtents.y, center.z - halfExtents.z, 0.0f);
            highs[warp] = make_float4(center.x + halfExtents.x, center.y + halfExtents.y, center.z + halfExtents.z, 0.0f);
        }
    }
    __syncthreads();
    if (warp == 0) {
        // Blocks past the last one repeat it.
        int last = min(31, d.numBlocks - 1 - (int) blockIdx.x * 32);
        float4 l = lows[min(lane, last)], h = highs[min(lane, last)];
        float4 center, halfExtents;
        reduceBounds(make_float3(l.x, l.y, l.z), make_float3(h.x, h.y, h.z), center, halfExtents);
        if (lane == 0) {
            // Widened by a relative 1e-6 so that float rounding of centre +- half extent cannot cut off a block's corner.
            float3 slack = make_float3(1e-6f * (fabsf(center.x) + halfExtents.x) * 2 + 1e-6f, 1e-6f * (fabsf(center.y) + halfExtents.y) * 2 + 1e-6f,
                                       1e-6f * (fabsf(center.z) + halfExtents.z) * 2 + 1e-6f);
            float3 half = make_float3(halfExtents.x + slack.x, halfExtents.y + slack.y, halfExtents.z + slack.z);
            d.superblockCenters[blockIdx.x] = center;
            d.superblockHalfExtents[blockIdx.x] = make_float4(half.x, half.y, half.z, sqrtf(half.x * half.x + half.y * half.y + half.z * half.z));
        }
    }
}

// ---- tiles ------------------------------------------------------------------------------------------------------

/**
 * Whether any point of box A (centre, half extents, bounding-sphere radius in w) can be within the cutoff of any
 * point of box B.  Rectangular boxes: the per-axis gap between the boxes at the centres' minimum image is a lower
 * bound on every pair's distance in any image.  Triclinic boxes: bounding spheres, with the centres' displacement v0
 * reduced as the pair kernel reduces it and then minimised over the 27 images v0 + i a + j b + k c, |i|,|j|,|k| <= 1.
 * Those contain every image shorter than D = cutoff + R_A + R_B whenever D < min(a_x / 2, b_y, 1.5 c_z) (reduced
 * form: |v0| components are at most half the diagonal, |b_x|, |c_x| <= a_x / 2, |c_y| <= b_y / 2); larger boxes
 * are taken as interacting.
 */
__device__ bool boundsWithinCutoff(const NarumiNonbondedData& d, float4 centerA, float4 halfA, float4 centerB, float4 halfB,
                                   bool& untested) {
    untested = false;
    if (!(d.tileCutoff2 < INFINITY))
        return true;
    float3 delta = make_float3(centerB.x - centerA.x, centerB.y - centerA.y, centerB.z - centerA.z);
    if (d.box.periodic && d.box.triclinic) {
        float reach = sqrtf(d.tileCutoff2) + halfA.w + halfB.w;
        float limit = 0.999f * fminf(0.5f * d.box.size.x, fminf(d.box.size.y, 1.5f * d.box.size.z));
        if (!(reach < limit)) {
            untested = true;
            return true;
        }
        delta = narumiMinimumImage(delta, d.box);
        float shortest2 = INFINITY;
        for (int a = -1; a <= 1; a++)
            for (int b = -1; b <= 1; b++)
                for (int c = -1; c <= 1; c++) {
                    float x = delta.x + a * d.box.vecX.x + b * d.box.vecY.x + c * d.box.vecZ.x;
                    float y = delta.y + b * d.box.vecY.y + c * d.box.vecZ.y;
                    float z = delta.z + c * d.box.vecZ.z;
                    shortest2 = fminf(shortest2, x * x + y * y + z * z);
                }
        float gap = fmaxf(0.0f, sqrtf(shortest2) - halfA.w - halfB.w);
        return gap * gap < d.tileCutoff2;
    }
    if (d.box.periodic)
        delta = narumiMinimumImage(delta, d.box);
    float gx = fmaxf(0.0f, fabsf(delta.x) - halfA.x - halfB.x);
    float gy = fmaxf(0.0f, fabsf(delta.y) - halfA.y - halfB.y);
    float gz = fmaxf(0.0f, fabsf(delta.z) - halfA.z - halfB.z);
    return gx * gx + gy * gy + gz * gz < d.tileCutoff2;
}

__device__ bool blocksInteract(const NarumiNonbondedData& d, int blockI, int blockJ) {
    bool untested;
    return boundsWithinCutoff(d, d.blockCenters[blockI], d.blockHalfExtents[blockI], d.blockCenters[blockJ], d.blockHalfExtents[blockJ], untested);
}

/** Whether an atom at position can be within the cutoff of any atom of a block: a point against its bounding box. */
__device__ bool atomNearBounds(const NarumiNonbondedData& d, float4 position, float4 center, float4 halfExtents) {
    bool untested;
    return boundsWithinCutoff(d, center, halfExtents, make_float4(position.x, position.y, position.z, 0.0f),
                              make_float4(0.0f, 0.0f, 0.0f, 0.0f), untested);
}

/** Superblocks (findCandidateBlocks) or candidate blocks (findNeighborTiles) a warp loads at once. */
constexpr int BLOCKS_IN_FLIGHT = 4;

/**
 * One warp per block I: the later blocks J > I whose bounding boxes come within the cutoff of I's, found superblock by
 * superblock, into I's segment of candidateBlocks.  A block with more candidates than its segment holds goes to the
 * overflow kernel (findNeighborTiles lists none for it); the largest count goes to the host, which then grows the
 * segments.
 */
__global__ void findCandidateBlocks(NarumiNonbondedData d) {
    const int blockI = (blockIdx.x * blockDim.x + threadIdx.x) / 32, lane = threadIdx.x % 32;
    if (blockI >= d.numBlocks)
        return;
    const unsigned int lowerLanes = (1u << lane) - 1;
    int* segment = d.candidateBlocks + (long long) blockI * d.candidatesPerBlockCapacity;
    const float4 centerI = d.blockCenters[blockI], halfI = d.blockHalfExtents[blockI];
    const int superblockI = blockI / 32;
    int count = 0, untestedPairs = 0;
    for (int firstSuperblock = superblockI - superblockI % 32; firstSuperblock < d.numSuperblocks; firstSuperblock += 32) {
        int superblock = firstSuperblock + lane;
        bool untested;
        unsigned int nearSuperblocks = __ballot_sync(FULL_MASK, superblock >= superblockI && superblock < d.numSuperblocks &&
            boundsWithinCutoff(d, centerI, halfI, d.superblockCenters[superblock], d.superblockHalfExtents[superblock], untested));
        while (nearSuperblocks != 0) {
            // Several superblocks at once, their blocks' bounds loaded together (one warp per block I is too few
            // warps to hide one load's latency behind another warp's).
            int blocksJ[BLOCKS_IN_FLIGHT];
            float4 centers[BLOCKS_IN_FLIGHT], halves[BLOCKS_IN_FLIGHT];
#pragma unroll
            for (int u = 0; u < BLOCKS_IN_FLIGHT; u++) {
                blocksJ[u] = nearSuperblocks != 0 ? 32 * (firstSuperblock + __ffs(nearSuperblocks) - 1) + lane : d.numBlocks;
                nearSuperblocks &= nearSuperblocks - 1;
                if (blocksJ[u] < d.numBlocks) {
                    centers[u] = d.blockCenters[blocksJ[u]];
                    halves[u] = d.blockHalfExtents[blocksJ[u]];
                }
            }
#pragma unroll
            for (int u = 0; u < BLOCKS_IN_FLIGHT; u++) {
                bool near = blocksJ[u] > blockI && blocksJ[u] < d.numBlocks && boundsWithinCutoff(d, centerI, halfI, centers[u], halves[u], untested);
                untestedPairs += __popc(__ballot_sync(FULL_MASK, near && untested));
                unsigned int nearMask = __ballot_sync(FULL_MASK, near);
                int entry = count + __popc(nearMask & lowerLanes);
                if (near && entry < d.candidatesPerBlockCapacity)
                    segment[entry] = blocksJ[u];
                count += __popc(nearMask);
            }
        }
    }
    if (lane == 0) {
        d.candidateCounts[blockI] = count;
        atomicMax(&d.status->candidatesPerBlockNeeded, count);
        if (untestedPairs != 0)
            atomicAdd(&d.status->untestedBlockPairs, (unsigned long long) untestedPairs);
    }
}

/** Warps that filter the atoms of one block I's candidates together (one thread block per block I). */
constexpr int SEARCH_WARPS = 8;
/** Atoms a search warp holds between the box test and the atom test: up to 31 left over plus one block's 32. */
constexpr int STAGED_CAPACITY = 64;

/** What the warps searching for block I's neighbours share. */
struct NeighborSearchShared {
    float4 atomsI[32];                                      // I's atoms relative to I's centre, w = |r|^2 / 2
    int stagedSlots[SEARCH_WARPS][STAGED_CAPACITY];         // candidates that passed the box test, per warp
    float4 stagedPositions[SEARCH_WARPS][STAGED_CAPACITY];  // their position relative to I's centre, w = |r|^2 / 2
    int found;                                              // entries of I's segment written (the diagonal tile first)
};

/**
 * Whether every atom within the cutoff of an atom of block I lies, in the image that the reduced minimum image of
 * its displacement from I's centre picks, within the cutoff of that atom: then the search can compare plain
 * distances to I's atoms.  True when the cutoff plus I's bounding radius is below half of every box width (the
 * reduction then cannot pick another image), and always without periodicity.
 */
__device__ bool singlePeriodicCopy(const NarumiNonbondedData& d, float4 halfI) {
    if (!d.box.periodic)
        return true;
    float reach = sqrtf(d.tileCutoff2) + halfI.w;
    return reach < 0.49f * fminf(d.box.size.x, fminf(d.box.size.y, d.box.size.z));
}

/**
 * The atom test of up to 32 staged candidates (lane l holds staged entry l, entries from `count` on are empty):
 * with filterByAtoms, a candidate is kept if it is within the cutoff of at least one of I's atoms (OpenMM's filter,
 * 26% fewer tiles on the DHFR box than the box test alone: benchmarks/tile_efficiency.py); else every candidate is
 * kept.  Kept atoms are appended to I's segment; |r_i - r_j|^2 / 2 = w_i + w_j - r_i.r_j about I's centre, where
 * all |r| are about a nm, so float rounding stays far below the cutoff's margin.
 */
__device__ void appendNearAtoms(const NarumiNonbondedData& d, NeighborSearchShared& s, int warp, int lane, int count,
                                bool filterByAtoms, int* segment, long long capacityEntries) {
    bool keep = lane < count;
    if (keep && filterByAtoms) {
        float4 r = s.stagedPositions[warp][lane];
        float halfCutoff2 = 0.5f * d.tileCutoff2;
        bool near = false;
#pragma unroll 8
        for (int k = 0; k < 32; k++) {
            float4 a = s.atomsI[k];
            float halfDistance2 = __fmaf_rn(-a.z, r.z, __fmaf_rn(-a.y, r.y, __fmaf_rn(-a.x, r.x, a.w + r.w)));
            near |= halfDistance2 < halfCutoff2;
        }
        keep = near;
    }
    unsigned int keptMask = __ballot_sync(FULL_MASK, keep);
    int base = 0;
    if (lane == 0 && keptMask != 0)
        base = atomicAdd(&s.found, __popc(keptMask));
    base = __shfl_sync(FULL_MASK, base, 0);
    int entry = base + __popc(keptMask & ((1u << lane) - 1));
    if (keep && entry < capacityEntries)
        segment[entry] = s.stagedSlots[warp][lane];
}

/**
 * One thread block per block I, SEARCH_WARPS warps: I's tiles, packed into I's segment of tileAtoms.  The first tile
 * is block I itself (the diagonal tile); then the atoms of I's candidate blocks (findCandidateBlocks, dealt out to
 * the warps in turn) that are within the cutoff of I's box and then of one of I's atoms, 32 to a tile, the last one
 * padded with -1.  Each pair of different blocks is thus listed once, by the lower block (Newton's third law in
 * computeTiles).  The atoms' order in the segment depends on the warps' timing; the integer sums of Narumi and
 * FixedPoint64 do not.  A block with more tiles than a segment holds (or more candidates) is flagged for the overflow
 * kernel and lists none; the largest count goes to the host, which then grows the segments.
 */
__global__ void __launch_bounds__(32 * SEARCH_WARPS) findNeighborTiles(NarumiNonbondedData d) {
    __shared__ NeighborSearchShared s;
    const int blockI = blockIdx.x, warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    const unsigned int lowerLanes = (1u << lane) - 1;
    const long long capacityEntries = 32LL * d.tilesPerBlockCapacity;
    int* segment = d.tileAtoms + blockI * capacityEntries;
    const int numCandidates = d.candidateCounts[blockI];
    if (numCandidates > d.candidatesPerBlockCapacity) {
        if (threadIdx.x == 0) {
            d.tileCounts[blockI] = 0;
            d.blockOverflows[blockI] = 1;
            atomicAdd(&d.status->overflowBlocks, 1ULL);
        }
        return;
    }
    const int* candidates = d.candidateBlocks + (long long) blockI * d.candidatesPerBlockCapacity;
    const float4 centerI = d.blockCenters[blockI], halfI = d.blockHalfExtents[blockI];
    const bool shiftable = singlePeriodicCopy(d, halfI);
    const bool filterByAtoms = shiftable && d.tileCutoff2 < INFINITY;
    if (warp == 0) {
        int ownSlot = 32 * blockI + lane;
        segment[lane] = ownSlot < d.numAtoms ? ownSlot : -1;  // every segment holds at least one tile
        // A missing atom of I is placed far away, where no candidate can be within the cutoff of it.
        float4 p = ownSlot < d.numAtoms ? d.slotPositions[ownSlot] : make_float4(1e6f, 1e6f, 1e6f, 0.0f);
        float3 r = make_float3(p.x - centerI.x, p.y - centerI.y, p.z - centerI.z);
        s.atomsI[lane] = make_float4(r.x, r.y, r.z, 0.5f * (r.x * r.x + r.y * r.y + r.z * r.z));
        if (lane == 0)
            s.found = 32;
    }
    __syncthreads();
    int staged = 0;  // this warp's staged candidates
    // This warp's candidates are numbers warp, warp + SEARCH_WARPS, ...: 32 of them per pass, one per lane.
    for (int pass = warp; pass < numCandidates; pass += 32 * SEARCH_WARPS) {
        int mine = pass + SEARCH_WARPS * lane;
        int myBlock = mine < numCandidates ? candidates[mine] : -1;
        int inPass = min(32, (numCandidates - pass + SEARCH_WARPS - 1) / SEARCH_WARPS);
        for (int next = 0; next < inPass; next += BLOCKS_IN_FLIGHT) {
            int slots[BLOCKS_IN_FLIGHT];
            float4 positions[BLOCKS_IN_FLIGHT];
#pragma unroll
            for (int u = 0; u < BLOCKS_IN_FLIGHT; u++) {
                int blockJ = __shfl_sync(FULL_MASK, myBlock, min(next + u, 31));
                slots[u] = next + u < inPass ? 32 * blockJ + lane : d.numAtoms;
                if (slots[u] < d.numAtoms)
                    positions[u] = d.slotPositions[slots[u]];
            }
#pragma unroll
            for (int u = 0; u < BLOCKS_IN_FLIGHT; u++) {
                // The box test; in I's frame (the image nearest I's centre) when the atom test can follow.
                bool near = false;
                float3 r = make_float3(0.0f, 0.0f, 0.0f);
                if (slots[u] < d.numAtoms) {
                    if (shiftable) {
                        r = make_float3(positions[u].x - centerI.x, positions[u].y - centerI.y, positions[u].z - centerI.z);
                        if (d.box.periodic)
                            r = narumiMinimumImage(r, d.box);
                        float gx = fmaxf(0.0f, fabsf(r.x) - halfI.x), gy = fmaxf(0.0f, fabsf(r.y) - halfI.y),
                              gz = fmaxf(0.0f, fabsf(r.z) - halfI.z);
                        near = gx * gx + gy * gy + gz * gz < d.tileCutoff2;
                    }
                    else
                        near = atomNearBounds(d, positions[u], centerI, halfI);
                }
                unsigned int nearMask = __ballot_sync(FULL_MASK, near);
                if (near) {
                    int entry = staged + __popc(nearMask & lowerLanes);
                    s.stagedSlots[warp][entry] = slots[u];
                    s.stagedPositions[warp][entry] = make_float4(r.x, r.y, r.z, 0.5f * (r.x * r.x + r.y * r.y + r.z * r.z));
                }
                staged += __popc(nearMask);
                __syncwarp();
                if (staged >= 32) {
                    appendNearAtoms(d, s, warp, lane, 32, filterByAtoms, segment, capacityEntries);
                    __syncwarp();
                    staged -= 32;
                    if (lane < staged) {
                        s.stagedSlots[warp][lane] = s.stagedSlots[warp][32 + lane];
                        s.stagedPositions[warp][lane] = s.stagedPositions[warp][32 + lane];
                    }
                    __syncwarp();
                }
            }
        }
    }
    if (staged > 0)
        appendNearAtoms(d, s, warp, lane, staged, filterByAtoms, segment, capacityEntries);
    __syncthreads();
    const int found = s.found;
    const int tiles = (found + 31) / 32;
    const bool listed = (tiles <= d.tilesPerBlockCapacity);
    if (listed)
        for (int entry = found + threadIdx.x; entry < 32 * tiles; entry += blockDim.x)
            segment[entry] = -1;
    if (threadIdx.x == 0) {
        d.tileCounts[blockI] = listed ? tiles : 0;
        d.blockOverflows[blockI] = !listed;
        atomicMax(&d.status->tilesPerBlockNeeded, tiles);
        if (!listed)
            atomicAdd(&d.status->overflowBlocks, 1ULL);
        if (!filterByAtoms && d.tileCutoff2 < INFINITY)
            atomicAdd(&d.status->unfilteredBlocks, 1ULL);
    }
}

// ---- pairs ------------------------------------------------------------------------------------------------------

/** One thread's atom (slot i) and the sums of its force components and pair energies. */
template <class Accumulator>
struct AtomSums {
    int slot;
    float4 position;    // NaN for a padding slot past the last atom, so that every r^2 < cutoff^2 test fails
    float2 lennardJones;
    float4 blockCenter, blockHalfExtents;   // of the atom's block I
    Accumulator fx, fy, fz;

    __device__ void load(const NarumiNonbondedData& d, int newSlot) {
        slot = newSlot;
        position = slot < d.numAtoms ? d.slotPositions[slot] : make_float4(NAN, NAN, NAN, 0.0f);
        lennardJones = d.slotLennardJones[slot];
        blockCenter = d.blockCenters[slot / 32];
        blockHalfExtents = d.blockHalfExtents[slot / 32];
        fx.zero();
        fy.zero();
        fz.zero();
    }
    __device__ void flush(const NarumiNonbondedData& d) {
        if (slot >= d.numAtoms)
            return;
        int posqIndex = d.slotPosqIndex[slot];
        fx.flushForce(d.sums, posqIndex, 0);
        fy.flushForce(d.sums, posqIndex, 1);
        fz.flushForce(d.sums, posqIndex, 2);
    }
};

/** A warp's staged tile in shared memory: the 32 partner atoms j and, for a cross tile, their force sums. */
template <class Accumulator>
struct TileStage {
    float4 positions[32];   // NaN for no atom
    float2 lennardJones[32];
    int posqIndices[32];
    typename Accumulator::Partner partnerSums[3][32];   // per component, so that rotating accesses hit distinct banks
};

/** The pair force on i (from j at displacement delta = r_j - r_i) and its energy, from the shared pair function. */
template <int COULOMB, int SWITCH>
__device__ inline float3 pairForce(const NarumiNonbondedData& d, float4 position, float2 lennardJones, float4 other,
                                   float2 otherLennardJones, float3 delta, float r2, float& pairEnergy) {
    float kq = __fmul_rn(position.w, other.w);
    float sigma = __fadd_rn(lennardJones.x, otherLennardJones.x);
    float eps4 = __fmul_rn(lennardJones.y, otherLennardJones.y);
    float dEdrOverR;
    pairEnergy = narumiPairEnergy<COULOMB, SWITCH>(d.pair, r2, kq, sigma, eps4, dEdrOverR);
    return make_float3(__fmul_rn(dEdrOverR, delta.x), __fmul_rn(dEdrOverR, delta.y), __fmul_rn(dEdrOverR, delta.z));
}

/**
 * The diagonal tile (block I with itself) from i's side: lane's atom i against the 32 staged atoms (staged atom k is
 * the block's atom k), every pair met from both of its atoms, the energy added by the lower one.  With minimumImage
 * = false every displacement is taken as it is, which is bit for bit the minimum image whenever no component
 * reaches half the box (the image shift rint(d / L) is then 0), as accumulateTile checks.  No exclusion test: every
 * pair inside the cutoff counts.
 */
template <class Accumulator, bool computeEnergy, bool minimumImage, int COULOMB, int SWITCH>
__device__ void accumulateDiagonalPairs(const NarumiNonbondedData& d, AtomSums<Accumulator>& atom, Accumulator& energy,
                                        const TileStage<Accumulator>& stage) {
    const int lane = threadIdx.x % 32;
    const float cutoff2 = d.pair.cutoff2;
    for (int k = 0; k < 32; k++) {
        float4 other = stage.positions[k];
        float3 delta = make_float3(__fsub_rn(other.x, atom.position.x), __fsub_rn(other.y, atom.position.y), __fsub_rn(other.z, atom.position.z));
        if (minimumImage)
            delta = narumiMinimumImage(delta, d.box);
        float r2 = narumiSquaredLength(delta);
        if (r2 < cutoff2 && k != lane) {
            float pairEnergy;
            float3 force = pairForce<COULOMB, SWITCH>(d, atom.position, atom.lennardJones, other, stage.lennardJones[k], delta, r2, pairEnergy);
            addVector(atom.fx, atom.fy, atom.fz, force);
            if (computeEnergy && lane < k)
                energy.add(pairEnergy);
        }
    }
}

/**
 * A cross tile (block I against atoms of later blocks), each pair once: at step k lane i meets partner
 * j = (i + k) mod 32, so the 32 lanes touch 32 different partners and j's share, exactly minus i's (the pair
 * function is odd in delta), goes to j's sums in shared memory without atomics.  __syncwarp orders one step's
 * writes before the next step's reads of the same partner by the neighbouring lane.  (Handing j's sums round the
 * warp by shuffles instead, or computing every lane's pair without a branch on the cutoff, measured no faster.)
 */
template <class Accumulator, bool computeEnergy, bool minimumImage, int COULOMB, int SWITCH>
__device__ void accumulateCrossPairs(const NarumiNonbondedData& d, AtomSums<Accumulator>& atom, Accumulator& energy,
                                     TileStage<Accumulator>& stage, int& errors) {
    const int lane = threadIdx.x % 32;
    const float cutoff2 = d.pair.cutoff2;
#pragma unroll 2
    for (int k = 0; k < 32; k++) {
        int j = (lane + k) & 31;
        float4 other = stage.positions[j];
        float3 delta = make_float3(__fsub_rn(other.x, atom.position.x), __fsub_rn(other.y, atom.position.y), __fsub_rn(other.z, atom.position.z));
        if (minimumImage)
            delta = narumiMinimumImage(delta, d.box);
        float r2 = narumiSquaredLength(delta);
        if (r2 < cutoff2) {
            float pairEnergy;
            float3 force = pairForce<COULOMB, SWITCH>(d, atom.position, atom.lennardJones, other, stage.lennardJones[j], delta, r2, pairEnergy);
            addPairForce(atom.fx, atom.fy, atom.fz, stage.partnerSums[0][j], stage.partnerSums[1][j], stage.partnerSums[2][j], force,
                         d.sums, stage.posqIndices[j], errors);
            if (computeEnergy)
                energy.add(pairEnergy);
        }
        __syncwarp();
    }
}

/**
 * One tile for one warp: every lane's atom i of block I against 32 other atoms (otherSlot of each lane; -1: none),
 * staged in shared memory.  The diagonal tile (I with itself) is computed from both sides of each pair; a cross
 * tile once per pair, with the partners' sums merged into the global sums at its end.  In a periodic box the
 * minimum-image arithmetic is skipped for a tile whose staged atoms all lie, along every axis, within 0.49 box
 * lengths of every point of I's bounding box: no displacement of the tile needs an image shift.
 */
template <class Accumulator, bool computeEnergy, int COULOMB, int SWITCH>
__device__ void accumulateTile(const NarumiNonbondedData& d, int otherSlot, bool diagonal, AtomSums<Accumulator>& atom,
                               Accumulator& energy, TileStage<Accumulator>& stage, int& errors) {
    const int lane = threadIdx.x % 32;
    // A missing atom sits at NaN: its r^2 < cutoff^2 test fails, so the pair loops need no test of the slot.
    float4 position = otherSlot >= 0 ? d.slotPositions[otherSlot] : make_float4(NAN, NAN, NAN, 0.0f);
    int posqIndex = otherSlot >= 0 ? d.slotPosqIndex[otherSlot] : -1;
    __syncwarp();
    stage.positions[lane] = position;
    stage.lennardJones[lane] = otherSlot >= 0 ? d.slotLennardJones[otherSlot] : make_float2(0.0f, 0.0f);
    stage.posqIndices[lane] = posqIndex;
    for (int c = 0; c < 3; c++)
        stage.partnerSums[c][lane] = Accumulator::partnerZero();
    __syncwarp();
    bool needsImages = false;
    if (d.box.periodic) {
        const float4& c = atom.blockCenter;
        const float4& h = atom.blockHalfExtents;
        bool inside = otherSlot < 0 || (fabsf(position.x - c.x) + h.x < 0.49f * d.box.size.x &&
                                        fabsf(position.y - c.y) + h.y < 0.49f * d.box.size.y &&
                                        fabsf(position.z - c.z) + h.z < 0.49f * d.box.size.z);
        needsImages = !__all_sync(FULL_MASK, inside);
    }
    if (diagonal) {
        if (needsImages)
            accumulateDiagonalPairs<Accumulator, computeEnergy, true, COULOMB, SWITCH>(d, atom, energy, stage);
        else
            accumulateDiagonalPairs<Accumulator, computeEnergy, false, COULOMB, SWITCH>(d, atom, energy, stage);
    }
    else {
        if (needsImages)
            accumulateCrossPairs<Accumulator, computeEnergy, true, COULOMB, SWITCH>(d, atom, energy, stage, errors);
        else
            accumulateCrossPairs<Accumulator, computeEnergy, false, COULOMB, SWITCH>(d, atom, energy, stage, errors);
        if (otherSlot >= 0)
            for (int c = 0; c < 3; c++)
                Accumulator::flushPartner(stage.partnerSums[c][lane], d.sums, posqIndex, c, errors);
    }
    // At most 32 additions per tile, within NARUMI_CARRY_INTERVAL.
    atom.fx.carry();
    atom.fy.carry();
    atom.fz.carry();
    if (computeEnergy)
        energy.carry();
}

/** The block whose segment holds tile t of the list: the last I with tileOffsets[I] <= t (blocks may list none). */
__device__ int blockOfTile(const NarumiNonbondedData& d, int t) {
    int low = 0, high = d.numBlocks;  // tileOffsets[low] <= t < tileOffsets[high]
    while (high - low > 1) {
        int middle = (low + high) / 2;
        if (d.tileOffsets[middle] <= t)
            low = middle;
        else
            high = middle;
    }
    return low;
}

/**
 * Each warp takes one contiguous run of the tile list, so an atom's sums stay in registers across its tiles.  One
 * copy per Coulomb form and switching (COULOMB, SWITCH): a run-time branch on either in the pair loop costs about 10%.
 */
template <class Accumulator, bool computeEnergy, int COULOMB, int SWITCH>
__global__ void NARUMI_TILE_LAUNCH_BOUNDS computeTiles(NarumiNonbondedData d) {
    __shared__ TileStage<Accumulator> stages[WARPS_PER_BLOCK];
    int warpInBlock = threadIdx.x / 32, lane = threadIdx.x % 32;
    int warp = blockIdx.x * WARPS_PER_BLOCK + warpInBlock, numWarps = gridDim.x * WARPS_PER_BLOCK;
    int numTiles = d.tileOffsets[d.numBlocks];
    int perWarp = (numTiles + numWarps - 1) / numWarps;
    int begin = warp * perWarp, end = min(begin + perWarp, numTiles);
    if (begin >= end)
        return;
    AtomSums<Accumulator> atom;
    Accumulator energy;
    energy.zero();
    int errors = 0;
    int blockI = blockOfTile(d, begin);
    atom.load(d, blockI * 32 + lane);
    for (int t = begin; t < end; t++) {
        if (t >= d.tileOffsets[blockI + 1]) {
            atom.flush(d);
            while (t >= d.tileOffsets[blockI + 1])
                blockI++;
            atom.load(d, blockI * 32 + lane);
        }
        int tileOfBlock = t - d.tileOffsets[blockI];
        long long entry = 32LL * ((long long) blockI * d.tilesPerBlockCapacity + tileOfBlock) + lane;
        accumulateTile<Accumulator, computeEnergy, COULOMB, SWITCH>(d, d.tileAtoms[entry], tileOfBlock == 0, atom, energy,
                                                                    stages[warpInBlock], errors);
    }
    atom.flush(d);
    if (computeEnergy)
        energy.flushEnergy(d.sums);
    if (errors != 0)
        atomicOr(d.sums.errorFlags, errors);
}

/** Blocks whose tiles did not all fit into the list: one warp per block I, against itself and whole later blocks J near it. */
template <class Accumulator, bool computeEnergy>
__global__ void NARUMI_TILE_LAUNCH_BOUNDS computeOverflowTiles(NarumiNonbondedData d) {
    __shared__ TileStage<Accumulator> stages[WARPS_PER_BLOCK];
    int warpInBlock = threadIdx.x / 32, lane = threadIdx.x % 32;
    int blockI = blockIdx.x * WARPS_PER_BLOCK + warpInBlock;
    if (blockI >= d.numBlocks || !d.blockOverflows[blockI])
        return;
    AtomSums<Accumulator> atom;
    atom.load(d, blockI * 32 + lane);
    Accumulator energy;
    energy.zero();
    int errors = 0;
    for (int first = blockI - blockI % 32; first < d.numBlocks; first += 32) {
        int blockJ = first + lane;
        unsigned int mask = __ballot_sync(FULL_MASK, blockJ >= blockI && blockJ < d.numBlocks && blocksInteract(d, blockI, blockJ));
        while (mask != 0) {
            int tileBlock = first + __ffs(mask) - 1;
            mask &= mask - 1;
            int slot = tileBlock * 32 + lane;
            accumulateTile<Accumulator, computeEnergy, NARUMI_COULOMB_ANY, NARUMI_SWITCH_ANY>(d, slot < d.numAtoms ? slot : -1, tileBlock == blockI,
                                                                                             atom, energy, stages[warpInBlock], errors);
        }
    }
    atom.flush(d);
    if (computeEnergy)
        energy.flushEnergy(d.sums);
    if (errors != 0)
        atomicOr(d.sums.errorFlags, errors);
}

// ---- exclude afterwards -----------------------------------------------------------------------------------------

/**
 * One thread per exception pair (a, b).  First the pair's contribution from computeTiles is removed: the same
 * float inputs and the same pair function give the same force F bit for bit, and the accumulator's term(F) is
 * exactly what add(F) contributed, so for Narumi and FixedPoint64 the pair vanishes without a trace.  Then the
 * exception's own interaction (plain Coulomb + LJ, no cutoff) is added, from posq in its own precision.  Both go
 * to each atom in one atomic (term(E) - term(F) is exact for the integer methods); the energy is summed over the
 * warp first, so that 32 exceptions cost one atomic on the single energy word instead of 64.
 */
template <class Accumulator, class PosT, bool computeEnergy>
__global__ void correctExceptions(NarumiNonbondedData d) {
    using Term = typename Accumulator::Term;
    const PosT* posq = (const PosT*) d.posq;
    int errors = 0;
    Term energy = 0;
    // Every thread runs the same number of iterations, so that the whole warp reaches the shuffles below.
    int stride = gridDim.x * blockDim.x;
    for (int first = blockIdx.x * blockDim.x; first < d.numExceptions; first += stride) {
        int index = first + threadIdx.x;
        if (index >= d.numExceptions)
            continue;
        int2 atoms = d.exceptionAtoms[index];
        int slotA = d.slotOfAtom[atoms.x], slotB = d.slotOfAtom[atoms.y];
        int posqA = d.slotPosqIndex[slotA], posqB = d.slotPosqIndex[slotB];
        float4 positionA = d.slotPositions[slotA], positionB = d.slotPositions[slotB];
        Term removed[3] = {0, 0, 0}, added[3] = {0, 0, 0};

        float3 delta = narumiDisplacement(positionA, positionB, d.box);
        float r2 = narumiSquaredLength(delta);
        if (r2 < d.pair.cutoff2) {
            float2 ljA = d.slotLennardJones[slotA], ljB = d.slotLennardJones[slotB];
            float kq = __fmul_rn(positionA.w, positionB.w);
            float sigma = __fadd_rn(ljA.x, ljB.x);
            float eps4 = __fmul_rn(ljA.y, ljB.y);
            float dEdrOverR;
            float pairEnergy = narumiPairEnergy(d.pair, r2, kq, sigma, eps4, dEdrOverR);
            // Atom a received term(F); atom b, from its own side, term(-F) = -term(F).
            removed[0] = Accumulator::term(__fmul_rn(dEdrOverR, delta.x), errors);
            removed[1] = Accumulator::term(__fmul_rn(dEdrOverR, delta.y), errors);
            removed[2] = Accumulator::term(__fmul_rn(dEdrOverR, delta.z), errors);
            if (computeEnergy)
                energy -= Accumulator::term(pairEnergy, errors);
        }

        float4 parameters = d.exceptionParameters[index];
        if (parameters.x != 0.0f || parameters.z != 0.0f) {  // else an exclusion: nothing to add
            if (!d.exceptionsUsePeriodic) {
                auto ra = loadPosition(posq, posqA), rb = loadPosition(posq, posqB);
                delta = make_float3((float) (rb.x - ra.x), (float) (rb.y - ra.y), (float) (rb.z - ra.z));
            }
            float dEdrOverR;
            float exceptionEnergy = narumiExceptionEnergy(narumiSquaredLength(delta), parameters.x, parameters.y, parameters.z, dEdrOverR);
            added[0] = Accumulator::term(__fmul_rn(dEdrOverR, delta.x), errors);
            added[1] = Accumulator::term(__fmul_rn(dEdrOverR, delta.y), errors);
            added[2] = Accumulator::term(__fmul_rn(dEdrOverR, delta.z), errors);
            if (computeEnergy)
                energy += Accumulator::term(exceptionEnergy, errors);
        }
        for (int c = 0; c < 3; c++) {
            Term net = added[c] - removed[c];
            if (net != 0) {
                Accumulator::addForceTerm(d.sums, posqA, c, net);
                Accumulator::addForceTerm(d.sums, posqB, c, -net);
            }
        }
    }
    if (errors != 0)
        atomicOr(d.sums.errorFlags, errors);
    if (computeEnergy) {
        for (int offset = 16; offset > 0; offset /= 2)
            energy += __shfl_down_sync(FULL_MASK, energy, offset);
        if (threadIdx.x % 32 == 0 && energy != 0)
            Accumulator::addEnergyTerm(d.sums, energy);
    }
}

// ---- finish -----------------------------------------------------------------------------------------------------

/** Methods A to E: their float/double force sums into OpenMM's fixed-point buffer (then cleared for next time). */
__global__ void mergeFloatingForces(NarumiNonbondedData d, int useDouble) {
    for (int atom = blockIdx.x * blockDim.x + threadIdx.x; atom < d.numAtoms; atom += gridDim.x * blockDim.x)
        for (int c = 0; c < 3; c++) {
            int index = atom + c * d.sums.paddedNumAtoms;
            double value = useDouble ? d.sums.forceDouble[index] : (double) d.sums.forceFloat[index];
            if (useDouble)
                d.sums.forceDouble[index] = 0.0;
            else
                d.sums.forceFloat[index] = 0.0f;
            if (!(fabs(value) < 2147483648.0))
                atomicOr(d.sums.errorFlags, NARUMI_ERROR_TERM_RANGE);
            else
                d.sums.forceFixed[index] += (unsigned long long) __double2ll_rn(value * 4294967296.0);
        }
}

/** The energy of every method into OpenMM's energy buffer; the sums are cleared, the tile count published. */
template <class EnergyT>
__global__ void finishEnergy(NarumiNonbondedData d, int includeEnergy) {
    if (blockIdx.x != 0 || threadIdx.x != 0)
        return;
    double energy = (double) (long long) *d.sums.energyFixed / 4294967296.0 + (double) *d.sums.energyFloat + *d.sums.energyDouble;
    if (includeEnergy)
        ((EnergyT*) d.energyBuffer)[0] += (EnergyT) energy;
    *d.sums.energyFixed = 0;
    *d.sums.energyFloat = 0.0f;
    *d.sums.energyDouble = 0.0;
    d.status->evaluations++;
    d.status->listedTiles += (unsigned long long) d.tileOffsets[d.numBlocks];
}

// ---- launching --------------------------------------------------------------------------------------------------

/** Thread blocks of a full wave of the current GPU for a pair kernel (cached per kernel and device). */
template <class Accumulator, bool computeEnergy, int COULOMB, int SWITCH>
int computeTilesGrid() {
    static int cachedDevice = -1, cachedBlocks = 0;
    int device;
    check(cudaGetDevice(&device), "cudaGetDevice");
    if (device != cachedDevice) {
        int multiprocessors, blocksPerMultiprocessor;
        check(cudaDeviceGetAttribute(&multiprocessors, cudaDevAttrMultiProcessorCount, device), "reading the multiprocessor count");
        check(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocksPerMultiprocessor, computeTiles<Accumulator, computeEnergy, COULOMB, SWITCH>,
                                                            THREADS, 0), "reading the occupancy");
        cachedBlocks = multiprocessors * std::max(1, blocksPerMultiprocessor);
        cachedDevice = device;
    }
    return cachedBlocks;
}

template <class Accumulator, bool computeEnergy, int COULOMB>
void launchComputeTiles(const NarumiNonbondedData& d, cudaStream_t stream) {
    if (d.pair.useSwitch)
        computeTiles<Accumulator, computeEnergy, COULOMB, 1><<<computeTilesGrid<Accumulator, computeEnergy, COULOMB, 1>(), THREADS, 0, stream>>>(d);
    else
        computeTiles<Accumulator, computeEnergy, COULOMB, 0><<<computeTilesGrid<Accumulator, computeEnergy, COULOMB, 0>(), THREADS, 0, stream>>>(d);
}

template <class Accumulator, class PosT, bool computeEnergy>
void launchPairKernels(const NarumiNonbondedData& d, cudaStream_t stream, NarumiStageTimer* timer) {
    switch (d.pair.coulombKind) {
    case NARUMI_COULOMB_NONE:
        launchComputeTiles<Accumulator, computeEnergy, NARUMI_COULOMB_NONE>(d, stream);
        break;
    case NARUMI_COULOMB_PLAIN:
        launchComputeTiles<Accumulator, computeEnergy, NARUMI_COULOMB_PLAIN>(d, stream);
        break;
    case NARUMI_COULOMB_REACTION_FIELD:
        launchComputeTiles<Accumulator, computeEnergy, NARUMI_COULOMB_REACTION_FIELD>(d, stream);
        break;
    default:
        launchComputeTiles<Accumulator, computeEnergy, NARUMI_COULOMB_SHIFTED>(d, stream);
    }
    markStage(timer, "computeTiles", stream);
    computeOverflowTiles<Accumulator, computeEnergy><<<blocksFor((long long) d.numBlocks * 32), THREADS, 0, stream>>>(d);
    markStage(timer, "computeOverflowTiles", stream);
    if (d.numExceptions > 0)
        correctExceptions<Accumulator, PosT, computeEnergy><<<blocksFor(d.numExceptions), THREADS, 0, stream>>>(d);
    markStage(timer, "correctExceptions", stream);
}

template <class Accumulator, class PosT>
void launchPairKernels(const NarumiNonbondedData& d, bool includeEnergy, cudaStream_t stream, NarumiStageTimer* timer) {
    if (includeEnergy)
        launchPairKernels<Accumulator, PosT, true>(d, stream, timer);
    else
        launchPairKernels<Accumulator, PosT, false>(d, stream, timer);
}

template <class PosT>
void launchAll(const NarumiNonbondedData& d, NarumiAccumulation method, bool includeEnergy, bool energyIsDouble, bool resort,
               cudaStream_t stream, NarumiStageTimer* timer) {
    if (timer != nullptr)
        timer->start(stream);
    size_t bytes = d.cubStorageBytes;
    if (resort) {
        computeSortKeys<PosT><<<blocksFor(d.numAtoms), THREADS, 0, stream>>>(d);
        check(cub::DeviceRadixSort::SortPairs(d.cubStorage, bytes, d.sortKeys, d.sortedKeys, d.sortValues, d.slotPosqIndex,
                                              d.numAtoms, 0, 30, stream), "sorting atoms");
        markStage(timer, "computeSortKeys+sort", stream);
    }
    gatherSlotsAndBounds<PosT><<<d.numSuperblocks, SUPERBLOCK_THREADS, 0, stream>>>(d, !resort);
    markStage(timer, "gatherSlotsAndBounds", stream);
    findCandidateBlocks<<<blocksFor((long long) d.numBlocks * 32), THREADS, 0, stream>>>(d);
    markStage(timer, "findCandidateBlocks", stream);
    findNeighborTiles<<<d.numBlocks, 32 * SEARCH_WARPS, 0, stream>>>(d);
    markStage(timer, "findNeighborTiles", stream);
    bytes = d.cubStorageBytes;
    check(cub::DeviceScan::ExclusiveSum(d.cubStorage, bytes, d.tileCounts, d.tileOffsets, d.numBlocks + 1, stream), "scanning tile counts");
    markStage(timer, "scanTileCounts", stream);
    switch (method) {
    case NarumiAccumulation::Narumi:
        launchPairKernels<NarumiTermAccumulator, PosT>(d, includeEnergy, stream, timer);
        break;
    case NarumiAccumulation::SingleFloat:
        launchPairKernels<SingleFloatTermAccumulator, PosT>(d, includeEnergy, stream, timer);
        break;
    case NarumiAccumulation::DoubleFloat:
        launchPairKernels<DoubleFloatTermAccumulator, PosT>(d, includeEnergy, stream, timer);
        break;
    case NarumiAccumulation::FixedPoint64:
        launchPairKernels<FixedPoint64TermAccumulator, PosT>(d, includeEnergy, stream, timer);
        break;
    case NarumiAccumulation::TakahashiIitaka:
        launchPairKernels<TakahashiIitakaTermAccumulator, PosT>(d, includeEnergy, stream, timer);
        break;
    case NarumiAccumulation::Nitadori:
        launchPairKernels<NitadoriTermAccumulator, PosT>(d, includeEnergy, stream, timer);
        break;
    case NarumiAccumulation::ModifiedNitadori:
        launchPairKernels<ModifiedNitadoriTermAccumulator, PosT>(d, includeEnergy, stream, timer);
        break;
    }
    if (method == NarumiAccumulation::SingleFloat || narumiSumsForcesInDouble(method))
        mergeFloatingForces<<<blocksFor(d.numAtoms), THREADS, 0, stream>>>(d, narumiSumsForcesInDouble(method));
    if (energyIsDouble)
        finishEnergy<double><<<1, 32, 0, stream>>>(d, includeEnergy);
    else
        finishEnergy<float><<<1, 32, 0, stream>>>(d, includeEnergy);
    markStage(timer, "merge+finishEnergy", stream);
    check(cudaGetLastError(), "launching the nonbonded kernels");
    if (timer != nullptr)
        timer->finish();
}

} // namespace

size_t narumiCubStorageBytes(int numAtoms, int numBlocks) {
    size_t sortBytes = 0, scanBytes = 0;
    check(cub::DeviceRadixSort::SortPairs(nullptr, sortBytes, (unsigned int*) nullptr, (unsigned int*) nullptr, (int*) nullptr,
                                          (int*) nullptr, numAtoms, 0, 30), "sizing the sort");
    check(cub::DeviceScan::ExclusiveSum(nullptr, scanBytes, (int*) nullptr, (int*) nullptr, numBlocks + 1), "sizing the scan");
    return std::max(sortBytes, scanBytes);
}


void narumiLaunchNonbonded(const NarumiNonbondedData& data, NarumiAccumulation method, bool includeEnergy, bool posqIsDouble,
                           bool energyIsDouble, bool resort, cudaStream_t stream, NarumiStageTimer* timer) {
    if (posqIsDouble)
        launchAll<PositionCharge64>(data, method, includeEnergy, energyIsDouble, resort, stream, timer);
    else
        launchAll<float4>(data, method, includeEnergy, energyIsDouble, resort, stream, timer);
}

} // namespace NarumiPlugin
