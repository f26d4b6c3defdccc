#include "RdfKernels.cuh"
#include <cmath>

namespace OpenMMNarumi::Rdf {
namespace Cuda {

namespace {

/** A padding atom: NaN coordinates make every comparison false, so it is never counted. */
__device__ __forceinline__ float4 paddingAtom() {
    float nan = __int_as_float(0x7fc00000);
    return make_float4(nan, nan, nan, 0.0f);
}

/** Whether a pair passes the prefilter (and the exclusion groups); r2 is its squared distance. */
template <BoxKind KIND, bool EXCLUSIONS>
__device__ __forceinline__ bool pairInRange(const float4& a, const float4& b, const BoxFloat& box, const Binning& binning,
                                            float& r2) {
    r2 = distanceSquared<KIND>(a.x, a.y, a.z, b.x, b.y, b.z, box);
    bool counted = r2 < binning.filterSq;
    if (EXCLUSIONS)
        counted = counted && __float_as_int(a.w) != __float_as_int(b.w);
    return counted;
}

/** Adds a pair that passed the prefilter to the shared histogram of this pass. */
__device__ __forceinline__ void countInRange(float r2, const Binning& binning, const BinPass& pass, unsigned int* passCounts) {
    int bin = binIndex(r2, binning) - pass.firstBin;
    if ((unsigned) bin < (unsigned) pass.numBins)
        atomicAdd(&passCounts[bin], 1u);
}

/** Counts one pair into the shared histogram of this pass. */
template <BoxKind KIND, bool EXCLUSIONS>
__device__ __forceinline__ void countPair(const float4& a, const float4& b, bool allowed, const BoxFloat& box,
                                          const Binning& binning, const BinPass& pass, unsigned int* passCounts) {
    float r2;
    if (pairInRange<KIND, EXCLUSIONS>(a, b, box, binning, r2) && allowed)
        countInRange(r2, binning, pass, passCounts);
}

/**
 * One selection-2 atom against the ATOMS_PER_THREAD selection-1 atoms of this thread.  Most pairs lie beyond rMax:
 * they cost the distance and one compare, with a single branch for all of them instead of one per pair.
 */
template <BoxKind KIND, bool MASKED, bool EXCLUSIONS>
__device__ __forceinline__ void countAgainstMine(const float4 (&mine)[ATOMS_PER_THREAD], const float4& other, int j,
                                                 const BoxFloat& box, const Binning& binning, const BinPass& pass,
                                                 unsigned int* passCounts) {
    float r2[ATOMS_PER_THREAD];
    bool inRange[ATOMS_PER_THREAD], any = false;
#pragma unroll
    for (int k = 0; k < ATOMS_PER_THREAD; k++) {
        inRange[k] = pairInRange<KIND, EXCLUSIONS>(mine[k], other, box, binning, r2[k]);
        if (MASKED)
            inRange[k] = inRange[k] && j > k * PAIR_THREADS + (int) threadIdx.x;
        any = any || inRange[k];
    }
    if (any) {
#pragma unroll
        for (int k = 0; k < ATOMS_PER_THREAD; k++)
            if (inRange[k])
                countInRange(r2[k], binning, pass, passCounts);
    }
}

/** Adds the shared histogram to the global 64-bit one and clears it (callers synchronize around it). */
__device__ void flushCounts(unsigned int* passCounts, const BinPass& pass, unsigned long long* counts) {
    for (int bin = threadIdx.x; bin < pass.numBins; bin += blockDim.x) {
        unsigned int value = passCounts[bin];
        if (value != 0) {
            atomicAdd(&counts[pass.firstBin + bin], (unsigned long long) value);
            passCounts[bin] = 0;
        }
    }
}

/** Wraps one selected atom (double), keeps its cell as the sort key and its slot k as the sort value. */
__device__ __forceinline__ void storeAtom(int k, double x, double y, double z, int group, const BoxDouble& box,
                                          const BoxInverse& inverse, const CellGrid& grid, float4* __restrict__ wrapped,
                                          unsigned int* __restrict__ cellKeys, int* __restrict__ slots) {
    if (box.kind != BoxKind::None)
        wrapIntoBox(x, y, z, box, inverse);
    cellKeys[k] = cellIndex(x, y, z, grid, box, inverse);
    slots[k] = k;
    wrapped[k] = make_float4((float) x, (float) y, (float) z, __int_as_float(group));
}

template <class Real>
__global__ void prepareAtomsKernel(const Real* __restrict__ positions, const int* __restrict__ groups, int count,
                                   BoxDouble box, BoxInverse inverse, CellGrid grid, float4* __restrict__ wrapped,
                                   unsigned int* __restrict__ cellKeys, int* __restrict__ slots) {
    for (int k = blockIdx.x * blockDim.x + threadIdx.x; k < count; k += gridDim.x * blockDim.x)
        storeAtom(k, positions[3 * (size_t) k], positions[3 * (size_t) k + 1], positions[3 * (size_t) k + 2],
                  groups ? groups[k] : 0, box, inverse, grid, wrapped, cellKeys, slots);
}

/** OpenMM's double4 posq entry (CUDA 13 deprecates the double4 name; this is its 16-byte-aligned layout). */
struct alignas(16) PosqDouble {
    double x, y, z, w;
};

/** OpenMM's slot i holds atom atomIndex[i]; the atoms of the selection go to their selection slots. */
template <class Real4>
__global__ void prepareFromPosqKernel(const Real4* __restrict__ posq, const float4* __restrict__ correction,
                                      const int* __restrict__ atomIndex, int numSlots, const int* __restrict__ indexOfAtom,
                                      const int* __restrict__ groups, BoxDouble box, BoxInverse inverse, CellGrid grid,
                                      float4* __restrict__ wrapped, unsigned int* __restrict__ cellKeys,
                                      int* __restrict__ slots) {
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < numSlots; i += gridDim.x * blockDim.x) {
        int k = indexOfAtom[atomIndex[i]];
        if (k < 0)
            continue;
        Real4 p = posq[i];
        double x = p.x, y = p.y, z = p.z;
        if (correction) {
            // Mixed precision: the same double sum as OpenMM's getState, so counts equal the CPU path's bitwise.
            float4 c = correction[i];
            x = (double) p.x + (double) c.x;
            y = (double) p.y + (double) c.y;
            z = (double) p.z + (double) c.z;
        }
        storeAtom(k, x, y, z, groups ? groups[k] : 0, box, inverse, grid, wrapped, cellKeys, slots);
    }
}

__global__ void gatherAtomsKernel(const float4* __restrict__ wrapped, const int* __restrict__ sortedSlots, int count,
                                  float4* __restrict__ sorted) {
    for (int k = blockIdx.x * blockDim.x + threadIdx.x; k < count; k += gridDim.x * blockDim.x)
        sorted[k] = wrapped[sortedSlots[k]];
}

/**
 * One tile of TILE selection-1 atoms (ATOMS_PER_THREAD in each thread's registers) against chunks of TILE
 * selection-2 atoms staged in shared memory.  Identical selections: only chunks from the diagonal on, and on the
 * diagonal only pairs j > i, so every unordered pair is counted once.
 */
template <BoxKind KIND, bool SAME, bool EXCLUSIONS>
__global__ void __launch_bounds__(PAIR_THREADS)
allPairsKernel(DeviceAtoms a, DeviceAtoms b, AllPairsGeometry geometry, BoxFloat box, Binning binning, BinPass pass,
               unsigned long long* __restrict__ counts) {
    extern __shared__ unsigned int passCounts[];
    __shared__ float4 chunk[TILE];
    const int tileOfShare = blockIdx.x / geometry.numRanges;
    const int range = blockIdx.x - tileOfShare * geometry.numRanges;
    const int tileA = geometry.firstTile + tileOfShare;
    const int numChunks = (b.count + TILE - 1) / TILE;
    int firstChunk = range * geometry.chunksPerRange;
    const int endChunk = min(firstChunk + geometry.chunksPerRange, numChunks);
    if (SAME)
        firstChunk = max(firstChunk, tileA);
    if (firstChunk >= endChunk)
        return;

    for (int bin = threadIdx.x; bin < pass.numBins; bin += PAIR_THREADS)
        passCounts[bin] = 0;
    float4 mine[ATOMS_PER_THREAD];
#pragma unroll
    for (int k = 0; k < ATOMS_PER_THREAD; k++) {
        int i = tileA * TILE + k * PAIR_THREADS + threadIdx.x;
        mine[k] = i < a.count ? a.atoms[i] : paddingAtom();
    }
    for (int c = firstChunk; c < endChunk; c++) {
        __syncthreads();
        for (int k = threadIdx.x; k < TILE; k += PAIR_THREADS) {
            int j = c * TILE + k;
            chunk[k] = j < b.count ? b.atoms[j] : paddingAtom();
        }
        __syncthreads();
        if (SAME && c == tileA) {
            for (int j = 0; j < TILE; j++)
                countAgainstMine<KIND, true, EXCLUSIONS>(mine, chunk[j], j, box, binning, pass, passCounts);
        } else {
#pragma unroll 2
            for (int j = 0; j < TILE; j++)
                countAgainstMine<KIND, false, EXCLUSIONS>(mine, chunk[j], j, box, binning, pass, passCounts);
        }
    }
    __syncthreads();
    flushCounts(passCounts, pass, counts);
}

/**
 * The atoms of one cell of selection 1 against the selection-2 atoms of its neighbouring cells.  A cell's atoms are
 * taken CELL_THREADS at a time (a slab); when a slab is smaller than the block, several threads share an atom and
 * split the other cell's atoms between them.  Identical selections: only cells from this one on, and pairs j > i.
 */
template <BoxKind KIND, bool SAME, bool EXCLUSIONS>
__global__ void __launch_bounds__(CELL_THREADS)
cellListKernel(DeviceAtoms a, DeviceAtoms b, CellGrid grid, int firstCell, BoxFloat box, Binning binning, BinPass pass,
               unsigned long long* __restrict__ counts) {
    extern __shared__ unsigned int passCounts[];
    __shared__ float4 chunk[CELL_THREADS];
    const int cell = firstCell + blockIdx.x;
    const int aBegin = a.cellStart[cell], aEnd = a.cellStart[cell + 1];
    if (aBegin == aEnd)
        return;
    for (int bin = threadIdx.x; bin < pass.numBins; bin += CELL_THREADS)
        passCounts[bin] = 0;
    int coordinate[3] = {cell % grid.n[0], (cell / grid.n[0]) % grid.n[1], cell / (grid.n[0] * grid.n[1])};
    int near[3][3], nearCount[3];
    for (int d = 0; d < 3; d++)
        nearCount[d] = neighbourCoordinates(coordinate[d], grid.n[d], grid.periodic, near[d]);

    unsigned long long pairsSinceFlush = 0;
    for (int slabStart = aBegin; slabStart < aEnd; slabStart += CELL_THREADS) {
        const int slabSize = min(CELL_THREADS, aEnd - slabStart);
        const int replicas = CELL_THREADS / slabSize;
        const int replica = threadIdx.x / slabSize;
        const int i = slabStart + threadIdx.x % slabSize;
        const bool active = replica < replicas;
        const float4 mine = a.atoms[i];
        for (int iz = 0; iz < nearCount[2]; iz++)
            for (int iy = 0; iy < nearCount[1]; iy++)
                for (int ix = 0; ix < nearCount[0]; ix++) {
                    int other = near[0][ix] + grid.n[0] * (near[1][iy] + grid.n[1] * near[2][iz]);
                    if (SAME && other < cell)
                        continue;
                    int bBegin = b.cellStart[other], bEnd = b.cellStart[other + 1];
                    for (int chunkStart = bBegin; chunkStart < bEnd; chunkStart += CELL_THREADS) {
                        int chunkSize = min(CELL_THREADS, bEnd - chunkStart);
                        unsigned long long chunkPairs = (unsigned long long) slabSize * chunkSize;
                        if (pairsSinceFlush + chunkPairs > CELL_FLUSH_PAIRS) {   // block-uniform
                            __syncthreads();
                            flushCounts(passCounts, pass, counts);
                            pairsSinceFlush = 0;
                        }
                        __syncthreads();
                        if ((int) threadIdx.x < chunkSize)
                            chunk[threadIdx.x] = b.atoms[chunkStart + threadIdx.x];
                        __syncthreads();
                        if (active)
                            for (int jj = replica; jj < chunkSize; jj += replicas)
                                countPair<KIND, EXCLUSIONS>(mine, chunk[jj], !(SAME && other == cell) || chunkStart + jj > i,
                                                            box, binning, pass, passCounts);
                        pairsSinceFlush += chunkPairs;
                    }
                }
    }
    __syncthreads();
    flushCounts(passCounts, pass, counts);
}

int gridFor(int count, int threads) {
    return count > 0 ? min((count + threads - 1) / threads, 65536) : 1;
}

/** Shared memory beyond the default 48 KB must be asked for per kernel. */
template <class Kernel>
cudaError_t allowSharedMemory(Kernel kernel, size_t bytes) {
    return bytes > 48 * 1024 ? cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, (int) bytes)
                             : cudaSuccess;
}

template <BoxKind KIND, bool SAME, bool EXCLUSIONS>
cudaError_t allPairs(DeviceAtoms a, DeviceAtoms b, const AllPairsGeometry& geometry, const BoxFloat& box,
                     const Binning& binning, const BinPass& pass, unsigned long long* counts, cudaStream_t stream) {
    auto kernel = allPairsKernel<KIND, SAME, EXCLUSIONS>;
    size_t shared = pass.numBins * sizeof(unsigned int);
    cudaError_t status = allowSharedMemory(kernel, shared);
    if (status != cudaSuccess)
        return status;
    kernel<<<geometry.numBlocks, PAIR_THREADS, shared, stream>>>(a, b, geometry, box, binning, pass, counts);
    return cudaGetLastError();
}

template <BoxKind KIND, bool SAME, bool EXCLUSIONS>
cudaError_t cellList(DeviceAtoms a, DeviceAtoms b, const CellGrid& grid, CellRange cells, const BoxFloat& box,
                     const Binning& binning, const BinPass& pass, unsigned long long* counts, cudaStream_t stream) {
    auto kernel = cellListKernel<KIND, SAME, EXCLUSIONS>;
    size_t shared = pass.numBins * sizeof(unsigned int);
    cudaError_t status = allowSharedMemory(kernel, shared);
    if (status != cudaSuccess)
        return status;
    kernel<<<cells.endCell - cells.firstCell, CELL_THREADS, shared, stream>>>(a, b, grid, cells.firstCell, box, binning, pass, counts);
    return cudaGetLastError();
}

/** Picks the template instance for the box kind and the two flags. */
template <template <BoxKind, bool, bool> class Launch, class... Args>
cudaError_t dispatch(BoxKind kind, bool same, bool exclusions, Args... args) {
#define RDF_DISPATCH_FLAGS(KIND)                                                              \
    if (same)                                                                                 \
        return exclusions ? Launch<KIND, true, true>::run(args...) : Launch<KIND, true, false>::run(args...); \
    return exclusions ? Launch<KIND, false, true>::run(args...) : Launch<KIND, false, false>::run(args...);
    switch (kind) {
    case BoxKind::Rectangular: RDF_DISPATCH_FLAGS(BoxKind::Rectangular)
    case BoxKind::Triclinic: RDF_DISPATCH_FLAGS(BoxKind::Triclinic)
    default: RDF_DISPATCH_FLAGS(BoxKind::None)
    }
#undef RDF_DISPATCH_FLAGS
}

template <BoxKind KIND, bool SAME, bool EXCLUSIONS>
struct AllPairsLaunch {
    template <class... Args>
    static cudaError_t run(Args... args) {
        return allPairs<KIND, SAME, EXCLUSIONS>(args...);
    }
};

template <BoxKind KIND, bool SAME, bool EXCLUSIONS>
struct CellListLaunch {
    template <class... Args>
    static cudaError_t run(Args... args) {
        return cellList<KIND, SAME, EXCLUSIONS>(args...);
    }
};

} // namespace

cudaError_t launchPrepareAtoms(const float* positionsFloat, const double* positionsDouble, const int* groups, int count,
                               const BoxDouble& box, const CellGrid& grid, float4* wrapped, unsigned int* cellKeys,
                               int* slots, cudaStream_t stream) {
    const int threads = 256;
    BoxInverse inverse = boxInverse(box);
    if (positionsFloat)
        prepareAtomsKernel<<<gridFor(count, threads), threads, 0, stream>>>(positionsFloat, groups, count, box, inverse,
                                                                            grid, wrapped, cellKeys, slots);
    else
        prepareAtomsKernel<<<gridFor(count, threads), threads, 0, stream>>>(positionsDouble, groups, count, box, inverse,
                                                                            grid, wrapped, cellKeys, slots);
    return cudaGetLastError();
}

cudaError_t launchPrepareFromPosq(const void* posq, const void* correction, bool doublePrecision, const int* atomIndex,
                                  int numSlots, const int* indexOfAtom, const int* groups, const BoxDouble& box,
                                  const CellGrid& grid, float4* wrapped, unsigned int* cellKeys, int* slots,
                                  cudaStream_t stream) {
    const int threads = 256;
    BoxInverse inverse = boxInverse(box);
    if (doublePrecision)
        prepareFromPosqKernel<<<gridFor(numSlots, threads), threads, 0, stream>>>(
            (const PosqDouble*) posq, nullptr, atomIndex, numSlots, indexOfAtom, groups, box, inverse, grid, wrapped, cellKeys, slots);
    else
        prepareFromPosqKernel<<<gridFor(numSlots, threads), threads, 0, stream>>>(
            (const float4*) posq, (const float4*) correction, atomIndex, numSlots, indexOfAtom, groups, box, inverse, grid,
            wrapped, cellKeys, slots);
    return cudaGetLastError();
}

cudaError_t launchGatherAtoms(const float4* wrapped, const int* sortedSlots, int count, float4* sorted, cudaStream_t stream) {
    const int threads = 256;
    gatherAtomsKernel<<<gridFor(count, threads), threads, 0, stream>>>(wrapped, sortedSlots, count, sorted);
    return cudaGetLastError();
}

cudaError_t launchAllPairs(BoxKind kind, bool sameSelection, bool exclusions, DeviceAtoms a, DeviceAtoms b,
                           const AllPairsGeometry& geometry, const BoxFloat& box, const Binning& binning,
                           const BinPass& pass, unsigned long long* counts, cudaStream_t stream) {
    return dispatch<AllPairsLaunch>(kind, sameSelection, exclusions, a, b, geometry, box, binning, pass, counts, stream);
}

cudaError_t launchCellList(BoxKind kind, bool sameSelection, bool exclusions, DeviceAtoms a, DeviceAtoms b,
                           const CellGrid& grid, CellRange cells, const BoxFloat& box, const Binning& binning,
                           const BinPass& pass, unsigned long long* counts, cudaStream_t stream) {
    return dispatch<CellListLaunch>(kind, sameSelection, exclusions, a, b, grid, cells, box, binning, pass, counts, stream);
}

} // namespace Cuda
} // namespace OpenMMNarumi::Rdf
