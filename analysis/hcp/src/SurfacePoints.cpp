#include "SurfacePoints.h"

#include "ChargeHierarchy.h"
#include "NarumiCommon/ThreadPool.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <stdexcept>
#include <string>

namespace OpenMMNarumi::Hcp {

namespace {

constexpr long kMaxPointsPerAtom = 100000;

// n points spread evenly over the unit sphere (golden-angle spiral), x, y, z interleaved.
std::vector<double> unitSpherePoints(long n) {
    const double goldenAngle = M_PI * (3.0 - std::sqrt(5.0));
    std::vector<double> points(3 * n);
    for (long k = 0; k < n; ++k) {
        const double z = 1.0 - (2.0 * k + 1.0) / n;
        const double rho = std::sqrt(std::max(0.0, 1.0 - z * z));
        points[3 * k] = rho * std::cos(k * goldenAngle);
        points[3 * k + 1] = rho * std::sin(k * goldenAngle);
        points[3 * k + 2] = z;
    }
    return points;
}

// Uniform grid of cells at least as wide as the largest expanded diameter: every atom whose expanded sphere can
// overlap atom i's lies in i's cell or one of its 26 neighbours.
struct CellList {
    double origin[3], cellSize;
    int dims[3];
    std::vector<int> cellStart, atomsByCell;

    CellList(const std::vector<double>& positions, double minCellSize) {
        const size_t n = positions.size() / 3;
        double upper[3];
        for (int d = 0; d < 3; ++d) origin[d] = upper[d] = positions[d];
        for (size_t i = 0; i < n; ++i)
            for (int d = 0; d < 3; ++d) {
                origin[d] = std::min(origin[d], positions[3 * i + d]);
                upper[d] = std::max(upper[d], positions[3 * i + d]);
            }
        cellSize = minCellSize;
        // Keep the grid to at most ~8 cells per atom (sparse, huge structures get larger cells).
        while (true) {
            long total = 1;
            for (int d = 0; d < 3; ++d) {
                dims[d] = static_cast<int>((upper[d] - origin[d]) / cellSize) + 1;
                total *= dims[d];
            }
            if (total <= 8 * static_cast<long>(n) + 27) break;
            cellSize *= 1.5;
        }
        std::vector<int> cellOfAtom(n);
        cellStart.assign(static_cast<size_t>(dims[0]) * dims[1] * dims[2] + 1, 0);
        for (size_t i = 0; i < n; ++i) {
            cellOfAtom[i] = cellIndex(&positions[3 * i]);
            ++cellStart[cellOfAtom[i] + 1];
        }
        for (size_t c = 1; c < cellStart.size(); ++c) cellStart[c] += cellStart[c - 1];
        std::vector<int> fill(cellStart.begin(), cellStart.end() - 1);
        atomsByCell.resize(n);
        for (size_t i = 0; i < n; ++i) atomsByCell[fill[cellOfAtom[i]]++] = static_cast<int>(i);
    }
    int coordinate(double x, int d) const {
        return std::min(dims[d] - 1, std::max(0, static_cast<int>((x - origin[d]) / cellSize)));
    }
    int cellIndex(const double* x) const {
        return (coordinate(x[2], 2) * dims[1] + coordinate(x[1], 1)) * dims[0] + coordinate(x[0], 0);
    }
};

}  // namespace

SurfacePointSet surfacePoints(const std::vector<double>& positions, const std::vector<double>& radii,
                              double probeRadius, double density, SurfaceKind kind, int numThreads) {
    const long numAtoms = static_cast<long>(radii.size());
    if (numAtoms == 0) throw std::invalid_argument("surface points: no atoms");
    if (positions.size() != 3 * radii.size())
        throw std::invalid_argument("surface points: positions hold " + std::to_string(positions.size()) +
                                    " numbers for " + std::to_string(numAtoms) + " radii");
    requireFinite(positions, "position of atom", 3);
    if (!(std::isfinite(probeRadius) && probeRadius >= 0))
        throw std::invalid_argument("probe radius must be >= 0 nm, got " + std::to_string(probeRadius));
    if (!(std::isfinite(density) && density > 0))
        throw std::invalid_argument("point density must be > 0 per nm^2, got " + std::to_string(density));
    std::vector<double> expanded(numAtoms);
    std::map<long, std::vector<double>> spheres;  // unit-sphere point sets by point count
    std::vector<long> pointCount(numAtoms);
    double largest = 0;
    for (long i = 0; i < numAtoms; ++i) {
        if (!(std::isfinite(radii[i]) && radii[i] > 0))
            throw std::invalid_argument("radius of atom " + std::to_string(i) + " must be positive, got " +
                                        std::to_string(radii[i]));
        expanded[i] = radii[i] + probeRadius;
        largest = std::max(largest, expanded[i]);
        const double count = std::round(4 * M_PI * expanded[i] * expanded[i] * density);
        if (count > kMaxPointsPerAtom)
            throw std::invalid_argument("point density " + std::to_string(density) + " per nm^2 asks for " +
                                        std::to_string(count) + " points on atom " + std::to_string(i) +
                                        " (at most " + std::to_string(kMaxPointsPerAtom) + ")");
        pointCount[i] = std::max(1L, static_cast<long>(count));
        if (!spheres.count(pointCount[i])) spheres[pointCount[i]] = unitSpherePoints(pointCount[i]);
    }
    const CellList cells(positions, 2 * largest);

    const long chunk = 256;
    const long numChunks = (numAtoms + chunk - 1) / chunk;
    std::vector<SurfacePointSet> pieces(numChunks);
    Common::parallelChunks(numAtoms, chunk, numThreads, [&](long first, long last) {
        SurfacePointSet& piece = pieces[first / chunk];
        std::vector<int> neighbours;
        for (long i = first; i < last; ++i) {
            const double* xi = &positions[3 * i];
            neighbours.clear();
            const int cx = cells.coordinate(xi[0], 0), cy = cells.coordinate(xi[1], 1), cz = cells.coordinate(xi[2], 2);
            for (int z = std::max(0, cz - 1); z <= std::min(cells.dims[2] - 1, cz + 1); ++z)
                for (int y = std::max(0, cy - 1); y <= std::min(cells.dims[1] - 1, cy + 1); ++y)
                    for (int x = std::max(0, cx - 1); x <= std::min(cells.dims[0] - 1, cx + 1); ++x) {
                        const int cell = (z * cells.dims[1] + y) * cells.dims[0] + x;
                        for (int k = cells.cellStart[cell]; k < cells.cellStart[cell + 1]; ++k) {
                            const int j = cells.atomsByCell[k];
                            if (j == i) continue;
                            const double dx = positions[3 * j] - xi[0], dy = positions[3 * j + 1] - xi[1],
                                         dz = positions[3 * j + 2] - xi[2];
                            const double reach = expanded[i] + expanded[j];
                            if (dx * dx + dy * dy + dz * dz < reach * reach) neighbours.push_back(j);
                        }
                    }
            const std::vector<double>& sphere = spheres.at(pointCount[i]);
            size_t lastOccluder = 0;  // neighbouring points are usually buried by the same atom
            for (long p = 0; p < pointCount[i]; ++p) {
                const double* n = &sphere[3 * p];
                const double point[3] = {xi[0] + expanded[i] * n[0], xi[1] + expanded[i] * n[1], xi[2] + expanded[i] * n[2]};
                bool buried = false;
                for (size_t k = 0; k < neighbours.size() && !buried; ++k) {
                    const size_t m = (lastOccluder + k) % neighbours.size();
                    const int j = neighbours[m];
                    const double dx = point[0] - positions[3 * j], dy = point[1] - positions[3 * j + 1],
                                 dz = point[2] - positions[3 * j + 2];
                    if (dx * dx + dy * dy + dz * dz < expanded[j] * expanded[j]) {
                        buried = true;
                        lastOccluder = m;
                    }
                }
                if (buried) continue;
                const double shell = kind == SurfaceKind::Contact ? radii[i] : expanded[i];
                for (int d = 0; d < 3; ++d) {
                    piece.points.push_back(xi[d] + shell * n[d]);
                    piece.normals.push_back(n[d]);
                }
                piece.atoms.push_back(static_cast<int>(i));
            }
        }
    });
    SurfacePointSet result;
    result.offset = kind == SurfaceKind::Contact ? 0.0 : probeRadius;
    for (const SurfacePointSet& piece : pieces) {
        result.points.insert(result.points.end(), piece.points.begin(), piece.points.end());
        result.normals.insert(result.normals.end(), piece.normals.begin(), piece.normals.end());
        result.atoms.insert(result.atoms.end(), piece.atoms.begin(), piece.atoms.end());
    }
    return result;
}

}  // namespace OpenMMNarumi::Hcp
