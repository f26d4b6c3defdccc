#ifndef NARUMI_PAIR_PARAMETERS_CUH_
#define NARUMI_PAIR_PARAMETERS_CUH_

/**
 * What a pair of slots needs beside positions, read the same way by the all-pairs kernel and the exclusion kernel (so
 * that an excluded pair's terms are the same bits in both): its Lennard-Jones parameters, combined from the atoms' own
 * or taken from the type table of their classes.
 */

#include "NarumiPairInteraction.cuh"
#include "NarumiPositions.cuh"
#include <cmath>

namespace OpenMMNarumi {

// The table is read-only while kernels run: loads through the read-only data cache.
__device__ inline float2 lennardJonesTableEntry(const NarumiNonbondedData& d, int entry, float) {
    return __ldg(d.lennardJonesTable + entry);
}
__device__ inline double2 lennardJonesTableEntry(const NarumiNonbondedData& d, int entry, double) {
    return __ldg(d.lennardJonesTableDouble + entry);
}

/** A slot's class, its row of the Lennard-Jones type table (type tables only). */
__device__ inline int slotTableClass(const NarumiNonbondedData& d, int slot) {
    return d.slotTableClass[slot];
}

/** Lorentz-Berthelot parameters of a pair from its slots' (sigma/2, 2 sqrt(eps)): one expression for every kernel. */
template <class V2>
__device__ inline auto narumiCombinedLennardJones(V2 a, V2 b) {
    using Real = decltype(a.x);
    return NarumiCombinedLennardJones<Real>{narumiAdd(a.x, b.x), narumiMul(a.y, b.y)};
}

/**
 * The Lennard-Jones parameters of a pair: with type tables (TABLE), its slots' classes' entry (C6, C12); else
 * Lorentz-Berthelot from the slots' (sigma/2, 2 sqrt(eps)).  Symmetric in the two slots.
 */
template <bool TABLE, class V2>
__device__ inline auto narumiPairLennardJones(const NarumiNonbondedData& d, V2 a, int classA, V2 b, int classB) {
    using Real = decltype(a.x);
    if constexpr (TABLE) {
        auto entry = lennardJonesTableEntry(d, classA * d.numTableClasses + classB, Real());
        return NarumiTableLennardJones<Real>{entry.x, entry.y};
    }
    else
        return narumiCombinedLennardJones(a, b);
}

} // namespace OpenMMNarumi

#endif // NARUMI_PAIR_PARAMETERS_CUH_
