#ifndef NARUMI_POTENTIAL_MAP_DIRECT_KERNEL_CUH_
#define NARUMI_POTENTIAL_MAP_DIRECT_KERNEL_CUH_

/**
 * Direct Coulomb summation (DCS), the lecture's unroll-and-jam kernel for today's GPUs.
 *
 * A block of 4 x 32 threads computes a tile of 32 x 32 x 2 lattice points; each thread owns 8 consecutive points
 * along x in 2 adjacent z planes (16 points), so every atom read from shared memory (one broadcast 16-byte load) is
 * reused 16 times and dy^2 + dz^2 once per plane.  Per atom and point that leaves one FMA for r^2, one reciprocal
 * square root and one FMA into the partial sum: the SFU's rsqrt (16 per SM and clock) would cap the kernel while the
 * FMA pipe (128 per SM and clock) idles, so SOFTWARE_RSQRT of the 16 points take their 1/r from fmaRsqrt instead.
 *
 * Coordinates are relative to the tile's centre: atoms are converted from double when staged, so points and nearby
 * atoms carry ~1e-7 nm rounding instead of the ~1e-6 nm of coordinates measured from a map corner 10 nm away.
 */

#include "MapAccumulators.cuh"

namespace OpenMMNarumi::PotentialMap {

constexpr int DIRECT_THREADS_X = 4;                 // threads along x, 8 points each
constexpr int DIRECT_THREADS_Y = 32;
constexpr int DIRECT_POINTS_X = 8;
constexpr int DIRECT_POINTS_Z = 2;
constexpr int DIRECT_POINTS = DIRECT_POINTS_X * DIRECT_POINTS_Z;
constexpr int DIRECT_THREADS = DIRECT_THREADS_X * DIRECT_THREADS_Y;
constexpr int DIRECT_TILE_X = DIRECT_THREADS_X * DIRECT_POINTS_X;   // 32 points
constexpr int DIRECT_TILE_Y = DIRECT_THREADS_Y;                     // 32 points
constexpr int DIRECT_TILE_Z = DIRECT_POINTS_Z;                      // 2 points

struct LatticeShape {
    int nx, ny, nz;
    double hx, hy, hz;
};

/** One thread's lattice points, relative to its tile's centre (nm). */
struct DirectPoints {
    float x[DIRECT_POINTS_X];
    float y;
    float z[DIRECT_POINTS_Z];
};

/** Adds the atoms atoms[0 .. count) (tile-centred, charge in kJ/mol/e nm) to the thread's 16 block partials. */
template <int SOFTWARE_RSQRT, bool GUARD_COINCIDENCE>
__device__ __forceinline__ void directAtomBlock(const float4* atoms, int count, const DirectPoints& p, float (&partial)[DIRECT_POINTS]) {
    const float skip2 = (float) (COINCIDENCE_RADIUS * COINCIDENCE_RADIUS);
    for (int j = 0; j < count; j++) {
        const float4 atom = atoms[j];
        const float dy = p.y - atom.y;
        float dyz2[DIRECT_POINTS_Z];
#pragma unroll
        for (int m = 0; m < DIRECT_POINTS_Z; m++) {
            float dz = p.z[m] - atom.z;
            dyz2[m] = fmaf(dz, dz, dy * dy);
        }
#pragma unroll
        for (int k = 0; k < DIRECT_POINTS_X; k++) {
            const float dx = p.x[k] - atom.x;
#pragma unroll
            for (int m = 0; m < DIRECT_POINTS_Z; m++) {
                const int point = k * DIRECT_POINTS_Z + m;
                float r2 = fmaf(dx, dx, dyz2[m]);
                float inverse = point < SOFTWARE_RSQRT ? fmaRsqrt(r2) : sfuRsqrt(r2);
                if (GUARD_COINCIDENCE)
                    inverse = r2 >= skip2 ? inverse : 0.0f;
                partial[point] = fmaf(atom.w, inverse, partial[point]);
            }
        }
    }
}

/**
 * atoms: regular atoms then coincident ones (those within COINCIDENCE_RADIUS of a lattice point, whose pairs are
 * tested), as double4 (position relative to the lattice origin in nm, charge * COULOMB_CONSTANT).
 */
template <class Accumulator, int SOFTWARE_RSQRT>
__global__ void __launch_bounds__(DIRECT_THREADS) directKernel(const double4* __restrict__ atoms, int numRegular, int numCoincident,
                                                               LatticeShape lattice, float* __restrict__ map, int* outOfRange) {
    __shared__ float4 staged[DIRECT_THREADS];
    const int thread = threadIdx.y * DIRECT_THREADS_X + threadIdx.x;
    const int x0 = blockIdx.x * DIRECT_TILE_X, y0 = blockIdx.y * DIRECT_TILE_Y, z0 = blockIdx.z * DIRECT_TILE_Z;
    // The tile's centre, relative to the lattice origin.
    const double centreX = (x0 + 0.5 * (DIRECT_TILE_X - 1)) * lattice.hx;
    const double centreY = (y0 + 0.5 * (DIRECT_TILE_Y - 1)) * lattice.hy;
    const double centreZ = (z0 + 0.5 * (DIRECT_TILE_Z - 1)) * lattice.hz;
    DirectPoints p;
#pragma unroll
    for (int k = 0; k < DIRECT_POINTS_X; k++)
        p.x[k] = (float) ((threadIdx.x * DIRECT_POINTS_X + k - 0.5 * (DIRECT_TILE_X - 1)) * lattice.hx);
    p.y = (float) ((threadIdx.y - 0.5 * (DIRECT_TILE_Y - 1)) * lattice.hy);
#pragma unroll
    for (int m = 0; m < DIRECT_POINTS_Z; m++)
        p.z[m] = (float) ((m - 0.5 * (DIRECT_TILE_Z - 1)) * lattice.hz);

    Accumulator sum[DIRECT_POINTS];
    float partial[DIRECT_POINTS];
#pragma unroll
    for (int i = 0; i < DIRECT_POINTS; i++) {
        sum[i].init();
        partial[i] = 0.0f;
    }
    int blocksSinceCarry = 0;
    const int numAtoms = numRegular + numCoincident;
    for (int base = 0; base < numAtoms; base += DIRECT_THREADS) {
        __syncthreads();  // the previous tile has been read by everyone
        if (base + thread < numAtoms) {
            double4 atom = atoms[base + thread];
            staged[thread] = make_float4((float) (atom.x - centreX), (float) (atom.y - centreY), (float) (atom.z - centreZ), (float) atom.w);
        }
        __syncthreads();
        const int count = min(DIRECT_THREADS, numAtoms - base);
        for (int first = 0; first < count; first += MAP_ATOM_BLOCK) {
            const int blockCount = min(MAP_ATOM_BLOCK, count - first);
            // Only tiles that reach the coincident atoms pay for the distance test (block-uniform branch).
            if (base + first + blockCount <= numRegular)
                directAtomBlock<SOFTWARE_RSQRT, false>(staged + first, blockCount, p, partial);
            else
                directAtomBlock<0, true>(staged + first, blockCount, p, partial);
#pragma unroll
            for (int i = 0; i < DIRECT_POINTS; i++) {
                sum[i].add(partial[i]);
                partial[i] = 0.0f;
            }
            if (++blocksSinceCarry == Common::NARUMI_CARRY_INTERVAL) {
#pragma unroll
                for (int i = 0; i < DIRECT_POINTS; i++)
                    sum[i].carry();
                blocksSinceCarry = 0;
            }
        }
    }
    const int iy = y0 + threadIdx.y;
    bool anyOutOfRange = false;
#pragma unroll
    for (int m = 0; m < DIRECT_POINTS_Z; m++) {
        const int iz = z0 + m;
#pragma unroll
        for (int k = 0; k < DIRECT_POINTS_X; k++) {
            const int ix = x0 + threadIdx.x * DIRECT_POINTS_X + k;
            if (ix < lattice.nx && iy < lattice.ny && iz < lattice.nz) {
                const Accumulator& value = sum[k * DIRECT_POINTS_Z + m];
                map[((size_t) iz * lattice.ny + iy) * lattice.nx + ix] = value.value();
                anyOutOfRange |= value.outOfRange();
            }
        }
    }
    if (anyOutOfRange)
        atomicOr(outOfRange, 1);
}

} // namespace OpenMMNarumi::PotentialMap

#endif // NARUMI_POTENTIAL_MAP_DIRECT_KERNEL_CUH_
