#ifndef NARUMI_POTENTIAL_MAP_MSM_LONG_RANGE_H_
#define NARUMI_POTENTIAL_MAP_MSM_LONG_RANGE_H_

/** The smooth, long-range part of a multilevel-summation map on the CPU (src/MsmLongRange.cpp). */

#include "PotentialMap.h"
#include <vector>

namespace OpenMMNarumi::PotentialMap {

/**
 * Adds to values (one per point of map, x fastest) the long-range part of the Coulomb potential (kJ/mol/e) of the
 * charges at positions (nm), open boundaries: anterpolation onto a lattice of spacing h around the atoms and the map,
 * restriction up the levels, each level's kernel summed within its reach, the top level over all its points,
 * prolongation down and interpolation to the map's points (MsmNumerics.h).  The short-range part, 1/r - g_a(r)
 * within a, is the caller's.
 */
void addMsmLongRange(const Lattice& map, const double* positions, const std::vector<double>& charges, double spacing,
                     double cutoff, int threads, double* values);

} // namespace OpenMMNarumi::PotentialMap

#endif // NARUMI_POTENTIAL_MAP_MSM_LONG_RANGE_H_
