/**
 * The multithreaded CPU backend, in double precision throughout (so the accumulation option does not apply here).
 * Direct: rows of the lattice are shared out among threads; each row loops over atoms outside and lattice points
 * inside, so that the inner loop vectorizes.  Cutoff: the paper's CPU algorithm (section 4.4), atoms outside and the
 * lattice points of each atom's sphere inside, with slabs of z planes shared out so that no two threads write the
 * same point; each point sums its atoms in one fixed order whatever the thread count.  Multilevel summation: the
 * cutoff method's sphere sum with the short-range kernel 1/r - g_a(r), plus the lattice levels (MsmLongRange.cpp).
 */

#include "MsmLongRange.h"
#include "MsmNumerics.h"
#include "NarumiCommon/ThreadPool.h"
#include "PeriodicImages.h"
#include "PotentialMap.h"

#include <algorithm>
#include <chrono>
#include <cmath>

namespace OpenMMNarumi::PotentialMap {

namespace {

struct Atom {
    double x, y, z, q;
};

// The inner loops: compiled for AVX2+FMA too, picked at run time where the CPU has them.
__attribute__((target_clones("avx2,fma", "default")))
void addDirectRow(double* row, int nx, double x0, double hx, const Atom* atoms, size_t numAtoms, double y, double z) {
    const double skip2 = COINCIDENCE_RADIUS * COINCIDENCE_RADIUS;
    for (size_t a = 0; a < numAtoms; a++) {
        const double dy = y - atoms[a].y, dz = z - atoms[a].z;
        const double dyz2 = dy * dy + dz * dz, q = atoms[a].q, ax = atoms[a].x;
        for (int i = 0; i < nx; i++) {
            double dx = x0 + i * hx - ax;
            double r2 = dx * dx + dyz2;
            row[i] += r2 >= skip2 ? q / std::sqrt(r2) : 0.0;
        }
    }
}

/** row[i] += q kernel(r^2) for the points i0..i1 of a row; kernel is a pair kernel of r^2, per unit charge. */
template <class Kernel>
inline void addSegment(double* row, int i0, int i1, double x0, double hx, double ax, double dyz2, double q, const Kernel& kernel) {
    for (int i = i0; i <= i1; i++) {
        double dx = x0 + i * hx - ax;
        row[i] += q * kernel(dx * dx + dyz2);
    }
}

/** The cutoff method's shifted kernel s(r)^2 / r, s = 1 - r^2/rc^2 (0 at coincident points). */
__attribute__((target_clones("avx2,fma", "default")))
void addShiftedSegment(double* row, int i0, int i1, double x0, double hx, double ax, double dyz2, double q, double cutoff) {
    const double skip2 = COINCIDENCE_RADIUS * COINCIDENCE_RADIUS, invCutoff2 = 1.0 / (cutoff * cutoff);
    addSegment(row, i0, i1, x0, hx, ax, dyz2, q, [=](double r2) {
        double s = std::max(1.0 - r2 * invCutoff2, 0.0);
        return r2 >= skip2 ? s * s / std::sqrt(r2) : 0.0;
    });
}

/** Multilevel summation's short-range kernel 1/r - g_a(r) (MsmNumerics.h), a = cutoff, of the cubic scheme ... */
__attribute__((target_clones("avx2,fma", "default")))
void addMsmCubicShortRangeSegment(double* row, int i0, int i1, double x0, double hx, double ax, double dyz2, double q, double cutoff) {
    addSegment(row, i0, i1, x0, hx, ax, dyz2, q,
               [=](double r2) { return Msm::shortRange(std::sqrt(r2), cutoff, COINCIDENCE_RADIUS, Msm::MSM_CUBIC); });
}

/** ... and of the quintic scheme (its C3 smoothing). */
__attribute__((target_clones("avx2,fma", "default")))
void addMsmQuinticShortRangeSegment(double* row, int i0, int i1, double x0, double hx, double ax, double dyz2, double q, double cutoff) {
    addSegment(row, i0, i1, x0, hx, ax, dyz2, q,
               [=](double r2) { return Msm::shortRange(std::sqrt(r2), cutoff, COINCIDENCE_RADIUS, Msm::MSM_QUINTIC); });
}

using SegmentAdder = void (*)(double*, int, int, double, double, double, double, double, double);

class CpuBackend : public MapBackend {
public:
    CpuBackend(const Lattice& lattice, const std::vector<double>& charges, const Options& options)
        : lattice(lattice), charges(charges), options(options) {
        threads = Common::threadCount(options.cpuThreads);
    }

    void compute(const double* positions, const PeriodicBox* box, float* map) override {
        std::vector<double> values(lattice.numPoints());
        evaluate(positions, box, values.data());
        for (size_t i = 0; i < values.size(); i++)
            map[i] = (float) values[i];
    }

    void accumulate(const double* positions, const PeriodicBox* box) override {
        std::vector<double> values(lattice.numPoints());
        evaluate(positions, box, values.data());
        if (sum.empty())
            sum.assign(values.size(), 0.0);
        for (size_t i = 0; i < values.size(); i++)
            sum[i] += values[i];
    }

    void getSum(double* out) override {
        if (sum.empty())
            std::fill(out, out + lattice.numPoints(), 0.0);
        else
            std::copy(sum.begin(), sum.end(), out);
    }

    void resetSum() override {
        sum.clear();
    }

    Timings lastTimings() const override {
        return timings;
    }

    std::string name() const override {
        return "cpu";
    }

private:
    void evaluate(const double* positions, const PeriodicBox* box, double* values) {
        auto start = std::chrono::steady_clock::now();
        if (options.method == Method::Direct)
            direct(positions, values);
        else if (options.method == Method::Cutoff)
            sphereSum(positions, box, options.cutoff, addShiftedSegment, values);
        else {
            double spacing, msmCutoff;
            msmParameters(options, box != nullptr, spacing, msmCutoff);
            const int order = options.msmOrder;
            sphereSum(positions, box, msmCutoff, order == Msm::MSM_QUINTIC ? addMsmQuinticShortRangeSegment : addMsmCubicShortRangeSegment,
                      values);
            if (box != nullptr) {
                // The plan (its kernels, the top level's Ewald sums) depends on the cell alone: made once per box.
                if (!havePlan || box->a != planBox.a || box->b != planBox.b || box->c != planBox.c) {
                    plan = msmPeriodicPlan(*box, spacing, msmCutoff, order, threads);
                    planBox = *box;
                    havePlan = true;
                }
                addMsmLongRangePeriodic(lattice, positions, charges, plan, order, threads, values);
            }
            else
                addMsmLongRange(lattice, positions, charges, spacing, msmCutoff, order, threads, values);
        }
        timings.clear();
        timings["map"] = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    }

    void direct(const double* positions, double* values) {
        std::vector<Atom> atoms(charges.size());
        for (size_t i = 0; i < atoms.size(); i++)
            atoms[i] = {positions[3 * i], positions[3 * i + 1], positions[3 * i + 2], charges[i]};
        const int nx = lattice.dims[0], ny = lattice.dims[1], nz = lattice.dims[2];
        Common::parallelFor(ny * nz, threads, [&](long task, int) {
            const int row = (int) task;
            int iy = row % ny, iz = row / ny;
            double* out = values + (size_t) row * nx;
            std::fill(out, out + nx, 0.0);
            addDirectRow(out, nx, lattice.origin[0], lattice.spacing[0], atoms.data(), atoms.size(),
                         lattice.origin[1] + iy * lattice.spacing[1], lattice.origin[2] + iz * lattice.spacing[2]);
            for (int i = 0; i < nx; i++)
                out[i] *= COULOMB_CONSTANT;
        });
    }

    /** Every atom (image) within rc of each point, through kernel `add` (the cutoff method, MSM's short range). */
    void sphereSum(const double* positions, const PeriodicBox* box, double rc, SegmentAdder add, double* values) {
        const double rc2 = rc * rc;
        // Every image that can reach the lattice, sorted by z so that each slab finds its atoms by binary search.
        ImageSet images = makeImageSet(lattice, rc, box);
        std::vector<Atom> atoms;
        for (size_t i = 0; i < charges.size(); i++) {
            if (charges[i] == 0)
                continue;
            for (int m = 0; m < images.numImages(); m++) {
                double p[3];
                if (images.image(positions + 3 * i, m, p))
                    atoms.push_back({p[0], p[1], p[2], charges[i]});
            }
        }
        std::stable_sort(atoms.begin(), atoms.end(), [](const Atom& u, const Atom& v) { return u.z < v.z; });
        const int nx = lattice.dims[0], ny = lattice.dims[1], nz = lattice.dims[2];
        const double hx = lattice.spacing[0], hy = lattice.spacing[1], hz = lattice.spacing[2];
        const Vec3& o = lattice.origin;
        const int slabPlanes = 2;
        const int numSlabs = (nz + slabPlanes - 1) / slabPlanes;
        Common::parallelFor(numSlabs, threads, [&](long task, int) {
            const int slab = (int) task;
            const int z0 = slab * slabPlanes, z1 = std::min(nz, z0 + slabPlanes) - 1;
            double* out = values + (size_t) z0 * nx * ny;
            std::fill(out, out + (size_t) (z1 - z0 + 1) * nx * ny, 0.0);
            const double zLo = o[2] + z0 * hz - rc, zHi = o[2] + z1 * hz + rc;
            auto first = std::lower_bound(atoms.begin(), atoms.end(), zLo, [](const Atom& u, double z) { return u.z < z; });
            for (auto atom = first; atom != atoms.end() && atom->z <= zHi; ++atom) {
                int kz0 = std::max(z0, (int) std::ceil((atom->z - rc - o[2]) / hz));
                int kz1 = std::min(z1, (int) std::floor((atom->z + rc - o[2]) / hz));
                for (int iz = kz0; iz <= kz1; iz++) {
                    double dz = o[2] + iz * hz - atom->z;
                    double rest2 = rc2 - dz * dz;
                    if (rest2 <= 0)
                        continue;
                    double restY = std::sqrt(rest2);
                    int ky0 = std::max(0, (int) std::ceil((atom->y - restY - o[1]) / hy));
                    int ky1 = std::min(ny - 1, (int) std::floor((atom->y + restY - o[1]) / hy));
                    for (int iy = ky0; iy <= ky1; iy++) {
                        double dy = o[1] + iy * hy - atom->y;
                        double dyz2 = dy * dy + dz * dz;
                        if (dyz2 >= rc2)
                            continue;
                        double restX = std::sqrt(rc2 - dyz2);
                        int kx0 = std::max(0, (int) std::ceil((atom->x - restX - o[0]) / hx));
                        int kx1 = std::min(nx - 1, (int) std::floor((atom->x + restX - o[0]) / hx));
                        double* row = out + ((size_t) (iz - z0) * ny + iy) * nx;
                        add(row, kx0, kx1, o[0], hx, atom->x, dyz2, atom->q, rc);
                    }
                }
            }
            for (size_t i = 0; i < (size_t) (z1 - z0 + 1) * nx * ny; i++)
                out[i] *= COULOMB_CONSTANT;
        });
    }

    Lattice lattice;
    std::vector<double> charges;
    Options options;
    int threads;
    std::vector<double> sum;
    MsmPeriodicPlan plan;   // method msm in a periodic cell: the plan of planBox
    PeriodicBox planBox;
    bool havePlan = false;
    Timings timings;
};

} // namespace

std::unique_ptr<MapBackend> createCpuBackend(const Lattice& lattice, const std::vector<double>& charges, const Options& options) {
    return std::make_unique<CpuBackend>(lattice, charges, options);
}

} // namespace OpenMMNarumi::PotentialMap
