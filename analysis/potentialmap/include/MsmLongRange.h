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
 * prolongation down and interpolation to the map's points, with the scheme of `order` (MsmNumerics.h: 3 cubic, 5
 * quintic).  The short-range part, 1/r - g_a(r)
 * within a, is the caller's.
 */
void addMsmLongRange(const Lattice& map, const double* positions, const std::vector<double>& charges, double spacing,
                     double cutoff, int order, int threads, double* values);

/**
 * Throws std::invalid_argument naming the size when lattices of finestPoints points (with their coarser levels and
 * work copies, about 4 x 8 bytes per finest point) would not fit into this machine's memory: before any work.
 */
void checkMsmLatticeMemory(const std::array<int, 3>& finestDims, double spacing);

/**
 * The same in a periodic cell (src/MsmPeriodic.cpp), rectangular or triclinic: lattices commensurate with the cell,
 * the top level through the Ewald sum of its kernel, so that the map is the Ewald potential of the charges with
 * the neutralizing background of a charged cell.  The short-range part is the caller's, over periodic images.
 */
void addMsmLongRangePeriodic(const Lattice& map, const double* positions, const std::vector<double>& charges,
                             const PeriodicBox& box, double spacing, double cutoff, int order, int threads, double* values);

} // namespace OpenMMNarumi::PotentialMap

#endif // NARUMI_POTENTIAL_MAP_MSM_LONG_RANGE_H_
