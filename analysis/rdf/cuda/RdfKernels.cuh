#ifndef NARUMI_RDF_KERNELS_CUH_
#define NARUMI_RDF_KERNELS_CUH_

/**
 * The RDF kernels, one job each; the host (RdfCudaBackend.cu) owns the memory and the launch geometry.
 * Atoms are float4: wrapped x, y, z and, in w, the bits of the atom's exclusion group.
 */

#include "RdfPairMath.h"
#include <cuda_runtime.h>

namespace OpenMMNarumi::Rdf {
namespace Cuda {

constexpr int PAIR_THREADS = 128;                                // threads of an all-pairs block
constexpr int ATOMS_PER_THREAD = 4;                              // selection-1 atoms each thread keeps in registers
constexpr int TILE = PAIR_THREADS * ATOMS_PER_THREAD;            // atoms of a selection-1 tile and a selection-2 chunk
// A block counts at most TILE * TILE * MAX_CHUNKS_PER_BLOCK < 2^32 pairs between flushes: no 32-bit bin can wrap.
constexpr int MAX_CHUNKS_PER_BLOCK = 16383;
constexpr int CELL_THREADS = 256;                                // threads of a cell-list block
constexpr unsigned long long CELL_FLUSH_PAIRS = 1ull << 31;      // a cell-list block flushes before exceeding this
constexpr int MAX_PASS_BINS = 16384;                             // bins in shared memory per pass (64 KB)

/** Where the all-pairs blocks go: blockIdx.x = (tileA - firstTile) * numRanges + range; range r covers chunks
 *  [r * chunksPerRange, (r + 1) * chunksPerRange) of selection 2; the tiles of selection 1 from firstTile on (a
 *  device's share of a split frame) get numBlocks / numRanges of them. */
struct AllPairsGeometry {
    int numRanges;
    int chunksPerRange;
    int numBlocks;
    int firstTile = 0;
};

/** The cells of selection 1 that a cell-list launch takes: [firstCell, endCell). */
struct CellRange {
    int firstCell;
    int endCell;
};

/** Which bins this launch keeps in shared memory: [firstBin, firstBin + numBins). */
struct BinPass {
    int firstBin;
    int numBins;
};

struct DeviceAtoms {
    const float4* atoms;
    int count;
    const int* cellStart;   // cell list only
};

/** Selected atoms (positions already in selection order, 3 values each): wrap (double), round to float4, cell
 *  index as sort key, slot k as sort value. */
cudaError_t launchPrepareAtoms(const float* positionsFloat, const double* positionsDouble, const int* groups, int count, const BoxDouble& box, const CellGrid& grid,
                               float4* wrapped, unsigned int* cellKeys, int* slots, cudaStream_t stream);

/** The same from OpenMM's posq (float4, or double4 when doublePrecision; mixed precision adds the float4
 *  correction): slot i holds atom atomIndex[i], which goes to selection slot indexOfAtom[atom] (-1: not selected). */
cudaError_t launchPrepareFromPosq(const void* posq, const void* correction, bool doublePrecision, const int* atomIndex,
                                  int numSlots, const int* indexOfAtom, const int* groups, const BoxDouble& box,
                                  const CellGrid& grid, float4* wrapped, unsigned int* cellKeys, int* slots,
                                  cudaStream_t stream);

/** sorted[k] = wrapped[sortedSlots[k]]. */
cudaError_t launchGatherAtoms(const float4* wrapped, const int* sortedSlots, int count, float4* sorted, cudaStream_t stream);

/** Tiled all-pairs histogramming (Levine et al. 2011) into counts (64-bit, global). */
cudaError_t launchAllPairs(BoxKind kind, bool sameSelection, bool exclusions, DeviceAtoms a, DeviceAtoms b,
                           const AllPairsGeometry& geometry, const BoxFloat& box, const Binning& binning,
                           const BinPass& pass, unsigned long long* counts, cudaStream_t stream);

/** Cell-list histogramming, one block per cell of selection 1 in cells, into counts (64-bit, global). */
cudaError_t launchCellList(BoxKind kind, bool sameSelection, bool exclusions, DeviceAtoms a, DeviceAtoms b,
                           const CellGrid& grid, CellRange cells, const BoxFloat& box, const Binning& binning,
                           const BinPass& pass, unsigned long long* counts, cudaStream_t stream);

} // namespace Cuda
} // namespace OpenMMNarumi::Rdf

#endif // NARUMI_RDF_KERNELS_CUH_
