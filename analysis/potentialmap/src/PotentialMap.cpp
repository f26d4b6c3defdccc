/** Validation, lattice helpers, periodic image ranges and the engine that picks a backend. */

#include "PotentialMap.h"
#include "CudaBackend.h"
#include "MsmNumerics.h"
#include "MultiDeviceBackend.h"
#include "NarumiCommon/CudaAvailability.h"
#include "PeriodicImages.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <sstream>
#include <stdexcept>

namespace OpenMMNarumi::PotentialMap {

namespace {

std::string str(double value) {
    std::ostringstream text;
    text.precision(17);
    text << value;
    return text.str();
}

void fail(const std::string& message) {
    throw std::invalid_argument(message);
}

} // namespace

void Lattice::validate() const {
    const char* axis = "xyz";
    for (int d = 0; d < 3; d++) {
        if (!std::isfinite(spacing[d]) || spacing[d] <= 0)
            fail(std::string("lattice spacing along ") + axis[d] + " must be positive and finite, got " + str(spacing[d]) + " nm");
        if (!std::isfinite(origin[d]))
            fail(std::string("lattice origin along ") + axis[d] + " must be finite, got " + str(origin[d]) + " nm");
        if (dims[d] <= 0)
            fail(std::string("the lattice is empty: ") + std::to_string(dims[d]) + " points along " + axis[d]);
    }
    // The CUDA kernels index points with 32-bit integers.
    if (numPoints() > (size_t) std::numeric_limits<int>::max())
        fail("the lattice has " + std::to_string(numPoints()) + " points; at most " +
             std::to_string(std::numeric_limits<int>::max()) + " are supported");
}

Lattice Lattice::boundingBox(const std::vector<Vec3>& positions, double margin, double spacing) {
    if (positions.empty())
        fail("a bounding-box lattice needs at least one position");
    if (!std::isfinite(margin) || margin < 0)
        fail("the lattice margin must be finite and non-negative, got " + str(margin) + " nm");
    if (!std::isfinite(spacing) || spacing <= 0)
        fail("lattice spacing must be positive and finite, got " + str(spacing) + " nm");
    Vec3 lo = positions[0], hi = positions[0];
    for (size_t i = 0; i < positions.size(); i++)
        for (int d = 0; d < 3; d++) {
            if (!std::isfinite(positions[i][d]))
                fail("position of atom " + std::to_string(i) + " is not finite: " + str(positions[i][d]));
            lo[d] = std::min(lo[d], positions[i][d]);
            hi[d] = std::max(hi[d], positions[i][d]);
        }
    Lattice lattice;
    for (int d = 0; d < 3; d++) {
        lattice.origin[d] = lo[d] - margin;
        lattice.spacing[d] = spacing;
        double points = std::ceil((hi[d] - lo[d] + 2 * margin) / spacing) + 1;
        if (points > std::numeric_limits<int>::max())
            fail("the bounding-box lattice is too large at spacing " + str(spacing) + " nm");
        lattice.dims[d] = (int) points;
    }
    lattice.validate();
    return lattice;
}

void PeriodicBox::validate() const {
    const double* vectors[3] = {a.data(), b.data(), c.data()};
    for (int v = 0; v < 3; v++)
        for (int d = 0; d < 3; d++)
            if (!std::isfinite(vectors[v][d]))
                fail("periodic box vector " + std::string(1, "abc"[v]) + " is not finite: component " + str(vectors[v][d]));
    if (a[1] != 0 || a[2] != 0 || b[2] != 0)
        fail("periodic box vectors must be in OpenMM's reduced form (a = (ax, 0, 0), b = (bx, by, 0)); got a = (" +
             str(a[0]) + ", " + str(a[1]) + ", " + str(a[2]) + "), b_z = " + str(b[2]));
    if (a[0] <= 0 || b[1] <= 0 || c[2] <= 0)
        fail("periodic box must have positive ax, by, cz; got " + str(a[0]) + ", " + str(b[1]) + ", " + str(c[2]) + " nm");
    const double slack = 1e-12 * a[0];
    if (std::abs(b[0]) > 0.5 * a[0] + slack || std::abs(c[0]) > 0.5 * a[0] + slack || std::abs(c[1]) > 0.5 * b[1] + slack)
        fail("periodic box vectors must be in OpenMM's reduced form (|bx|, |cx| <= ax/2, |cy| <= by/2)");
}

ImageSet makeImageSet(const Lattice& lattice, double reach, const PeriodicBox* box) {
    ImageSet set{};
    for (int d = 0; d < 3; d++) {
        set.regionLo[d] = lattice.origin[d] - reach;
        set.regionHi[d] = lattice.origin[d] + (lattice.dims[d] - 1) * lattice.spacing[d] + reach;
        set.first[d] = 0;
        set.count[d] = 1;
    }
    set.periodic = box != nullptr;
    if (!set.periodic)
        return set;
    for (int d = 0; d < 3; d++) {
        set.a[d] = box->a[d];
        set.b[d] = box->b[d];
        set.c[d] = box->c[d];
    }
    // Wrapped atoms lie in [0, ax] x [0, by] x [0, cz] (the upper ends through rounding only).  Each coordinate of an
    // image is linear in (i, j, k), so the extreme ranges come from the corners.  An image the ranges could miss
    // through rounding would sit exactly on the region's boundary, a full cutoff from every point, where s = 0.
    // ImageSet::image tests each image exactly.
    const double* lo = set.regionLo;
    const double* hi = set.regionHi;
    int k0 = (int) std::floor(lo[2] / box->c[2]), k1 = (int) std::floor(hi[2] / box->c[2]);
    int j0 = std::numeric_limits<int>::max(), j1 = std::numeric_limits<int>::min();
    for (int k : {k0, k1}) {
        j0 = std::min(j0, (int) std::floor((lo[1] - box->b[1] - k * box->c[1]) / box->b[1]) + 1);
        j1 = std::max(j1, (int) std::floor((hi[1] - k * box->c[1]) / box->b[1]));
    }
    int i0 = std::numeric_limits<int>::max(), i1 = std::numeric_limits<int>::min();
    for (int k : {k0, k1})
        for (int j : {j0, j1}) {
            i0 = std::min(i0, (int) std::floor((lo[0] - box->a[0] - j * box->b[0] - k * box->c[0]) / box->a[0]) + 1);
            i1 = std::max(i1, (int) std::floor((hi[0] - j * box->b[0] - k * box->c[0]) / box->a[0]));
        }
    set.first[0] = i0; set.count[0] = i1 - i0 + 1;
    set.first[1] = j0; set.count[1] = j1 - j0 + 1;
    set.first[2] = k0; set.count[2] = k1 - k0 + 1;
    if ((double) set.count[0] * set.count[1] * set.count[2] > 1e6)
        fail("the lattice spans more than a million periodic images of the box; use a smaller region");
    return set;
}

PotentialMapEngine::PotentialMapEngine(const Lattice& lattice, const std::vector<double>& charges, const Options& options)
    : lattice_(lattice), charges_(charges), options_(options) {
    lattice_.validate();
    for (size_t i = 0; i < charges_.size(); i++)
        if (!std::isfinite(charges_[i]))
            fail("charge of atom " + std::to_string(i) + " is not finite: " + str(charges_[i]));
    if (options_.method == Method::Cutoff && (!std::isfinite(options_.cutoff) || options_.cutoff <= 0))
        fail("the cutoff must be positive and finite, got " + str(options_.cutoff) + " nm");
    if (options_.method == Method::Cutoff && options_.cutoff <= 2 * COINCIDENCE_RADIUS)
        fail("the cutoff " + str(options_.cutoff) + " nm is smaller than twice the coincidence radius");
    if (options_.directSoftwareRsqrt != -1 && options_.directSoftwareRsqrt != 0 && options_.directSoftwareRsqrt != 2 &&
        options_.directSoftwareRsqrt != 4 && options_.directSoftwareRsqrt != 6)
        fail("directSoftwareRsqrt must be -1 (default), 0, 2, 4 or 6; got " + std::to_string(options_.directSoftwareRsqrt));
    if (options_.method == Method::Msm) {
        if (options_.msmOrder != Msm::MSM_CUBIC && options_.msmOrder != Msm::MSM_QUINTIC)
            fail("msmOrder must be 3 (cubic) or 5 (quintic), got " + std::to_string(options_.msmOrder));
        const double finest = Msm::finestAccuracy(options_.msmOrder);
        if (!(options_.msmAccuracy >= finest && options_.msmAccuracy < 1))
            fail("msmAccuracy must be a relative RMS error of at least " + str(finest) + " and below 1 for msmOrder " +
                 std::to_string(options_.msmOrder) + ", got " + str(options_.msmAccuracy) + " (finer: set msmSpacing and msmCutoff)");
        if (!(options_.msmSpacing >= 0 && std::isfinite(options_.msmSpacing)))
            fail("msmSpacing must be a positive length in nm (0: from msmAccuracy), got " + str(options_.msmSpacing));
        if (!(options_.msmCutoff >= 0 && std::isfinite(options_.msmCutoff)))
            fail("msmCutoff must be a positive length in nm (0: from msmAccuracy), got " + str(options_.msmCutoff));
        double spacing, cutoff;
        msmParameters(options_, false, spacing, cutoff);
        if (cutoff < 2 * spacing)
            fail("msmCutoff " + str(cutoff) + " nm must be at least twice msmSpacing " + str(spacing) + " nm");
    }
    if (options_.cpuThreads < 0)
        fail("cpuThreads must be >= 0, got " + std::to_string(options_.cpuThreads));
    if (charges_.size() > (size_t) std::numeric_limits<int>::max() / 64)
        fail("too many atoms: " + std::to_string(charges_.size()));
    Common::resolveCudaDevices(options_.cudaDevice, options_.cudaDevices);
    // CPU when asked for (or Auto without a CUDA device), otherwise CUDA, or common/'s "no CUDA" error.
    const bool cudaPresent = cudaAvailable();
    if (options_.backend == Backend::Cpu || (options_.backend == Backend::Auto && !cudaPresent))
        backend_ = createCpuBackend(lattice_, charges_, options_);
    else if constexpr (Common::builtWithCuda) {
        if (!cudaPresent)
            Common::throwCudaUnavailable("the potential map");
        if (options_.cudaDevices.size() > 1)
            backend_ = createMultiDeviceBackend(lattice_, charges_, options_, createCudaBackend);
        else
            backend_ = createCudaBackend(lattice_, charges_, options_);
    }
    else
        Common::throwCudaUnavailable("the potential map");
}

PotentialMapEngine::~PotentialMapEngine() = default;

void msmParameters(const Options& options, bool periodic, double& spacing, double& cutoff) {
    Msm::parametersForAccuracy(options.msmAccuracy, options.msmOrder, periodic, spacing, cutoff);
    if (options.msmSpacing > 0)
        spacing = options.msmSpacing;
    if (options.msmCutoff > 0)
        cutoff = options.msmCutoff;
}

bool PotentialMapEngine::cudaAvailable() {
    return Common::cudaDeviceCount() > 0;
}

void PotentialMapEngine::validateFrame(const double* positions, const PeriodicBox* box) const {
    if (positions == nullptr && !charges_.empty())
        fail("positions are missing");
    for (size_t i = 0; i < 3 * charges_.size(); i++)
        if (!std::isfinite(positions[i]))
            fail("position of atom " + std::to_string(i / 3) + " is not finite: " + std::string(1, "xyz"[i % 3]) +
                 " = " + str(positions[i]));
    if (box == nullptr)
        return;
    if (options_.method == Method::Direct)
        fail("the direct method sums over the atoms as given and takes no periodic box; use method 'cutoff' for periodic systems");
    box->validate();
    // Distances between opposite faces: then no two images of an atom are both within the cutoff of a point, and the
    // sum over images within rc is the minimum-image sum.
    const Vec3 &a = box->a, &b = box->b, &c = box->c;
    double volume = a[0] * b[1] * c[2];
    Vec3 bxc = {b[1] * c[2], -b[0] * c[2], b[0] * c[1] - b[1] * c[0]};
    Vec3 axc = {0, -a[0] * c[2], a[0] * c[1]};
    double widthA = volume / std::sqrt(bxc[0] * bxc[0] + bxc[1] * bxc[1] + bxc[2] * bxc[2]);
    double widthB = volume / std::sqrt(axc[1] * axc[1] + axc[2] * axc[2]);
    double halfWidth = 0.5 * std::min({widthA, widthB, c[2]});
    double reach = options_.cutoff;
    const char* what = "the cutoff ";
    if (options_.method == Method::Msm) {
        double spacing;
        msmParameters(options_, true, spacing, reach);
        what = "the msm short-range cutoff ";
    }
    if (reach > halfWidth)
        fail(what + str(reach) + " nm is larger than half the smallest width of the periodic box (" + str(halfWidth) +
             " nm)");
}

void PotentialMapEngine::compute(const double* positions, const PeriodicBox* box, float* map) {
    validateFrame(positions, box);
    backend_->compute(positions, box, map);
}

void PotentialMapEngine::accumulate(const double* positions, const PeriodicBox* box) {
    validateFrame(positions, box);
    backend_->accumulate(positions, box);
    frames++;
}

void PotentialMapEngine::getAverage(double* average) {
    if (frames == 0)
        throw std::runtime_error("no frame has been accumulated yet");
    backend_->getSum(average);
    for (size_t i = 0; i < lattice_.numPoints(); i++)
        average[i] /= frames;
}

void PotentialMapEngine::getSum(double* sum) {
    backend_->getSum(sum);
}

void PotentialMapEngine::reset() {
    backend_->resetSum();
    frames = 0;
}

std::string PotentialMapEngine::backendName() const {
    return backend_->name();
}

Timings PotentialMapEngine::lastTimings() const {
    return backend_->lastTimings();
}

} // namespace OpenMMNarumi::PotentialMap
