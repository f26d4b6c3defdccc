#include "SurfacePotential.h"
#include "NarumiCommon/CudaAvailability.h"

#include <cmath>
#include <stdexcept>
#include <string>

namespace OpenMMNarumi::Hcp {

namespace {

void requirePositiveThreshold(double value, const char* name) {
    if (!(value > 0))  // infinity is allowed: that level is never approximated
        throw std::invalid_argument(std::string("HCP ") + name + " threshold must be > 0 nm, got " + std::to_string(value));
}

// CPU when asked for (or Auto without the CUDA device), otherwise CUDA, or common/'s "no CUDA" error.
std::unique_ptr<SurfacePotentialBackend> chooseBackend(const SurfacePotentialOptions& options) {
    const bool cuda = options.backend == Backend::Cuda ||
                      (options.backend == Backend::Auto && cudaDeviceCount() > options.cudaDevice);
    if (!cuda) return createCpuBackend(options.numThreads);
    if constexpr (Common::builtWithCuda) return createCudaBackend(options.cudaDevice);
    Common::throwCudaUnavailable("the HCP surface potential");
}

}  // namespace

SurfacePotential::SurfacePotential(const std::vector<double>& positions, const std::vector<double>& charges,
                                   const std::vector<int>& residueOfAtom, const std::vector<int>& chainOfResidue,
                                   const std::vector<int>& complexOfChain, const SurfacePotentialOptions& options)
    : hierarchy_(positions, charges, residueOfAtom, chainOfResidue, complexOfChain),
      options_(options),
      coefficients_(alpbCoefficients(options.epsIn, options.epsOut)) {
    if (!(std::isfinite(options.electrostaticSize) && options.electrostaticSize > 0))
        throw std::invalid_argument("electrostatic size A must be a positive number of nm, got " +
                                    std::to_string(options.electrostaticSize));
    requirePositiveThreshold(options.thresholds.residue, "residue");
    requirePositiveThreshold(options.thresholds.chain, "chain");
    requirePositiveThreshold(options.thresholds.complex, "complex");
    if (options.numThreads < 0) throw std::invalid_argument("number of threads must be >= 0 (0: all)");
    backend_ = chooseBackend(options);
    uploadHierarchy();
}

void SurfacePotential::setPositions(const std::vector<double>& positions) {
    hierarchy_.setPositions(positions);
    uploadHierarchy();
}

void SurfacePotential::uploadHierarchy() {
    // Coordinates relative to the centroid keep single-precision differences accurate far from the origin.
    origin_ = {0, 0, 0};
    for (const Vec3& x : hierarchy_.atomPositions)
        for (int d = 0; d < 3; ++d) origin_[d] += x[d];
    for (int d = 0; d < 3; ++d) origin_[d] /= hierarchy_.numAtoms();
    backend_->setHierarchy(hierarchy_, origin_);
}

PotentialResult SurfacePotential::compute(const std::vector<double>& points, const std::vector<double>& offsets,
                                          SummationMode mode) {
    if (points.size() % 3 != 0)
        throw std::invalid_argument("points must be P x 3, got " + std::to_string(points.size()) + " numbers");
    const long numPoints = static_cast<long>(points.size() / 3);
    if (numPoints == 0) throw std::invalid_argument("empty point set: no points to evaluate the potential at");
    if (!(offsets.empty() || offsets.size() == 1 || static_cast<long>(offsets.size()) == numPoints))
        throw std::invalid_argument("offsets must be empty, one value or one per point (" + std::to_string(numPoints) +
                                    "), got " + std::to_string(offsets.size()));
    requireFinite(points, "point", 3);
    EvaluationPoints evaluation;
    evaluation.xyzr.resize(4 * numPoints);
    for (long p = 0; p < numPoints; ++p) {
        const double offset = offsets.empty() ? 0.0 : offsets[offsets.size() == 1 ? 0 : p];
        if (!(std::isfinite(offset) && offset >= 0))
            throw std::invalid_argument("offset of point " + std::to_string(p) + " must be >= 0 nm (the ALPB " +
                                        "formula holds outside the molecule), got " + std::to_string(offset));
        for (int d = 0; d < 3; ++d) evaluation.xyzr[4 * p + d] = points[3 * p + d] - origin_[d];
        evaluation.xyzr[4 * p + 3] = options_.electrostaticSize + offset;
    }
    PotentialResult result = backend_->compute(evaluation, mode, options_.thresholds, coefficients_,
                                               hierarchy_.totalCharge());
    for (long p = 0; p < numPoints; ++p)
        if (!std::isfinite(result.potentials[p]))
            throw std::invalid_argument("the potential at point " + std::to_string(p) + " is not finite: the point " +
                                        "lies on an atom (distance 0); evaluate it off the atoms' centres");
    return result;
}

}  // namespace OpenMMNarumi::Hcp
