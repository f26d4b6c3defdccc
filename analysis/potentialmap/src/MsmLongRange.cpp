/**
 * Multilevel summation's long-range part on the CPU, in double precision: the transcription of
 * studies/msm/msm_prototype.py (open boundaries), with each level's lattice sum done as a direct stencil sum over
 * z planes shared out among threads instead of the prototype's FFT.
 */

#include "MsmGrid.h"
#include "MsmLongRange.h"
#include "MsmNumerics.h"
#include "NarumiCommon/ThreadPool.h"

#include <algorithm>
#include <cmath>
#include <sstream>
#include <stdexcept>
#include <unistd.h>

namespace OpenMMNarumi::PotentialMap {

namespace {


/** A lattice of one level and its values. */
struct LevelGrid : MsmGrid {
    Vec3 origin{};
    double spacing = 0;

    LevelGrid() = default;
    explicit LevelGrid(const MsmLevel& level) : origin(level.origin), spacing(level.spacing) {
        dims = level.dims;
    }
};

/** The (order + 1)^3 stencil of a point: first index and weights per axis. */
struct Stencil {
    int width;
    int first[3];
    double weights[3][6];

    Stencil(const LevelGrid& grid, const double p[3], int order) : width(order + 1) {
        for (int d = 0; d < 3; d++)
            first[d] = Msm::stencilWeights((p[d] - grid.origin[d]) / grid.spacing, weights[d], order);
    }
};

void anterpolate(LevelGrid& grid, const double* positions, const std::vector<double>& charges, int order) {
    for (size_t atom = 0; atom < charges.size(); atom++) {
        if (charges[atom] == 0)
            continue;
        Stencil s(grid, positions + 3 * atom, order);
        for (int c = 0; c < s.width; c++)
            for (int b = 0; b < s.width; b++) {
                double wbc = charges[atom] * s.weights[1][b] * s.weights[2][c];
                size_t row = grid.index(s.first[0], s.first[1] + b, s.first[2] + c);
                for (int a = 0; a < s.width; a++)
                    grid.values[row + a] += wbc * s.weights[0][a];
            }
    }
}

/**
 * The top level has at most this many points along each axis, so that its all-pairs sum stays small.  Restriction
 * maps n points to (n + 1) / 2 + 2 P (P the coarse margin), which shrinks only down to 4 P + 1: the bound must lie
 * above that (12 for the cubic scheme, 16 for the quintic).
 */
int topLevelPoints(int order) {
    return 4 * msmCoarseMargin(order) + 4;
}

/**
 * Restriction (coarse point j gathers fine points i = 2 (j - P) + k, k = -order..order, weights phi(k / 2), P the
 * coarse margin) or its transpose, prolongation (toFine), along one axis: `from` to `to`, whose dims differ from
 * from's along axis only.
 */
void transferAxis(const LevelGrid& from, LevelGrid& to, int axis, bool toFine, int order) {
    const std::array<double, 11> weights = Msm::transferWeights(order);
    const int margin = msmCoarseMargin(order);
    const LevelGrid& coarse = toFine ? from : to;
    const LevelGrid& fine = toFine ? to : from;
    const int numCoarse = coarse.dims[axis], numFine = fine.dims[axis];
    std::fill(to.values.begin(), to.values.end(), 0.0);
    std::array<int, 3> n = to.dims;
    for (int k = 0; k < n[2]; k++)
        for (int j = 0; j < n[1]; j++)
            for (int i = 0; i < n[0]; i++) {
                int out[3] = {i, j, k};
                double sum = 0;
                if (toFine) {
                    // fine point f receives from coarse m with f = 2 (m - P) + t
                    int f = out[axis];
                    for (int t = -order; t <= order; t++) {
                        if ((f - t) % 2 != 0)
                            continue;
                        int m = (f - t) / 2 + margin;
                        if (m < 0 || m >= numCoarse)
                            continue;
                        int source[3] = {i, j, k};
                        source[axis] = m;
                        sum += weights[t + order] * from.values[from.index(source[0], source[1], source[2])];
                    }
                }
                else {
                    int m = out[axis];
                    for (int t = -order; t <= order; t++) {
                        int f = 2 * (m - margin) + t;
                        if (f < 0 || f >= numFine)
                            continue;
                        int source[3] = {i, j, k};
                        source[axis] = f;
                        sum += weights[t + order] * from.values[from.index(source[0], source[1], source[2])];
                    }
                }
                to.values[to.index(i, j, k)] = sum;
            }
}

/** The three axes' transfers: restriction to `coarse` (whose geometry is set) or prolongation added into `fine`. */
void transfer(const LevelGrid& from, LevelGrid& to, bool toFine, int order) {
    LevelGrid current = from;
    for (int axis = 0; axis < 3; axis++) {
        LevelGrid next = current;
        next.dims[axis] = to.dims[axis];
        next.allocate();
        transferAxis(current, next, axis, toFine, order);
        current = std::move(next);
    }
    if (toFine)
        for (size_t n = 0; n < to.values.size(); n++)
            to.values[n] += current.values[n];
    else
        to.values = std::move(current.values);
}

/**
 * e = K * q on one level: e_m = sum over offsets d within the weights' radius of weight[d] q_{m + d}, open boundaries
 * (points outside the lattice hold no charge).  Output z planes are shared out.
 */
void latticeSum(const LevelGrid& q, LevelGrid& e, const MsmLatticeWeights& kernel, int threads) {
    const int rx = kernel.radius[0], ry = kernel.radius[1], rz = kernel.radius[2];
    const int wx = 2 * rx + 1, wy = 2 * ry + 1;
    const std::vector<double>& weights = kernel.weights;
    const int nx = q.dims[0], ny = q.dims[1], nz = q.dims[2];
    e.allocate();
    Common::parallelFor(nz, threads, [&](long task, int) {
        const int k = (int) task;
        for (int dz = std::max(-rz, -k); dz <= std::min(rz, nz - 1 - k); dz++)
            for (int j = 0; j < ny; j++) {
                double* out = &e.values[e.index(0, j, k)];
                for (int dy = std::max(-ry, -j); dy <= std::min(ry, ny - 1 - j); dy++) {
                    const double* source = &q.values[q.index(0, j + dy, k + dz)];
                    const double* w = &weights[(size_t) wx * ((size_t) (dy + ry) + wy * (dz + rz))];
                    for (int dx = -rx; dx <= rx; dx++) {
                        double weight = w[dx + rx];
                        if (weight == 0)
                            continue;
                        int i0 = std::max(0, -dx), i1 = std::min(nx, nx - dx);
                        for (int i = i0; i < i1; i++)
                            out[i] += weight * source[i + dx];
                    }
                }
            }
    });
}

} // namespace

void checkMsmLatticeMemory(const std::array<int, 3>& finestDims, double spacing) {
    double points = (double) finestDims[0] * finestDims[1] * finestDims[2];
    double bytes = 4 * 8 * points;
    double memory = (double) sysconf(_SC_PHYS_PAGES) * (double) sysconf(_SC_PAGE_SIZE);
    if (points > 2e9 || (memory > 0 && bytes > memory)) {
        std::ostringstream text;
        text << "the multilevel summation's finest lattice, " << finestDims[0] << " x " << finestDims[1] << " x " << finestDims[2]
             << " points at " << spacing << " nm, needs about " << bytes / 1e9 << " GB, more than this machine's "
             << memory / 1e9 << " GB; use a coarser msmAccuracy or a smaller system";
        throw std::invalid_argument(text.str());
    }
}

int msmCoarseMargin(int order) {
    return (order + 1) / 2;
}

std::vector<MsmLevel> msmOpenLevels(const Lattice& map, const double* positions, size_t numAtoms, double spacing, int order) {
    const int margin = msmCoarseMargin(order);
    // The finest lattice covers the atoms and the map points with `margin` points to spare (the basis's reach).
    Vec3 low, high;
    for (int d = 0; d < 3; d++) {
        low[d] = map.origin[d];
        high[d] = map.origin[d] + (map.dims[d] - 1) * map.spacing[d];
    }
    for (size_t atom = 0; atom < numAtoms; atom++)
        for (int d = 0; d < 3; d++) {
            low[d] = std::min(low[d], positions[3 * atom + d]);
            high[d] = std::max(high[d], positions[3 * atom + d]);
        }
    std::vector<MsmLevel> levels(1);
    levels[0].spacing = spacing;
    for (int d = 0; d < 3; d++) {
        levels[0].origin[d] = low[d] - margin * spacing;
        levels[0].dims[d] = (int) std::ceil((high[d] - levels[0].origin[d]) / spacing) + 2 * margin - 1;
    }
    checkMsmLatticeMemory(levels[0].dims, spacing);
    while (*std::max_element(levels.back().dims.begin(), levels.back().dims.end()) > topLevelPoints(order)) {
        MsmLevel coarse;
        coarse.spacing = 2 * levels.back().spacing;
        for (int d = 0; d < 3; d++) {
            coarse.origin[d] = levels.back().origin[d] - margin * coarse.spacing;
            coarse.dims[d] = (levels.back().dims[d] + 1) / 2 + 2 * margin;
        }
        levels.push_back(coarse);
    }
    return levels;
}

MsmLatticeWeights msmOpenLatticeWeights(const std::vector<MsmLevel>& levels, int level, double cutoff, int order) {
    const MsmLevel& grid = levels[level];
    const double scale = std::ldexp(cutoff, level);  // 2^l a
    const bool top = (level + 1 == (int) levels.size());
    MsmLatticeWeights w;
    int reach = (int) std::ceil(2 * scale / grid.spacing);
    for (int d = 0; d < 3; d++)
        w.radius[d] = top ? grid.dims[d] - 1 : reach;
    const int rx = w.radius[0], ry = w.radius[1], rz = w.radius[2];
    const int wx = 2 * rx + 1, wy = 2 * ry + 1;
    w.weights.resize((size_t) wx * wy * (2 * rz + 1));
    for (int dz = -rz; dz <= rz; dz++)
        for (int dy = -ry; dy <= ry; dy++)
            for (int dx = -rx; dx <= rx; dx++) {
                double r = grid.spacing * std::sqrt((double) dx * dx + (double) dy * dy + (double) dz * dz);
                double value = top ? Msm::smoothed(r, scale, order)
                                   : (r < 2 * scale ? Msm::smoothed(r, scale, order) - Msm::smoothed(r, 2 * scale, order) : 0.0);
                w.weights[(size_t) (dx + rx) + wx * ((size_t) (dy + ry) + wy * (dz + rz))] = value;
            }
    return w;
}

void addMsmLongRange(const Lattice& map, const double* positions, const std::vector<double>& charges, double spacing,
                     double cutoff, int order, int threads, double* values) {
    const std::vector<MsmLevel> geometry = msmOpenLevels(map, positions, charges.size(), spacing, order);
    const int levels = (int) geometry.size();
    std::vector<LevelGrid> q;
    for (const MsmLevel& level : geometry)
        q.emplace_back(level);
    q[0].allocate();
    anterpolate(q[0], positions, charges, order);
    for (int level = 1; level < levels; level++)
        transfer(q[level - 1], q[level], false, order);
    std::vector<LevelGrid> e;
    for (int level = 0; level < levels; level++) {
        e.emplace_back(geometry[level]);
        latticeSum(q[level], e[level], msmOpenLatticeWeights(geometry, level, cutoff, order), threads);
    }
    for (int level = levels - 1; level > 0; level--)
        transfer(e[level], e[level - 1], true, order);
    // Interpolation to the map's points.
    const LevelGrid& finest = e[0];
    forEachMapPoint(map, threads, [&](const double p[3], size_t index) {
        Stencil s(finest, p, order);
        double sum = 0;
        for (int c = 0; c < s.width; c++)
            for (int b = 0; b < s.width; b++) {
                const double* line = &finest.values[finest.index(s.first[0], s.first[1] + b, s.first[2] + c)];
                double partial = 0;
                for (int a = 0; a < s.width; a++)
                    partial += s.weights[0][a] * line[a];
                sum += s.weights[1][b] * s.weights[2][c] * partial;
            }
        values[index] += COULOMB_CONSTANT * sum;
    });
}

} // namespace OpenMMNarumi::PotentialMap
