#pragma once
// Electrostatic potential at surface points (or any points outside a molecule) from its atomic charges, with the
// ALPB model (AlpbModel.h), summed exactly or with hierarchical charge partitioning (ChargeHierarchy.h), on a
// multithreaded CPU backend (double precision) or a CUDA backend (single precision, double accumulation).

#include "AlpbModel.h"
#include "ChargeHierarchy.h"
#include "NarumiCommon/CudaAvailability.h"

#include <memory>
#include <string>
#include <vector>

namespace OpenMMNarumi::Hcp {

enum class Backend { Auto, Cpu, Cuda };
enum class SummationMode { Exact, Hcp };

struct SurfacePotentialOptions {
    double epsIn = 1.0;
    double epsOut = 80.0;
    double electrostaticSize = 0;  ///< A (nm); required, > 0
    HcpThresholds thresholds;
    Backend backend = Backend::Auto;  ///< Auto: CUDA when built with it and a device is present, else CPU
    int numThreads = 0;               ///< CPU backend threads; 0: all hardware threads
    int cudaDevice = 0;
};

struct PotentialResult {
    std::vector<double> potentials;  ///< kJ/mol/e, one per point
    double total = 0;                ///< sum over the points (the "total surface potential" of Daga et al.)
    double deviceMilliseconds = -1;  ///< CUDA backend: time of the kernels and reductions (CUDA events)
};

/// Points handed to a backend: x, y, z relative to the molecule's origin (nm) and r = A + offset (nm).
struct EvaluationPoints {
    std::vector<double> xyzr;  ///< P x 4
    long size() const { return static_cast<long>(xyzr.size() / 4); }
};

class SurfacePotentialBackend {
public:
    virtual ~SurfacePotentialBackend() = default;
    virtual std::string name() const = 0;
    /// Called after every change of coordinates; positions in the hierarchy are relative to `origin`.
    virtual void setHierarchy(const ChargeHierarchy& hierarchy, const Vec3& origin) = 0;
    virtual PotentialResult compute(const EvaluationPoints& points, SummationMode mode,
                                    const HcpThresholds& thresholds, const AlpbCoefficients& coefficients,
                                    double totalCharge) = 0;
};

std::unique_ptr<SurfacePotentialBackend> createCpuBackend(int numThreads);
/// cuda/CudaSurfacePotential.cu, compiled only with CUDA; throws std::runtime_error when the device cannot be used.
std::unique_ptr<SurfacePotentialBackend> createCudaBackend(int device);
/// Number of usable CUDA devices (0 when built without CUDA or no driver/device is present): common/'s.
using Common::cudaDeviceCount;

class SurfacePotential {
public:
    /// positions N x 3 (nm), charges (e), and the component index arrays of ChargeHierarchy.
    SurfacePotential(const std::vector<double>& positions, const std::vector<double>& charges,
                     const std::vector<int>& residueOfAtom, const std::vector<int>& chainOfResidue,
                     const std::vector<int>& complexOfChain, const SurfacePotentialOptions& options);

    /// New coordinates (same atoms, original order): the approximate charges follow (A is kept).
    void setPositions(const std::vector<double>& positions);

    /// points P x 3 (nm); offsets: their distance outside the molecular surface (nm), one value for all points
    /// or one per point (empty: 0, points on the surface).  Throws std::invalid_argument on bad input.
    PotentialResult compute(const std::vector<double>& points, const std::vector<double>& offsets,
                            SummationMode mode);

    const ChargeHierarchy& hierarchy() const { return hierarchy_; }
    const SurfacePotentialOptions& options() const { return options_; }
    std::string backendName() const { return backend_->name(); }

private:
    void uploadHierarchy();
    ChargeHierarchy hierarchy_;
    SurfacePotentialOptions options_;
    AlpbCoefficients coefficients_;
    Vec3 origin_{0, 0, 0};
    std::unique_ptr<SurfacePotentialBackend> backend_;
};

}  // namespace OpenMMNarumi::Hcp
