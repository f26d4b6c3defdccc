/**
 * Sorting the atoms along a Hilbert curve (NarumiSortCurve.cuh), only every few evaluations (and after OpenMM reorders
 * atoms): computeSortKeys gives every atom the key of its cell (periodic: its position in the wrapped brick), and CUB's
 * radix sort orders the atoms into slots (slotPosqIndex); 32 consecutive slots are a block.
 */

#include "NarumiKernelConstants.cuh"
#include "NarumiNonbondedStages.h"
#include "NarumiPositions.cuh"
#include "NarumiSortCurve.cuh"
#include <cub/device/device_radix_sort.cuh>

namespace OpenMMNarumi {

namespace {

/** A coordinate's cell of a grid of `cells` along the axis, cellsPerUnit of them per unit of it, clamped into the grid. */
__device__ inline unsigned int gridCell(float coordinate, float cellsPerUnit, int cells) {
    return (unsigned int) min(cells - 1, max(0, (int) (coordinate * cellsPerUnit)));
}

template <class PosT>
__global__ void computeSortKeys(NarumiNonbondedData d) {
    const PosT* posq = (const PosT*) d.posq;
    if (blockIdx.x == 0 && threadIdx.x == 0)
        d.status->rebuildList = 1;  // new slots: the list of the old ones is void
    for (int atom = blockIdx.x * blockDim.x + threadIdx.x; atom < d.numAtoms; atom += gridDim.x * blockDim.x) {
        auto r = wrapIntoBox(loadPosition(posq, atom), d.box);
        unsigned int key;
        if (d.box.periodic && d.sortAlongCubes) {
            const NarumiCubeGrid grid{{d.sortCubes.x, d.sortCubes.y, d.sortCubes.z}, d.sortCubeBits};
            const unsigned int cell[3] = {gridCell((float) r.x, d.sortCubeCellsPerNm.x, d.sortCubes.x << d.sortCubeBits),
                                          gridCell((float) r.y, d.sortCubeCellsPerNm.y, d.sortCubes.y << d.sortCubeBits),
                                          gridCell((float) r.z, d.sortCubeCellsPerNm.z, d.sortCubes.z << d.sortCubeBits)};
            key = cubeCurveKey(cell, grid, d.sortCubeTurns);
        }
        else if (d.box.periodic) {
            // wrapIntoBox puts every atom into the brick [0, a_x) x [0, b_y) x [0, c_z), a unit cell of any reduced
            // box, so its coordinates over the brick's edges lie in [0, 1) and cells of it are compact.  (Fractional
            // coordinates along the box vectors do not: in a dodecahedron a quarter of the atoms fell outside [0, 1)
            // on two axes, were clamped onto a face of the curve's cube, and blocks became sticks across the box.)
            key = hilbertKey(gridCell((float) r.x * d.box.invSize.x, 1024.0f, 1024), gridCell((float) r.y * d.box.invSize.y, 1024.0f, 1024),
                             gridCell((float) r.z * d.box.invSize.z, 1024.0f, 1024));
        }
        else {
            // 1024 cells per axis, repeating: far-apart atoms may share a key, which costs speed, never correctness.
            unsigned int cx = (unsigned int) (int) floorf((float) r.x / d.sortCellSize);
            unsigned int cy = (unsigned int) (int) floorf((float) r.y / d.sortCellSize);
            unsigned int cz = (unsigned int) (int) floorf((float) r.z / d.sortCellSize);
            key = hilbertKey(cx & 1023, cy & 1023, cz & 1023);
        }
        d.sortKeys[atom] = key;
        d.sortValues[atom] = atom;
    }
}

template <class PosT>
void launchSortAtoms(const NarumiNonbondedData& d, cudaStream_t stream) {
    size_t bytes = d.cubStorageBytes;
    preferSharedCarveout(computeSortKeys<PosT>, d.sharedCarveout);
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
