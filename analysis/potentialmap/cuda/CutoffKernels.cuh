#ifndef NARUMI_POTENTIAL_MAP_CUTOFF_KERNELS_CUH_
#define NARUMI_POTENTIAL_MAP_CUTOFF_KERNELS_CUH_

/**
 * Cutoff summation with s(r) = (1 - r^2/rc^2)^2 (or multilevel summation's short range, MsmShortRangeShape):
 * Rodrigues et al.'s small-bin algorithm without fixed-size bins.
 *
 * binImagesKernel gives every periodic image that can reach the lattice a cell key; CUB sorts the keys, so a cell's
 * atoms are contiguous and no cell can overflow or lose an atom (the paper spills overflowing bins to the CPU).
 * Images within COINCIDENCE_RADIUS of a lattice point get keys numCells + cell, a second cell list that only the
 * guarded (distance-tested) inner loop reads.  gatherImagesKernel writes the sorted images.
 *
 * cutoffKernel: a block of 128 threads computes a brick of 8 x 8 x 8 lattice points, 4 consecutive points along x
 * per thread.  Cells are sorted x fastest, so the cells of one (y, z) row that lie within the cutoff of the brick form
 * one contiguous range of atoms; the block lists those ranges (clipped to the cutoff sphere row by row), scans their
 * lengths with CUB and stages the concatenated atoms through shared memory, 128 at a time, converting each from
 * double to float relative to the brick's centre.
 */

#include "MapAccumulators.cuh"
#include "PeriodicImages.h"
#include <cub/block/block_scan.cuh>

namespace OpenMMNarumi::PotentialMap {

constexpr int BRICK = 8;                        // lattice points per brick edge
constexpr int CUTOFF_THREADS = 128;
constexpr int CUTOFF_POINTS_X = 4;              // consecutive x points per thread
constexpr int CUTOFF_ROWS_PER_THREAD = 2;
constexpr int CUTOFF_ROWS_PER_PASS = CUTOFF_THREADS * CUTOFF_ROWS_PER_THREAD;
static_assert(CUTOFF_THREADS * CUTOFF_POINTS_X == BRICK * BRICK * BRICK, "one brick per block");

struct CellGrid {
    int nx, ny, nz;                 // lattice points
    double hx, hy, hz;              // lattice spacing (nm)
    int cells[3];                   // cells per axis
    double cellOrigin[3];           // corner of cell (0,0,0), relative to the lattice origin (nm)
    double cellSize[3];             // nm
    int numCells;
    double cutoff;                  // nm
    float invCutoff2;               // nm^-2
    float invCutoff;                // nm^-1
};

/**
 * The pair kernels of the cutoff sum, as the two factors (a, b) of a term q' a b (q' the charge times
 * COULOMB_CONSTANT; inverse = 1/r, or 0 at a coincident point): the cutoff method's s(r)/r = (1 - r^2/rc^2)^2 / r, and
 * multilevel summation's short range 1/r - gamma(r/a)/a within a (MsmNumerics.h: shortRange, -gamma/a at a
 * coincident point), ORDER its scheme.  Beyond the cutoff both are zero without a branch.
 */
struct CutoffShape {
    __device__ static float2 factors(float r2, float inverse, const CellGrid& grid) {
        const float s = fmaxf(fmaf(r2, -grid.invCutoff2, 1.0f), 0.0f);
        return make_float2(s, s * inverse);
    }
};

template <int ORDER>
struct MsmShortRangeShape {
    __device__ static float2 factors(float r2, float inverse, const CellGrid& grid) {
        const float u = fmaf(r2, grid.invCutoff2, -1.0f);   // rho^2 - 1
        float gamma = 1.0f - u * (0.5f - u * 0.375f);
        if (ORDER == 5)
            gamma -= 0.3125f * u * u * u;
        return make_float2(1.0f, u < 0.0f ? inverse - gamma * grid.invCutoff : 0.0f);
    }
};

/** One key per (atom, image): its cell, numCells + cell if it sits on a lattice point, 2 * numCells if not needed. */
__global__ void binImagesKernel(const double* __restrict__ positions, const double* __restrict__ charges, int numAtoms,
                                ImageSet images, double3 latticeOrigin, CellGrid grid, unsigned* keys, unsigned* values) {
    const unsigned index = blockIdx.x * blockDim.x + threadIdx.x;
    const int numImages = images.numImages();
    if (index >= (unsigned) numAtoms * numImages)
        return;
    const int atom = index % numAtoms, image = index / numAtoms;  // consecutive threads read consecutive atoms
    double p[3];
    const double raw[3] = {positions[3 * atom], positions[3 * atom + 1], positions[3 * atom + 2]};
    unsigned key = 2u * grid.numCells;
    if (charges[atom] != 0 && images.image(raw, image, p)) {
        const double relative[3] = {p[0] - latticeOrigin.x, p[1] - latticeOrigin.y, p[2] - latticeOrigin.z};
        const int n[3] = {grid.nx, grid.ny, grid.nz};
        const double h[3] = {grid.hx, grid.hy, grid.hz};
        int cell[3];
        double distance2 = 0;
        for (int d = 0; d < 3; d++) {
            cell[d] = min(max((int) floor((relative[d] - grid.cellOrigin[d]) / grid.cellSize[d]), 0), grid.cells[d] - 1);
            int nearest = min(max((int) rint(relative[d] / h[d]), 0), n[d] - 1);
            double offset = relative[d] - nearest * h[d];
            distance2 += offset * offset;
        }
        key = (unsigned) ((cell[2] * grid.cells[1] + cell[1]) * grid.cells[0] + cell[0]);
        if (distance2 < COINCIDENCE_RADIUS * COINCIDENCE_RADIUS)
            key += grid.numCells;
    }
    keys[index] = key;
    values[index] = index;
}

/** Writes the images in key order as (position relative to the lattice origin, charge * COULOMB_CONSTANT). */
__global__ void gatherImagesKernel(const unsigned* __restrict__ sortedValues, const int* __restrict__ cellStart,
                                   const double* __restrict__ positions, const double* __restrict__ charges, int numAtoms,
                                   ImageSet images, double3 latticeOrigin, CellGrid grid, double4* sortedAtoms) {
    const int index = blockIdx.x * blockDim.x + threadIdx.x;
    if (index >= cellStart[2 * grid.numCells])
        return;
    const unsigned value = sortedValues[index];
    const int atom = value % numAtoms, image = value / numAtoms;
    const double raw[3] = {positions[3 * atom], positions[3 * atom + 1], positions[3 * atom + 2]};
    double p[3];
    images.image(raw, image, p);
    sortedAtoms[index] = make_double4(p[0] - latticeOrigin.x, p[1] - latticeOrigin.y, p[2] - latticeOrigin.z,
                                      charges[atom] * COULOMB_CONSTANT);
}

/** Adds staged atoms [first, first + count) to the thread's partials. */
template <class Shape, bool GUARD_COINCIDENCE>
__device__ __forceinline__ void cutoffAtomBlock(const float4* atoms, int count, const float (&px)[CUTOFF_POINTS_X], float py, float pz,
                                                const CellGrid& grid, float (&partial)[CUTOFF_POINTS_X]) {
    const float skip2 = (float) (COINCIDENCE_RADIUS * COINCIDENCE_RADIUS);
    for (int j = 0; j < count; j++) {
        const float4 atom = atoms[j];
        const float dy = py - atom.y, dz = pz - atom.z;
        const float dyz2 = fmaf(dy, dy, dz * dz);
#pragma unroll
        for (int k = 0; k < CUTOFF_POINTS_X; k++) {
            const float dx = px[k] - atom.x;
            const float r2 = fmaf(dx, dx, dyz2);
            float inverse = sfuRsqrt(r2);
            if (GUARD_COINCIDENCE)
                inverse = r2 >= skip2 ? inverse : 0.0f;
            // Beyond the cutoff the factors are zero: no branch, no divergence.
            const float2 f = Shape::factors(r2, inverse, grid);
            partial[k] = fmaf(atom.w * f.x, f.y, partial[k]);
        }
    }
}

/** The atoms of one cell list (cellStart) that can reach this brick, staged and summed; returns the blocks added. */
template <class Shape, class Accumulator, bool GUARD_COINCIDENCE>
__device__ void cutoffCellList(const int* __restrict__ cellStart, const double4* __restrict__ sortedAtoms, const CellGrid& grid,
                               const double (&brickLo)[3], const double (&brickHi)[3], const double (&centre)[3],
                               const float (&px)[CUTOFF_POINTS_X], float py, float pz, float (&partial)[CUTOFF_POINTS_X],
                               Accumulator (&sum)[CUTOFF_POINTS_X], int& blocksSinceCarry) {
    using BlockScan = cub::BlockScan<int, CUTOFF_THREADS>;
    __shared__ typename BlockScan::TempStorage scanStorage;
    __shared__ int rowFirstAtom[CUTOFF_ROWS_PER_PASS];
    __shared__ int rowOffset[CUTOFF_ROWS_PER_PASS];
    __shared__ float4 staged[CUTOFF_THREADS];
    const int thread = threadIdx.x;
    const double cutoff = grid.cutoff;
    // Candidate rows: cells along y and z that overlap the brick grown by the cutoff.
    int firstCell[3], lastCell[3];
    for (int d = 1; d < 3; d++) {
        firstCell[d] = max((int) floor((brickLo[d] - cutoff - grid.cellOrigin[d]) / grid.cellSize[d]), 0);
        lastCell[d] = min((int) floor((brickHi[d] + cutoff - grid.cellOrigin[d]) / grid.cellSize[d]), grid.cells[d] - 1);
    }
    const int rowsY = lastCell[1] - firstCell[1] + 1;
    const int numRows = rowsY * (lastCell[2] - firstCell[2] + 1);
    for (int passFirstRow = 0; passFirstRow < numRows; passFirstRow += CUTOFF_ROWS_PER_PASS) {
        int rowCount[CUTOFF_ROWS_PER_THREAD], rowStart[CUTOFF_ROWS_PER_THREAD];
        for (int i = 0; i < CUTOFF_ROWS_PER_THREAD; i++) {
            const int row = passFirstRow + thread * CUTOFF_ROWS_PER_THREAD + i;
            rowCount[i] = 0;
            rowStart[i] = 0;
            if (row >= numRows)
                continue;
            const int cy = firstCell[1] + row % rowsY, cz = firstCell[2] + row / rowsY;
            // Distance from the brick to the row in y and z; what is left of the cutoff bounds the cells along x.
            const double cellY = grid.cellOrigin[1] + cy * grid.cellSize[1], cellZ = grid.cellOrigin[2] + cz * grid.cellSize[2];
            const double dy = fmax(0.0, fmax(cellY - brickHi[1], brickLo[1] - (cellY + grid.cellSize[1])));
            const double dz = fmax(0.0, fmax(cellZ - brickHi[2], brickLo[2] - (cellZ + grid.cellSize[2])));
            const double rest2 = cutoff * cutoff - dy * dy - dz * dz;
            if (rest2 <= 0)
                continue;
            const double rest = sqrt(rest2);
            const int cx0 = max((int) floor((brickLo[0] - rest - grid.cellOrigin[0]) / grid.cellSize[0]), 0);
            const int cx1 = min((int) floor((brickHi[0] + rest - grid.cellOrigin[0]) / grid.cellSize[0]), grid.cells[0] - 1);
            if (cx0 > cx1)
                continue;
            const int rowCell = (cz * grid.cells[1] + cy) * grid.cells[0];
            rowStart[i] = cellStart[rowCell + cx0];
            rowCount[i] = cellStart[rowCell + cx1 + 1] - rowStart[i];
        }
        int offsets[CUTOFF_ROWS_PER_THREAD], numStaged;
        __syncthreads();  // the previous pass is done with the shared arrays
        BlockScan(scanStorage).ExclusiveSum(rowCount, offsets, numStaged);
        for (int i = 0; i < CUTOFF_ROWS_PER_THREAD; i++) {
            rowFirstAtom[thread * CUTOFF_ROWS_PER_THREAD + i] = rowStart[i];
            rowOffset[thread * CUTOFF_ROWS_PER_THREAD + i] = offsets[i];
        }
        for (int tileFirst = 0; tileFirst < numStaged; tileFirst += CUTOFF_THREADS) {
            __syncthreads();  // row tables written; the previous tile has been read by everyone
            const int element = tileFirst + thread;
            if (element < numStaged) {
                // The last row whose offset is <= element holds it (rows with no atoms share their successor's offset).
                int low = 0, high = CUTOFF_ROWS_PER_PASS - 1;
                while (low < high) {
                    int middle = (low + high + 1) / 2;
                    if (rowOffset[middle] <= element)
                        low = middle;
                    else
                        high = middle - 1;
                }
                const double4 atom = sortedAtoms[rowFirstAtom[low] + element - rowOffset[low]];
                staged[thread] = make_float4((float) (atom.x - centre[0]), (float) (atom.y - centre[1]), (float) (atom.z - centre[2]), (float) atom.w);
            }
            __syncthreads();
            const int count = min(CUTOFF_THREADS, numStaged - tileFirst);
            for (int first = 0; first < count; first += MAP_ATOM_BLOCK) {
                cutoffAtomBlock<Shape, GUARD_COINCIDENCE>(staged + first, min(MAP_ATOM_BLOCK, count - first), px, py, pz, grid, partial);
#pragma unroll
                for (int k = 0; k < CUTOFF_POINTS_X; k++) {
                    sum[k].add(partial[k]);
                    partial[k] = 0.0f;
                }
                if (++blocksSinceCarry == Common::NARUMI_CARRY_INTERVAL) {
#pragma unroll
                    for (int k = 0; k < CUTOFF_POINTS_X; k++)
                        sum[k].carry();
                    blocksSinceCarry = 0;
                }
            }
        }
    }
}

/** cellStart: 2 * numCells + 1 entries (regular cells, then coincident ones); sortedAtoms as gatherImagesKernel writes. */
template <class Shape, class Accumulator>
__global__ void __launch_bounds__(CUTOFF_THREADS) cutoffKernel(const int* __restrict__ cellStart, const double4* __restrict__ sortedAtoms,
                                                               CellGrid grid, float* __restrict__ map, int* outOfRange) {
    const int thread = threadIdx.x;
    const int tx = thread % (BRICK / CUTOFF_POINTS_X), ty = (thread / (BRICK / CUTOFF_POINTS_X)) % BRICK,
              tz = thread / (BRICK / CUTOFF_POINTS_X * BRICK);
    const int bx = blockIdx.x * BRICK, by = blockIdx.y * BRICK, bz = blockIdx.z * BRICK;
    // The brick's points (clipped to the lattice) and centre, relative to the lattice origin (nm).
    const int first[3] = {bx, by, bz};
    const int last[3] = {min(bx + BRICK, grid.nx) - 1, min(by + BRICK, grid.ny) - 1, min(bz + BRICK, grid.nz) - 1};
    const double h[3] = {grid.hx, grid.hy, grid.hz};
    double brickLo[3], brickHi[3], centre[3];
    for (int d = 0; d < 3; d++) {
        brickLo[d] = first[d] * h[d];
        brickHi[d] = last[d] * h[d];
        centre[d] = (first[d] + 0.5 * (BRICK - 1)) * h[d];
    }
    float px[CUTOFF_POINTS_X];
#pragma unroll
    for (int k = 0; k < CUTOFF_POINTS_X; k++)
        px[k] = (float) ((tx * CUTOFF_POINTS_X + k - 0.5 * (BRICK - 1)) * grid.hx);
    const float py = (float) ((ty - 0.5 * (BRICK - 1)) * grid.hy);
    const float pz = (float) ((tz - 0.5 * (BRICK - 1)) * grid.hz);

    Accumulator sum[CUTOFF_POINTS_X];
    float partial[CUTOFF_POINTS_X];
#pragma unroll
    for (int k = 0; k < CUTOFF_POINTS_X; k++) {
        sum[k].init();
        partial[k] = 0.0f;
    }
    int blocksSinceCarry = 0;
    cutoffCellList<Shape, Accumulator, false>(cellStart, sortedAtoms, grid, brickLo, brickHi, centre, px, py, pz, partial, sum, blocksSinceCarry);
    // Images sitting on lattice points (rare: usually none) go through the distance-tested loop.
    if (cellStart[2 * grid.numCells] > cellStart[grid.numCells])
        cutoffCellList<Shape, Accumulator, true>(cellStart + grid.numCells, sortedAtoms, grid, brickLo, brickHi, centre, px, py, pz, partial, sum,
                                          blocksSinceCarry);

    const int iy = by + ty, iz = bz + tz;
    bool anyOutOfRange = false;
#pragma unroll
    for (int k = 0; k < CUTOFF_POINTS_X; k++) {
        const int ix = bx + tx * CUTOFF_POINTS_X + k;
        if (ix < grid.nx && iy < grid.ny && iz < grid.nz) {
            map[((size_t) iz * grid.ny + iy) * grid.nx + ix] = sum[k].value();
            anyOutOfRange |= sum[k].outOfRange();
        }
    }
    if (anyOutOfRange)
        atomicOr(outOfRange, 1);
}

/** map += the long range (multilevel summation's smooth levels, in double). */
__global__ void addLongRangeKernel(const double* __restrict__ longRange, float* __restrict__ map, size_t numPoints) {
    for (size_t i = blockIdx.x * (size_t) blockDim.x + threadIdx.x; i < numPoints; i += (size_t) gridDim.x * blockDim.x)
        map[i] = (float) ((double) map[i] + longRange[i]);
}

/** The running sum of a time average: sum += map. */
__global__ void addMapKernel(const float* __restrict__ map, double* __restrict__ sum, size_t numPoints) {
    for (size_t i = blockIdx.x * (size_t) blockDim.x + threadIdx.x; i < numPoints; i += (size_t) gridDim.x * blockDim.x)
        sum[i] += map[i];
}

} // namespace OpenMMNarumi::PotentialMap

#endif // NARUMI_POTENTIAL_MAP_CUTOFF_KERNELS_CUH_
