#ifndef NARUMI_COMPUTE_TILES_CUH_
#define NARUMI_COMPUTE_TILES_CUH_

/**
 * The pairs: computeTiles computes all pairs of the listed tiles of this device's blocks, with NO exclusion test
 * (correctExceptions.cu takes the excluded pairs out afterwards), each warp taking runs of consecutive tiles (see the
 * kernel), and then the blocks whose tiles did not fit into the list (none once the host has grown it).
 *
 * Each pair of different blocks is computed once (Newton's third law): each thread keeps its atom i's Narumi sums in
 * registers for a run of tiles, and the partners' sums of a tile live in shared memory, where the lanes meet
 * their partners in rotation, so that no two touch the same one; they are merged into OpenMM's buffer once per tile.
 * (Passing the partners' (hi, lo) pairs round the warp by shuffles instead was slower.)  The pairs inside a block are
 * computed from both sides.
 */

#include "NarumiAccumulatorDispatch.cuh"
#include "NarumiBoundsTests.cuh"
#include "NarumiKernelConstants.cuh"
#include "NarumiNonbondedStages.h"
#include "NarumiPairInteraction.cuh"
#include "NarumiPairParameters.cuh"
#include "NarumiPositions.cuh"
#include "NarumiTermAccumulators.cuh"

namespace OpenMMNarumi {

// Each translation unit that includes this has its own copy (those made from computeTilesGroup.cu.in).
namespace {


/**
 * The type table of float pairs with at most SHARED_TABLE_CLASSES classes (8 KB), copied into shared memory by each
 * thread block: a warp's 32 lookups of different entries then cost bank conflicts, not one cache line each.  Dynamic
 * shared memory of the table's own size (Martini 2: 10 classes, 800 bytes), not 8 KB in every thread block.
 */
constexpr int SHARED_TABLE_CLASSES = 32;
extern __shared__ float2 sharedLennardJonesTable[];

/** Bytes of the shared copy of a table of `classes` classes. */
__host__ __device__ constexpr size_t sharedTableBytes(int classes) {
    return (size_t) classes * classes * sizeof(float2);
}

template <bool TABLE, class Real>
__host__ __device__ inline bool tableInSharedMemory(const NarumiNonbondedData& d) {
    return TABLE && std::is_same<Real, float>::value && d.numTableClasses <= SHARED_TABLE_CLASSES;
}

/** Before any warp of the block computes pairs (every thread of the block calls it). */
template <bool TABLE, class Real>
__device__ inline void copyTableToSharedMemory(const NarumiNonbondedData& d) {
    if (!tableInSharedMemory<TABLE, Real>(d))
        return;
    for (int k = threadIdx.x; k < d.numTableClasses * d.numTableClasses; k += blockDim.x)
        sharedLennardJonesTable[k] = d.lennardJonesTable[k];
    __syncthreads();
}

/**
 * Row tableClass of the type table, where the pair loop reads it: the shared copy (float, few classes) or the table in
 * global memory.  Chosen once per atom, so that a pair costs one load through a generic pointer and no test (with the
 * choice made per pair the compiler kept both loads, predicated, and nine more instructions per pair).
 */
template <bool TABLE, class Real>
__device__ inline const typename NarumiVectors<Real>::V2* lennardJonesTableRow(const NarumiNonbondedData& d, int tableClass) {
    if constexpr (!TABLE)
        return nullptr;
    else if constexpr (std::is_same<Real, float>::value)
        return (tableInSharedMemory<TABLE, Real>(d) ? sharedLennardJonesTable : d.lennardJonesTable) + tableClass * d.numTableClasses;
    else
        return d.lennardJonesTableDouble + tableClass * d.numTableClasses;
}

/**
 * One thread's atom (slot i) and the sums of its force components and pair energies.  The pairs are computed in the
 * accumulator's Real: float, or double for Precision=double (NarumiAccumulatorDispatch.cuh).
 */
template <class Accumulator>
struct AtomSums {
    using Real = typename Accumulator::Real;
    int slot;
    typename NarumiVectors<Real>::V4 position;    // NaN for a padding slot past the last atom: every r^2 < cutoff^2 test fails
    typename NarumiVectors<Real>::V2 lennardJones;   // without type tables
    const typename NarumiVectors<Real>::V2* tableRow;  // with type tables: its class's row (lennardJonesTableRow)
    float4 blockCenter, blockHalfExtents;   // of the atom's block I
    Accumulator fx, fy, fz;

    template <bool TABLE>
    __device__ void load(const NarumiNonbondedData& d, int newSlot) {
        slot = newSlot;
        position = slot < d.numAtoms ? slotPosition(d, slot, Real()) : missingAtom<Real>();
        lennardJones = TABLE ? typename NarumiVectors<Real>::V2{Real(0), Real(0)} : slotLennardJones(d, slot, Real());
        tableRow = lennardJonesTableRow<TABLE, Real>(d, TABLE ? slotTableClass(d, slot) : 0);
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

/**
 * A warp's staged tile in shared memory: the 32 partner atoms j and, for a cross tile, their force sums.  What every
 * step reads has 64 entries, so that step k of the rotation finds partner (lane + k) mod 32 at entry lane + k, an
 * address that advances by a constant, with no mask (7% of the pair loop's instructions): the atoms are staged twice
 * over, and a partner's sums are split between entries j and j + 32, added when the tile is done.  The partners'
 * buffer indices, read only on the rare large-force path, have 32.  The partners' Lennard-Jones: their own
 * parameters, or with type tables (TABLE) their classes, 64.
 */
template <class Accumulator, bool TABLE>
struct TileStage {
    using Partner = typename Accumulator::Partner;
    typename NarumiVectors<typename Accumulator::Real>::V4 positions[64];   // NaN for no atom
    typename NarumiVectors<typename Accumulator::Real>::V2 lennardJones[TABLE ? 1 : 64];
    int tableClasses[TABLE ? 64 : 1];
    int posqIndices[32];
    PartnerXY<Partner> partnerXY[64];   // per step of the rotation the warp touches 32 consecutive entries
    Partner partnerZ[64];

    /** Entry's pair parameters: own Lennard-Jones parameters and table class (only one of them is read). */
    __device__ typename NarumiVectors<typename Accumulator::Real>::V2 partnerLennardJones(int entry) const {
        return lennardJones[TABLE ? 0 : entry];
    }
    __device__ int partnerClass(int entry) const {
        return tableClasses[TABLE ? entry : 0];
    }
    __device__ Partner& partnerSum(int component, int entry) {
        return component == 0 ? partnerXY[entry].x : (component == 1 ? partnerXY[entry].y : partnerZ[entry]);
    }
};

/**
 * The pair's Lennard-Jones parameters: entry otherClass of i's table row, or combined from both atoms' own (the
 * values of narumiPairLennardJones, which the exclusion pass uses: the same bits).
 */
template <bool TABLE, class V2>
__device__ inline auto tilePairLennardJones(V2 a, const V2* tableRow, V2 b, int otherClass) {
    using Real = decltype(a.x);
    if constexpr (TABLE) {
        V2 entry = tableRow[otherClass];
        return NarumiTableLennardJones<Real>{entry.x, entry.y};
    }
    else
        return narumiCombinedLennardJones(a, b);
}

/** The pair force on i (from j at displacement delta = r_j - r_i), its energy and (dE/dr)/r, from the shared pair function. */
template <int COULOMB, int SWITCH, bool TABLE, class V4, class V2, class V3, class Real>
__device__ inline V3 pairForce(const NarumiNonbondedData& d, V4 position, V2 lennardJones, const V2* tableRow, V4 other, V2 otherLennardJones,
                               int otherClass, V3 delta, Real r2, Real& pairEnergy, Real& dEdrOverR) {
    Real kq = narumiMul(position.w, other.w);
    auto ljParameters = tilePairLennardJones<TABLE>(lennardJones, tableRow, otherLennardJones, otherClass);
    pairEnergy = narumiPairEnergy<COULOMB, SWITCH>(pairConstants(d, Real()), r2, kq, ljParameters, dEdrOverR);
    return V3{narumiMul(dEdrOverR, delta.x), narumiMul(dEdrOverR, delta.y), narumiMul(dEdrOverR, delta.z)};
}

/**
 * Whether every component of a float pair force inside the cutoff is below NARUMI_LARGE_TERM, for Narumi's range
 * test: with a cutoff (smallForceOverR > 0) |f_c| <= |dE/dr / r| r < smallForceOverR * cutoff, one comparison;
 * without one, the components themselves.  Reaction field and shifted always have a cutoff, plain Coulomb never,
 * NoCoulomb either way.  (Double pairs take no such test.)
 */
template <int COULOMB>
__device__ inline bool smallPairForce(const NarumiNonbondedData& d, float3 force, float dEdrOverR) {
    if constexpr (COULOMB == NARUMI_COULOMB_PLAIN)
        return narumiSmallVector(force);
    else if constexpr (COULOMB == NARUMI_COULOMB_NONE)
        return d.smallForceOverR > 0 ? fabsf(dEdrOverR) < d.smallForceOverR : narumiSmallVector(force);
    else
        return fabsf(dEdrOverR) < d.smallForceOverR;
}
template <int COULOMB>
__device__ inline bool smallPairForce(const NarumiNonbondedData&, double3, double) {
    return false;
}

/**
 * A huge pair (narumiHugePair) is left out, its force and energy replaced by zeros, and counted in the thread's error
 * word; correctExceptions takes the exception pairs among them off the count.  Where Narumi's range test is one of
 * |dE/dr / r| (a cutoff, float pairs) a small pair is never huge, so the test costs the pair loop nothing more.
 */
template <int COULOMB, class V3, class Real>
__device__ inline void leaveOutHugePair(const NarumiNonbondedData& d, bool& small, Real dEdrOverR, Real r2, V3& force, Real& pairEnergy,
                                        int& errors, bool counted) {
    const bool smallMeansNotHuge = COULOMB != NARUMI_COULOMB_PLAIN && std::is_same<Real, float>::value;
    if (small && smallMeansNotHuge && d.smallForceOverR > 0)
        return;
    if (narumiHugePair(dEdrOverR, r2)) {
        force = V3{Real(0), Real(0), Real(0)};
        pairEnergy = Real(0);
        small = true;
        if (counted)
            errors += 1 << NARUMI_HUGE_PAIR_COUNT_SHIFT;
    }
}

/**
 * The diagonal tile (block I with itself) from i's side: lane's atom i against the 32 staged atoms (staged atom k is
 * the block's atom k), every pair met from both of its atoms, the energy added by the lower one.  With minimumImage
 * = false every displacement is taken as it is, which is bit for bit the minimum image whenever no component
 * reaches half the box (the image shift rint(d / L) is then 0), as accumulateTile checks.  No exclusion test: every
 * pair inside the cutoff counts.
 */
template <class Accumulator, bool computeEnergy, bool minimumImage, int COULOMB, int SWITCH, bool TABLE>
__device__ void accumulateDiagonalPairs(const NarumiNonbondedData& d, AtomSums<Accumulator>& atom, Accumulator& energy,
                                        const TileStage<Accumulator, TABLE>& stage, int& errors) {
    using Real = typename Accumulator::Real;
    const int lane = threadIdx.x % 32;
    const Real cutoff2 = pairConstants(d, Real()).cutoff2;
    for (int k = 0; k < 32; k++) {
        auto other = stage.positions[k];
        auto delta = narumiDifference(atom.position, other);
        if (minimumImage)
            delta = narumiMinimumImage(delta, narumiLattice(d.box, Real()));
        Real r2 = narumiSquaredLength(delta);
        if (r2 < cutoff2 && k != lane) {
            Real pairEnergy, dEdrOverR;
            auto force = pairForce<COULOMB, SWITCH, TABLE>(d, atom.position, atom.lennardJones, atom.tableRow, other,
                                                           stage.partnerLennardJones(k), stage.partnerClass(k), delta, r2, pairEnergy, dEdrOverR);
            bool small = false;  // each side tests; the lower one counts, as it adds the energy
            leaveOutHugePair<COULOMB>(d, small, dEdrOverR, r2, force, pairEnergy, errors, lane < k);
            addVector(atom.fx, atom.fy, atom.fz, force);
            if (computeEnergy && lane < k)
                energy.add(pairEnergy);
        }
    }
}

/**
 * A cross tile (block I against atoms of later blocks), each pair once: at step k lane i meets partner
 * j = (i + k) mod 32 (at entry i + k of the stage), so the 32 lanes touch 32 different entries and j's share, exactly
 * minus i's (the pair function is odd in delta), goes to j's sums in shared memory without atomics.  __syncwarp orders
 * one step's writes before the next step's reads of the same entry by the neighbouring lane.  (Handing j's sums round the
 * warp by shuffles instead, or computing every lane's pair without a branch on the cutoff, measured no faster.)
 */
template <class Accumulator, bool computeEnergy, bool minimumImage, int COULOMB, int SWITCH, bool TABLE>
__device__ void accumulateCrossPairs(const NarumiNonbondedData& d, AtomSums<Accumulator>& atom, Accumulator& energy,
                                     TileStage<Accumulator, TABLE>& stage, int& errors) {
    using Real = typename Accumulator::Real;
    const int lane = threadIdx.x % 32;
    const Real cutoff2 = pairConstants(d, Real()).cutoff2;
#pragma unroll 4
    for (int k = 0; k < 32; k++) {
        int j = lane + k;   // partner (lane + k) mod 32's entry
        auto other = stage.positions[j];
        auto delta = narumiDifference(atom.position, other);
        if (minimumImage)
            delta = narumiMinimumImage(delta, narumiLattice(d.box, Real()));
        Real r2 = narumiSquaredLength(delta);
        if (r2 < cutoff2) {
            Real pairEnergy, dEdrOverR;
            auto force = pairForce<COULOMB, SWITCH, TABLE>(d, atom.position, atom.lennardJones, atom.tableRow, other,
                                                           stage.partnerLennardJones(j), stage.partnerClass(j), delta, r2, pairEnergy, dEdrOverR);
            bool small = smallPairForce<COULOMB>(d, force, dEdrOverR);
            leaveOutHugePair<COULOMB>(d, small, dEdrOverR, r2, force, pairEnergy, errors, true);
            addPairForce(atom.fx, atom.fy, atom.fz, stage.partnerXY[j], stage.partnerZ[j], force, small, d.sums, stage.posqIndices[j & 31],
                         errors);
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
template <class Accumulator, bool computeEnergy, int COULOMB, int SWITCH, bool TABLE>
__device__ void accumulateTile(const NarumiNonbondedData& d, int otherSlot, bool diagonal, AtomSums<Accumulator>& atom,
                               Accumulator& energy, TileStage<Accumulator, TABLE>& stage, int& errors) {
    using Real = typename Accumulator::Real;
    const int lane = threadIdx.x % 32;
    // A missing atom sits at NaN: its r^2 < cutoff^2 test fails, so the pair loops need no test of the slot.
    auto position = otherSlot >= 0 ? slotPosition(d, otherSlot, Real()) : missingAtom<Real>();
    int posqIndex = otherSlot >= 0 ? d.slotPosqIndex[otherSlot] : -1;
    __syncwarp();
    stage.posqIndices[lane] = posqIndex;
    auto lennardJones = (!TABLE && otherSlot >= 0) ? slotLennardJones(d, otherSlot, Real()) : typename NarumiVectors<Real>::V2{Real(0), Real(0)};
    int tableClass = (TABLE && otherSlot >= 0) ? slotTableClass(d, otherSlot) : 0;
    for (int half = 0; half < 64; half += 32) {
        stage.positions[lane + half] = position;
        if constexpr (TABLE)
            stage.tableClasses[lane + half] = tableClass;
        else
            stage.lennardJones[lane + half] = lennardJones;
        for (int c = 0; c < 3; c++)
            stage.partnerSum(c, lane + half) = Accumulator::partnerZero();
    }
    __syncwarp();
    bool needsImages = false;
    if (d.box.periodic) {
        const float4& c = atom.blockCenter;
        const float4& h = atom.blockHalfExtents;
        bool inside = otherSlot < 0 || (fabsf((float) position.x - c.x) + h.x < 0.49f * d.box.size.x &&
                                        fabsf((float) position.y - c.y) + h.y < 0.49f * d.box.size.y &&
                                        fabsf((float) position.z - c.z) + h.z < 0.49f * d.box.size.z);
        needsImages = !__all_sync(FULL_MASK, inside);
    }
    if (diagonal) {
        if (needsImages)
            accumulateDiagonalPairs<Accumulator, computeEnergy, true, COULOMB, SWITCH, TABLE>(d, atom, energy, stage, errors);
        else
            accumulateDiagonalPairs<Accumulator, computeEnergy, false, COULOMB, SWITCH, TABLE>(d, atom, energy, stage, errors);
    }
    else {
        if (needsImages)
            accumulateCrossPairs<Accumulator, computeEnergy, true, COULOMB, SWITCH, TABLE>(d, atom, energy, stage, errors);
        else
            accumulateCrossPairs<Accumulator, computeEnergy, false, COULOMB, SWITCH, TABLE>(d, atom, energy, stage, errors);
        if (otherSlot >= 0)
            for (int c = 0; c < 3; c++)
                Accumulator::flushPartner(stage.partnerSum(c, lane), stage.partnerSum(c, lane + 32), d.sums, posqIndex, c, errors);
    }
    // At most 32 additions per tile, within NARUMI_CARRY_INTERVAL.
    atom.fx.carry();
    atom.fy.carry();
    atom.fz.carry();
    if (computeEnergy)
        energy.carry();
}

/** A thread's error word at the end: its flags ORed into the status, its count of huge pairs added to their balance. */
__device__ inline void narumiReportTileErrors(const NarumiNonbondedData& d, int errors) {
    int flags = errors & ((1 << NARUMI_HUGE_PAIR_COUNT_SHIFT) - 1), hugePairs = errors >> NARUMI_HUGE_PAIR_COUNT_SHIFT;
    if (flags != 0)
        atomicOr(d.sums.errorFlags, flags);
    if (hugePairs != 0)
        atomicAdd(&d.status->hugePairBalance, hugePairs);
}

/**
 * The block whose segment holds tile t of the list: the last I with tileOffsets[I] <= t (blocks may list none).  The
 * warp's lanes (t the same in all) probe 32 points of the range at once, narrowing it 32-fold per round: 3 rounds at
 * 6k blocks, where a binary search waited on 13 dependent loads per tile (10% of the stall samples on the 198k-bead
 * bilayer, one tile per chunk).
 */
__device__ int blockOfTile(const NarumiNonbondedData& d, int t) {
    const int lane = threadIdx.x % 32;
    int low = 0, high = d.numBlocks;  // tileOffsets[low] <= t < tileOffsets[high]
    while (high - low > 1) {
        int step = (high - low + 31) / 32;
        int probe = low + (lane + 1) * step;
        // tileOffsets ascends, so the lanes whose probe is at most t are the first ones.
        int below = __popc(__ballot_sync(FULL_MASK, probe < high && d.tileOffsets[probe] <= t));
        high = min(high, low + (below + 1) * step);
        low += below * step;
    }
    return low;
}

/**
 * Part of a block I whose tiles did not all fit into the list: I's tiles against the blocks [first, first + 32) near
 * it (the list's half-list rule, on the current bounds with the list's padded cutoff).  Each such group is a task of
 * its own for any warp: computed whole by one warp, an overflowed block took that warp the time of all its tiles in a
 * row, longer than the whole kernel, in every evaluation until the host had grown the list.
 */
template <class Accumulator, bool computeEnergy, int COULOMB, int SWITCH, bool TABLE>
__device__ void accumulateOverflowGroup(const NarumiNonbondedData& d, int blockI, int first, AtomSums<Accumulator>& atom, Accumulator& energy,
                                        TileStage<Accumulator, TABLE>& stage, int& errors) {
    const int lane = threadIdx.x % 32;
    int blockJ = first + lane;
    unsigned int mask = __ballot_sync(FULL_MASK, blockJ >= blockI && blockJ < d.numBlocks && blocksInteract(d, blockI, blockJ));
    if (mask == 0)
        return;
    atom.template load<TABLE>(d, blockI * 32 + lane);
    while (mask != 0) {
        int tileBlock = first + __ffs(mask) - 1;
        mask &= mask - 1;
        int slot = tileBlock * 32 + lane;
        accumulateTile<Accumulator, computeEnergy, COULOMB, SWITCH, TABLE>(d, slot < d.numAtoms ? slot : -1, tileBlock == blockI, atom, energy,
                                                                           stage, errors);
    }
    atom.flush(d);
}

/**
 * The tiles [begin, end) of the list, in order: an atom's sums stay in registers while the tiles are its block's, and
 * go to OpenMM's buffer at each change of block and at the end.
 */
template <class Accumulator, bool computeEnergy, int COULOMB, int SWITCH, bool TABLE>
__device__ void accumulateTileRun(const NarumiNonbondedData& d, int begin, int end, AtomSums<Accumulator>& atom, Accumulator& energy,
                                  TileStage<Accumulator, TABLE>& stage, int& errors) {
    const int lane = threadIdx.x % 32;
    int blockI = blockOfTile(d, begin);
    atom.template load<TABLE>(d, blockI * 32 + lane);
    for (int t = begin; t < end; t++) {
        if (t >= d.tileOffsets[blockI + 1]) {
            atom.flush(d);
            while (t >= d.tileOffsets[blockI + 1])
                blockI++;
            atom.template load<TABLE>(d, blockI * 32 + lane);
        }
        int tileOfBlock = t - d.tileOffsets[blockI];
        long long entry = 32LL * ((long long) blockI * d.tilesPerBlockCapacity + tileOfBlock) + lane;
        accumulateTile<Accumulator, computeEnergy, COULOMB, SWITCH, TABLE>(d, d.tileAtoms[entry], tileOfBlock == 0, atom, energy, stage, errors);
    }
    atom.flush(d);
}

/** Tiles a warp takes at a time from a long list (at least TILES_PER_WARP_FOR_LONG_CHUNKS per warp), else one. */
constexpr int TILES_PER_LONG_CHUNK = 4;
constexpr int TILES_PER_WARP_FOR_LONG_CHUNKS = 16;

/**
 * With the integer global sums (Narumi, FixedPoint64, TileSums) the warps take the list in chunks of consecutive tiles:
 * each warp its own first chunk, then the next free one each from a counter in the status words (cleared by
 * finishEnergy), so that a full wave of warps does not queue at the counter's atomic when the kernel starts (2.3-2.5%
 * of whole steps on the 11k-bead bilayer, whose list holds fewer tiles than an H200 has warps; none on DHFR;
 * d.tileFirstChunksAssigned = 0 to compare).  Tiles differ in cost,
 * and a fixed share per warp left the kernel waiting for the slowest (15-17% of computeTiles at 98k-394k atoms, 10% on
 * DHFR).  A long list goes in chunks of TILES_PER_LONG_CHUNK, which keep an atom's sums in registers across tiles of
 * its block; a shorter one (DHFR: 4.5 tiles per warp) tile by tile, so that no warp is left idle.  The floating-point
 * methods, whose sums depend on their order (the accuracy study compares them run for run), give each warp one
 * contiguous run fixed in advance (also the switch d.tileChunks = 0, for measurements).  Then the warps share out the
 * blocks the list had no room for, in groups of 32 partner blocks (none once the host has grown it: no launch of their
 * own).  One copy per Coulomb form and switching (COULOMB, SWITCH): a run-time branch on either in the pair loop costs
 * about 10%.
 */
template <class Accumulator, bool computeEnergy, int COULOMB, int SWITCH, bool TABLE>
__device__ __forceinline__ void computeTilesOfShare(const NarumiNonbondedData& d) {
    __shared__ TileStage<Accumulator, TABLE> stages[WARPS_PER_BLOCK];
    copyTableToSharedMemory<TABLE, typename Accumulator::Real>(d);
    int warpInBlock = threadIdx.x / 32, lane = threadIdx.x % 32;
    int warp = blockIdx.x * WARPS_PER_BLOCK + warpInBlock, numWarps = gridDim.x * WARPS_PER_BLOCK;
    // This device's share: the tiles of blocks [shareBlockBegin, shareBlockEnd), contiguous in the list.
    int firstTile = d.tileOffsets[d.shareBlockBegin], numTiles = d.tileOffsets[d.shareBlockEnd] - firstTile;
    // The overflowed blocks' tasks: each block against each group of 32 blocks (accumulateOverflowGroup).
    const int numGroups = (d.numBlocks + 31) / 32;
    const long long numOverflowTasks = (long long) d.status->overflowListCount * numGroups;
    AtomSums<Accumulator> atom;
    Accumulator energy;
    energy.zero();
    int errors = 0;
    if (Accumulator::exact && d.tileChunks) {
        const int tilesPerChunk = numTiles >= TILES_PER_WARP_FOR_LONG_CHUNKS * numWarps ? TILES_PER_LONG_CHUNK : 1;
        const int numChunks = (numTiles + tilesPerChunk - 1) / tilesPerChunk;
        const int assigned = d.tileFirstChunksAssigned ? numWarps : 0;  // chunks [0, assigned) go to the warps in order
        auto nextChunk = [&]() {
            int chunk = 0;
            if (lane == 0)
                chunk = atomicAdd(&d.status->tileChunksTaken, 1);
            return assigned + __shfl_sync(FULL_MASK, chunk, 0);
        };
        int chunk = assigned ? warp : nextChunk();
        if (chunk >= numChunks && warp >= numOverflowTasks)
            return;  // uniform across the warp: nothing to add
        for (; chunk < numChunks; chunk = nextChunk()) {
            int begin = firstTile + chunk * tilesPerChunk;
            accumulateTileRun<Accumulator, computeEnergy, COULOMB, SWITCH, TABLE>(d, begin, min(begin + tilesPerChunk, firstTile + numTiles),
                                                                                  atom, energy, stages[warpInBlock], errors);
        }
    }
    else {
        int perWarp = (numTiles + numWarps - 1) / numWarps;
        int begin = firstTile + warp * perWarp, end = firstTile + min(warp * perWarp + perWarp, numTiles);
        if (begin >= end && warp >= numOverflowTasks)
            return;  // uniform across the warp
        if (begin < end)
            accumulateTileRun<Accumulator, computeEnergy, COULOMB, SWITCH, TABLE>(d, begin, end, atom, energy, stages[warpInBlock], errors);
    }
    for (long long task = warp; task < numOverflowTasks; task += numWarps) {
        int blockI = d.overflowBlocks[task / numGroups], group = (int) (task % numGroups);
        if (blockI >= d.shareBlockBegin && blockI < d.shareBlockEnd && group >= blockI / 32)
            accumulateOverflowGroup<Accumulator, computeEnergy, COULOMB, SWITCH, TABLE>(d, blockI, 32 * group, atom, energy, stages[warpInBlock],
                                                                                      errors);
    }
    if (computeEnergy)
        energy.flushEnergy(d.sums);
    narumiReportTileErrors(d, errors);
}

/** The pair kernel with the atoms' own Lennard-Jones parameters. */
template <class Accumulator, bool computeEnergy, int COULOMB, int SWITCH>
__global__ void NARUMI_TILE_LAUNCH_BOUNDS computeTiles(NarumiNonbondedData d) {
    computeTilesOfShare<Accumulator, computeEnergy, COULOMB, SWITCH, false>(d);
}

/**
 * The pair kernel with a type table, held to 64 registers (8 thread blocks per multiprocessor, as many warps as the
 * per-particle copies have): left to nvcc it takes 72, and 7 blocks ran it slower than the per-particle kernel.
 */
template <class Accumulator, bool computeEnergy, int COULOMB, int SWITCH>
__global__ void __launch_bounds__(THREADS, 8) computeTilesWithTypeTable(NarumiNonbondedData d) {
    computeTilesOfShare<Accumulator, computeEnergy, COULOMB, SWITCH, true>(d);
}

/** The pair kernel of the Lennard-Jones source TABLE. */
template <class Accumulator, bool computeEnergy, int COULOMB, int SWITCH, bool TABLE>
constexpr auto tileKernel() {
    if constexpr (TABLE)
        return computeTilesWithTypeTable<Accumulator, computeEnergy, COULOMB, SWITCH>;
    else
        return computeTiles<Accumulator, computeEnergy, COULOMB, SWITCH>;
}

/** The pair kernel as a type (std::integral_constant), for host code that needs it as a template argument. */
template <class Accumulator, bool computeEnergy, int COULOMB, int SWITCH, bool TABLE>
using TileKernelTag = std::integral_constant<decltype(tileKernel<Accumulator, computeEnergy, COULOMB, SWITCH, TABLE>()),
                                             tileKernel<Accumulator, computeEnergy, COULOMB, SWITCH, TABLE>()>;

/** use(tag) with the TileKernelTag of d's Coulomb form and switching: one copy of computeTiles per pair (COULOMB, SWITCH). */
template <class Accumulator, bool computeEnergy, bool TABLE, class Use>
void withTileKernel(const NarumiNonbondedData& d, Use use) {
    auto bySwitch = [&](auto coulomb) {
        constexpr int COULOMB = decltype(coulomb)::value;
        if (d.pair.useSwitch)
            use(TileKernelTag<Accumulator, computeEnergy, COULOMB, 1, TABLE>());
        else
            use(TileKernelTag<Accumulator, computeEnergy, COULOMB, 0, TABLE>());
    };
    switch (d.pair.coulombKind) {
    case NARUMI_COULOMB_NONE:
        bySwitch(std::integral_constant<int, NARUMI_COULOMB_NONE>());
        break;
    case NARUMI_COULOMB_PLAIN:
        bySwitch(std::integral_constant<int, NARUMI_COULOMB_PLAIN>());
        break;
    case NARUMI_COULOMB_REACTION_FIELD:
        bySwitch(std::integral_constant<int, NARUMI_COULOMB_REACTION_FIELD>());
        break;
    default:
        bySwitch(std::integral_constant<int, NARUMI_COULOMB_SHIFTED>());
    }
}

/** Shared bytes of the type table: the largest shared table's (grids are sized for it, so as not to depend on the table), and d's. */
template <bool TABLE>
constexpr size_t mostSharedTableBytes = TABLE ? sharedTableBytes(SHARED_TABLE_CLASSES) : 0;
template <bool TABLE, class Real>
size_t sharedTableBytesOf(const NarumiNonbondedData& d) {
    return tableInSharedMemory<TABLE, Real>(d) ? sharedTableBytes(d.numTableClasses) : 0;
}

/**
 * One full wave of the pair kernel, sized for the largest shared table (so that the grid does not depend on the
 * table) and launched with this one's, in the force's shared-memory carveout.
 */
template <class Accumulator, bool computeEnergy, bool TABLE>
void launchComputeTiles(const NarumiNonbondedData& d, cudaStream_t stream) {
    withTileKernel<Accumulator, computeEnergy, TABLE>(d, [&](auto tag) {
        constexpr auto kernel = decltype(tag)::value;
        preferSharedCarveout(kernel, d.sharedCarveout);
        kernel<<<fullWaveBlocks<kernel, THREADS, mostSharedTableBytes<TABLE>>(), THREADS,
                 sharedTableBytesOf<TABLE, typename Accumulator::Real>(d), stream>>>(d);
    });
}

/**
 * The carveout that holds the full wave of the pair kernel of d (without energy, as most evaluations) with d's table:
 * the force's kernels all run in it (CudaNarumiKernels.cpp), so that no launch of an evaluation waits for the
 * multiprocessors to change their split of L1 and shared memory.
 */
template <class Accumulator, bool TABLE>
int tileKernelCarveout(const NarumiNonbondedData& d) {
    int percent = -1;
    withTileKernel<Accumulator, false, TABLE>(d, [&](auto tag) {
        constexpr auto kernel = decltype(tag)::value;
        int blocks = kernelWave<kernel, THREADS, mostSharedTableBytes<TABLE>>().blocksPerMultiprocessor;
        percent = carveoutHolding(kernel, blocks, sharedTableBytesOf<TABLE, typename Accumulator::Real>(d));
    });
    return percent;
}

/**
 * The group of computeTiles' translation units (computeTilesGroups.h) that holds each accumulator's copies, in sizes
 * that compile in about the same time: 0 Narumi's sums (the default, in each precision), 1 FixedPoint64, 2 the
 * floating-point sums (SingleFloat, DoubleFloat), 3 the diagnostics' methods C-E, 4 TileSums.
 */
template <class Accumulator>
constexpr int narumiTileGroup = 2;
template <>
constexpr int narumiTileGroup<NarumiTermAccumulator> = 0;
template <>
constexpr int narumiTileGroup<NarumiGridInDoubleAccumulator> = 0;
template <>
constexpr int narumiTileGroup<NarumiGridDoubleTermAccumulator> = 0;
template <>
constexpr int narumiTileGroup<FixedPoint64TermAccumulator> = 1;
template <>
constexpr int narumiTileGroup<FixedPoint64DoubleTermAccumulator> = 1;
template <class Real>
constexpr int narumiTileGroup<TileSumTermAccumulator<Real>> = 4;
template <PairExpressionRule RULE>
constexpr int narumiTileGroup<PairExpressionTermAccumulator<RULE>> = 3;

/**
 * use(tag) with the tag of method's accumulator (tag's type) if it is in GROUP and has a pair kernel for TABLE (the
 * diagnostics' float-pair methods C-E have no TABLE copy, the host refuses them); whether it is.
 */
template <int GROUP, bool TABLE, class Use>
bool withAccumulatorInGroup(const NarumiNonbondedData& data, NarumiAccumulation method, Use use) {
    bool found = false;
    narumiWithAccumulator(method, data.slotPositionsDouble != nullptr, data.narumiSumsInDouble != 0, [&](auto tag) {
        using Accumulator = typename decltype(tag)::type;
        if constexpr (narumiTileGroup<Accumulator> == GROUP && (!TABLE || !narumiStudyOnly<Accumulator>)) {
            use(tag);
            found = true;
        }
    });
    return found;
}

/** computeTiles for method if its accumulator is in GROUP (withAccumulatorInGroup); whether it launched. */
template <int GROUP, bool TABLE>
bool launchComputeTilesInGroup(const NarumiNonbondedData& data, NarumiAccumulation method, bool includeEnergy, cudaStream_t stream) {
    return withAccumulatorInGroup<GROUP, TABLE>(data, method, [&](auto tag) {
        using Accumulator = typename decltype(tag)::type;
        if (includeEnergy)
            launchComputeTiles<Accumulator, true, TABLE>(data, stream);
        else
            launchComputeTiles<Accumulator, false, TABLE>(data, stream);
    });
}

/** tileKernelCarveout for method if its accumulator is in GROUP (withAccumulatorInGroup) into percent; whether it is. */
template <int GROUP, bool TABLE>
bool tileCarveoutInGroup(const NarumiNonbondedData& data, NarumiAccumulation method, int& percent) {
    return withAccumulatorInGroup<GROUP, TABLE>(data, method, [&](auto tag) {
        percent = tileKernelCarveout<typename decltype(tag)::type, TABLE>(data);
    });
}

} // namespace

} // namespace OpenMMNarumi

#endif // NARUMI_COMPUTE_TILES_CUH_
