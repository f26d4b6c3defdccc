/**
 * The CUDA backend's host side: owns device memory, picks kernels and launch geometry, times each stage with events
 * (common/'s DeviceBuffer and StageTimer).
 */

#include "CudaBackend.h"
#include "CutoffKernels.cuh"
#include "DirectKernel.cuh"
#include "MsmLongRange.h"
#include "MsmNumerics.h"
#include "NarumiCommon/CudaAvailability.h"
#include "NarumiCommon/CudaError.h"
#include "NarumiCommon/DeviceBuffer.h"
#include "NarumiCommon/RadixSortBits.h"
#include "NarumiCommon/StageTimer.h"

#include <cub/device/device_histogram.cuh>
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_scan.cuh>

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

namespace OpenMMNarumi::PotentialMap {

using Common::checkCuda;
using Common::DeviceBuffer;

namespace {

/**
 * Points of 16 per thread whose 1/r runs on the FMA pipe in the direct kernel, per accumulation: the fastest of the
 * 0/2/4/6 sweep of benchmarks/potentialmap_speed.py on an H100 (2026-11-22; docs/benchmarks.md).  The issue-slot model
 * predicted 4 for all three; the float and Narumi kernels' schedules made fewer the faster there.
 */
int defaultSoftwareRsqrt(Accumulation accumulation) {
    switch (accumulation) {
    case Accumulation::Compensated: return 4;
    case Accumulation::Narumi: return 2;
    default: return 0;
    }
}

template <class Accumulator>
void launchDirect(int softwareRsqrt, dim3 grid, dim3 block, const double4* atoms, int numRegular, int numCoincident,
                  LatticeShape shape, float* map, int* outOfRange) {
    switch (softwareRsqrt) {
    case 0: directKernel<Accumulator, 0><<<grid, block>>>(atoms, numRegular, numCoincident, shape, map, outOfRange); break;
    case 2: directKernel<Accumulator, 2><<<grid, block>>>(atoms, numRegular, numCoincident, shape, map, outOfRange); break;
    case 4: directKernel<Accumulator, 4><<<grid, block>>>(atoms, numRegular, numCoincident, shape, map, outOfRange); break;
    case 6: directKernel<Accumulator, 6><<<grid, block>>>(atoms, numRegular, numCoincident, shape, map, outOfRange); break;
    default: throw std::invalid_argument("directSoftwareRsqrt must be 0, 2, 4 or 6, got " + std::to_string(softwareRsqrt));
    }
}

class CudaBackend : public MapBackend {
public:
    CudaBackend(const Lattice& lattice, const std::vector<double>& charges, const Options& options)
        : lattice(lattice), charges(charges), options(options) {
        Common::selectCudaDevice(options.cudaDevice, "the potential map");
        softwareRsqrt = options.directSoftwareRsqrt >= 0 ? options.directSoftwareRsqrt : defaultSoftwareRsqrt(options.accumulation);
        const size_t numAtoms = charges.size();
        deviceCharges.upload(charges);
        devicePositions.resize(3 * numAtoms);
        deviceMap.resize(lattice.numPoints());
        deviceFlag.resize(1);
        if (options.method == Method::Cutoff)
            setUpCells(options.cutoff);
    }

    ~CudaBackend() override {
        cudaSetDevice(options.cudaDevice);   // the buffers and events below belong to this device
    }

    void compute(const double* positions, const PeriodicBox* box, float* map) override {
        run(positions, box);
        timer.mark("map");
        deviceMap.download(map, lattice.numPoints());
        timer.mark("download");
        finishTimings();
    }

    void accumulate(const double* positions, const PeriodicBox* box) override {
        run(positions, box);
        if (!haveSum) {
            deviceSum.resize(lattice.numPoints());
            deviceSum.zero();
            haveSum = true;
        }
        addMapKernel<<<1024, 256>>>(deviceMap.data(), deviceSum.data(), lattice.numPoints());
        checkCuda(cudaGetLastError(), "addMapKernel");
        timer.mark("map");
        finishTimings();
    }

    void getSum(double* sum) override {
        checkCuda(cudaSetDevice(options.cudaDevice), "cudaSetDevice");
        if (!haveSum) {
            std::fill(sum, sum + lattice.numPoints(), 0.0);
            return;
        }
        deviceSum.download(sum, lattice.numPoints());
    }

    void resetSum() override {
        checkCuda(cudaSetDevice(options.cudaDevice), "cudaSetDevice");
        if (haveSum)
            deviceSum.zero();
    }

    Timings lastTimings() const override {
        return timings;
    }

    std::string name() const override {
        return "cuda";
    }

private:
    /** Uploads the frame and runs the map kernel into deviceMap; leaves the stages "upload" and "prepare" or
     *  "binning" marked, the "map" stage open. */
    void run(const double* positions, const PeriodicBox* box) {
        const size_t numAtoms = charges.size();
        checkCuda(cudaSetDevice(options.cudaDevice), "cudaSetDevice");
        deviceFlag.zero();
        timer.start();
        if (options.method == Method::Direct)
            runDirect(positions);
        else if (options.method == Method::Cutoff)
            runCutoff(positions, box, numAtoms, options.cutoff);
        else
            runMsm(positions, box, numAtoms);
        int flag = 0;
        deviceFlag.download(&flag, 1);
        if (flag)
            throw std::runtime_error("Narumi accumulation left its range (a lattice point's sum or a 32-atom partial sum reached "
                                     "2^20 kJ/mol/e); use accumulation 'compensated'");
    }

    void runDirect(const double* positions) {
        // Regular atoms first, then those within COINCIDENCE_RADIUS of a lattice point (their pairs are tested).
        hostAtoms.clear();
        std::vector<double4> coincident;
        const double skip2 = COINCIDENCE_RADIUS * COINCIDENCE_RADIUS;
        for (size_t i = 0; i < charges.size(); i++) {
            if (charges[i] == 0)
                continue;
            double4 atom = make_double4(positions[3 * i] - lattice.origin[0], positions[3 * i + 1] - lattice.origin[1],
                                        positions[3 * i + 2] - lattice.origin[2], charges[i] * COULOMB_CONSTANT);
            const double relative[3] = {atom.x, atom.y, atom.z};
            double distance2 = 0;
            for (int d = 0; d < 3; d++) {
                double nearest = std::min(std::max(std::nearbyint(relative[d] / lattice.spacing[d]), 0.0), (double) lattice.dims[d] - 1);
                distance2 += (relative[d] - nearest * lattice.spacing[d]) * (relative[d] - nearest * lattice.spacing[d]);
            }
            (distance2 < skip2 ? coincident : hostAtoms).push_back(atom);
        }
        const int numRegular = (int) hostAtoms.size(), numCoincident = (int) coincident.size();
        hostAtoms.insert(hostAtoms.end(), coincident.begin(), coincident.end());
        deviceAtoms.upload(hostAtoms);
        timer.mark("upload");
        const LatticeShape shape{lattice.dims[0], lattice.dims[1], lattice.dims[2], lattice.spacing[0], lattice.spacing[1], lattice.spacing[2]};
        dim3 block(DIRECT_THREADS_X, DIRECT_THREADS_Y);
        dim3 grid((lattice.dims[0] + DIRECT_TILE_X - 1) / DIRECT_TILE_X, (lattice.dims[1] + DIRECT_TILE_Y - 1) / DIRECT_TILE_Y,
                  (lattice.dims[2] + DIRECT_TILE_Z - 1) / DIRECT_TILE_Z);
        if (grid.y > 65535 || grid.z > 65535)
            throw std::invalid_argument("the lattice is too large for one launch along y or z");
        timer.mark("prepare");  // nothing to prepare on the device: the direct kernel is the whole "map" stage
        switch (options.accumulation) {
        case Accumulation::Compensated:
            launchDirect<CompensatedAccumulator>(softwareRsqrt, grid, block, deviceAtoms.data(), numRegular, numCoincident, shape, deviceMap.data(), deviceFlag.data());
            break;
        case Accumulation::Narumi:
            launchDirect<NarumiMapAccumulator>(softwareRsqrt, grid, block, deviceAtoms.data(), numRegular, numCoincident, shape, deviceMap.data(), deviceFlag.data());
            break;
        case Accumulation::Float:
            launchDirect<FloatAccumulator>(softwareRsqrt, grid, block, deviceAtoms.data(), numRegular, numCoincident, shape, deviceMap.data(), deviceFlag.data());
            break;
        }
        checkCuda(cudaGetLastError(), "the direct kernel");
    }

    /** The cell grid covers the lattice grown by the cutoff rc; cells of about rc/6 (see docs/potentialmap.md). */
    void setUpCells(double rc) {
        cells.nx = lattice.dims[0]; cells.ny = lattice.dims[1]; cells.nz = lattice.dims[2];
        cells.hx = lattice.spacing[0]; cells.hy = lattice.spacing[1]; cells.hz = lattice.spacing[2];
        cells.cutoff = rc;
        cells.invCutoff2 = (float) (1.0 / (rc * rc));
        cells.invCutoff = (float) (1.0 / rc);
        double target = rc / 6;
        for (;;) {
            double total = 1;
            for (int d = 0; d < 3; d++) {
                double extent = (lattice.dims[d] - 1) * lattice.spacing[d] + 2 * rc;
                cells.cells[d] = std::max(1, (int) std::floor(extent / target));
                cells.cellOrigin[d] = -rc;
                cells.cellSize[d] = extent / cells.cells[d];
                total *= cells.cells[d];
            }
            if (total <= (1 << 26))
                break;
            target *= 1.5;  // huge lattices: coarser cells keep the keys and cellStart small
        }
        cells.numCells = cells.cells[0] * cells.cells[1] * cells.cells[2];
        cellCounts.resize(2 * (size_t) cells.numCells + 1);
        cellStart.resize(2 * (size_t) cells.numCells + 1);
        cellCounts.zero();
    }

    /**
     * Multilevel summation: the short range, 1/r - g_a(r) within a, by the cutoff kernels (MsmShortRangeShape), then
     * the smooth levels in double on the GPU (MsmLongRangeCuda.cu), added to the float map.
     */
    void runMsm(const double* positions, const PeriodicBox* box, size_t numAtoms) {
        double spacing, a;
        msmParameters(options, box != nullptr, spacing, a);
        if (cells.numCells == 0 || cells.cutoff != a)
            setUpCells(a);
        std::vector<MsmLevel> levels;
        const size_t numPoints = lattice.numPoints();
        if (box != nullptr) {
            // The periodic plan (its kernels, the top level's Ewald sums) depends on the cell alone: made once per box.
            if (!havePlan || box->a != planBox.a || box->b != planBox.b || box->c != planBox.c) {
                plan = msmPeriodicPlan(*box, spacing, a, options.msmOrder, 0);
                planBox = *box;
                havePlan = true;
            }
            checkMsmDeviceMemory(plan, spacing, numPoints, numAtoms);
        }
        else {
            levels = msmOpenLevels(lattice, positions, numAtoms, spacing, options.msmOrder);
            checkMsmDeviceMemory(levels, numPoints, numAtoms);
        }
        runCutoff(positions, box, numAtoms, a);
        timer.mark("short range");
        longRange.resize(numPoints);
        longRange.zero();
        // The atoms as runCutoff uploaded them.
        if (box != nullptr)
            addMsmLongRangePeriodicOnDevice(lattice, devicePositions.data(), deviceCharges.data(), (int) numAtoms, plan, options.msmOrder,
                                            longRange.data(), 0);
        else
            addMsmLongRangeOnDevice(lattice, devicePositions.data(), deviceCharges.data(), (int) numAtoms, levels, a, options.msmOrder,
                                    longRange.data(), 0);
        addLongRangeKernel<<<1024, 256>>>(longRange.data(), deviceMap.data(), numPoints);
        checkCuda(cudaGetLastError(), "adding the long range");
    }

    void runCutoff(const double* positions, const PeriodicBox* box, size_t numAtoms, double cutoff) {
        devicePositions.upload(positions, 3 * numAtoms);
        timer.mark("upload");
        const ImageSet images = makeImageSet(lattice, cutoff, box);
        const size_t numKeys = numAtoms * (size_t) images.numImages();
        if (numKeys >= (size_t) std::numeric_limits<unsigned>::max())
            throw std::invalid_argument("too many atom images (" + std::to_string(numKeys) + ") for one map; use a smaller region");
        const int numCells = cells.numCells;
        const double3 origin = make_double3(lattice.origin[0], lattice.origin[1], lattice.origin[2]);
        if (numKeys > 0) {
            keys.resize(numKeys); sortedKeys.resize(numKeys);
            values.resize(numKeys); sortedValues.resize(numKeys);
            sortedAtoms.resize(numKeys);
            const int threads = 256;
            const unsigned blocks = (unsigned) ((numKeys + threads - 1) / threads);
            binImagesKernel<<<blocks, threads>>>(devicePositions.data(), deviceCharges.data(), (int) numAtoms, images, origin, cells, keys.data(), values.data());
            checkCuda(cudaGetLastError(), "binImagesKernel");
            // CUB: sort (key, image) pairs by cell, count the images per cell, prefix-sum the counts into cellStart.
            const int endBit = Common::radixSortEndBit(2u * numCells);
            const int numBins = 2 * numCells;
            size_t sortBytes = 0, histogramBytes = 0, scanBytes = 0;
            checkCuda(cub::DeviceRadixSort::SortPairs(nullptr, sortBytes, keys.data(), sortedKeys.data(), values.data(), sortedValues.data(), (int) numKeys, 0, endBit), "sizing the sort");
            checkCuda(cub::DeviceHistogram::HistogramEven(nullptr, histogramBytes, keys.data(), cellCounts.data(), numBins + 1, 0u, (unsigned) numBins, (int) numKeys), "sizing the histogram");
            checkCuda(cub::DeviceScan::ExclusiveSum(nullptr, scanBytes, cellCounts.data(), cellStart.data(), numBins + 1), "sizing the scan");
            cubStorage.resize(std::max({sortBytes, histogramBytes, scanBytes}));
            size_t bytes = sortBytes;
            checkCuda(cub::DeviceRadixSort::SortPairs(cubStorage.data(), bytes, keys.data(), sortedKeys.data(), values.data(), sortedValues.data(), (int) numKeys, 0, endBit), "sorting the images by cell");
            bytes = histogramBytes;
            checkCuda(cub::DeviceHistogram::HistogramEven(cubStorage.data(), bytes, sortedKeys.data(), cellCounts.data(), numBins + 1, 0u, (unsigned) numBins, (int) numKeys), "counting the images per cell");
            bytes = scanBytes;
            checkCuda(cub::DeviceScan::ExclusiveSum(cubStorage.data(), bytes, cellCounts.data(), cellStart.data(), numBins + 1), "the cell starts");
            gatherImagesKernel<<<blocks, threads>>>(sortedValues.data(), cellStart.data(), devicePositions.data(), deviceCharges.data(), (int) numAtoms,
                                                    images, origin, cells, sortedAtoms.data());
            checkCuda(cudaGetLastError(), "gatherImagesKernel");
        }
        else {
            sortedAtoms.resize(1);
            cellStart.zero();
        }
        timer.mark("binning");
        dim3 grid((lattice.dims[0] + BRICK - 1) / BRICK, (lattice.dims[1] + BRICK - 1) / BRICK, (lattice.dims[2] + BRICK - 1) / BRICK);
        if (grid.y > 65535 || grid.z > 65535)
            throw std::invalid_argument("the lattice is too large for one launch along y or z");
        if (options.method != Method::Msm)
            launchCutoff<CutoffShape>(grid);
        else if (options.msmOrder == Msm::MSM_QUINTIC)
            launchCutoff<MsmShortRangeShape<Msm::MSM_QUINTIC> >(grid);
        else
            launchCutoff<MsmShortRangeShape<Msm::MSM_CUBIC> >(grid);
        checkCuda(cudaGetLastError(), "the cutoff kernel");
    }

    template <class Shape>
    void launchCutoff(dim3 grid) {
        switch (options.accumulation) {
        case Accumulation::Compensated:
            cutoffKernel<Shape, CompensatedAccumulator><<<grid, CUTOFF_THREADS>>>(cellStart.data(), sortedAtoms.data(), cells, deviceMap.data(), deviceFlag.data());
            break;
        case Accumulation::Narumi:
            cutoffKernel<Shape, NarumiMapAccumulator><<<grid, CUTOFF_THREADS>>>(cellStart.data(), sortedAtoms.data(), cells, deviceMap.data(), deviceFlag.data());
            break;
        case Accumulation::Float:
            cutoffKernel<Shape, FloatAccumulator><<<grid, CUTOFF_THREADS>>>(cellStart.data(), sortedAtoms.data(), cells, deviceMap.data(), deviceFlag.data());
            break;
        }
    }

    /** The frame's stages: upload, prepare (direct) or binning (cutoff), map, and download for compute(). */
    void finishTimings() {
        checkCuda(cudaDeviceSynchronize(), "the map kernels");
        timings.clear();
        for (const Common::StageTimer::Stage& stage : timer.finish())
            timings[stage.name] = 1e-3 * stage.milliseconds;
    }

    Lattice lattice;
    std::vector<double> charges;
    Options options;
    Common::StageTimer timer;
    int softwareRsqrt = -1;  // set in the constructor
    CellGrid cells{};
    std::vector<double4> hostAtoms;
    DeviceBuffer<double> deviceCharges, devicePositions, deviceSum, longRange;
    DeviceBuffer<double4> deviceAtoms, sortedAtoms;
    DeviceBuffer<float> deviceMap;
    DeviceBuffer<int> deviceFlag, cellCounts, cellStart;
    DeviceBuffer<unsigned> keys, sortedKeys, values, sortedValues;
    DeviceBuffer<char> cubStorage;
    bool haveSum = false;
    MsmPeriodicPlan plan;          // method msm in a periodic cell: the plan of planBox
    PeriodicBox planBox;
    bool havePlan = false;
    Timings timings;
};

} // namespace

std::unique_ptr<MapBackend> createCudaBackend(const Lattice& lattice, const std::vector<double>& charges, const Options& options) {
    return std::make_unique<CudaBackend>(lattice, charges, options);
}

} // namespace OpenMMNarumi::PotentialMap
