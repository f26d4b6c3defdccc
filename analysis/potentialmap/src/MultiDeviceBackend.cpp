/**
 * A potential map on several GPUs, as in Stone's multi-GPU direct Coulomb summation: the lattice cut into slabs of
 * whole z planes, one per device (a contiguous part of the map, x fastest), each computed by that device's own
 * backend from all atoms, the devices driven side by side by one host thread each.  Every point sees the same atoms
 * as on one device; only its coordinates relative to the slab's origin are rounded differently, so the maps agree
 * with one device's to float rounding.
 */

#include "MultiDeviceBackend.h"
#include "NarumiCommon/ThreadPool.h"
#include <algorithm>

namespace OpenMMNarumi::PotentialMap {

namespace {

class MultiDeviceBackend : public MapBackend {
public:
    MultiDeviceBackend(const Lattice& lattice, const std::vector<double>& charges, const Options& options, const BackendFactory& create) {
        int numDevices = std::min((int) options.cudaDevices.size(), lattice.dims[2]);
        size_t pointsPerPlane = (size_t) lattice.dims[0] * lattice.dims[1];
        for (int d = 0; d < numDevices; d++) {
            // Equal slabs: the direct sum's work is the same per point, and one device type is the common case.
            int firstPlane = (int) ((long long) lattice.dims[2] * d / numDevices);
            int endPlane = (int) ((long long) lattice.dims[2] * (d + 1) / numDevices);
            Lattice slab = lattice;
            slab.origin[2] = lattice.origin[2] + firstPlane * lattice.spacing[2];
            slab.dims[2] = endPlane - firstPlane;
            Options onDevice = options;
            onDevice.cudaDevice = options.cudaDevices[d];
            onDevice.cudaDevices.clear();
            slabs.push_back({create(slab, charges, onDevice), firstPlane * pointsPerPlane});
        }
    }

    void compute(const double* positions, const PeriodicBox* box, float* map) override {
        eachSlab([&](Slab& s) { s.backend->compute(positions, box, map + s.offset); });
    }

    void accumulate(const double* positions, const PeriodicBox* box) override {
        eachSlab([&](Slab& s) { s.backend->accumulate(positions, box); });
    }

    void getSum(double* sum) override {
        eachSlab([&](Slab& s) { s.backend->getSum(sum + s.offset); });
    }

    void resetSum() override {
        eachSlab([&](Slab& s) { s.backend->resetSum(); });
    }

    /** Per stage the slowest device's time: the devices run side by side. */
    Timings lastTimings() const override {
        Timings slowest;
        for (const Slab& s : slabs)
            for (const auto& [stage, seconds] : s.backend->lastTimings())
                slowest[stage] = std::max(slowest[stage], seconds);
        return slowest;
    }

    std::string name() const override {
        return slabs.front().backend->name();
    }

private:
    struct Slab {
        std::unique_ptr<MapBackend> backend;
        size_t offset;   // where the slab's points start in the map
    };
    template <class Work>
    void eachSlab(const Work& work) {
        Common::parallelFor((long) slabs.size(), (int) slabs.size(), [&](long index, int) { work(slabs[index]); });
    }
    std::vector<Slab> slabs;
};

} // namespace

std::unique_ptr<MapBackend> createMultiDeviceBackend(const Lattice& lattice, const std::vector<double>& charges, const Options& options,
                                                     const BackendFactory& create) {
    return std::make_unique<MultiDeviceBackend>(lattice, charges, options, create);
}

} // namespace OpenMMNarumi::PotentialMap
