/**
 * The neighbour list, a half list of every pair within cutoff + skin, rebuilt only when an atom has moved more than
 * half the skin since it was built, or after a sort (the device's rebuildList word; else the kernel returns at once).
 * Only the blocks I of [listBlockBegin, listBlockEnd) get tiles: on several devices each lists about its own share.
 *
 * findNeighborTiles, one launch of one full wave of thread blocks of 8 warps, or of 4 on a long list (narumiSearchWarps;
 * an evaluation that keeps the list costs one short launch), in two phases that overlap:
 *   candidates   each warp takes blocks I from a counter: the later blocks whose boxes come within the cutoff of I's
 *   tiles        then each thread block takes blocks I from a second counter, waits until I's candidates are
 *                published, and lists the atoms of those candidates within the cutoff of one of I's atoms, packed 32
 *                to a tile in I's segment of the list, nearest first;
 * and its last thread block to finish scans tileCounts into tileOffsets (the tiles' numbers, read by computeTiles).
 * A thread block reaches the second phase only when every candidate task has been taken by a running warp, so its
 * wait always ends.
 */

#include "NarumiBoundsTests.cuh"
#include "NarumiKernelConstants.cuh"
#include "NarumiNonbondedStages.h"
#include "NarumiPairInteraction.cuh"
#include <cub/block/block_radix_sort.cuh>
#include <cub/block/block_scan.cuh>

namespace OpenMMNarumi {

namespace {

/**
 * Warps that filter the atoms of one block I's candidates together (one thread block per block I, the kernel's
 * template parameter): 8, or 4 for a list of many blocks (narumiSearchWarps).
 */
constexpr int FEW_SEARCH_WARPS = 4, MANY_SEARCH_WARPS = 8;
/** Atoms a search warp holds between the box test and the atom test: up to 31 left over plus one block's 32. */
constexpr int STAGED_CAPACITY = 64;

/** What the warps searching for block I's neighbours share. */
template <int SEARCH_WARPS>
struct NeighborSearchShared {
    float4 atomsI[32];                                      // I's atoms relative to I's centre, w = |r|^2 / 2
    int stagedSlots[SEARCH_WARPS][STAGED_CAPACITY];         // candidates that passed the box test, per warp
    float4 stagedPositions[SEARCH_WARPS][STAGED_CAPACITY];  // their position relative to I's centre, w = |r|^2 / 2
    int blockI;                                             // the block this thread block lists now
    int found;                                              // entries of I's segment written (the diagonal tile first)
};

/**
 * One warp's candidate task: the later blocks J > I whose bounding boxes come within the cutoff of I's, found superblock
 * by superblock, into I's segment of candidateBlocks, their number into candidateCounts[I] (more than the segment
 * holds makes I an overflow block), then published to the tiles phase: candidatesReady[I] = epoch.
 */
__device__ void listCandidateBlocks(const NarumiNonbondedData& d, int blockI, int epoch, int lane) {
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
            // Several superblocks at once, their blocks' bounds loaded together (one warp's loads in flight together).
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
    __threadfence();  // the segment before the flag
    __syncwarp();
    if (lane == 0) {
        d.candidateCounts[blockI] = count;
        __threadfence();
        atomicExch(&d.candidatesReady[blockI], epoch);
        atomicMax(&d.status->candidatesPerBlockNeeded, count);
        if (untestedPairs != 0)
            atomicAdd(&d.status->untestedBlockPairs, (unsigned long long) untestedPairs);
    }
}

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
 * Classes of an atom's distance to block I in which findNeighborTiles orders I's partners (the 4 bits above the slot:
 * one pass of the radix sort; 16 classes execute as few rotation steps as 64 in the model).
 */
constexpr int DISTANCE_CLASSES = 1 << (32 - NARUMI_LIST_SLOT_BITS);
/** A listed entry's slot, without its distance class. */
constexpr unsigned int LIST_SLOT_MASK = (1u << NARUMI_LIST_SLOT_BITS) - 1;

/**
 * The atom test of up to 32 staged candidates (lane l holds staged entry l, entries from `count` on are empty):
 * with filterByAtoms, a candidate is kept if it is within the cutoff of at least one of I's atoms (OpenMM's filter,
 * 26% fewer tiles on the DHFR box than the box test alone: benchmarks/tile_efficiency.py); else every candidate is
 * kept.  Kept atoms are appended to I's segment with their distance class above the slot: the squared distance to
 * the nearest of I's atoms in DISTANCE_CLASSES steps of the list's cutoff squared (0 without the filter).
 * |r_i - r_j|^2 / 2 = w_i + w_j - r_i.r_j about I's centre, where all |r| are about a nm, so float rounding stays far
 * below the cutoff's margin.
 */
template <class Shared>
__device__ void appendNearAtoms(const NarumiNonbondedData& d, Shared& s, int warp, int lane, int count,
                                bool filterByAtoms, int* segment, long long capacityEntries) {
    bool keep = lane < count;
    int distanceClass = 0;
    if (keep && filterByAtoms) {
        float4 r = s.stagedPositions[warp][lane];
        float halfCutoff2 = 0.5f * d.tileCutoff2;
        float nearest = INFINITY;
#pragma unroll 8
        for (int k = 0; k < 32; k++) {
            float4 a = s.atomsI[k];
            nearest = fminf(nearest, __fmaf_rn(-a.z, r.z, __fmaf_rn(-a.y, r.y, __fmaf_rn(-a.x, r.x, a.w + r.w))));
        }
        keep = nearest < halfCutoff2;
        distanceClass = min(DISTANCE_CLASSES - 1, (int) (fmaxf(nearest, 0.0f) / halfCutoff2 * DISTANCE_CLASSES));
    }
    unsigned int keptMask = __ballot_sync(FULL_MASK, keep);
    int base = 0;
    if (lane == 0 && keptMask != 0)
        base = atomicAdd(&s.found, __popc(keptMask));
    base = __shfl_sync(FULL_MASK, base, 0);
    int entry = base + __popc(keptMask & ((1u << lane) - 1));
    if (keep && entry < capacityEntries)
        segment[entry] = s.stagedSlots[warp][lane] | distanceClass << NARUMI_LIST_SLOT_BITS;
}

/**
 * The partner sort of a thread block of SEARCH_WARPS warps: up to SHORT_PARTNERS (32 tiles; most blocks of a 1.0 nm
 * cutoff's list) a short sort, up to SORTED_PARTNERS a long one, whatever the number of warps.
 */
template <int SEARCH_WARPS>
struct PartnerSorts {
    static constexpr int SHORT_PARTNERS = 1024, SORTED_PARTNERS = 2048;
    static constexpr int SHORT_ITEMS = SHORT_PARTNERS / (32 * SEARCH_WARPS), LONG_ITEMS = SORTED_PARTNERS / (32 * SEARCH_WARPS);
    using Short = cub::BlockRadixSort<unsigned int, 32 * SEARCH_WARPS, SHORT_ITEMS>;
    using Long = cub::BlockRadixSort<unsigned int, 32 * SEARCH_WARPS, LONG_ITEMS>;
    union Storage {
        typename Short::TempStorage shortSort;
        typename Long::TempStorage longSort;
    };
};

/**
 * Block I's numPartners entries in order of their distance class (stable: the padding past them sorts last), and
 * within a class by slot where slotBits > 0: the class is then moved down onto the slotBits bits that slots below
 * numAtoms use, so that the radix sort takes slotBits + 4 bits (6 passes at 394k atoms) rather than all 32 (8).
 */
template <class PartnerSort, int ITEMS>
__device__ void sortEntriesByClass(typename PartnerSort::TempStorage& storage, int* partners, int numPartners, int slotBits) {
    unsigned int entries[ITEMS];
    for (int k = 0; k < ITEMS; k++) {
        int index = ITEMS * threadIdx.x + k;
        unsigned int entry = index < numPartners ? (unsigned int) partners[index] : ~0u;
        entries[k] = slotBits > 0 ? (entry >> NARUMI_LIST_SLOT_BITS) << slotBits | (entry & LIST_SLOT_MASK) : entry;
    }
    const int classBits = 32 - NARUMI_LIST_SLOT_BITS;
    PartnerSort(storage).Sort(entries, slotBits > 0 ? 0 : NARUMI_LIST_SLOT_BITS, slotBits > 0 ? slotBits + classBits : 32);
    const unsigned int slotMask = slotBits > 0 ? (1u << slotBits) - 1 : LIST_SLOT_MASK;
    for (int k = 0; k < ITEMS; k++) {
        int index = ITEMS * threadIdx.x + k;
        if (index < numPartners)
            partners[index] = (int) (entries[k] & slotMask);
    }
}

/**
 * Block I's partners (entries [32, 32 + numPartners) of its segment) in order of their distance class, nearest first,
 * the classes then cleared: the atoms that only the skin brought in fill the last tiles, whose rotation steps mostly
 * find no pair inside the cutoff, so that the warp skips them (benchmarks/tile_efficiency.py --partner-orders: 18%
 * fewer steps executed on the DHFR box).  More partners than SORTED_PARTNERS keep their order; Narumi's and FixedPoint64's
 * sums are exact, so the order changes no bit of the result.  bySlot (TileSums, whose float sums of a tile depend on
 * the tile's atoms) orders a class by slot too, so that the tiles do not depend on the warps' timing.
 */
template <int SEARCH_WARPS>
__device__ void sortPartnersByDistance(int* segment, int numPartners, bool bySlot, int numAtoms) {
    using Sorts = PartnerSorts<SEARCH_WARPS>;
    __shared__ typename Sorts::Storage storage;
    int* partners = segment + 32;
    const int slotBits = bySlot ? 32 - __clz(max(numAtoms - 1, 1)) : 0;  // the bits of the largest slot
    if (numPartners <= Sorts::SHORT_PARTNERS)
        sortEntriesByClass<typename Sorts::Short, Sorts::SHORT_ITEMS>(storage.shortSort, partners, numPartners, slotBits);
    else if (numPartners <= Sorts::SORTED_PARTNERS)
        sortEntriesByClass<typename Sorts::Long, Sorts::LONG_ITEMS>(storage.longSort, partners, numPartners, slotBits);
    else
        for (int index = threadIdx.x; index < numPartners; index += blockDim.x)
            partners[index] &= LIST_SLOT_MASK;
}

/**
 * A block whose tiles or candidates do not fit into its segment: the pair kernel computes it whole.  The new list's
 * overflow blocks are counted in overflowListPending, which the last thread block publishes as overflowListCount.
 */
__device__ inline void listOverflowBlock(const NarumiNonbondedData& d, int blockI) {
    d.tileCounts[blockI] = 0;
    d.overflowBlocks[atomicAdd(&d.status->overflowListPending, 1)] = blockI;
    atomicAdd(&d.status->overflowBlocks, 1ULL);
}

/** Tile counts a thread scans per pass of the last search block's scan. */
constexpr int SCAN_ITEMS = 4;

/**
 * The exclusive scan of tileCounts into tileOffsets (the tiles' numbers), by the last thread block of
 * findNeighborTiles to finish: one launch fewer than a device-wide scan, and none at all when the list is kept.  Each
 * block publishes its counts, fences and counts itself done; the block that counts last sees every count, publishes
 * the overflow blocks' number and clears the counters for the next build.
 */
template <int SEARCH_WARPS>
__device__ void scanTileCountsIfLastBlock(const NarumiNonbondedData& d) {
    using BlockScan = cub::BlockScan<int, 32 * SEARCH_WARPS>;
    __shared__ typename BlockScan::TempStorage scanStorage;
    __shared__ bool isLast;
    __syncthreads();
    if (threadIdx.x == 0) {
        __threadfence();
        isLast = (atomicAdd(&d.status->searchBlocksDone, 1) == (int) gridDim.x - 1);
    }
    __syncthreads();
    if (!isLast)
        return;
    __threadfence();
    int running = 0;
    for (int first = 0; first <= d.numBlocks; first += SCAN_ITEMS * blockDim.x) {
        int counts[SCAN_ITEMS], aggregate;
        for (int k = 0; k < SCAN_ITEMS; k++) {
            int index = first + SCAN_ITEMS * threadIdx.x + k;
            counts[k] = (index <= d.numBlocks) ? __ldcg(&d.tileCounts[index]) : 0;  // L2: written by other blocks
        }
        BlockScan(scanStorage).ExclusiveSum(counts, counts, aggregate);
        for (int k = 0; k < SCAN_ITEMS; k++) {
            int index = first + SCAN_ITEMS * threadIdx.x + k;
            if (index <= d.numBlocks)
                d.tileOffsets[index] = running + counts[k];
        }
        running += aggregate;
        __syncthreads();
    }
    if (threadIdx.x == 0) {
        d.status->overflowListCount = d.status->overflowListPending;
        d.status->overflowListPending = 0;
        d.status->candidateTasksTaken = 0;
        d.status->searchBlocksTaken = 0;
        d.status->searchBlocksDone = 0;
    }
}

/**
 * Block I's tiles, by the SEARCH_WARPS warps of a thread block, packed into I's segment of tileAtoms.  The first tile
 * is block I itself (the diagonal tile); then the atoms of I's candidate blocks (listCandidateBlocks, dealt out to
 * the warps in turn) that are within the cutoff of I's box and then of one of I's atoms, 32 to a tile, the last one
 * padded with -1.  Each pair of different blocks is thus listed once, by the lower block (Newton's third law in
 * computeTiles).  The partners are ordered by their distance class (sortPartnersByDistance), within a class by the
 * warps' timing (the integer sums of Narumi and FixedPoint64 depend on neither) or, for TileSums, by slot.  A block with more tiles than a
 * segment holds (or more candidates) is listed in overflowBlocks for computeTiles to compute whole, and lists none;
 * the largest counts go to the host, which then grows the segments.
 */
template <int SEARCH_WARPS>
__device__ void listNeighborTiles(const NarumiNonbondedData& d, NeighborSearchShared<SEARCH_WARPS>& s, int blockI, int epoch, int warp, int lane) {
    // Every atom's position at the build, also of blocks this device does not list: they are its tiles' partners.
    if (warp == 0 && 32 * blockI + lane < d.numAtoms)
        d.builtPositions[32 * blockI + lane] = d.slotPositions[32 * blockI + lane];
    if (blockI < d.listBlockBegin || blockI >= d.listBlockEnd) {
        if (threadIdx.x == 0)
            d.tileCounts[blockI] = 0;
        return;
    }
    const unsigned int lowerLanes = (1u << lane) - 1;
    const long long capacityEntries = 32LL * d.tilesPerBlockCapacity;
    int* segment = d.tileAtoms + blockI * capacityEntries;
    const float4 centerI = d.blockCenters[blockI], halfI = d.blockHalfExtents[blockI];
    if (threadIdx.x == 0) {
        // I's candidate task was taken by a running warp before this thread block left the first phase.
        while (atomicAdd(&d.candidatesReady[blockI], 0) != epoch)
            __nanosleep(64);
        __threadfence();
        s.found = 32;
    }
    __syncthreads();
    const int numCandidates = __ldcg(&d.candidateCounts[blockI]);  // L2: written by another multiprocessor
    if (numCandidates > d.candidatesPerBlockCapacity) {
        if (threadIdx.x == 0)
            listOverflowBlock(d, blockI);
        return;
    }
    const int* candidates = d.candidateBlocks + (long long) blockI * d.candidatesPerBlockCapacity;
    const bool shiftable = singlePeriodicCopy(d, halfI);
    const bool filterByAtoms = shiftable && d.tileCutoff2 < INFINITY;
    if (warp == 0) {
        int ownSlot = 32 * blockI + lane;
        segment[lane] = ownSlot < d.numAtoms ? ownSlot : -1;  // every segment holds at least one tile
        // A missing atom of I is placed far away, where no candidate can be within the cutoff of it.
        float4 p = ownSlot < d.numAtoms ? d.slotPositions[ownSlot] : make_float4(1e6f, 1e6f, 1e6f, 0.0f);
        float3 r = make_float3(p.x - centerI.x, p.y - centerI.y, p.z - centerI.z);
        s.atomsI[lane] = make_float4(r.x, r.y, r.z, 0.5f * (r.x * r.x + r.y * r.y + r.z * r.z));
    }
    __syncthreads();
    int staged = 0;  // this warp's staged candidates
    // This warp's candidates are numbers warp, warp + SEARCH_WARPS, ...: 32 of them per pass, one per lane.
    for (int pass = warp; pass < numCandidates; pass += 32 * SEARCH_WARPS) {
        int mine = pass + SEARCH_WARPS * lane;
        int myBlock = mine < numCandidates ? __ldcg(&candidates[mine]) : -1;
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
    // With slot-ordered partners a block that the sort cannot order is computed whole (in a fixed order) instead.
    const bool unordered = d.slotOrderedPartners && found - 32 > PartnerSorts<SEARCH_WARPS>::SORTED_PARTNERS;
    const bool listed = (tiles <= d.tilesPerBlockCapacity) && !unordered;
    if (listed) {
        if (filterByAtoms || d.slotOrderedPartners)
            sortPartnersByDistance<SEARCH_WARPS>(segment, found - 32, d.slotOrderedPartners != 0, d.numAtoms);
        for (int entry = found + threadIdx.x; entry < 32 * tiles; entry += blockDim.x)
            segment[entry] = -1;
    }
    if (threadIdx.x == 0) {
        if (listed)
            d.tileCounts[blockI] = tiles;
        else
            listOverflowBlock(d, blockI);
        atomicMax(&d.status->tilesPerBlockNeeded, tiles);
        if (!filterByAtoms && d.tileCutoff2 < INFINITY)
            atomicAdd(&d.status->unfilteredBlocks, 1ULL);
    }
}

/**
 * The neighbour search of an evaluation that rebuilds the list: one full wave of thread blocks of SEARCH_WARPS warps.
 * First every warp takes candidate tasks (listCandidateBlocks) until none is left; then each thread block takes blocks
 * I (listNeighborTiles); the last to finish scans.  While the list is kept it returns at once: one launch where there
 * were two (7-8 us less per evaluation on DHFR, docs/benchmarks.md).  32 warps per multiprocessor keep the 64
 * registers of the tiles phase, which had them alone; the candidate phase spills a few words.
 */
template <int SEARCH_WARPS>
__global__ void __launch_bounds__(32 * SEARCH_WARPS, 32 / SEARCH_WARPS) findNeighborTiles(NarumiNonbondedData d) {
    __shared__ NeighborSearchShared<SEARCH_WARPS> s;
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    if (!d.status->rebuildList)
        return;  // the list of an earlier evaluation still holds every pair within the cutoff
    // Publishes this build's candidates: listBuilds counts builds when the evaluation finishes (finishEnergy).
    const int epoch = (int) (d.status->listBuilds & 0x3fffffff) + 1;
    while (true) {
        int blockI = 0;
        if (lane == 0)
            blockI = d.listBlockBegin + atomicAdd(&d.status->candidateTasksTaken, 1);
        blockI = __shfl_sync(FULL_MASK, blockI, 0);
        if (blockI >= d.listBlockEnd)
            break;
        listCandidateBlocks(d, blockI, epoch, lane);
    }
    while (true) {
        __syncthreads();  // the last block I's shared words have been read
        if (threadIdx.x == 0)
            s.blockI = atomicAdd(&d.status->searchBlocksTaken, 1);
        __syncthreads();
        const int blockI = s.blockI;
        if (blockI >= d.numBlocks)
            break;
        listNeighborTiles<SEARCH_WARPS>(d, s, blockI, epoch, warp, lane);
    }
    scanTileCountsIfLastBlock<SEARCH_WARPS>(d);
}

template <int SEARCH_WARPS>
void launchFindNeighborTiles(const NarumiNonbondedData& data, cudaStream_t stream) {
    int blocks = std::min(data.numBlocks, fullWaveBlocks<findNeighborTiles<SEARCH_WARPS>, 32 * SEARCH_WARPS>());
    preferSharedCarveout(findNeighborTiles<SEARCH_WARPS>, data.sharedCarveout);
    findNeighborTiles<SEARCH_WARPS><<<blocks, 32 * SEARCH_WARPS, 0, stream>>>(data);
}

} // namespace

/**
 * Thread blocks of 4 warps search faster than 8 once there are data.fewSearchWarpsFromWaves blocks I or more per
 * resident thread block of 8 warps: a thread block waits at its barriers for its slowest warp, and twice as many
 * smaller ones hide that better once there are blocks I enough for all of them, while with few the 4 warps' longer
 * time per block I shows.  On an H100 (528 resident thread blocks of 8 warps) 4 warps were slower at 1.4 blocks I per
 * thread block (DHFR), level or ahead at 5.7 (96k atoms) and ahead from 11 (docs/benchmarks.md, "Design decisions").
 */
int narumiSearchWarps(const NarumiNonbondedData& data) {
    if (data.searchWarps != 0)
        return data.searchWarps;
    long long listed = data.listBlockEnd - data.listBlockBegin;
    long long wave = fullWaveBlocks<findNeighborTiles<MANY_SEARCH_WARPS>, 32 * MANY_SEARCH_WARPS>();
    return listed >= data.fewSearchWarpsFromWaves * wave ? FEW_SEARCH_WARPS : MANY_SEARCH_WARPS;
}

void narumiFindNeighborTiles(const NarumiNonbondedData& data, cudaStream_t stream) {
    if (narumiSearchWarps(data) == FEW_SEARCH_WARPS)
        launchFindNeighborTiles<FEW_SEARCH_WARPS>(data, stream);
    else
        launchFindNeighborTiles<MANY_SEARCH_WARPS>(data, stream);
}

} // namespace OpenMMNarumi
