/**
 * The CUDA backend: the shared tests of every backend (PotentialMapTests.h) with each of its three accumulations,
 * then what only it has: the FMA-pipe rsqrt variants of the direct kernel, the automatic backend choice and Narumi's
 * range check.  Every test skips (never passes) where no CUDA device is present.
 */

#include "CudaBackend.h"
#include "MsmLongRange.h"
#include "MsmNumerics.h"
#include "NarumiTestDevices.h"
#include "PotentialMapTests.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <stdexcept>
#include <string>

using namespace OpenMMNarumi::PotentialMap;
using namespace OpenMMNarumi::PotentialMap::Test;

namespace {

#define SKIP_WITHOUT_GPU()                                        \
    if (!PotentialMapEngine::cudaAvailable())                     \
        GTEST_SKIP() << "no CUDA device: CUDA backend not tested"

Options cudaOptions(Method method, double cutoff, Accumulation accumulation) {
    Options options;
    options.method = method;
    options.cutoff = cutoff;
    options.accumulation = accumulation;
    options.backend = Backend::Cuda;
    return options;
}


// Single-precision kernels: a few float epsilons (6e-8) times the sensitivity; compensated and Narumi sums add little
// to the terms' rounding, plain float sums up to ~sqrt(n) epsilons.
INSTANTIATE_TEST_SUITE_P(CUDA, PotentialMapTest,
                         ::testing::Values(BackendUnderTest{Backend::Cuda, Accumulation::Compensated, 2e-6, "CUDA_compensated"},
                                           BackendUnderTest{Backend::Cuda, Accumulation::Narumi, 2e-6, "CUDA_narumi"},
                                           BackendUnderTest{Backend::Cuda, Accumulation::Float, 2e-5, "CUDA_float"}),
                         backendLabel);
// Several devices (NARUMI_TEST_DEVICES; by default the same GPU listed twice): every shared test with the map cut into
// slabs computed side by side.
INSTANTIATE_TEST_SUITE_P(CUDA_two_devices, PotentialMapTest,
                         ::testing::Values(BackendUnderTest{Backend::Cuda, Accumulation::Compensated, 2e-6, "CUDA_compensated_devices",
                                                            OpenMMNarumi::Test::multiDeviceList()}),
                         backendLabel);

/** The CUDA kernels' own variants, with the compensated accumulation. */
class PotentialMapCudaTest : public PotentialMapTest {};
INSTANTIATE_TEST_SUITE_P(CUDA, PotentialMapCudaTest,
                         ::testing::Values(BackendUnderTest{Backend::Cuda, Accumulation::Compensated, 2e-6, "CUDA_compensated"}),
                         backendLabel);

TEST_P(PotentialMapCudaTest, DirectSoftwareRsqrtVariantsAgree) {
    System system = randomSystem(400, 0.0, 2.5, 12);
    Lattice lattice = makeLattice({0, 0, 0}, {0.1, 0.1, 0.1}, {33, 33, 4});
    std::vector<double> sensitivity;
    auto reference = bruteForce(lattice, system, Method::Direct, 0, nullptr, &sensitivity);
    for (int soft : {0, 2, 4, 6}) {
        Options withSoftware = options(Method::Direct, 0);
        withSoftware.directSoftwareRsqrt = soft;
        expectWithinRounding(computeMap(lattice, system, withSoftware, nullptr), reference, sensitivity,
                             "direct, " + std::to_string(soft) + " of 16 points with FMA-pipe rsqrt");
    }
}

TEST(PotentialMapCuda, AutomaticBackendIsCudaWithADevice) {
    SKIP_WITHOUT_GPU();
    System system = randomSystem(20, 0.0, 2.0, 9);
    Options options;
    options.backend = Backend::Auto;
    PotentialMapEngine engine(makeLattice({0, 0, 0}, {0.1, 0.1, 0.1}, {5, 5, 5}), system.charges, options);
    EXPECT_EQ(engine.backendName(), "cuda");
}

TEST(PotentialMapCuda, NarumiRangeOverflowIsAnError) {
    SKIP_WITHOUT_GPU();
    // 64 charges of 10 e at 0.0015 nm from a lattice point: about 6e7 kJ/mol/e, far beyond Narumi's 2^20.
    System system;
    for (int i = 0; i < 64; i++) {
        system.positions.insert(system.positions.end(), {0.5015, 0.5, 0.5});
        system.charges.push_back(10.0);
    }
    Lattice lattice = makeLattice({0, 0, 0}, {0.1, 0.1, 0.1}, {11, 11, 11});
    EXPECT_THROW(computeMap(lattice, system, cudaOptions(Method::Direct, 0, Accumulation::Narumi), nullptr), std::runtime_error);
    EXPECT_NO_THROW(computeMap(lattice, system, cudaOptions(Method::Direct, 0, Accumulation::Compensated), nullptr));
}

/**
 * Two slabs give one device's map to float rounding (each point's coordinates relative to its slab's origin round
 * differently), for both methods, one frame and a time average; a lattice thinner than the device list uses fewer
 * devices; a negative device is named.
 */
TEST(PotentialMapMultiDevice, SlabsOnTwoDevicesGiveTheOneDeviceMap) {
    SKIP_WITHOUT_GPU();
    System system = randomSystem(3000, 0.0, 3.0, 21);
    for (Method method : {Method::Direct, Method::Cutoff})
        for (std::array<int, 3> dims : {std::array<int, 3>{24, 20, 17}, std::array<int, 3>{16, 16, 1}}) {
            Lattice lattice = makeLattice({-0.2, -0.1, 0.05}, {0.13, 0.15, 0.17}, dims);
            Options one = cudaOptions(method, 1.0, Accumulation::Compensated), two = one;
            two.cudaDevices = OpenMMNarumi::Test::multiDeviceList();
            std::vector<float> onOne = computeMap(lattice, system, one, nullptr), onTwo = computeMap(lattice, system, two, nullptr);
            ASSERT_EQ(onOne.size(), onTwo.size());
            double largest = 0;
            for (size_t k = 0; k < onOne.size(); k++)
                largest = std::max(largest, (double) std::fabs(onOne[k]) + 1.0);
            for (size_t k = 0; k < onOne.size(); k++)
                ASSERT_NEAR(onTwo[k], onOne[k], 1e-5 * largest) << "point " << k << ", method " << (int) method;
            PotentialMapEngine averaged(lattice, system.charges, two);
            averaged.accumulate(system.positions.data(), nullptr);
            averaged.accumulate(system.positions.data(), nullptr);
            std::vector<double> average(lattice.numPoints());
            averaged.getAverage(average.data());
            for (size_t k = 0; k < onOne.size(); k++)
                ASSERT_NEAR(average[k], onOne[k], 1e-5 * largest) << "average, point " << k;
        }
    Options bad = cudaOptions(Method::Direct, 0, Accumulation::Compensated);
    bad.cudaDevices = {0, -2};
    try {
        PotentialMapEngine engine(makeLattice({0, 0, 0}, {0.1, 0.1, 0.1}, {4, 4, 4}), system.charges, bad);
        FAIL() << "cudaDevices {0, -2} was accepted";
    }
    catch (const std::invalid_argument& error) {
        EXPECT_NE(std::string(error.what()).find("-2"), std::string::npos) << error.what();
    }
}

/**
 * The open multilevel summation's long-range part on the GPU (addMsmLongRangeCuda) against the CPU engine's
 * (addMsmLongRange, itself checked against the direct sum): the same levels and weights in double precision, so
 * the two agree to rounding (the GPU's anterpolation adds in another order), for both schemes, atoms spread beyond
 * the map, and values added to what the caller's array holds.
 */
TEST(PotentialMapMsmCuda, LongRangeEqualsTheCpuEngines) {
    SKIP_WITHOUT_GPU();
    System system = randomSystem(2500, -0.5, 3.5, 31);
    Lattice lattice = makeLattice({0.2, -0.1, 0.4}, {0.11, 0.13, 0.09}, {23, 19, 29});
    for (int order : {3, 5})
        for (double spacing : {0.2, 0.125}) {
            std::vector<double> onCpu(lattice.numPoints(), 1.0), onGpu(lattice.numPoints(), 1.0);
            addMsmLongRange(lattice, system.positions.data(), system.charges, spacing, 1.2, order, 2, onCpu.data());
            addMsmLongRangeCuda(lattice, system.positions.data(), system.charges, spacing, 1.2, order, 0, onGpu.data());
            double largest = 0, difference = 0;
            for (size_t k = 0; k < onCpu.size(); k++) {
                largest = std::max(largest, std::fabs(onCpu[k] - 1.0));
                difference = std::max(difference, std::fabs(onGpu[k] - onCpu[k]));
            }
            EXPECT_GT(largest, 1.0) << "the long-range part is not trivial";
            EXPECT_LT(difference, 1e-10 * largest) << "order " << order << ", spacing " << spacing;
        }
}

/**
 * The periodic scheme on the GPU (addMsmLongRangePeriodicCuda) against the CPU engine's (addMsmLongRangePeriodic,
 * itself checked against the NumPy Ewald sum): a rectangular and a triclinic cell, both schemes, a net charge.
 */
TEST(PotentialMapMsmCuda, PeriodicLongRangeEqualsTheCpuEngines) {
    SKIP_WITHOUT_GPU();
    PeriodicBox rectangular{{3.1, 0, 0}, {0, 2.9, 0}, {0, 0, 3.3}}, triclinic{{3.2, 0, 0}, {1.0, 3.0, 0}, {-1.1, 1.2, 2.9}};
    System system = randomSystem(1500, 0.0, 3.0, 33);
    Lattice lattice = makeLattice({-0.4, 0.1, 0.2}, {0.13, 0.11, 0.17}, {21, 25, 17});
    for (const PeriodicBox& box : {rectangular, triclinic})
        for (int order : {3, 5}) {
            std::vector<double> onCpu(lattice.numPoints(), -2.0), onGpu(lattice.numPoints(), -2.0);
            addMsmLongRangePeriodic(lattice, system.positions.data(), system.charges, box, 0.2, 1.2, order, 2, onCpu.data());
            addMsmLongRangePeriodicCuda(lattice, system.positions.data(), system.charges, box, 0.2, 1.2, order, 0, onGpu.data());
            double largest = 0, difference = 0;
            for (size_t k = 0; k < onCpu.size(); k++) {
                largest = std::max(largest, std::fabs(onCpu[k] + 2.0));
                difference = std::max(difference, std::fabs(onGpu[k] - onCpu[k]));
            }
            EXPECT_GT(largest, 1.0) << "the long-range part is not trivial";
            EXPECT_LT(difference, 1e-10 * largest) << "order " << order << ", box a_x " << box.a[0] << ", b_x " << box.b[0];
        }
}

/**
 * Method msm on the CUDA backend against the CPU backend (both created directly), open and periodic (rectangular, triclinic), both schemes: the short range in float
 * by the cutoff kernels, the long range in double, so the maps agree to float rounding of the short range.
 */
TEST(PotentialMapMsmCuda, MsmOnTheCudaBackendMatchesTheCpuBackend) {
    SKIP_WITHOUT_GPU();
    PeriodicBox rectangular{{3.1, 0, 0}, {0, 2.9, 0}, {0, 0, 3.3}}, triclinic{{3.2, 0, 0}, {1.0, 3.0, 0}, {-1.1, 1.2, 2.9}};
    System system = randomSystem(1200, 0.0, 2.9, 34);
    Lattice lattice = makeLattice({0.05, 0.1, 0.15}, {0.12, 0.13, 0.11}, {22, 20, 25});
    for (const PeriodicBox* box : std::vector<const PeriodicBox*>{nullptr, &rectangular, &triclinic})
        for (int order : {3, 5}) {
            Options options;
            options.method = Method::Msm;
            options.msmOrder = order;
            options.msmAccuracy = 1e-3;
            options.accumulation = Accumulation::Compensated;
            Options onCpu = options;
            onCpu.backend = Backend::Cpu;
            onCpu.cpuThreads = 2;
            options.backend = Backend::Cuda;
            std::vector<float> cpuMap(lattice.numPoints()), gpuMap(lattice.numPoints());
            createCpuBackend(lattice, system.charges, onCpu)->compute(system.positions.data(), box, cpuMap.data());
            createCudaBackend(lattice, system.charges, options)->compute(system.positions.data(), box, gpuMap.data());
            double largest = 0, difference = 0;
            for (size_t k = 0; k < cpuMap.size(); k++) {
                largest = std::max(largest, (double) std::fabs(cpuMap[k]));
                difference = std::max(difference, (double) std::fabs(gpuMap[k] - cpuMap[k]));
            }
            EXPECT_GT(largest, 10.0) << "the map is not trivial";
            EXPECT_LT(difference, 2e-5 * largest) << "order " << order << (box == nullptr ? ", open" : ", periodic");
        }
}

/**
 * Method msm on the GPU against the double-precision direct sum, open boundaries, both schemes at 1e-3, 1e-4 and
 * their finest accuracy (those the scheme accepts), on the CPU driver's charged dipole cloud: within the accuracy
 * asked for.
 */
TEST(PotentialMapMsmCuda, MatchesTheDirectSumWithinTheAccuracyAskedFor) {
    SKIP_WITHOUT_GPU();
    System system = dipoleCloud(1500, 6.0, 31);
    Lattice lattice = makeLattice({-0.5, -0.4, -0.3}, {0.23, 0.21, 0.25}, {31, 32, 29});
    std::vector<double> reference = bruteForce(lattice, system, Method::Direct, 0, nullptr);
    for (int order : {Msm::MSM_CUBIC, Msm::MSM_QUINTIC})
        for (double accuracy : {1e-3, 1e-4, Msm::finestAccuracy(Msm::MSM_QUINTIC)})
            if (accuracy >= Msm::finestAccuracy(order))
                expectMsmWithinAccuracy(lattice, system, reference, cudaOptions(Method::Msm, 0, Accumulation::Compensated), order,
                                        accuracy, "on the GPU");
}

/** Lattices and a map beyond the GPU's free memory are refused with their size, before anything is allocated. */
TEST(PotentialMapMsmCuda, LatticesBeyondTheGpuMemoryAreNamed) {
    SKIP_WITHOUT_GPU();
    System system = randomSystem(100, 0.0, 2.0, 32);
    Lattice huge = makeLattice({0, 0, 0}, {0.05, 0.05, 0.05}, {3000, 3000, 3000});  // 2.7e10 map points: 216 GB
    try {
        addMsmLongRangeCuda(huge, system.positions.data(), system.charges, 0.2, 1.2, 5, 0, nullptr);
        FAIL() << "a 216 GB map was accepted";
    }
    catch (const std::invalid_argument& error) {
        EXPECT_NE(std::string(error.what()).find("GB of GPU memory"), std::string::npos) << error.what();
    }
}

} // namespace
