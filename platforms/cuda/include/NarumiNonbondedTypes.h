#ifndef NARUMI_NONBONDED_TYPES_H_
#define NARUMI_NONBONDED_TYPES_H_

/**
 * Plain data shared by the host side of the CUDA kernel (compiled by the C++ compiler) and the kernels (nvcc):
 * the pair-potential constants, the periodic box, where the sums go, and everything one evaluation needs.
 */

#include <cstddef>
#include <vector_types.h>

namespace OpenMMNarumi {

/** Which Coulomb form a pair gets; fixed for a force, so the branch is uniform across a warp. */
enum NarumiCoulombKind : int {
    NARUMI_COULOMB_NONE = 0,        // NoCoulomb
    NARUMI_COULOMB_PLAIN = 1,       // NoCutoff: k q q / r
    NARUMI_COULOMB_REACTION_FIELD = 2,
    NARUMI_COULOMB_SHIFTED = 3,     // k q q / r (1 - r^2/rc^2)^2
    NARUMI_COULOMB_ANY = -1         // a kernel compiled for every form, reading it from NarumiPairConstants
};

/** Lennard-Jones switching of a pair kernel: off, on, or read from NarumiPairConstants::useSwitch at run time. */
constexpr int NARUMI_SWITCH_ANY = -1;

/**
 * The neighbour search keeps a listed atom's slot in the low NARUMI_LIST_SLOT_BITS bits of its entry and, until it
 * sorts the entries, its distance class above them (findNeighbors.cu): the CUDA platform takes fewer atoms than 2^28.
 */
constexpr int NARUMI_LIST_SLOT_BITS = 28;

/** Terms at least this large (kJ/mol/nm or kJ/mol) bypass the Narumi pair: see NarumiTermAccumulator. */
constexpr float NARUMI_LARGE_TERM = 32768.0f;

/**
 * A pair whose force squared reaches this ((kJ/mol/nm)^2: |F| >= 2^30, half the limit of OpenMM's fixed point) or is
 * not finite is huge: left out of the all-pairs pass and counted (NarumiPairInteraction.cuh, narumiHugePair).
 */
constexpr float NARUMI_HUGE_FORCE_SQUARED = 1152921504606846976.0f;
/** The huge pairs a thread left out are counted in its error word from this bit up (the flags stay below it). */
constexpr int NARUMI_HUGE_PAIR_COUNT_SHIFT = 8;

/** A double-precision (x, y, z, w) of 32 bytes: OpenMM's double posq element (CUDA 13 deprecates the unaligned double4). */
struct __align__(32) NarumiDouble4 {
    double x, y, z, w;
};

/** The vector types of a precision: float2/3/4 for the float pairs, double2/3 and NarumiDouble4 for double pairs. */
template <class Real>
struct NarumiVectors;
template <>
struct NarumiVectors<float> {
    using V2 = float2;
    using V3 = float3;
    using V4 = float4;
};
template <>
struct NarumiVectors<double> {
    using V2 = double2;
    using V3 = double3;
    using V4 = NarumiDouble4;
};

/** The pair potential's constants in the precision of the pairs (float; double pairs in Precision=double). */
template <class Real>
struct NarumiPairConstantsOf {
    Real cutoff2;           // pairs with r^2 < cutoff2 interact (+infinity with NoCutoff)
    Real invCutoff2;
    Real krf, crf;          // reaction field, as OpenMM's NonbondedForce defines them
    Real twoKrf;            // 2 krf (exact), for the force
    Real switchDistance;    // Lennard-Jones switching from here to the cutoff, when useSwitch
    Real invSwitchWidth;
    int coulombKind;        // NarumiCoulombKind
    int useSwitch;
    int shiftLennardJones;  // LennardJonesPotentialShift: a pair's energy less its Lennard-Jones value at the cutoff
    int excludedChargeTerms;    // GromacsReactionField: exception pairs within the cutoff get k q q (krf r^2 - crf)
};
using NarumiPairConstants = NarumiPairConstantsOf<float>;

/** The minimum-image box in OpenMM's reduced form (a along x, b in the xy plane). */
struct NarumiBox {
    float3 size, invSize;           // diagonal of the box vectors and its inverse
    float3 vecX, vecY, vecZ;        // the box vectors
    double3 sizeDouble, invSizeDouble, vecXDouble, vecYDouble, vecZDouble;   // the same for double-precision pairs
    int periodic;                   // CutoffPeriodic
    int triclinic;                  // any off-diagonal component is nonzero
};

/** Error bits the kernels set in NarumiGlobalSums::errorFlags; the host turns them into an OpenMMException. */
enum NarumiErrorFlag : int {
    NARUMI_ERROR_ACCUMULATOR_RANGE = 1,   // a Narumi partial sum left its range (|sum| >= 2^20)
    NARUMI_ERROR_TERM_RANGE = 2           // a term was not finite or beyond 2^31: it has no fixed-point value
};

/** The destination of every thread's flush: OpenMM's force buffer or this force's float/double arrays, and energy. */
struct NarumiGlobalSums {
    unsigned long long* forceFixed;   // OpenMM's long force buffer (x block, y block, z block of paddedNumAtoms)
    float* forceFloat;                // SingleFloat: float force sums, same layout, merged into forceFixed at the end
    double* forceDouble;              // DoubleFloat: double force sums, same layout
    unsigned long long* energyFixed;  // Narumi, FixedPoint64
    float* energyFloat;               // SingleFloat
    double* energyDouble;             // DoubleFloat
    int* errorFlags;                  // NarumiErrorFlag bits
    int paddedNumAtoms;
};

/**
 * The few device words the host reads back (asynchronously): error flags, the size of the tile list, and running
 * totals of the neighbour search (never reset) that show when it lists more than it should: the host warns about
 * and reports them (a search that silently lists every pair made a 7x slower run look like a slightly slow one).
 */
struct NarumiStatusWords {
    int errorFlags;
    int tilesPerBlockNeeded;    // the most tiles any block has had (never reset: it sizes the list's segments)
    int candidatesPerBlockNeeded;   // the most candidate blocks any block has had (likewise)
    int rebuildList;                // set (sort, an atom that moved too far, the host) -> this evaluation rebuilds the list
    int candidateTasksTaken;        // blocks I whose candidates findNeighborTiles' warps have taken (then 0)
    int searchBlocksTaken;          // blocks I whose tiles findNeighborTiles' thread blocks have taken (then 0)
    int searchBlocksDone;           // findNeighborTiles' thread blocks that have finished (the last one scans; then 0)
    int overflowListPending;        // entries of overflowBlocks of the list being built (then 0)
    int overflowListCount;          // entries of overflowBlocks of the current list
    int tileChunksTaken;            // computeTiles' chunks of the list taken so far this evaluation (finishEnergy: 0)
    int hugePairBalance;            // huge pairs computeTiles left out less the exception pairs among them (finishEnergy: 0)
    unsigned long long evaluations;         // evaluations counted (finishEnergy)
    unsigned long long listedTiles;         // tiles listed, summed over evaluations
    unsigned long long overflowBlocks;      // blocks whose tiles or candidates did not fit (computed whole by computeTiles)
    unsigned long long unfilteredBlocks;    // blocks searched without the atom filter (box too small for it)
    unsigned long long untestedBlockPairs;  // block pairs taken as interacting untested (box too small for the test)
    unsigned long long listBuilds;          // evaluations that rebuilt the neighbour list
    unsigned long long chunkedEvaluations;  // evaluations whose computeTiles handed the list out in chunks
    long long energyFixed;          // the last energy evaluation's fixed-point energy (Narumi, FixedPoint64), 2^-32 kJ/mol
    double energyFloating;          // and its float/double energy sums (methods A to E)
};

/**
 * One evaluation's inputs, work arrays and settings.  Atoms are sorted along a Hilbert curve into "slots"; 32
 * consecutive slots form a block, and a tile is block I with 32 atoms that can be within the cutoff of its bounding
 * box.  Every pointer is device memory owned by CudaCalcNarumiNonbondedForceKernel.
 */
struct NarumiNonbondedData {
    // Sizes.
    int numAtoms;
    int numSlots;               // numAtoms rounded up to a multiple of 32
    int numBlocks;              // numSlots / 32
    int numSuperblocks;         // numBlocks / 32, rounded up
    int numExceptions;
    int tilesPerBlockCapacity;  // tiles a block's segment of the list holds; a block with more is computed whole by computeTiles
    int candidatesPerBlockCapacity; // candidate blocks a block's segment of candidateBlocks holds (likewise)
    // OpenMM's arrays.
    const void* posq;           // float4 or double4, per the template parameter of the kernels
    const int* atomIndex;       // posq index -> original atom index
    // This force's parameters, by original atom index.
    const float4* atomParameters;        // (q sqrt(k), sigma/2, 2 sqrt(eps), 0)
    const NarumiDouble4* atomParametersDouble;   // the same in double (double-precision pairs only, else null)
    const int2* exceptionAtoms;          // original atom indices
    const float4* exceptionParameters;   // (k q1q2, sigma, 4 eps, 0)
    const NarumiDouble4* exceptionParametersDouble;  // the same in double (double-precision pairs only, else null)
    // Lennard-Jones type tables (numTableClasses > 0): each atom's class of identical Lennard-Jones behaviour (type,
    // sigma, epsilon; NarumiLennardJonesPairs) and the (C6, C12) of every pair of classes, so that the pair kernels
    // read one table entry per pair.  numTableClasses 0: no table, every pair Lorentz-Berthelot of the atoms' own.
    int numTableClasses;
    const int* atomTableClass;
    int* slotTableClass;                  // the slot's atom's class (gathered after each sort, like slotLennardJones)
    const float2* lennardJonesTable;
    const double2* lennardJonesTableDouble;   // the same in double (double-precision pairs only, else null)
    // Spatial sort.
    unsigned int* sortKeys;
    unsigned int* sortedKeys;
    int* sortValues;
    int* slotPosqIndex;         // slot -> posq index (the sorted values)
    int* slotOfAtom;            // original atom index -> slot
    float4* slotPositions;      // (x, y, z, q sqrt(k)), wrapped into the box when periodic
    float4* builtPositions;     // slotPositions when the neighbour list was last built
    float2* slotLennardJones;   // (sigma/2, 2 sqrt(eps))
    NarumiDouble4* slotPositionsDouble;  // double-precision pairs: the same positions and charges in double (else null)
    double2* slotLennardJonesDouble;
    // Tiles.
    float4* blockCenters;
    float4* blockHalfExtents;   // w: radius of the bounding sphere
    float4* superblockCenters;  // per 32 consecutive blocks, for a two-level neighbour search
    float4* superblockHalfExtents;
    int* tileCounts;            // per block I, its listed tiles (0 when it overflows); numBlocks + 1 entries, the last 0
    int* tileOffsets;           // exclusive scan of tileCounts: the tiles' numbers; tileOffsets[numBlocks] = listed tiles
    int* candidateBlocks;       // per block I, the later blocks J whose boxes come within the cutoff of I's box
    int* candidateCounts;       // per block I, its candidates (more than the capacity: computeTiles computes I whole)
    int* candidatesReady;       // per block I, the build whose candidates are published (findNeighborTiles)
    int* overflowBlocks;        // the blocks whose tiles or candidates did not fit into their segments (status count)
    int* tileAtoms;             // per block, tilesPerBlockCapacity tiles of 32 slots of atoms near it (-1 pads)
    void* cubStorage;
    size_t cubStorageBytes;
    // Results.
    NarumiGlobalSums sums;
    NarumiStatusWords* status;
    // Settings.
    NarumiPairConstants pair;
    NarumiPairConstantsOf<double> pairDouble;  // the same constants for double-precision pairs
    NarumiBox box;
    float tileCutoff2;          // (cutoff + skin)^2 with a margin for rounding in the block bounds (+infinity: NoCutoff)
    float halfSkin2;            // (skin / 2)^2: an atom that moved farther since the list was built makes it rebuild
    float smallForceOverR;      // |dE/dr / r| below this: every component of a pair force inside the cutoff is below
                                // NARUMI_LARGE_TERM (0: NoCutoff)
    float sortCellSize;         // non-periodic systems: edge of the sort grid's cells in nm
    // Periodic boxes: the curve of cubes of NarumiSortCurve.cuh (0: the curve over each edge's fractions, sort-curve=edges).
    int sortAlongCubes;
    int3 sortCubes;                 // cubes along x, y, z
    int sortCubeBits;               // 2^sortCubeBits cells along a cube's edge
    float3 sortCubeCellsPerNm;      // the grid's cells per nm along x, y, z
    const unsigned char* sortCubeTurns;   // one per cube, in the order of the path
    int exceptionsUsePeriodic;
    // This device's share of the pairs (the whole on one GPU): those whose lower block lies in [shareBlockBegin,
    // shareBlockEnd), tiles and exceptions alike.
    int shareBlockBegin, shareBlockEnd;
    // The blocks whose tiles the neighbour list holds: a range around the share, so that on several devices each
    // searches about its own share (the host rebuilds the list when its share leaves this range).
    int listBlockBegin, listBlockEnd;
    // computeTiles' warps take the list in chunks with the exact sums (computeTiles.cu); 0: one run each, fixed in advance.
    int tileChunks;
    // With tileChunks: each warp's first chunk assigned to it (else taken from the counter too).
    int tileFirstChunksAssigned;
    // The neighbour search's warps per thread block: 4 or 8 (the diagnostic search-warps); 0: by the list's size
    // (findNeighbors.cu).
    int searchWarps;
    // With searchWarps 0: 4 warps once the listed blocks fill this many full waves of the search (NarumiDeviceSettings).
    int fewSearchWarpsFromWaves;
    // Narumi's float-pair sums held in doubles (NarumiGridInDoubleAccumulator, the same bits): on GPUs whose double
    // adds run at half the float rate, or as the diagnostic sums-in-double says.
    int narumiSumsInDouble;
    // TileSums: every block's partners sorted by (distance class, slot), so that each build makes the same tiles and its
    // float tile sums the same bits (a block with more partners than the sort takes is computed whole: findNeighbors.cu).
    int slotOrderedPartners;
    // Every kernel's preferred shared-memory carveout in percent: the one the pair kernel needs (chooseSharedCarveout in
    // CudaNarumiKernels.cpp) or the diagnostic shared-carveout's; -1: the driver's choice per kernel.
    int sharedCarveout;
};

} // namespace OpenMMNarumi

#endif // NARUMI_NONBONDED_TYPES_H_
