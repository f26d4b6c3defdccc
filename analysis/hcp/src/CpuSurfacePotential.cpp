// CPU backend: double precision, points spread over std::threads.  The exact sum is vectorised with
// `omp simd` (compiled with -fopenmp-simd: no OpenMP runtime); the HCP walk is the algorithm of Daga et al.
// (complexes -> chains -> residues -> atoms, approximate charges at and beyond each level's threshold).

#include "SurfacePotential.h"
#include "NarumiCommon/ThreadPool.h"

#include <cmath>

namespace OpenMMNarumi::Hcp {

namespace {

struct CpuLevel {
    std::vector<int> childStart;
    std::vector<double> centerX, centerY, centerZ;
    std::vector<ApproximateCharges> approximations;  // relative to the origin
};

inline double distance2(double x, double y, double z, const double* c) {
    const double dx = c[0] - x, dy = c[1] - y, dz = c[2] - z;
    return dx * dx + dy * dy + dz * dz;
}

class CpuBackend : public SurfacePotentialBackend {
public:
    explicit CpuBackend(int numThreads) : numThreads_(Common::threadCount(numThreads)) {}

    std::string name() const override { return "cpu"; }

    void setHierarchy(const ChargeHierarchy& hierarchy, const Vec3& origin) override {
        const int n = hierarchy.numAtoms();
        atomX_.resize(n), atomY_.resize(n), atomZ_.resize(n);
        atomQ_ = hierarchy.atomCharges;
        for (int a = 0; a < n; ++a) {
            atomX_[a] = hierarchy.atomPositions[a][0] - origin[0];
            atomY_[a] = hierarchy.atomPositions[a][1] - origin[1];
            atomZ_[a] = hierarchy.atomPositions[a][2] - origin[2];
        }
        copyLevel(hierarchy.residues, origin, residues_);
        copyLevel(hierarchy.chains, origin, chains_);
        copyLevel(hierarchy.complexes, origin, complexes_);
    }

    PotentialResult compute(const EvaluationPoints& points, SummationMode mode, const HcpThresholds& thresholds,
                            const AlpbCoefficients& coefficients, double totalCharge) override {
        PotentialResult result;
        result.potentials.resize(points.size());
        const double* xyzr = points.xyzr.data();
        Common::parallelChunks(points.size(), 64, numThreads_, [&](long first, long last) {
            for (long p = first; p < last; ++p) {
                const double* point = xyzr + 4 * p;
                const double coulomb = mode == SummationMode::Exact ? exactSum(point) : hcpSum(point, thresholds);
                result.potentials[p] = coefficients.chargeScale * coulomb - coefficients.monopoleScale * totalCharge / point[3];
            }
        });
        for (double value : result.potentials) result.total += value;
        return result;
    }

private:
    static void copyLevel(const ComponentLevel& level, const Vec3& origin, CpuLevel& out) {
        out.childStart = level.childStart;
        out.centerX.resize(level.size()), out.centerY.resize(level.size()), out.centerZ.resize(level.size());
        out.approximations = level.approximations;
        for (int k = 0; k < level.size(); ++k) {
            out.centerX[k] = level.centers[k][0] - origin[0];
            out.centerY[k] = level.centers[k][1] - origin[1];
            out.centerZ[k] = level.centers[k][2] - origin[2];
            for (int d = 0; d < 3; ++d) {
                out.approximations[k].negativeCenter[d] -= origin[d];
                out.approximations[k].positiveCenter[d] -= origin[d];
            }
        }
    }

    double exactSum(const double* point) const {
        return atomSum(point, 0, static_cast<int>(atomQ_.size()));
    }

    double atomSum(const double* point, int first, int last) const {
        const double x = point[0], y = point[1], z = point[2];
        const double *ax = atomX_.data(), *ay = atomY_.data(), *az = atomZ_.data(), *aq = atomQ_.data();
        double sum = 0;
#pragma omp simd reduction(+ : sum)
        for (int a = first; a < last; ++a) {
            const double dx = ax[a] - x, dy = ay[a] - y, dz = az[a] - z;
            sum += aq[a] / std::sqrt(dx * dx + dy * dy + dz * dz);
        }
        return sum;
    }

    static double approximateSum(const double* point, const ApproximateCharges& c) {
        return c.negativeCharge / std::sqrt(distance2(point[0], point[1], point[2], c.negativeCenter.data())) +
               c.positiveCharge / std::sqrt(distance2(point[0], point[1], point[2], c.positiveCenter.data()));
    }

    static bool far(const CpuLevel& level, int k, const double* point, double threshold2) {
        const double dx = level.centerX[k] - point[0], dy = level.centerY[k] - point[1], dz = level.centerZ[k] - point[2];
        return dx * dx + dy * dy + dz * dz >= threshold2;
    }

    double hcpSum(const double* point, const HcpThresholds& thresholds) const {
        const double h1 = thresholds.residue * thresholds.residue, h2 = thresholds.chain * thresholds.chain,
                     h3 = thresholds.complex * thresholds.complex;
        double sum = 0;
        for (size_t c = 0; c + 1 < complexes_.childStart.size(); ++c) {
            if (far(complexes_, c, point, h3)) {
                sum += approximateSum(point, complexes_.approximations[c]);
                continue;
            }
            for (int s = complexes_.childStart[c]; s < complexes_.childStart[c + 1]; ++s) {
                if (far(chains_, s, point, h2)) {
                    sum += approximateSum(point, chains_.approximations[s]);
                    continue;
                }
                for (int r = chains_.childStart[s]; r < chains_.childStart[s + 1]; ++r) {
                    if (far(residues_, r, point, h1))
                        sum += approximateSum(point, residues_.approximations[r]);
                    else
                        sum += atomSum(point, residues_.childStart[r], residues_.childStart[r + 1]);
                }
            }
        }
        return sum;
    }

    int numThreads_;
    std::vector<double> atomX_, atomY_, atomZ_, atomQ_;
    CpuLevel residues_, chains_, complexes_;
};

}  // namespace

std::unique_ptr<SurfacePotentialBackend> createCpuBackend(int numThreads) {
    return std::make_unique<CpuBackend>(numThreads);
}

}  // namespace OpenMMNarumi::Hcp
