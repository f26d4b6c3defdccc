#ifndef OPENMM_NARUMI_REFERENCE_CELL_LIST_H_
#define OPENMM_NARUMI_REFERENCE_CELL_LIST_H_

#include "openmm/Vec3.h"
#include <vector>

namespace OpenMMNarumi {

/**
 * A cell list for finding all pairs within a cutoff in O(N): cells at least half a cutoff wide, so a
 * particle's partners lie within two cells in every direction.  Periodic grids live in fractional
 * coordinates of OpenMM's reduced (rectangular or triclinic) box; non-periodic grids cover the
 * particles' bounding box.  Neighbour-cell lists are de-duplicated, so grids of one or two cells
 * per dimension in a stencil (small boxes) still visit every pair exactly once.
 */
class ReferenceCellList {
public:
    /** boxVectors == nullptr builds a non-periodic grid. */
    ReferenceCellList(const std::vector<OpenMM::Vec3>& positions, const OpenMM::Vec3* boxVectors, double cutoff);

    int getNumCells() const {
        return cellStart.size() - 1;
    }
    /** Particles whose home cell is cell, in increasing index order. */
    const int* cellBegin(int cell) const {
        return &cellParticles[cellStart[cell]];
    }
    const int* cellEnd(int cell) const {
        return &cellParticles[cellStart[cell + 1]];
    }
    /** Distinct cells (the cell itself included) that may hold partners of particles in cell. */
    const std::vector<int>& neighborCells(int cell) const {
        return cellNeighbors[cell];
    }

private:
    int numCells[3];
    std::vector<int> cellStart, cellParticles;
    std::vector<std::vector<int> > cellNeighbors;
};

} // namespace OpenMMNarumi

#endif // OPENMM_NARUMI_REFERENCE_CELL_LIST_H_
