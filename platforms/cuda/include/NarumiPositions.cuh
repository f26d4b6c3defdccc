#ifndef NARUMI_POSITIONS_CUH_
#define NARUMI_POSITIONS_CUH_

/** Reading OpenMM's posq in its own precision (float4 or double4) and wrapping positions into the periodic box. */

#include "NarumiNonbondedTypes.h"

namespace NarumiPlugin {

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

} // namespace NarumiPlugin

#endif // NARUMI_POSITIONS_CUH_
