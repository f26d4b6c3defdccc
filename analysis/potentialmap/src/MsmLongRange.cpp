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


/** A lattice of one level: point (i, j, k) at origin + (i, j, k) * spacing. */
struct LevelGrid : MsmGrid {
    Vec3 origin{};
    double spacing = 0;
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

/** Points a coarse lattice starts before its fine lattice's origin, so that its basis covers the fine lattice. */
int coarseMargin(int order) {
    return (order + 1) / 2;
}

/**
 * The top level has at most this many points along each axis, so that its all-pairs sum stays small.  Restriction
 * maps n points to (n + 1) / 2 + 2 P (P the coarse margin), which shrinks only down to 4 P + 1: the bound must lie
 * above that (12 for the cubic scheme, 16 for the quintic).
 */
int topLevelPoints(int order) {
    return 4 * coarseMargin(order) + 4;
}

/**
 * Restriction (coarse point j gathers fine points i = 2 (j - P) + k, k = -order..order, weights phi(k / 2), P the
 * coarse margin) or its transpose, prolongation (toFine), along one axis: `from` to `to`, whose dims differ from
 * from's along axis only.
 */
void transferAxis(const LevelGrid& from, LevelGrid& to, int axis, bool toFine, int order) {
    const std::array<double, 11> weights = Msm::transferWeights(order);
    const int margin = coarseMargin(order);
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
 * e = K * q on one level: e_m = sum over offsets d within `radius` points of weight[d] q_{m + d}, open boundaries
 * (points outside the lattice hold no charge); weight(d) = kernel(|d| h).  Output z planes are shared out.
 */
template <class Kernel>
void latticeSum(const LevelGrid& q, LevelGrid& e, const std::array<int, 3>& radius, const Kernel& kernel, int threads) {
    const int rx = radius[0], ry = radius[1], rz = radius[2];
    const int wx = 2 * rx + 1, wy = 2 * ry + 1;
    std::vector<double> weights((size_t) wx * wy * (2 * rz + 1));
    for (int dz = -rz; dz <= rz; dz++)
        for (int dy = -ry; dy <= ry; dy++)
            for (int dx = -rx; dx <= rx; dx++)
                weights[(size_t) (dx + rx) + wx * ((size_t) (dy + ry) + wy * (dz + rz))] =
                    kernel(q.spacing * std::sqrt((double) dx * dx + (double) dy * dy + (double) dz * dz));
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

void addMsmLongRange(const Lattice& map, const double* positions, const std::vector<double>& charges, double spacing,
                     double cutoff, int order, int threads, double* values) {
    const int margin = coarseMargin(order);
    // The finest lattice covers the atoms and the map points with `margin` points to spare (the basis's reach).
    Vec3 low, high;
    for (int d = 0; d < 3; d++) {
        low[d] = map.origin[d];
        high[d] = map.origin[d] + (map.dims[d] - 1) * map.spacing[d];
    }
    for (size_t atom = 0; atom < charges.size(); atom++)
        for (int d = 0; d < 3; d++) {
            low[d] = std::min(low[d], positions[3 * atom + d]);
            high[d] = std::max(high[d], positions[3 * atom + d]);
        }
    std::vector<LevelGrid> q(1);
    q[0].spacing = spacing;
    for (int d = 0; d < 3; d++) {
        q[0].origin[d] = low[d] - margin * spacing;
        q[0].dims[d] = (int) std::ceil((high[d] - q[0].origin[d]) / spacing) + 2 * margin - 1;
    }
    checkMsmLatticeMemory(q[0].dims, spacing);
    q[0].allocate();
    anterpolate(q[0], positions, charges, order);
    while (*std::max_element(q.back().dims.begin(), q.back().dims.end()) > topLevelPoints(order)) {
        LevelGrid coarse;
        coarse.spacing = 2 * q.back().spacing;
        for (int d = 0; d < 3; d++) {
            coarse.origin[d] = q.back().origin[d] - margin * coarse.spacing;
            coarse.dims[d] = (q.back().dims[d] + 1) / 2 + 2 * margin;
        }
        transfer(q.back(), coarse, false, order);
        q.push_back(std::move(coarse));
    }
    const int levels = (int) q.size();
    std::vector<LevelGrid> e(levels);
    for (int level = 0; level < levels; level++) {
        e[level].origin = q[level].origin;
        e[level].spacing = q[level].spacing;
        e[level].dims = q[level].dims;
        const double scale = std::ldexp(cutoff, level);  // 2^l a
        if (level < levels - 1) {
            int reach = (int) std::ceil(2 * scale / q[level].spacing);
            latticeSum(q[level], e[level], {reach, reach, reach},
                       [&](double r) { return r < 2 * scale ? Msm::smoothed(r, scale, order) - Msm::smoothed(r, 2 * scale, order) : 0.0; },
                       threads);
        }
        else {
            std::array<int, 3> all = {q[level].dims[0] - 1, q[level].dims[1] - 1, q[level].dims[2] - 1};
            latticeSum(q[level], e[level], all, [&](double r) { return Msm::smoothed(r, scale, order); }, threads);
        }
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
        values[index] += ONE_4PI_EPS0 * sum;
    });
}

} // namespace OpenMMNarumi::PotentialMap
