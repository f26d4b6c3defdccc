// The CUDA backend against the double-precision CPU backend: exact summation (chunked and unchunked launch
// geometry), the HCP walk (top levels staged in shared memory or read from global memory), and errors.
// Every test skips (GTEST_SKIP, never passes) where no CUDA device is present.

#include "HcpTestSystems.h"
#include "SurfacePotential.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <stdexcept>

using namespace OpenMMNarumi::Hcp;
using namespace OpenMMNarumi::Hcp::Test;

namespace {

#define REQUIRE_GPU() \
    if (cudaDeviceCount() == 0) GTEST_SKIP() << "no CUDA device"

SurfacePotential engineFor(const TestMolecule& m, Backend backend, HcpThresholds thresholds = {}) {
    SurfacePotentialOptions options;
    options.electrostaticSize = 3.0;
    options.thresholds = thresholds;
    options.backend = backend;
    return SurfacePotential(m.positions, m.charges, m.residueOfAtom, m.chainOfResidue, m.complexOfChain, options);
}

}  // namespace

TEST(CudaHcp, AutoBackendIsCuda) {
    REQUIRE_GPU();
    const TestMolecule m = makeMolecule(1, 1, 4, 4, 2);
    EXPECT_EQ(engineFor(m, Backend::Auto).backendName(), "cuda");
}

TEST(CudaHcp, ExactMatchesDoublePrecision) {
    REQUIRE_GPU();
    const TestMolecule m = makeMolecule(2, 4, 40, 9, 7);  // 2880 atoms
    const double center[3] = {4.5, 4, 0};
    SurfacePotential gpu = engineFor(m, Backend::Cuda), cpu = engineFor(m, Backend::Cpu);
    for (int numPoints : {37, 700, 200000}) {  // few points: atom chunks and CUB's segmented reduction
        const std::vector<double> points = shellPoints(numPoints, center, 8.0, numPoints);
        const PotentialResult expected = cpu.compute(points, {0.3}, SummationMode::Exact);
        const PotentialResult actual = gpu.compute(points, {0.3}, SummationMode::Exact);
        EXPECT_LT(relativeRms(actual.potentials, expected.potentials), 2e-6) << numPoints << " points";
        EXPECT_NEAR(actual.total, expected.total, 2e-6 * std::fabs(expected.total) * std::sqrt(numPoints)) << numPoints;
        EXPECT_GE(actual.deviceMilliseconds, 0);
    }
}

TEST(CudaHcp, HcpMatchesCpuWalk) {
    REQUIRE_GPU();
    const TestMolecule m = makeMolecule(3, 5, 30, 8, 5);
    const double center[3] = {6, 8, 0};
    const std::vector<double> points = shellPoints(50000, center, 9.0, 3);
    const HcpThresholds thresholds{1.0, 4.0, 9.0};
    const PotentialResult cpu = engineFor(m, Backend::Cpu, thresholds).compute(points, {}, SummationMode::Hcp);
    const PotentialResult gpu = engineFor(m, Backend::Cuda, thresholds).compute(points, {}, SummationMode::Hcp);
    EXPECT_LT(relativeRms(gpu.potentials, cpu.potentials), 1e-5);
    const PotentialResult exact = engineFor(m, Backend::Cpu).compute(points, {}, SummationMode::Exact);
    const double hcpError = relativeRms(cpu.potentials, exact.potentials);
    EXPECT_GT(hcpError, 1e-4);  // the approximation was really used
    EXPECT_NEAR(relativeRms(gpu.potentials, exact.potentials), hcpError, 0.01 * hcpError);
}

TEST(CudaHcp, ManyChainsReadFromGlobalMemory) {
    REQUIRE_GPU();
    // 1200 chains of 2 residues: the top levels no longer fit in 48 KB of shared memory.
    const TestMolecule m = makeMolecule(4, 300, 2, 3, 17);
    const double center[3] = {450, 16, 0};
    const std::vector<double> points = shellPoints(20000, center, 460.0, 4);
    const HcpThresholds thresholds{1.0, 7.0, std::numeric_limits<double>::infinity()};  // every chain is visited
    const PotentialResult cpu = engineFor(m, Backend::Cpu, thresholds).compute(points, {}, SummationMode::Hcp);
    const PotentialResult gpu = engineFor(m, Backend::Cuda, thresholds).compute(points, {}, SummationMode::Hcp);
    EXPECT_LT(relativeRms(gpu.potentials, cpu.potentials), 1e-5);
}

TEST(CudaHcp, InfiniteThresholdsMatchExact) {
    REQUIRE_GPU();
    const double inf = std::numeric_limits<double>::infinity();
    const TestMolecule m = makeMolecule(1, 3, 25, 6, 23);
    const double center[3] = {3, 0, 0};
    const std::vector<double> points = shellPoints(3000, center, 5.0, 9);
    const PotentialResult exact = engineFor(m, Backend::Cpu).compute(points, {}, SummationMode::Exact);
    const PotentialResult open = engineFor(m, Backend::Cuda, {inf, inf, inf}).compute(points, {}, SummationMode::Hcp);
    EXPECT_LT(relativeRms(open.potentials, exact.potentials), 2e-6);
}

TEST(CudaHcp, PointOnAnAtomIsAnError) {
    REQUIRE_GPU();
    const TestMolecule m = makeMolecule(1, 1, 3, 4, 1);
    SurfacePotential gpu = engineFor(m, Backend::Cuda);
    const std::vector<double> onAtom(m.positions.begin(), m.positions.begin() + 3);
    EXPECT_THROW(gpu.compute(onAtom, {}, SummationMode::Exact), std::invalid_argument);
    EXPECT_THROW(gpu.compute(onAtom, {}, SummationMode::Hcp), std::invalid_argument);
}

TEST(CudaHcp, RepeatedCallsReuseBuffers) {
    REQUIRE_GPU();
    const TestMolecule m = makeMolecule(1, 2, 20, 6, 31);
    const double center[3] = {1.5, 0, 0};
    SurfacePotential gpu = engineFor(m, Backend::Cuda);
    const std::vector<double> large = shellPoints(5000, center, 5.0, 1), small = shellPoints(10, center, 5.0, 2);
    const PotentialResult first = gpu.compute(small, {}, SummationMode::Exact);
    gpu.compute(large, {}, SummationMode::Exact);
    const PotentialResult again = gpu.compute(small, {}, SummationMode::Exact);
    EXPECT_EQ(first.potentials, again.potentials);
    EXPECT_EQ(first.total, again.total);
}
