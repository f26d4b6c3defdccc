#ifndef NARUMI_POTENTIAL_MAP_MSM_LONG_RANGE_H_
#define NARUMI_POTENTIAL_MAP_MSM_LONG_RANGE_H_

/** The smooth, long-range part of a multilevel-summation map on the CPU (src/MsmLongRange.cpp). */

#include "PotentialMap.h"
#include <array>
#if NARUMI_HAVE_CUDA
#include <cuda_runtime_api.h>
#endif
#include <vector>

namespace OpenMMNarumi::PotentialMap {

/** One lattice of the open scheme: point (i, j, k) at origin + (i, j, k) * spacing, x fastest. */
struct MsmLevel {
    std::array<double, 3> origin{};
    double spacing = 0;
    std::array<int, 3> dims{};
    size_t size() const {
        return (size_t) dims[0] * dims[1] * dims[2];
    }
};

/**
 * The open scheme's lattices, finest first: the finest (spacing h) covers the atoms and the map's points with the
 * basis's reach to spare; each coarser one has twice the spacing and covers the one below, up to a top level of a few
 * points per axis.  The same for the CPU and the CUDA engine.  Throws (checkMsmLatticeMemory) before any work.
 */
std::vector<MsmLevel> msmOpenLevels(const Lattice& map, const double* positions, size_t numAtoms, double spacing, int order);

/**
 * The weights of a level's lattice sum e_m = sum_d w(d) q_(m+d), offsets d within radius points per axis, x fastest:
 * below the top, the part of the smoothed kernel between the level's scale 2^level a and the next,
 * gamma_(2^l a) - gamma_(2^(l+1) a); at the top, gamma_(2^l a) over the whole lattice.
 */
struct MsmLatticeWeights {
    std::array<int, 3> radius{};
    std::vector<double> weights;
};
MsmLatticeWeights msmOpenLatticeWeights(const std::vector<MsmLevel>& levels, int level, double cutoff, int order);

/** Restriction (coarse point gathers fine ones) and prolongation's points before the fine lattice's origin. */
int msmCoarseMargin(int order);

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
 * addMsmLongRange on the GPU cudaDevice (cuda/MsmLongRangeCuda.cu, CUDA builds only): the same levels and weights,
 * each stage a kernel in double precision; values (host memory) are added to as by the CPU function.  Lattices that
 * do not fit into the device's free memory are refused with their size (std::invalid_argument) before any work.
 * The CUDA backend's method msm runs the same stages on the atoms it has uploaded (addMsmLongRangeOnDevice).
 */
void addMsmLongRangeCuda(const Lattice& map, const double* positions, const std::vector<double>& charges, double spacing,
                         double cutoff, int order, int cudaDevice, double* values);

/**
 * Throws std::invalid_argument naming the size when lattices of finestPoints points (with their coarser levels and
 * work copies, about 4 x 8 bytes per finest point) would not fit into this machine's memory: before any work.
 */
void checkMsmLatticeMemory(const std::array<int, 3>& finestDims, double spacing);

/** One nonzero entry of a periodic level's kernel: the weight of the charge at offset (di, dj, dk) points. */
struct MsmKernelEntry {
    int di, dj, dk;
    double weight;
};

/**
 * The periodic scheme's lattices and kernels, the same for the CPU and the CUDA engine: the cell (rows: its vectors;
 * fractional coordinates = position * inverse), each level's points along the cell vectors (finest first, each
 * level half the one below), and each level's kernel as its nonzero entries, the top level's through the Ewald sum.
 */
struct MsmPeriodicPlan {
    double rows[3][3];
    double inverse[3][3];
    std::vector<std::array<int, 3> > dims;
    std::vector<std::vector<MsmKernelEntry> > kernels;
};
MsmPeriodicPlan msmPeriodicPlan(const PeriodicBox& box, double spacing, double cutoff, int order, int threads);

#if NARUMI_HAVE_CUDA
/**
 * The GPU long range added to deviceValues (double, one per map point), of the atoms whose positions (3 per atom, nm)
 * and charges are already on the current device; queued on stream and finished when it returns; levels from
 * msmOpenLevels, plan from msmPeriodicPlan, checked against the device's memory by the caller (the CUDA backend).
 */
void addMsmLongRangeOnDevice(const Lattice& map, const double* positions, const double* charges, int numAtoms,
                             const std::vector<MsmLevel>& levels, double cutoff, int order, double* deviceValues, cudaStream_t stream);
void addMsmLongRangePeriodicOnDevice(const Lattice& map, const double* positions, const double* charges, int numAtoms,
                                     const MsmPeriodicPlan& plan, int order, double* deviceValues, cudaStream_t stream);
/** Throws std::invalid_argument naming the sizes when these lattices and the map do not fit into the free GPU memory. */
void checkMsmDeviceMemory(const std::vector<MsmLevel>& levels, size_t mapPoints, size_t numAtoms);
void checkMsmDeviceMemory(const MsmPeriodicPlan& plan, double spacing, size_t mapPoints, size_t numAtoms);
#endif

/**
 * addMsmLongRangePeriodic on the GPU cudaDevice (cuda/MsmLongRangeCuda.cu, CUDA builds only), on the same plan,
 * as addMsmLongRangeCuda is to addMsmLongRange.
 */
void addMsmLongRangePeriodicCuda(const Lattice& map, const double* positions, const std::vector<double>& charges,
                                 const PeriodicBox& box, double spacing, double cutoff, int order, int cudaDevice, double* values);

/**
 * The same in a periodic cell (src/MsmPeriodic.cpp), rectangular or triclinic: lattices commensurate with the cell,
 * the top level through the Ewald sum of its kernel, so that the map is the Ewald potential of the charges with
 * the neutralizing background of a charged cell.  The short-range part is the caller's, over periodic images.
 */
void addMsmLongRangePeriodic(const Lattice& map, const double* positions, const std::vector<double>& charges,
                             const PeriodicBox& box, double spacing, double cutoff, int order, int threads, double* values);
/** The same on a plan made before (msmPeriodicPlan), which depends on the cell alone: a trajectory in one box
 *  needs it once. */
void addMsmLongRangePeriodic(const Lattice& map, const double* positions, const std::vector<double>& charges,
                             const MsmPeriodicPlan& plan, int order, int threads, double* values);

} // namespace OpenMMNarumi::PotentialMap

#endif // NARUMI_POTENTIAL_MAP_MSM_LONG_RANGE_H_
