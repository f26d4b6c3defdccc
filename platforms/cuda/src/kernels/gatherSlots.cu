/**
 * Every evaluation: gatherSlotsAndBounds puts float positions in slot order (and double ones for double-precision
 * pairs; charges and LJ parameters too right after a sort), computes the bounding boxes of blocks (32 slots) and of
 * superblocks (32 blocks), and flags the neighbour list for a rebuild when an atom has moved half the skin since it was
 * built, in one launch.
 */

#include "NarumiKernelConstants.cuh"
#include "NarumiNonbondedStages.h"
#include "NarumiPairInteraction.cuh"
#include "NarumiPositions.cuh"
#include <type_traits>

namespace OpenMMNarumi {

namespace {

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

/**
 * Double-precision pairs: the slot's position in double (keeping its previous image between sorts, like the float one),
 * its charge and LJ parameters (gathered only right after a sort, kept in the slot between sorts); the float copy.
 */
__device__ inline float3 gatherDoubleSlot(const NarumiNonbondedData& d, int slot, int atom, Vector3<double> r, int betweenSorts) {
    if (betweenSorts) {
        NarumiDouble4 previous = d.slotPositionsDouble[slot];
        if (d.box.periodic) {
            double3 step = narumiMinimumImage(make_double3(r.x - previous.x, r.y - previous.y, r.z - previous.z), narumiLattice(d.box, 0.0));
            r = {previous.x + step.x, previous.y + step.y, previous.z + step.z};
        }
        d.slotPositionsDouble[slot] = NarumiDouble4{r.x, r.y, r.z, previous.w};
    }
    else {
        NarumiDouble4 parameters = d.atomParametersDouble[atom];
        d.slotPositionsDouble[slot] = NarumiDouble4{r.x, r.y, r.z, parameters.x};
        d.slotLennardJonesDouble[slot] = make_double2(parameters.y, parameters.z);
    }
    return make_float3((float) r.x, (float) r.y, (float) r.z);
}

/**
 * One thread per slot, one thread block per superblock (32 blocks of 32 slots): float positions, charges and LJ
 * parameters in slot order, then each block's bounding box (a warp's reduction) and the superblock's (a reduction over
 * its blocks' boxes), in one launch.  Right after a sort (betweenSorts = 0) every atom is wrapped into the box and its
 * parameters are gathered into its slot; between sorts a slot keeps its atom's parameters (the host sorts again after
 * a parameter update), so that an evaluation reads only the position (one gather where there were three dependent
 * ones), and an atom keeps the periodic image nearest to its position at the previous evaluation, so that one crossing
 * a face of the box does not stretch its block's bounding box across the whole box (pairs use the minimum image
 * either way).
 */
template <class PosT>
__global__ void __launch_bounds__(SUPERBLOCK_THREADS) gatherSlotsAndBounds(NarumiNonbondedData d, int betweenSorts) {
    __shared__ float4 lows[32], highs[32];
    const PosT* posq = (const PosT*) d.posq;
    const int slot = blockIdx.x * SUPERBLOCK_THREADS + threadIdx.x, warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    const int block = slot / 32;
    float3 low = make_float3(INFINITY, INFINITY, INFINITY), high = make_float3(-INFINITY, -INFINITY, -INFINITY);
    if (slot < d.numAtoms) {
        int posqIndex = d.slotPosqIndex[slot];
        int atom = betweenSorts ? -1 : d.atomIndex[posqIndex];
        auto wrapped = wrapIntoBox(loadPosition(posq, posqIndex), d.box);
        float3 r = make_float3((float) wrapped.x, (float) wrapped.y, (float) wrapped.z);
        bool doublePairs = false;
        if constexpr (std::is_same<PosT, NarumiDouble4>::value) {  // double pairs come with OpenMM's double posq
            doublePairs = (d.slotPositionsDouble != nullptr);
            if (doublePairs)
                r = gatherDoubleSlot(d, slot, atom, wrapped, betweenSorts);
        }
        float charge;
        if (betweenSorts) {
            float4 previous = d.slotPositions[slot];
            charge = previous.w;
            if (!doublePairs && d.box.periodic) {
                float3 step = narumiMinimumImage(make_float3(r.x - previous.x, r.y - previous.y, r.z - previous.z), d.box);
                r = make_float3(previous.x + step.x, previous.y + step.y, previous.z + step.z);
            }
        }
        else {
            float4 parameters = d.atomParameters[atom];
            charge = parameters.x;
            d.slotLennardJones[slot] = make_float2(parameters.y, parameters.z);
            if (d.numTableClasses > 0)
                d.slotTableClass[slot] = d.atomTableClass[atom];
            d.slotOfAtom[atom] = slot;
        }
        d.slotPositions[slot] = make_float4(r.x, r.y, r.z, charge);
        low = high = r;
        // The list holds every pair within cutoff + skin when it was built: valid while no atom has moved skin / 2.
        if (betweenSorts) {
            float4 built = d.builtPositions[slot];
            float dx = r.x - built.x, dy = r.y - built.y, dz = r.z - built.z;
            if (dx * dx + dy * dy + dz * dz > d.halfSkin2)
                d.status->rebuildList = 1;
        }
    }
    else if (slot < d.numSlots && !betweenSorts) {
        d.slotPositions[slot] = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
        d.slotLennardJones[slot] = make_float2(0.0f, 0.0f);
        if (d.numTableClasses > 0)
            d.slotTableClass[slot] = 0;  // any class: the pair kernels put padding slots at NaN
        if (d.slotPositionsDouble != nullptr) {
            d.slotPositionsDouble[slot] = NarumiDouble4{0.0, 0.0, 0.0, 0.0};
            d.slotLennardJonesDouble[slot] = make_double2(0.0, 0.0);
        }
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

template <class PosT>
void launchGatherSlots(const NarumiNonbondedData& d, bool betweenSorts, cudaStream_t stream) {
    preferSharedCarveout(gatherSlotsAndBounds<PosT>, d.sharedCarveout);
    gatherSlotsAndBounds<PosT><<<d.numSuperblocks, SUPERBLOCK_THREADS, 0, stream>>>(d, betweenSorts);
}

} // namespace

void narumiGatherSlots(const NarumiNonbondedData& data, bool posqIsDouble, bool betweenSorts, cudaStream_t stream) {
    if (posqIsDouble)
        launchGatherSlots<NarumiDouble4>(data, betweenSorts, stream);
    else
        launchGatherSlots<float4>(data, betweenSorts, stream);
}

} // namespace OpenMMNarumi
