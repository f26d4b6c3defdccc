/**
 * Multilevel summation's long-range part on the GPU, open and periodic: the host side, which owns the lattices'
 * device memory and the launch geometry of the kernels in MsmKernels.cuh.  The levels and kernels are the CPU
 * engine's (msmOpenLevels, msmOpenLatticeWeights; msmPeriodicPlan), so the two compute the same function.
 */

#include "MsmKernels.cuh"
#include "MsmLongRange.h"
#include "NarumiCommon/CudaAvailability.h"
#include "NarumiCommon/CudaError.h"
#include "NarumiCommon/DeviceBuffer.h"

#include <algorithm>
#include <sstream>
#include <stdexcept>

namespace OpenMMNarumi::PotentialMap {

using Common::checkCuda;
using Common::DeviceBuffer;

namespace {

constexpr int MSM_THREADS = 256;

int blocksFor(size_t count) {
    return (int) std::max<size_t>(1, std::min<size_t>((count + MSM_THREADS - 1) / MSM_THREADS, 65536));
}

MsmDeviceLattice deviceLattice(const std::array<int, 3>& dims, double* values) {
    MsmDeviceLattice lattice;
    for (int d = 0; d < 3; d++)
        lattice.dims[d] = dims[d];
    lattice.values = values;
    return lattice;
}

MsmOpenPlacement openPlacement(const MsmLevel& level) {
    MsmOpenPlacement placement;
    for (int d = 0; d < 3; d++)
        placement.origin[d] = level.origin[d];
    placement.spacing = level.spacing;
    return placement;
}

size_t points(const std::array<int, 3>& dims) {
    return (size_t) dims[0] * dims[1] * dims[2];
}

/**
 * The three axes of a transfer from one lattice to another (restriction, or prolongation added into `to`), through two
 * work lattices: open lattices with msmCoarseMargin, periodic ones (margin 0) with wrapped indices.
 */
void transfer(const std::array<int, 3>& fromDims, const double* fromValues, const std::array<int, 3>& toDims, double* toValues,
              bool toFine, bool periodic, int order, DeviceBuffer<double> (&work)[2], cudaStream_t stream) {
    const std::array<double, 11> w = Msm::transferWeights(order);
    MsmTransferWeights weights;
    std::copy(w.begin(), w.end(), weights.w);
    const int margin = periodic ? 0 : msmCoarseMargin(order);
    std::array<int, 3> current = fromDims;
    const double* currentValues = fromValues;
    for (int axis = 0; axis < 3; axis++) {
        std::array<int, 3> next = current;
        next[axis] = toDims[axis];
        double* nextValues = axis == 2 ? toValues : work[axis].resize(points(next));
        msmTransferAxisKernel<<<blocksFor(points(next)), MSM_THREADS, 0, stream>>>(
            deviceLattice(current, const_cast<double*>(currentValues)), deviceLattice(next, nextValues), axis, toFine, order, margin,
            periodic, weights, axis == 2 && toFine);
        current = next;
        currentValues = nextValues;
    }
}

/** The map's points for the interpolation kernels. */
MsmMapPoints mapPoints(const Lattice& map) {
    MsmMapPoints p;
    for (int d = 0; d < 3; d++) {
        p.origin[d] = map.origin[d];
        p.spacing[d] = map.spacing[d];
        p.dims[d] = map.dims[d];
    }
    return p;
}

} // namespace

// Lattices that would not fit into the device's free memory are refused, naming their size.
void checkMsmDeviceMemory(const std::vector<MsmLevel>& levels, size_t mapPoints, size_t numAtoms) {
    double bytes = 8.0 * (double) mapPoints + 32.0 * (double) numAtoms;
    size_t largest = 0;
    for (const MsmLevel& level : levels) {
        bytes += 2 * 8.0 * (double) level.size();  // charges and potentials
        largest = std::max(largest, level.size());
    }
    bytes += 2 * 8.0 * (double) largest;  // the transfers' work lattices
    size_t free = 0, total = 0;
    checkCuda(cudaMemGetInfo(&free, &total), "cudaMemGetInfo");
    if (bytes > (double) free) {
        std::ostringstream text;
        text << "the multilevel summation's lattices (finest " << levels[0].dims[0] << " x " << levels[0].dims[1] << " x "
             << levels[0].dims[2] << " points at " << levels[0].spacing << " nm) and the map need about " << bytes / 1e9
             << " GB of GPU memory, more than the " << free / 1e9 << " GB free; use a coarser msmAccuracy or a smaller map";
        throw std::invalid_argument(text.str());
    }
}

void checkMsmDeviceMemory(const MsmPeriodicPlan& plan, double spacing, size_t mapPoints, size_t numAtoms) {
    std::vector<MsmLevel> sizes(plan.dims.size());
    for (size_t level = 0; level < sizes.size(); level++)
        sizes[level].dims = plan.dims[level];
    sizes[0].spacing = spacing;
    checkMsmDeviceMemory(sizes, mapPoints, numAtoms);
}

void addMsmLongRangeOnDevice(const Lattice& map, const double* positions, const double* charges, int numAtoms,
                             const std::vector<MsmLevel>& levels, double cutoff, int order, double* deviceValues, cudaStream_t stream) {
    const size_t numMapPoints = (size_t) map.dims[0] * map.dims[1] * map.dims[2];
    const int numLevels = (int) levels.size();
    std::vector<DeviceBuffer<double> > q(numLevels), e(numLevels);
    for (int level = 0; level < numLevels; level++) {
        q[level].resize(levels[level].size());
        e[level].resize(levels[level].size());
    }
    q[0].zero(stream);
    DeviceBuffer<double> work[2];

    if (numAtoms > 0)
        msmAnterpolateKernel<<<blocksFor(numAtoms), MSM_THREADS, 0, stream>>>(
            positions, charges, numAtoms, openPlacement(levels[0]), deviceLattice(levels[0].dims, q[0].data()), order);
    for (int level = 1; level < numLevels; level++)
        transfer(levels[level - 1].dims, q[level - 1].data(), levels[level].dims, q[level].data(), false, false, order, work, stream);
    std::vector<DeviceBuffer<double> > weights(numLevels);  // each level's kernel in a buffer of its own
    for (int level = 0; level < numLevels; level++) {
        const MsmLatticeWeights kernel = msmOpenLatticeWeights(levels, level, cutoff, order);
        const std::array<int, 3>& r = kernel.radius;
        weights[level].upload(kernel.weights.data(), kernel.weights.size(), stream);  // done when it returns (pageable source)
        msmLatticeSumKernel<<<blocksFor(levels[level].size()), MSM_THREADS, 0, stream>>>(
            deviceLattice(levels[level].dims, q[level].data()), deviceLattice(levels[level].dims, e[level].data()), weights[level].data(),
            r[0], r[1], r[2]);
    }
    for (int level = numLevels - 1; level > 0; level--)
        transfer(levels[level].dims, e[level].data(), levels[level - 1].dims, e[level - 1].data(), true, false, order, work, stream);
    msmInterpolateKernel<<<blocksFor(numMapPoints), MSM_THREADS, 0, stream>>>(deviceLattice(levels[0].dims, e[0].data()),
                                                                               openPlacement(levels[0]), mapPoints(map), order, deviceValues);
    checkCuda(cudaGetLastError(), "launching the multilevel summation kernels");
    checkCuda(cudaStreamSynchronize(stream), "multilevel summation on the GPU");  // before the lattices are freed
}

void addMsmLongRangeCuda(const Lattice& map, const double* positions, const std::vector<double>& charges, double spacing,
                         double cutoff, int order, int cudaDevice, double* values) {
    Common::selectCudaDevice(cudaDevice, "the potential map");
    const size_t numMapPoints = (size_t) map.dims[0] * map.dims[1] * map.dims[2];
    const std::vector<MsmLevel> levels = msmOpenLevels(map, positions, charges.size(), spacing, order);
    checkMsmDeviceMemory(levels, numMapPoints, charges.size());
    DeviceBuffer<double> mapValues, atomPositions, atomCharges;
    mapValues.upload(values, numMapPoints);
    atomPositions.upload(positions, 3 * charges.size());
    atomCharges.upload(charges);
    addMsmLongRangeOnDevice(map, atomPositions.data(), atomCharges.data(), (int) charges.size(), levels, cutoff, order, mapValues.data(), 0);
    mapValues.download(values, numMapPoints);
    checkCuda(cudaDeviceSynchronize(), "multilevel summation on the GPU");
}

void addMsmLongRangePeriodicOnDevice(const Lattice& map, const double* positions, const double* charges, int numAtoms,
                                     const MsmPeriodicPlan& plan, int order, double* deviceValues, cudaStream_t stream) {
    const int numLevels = (int) plan.dims.size();
    const size_t numMapPoints = (size_t) map.dims[0] * map.dims[1] * map.dims[2];
    MsmPeriodicPlacement placement;
    for (int i = 0; i < 3; i++)
        for (int d = 0; d < 3; d++)
            placement.cell.m[i][d] = plan.inverse[i][d];

    std::vector<DeviceBuffer<double> > q(numLevels), e(numLevels);
    for (int level = 0; level < numLevels; level++) {
        q[level].resize(points(plan.dims[level]));
        e[level].resize(points(plan.dims[level]));
    }
    q[0].zero(stream);
    DeviceBuffer<double> work[2];

    if (numAtoms > 0)
        msmAnterpolateKernel<<<blocksFor(numAtoms), MSM_THREADS, 0, stream>>>(
            positions, charges, numAtoms, placement, deviceLattice(plan.dims[0], q[0].data()), order);
    for (int level = 1; level < numLevels; level++)
        transfer(plan.dims[level - 1], q[level - 1].data(), plan.dims[level], q[level].data(), false, true, order, work, stream);
    DeviceBuffer<MsmKernelEntry> entries;
    for (int level = 0; level < numLevels; level++) {
        const std::vector<MsmKernelEntry>& kernel = plan.kernels[level];
        entries.upload(kernel.data(), kernel.size(), stream);
        msmCircularSumKernel<<<blocksFor(points(plan.dims[level])), MSM_THREADS, 0, stream>>>(
            deviceLattice(plan.dims[level], q[level].data()), deviceLattice(plan.dims[level], e[level].data()), entries.data(),
            (int) kernel.size());
    }
    for (int level = numLevels - 1; level > 0; level--)
        transfer(plan.dims[level], e[level].data(), plan.dims[level - 1], e[level - 1].data(), true, true, order, work, stream);
    msmInterpolateKernel<<<blocksFor(numMapPoints), MSM_THREADS, 0, stream>>>(deviceLattice(plan.dims[0], e[0].data()), placement,
                                                                               mapPoints(map), order, deviceValues);
    checkCuda(cudaGetLastError(), "launching the periodic multilevel summation kernels");
    checkCuda(cudaStreamSynchronize(stream), "periodic multilevel summation on the GPU");  // before the lattices are freed
}

void addMsmLongRangePeriodicCuda(const Lattice& map, const double* positions, const std::vector<double>& charges,
                                 const PeriodicBox& box, double spacing, double cutoff, int order, int cudaDevice, double* values) {
    Common::selectCudaDevice(cudaDevice, "the potential map");
    const size_t numMapPoints = (size_t) map.dims[0] * map.dims[1] * map.dims[2];
    const MsmPeriodicPlan plan = msmPeriodicPlan(box, spacing, cutoff, order, 0);
    checkMsmDeviceMemory(plan, spacing, numMapPoints, charges.size());
    DeviceBuffer<double> mapValues, atomPositions, atomCharges;
    mapValues.upload(values, numMapPoints);
    atomPositions.upload(positions, 3 * charges.size());
    atomCharges.upload(charges);
    addMsmLongRangePeriodicOnDevice(map, atomPositions.data(), atomCharges.data(), (int) charges.size(), plan, order, mapValues.data(), 0);
    mapValues.download(values, numMapPoints);
    checkCuda(cudaDeviceSynchronize(), "periodic multilevel summation on the GPU");
}

} // namespace OpenMMNarumi::PotentialMap
