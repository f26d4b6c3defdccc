#ifndef NARUMI_BOUNDS_TESTS_CUH_
#define NARUMI_BOUNDS_TESTS_CUH_

/**
 * Bounding-box tests of the neighbour search: whether two blocks' (or superblocks') boxes, or an atom and a block's
 * box, can come within the cutoff.  Used by findNeighbors.cu and by computeTiles.cu's overflow path, which tests
 * whole blocks the list had no room for.
 */

#include "NarumiNonbondedTypes.h"
#include "NarumiPairInteraction.cuh"

namespace OpenMMNarumi {

/** The squared length of the per-axis gaps between two boxes whose centres are delta apart (h: summed half extents). */
__device__ inline float gapSquared(float x, float y, float z, float hx, float hy, float hz) {
    float gx = fmaxf(0.0f, fabsf(x) - hx), gy = fmaxf(0.0f, fabsf(y) - hy), gz = fmaxf(0.0f, fabsf(z) - hz);
    return gx * gx + gy * gy + gz * gz;
}

/**
 * Whether any point of box A (centre, half extents, bounding-sphere radius in w) can be within the cutoff of any point
 * of box B in any periodic image: the per-axis gaps between the boxes (a lower bound on every pair's distance) at
 * each image of B's centre that can come that close.
 * - Rectangular boxes: the images are independent per axis, and the centres' minimum image minimises every gap.
 * - Triclinic boxes (reduced form: a along x, b in the xy plane): after the reduced minimum image each component of
 *   the centres' displacement is within half the box's diagonal element, and every other image moves some component
 *   by at least that much, so when cutoff + R_A + R_B < half of each diagonal element that image alone decides (the
 *   gaps' length is at least the displacement's minus |h_A + h_B|).  Larger boxes (superblocks) enumerate the images
 *   level by level, c, then b, then a, each at the nearest three: they hold every image that can come within the
 *   cutoff when cutoff + h <= 1.5 times the diagonal element on each axis.  Beyond that (a box of a few nm and huge
 *   bounds) the pair is taken as interacting, and `untested` says so: the search counts such pairs.
 */
__device__ inline bool boundsWithinCutoff(const NarumiNonbondedData& d, float4 centerA, float4 halfA, float4 centerB, float4 halfB,
                                          bool& untested) {
    untested = false;
    const float cutoff2 = d.tileCutoff2;
    if (!(cutoff2 < INFINITY))
        return true;
    const NarumiBox& box = d.box;
    float3 delta = make_float3(centerB.x - centerA.x, centerB.y - centerA.y, centerB.z - centerA.z);
    const float hx = halfA.x + halfB.x, hy = halfA.y + halfB.y, hz = halfA.z + halfB.z;
    if (box.periodic)
        delta = narumiMinimumImage(delta, box);
    const float cutoff = sqrtf(cutoff2);
    bool oneImage = !box.periodic || !box.triclinic ||
                    cutoff + halfA.w + halfB.w < 0.49f * fminf(box.size.x, fminf(box.size.y, box.size.z));
    if (oneImage)
        return gapSquared(delta.x, delta.y, delta.z, hx, hy, hz) < cutoff2;
    if (!(hx + cutoff <= 1.499f * box.size.x && hy + cutoff <= 1.499f * box.size.y && hz + cutoff <= 1.499f * box.size.z)) {
        untested = true;
        return true;
    }
    for (int c = -1; c <= 1; c++) {
        float z = delta.z + c * box.vecZ.z;
        float gz = fmaxf(0.0f, fabsf(z) - hz);
        if (gz * gz >= cutoff2)
            continue;
        float y0 = delta.y + c * box.vecZ.y, x0 = delta.x + c * box.vecZ.x;
        float nb = rintf(y0 * box.invSize.y);
        y0 -= nb * box.vecY.y;
        x0 -= nb * box.vecY.x;
        for (int b = -1; b <= 1; b++) {
            float y = y0 + b * box.vecY.y;
            float x = x0 + b * box.vecY.x;
            x -= rintf(x * box.invSize.x) * box.vecX.x;
            for (int a = -1; a <= 1; a++)
                if (gapSquared(x + a * box.vecX.x, y, z, hx, hy, hz) < cutoff2)
                    return true;
        }
    }
    return false;
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

} // namespace OpenMMNarumi

#endif // NARUMI_BOUNDS_TESTS_CUH_
