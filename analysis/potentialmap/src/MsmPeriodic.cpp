/**
 * Multilevel summation's long-range part in a periodic cell (rectangular or triclinic), on the CPU in double
 * precision: the transcription of studies/msm/msm_periodic_prototype.py.  The lattices are commensurate with the
 * cell (n_d points along cell vector d, a multiple of 2^(levels-1)) and live in fractional coordinates with wrapped
 * indices; each level's kernel is summed over every image within its reach; the top level's smoothed kernel
 * g = 1/r - s, which has no convergent periodic sum of its own, is the Ewald sum of a unit charge (neutralizing
 * background included, as Ewald and PME imply for a charged cell) minus s over the images, plus g(0) for a
 * lattice point's own charge.
 */

#include "MsmGrid.h"
#include "MsmLongRange.h"
#include "MsmNumerics.h"
#include "NarumiCommon/ThreadPool.h"

#include <algorithm>
#include <cmath>

namespace OpenMMNarumi::PotentialMap {

namespace {

/**
 * The top level keeps at least this many points along every cell vector (8 to 14 along the shortest): its kernel
 * carries the cell's longest waves, and with 2 to 4 points along a vector (as when the longest vector set the count)
 * it was the largest error of small and elongated cells (studies/msm/msm_error_model.py).  Its kernel is an Ewald sum
 * per point and its circular sum all pairs: some thousand points cost little.
 */
constexpr int TOP_LEVEL_MIN_POINTS = 8;

/** The cell: its vectors as rows, the inverse (fractional = position * inverse), widths between opposite faces. */
struct Cell {
    double rows[3][3];
    double inverse[3][3];
    double widths[3];
    double volume;

    explicit Cell(const PeriodicBox& box) {
        const Vec3* vectors[3] = {&box.a, &box.b, &box.c};
        for (int i = 0; i < 3; i++)
            for (int d = 0; d < 3; d++)
                rows[i][d] = (*vectors[i])[d];
        // Reduced form (lower triangular): the inverse in closed form.
        double ax = rows[0][0], bx = rows[1][0], by = rows[1][1], cx = rows[2][0], cy = rows[2][1], cz = rows[2][2];
        volume = ax * by * cz;
        double m[3][3] = {{1 / ax, 0, 0}, {-bx / (ax * by), 1 / by, 0}, {(bx * cy - by * cx) / (ax * by * cz), -cy / (by * cz), 1 / cz}};
        for (int i = 0; i < 3; i++)
            for (int j = 0; j < 3; j++)
                inverse[i][j] = m[i][j];
        // width_d = V / |other two vectors' cross product| = 1 / |column d of the inverse|.
        for (int d = 0; d < 3; d++)
            widths[d] = 1.0 / std::sqrt(inverse[0][d] * inverse[0][d] + inverse[1][d] * inverse[1][d] + inverse[2][d] * inverse[2][d]);
    }
    void cartesian(const double f[3], double p[3]) const {
        for (int d = 0; d < 3; d++)
            p[d] = f[0] * rows[0][d] + f[1] * rows[1][d] + f[2] * rows[2][d];
    }
};

/** Translations n . cell that can bring a displacement inside the cell within `reach`. */
std::vector<std::array<double, 3> > imageShifts(const Cell& cell, double reach) {
    int counts[3];
    for (int d = 0; d < 3; d++)
        counts[d] = (int) std::ceil(reach / cell.widths[d]) + 1;
    std::vector<std::array<double, 3> > shifts;
    for (int i = -counts[0]; i <= counts[0]; i++)
        for (int j = -counts[1]; j <= counts[1]; j++)
            for (int k = -counts[2]; k <= counts[2]; k++) {
                double f[3] = {(double) i, (double) j, (double) k}, p[3];
                cell.cartesian(f, p);
                shifts.push_back({p[0], p[1], p[2]});
            }
    return shifts;
}

/** A periodic lattice: dims points along each cell vector (fractional coordinate i / dims[0], ...). */
using PeriodicGrid = MsmGrid;

/** The (order + 1)^3 stencil of a point at fractional coordinates f (any value: indices are wrapped). */
struct PeriodicStencil {
    int width;
    int first[3];
    double weights[3][6];
    PeriodicStencil(const PeriodicGrid& grid, const double f[3], int order) : width(order + 1) {
        for (int d = 0; d < 3; d++) {
            double s = (f[d] - std::floor(f[d])) * grid.dims[d];
            first[d] = Msm::stencilWeights(s, weights[d], order);
        }
    }
};

/** The lattice's periodic kernel, K[m] = sum over images of kernel(|(m / n) . cell + image|) within reach. */
template <class Kernel>
PeriodicGrid periodicKernel(const std::array<int, 3>& n, const Cell& cell, double reach, const Kernel& kernel, int threads) {
    PeriodicGrid K;
    K.dims = n;
    K.allocate();
    std::vector<std::array<double, 3> > shifts = imageShifts(cell, reach);
    Common::parallelFor(n[2], threads, [&](long task, int) {
        int k = (int) task;
        for (int j = 0; j < n[1]; j++)
            for (int i = 0; i < n[0]; i++) {
                double f[3] = {(double) i / n[0], (double) j / n[1], (double) k / n[2]}, p[3];
                cell.cartesian(f, p);
                double sum = 0;
                for (const auto& shift : shifts) {
                    double dx = p[0] + shift[0], dy = p[1] + shift[1], dz = p[2] + shift[2];
                    double r = std::sqrt(dx * dx + dy * dy + dz * dz);
                    if (r < reach)
                        sum += kernel(r);
                }
                K.values[K.index(i, j, k)] = sum;
            }
    });
    return K;
}

/** The nonzero entries of a kernel lattice, x fastest: one kernel row (equal dj, dk) after another. */
std::vector<MsmKernelEntry> nonzeroEntries(const PeriodicGrid& K) {
    std::vector<MsmKernelEntry> entries;
    for (int k = 0; k < K.dims[2]; k++)
        for (int j = 0; j < K.dims[1]; j++)
            for (int i = 0; i < K.dims[0]; i++) {
                double w = K.values[K.index(i, j, k)];
                if (w != 0)
                    entries.push_back({i, j, k, w});
            }
    return entries;
}

/**
 * e = K (*) q, the circular convolution over the periodic lattice, through K's nonzero entries.  K is even
 * (K[-d] = K[d]), so e[m] = sum_d K[d] q[m + d].  The entries of one kernel row (equal dj, dk; nonzeroEntries lists
 * them one row after another) all read the same source row of q, which a copy of q with every row written twice
 * (index i + di < 2 n0 for 0 <= di < n0) makes contiguous: a plain multiply-add over the output row that vectorizes.
 */
PeriodicGrid circularSum(const PeriodicGrid& q, const std::vector<MsmKernelEntry>& entries, int threads) {
    const int n0 = q.dims[0], n1 = q.dims[1], n2 = q.dims[2];
    const size_t numRows = (size_t) n1 * n2;
    std::vector<double> doubled(2 * (size_t) n0 * numRows);
    for (size_t row = 0; row < numRows; row++)
        for (int i = 0; i < 2 * n0; i++)
            doubled[2 * n0 * row + i] = q.values[n0 * row + i % n0];
    std::vector<size_t> rowStarts;
    for (size_t m = 0; m < entries.size(); m++)
        if (m == 0 || entries[m].dj != entries[m - 1].dj || entries[m].dk != entries[m - 1].dk)
            rowStarts.push_back(m);
    rowStarts.push_back(entries.size());
    PeriodicGrid e;
    e.dims = q.dims;
    e.allocate();
    Common::parallelFor((long) numRows, threads, [&](long task, int) {
        const int j = (int) (task % n1), k = (int) (task / n1);
        double* out = &e.values[(size_t) task * n0];
        for (size_t r = 0; r + 1 < rowStarts.size(); r++) {
            const MsmKernelEntry& first = entries[rowStarts[r]];
            const size_t sourceRow = (size_t) ((j + first.dj) % n1) + (size_t) n1 * ((k + first.dk) % n2);
            const double* source = &doubled[2 * n0 * sourceRow];
            for (size_t m = rowStarts[r]; m < rowStarts[r + 1]; m++) {
                const double weight = entries[m].weight;
                const double* shifted = source + entries[m].di;
                for (int i = 0; i < n0; i++)
                    out[i] += weight * shifted[i];
            }
        }
    });
    return e;
}

/** Restriction: coarse j = sum_k phi(k / 2) fine[2 j + k], k = -order..order, along each axis, indices wrapped. */
PeriodicGrid restrict(const PeriodicGrid& fine, int order) {
    const std::array<double, 11> weights = Msm::transferWeights(order);
    PeriodicGrid current = fine;
    for (int axis = 0; axis < 3; axis++) {
        PeriodicGrid next;
        next.dims = current.dims;
        next.dims[axis] /= 2;
        next.allocate();
        for (int k = 0; k < next.dims[2]; k++)
            for (int j = 0; j < next.dims[1]; j++)
                for (int i = 0; i < next.dims[0]; i++) {
                    int at[3] = {i, j, k};
                    double sum = 0;
                    for (int t = -order; t <= order; t++) {
                        int source[3] = {i, j, k};
                        source[axis] = 2 * at[axis] + t;
                        sum += weights[t + order] * current.values[current.wrappedIndex(source[0], source[1], source[2])];
                    }
                    next.values[next.index(i, j, k)] = sum;
                }
        current = std::move(next);
    }
    return current;
}

/** Prolongation, the transpose of restriction, added into fine. */
void prolongInto(const PeriodicGrid& coarse, PeriodicGrid& fine, int order) {
    const std::array<double, 11> weights = Msm::transferWeights(order);
    PeriodicGrid current = coarse;
    for (int axis = 0; axis < 3; axis++) {
        PeriodicGrid next;
        next.dims = current.dims;
        next.dims[axis] *= 2;
        next.allocate();
        for (int k = 0; k < current.dims[2]; k++)
            for (int j = 0; j < current.dims[1]; j++)
                for (int i = 0; i < current.dims[0]; i++) {
                    int at[3] = {i, j, k};
                    double value = current.values[current.index(i, j, k)];
                    for (int t = -order; t <= order; t++) {
                        int target[3] = {i, j, k};
                        target[axis] = 2 * at[axis] + t;
                        next.values[next.wrappedIndex(target[0], target[1], target[2])] += weights[t + order] * value;
                    }
                }
        current = std::move(next);
    }
    for (size_t m = 0; m < fine.values.size(); m++)
        fine.values[m] += current.values[m];
}

/**
 * The Ewald potential (per unit charge, no Coulomb constant) at displacement p of a unit charge and all its images,
 * with the neutralizing background; at p = 0 the charge's own bare 1/r is left out (its real-space term is
 * replaced by its limit -2 alpha / sqrt(pi)).  alpha and the ranges give terms below 1e-13.
 */
double unitEwald(const double p[3], const Cell& cell) {
    const double tolerance = 1e-13, pi = 3.14159265358979323846;
    double alpha = 3.0 / std::min({cell.widths[0], cell.widths[1], cell.widths[2]});
    double reach = std::sqrt(-std::log(tolerance)), cutoff = reach / alpha, kmax = 2 * alpha * reach;
    double real = 0;
    for (const auto& shift : imageShifts(cell, cutoff)) {
        double dx = p[0] + shift[0], dy = p[1] + shift[1], dz = p[2] + shift[2];
        double r = std::sqrt(dx * dx + dy * dy + dz * dz);
        if (r < 1e-12)
            real -= 2 * alpha / std::sqrt(pi);
        else if (r < cutoff)
            real += std::erfc(alpha * r) / r;
    }
    // Reciprocal vectors: 2 pi times the columns of the inverse.
    int hmax[3];
    for (int d = 0; d < 3; d++)
        hmax[d] = (int) std::ceil(kmax * cell.widths[d] / (2 * pi));
    double recip = 0;
    for (int h = -hmax[0]; h <= hmax[0]; h++)
        for (int k = -hmax[1]; k <= hmax[1]; k++)
            for (int l = -hmax[2]; l <= hmax[2]; l++) {
                if (h == 0 && k == 0 && l == 0)
                    continue;
                double kv[3];
                for (int d = 0; d < 3; d++)
                    kv[d] = 2 * pi * (h * cell.inverse[d][0] + k * cell.inverse[d][1] + l * cell.inverse[d][2]);
                double k2 = kv[0] * kv[0] + kv[1] * kv[1] + kv[2] * kv[2];
                if (k2 > kmax * kmax)
                    continue;
                recip += std::exp(-k2 / (4 * alpha * alpha)) / k2 * std::cos(kv[0] * p[0] + kv[1] * p[1] + kv[2] * p[2]);
            }
    recip *= 4 * pi / cell.volume;
    return real + recip - pi / (alpha * alpha * cell.volume);
}

} // namespace

MsmPeriodicPlan msmPeriodicPlan(const PeriodicBox& box, double spacing, double cutoff, int order, int threads) {
    Cell cell(box);
    MsmPeriodicPlan plan;
    for (int i = 0; i < 3; i++)
        for (int d = 0; d < 3; d++) {
            plan.rows[i][d] = cell.rows[i][d];
            plan.inverse[i][d] = cell.inverse[i][d];
        }
    double lengths[3];
    for (int d = 0; d < 3; d++)
        lengths[d] = std::sqrt(cell.rows[d][0] * cell.rows[d][0] + cell.rows[d][1] * cell.rows[d][1] + cell.rows[d][2] * cell.rows[d][2]);
    int levels = 1;
    auto pointsAtTop = [&](int d, int numLevels) { return (int) std::ceil(lengths[d] / spacing / std::ldexp(1.0, numLevels - 1)); };
    auto fewestAtTop = [&](int numLevels) { return std::min({pointsAtTop(0, numLevels), pointsAtTop(1, numLevels), pointsAtTop(2, numLevels)}); };
    while (fewestAtTop(levels + 1) >= TOP_LEVEL_MIN_POINTS)
        levels++;
    std::array<int, 3> finest;
    for (int d = 0; d < 3; d++)
        finest[d] = pointsAtTop(d, levels) << (levels - 1);
    checkMsmLatticeMemory(finest, spacing);
    for (int level = 0; level < levels; level++) {
        std::array<int, 3> n;
        for (int d = 0; d < 3; d++)
            n[d] = finest[d] >> level;
        plan.dims.push_back(n);
        const double scale = std::ldexp(cutoff, level);  // 2^l a
        if (level < levels - 1) {
            PeriodicGrid K = periodicKernel(n, cell, 2 * scale,
                                            [&](double r) { return Msm::smoothed(r, scale, order) - Msm::smoothed(r, 2 * scale, order); },
                                            threads);
            plan.kernels.push_back(nonzeroEntries(K));
        }
        else {
            // g = 1/r - s with s = 1/r - g_scale zero beyond scale: Ewald of 1/r minus s over the images, g(0) at home.
            PeriodicGrid K = periodicKernel(n, cell, scale, [&](double r) { return r > 1e-12 ? 1.0 / r - Msm::smoothed(r, scale, order) : 0.0; },
                                            threads);
            for (int k = 0; k < n[2]; k++)
                for (int j = 0; j < n[1]; j++)
                    for (int i = 0; i < n[0]; i++) {
                        double f[3] = {(double) i / n[0], (double) j / n[1], (double) k / n[2]}, p[3];
                        cell.cartesian(f, p);
                        double& entry = K.values[K.index(i, j, k)];
                        entry = unitEwald(p, cell) - entry;
                    }
            K.values[0] += Msm::smoothed(0.0, scale, order);
            plan.kernels.push_back(nonzeroEntries(K));
        }
    }
    return plan;
}

void addMsmLongRangePeriodic(const Lattice& map, const double* positions, const std::vector<double>& charges,
                             const PeriodicBox& box, double spacing, double cutoff, int order, int threads, double* values) {
    addMsmLongRangePeriodic(map, positions, charges, msmPeriodicPlan(box, spacing, cutoff, order, threads), order, threads, values);
}

void addMsmLongRangePeriodic(const Lattice& map, const double* positions, const std::vector<double>& charges,
                             const MsmPeriodicPlan& plan, int order, int threads, double* values) {
    auto fractional = [&plan](const double p[3], double f[3]) {
        for (int d = 0; d < 3; d++)
            f[d] = p[0] * plan.inverse[0][d] + p[1] * plan.inverse[1][d] + p[2] * plan.inverse[2][d];
    };
    const int levels = (int) plan.dims.size();
    std::vector<PeriodicGrid> q(1);
    q[0].dims = plan.dims[0];
    q[0].allocate();
    for (size_t atom = 0; atom < charges.size(); atom++) {
        if (charges[atom] == 0)
            continue;
        double f[3];
        fractional(positions + 3 * atom, f);
        PeriodicStencil s(q[0], f, order);
        for (int c = 0; c < s.width; c++)
            for (int b = 0; b < s.width; b++)
                for (int a = 0; a < s.width; a++)
                    q[0].values[q[0].wrappedIndex(s.first[0] + a, s.first[1] + b, s.first[2] + c)] +=
                        charges[atom] * s.weights[0][a] * s.weights[1][b] * s.weights[2][c];
    }
    for (int level = 1; level < levels; level++)
        q.push_back(restrict(q.back(), order));
    std::vector<PeriodicGrid> e(levels);
    for (int level = 0; level < levels; level++)
        e[level] = circularSum(q[level], plan.kernels[level], threads);
    for (int level = levels - 1; level > 0; level--)
        prolongInto(e[level], e[level - 1], order);
    const PeriodicGrid& finest = e[0];
    forEachMapPoint(map, threads, [&](const double p[3], size_t index) {
        double f[3];
        fractional(p, f);
        PeriodicStencil s(finest, f, order);
        double sum = 0;
        for (int c = 0; c < s.width; c++)
            for (int b = 0; b < s.width; b++)
                for (int a = 0; a < s.width; a++)
                    sum += s.weights[0][a] * s.weights[1][b] * s.weights[2][c] *
                           finest.values[finest.wrappedIndex(s.first[0] + a, s.first[1] + b, s.first[2] + c)];
        values[index] += COULOMB_CONSTANT * sum;
    });
}

} // namespace OpenMMNarumi::PotentialMap
