#ifndef NARUMI_POTENTIAL_MAP_MSM_KERNELS_CUH_
#define NARUMI_POTENTIAL_MAP_MSM_KERNELS_CUH_

/**
 * Multilevel summation's long-range stages on the GPU, in double precision, one kernel each, in the order the host
 * (MsmLongRangeCuda.cu) launches them: anterpolation onto the finest lattice, transfers along one axis (restriction
 * up, prolongation down), each level's lattice sum (open) or circular sum over the kernel's nonzero entries
 * (periodic), and interpolation to the map's points.  Open and periodic lattices differ only in where a point's
 * stencil lies (MsmOpenPlacement, MsmPeriodicPlacement: wrapped indices along the cell vectors).  The same arithmetic
 * as the CPU engine (src/MsmLongRange.cpp, src/MsmPeriodic.cpp) with the same basis functions (MsmNumerics.h); only
 * the order of additions differs (atomics in the anterpolation, gathers for the periodic prolongation's scatter).
 */

#include "MsmLongRange.h"
#include "MsmNumerics.h"
#include "PotentialMap.h"
#include <cuda_runtime.h>

namespace OpenMMNarumi::PotentialMap {

/** A lattice's values on the device, x fastest, dims points along each axis (or cell vector, when periodic). */
struct MsmDeviceLattice {
    int dims[3];
    double* values;

    __device__ size_t index(int i, int j, int k) const {
        return (size_t) i + (size_t) dims[0] * ((size_t) j + (size_t) dims[1] * k);
    }
    /** index() of a periodic lattice's point, the indices wrapped into [0, dims). */
    __device__ size_t wrappedIndex(int i, int j, int k) const {
        return index(((i % dims[0]) + dims[0]) % dims[0], ((j % dims[1]) + dims[1]) % dims[1], ((k % dims[2]) + dims[2]) % dims[2]);
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

/** Fractional coordinates = position * inverse (the cell's inverse, rows as in MsmPeriodicPlan). */
struct MsmCellInverse {
    double m[3][3];
};

/** Where an open lattice lies: point (i, j, k) at origin + (i, j, k) * spacing; a stencil's indices stay inside. */
struct MsmOpenPlacement {
    static constexpr bool PERIODIC = false;
    double origin[3];
    double spacing;

    __device__ void stencil(const double p[3], const int[3], int order, int first[3], double weights[3][6]) const {
        for (int d = 0; d < 3; d++)
            first[d] = Msm::stencilWeights((p[d] - origin[d]) / spacing, weights[d], order);
    }
};

/** A periodic lattice along the cell vectors: a stencil's indices are wrapped. */
struct MsmPeriodicPlacement {
    static constexpr bool PERIODIC = true;
    MsmCellInverse cell;

    __device__ void stencil(const double p[3], const int dims[3], int order, int first[3], double weights[3][6]) const {
        for (int d = 0; d < 3; d++) {
            const double f = p[0] * cell.m[0][d] + p[1] * cell.m[1][d] + p[2] * cell.m[2][d];
            first[d] = Msm::stencilWeights((f - floor(f)) * dims[d], weights[d], order);
        }
    }
};

/** The lattice index of stencil point (a, b, c) from first. */
template <class Placement>
__device__ inline size_t msmStencilIndex(const MsmDeviceLattice& grid, const int first[3], int a, int b, int c) {
    return Placement::PERIODIC ? grid.wrappedIndex(first[0] + a, first[1] + b, first[2] + c)
                               : grid.index(first[0] + a, first[1] + b, first[2] + c);
}

/** Each atom's charge spread over its (order + 1)^3 points of the finest lattice (double atomics). */
template <class Placement>
__global__ void msmAnterpolateKernel(const double* __restrict__ positions, const double* __restrict__ charges, int numAtoms,
                                     Placement placement, MsmDeviceLattice grid, int order) {
    for (int atom = blockIdx.x * blockDim.x + threadIdx.x; atom < numAtoms; atom += gridDim.x * blockDim.x) {
        const double q = charges[atom];
        if (q == 0)
            continue;
        double weights[3][6];
        int first[3];
        placement.stencil(positions + 3 * atom, grid.dims, order, first, weights);
        for (int c = 0; c <= order; c++)
            for (int b = 0; b <= order; b++) {
                const double wbc = q * weights[1][b] * weights[2][c];
                for (int a = 0; a <= order; a++)
                    atomicAdd(&grid.values[msmStencilIndex<Placement>(grid, first, a, b, c)], wbc * weights[0][a]);
            }
    }
}

/**
 * One axis of a transfer, one thread per point of `to` (whose dims differ from from's along axis only): restriction
 * (coarse point m gathers fine points f = 2 (m - margin) + t) or prolongation (toFine: fine f gathers coarse m with
 * f = 2 (m - margin) + t), t = -order..order, weight phi(t / 2).  Open lattices skip points beyond their ends;
 * periodic ones (margin 0) wrap them, which for prolongation is the gather form of the CPU engine's scatter.
 * accumulate adds into `to` instead of writing it.
 */
__global__ void msmTransferAxisKernel(MsmDeviceLattice from, MsmDeviceLattice to, int axis, bool toFine, int order, int margin,
                                      bool periodic, MsmTransferWeights weights, bool accumulate) {
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
                if ((out - t) % 2 != 0)
                    continue;
                source = (out - t) / 2 + margin;
            }
            else
                source = 2 * (out - margin) + t;
            if (periodic)
                source = ((source % numFrom) + numFrom) % numFrom;
            else if (source < 0 || source >= numFrom)
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
__global__ void msmLatticeSumKernel(MsmDeviceLattice q, MsmDeviceLattice e, const double* __restrict__ weights, int rx, int ry, int rz) {
    const size_t count = e.size();
    const int wx = 2 * rx + 1, wy = 2 * ry + 1;
    for (size_t n = blockIdx.x * (size_t) blockDim.x + threadIdx.x; n < count; n += (size_t) gridDim.x * blockDim.x) {
        int i, j, k;
        e.point(n, i, j, k);
        // Absolute source indices, each clamped to the lattice: the stencil's part inside it.
        const int iLow = max(i - rx, 0), iHigh = min(i + rx, q.dims[0] - 1);
        double sum = 0;
        for (int kk = max(k - rz, 0); kk <= min(k + rz, q.dims[2] - 1); kk++)
            for (int jj = max(j - ry, 0); jj <= min(j + ry, q.dims[1] - 1); jj++) {
                const double* weightRow = weights + (size_t) wx * ((size_t) (jj - j + ry) + (size_t) wy * (kk - k + rz)) + (rx - i);
                const double* sourceRow = q.values + q.index(0, jj, kk);
                for (int ii = iLow; ii <= iHigh; ii++)
                    sum += weightRow[ii] * sourceRow[ii];
            }
        e.values[n] = sum;
    }
}

/** values[point] += COULOMB_CONSTANT times the finest lattice's potential interpolated at each map point. */
template <class Placement>
__global__ void msmInterpolateKernel(MsmDeviceLattice finest, Placement placement, MsmMapPoints map, int order,
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
        placement.stencil(p, finest.dims, order, first, weights);
        double sum = 0;
        for (int c = 0; c <= order; c++)
            for (int b = 0; b <= order; b++) {
                double partial = 0;
                for (int a = 0; a <= order; a++)
                    partial += weights[0][a] * finest.values[msmStencilIndex<Placement>(finest, first, a, b, c)];
                sum += weights[1][b] * weights[2][c] * partial;
            }
        values[n] += COULOMB_CONSTANT * sum;
    }
}

/** e = K (*) q on a periodic lattice through K's nonzero entries, one thread per point. */
__global__ void msmCircularSumKernel(MsmDeviceLattice q, MsmDeviceLattice e, const MsmKernelEntry* __restrict__ entries, int numEntries) {
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

} // namespace OpenMMNarumi::PotentialMap

#endif // NARUMI_POTENTIAL_MAP_MSM_KERNELS_CUH_
