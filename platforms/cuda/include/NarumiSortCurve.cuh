#ifndef NARUMI_SORT_CURVE_CUH_
#define NARUMI_SORT_CURVE_CUH_

/**
 * The curves along which the sort orders atoms (sortAtoms.cu), host and device, so that the host tests walk them:
 *
 *  - hilbertKey: a 3-d Hilbert curve through a 1024^3 grid, from cell (0, 0, 0) to cell (1023, 0, 0);
 *  - the curve of cubes (sort-curve=cubes, NARUMI_DIAGNOSTICS): a box whose edges differ (a membrane's slab) is cut
 *    into nearly cubic cells of nx x ny x nz cubes, visited back and forth row by row and layer by layer, each cube
 *    by a Hilbert curve turned so that it enters where the previous one left: one unbroken curve whose cells are
 *    nearly cubes in space.  (A Hilbert curve over fractions of each edge makes flat cells in a flat box and flat
 *    blocks; one over cubic cells of the enclosing cube leaves the box and jumps.)
 */

#include <cuda_runtime.h>
#include <vector>

namespace OpenMMNarumi {

/** Spread the low 10 bits of v so that two zero bits follow each one. */
__host__ __device__ inline unsigned int spreadBits(unsigned int v) {
    v &= 0x3ff;
    v = (v | (v << 16)) & 0x030000ff;
    v = (v | (v << 8)) & 0x0300f00f;
    v = (v | (v << 4)) & 0x030c30c3;
    v = (v | (v << 2)) & 0x09249249;
    return v;
}

/**
 * Position of cell (x, y, z) of a 1024^3 grid along a 3-d Hilbert curve (Skilling's transpose algorithm, AIP Conf.
 * Proc. 707, 381 (2004)).  Unlike the Morton curve it never jumps, so 32 consecutive atoms make compact blocks:
 * on the DHFR box their bounding boxes are 2.5x smaller and the blocks within the cutoff of a block 1.4x fewer.
 */
__host__ __device__ inline unsigned int hilbertKey(unsigned int x, unsigned int y, unsigned int z) {
    unsigned int axes[3] = {x, y, z};
    for (unsigned int q = 1u << 9; q > 1; q >>= 1) {
        unsigned int p = q - 1;
        for (int i = 0; i < 3; i++) {
            if (axes[i] & q) {
                axes[0] ^= p;
            }
            else {
                unsigned int t = (axes[0] ^ axes[i]) & p;
                axes[0] ^= t;
                axes[i] ^= t;
            }
        }
    }
    axes[1] ^= axes[0];
    axes[2] ^= axes[1];
    unsigned int flip = 0;
    for (unsigned int q = 1u << 9; q > 1; q >>= 1)
        if (axes[2] & q)
            flip ^= q - 1;
    for (int i = 0; i < 3; i++)
        axes[i] ^= flip;
    return (spreadBits(axes[0]) << 2) | (spreadBits(axes[1]) << 1) | spreadBits(axes[2]);
}

/** The grid of the curve of cubes: cubes along each axis, 2^cubeBits cells along each edge of a cube. */
struct NarumiCubeGrid {
    int cubes[3];
    int cubeBits;
    __host__ __device__ int numCubes() const {
        return cubes[0] * cubes[1] * cubes[2];
    }
};

/** The place of cube (i, j, k) along the back-and-forth path: x fastest, then y, then z, turning at every end. */
__host__ __device__ inline int cubeOrder(const int cube[3], const int cubes[3]) {
    int layer = cube[2];
    int row = layer * cubes[1] + (layer % 2 == 0 ? cube[1] : cubes[1] - 1 - cube[1]);
    return row * cubes[0] + (row % 2 == 0 ? cube[0] : cubes[0] - 1 - cube[0]);
}

/**
 * A cube's turn of the Hilbert curve, one byte: the corner where the curve enters it (bit j: at the high end of axis
 * j) and, in bits 3-4, the axis along which its exit corner lies from the entry corner.
 */
__host__ __device__ inline unsigned int cubeEntryCorner(unsigned char turn) {
    return turn & 7u;
}
__host__ __device__ inline int cubeExitAxis(unsigned char turn) {
    return turn >> 3;
}

/**
 * Position along the curve of cubes of cell g (cell coordinates over the whole grid, g[j] < cubes[j] 2^cubeBits);
 * turns: one byte per cube in the order of the path (narumiCubeTurns).  A grid of one cube of 1024^3 cells is
 * hilbertKey's.
 */
__host__ __device__ inline unsigned int cubeCurveKey(const unsigned int g[3], const NarumiCubeGrid& grid, const unsigned char* turns) {
    int cube[3];
    unsigned int local[3];
    const unsigned int last = (1u << grid.cubeBits) - 1;
    for (int j = 0; j < 3; j++) {
        cube[j] = (int) (g[j] >> grid.cubeBits);
        local[j] = g[j] & last;
    }
    int order = cubeOrder(cube, grid.cubes);
    unsigned char turn = turns[order];
    unsigned int entry = cubeEntryCorner(turn);
    int exitAxis = cubeExitAxis(turn);
    // Into the frame of hilbertKey's curve, which enters at 0 and leaves along its first axis: mirrored so that the
    // entry corner is 0, the exit axis first.
    unsigned int mirrored[3];
    for (int j = 0; j < 3; j++)
        mirrored[j] = ((entry >> j) & 1u) ? last - local[j] : local[j];
    const int shift = 10 - grid.cubeBits;
    unsigned int key = hilbertKey(mirrored[exitAxis] << shift, mirrored[(exitAxis + 1) % 3] << shift, mirrored[(exitAxis + 2) % 3] << shift);
    return ((unsigned int) order << (3 * grid.cubeBits)) | (key >> (3 * shift));
}

/**
 * The turns of the cubes, in the order of the path: the first enters at its corner 0; each leaves at a corner on the
 * face it shares with the next, next to the corner it entered at, and the next enters at the corner facing that one.
 * Host.
 */
inline std::vector<unsigned char> narumiCubeTurns(const NarumiCubeGrid& grid) {
    std::vector<int> cubeAt(grid.numCubes());
    for (int k = 0; k < grid.cubes[2]; k++)
        for (int j = 0; j < grid.cubes[1]; j++)
            for (int i = 0; i < grid.cubes[0]; i++) {
                int cube[3] = {i, j, k};
                cubeAt[cubeOrder(cube, grid.cubes)] = (k * grid.cubes[1] + j) * grid.cubes[0] + i;
            }
    std::vector<unsigned char> turns(grid.numCubes());
    unsigned int entry = 0;
    for (int order = 0; order < grid.numCubes(); order++) {
        int axis = 0;  // the last cube may leave anywhere
        unsigned int nextEntry = 0;
        if (order + 1 < grid.numCubes()) {
            int here = cubeAt[order], next = cubeAt[order + 1];
            int delta[3] = {next % grid.cubes[0] - here % grid.cubes[0],
                            (next / grid.cubes[0]) % grid.cubes[1] - (here / grid.cubes[0]) % grid.cubes[1],
                            next / (grid.cubes[0] * grid.cubes[1]) - here / (grid.cubes[0] * grid.cubes[1])};
            int face = delta[0] != 0 ? 0 : (delta[1] != 0 ? 1 : 2);
            unsigned int side = (delta[face] > 0 ? 1u : 0u);
            // Leave along the face's axis if the entry is on the other side; else along the next axis, on this face.
            axis = (((entry >> face) & 1u) != side) ? face : (face + 1) % 3;
            nextEntry = (entry ^ (1u << axis)) ^ (1u << face);  // facing the exit corner across the shared face
        }
        turns[order] = (unsigned char) (entry | (axis << 3));
        entry = nextEntry;
    }
    return turns;
}

} // namespace OpenMMNarumi

#endif // NARUMI_SORT_CURVE_CUH_
