#include "ReferenceCellList.h"
#include <Eigen/Dense>
#include <algorithm>
#include <cmath>

using namespace OpenMMNarumi;
using namespace OpenMM;
using namespace std;

namespace {
// Cells are at least cutoff/CELLS_PER_CUTOFF wide, so partners lie within CELLS_PER_CUTOFF cells in every
// direction: 125 half-cutoff cells hold less volume (15.6 rc^3) than 27 full-cutoff ones (27 rc^3).
const int CELLS_PER_CUTOFF = 2;
} // namespace

ReferenceCellList::ReferenceCellList(const vector<Vec3>& positions, const Vec3* boxVectors, double cutoff) {
    int numParticles = positions.size();
    bool periodic = (boxVectors != nullptr);
    vector<Vec3> scaled(numParticles); // coordinates in units of the grid extent, in [0, 1) along each axis
    if (periodic) {
        // Columns of box are the box vectors; rows of its inverse are the reciprocal vectors, and the
        // perpendicular width of the box along axis d is 1/|reciprocal_d|.  Cells must be a cutoff wide
        // in that sense, which for a triclinic box is narrower than the diagonal element.
        Eigen::Matrix3d box;
        for (int d = 0; d < 3; d++)
            box.col(d) = Eigen::Vector3d(boxVectors[d][0], boxVectors[d][1], boxVectors[d][2]);
        Eigen::Matrix3d reciprocal = box.inverse();
        for (int d = 0; d < 3; d++)
            numCells[d] = max(1, (int) floor(CELLS_PER_CUTOFF / (reciprocal.row(d).norm() * cutoff)));
        for (int i = 0; i < numParticles; i++) {
            Eigen::Vector3d f = reciprocal * Eigen::Vector3d(positions[i][0], positions[i][1], positions[i][2]);
            scaled[i] = Vec3(f[0] - floor(f[0]), f[1] - floor(f[1]), f[2] - floor(f[2]));
        }
    }
    else {
        Vec3 low = positions.empty() ? Vec3() : positions[0], high = low;
        for (const Vec3& p : positions)
            for (int d = 0; d < 3; d++) {
                low[d] = min(low[d], p[d]);
                high[d] = max(high[d], p[d]);
            }
        for (int d = 0; d < 3; d++) {
            double extent = high[d] - low[d];
            numCells[d] = max(1, (int) min(floor(CELLS_PER_CUTOFF * extent / cutoff), 1e6));
            for (int i = 0; i < numParticles; i++)
                scaled[i][d] = (extent > 0 ? (positions[i][d] - low[d]) / extent : 0.0);
        }
    }

    // A few far-flung particles must not make a sparse grid huge: coarser cells stay correct, just slower.
    while ((double) numCells[0] * numCells[1] * numCells[2] > 8.0 * numParticles + 27) {
        int widest = (int) (max_element(numCells, numCells + 3) - numCells);
        numCells[widest] = max(1, numCells[widest] / 2);
    }

    // Counting sort of particles into cells.
    int totalCells = numCells[0] * numCells[1] * numCells[2];
    vector<int> cellOf(numParticles);
    cellStart.assign(totalCells + 1, 0);
    for (int i = 0; i < numParticles; i++) {
        int index[3];
        for (int d = 0; d < 3; d++)
            index[d] = min(numCells[d] - 1, (int) (scaled[i][d] * numCells[d]));
        cellOf[i] = index[0] + numCells[0] * (index[1] + numCells[1] * index[2]);
        cellStart[cellOf[i] + 1]++;
    }
    for (int cell = 0; cell < totalCells; cell++)
        cellStart[cell + 1] += cellStart[cell];
    cellParticles.resize(numParticles);
    vector<int> fill(cellStart.begin(), cellStart.end() - 1);
    for (int i = 0; i < numParticles; i++)
        cellParticles[fill[cellOf[i]]++] = i;

    // Adjacent cells, wrapped (periodic) or clipped (non-periodic), without duplicates.
    cellNeighbors.resize(totalCells);
    for (int z = 0; z < numCells[2]; z++)
        for (int y = 0; y < numCells[1]; y++)
            for (int x = 0; x < numCells[0]; x++) {
                vector<int>& neighbors = cellNeighbors[x + numCells[0] * (y + numCells[1] * z)];
                for (int dz = -CELLS_PER_CUTOFF; dz <= CELLS_PER_CUTOFF; dz++)
                    for (int dy = -CELLS_PER_CUTOFF; dy <= CELLS_PER_CUTOFF; dy++)
                        for (int dx = -CELLS_PER_CUTOFF; dx <= CELLS_PER_CUTOFF; dx++) {
                            int n[3] = {x + dx, y + dy, z + dz};
                            bool inside = true;
                            for (int d = 0; d < 3; d++) {
                                if (periodic)
                                    n[d] = ((n[d] % numCells[d]) + numCells[d]) % numCells[d];
                                else if (n[d] < 0 || n[d] >= numCells[d])
                                    inside = false;
                            }
                            if (inside)
                                neighbors.push_back(n[0] + numCells[0] * (n[1] + numCells[1] * n[2]));
                        }
                sort(neighbors.begin(), neighbors.end());
                neighbors.erase(unique(neighbors.begin(), neighbors.end()), neighbors.end());
            }
}
