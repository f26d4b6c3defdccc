#ifndef NARUMI_POTENTIAL_MAP_MSM_KERNELS_CUH_
#define NARUMI_POTENTIAL_MAP_MSM_KERNELS_CUH_

/**
 * Multilevel summation's long-range stages on the GPU, in double precision, one kernel each, in the order the host
 * (MsmLongRangeCuda.cu) launches them: anterpolation onto the finest lattice, transfers along one axis (restriction
 * up, prolongation down), each level's lattice sum, and interpolation to the map's points; for open boundaries, then
 * for periodic cells (lattices along the cell vectors, indices wrapped).  The same arithmetic as the CPU engine
 * (src/MsmLongRange.cpp, src/MsmPeriodic.cpp) with the same basis functions (MsmNumerics.h); only the order of
 * additions differs (atomics in the anterpolation, gathers for the periodic prolongation's scatter).
 */

#include "MsmLongRange.h"
#include "MsmNumerics.h"
#include "PotentialMap.h"
#include <cuda_runtime.h>

namespace OpenMMNarumi::PotentialMap {

/** One lattice on the device: point (i, j, k) at origin + (i, j, k) * spacing, values x fastest. */
struct MsmDeviceLevel {
    double origin[3];
    double spacing;
    int dims[3];
    double* values;

    __device__ size_t index(int i, int j, int k) const {
        return (size_t) i + (size_t) dims[0] * ((size_t) j + (size_t) dims[1] * k);
    }
    __device__ size_t size() const {
        return (size_t) dims[0] * dims[1] * dims[2];
    }
    /** The (i, j, k) of a linear index. */
    __device__ void point(size_t n, int& i, int& j, int& k) const {
        i = (int) (n % dims[0]);
        j = (int) ((n / dims[0]) % dims[1]);
        k = (int) (n / ((size_t) dims[0] * dims[1]));
    }
};

/** The 2 order + 1 weights of a transfer along one axis (Msm::transferWeights), passed by value. */
struct MsmTransferWeights {
    double w[11];
};

/** The map's points: origin + (i, j, k) * spacing, x fastest. */
struct MsmMapPoints {
    double origin[3];
    double spacing[3];
    int dims[3];
};

/** Each atom's charge spread over its (order + 1)^3 points of the finest lattice (double atomics). */
__global__ void msmAnterpolateKernel(const double* __restrict__ positions, const double* __restrict__ charges, int numAtoms,
                                     MsmDeviceLevel grid, int order) {
    for (int atom = blockIdx.x * blockDim.x + threadIdx.x; atom < numAtoms; atom += gridDim.x * blockDim.x) {
        const double q = charges[atom];
        if (q == 0)
            continue;
        double weights[3][6];
        int first[3];
        for (int d = 0; d < 3; d++)
            first[d] = Msm::stencilWeights((positions[3 * atom + d] - grid.origin[d]) / grid.spacing, weights[d], order);
        for (int c = 0; c <= order; c++)
            for (int b = 0; b <= order; b++) {
                const double wbc = q * weights[1][b] * weights[2][c];
                for (int a = 0; a <= order; a++)
                    atomicAdd(&grid.values[grid.index(first[0] + a, first[1] + b, first[2] + c)], wbc * weights[0][a]);
            }
    }
}

/**
 * One axis of a transfer, one thread per point of `to` (whose dims differ from from's along axis only): restriction
 * (coarse point m gathers fine points f = 2 (m - margin) + t) or prolongation (toFine: fine f gathers coarse m with
 * f = 2 (m - margin) + t), t = -order..order, weight phi(t / 2).  accumulate adds into `to` instead of writing it.
 */
__global__ void msmTransferAxisKernel(MsmDeviceLevel from, MsmDeviceLevel to, int axis, bool toFine, int order, int margin,
                                      MsmTransferWeights weights, bool accumulate) {
    const size_t count = to.size();
    for (size_t n = blockIdx.x * (size_t) blockDim.x + threadIdx.x; n < count; n += (size_t) gridDim.x * blockDim.x) {
        int p[3];
        to.point(n, p[0], p[1], p[2]);
        const int out = p[axis];
        double sum = 0;
        for (int t = -order; t <= order; t++) {
            int source;
            if (toFine) {
                if ((out - t) % 2 != 0)
                    continue;
                source = (out - t) / 2 + margin;
            }
            else
                source = 2 * (out - margin) + t;
            if (source < 0 || source >= from.dims[axis])
                continue;
            int q[3] = {p[0], p[1], p[2]};
            q[axis] = source;
            sum += weights.w[t + order] * from.values[from.index(q[0], q[1], q[2])];
        }
        if (accumulate)
            to.values[n] += sum;
        else
            to.values[n] = sum;
    }
}

/**
 * e = K * q on one level, one thread per point of e: e_m = sum over offsets d within the radius of weights[d]
 * q_(m + d), open boundaries (no charge outside the lattice); weights x fastest over (2 radius + 1) per axis.
 */
__global__ void msmLatticeSumKernel(MsmDeviceLevel q, MsmDeviceLevel e, const double* __restrict__ weights, int rx, int ry, int rz) {
    const size_t count = e.size();
    const int wx = 2 * rx + 1, wy = 2 * ry + 1;
    for (size_t n = blockIdx.x * (size_t) blockDim.x + threadIdx.x; n < count; n += (size_t) gridDim.x * blockDim.x) {
        int i, j, k;
        e.point(n, i, j, k);
        double sum = 0;
        for (int dz = max(-rz, -k); dz <= min(rz, q.dims[2] - 1 - k); dz++)
            for (int dy = max(-ry, -j); dy <= min(ry, q.dims[1] - 1 - j); dy++) {
                const double* w = weights + (size_t) wx * ((size_t) (dy + ry) + wy * (dz + rz)) + rx;
                const double* source = q.values + q.index(i, j + dy, k + dz);
                for (int dx = max(-rx, -i); dx <= min(rx, q.dims[0] - 1 - i); dx++)
                    sum += w[dx] * source[dx];
            }
        e.values[n] = sum;
    }
}

/** values[point] += ONE_4PI_EPS0 times the finest lattice's potential interpolated at each map point. */
__global__ void msmInterpolateKernel(MsmDeviceLevel finest, MsmMapPoints map, int order, double* __restrict__ values) {
    const size_t count = (size_t) map.dims[0] * map.dims[1] * map.dims[2];
    for (size_t n = blockIdx.x * (size_t) blockDim.x + threadIdx.x; n < count; n += (size_t) gridDim.x * blockDim.x) {
        const int index[3] = {(int) (n % map.dims[0]), (int) ((n / map.dims[0]) % map.dims[1]),
                              (int) (n / ((size_t) map.dims[0] * map.dims[1]))};
        double weights[3][6];
        int first[3];
        for (int d = 0; d < 3; d++) {
            const double p = map.origin[d] + index[d] * map.spacing[d];
            first[d] = Msm::stencilWeights((p - finest.origin[d]) / finest.spacing, weights[d], order);
        }
        double sum = 0;
        for (int c = 0; c <= order; c++)
            for (int b = 0; b <= order; b++) {
                const double* line = finest.values + finest.index(first[0], first[1] + b, first[2] + c);
                double partial = 0;
                for (int a = 0; a <= order; a++)
                    partial += weights[0][a] * line[a];
                sum += weights[1][b] * weights[2][c] * partial;
            }
        values[n] += ONE_4PI_EPS0 * sum;
    }
}

// ---- the periodic scheme (src/MsmPeriodic.cpp): lattices along the cell vectors, indices wrapped ----------------------

/** A periodic lattice on the device: dims points along each cell vector, values x fastest. */
struct MsmPeriodicLevel {
    int dims[3];
    double* values;

    __device__ size_t index(int i, int j, int k) const {
        return (size_t) i + (size_t) dims[0] * ((size_t) j + (size_t) dims[1] * k);
    }
    __device__ size_t wrappedIndex(int i, int j, int k) const {
        return index(((i % dims[0]) + dims[0]) % dims[0], ((j % dims[1]) + dims[1]) % dims[1], ((k % dims[2]) + dims[2]) % dims[2]);
    }
    __device__ size_t size() const {
        return (size_t) dims[0] * dims[1] * dims[2];
    }
    __device__ void point(size_t n, int& i, int& j, int& k) const {
        i = (int) (n % dims[0]);
        j = (int) ((n / dims[0]) % dims[1]);
        k = (int) (n / ((size_t) dims[0] * dims[1]));
    }
};

/** Fractional coordinates = position * inverse (the cell's inverse, rows as in MsmPeriodicPlan). */
struct MsmCellInverse {
    double m[3][3];
};

/** A point's periodic stencil: the first wrapped index and weights along each cell vector. */
__device__ inline void msmPeriodicStencil(const double p[3], const MsmCellInverse& cell, const int dims[3], int order,
                                          int first[3], double weights[3][6]) {
    for (int d = 0; d < 3; d++) {
        const double f = p[0] * cell.m[0][d] + p[1] * cell.m[1][d] + p[2] * cell.m[2][d];
        first[d] = Msm::stencilWeights((f - floor(f)) * dims[d], weights[d], order);
    }
}

/** Each atom's charge spread over its (order + 1)^3 wrapped points of the finest periodic lattice. */
__global__ void msmAnterpolatePeriodicKernel(const double* __restrict__ positions, const double* __restrict__ charges, int numAtoms,
                                             MsmCellInverse cell, MsmPeriodicLevel grid, int order) {
    for (int atom = blockIdx.x * blockDim.x + threadIdx.x; atom < numAtoms; atom += gridDim.x * blockDim.x) {
        const double q = charges[atom];
        if (q == 0)
            continue;
        double weights[3][6];
        int first[3];
        msmPeriodicStencil(positions + 3 * atom, cell, grid.dims, order, first, weights);
        for (int c = 0; c <= order; c++)
            for (int b = 0; b <= order; b++)
                for (int a = 0; a <= order; a++)
                    atomicAdd(&grid.values[grid.wrappedIndex(first[0] + a, first[1] + b, first[2] + c)],
                              q * weights[0][a] * weights[1][b] * weights[2][c]);
    }
}

/**
 * One axis of a periodic transfer, one thread per point of `to`: restriction (coarse m gathers fine 2 m + t) or
 * prolongation (toFine: fine f gathers coarse m for every t with 2 m + t = f modulo the fine points, the gather form
 * of the CPU's scatter), t = -order..order, weight phi(t / 2); accumulate adds into `to`.
 */
__global__ void msmTransferAxisPeriodicKernel(MsmPeriodicLevel from, MsmPeriodicLevel to, int axis, bool toFine, int order,
                                              MsmTransferWeights weights, bool accumulate) {
    const size_t count = to.size();
    const int numFrom = from.dims[axis];
    for (size_t n = blockIdx.x * (size_t) blockDim.x + threadIdx.x; n < count; n += (size_t) gridDim.x * blockDim.x) {
        int p[3];
        to.point(n, p[0], p[1], p[2]);
        const int out = p[axis];
        double sum = 0;
        for (int t = -order; t <= order; t++) {
            int source;
            if (toFine) {
                if (((out - t) % 2 + 2) % 2 != 0)
                    continue;
                source = (out - t) / 2;
            }
            else
                source = 2 * out + t;
            int q[3] = {p[0], p[1], p[2]};
            q[axis] = ((source % numFrom) + numFrom) % numFrom;
            sum += weights.w[t + order] * from.values[from.index(q[0], q[1], q[2])];
        }
        if (accumulate)
            to.values[n] += sum;
        else
            to.values[n] = sum;
    }
}

/** e = K (*) q on a periodic lattice through K's nonzero entries, one thread per point. */
__global__ void msmCircularSumKernel(MsmPeriodicLevel q, MsmPeriodicLevel e, const MsmKernelEntry* __restrict__ entries, int numEntries) {
    const size_t count = e.size();
    for (size_t n = blockIdx.x * (size_t) blockDim.x + threadIdx.x; n < count; n += (size_t) gridDim.x * blockDim.x) {
        int i, j, k;
        e.point(n, i, j, k);
        double sum = 0;
        for (int m = 0; m < numEntries; m++) {
            const MsmKernelEntry entry = entries[m];
            sum += entry.weight * q.values[q.wrappedIndex(i + entry.di, j + entry.dj, k + entry.dk)];
        }
        e.values[n] = sum;
    }
}

/** values[point] += ONE_4PI_EPS0 times the finest periodic lattice's potential interpolated at each map point. */
__global__ void msmInterpolatePeriodicKernel(MsmPeriodicLevel finest, MsmCellInverse cell, MsmMapPoints map, int order,
                                             double* __restrict__ values) {
    const size_t count = (size_t) map.dims[0] * map.dims[1] * map.dims[2];
    for (size_t n = blockIdx.x * (size_t) blockDim.x + threadIdx.x; n < count; n += (size_t) gridDim.x * blockDim.x) {
        const int index[3] = {(int) (n % map.dims[0]), (int) ((n / map.dims[0]) % map.dims[1]),
                              (int) (n / ((size_t) map.dims[0] * map.dims[1]))};
        double p[3];
        for (int d = 0; d < 3; d++)
            p[d] = map.origin[d] + index[d] * map.spacing[d];
        double weights[3][6];
        int first[3];
        msmPeriodicStencil(p, cell, finest.dims, order, first, weights);
        double sum = 0;
        for (int c = 0; c <= order; c++)
            for (int b = 0; b <= order; b++)
                for (int a = 0; a <= order; a++)
                    sum += weights[0][a] * weights[1][b] * weights[2][c] *
                           finest.values[finest.wrappedIndex(first[0] + a, first[1] + b, first[2] + c)];
        values[n] += ONE_4PI_EPS0 * sum;
    }
}

} // namespace OpenMMNarumi::PotentialMap

#endif // NARUMI_POTENTIAL_MAP_MSM_KERNELS_CUH_
