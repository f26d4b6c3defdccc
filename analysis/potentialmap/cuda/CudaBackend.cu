/**
 * The CUDA backend's host side: owns device memory, picks kernels and launch geometry, times each stage with events.
 */

#include "CudaBackend.h"
#include "CutoffKernels.cuh"
#include "DirectKernel.cuh"

#include <cub/device/device_histogram.cuh>
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_scan.cuh>

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

namespace NarumiPotentialMap {

namespace {

void check(cudaError_t status, const char* what) {
    if (status != cudaSuccess)
        throw std::runtime_error(std::string("CUDA error in ") + what + ": " + cudaGetErrorString(status));
}
#define CHECK_CUDA(call) check((call), #call)

/** A device array that only grows. */
template <class T>
class DeviceArray {
public:
    DeviceArray() = default;
    DeviceArray(const DeviceArray&) = delete;
    DeviceArray& operator=(const DeviceArray&) = delete;
    ~DeviceArray() {
        cudaFree(data);
    }
    void reserve(size_t count) {
        if (count <= capacity)
            return;
        cudaFree(data);
        data = nullptr;
        capacity = 0;
        CHECK_CUDA(cudaMalloc(&data, std::max<size_t>(count, 1) * sizeof(T)));
        capacity = count;
    }
    T* get() const {
        return data;
    }

private:
    T* data = nullptr;
    size_t capacity = 0;
};

/** Elapsed milliseconds between recorded events, one per stage boundary. */
class StageTimer {
public:
    explicit StageTimer(int stages) : events(stages + 1) {
        for (auto& event : events)
            CHECK_CUDA(cudaEventCreate(&event));
    }
    ~StageTimer() {
        for (auto& event : events)
            cudaEventDestroy(event);
    }
    void mark(int boundary) {
        CHECK_CUDA(cudaEventRecord(events[boundary]));
    }
    double seconds(int from, int to) const {
        float milliseconds = 0;
        CHECK_CUDA(cudaEventElapsedTime(&milliseconds, events[from], events[to]));
        return 1e-3 * milliseconds;
    }

private:
    std::vector<cudaEvent_t> events;
};

int bitsFor(unsigned value) {
    int bits = 1;
    while (bits < 32 && (value >> bits) != 0)
        bits++;
    return bits;
}

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
        : lattice(lattice), charges(charges), options(options), timer(4) {
        softwareRsqrt = options.directSoftwareRsqrt >= 0 ? options.directSoftwareRsqrt : defaultSoftwareRsqrt(options.accumulation);
        const size_t numAtoms = charges.size();
        deviceCharges.reserve(numAtoms);
        devicePositions.reserve(3 * numAtoms);
        CHECK_CUDA(cudaMemcpy(deviceCharges.get(), charges.data(), numAtoms * sizeof(double), cudaMemcpyHostToDevice));
        deviceMap.reserve(lattice.numPoints());
        deviceFlag.reserve(1);
        if (options.method == Method::Cutoff)
            setUpCells();
    }

    void compute(const double* positions, const PeriodicBox* box, float* map) override {
        run(positions, box);
        timer.mark(3);
        CHECK_CUDA(cudaMemcpy(map, deviceMap.get(), lattice.numPoints() * sizeof(float), cudaMemcpyDeviceToHost));
        timer.mark(4);
        finishTimings(true);
    }

    void accumulate(const double* positions, const PeriodicBox* box) override {
        run(positions, box);
        if (!haveSum) {
            deviceSum.reserve(lattice.numPoints());
            CHECK_CUDA(cudaMemset(deviceSum.get(), 0, lattice.numPoints() * sizeof(double)));
            haveSum = true;
        }
        addMapKernel<<<1024, 256>>>(deviceMap.get(), deviceSum.get(), lattice.numPoints());
        CHECK_CUDA(cudaGetLastError());
        timer.mark(3);
        finishTimings(false);
    }

    void getSum(double* sum) override {
        if (!haveSum) {
            std::fill(sum, sum + lattice.numPoints(), 0.0);
            return;
        }
        CHECK_CUDA(cudaMemcpy(sum, deviceSum.get(), lattice.numPoints() * sizeof(double), cudaMemcpyDeviceToHost));
    }

    void resetSum() override {
        if (haveSum)
            CHECK_CUDA(cudaMemset(deviceSum.get(), 0, lattice.numPoints() * sizeof(double)));
    }

    Timings lastTimings() const override {
        return timings;
    }

    std::string name() const override {
        return "cuda";
    }

private:
    /** Uploads the frame and runs the map kernel into deviceMap; leaves events 0..2 recorded. */
    void run(const double* positions, const PeriodicBox* box) {
        const size_t numAtoms = charges.size();
        CHECK_CUDA(cudaMemset(deviceFlag.get(), 0, sizeof(int)));
        timer.mark(0);
        if (options.method == Method::Direct)
            runDirect(positions);
        else
            runCutoff(positions, box, numAtoms);
        int flag = 0;
        CHECK_CUDA(cudaMemcpy(&flag, deviceFlag.get(), sizeof(int), cudaMemcpyDeviceToHost));
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
                                        positions[3 * i + 2] - lattice.origin[2], charges[i] * ONE_4PI_EPS0);
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
        deviceAtoms.reserve(hostAtoms.size());
        CHECK_CUDA(cudaMemcpy(deviceAtoms.get(), hostAtoms.data(), hostAtoms.size() * sizeof(double4), cudaMemcpyHostToDevice));
        timer.mark(1);
        const LatticeShape shape{lattice.dims[0], lattice.dims[1], lattice.dims[2], lattice.spacing[0], lattice.spacing[1], lattice.spacing[2]};
        dim3 block(DIRECT_THREADS_X, DIRECT_THREADS_Y);
        dim3 grid((lattice.dims[0] + DIRECT_TILE_X - 1) / DIRECT_TILE_X, (lattice.dims[1] + DIRECT_TILE_Y - 1) / DIRECT_TILE_Y,
                  (lattice.dims[2] + DIRECT_TILE_Z - 1) / DIRECT_TILE_Z);
        if (grid.y > 65535 || grid.z > 65535)
            throw std::invalid_argument("the lattice is too large for one launch along y or z");
        timer.mark(2);  // nothing to prepare on the device: the direct kernel is the whole "map" stage
        switch (options.accumulation) {
        case Accumulation::Compensated:
            launchDirect<CompensatedAccumulator>(softwareRsqrt, grid, block, deviceAtoms.get(), numRegular, numCoincident, shape, deviceMap.get(), deviceFlag.get());
            break;
        case Accumulation::Narumi:
            launchDirect<NarumiMapAccumulator>(softwareRsqrt, grid, block, deviceAtoms.get(), numRegular, numCoincident, shape, deviceMap.get(), deviceFlag.get());
            break;
        case Accumulation::Float:
            launchDirect<FloatAccumulator>(softwareRsqrt, grid, block, deviceAtoms.get(), numRegular, numCoincident, shape, deviceMap.get(), deviceFlag.get());
            break;
        }
        CHECK_CUDA(cudaGetLastError());
    }

    /** The cell grid covers the lattice grown by the cutoff; cells of about rc/6 (see docs/potentialmap.md). */
    void setUpCells() {
        const double rc = options.cutoff;
        cells.nx = lattice.dims[0]; cells.ny = lattice.dims[1]; cells.nz = lattice.dims[2];
        cells.hx = lattice.spacing[0]; cells.hy = lattice.spacing[1]; cells.hz = lattice.spacing[2];
        cells.cutoff = rc;
        cells.invCutoff2 = (float) (1.0 / (rc * rc));
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
        cellCounts.reserve(2 * (size_t) cells.numCells + 1);
        cellStart.reserve(2 * (size_t) cells.numCells + 1);
        CHECK_CUDA(cudaMemset(cellCounts.get(), 0, (2 * (size_t) cells.numCells + 1) * sizeof(int)));
    }

    void runCutoff(const double* positions, const PeriodicBox* box, size_t numAtoms) {
        CHECK_CUDA(cudaMemcpy(devicePositions.get(), positions, 3 * numAtoms * sizeof(double), cudaMemcpyHostToDevice));
        timer.mark(1);
        const ImageSet images = makeImageSet(lattice, options.cutoff, box);
        const size_t numKeys = numAtoms * (size_t) images.numImages();
        if (numKeys >= (size_t) std::numeric_limits<unsigned>::max())
            throw std::invalid_argument("too many atom images (" + std::to_string(numKeys) + ") for one map; use a smaller region");
        const int numCells = cells.numCells;
        const double3 origin = make_double3(lattice.origin[0], lattice.origin[1], lattice.origin[2]);
        if (numKeys > 0) {
            keys.reserve(numKeys); sortedKeys.reserve(numKeys);
            values.reserve(numKeys); sortedValues.reserve(numKeys);
            sortedAtoms.reserve(numKeys);
            const int threads = 256;
            const unsigned blocks = (unsigned) ((numKeys + threads - 1) / threads);
            binImagesKernel<<<blocks, threads>>>(devicePositions.get(), deviceCharges.get(), (int) numAtoms, images, origin, cells, keys.get(), values.get());
            CHECK_CUDA(cudaGetLastError());
            // CUB: sort (key, image) pairs by cell, count the images per cell, prefix-sum the counts into cellStart.
            const int endBit = bitsFor(2u * numCells);
            const int numBins = 2 * numCells;
            size_t sortBytes = 0, histogramBytes = 0, scanBytes = 0;
            CHECK_CUDA(cub::DeviceRadixSort::SortPairs(nullptr, sortBytes, keys.get(), sortedKeys.get(), values.get(), sortedValues.get(), (int) numKeys, 0, endBit));
            CHECK_CUDA(cub::DeviceHistogram::HistogramEven(nullptr, histogramBytes, keys.get(), cellCounts.get(), numBins + 1, 0u, (unsigned) numBins, (int) numKeys));
            CHECK_CUDA(cub::DeviceScan::ExclusiveSum(nullptr, scanBytes, cellCounts.get(), cellStart.get(), numBins + 1));
            cubStorage.reserve(std::max({sortBytes, histogramBytes, scanBytes}));
            size_t bytes = sortBytes;
            CHECK_CUDA(cub::DeviceRadixSort::SortPairs(cubStorage.get(), bytes, keys.get(), sortedKeys.get(), values.get(), sortedValues.get(), (int) numKeys, 0, endBit));
            bytes = histogramBytes;
            CHECK_CUDA(cub::DeviceHistogram::HistogramEven(cubStorage.get(), bytes, sortedKeys.get(), cellCounts.get(), numBins + 1, 0u, (unsigned) numBins, (int) numKeys));
            bytes = scanBytes;
            CHECK_CUDA(cub::DeviceScan::ExclusiveSum(cubStorage.get(), bytes, cellCounts.get(), cellStart.get(), numBins + 1));
            gatherImagesKernel<<<blocks, threads>>>(sortedValues.get(), cellStart.get(), devicePositions.get(), deviceCharges.get(), (int) numAtoms,
                                                    images, origin, cells, sortedAtoms.get());
            CHECK_CUDA(cudaGetLastError());
        }
        else {
            sortedAtoms.reserve(1);
            CHECK_CUDA(cudaMemset(cellStart.get(), 0, (2 * (size_t) numCells + 1) * sizeof(int)));
        }
        timer.mark(2);
        dim3 grid((lattice.dims[0] + BRICK - 1) / BRICK, (lattice.dims[1] + BRICK - 1) / BRICK, (lattice.dims[2] + BRICK - 1) / BRICK);
        if (grid.y > 65535 || grid.z > 65535)
            throw std::invalid_argument("the lattice is too large for one launch along y or z");
        switch (options.accumulation) {
        case Accumulation::Compensated:
            cutoffKernel<CompensatedAccumulator><<<grid, CUTOFF_THREADS>>>(cellStart.get(), sortedAtoms.get(), cells, deviceMap.get(), deviceFlag.get());
            break;
        case Accumulation::Narumi:
            cutoffKernel<NarumiMapAccumulator><<<grid, CUTOFF_THREADS>>>(cellStart.get(), sortedAtoms.get(), cells, deviceMap.get(), deviceFlag.get());
            break;
        case Accumulation::Float:
            cutoffKernel<FloatAccumulator><<<grid, CUTOFF_THREADS>>>(cellStart.get(), sortedAtoms.get(), cells, deviceMap.get(), deviceFlag.get());
            break;
        }
        CHECK_CUDA(cudaGetLastError());
    }

    /** Stage boundaries: 0 start, 1 uploaded, 2 atoms ready (binned), 3 map done, 4 downloaded. */
    void finishTimings(bool downloaded) {
        CHECK_CUDA(cudaDeviceSynchronize());
        timings.clear();
        timings["upload"] = timer.seconds(0, 1);
        timings[options.method == Method::Cutoff ? "binning" : "prepare"] = timer.seconds(1, 2);
        timings["map"] = timer.seconds(2, 3);
        if (downloaded)
            timings["download"] = timer.seconds(3, 4);
    }

    Lattice lattice;
    std::vector<double> charges;
    Options options;
    StageTimer timer;
    int softwareRsqrt = -1;  // set in the constructor
    CellGrid cells{};
    std::vector<double4> hostAtoms;
    DeviceArray<double> deviceCharges, devicePositions, deviceSum;
    DeviceArray<double4> deviceAtoms, sortedAtoms;
    DeviceArray<float> deviceMap;
    DeviceArray<int> deviceFlag, cellCounts, cellStart;
    DeviceArray<unsigned> keys, sortedKeys, values, sortedValues;
    DeviceArray<char> cubStorage;
    bool haveSum = false;
    Timings timings;
};

} // namespace

bool cudaDeviceAvailable() {
    int count = 0;
    if (cudaGetDeviceCount(&count) != cudaSuccess) {
        cudaGetLastError();  // clear the sticky "no driver" error
        return false;
    }
    return count > 0;
}

std::unique_ptr<MapBackend> createCudaBackend(const Lattice& lattice, const std::vector<double>& charges, const Options& options) {
    return std::make_unique<CudaBackend>(lattice, charges, options);
}

} // namespace NarumiPotentialMap
