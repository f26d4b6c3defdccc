#ifndef NARUMI_PAIR_PARAMETERS_CUH_
#define NARUMI_PAIR_PARAMETERS_CUH_

/**
 * What a pair of slots needs beside positions, read the same way by the all-pairs kernel and the exclusion kernel (so
 * that an excluded pair's terms are the same bits in both): its Lennard-Jones parameters, combined from the atoms' own
 * or taken from the type table.
 */

#include "NarumiPairInteraction.cuh"
#include "NarumiPositions.cuh"
#include <cmath>

namespace OpenMMNarumi {

__device__ inline float2 lennardJonesTableEntry(const NarumiNonbondedData& d, int entry, float) {
    return d.lennardJonesTable[entry];
}
__device__ inline double2 lennardJonesTableEntry(const NarumiNonbondedData& d, int entry, double) {
    return d.lennardJonesTableDouble[entry];
}

/** A slot's row of the Lennard-Jones type table (type tables only). */
__device__ inline int slotTableRow(const NarumiNonbondedData& d, int slot) {
    return d.slotTableType[slot];
}

/**
 * The Lennard-Jones parameters of a pair from its slots' (sigma/2, 2 sqrt(eps)) and, with type tables (TABLE), their
 * table rows: the rows' entry (C6, C12), or Lorentz-Berthelot in that form where the entry is NaN (no entry).  Symmetric
 * in the two slots.
 */
template <bool TABLE, class V2>
__device__ inline auto narumiPairLennardJones(const NarumiNonbondedData& d, V2 a, int rowA, V2 b, int rowB) {
    using Real = decltype(a.x);
    NarumiCombinedLennardJones<Real> combined{narumiAdd(a.x, b.x), narumiMul(a.y, b.y)};
    if constexpr (!TABLE)
        return combined;
    else {
        auto entry = lennardJonesTableEntry(d, rowA * d.numTableTypes + rowB, Real());
        return isnan(entry.x) ? narumiTableForm(combined) : NarumiTableLennardJones<Real>{entry.x, entry.y};
    }
}

} // namespace OpenMMNarumi

#endif // NARUMI_PAIR_PARAMETERS_CUH_
