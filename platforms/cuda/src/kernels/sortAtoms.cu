/**
 * Sorting the atoms along a Hilbert curve, only every few evaluations (and after OpenMM reorders atoms):
 * computeSortKeys gives every atom the Hilbert key of its cell (periodic: its position in the wrapped brick), and CUB's
 * radix sort orders the atoms into slots (slotPosqIndex); 32 consecutive slots are a block.
 */

#include "NarumiKernelConstants.cuh"
#include "NarumiNonbondedStages.h"
#include "NarumiPositions.cuh"
#include <cub/device/device_radix_sort.cuh>

namespace OpenMMNarumi {

namespace {

/** Spread the low 10 bits of v so that two zero bits follow each one. */
__device__ inline unsigned int spreadBits(unsigned int v) {
    v &= 0x3ff;
    v = (v | (v << 16)) & 0x030000ff;
    v = (v | (v << 8)) & 0x0300f00f;
    v = (v | (v << 4)) & 0x030c30c3;
    v = (v | (v << 2)) & 0x09249249;
    return v;
}

__device__ inline unsigned int cellCoordinate(float fraction) {
    return (unsigned int) min(1023, max(0, (int) (fraction * 1024.0f)));
}

/**
 * Position of cell (x, y, z) of a 1024^3 grid along a 3-d Hilbert curve (Skilling's transpose algorithm, AIP Conf.
 * Proc. 707, 381 (2004)).  Unlike the Morton curve it never jumps, so 32 consecutive atoms make compact blocks:
 * on the DHFR box their bounding boxes are 2.5x smaller and the blocks within the cutoff of a block 1.4x fewer.
 */
__device__ inline unsigned int hilbertKey(unsigned int x, unsigned int y, unsigned int z) {
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

template <class PosT>
__global__ void computeSortKeys(NarumiNonbondedData d) {
    const PosT* posq = (const PosT*) d.posq;
    if (blockIdx.x == 0 && threadIdx.x == 0)
        d.status->rebuildList = 1;  // new slots: the list of the old ones is void
    for (int atom = blockIdx.x * blockDim.x + threadIdx.x; atom < d.numAtoms; atom += gridDim.x * blockDim.x) {
        auto r = wrapIntoBox(loadPosition(posq, atom), d.box);
        unsigned int cx, cy, cz;
        if (d.box.periodic) {
            // wrapIntoBox puts every atom into the brick [0, a_x) x [0, b_y) x [0, c_z), a unit cell of any reduced
            // box, so its coordinates over the brick's edges lie in [0, 1) and cells of it are compact.  (Fractional
            // coordinates along the box vectors do not: in a dodecahedron a quarter of the atoms fell outside [0, 1)
            // on two axes, were clamped onto a face of the curve's cube, and blocks became sticks across the box.)
            cx = cellCoordinate((float) r.x * d.box.invSize.x);
            cy = cellCoordinate((float) r.y * d.box.invSize.y);
            cz = cellCoordinate((float) r.z * d.box.invSize.z);
        }
        else {
            // 1024 cells per axis, repeating: far-apart atoms may share a key, which costs speed, never correctness.
            cx = (unsigned int) (int) floorf((float) r.x / d.sortCellSize);
            cy = (unsigned int) (int) floorf((float) r.y / d.sortCellSize);
            cz = (unsigned int) (int) floorf((float) r.z / d.sortCellSize);
        }
        d.sortKeys[atom] = hilbertKey(cx & 1023, cy & 1023, cz & 1023);
        d.sortValues[atom] = atom;
    }
}

template <class PosT>
void launchSortAtoms(const NarumiNonbondedData& d, cudaStream_t stream) {
    size_t bytes = d.cubStorageBytes;
    computeSortKeys<PosT><<<blocksFor(d.numAtoms), THREADS, 0, stream>>>(d);
    Common::checkCuda(cub::DeviceRadixSort::SortPairs(d.cubStorage, bytes, d.sortKeys, d.sortedKeys, d.sortValues, d.slotPosqIndex,
                                                      d.numAtoms, 0, 30, stream), "sorting atoms");
}

} // namespace

/** The same key and value types and the same 30 key bits as the sort in launchSortAtoms. */
size_t narumiSortStorageBytes(int numAtoms) {
    size_t bytes = 0;
    Common::checkCuda(cub::DeviceRadixSort::SortPairs(nullptr, bytes, (unsigned int*) nullptr, (unsigned int*) nullptr, (int*) nullptr,
                                                      (int*) nullptr, numAtoms, 0, 30), "sizing the sort");
    return bytes;
}

void narumiSortAtoms(const NarumiNonbondedData& data, bool posqIsDouble, cudaStream_t stream) {
    if (posqIsDouble)
        launchSortAtoms<NarumiDouble4>(data, stream);
    else
        launchSortAtoms<float4>(data, stream);
}

} // namespace OpenMMNarumi
