#ifndef NARUMI_POSITIONS_CUH_
#define NARUMI_POSITIONS_CUH_

/** Reading OpenMM's posq in its own precision (float4 or double4) and wrapping positions into the periodic box. */

#include "NarumiNonbondedTypes.h"

namespace OpenMMNarumi {

template <class Real>
struct Vector3 {
    Real x, y, z;
};

/**
 * Shift a position into the periodic box, in the precision of posq, with the box vectors of that precision: the brick
 * [0, a_x) x [0, b_y) x [0, c_z), which is a unit cell of any box in OpenMM's reduced form (z first, then y, then x).
 */
template <class Real, class V3>
__device__ Vector3<Real> wrapIntoBrick(Vector3<Real> r, V3 invSize, V3 vecX, V3 vecY, V3 vecZ) {
    Real nz = floor(r.z * invSize.z);
    r.x -= nz * vecZ.x;
    r.y -= nz * vecZ.y;
    r.z -= nz * vecZ.z;
    Real ny = floor(r.y * invSize.y);
    r.x -= ny * vecY.x;
    r.y -= ny * vecY.y;
    Real nx = floor(r.x * invSize.x);
    r.x -= nx * vecX.x;
    return r;
}

__device__ inline Vector3<float> wrapIntoBox(Vector3<float> r, const NarumiBox& box) {
    return box.periodic ? wrapIntoBrick(r, box.invSize, box.vecX, box.vecY, box.vecZ) : r;
}

__device__ inline Vector3<double> wrapIntoBox(Vector3<double> r, const NarumiBox& box) {
    return box.periodic ? wrapIntoBrick(r, box.invSizeDouble, box.vecXDouble, box.vecYDouble, box.vecZDouble) : r;
}

__device__ inline Vector3<float> loadPosition(const float4* posq, int index) {
    float4 p = posq[index];
    return {p.x, p.y, p.z};
}

__device__ inline Vector3<double> loadPosition(const NarumiDouble4* posq, int index) {
    NarumiDouble4 p = posq[index];
    return {p.x, p.y, p.z};
}

/**
 * The staged slot data in the precision of the pairs (the overload's last argument): the float copies, or the double
 * ones that double-precision pairs read.
 */
__device__ inline float4 slotPosition(const NarumiNonbondedData& d, int slot, float) {
    return d.slotPositions[slot];
}
__device__ inline NarumiDouble4 slotPosition(const NarumiNonbondedData& d, int slot, double) {
    return d.slotPositionsDouble[slot];
}
__device__ inline float2 slotLennardJones(const NarumiNonbondedData& d, int slot, float) {
    return d.slotLennardJones[slot];
}
__device__ inline double2 slotLennardJones(const NarumiNonbondedData& d, int slot, double) {
    return d.slotLennardJonesDouble[slot];
}
__device__ inline const NarumiPairConstantsOf<float>& pairConstants(const NarumiNonbondedData& d, float) {
    return d.pair;
}
__device__ inline const NarumiPairConstantsOf<double>& pairConstants(const NarumiNonbondedData& d, double) {
    return d.pairDouble;
}
__device__ inline float4 exceptionParameters(const NarumiNonbondedData& d, int index, float) {
    return d.exceptionParameters[index];
}
__device__ inline NarumiDouble4 exceptionParameters(const NarumiNonbondedData& d, int index, double) {
    return d.exceptionParametersDouble[index];
}

/** A position where no atom is: NaN, so that every r^2 < cutoff^2 test with it fails. */
template <class Real>
__device__ inline typename NarumiVectors<Real>::V4 missingAtom() {
    return {Real(NAN), Real(NAN), Real(NAN), Real(0)};
}

} // namespace OpenMMNarumi

#endif // NARUMI_POSITIONS_CUH_
