#ifndef NARUMI_BOUNDS_TESTS_CUH_
#define NARUMI_BOUNDS_TESTS_CUH_

/**
 * Bounding-box tests of the neighbour search: whether two blocks' (or superblocks') boxes, or an atom and a block's
 * box, can come within the cutoff.  Used by findNeighbors.cu and by computeTiles.cu's overflow kernel, which tests
 * whole blocks the list had no room for.
 */

#include "NarumiNonbondedTypes.h"
#include "NarumiPairInteraction.cuh"

namespace NarumiPlugin {

/**
 * Whether any point of box A (centre, half extents, bounding-sphere radius in w) can be within the cutoff of any
 * point of box B.  Rectangular boxes: the per-axis gap between the boxes at the centres' minimum image is a lower
 * bound on every pair's distance in any image.  Triclinic boxes: bounding spheres, with the centres' displacement v0
 * reduced as the pair kernel reduces it and then minimised over the 27 images v0 + i a + j b + k c, |i|,|j|,|k| <= 1.
 * Those contain every image shorter than D = cutoff + R_A + R_B whenever D < min(a_x / 2, b_y, 1.5 c_z) (reduced
 * form: |v0| components are at most half the diagonal, |b_x|, |c_x| <= a_x / 2, |c_y| <= b_y / 2); larger boxes
 * are taken as interacting.
 */
__device__ inline bool boundsWithinCutoff(const NarumiNonbondedData& d, float4 centerA, float4 halfA, float4 centerB, float4 halfB,
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

__device__ inline bool blocksInteract(const NarumiNonbondedData& d, int blockI, int blockJ) {
    bool untested;
    return boundsWithinCutoff(d, d.blockCenters[blockI], d.blockHalfExtents[blockI], d.blockCenters[blockJ], d.blockHalfExtents[blockJ], untested);
}

/** Whether an atom at position can be within the cutoff of any atom of a block: a point against its bounding box. */
__device__ inline bool atomNearBounds(const NarumiNonbondedData& d, float4 position, float4 center, float4 halfExtents) {
    bool untested;
    return boundsWithinCutoff(d, center, halfExtents, make_float4(position.x, position.y, position.z, 0.0f),
                              make_float4(0.0f, 0.0f, 0.0f, 0.0f), untested);
}

} // namespace NarumiPlugin

#endif // NARUMI_BOUNDS_TESTS_CUH_
