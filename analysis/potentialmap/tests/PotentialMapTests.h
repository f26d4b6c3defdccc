#ifndef NARUMI_POTENTIAL_MAP_TESTS_H_
#define NARUMI_POTENTIAL_MAP_TESTS_H_

/**
 * What every backend of the potential-map engine must compute, written once: TestPotentialMapCpu.cpp and
 * TestPotentialMapCuda.cpp include this file and instantiate PotentialMapTest with their backends and accumulations.
 * The oracle is the double-precision brute-force sum of MapTestSystems.h; a backend's error at a point is held to a
 * few float epsilons times the oracle's sensitivity there (the shift of V when every coordinate and term moves by one
 * relative unit), because the relative error grows without bound where V nearly cancels.
 */

#include "MapTestSystems.h"

#include <cstdio>
#include <stdexcept>
#include <string>

namespace {

using namespace OpenMMNarumi::PotentialMap;
using namespace OpenMMNarumi::PotentialMap::Test;

/** A backend under test, its accumulation (CUDA) and its bound on max |V - V_exact| / sensitivity. */
struct BackendUnderTest {
    Backend backend;
    Accumulation accumulation;
    double allowedScaledError;
    std::string label;   // the GoogleTest name: "CPU", "CUDA_narumi"
    std::vector<int> cudaDevices = {};   // two or more: the map in slabs over these devices
};

/** How GoogleTest shows a case's parameter (instead of its bytes). */
inline void PrintTo(const BackendUnderTest& backend, std::ostream* out) {
    *out << backend.label;
}

inline std::string backendLabel(const ::testing::TestParamInfo<BackendUnderTest>& info) {
    return info.param.label;
}

class PotentialMapTest : public ::testing::TestWithParam<BackendUnderTest> {
protected:
    void SetUp() override {
        if (GetParam().backend == Backend::Cuda && !PotentialMapEngine::cudaAvailable())
            GTEST_SKIP() << "no CUDA device: CUDA backend not tested";
    }
    Options options(Method method, double cutoff) const {
        Options options;
        options.method = method;
        options.cutoff = cutoff;
        options.backend = GetParam().backend;
        options.accumulation = GetParam().accumulation;
        options.cudaDevices = GetParam().cudaDevices;
        return options;
    }
    void expectWithinRounding(const std::vector<float>& map, const std::vector<double>& reference,
                              const std::vector<double>& sensitivity, const std::string& what) const {
        const double scaled = maxScaledError(map, reference, sensitivity);
        std::printf("[ measure  ] %s, %s: max error / sensitivity %.3g, max relative error %.3g\n", GetParam().label.c_str(),
                    what.c_str(), scaled, maxRelativeError(map, reference));
        EXPECT_LT(scaled, GetParam().allowedScaledError) << what;
    }
    void expectClose(const Lattice& lattice, const System& system, Method method, double cutoff, const PeriodicBox* box,
                     const std::string& what) const {
        std::vector<double> sensitivity;
        auto reference = bruteForce(lattice, system, method, cutoff, box, &sensitivity);
        auto map = computeMap(lattice, system, options(method, cutoff), box);
        for (float value : map)
            ASSERT_TRUE(std::isfinite(value)) << what;
        expectWithinRounding(map, reference, sensitivity, what);
    }
};

TEST_P(PotentialMapTest, DirectMatchesBruteForce) {
    System system = randomSystem(700, 0.0, 2.5, 1);  // > 5 CUDA staging tiles of 128 atoms, a partial last one
    Lattice lattice = makeLattice({-0.3, 0.1, -0.2}, {0.11, 0.13, 0.09}, {37, 35, 5});  // partial tiles on every axis
    expectClose(lattice, system, Method::Direct, 0, nullptr, "direct");
}

TEST_P(PotentialMapTest, CutoffNonPeriodicMatchesBruteForce) {
    System system = randomSystem(600, 0.0, 3.0, 2);
    Lattice lattice = makeLattice({-0.5, -0.4, 0.2}, {0.1, 0.12, 0.08}, {36, 30, 34});
    expectClose(lattice, system, Method::Cutoff, 0.9, nullptr, "cutoff non-periodic");
}

TEST_P(PotentialMapTest, CutoffRectangularBoxIsMinimumImage) {
    System system = randomSystem(300, -1.0, 4.0, 3);  // some atoms outside the box: they are wrapped
    PeriodicBox box;
    box.a = {3.0, 0, 0};
    box.b = {0, 2.6, 0};
    box.c = {0, 0, 2.8};
    Lattice lattice = makeLattice({-0.5, 0.0, 0.3}, {0.1, 0.1, 0.1}, {40, 26, 28});
    expectClose(lattice, system, Method::Cutoff, 1.2, &box, "cutoff rectangular");
}

TEST_P(PotentialMapTest, CutoffTriclinicBoxIsMinimumImage) {
    System system = randomSystem(300, 0.0, 3.0, 4);
    PeriodicBox box = triclinicBox();
    Lattice lattice = makeLattice({0.0, 0.0, 0.0}, {0.1, 0.1, 0.1}, {30, 29, 26});
    expectClose(lattice, system, Method::Cutoff, 1.0, &box, "cutoff triclinic");
}

TEST_P(PotentialMapTest, AtomsOnLatticePointsAreSkippedThere) {
    System system = randomSystem(300, 0.0, 2.0, 5);
    // Every other atom exactly on a lattice point (0.1 nm lattice).
    for (size_t a = 0; a < system.charges.size(); a += 2)
        for (int d = 0; d < 3; d++)
            system.positions[3 * a + d] = 0.1 * std::round(system.positions[3 * a + d] / 0.1);
    Lattice lattice = makeLattice({0, 0, 0}, {0.1, 0.1, 0.1}, {21, 21, 21});
    expectClose(lattice, system, Method::Direct, 0, nullptr, "direct, atoms on lattice points");
    expectClose(lattice, system, Method::Cutoff, 0.8, nullptr, "cutoff, atoms on lattice points");
}

TEST_P(PotentialMapTest, DenseClusterLosesNoAtom) {
    // 5000 atoms inside a 0.02 nm cube (hundreds of times any fixed bin capacity) plus a dilute background.
    System system = randomSystem(5000, 1.00, 1.02, 6);
    System background = randomSystem(300, 0.0, 2.5, 7);
    system.positions.insert(system.positions.end(), background.positions.begin(), background.positions.end());
    system.charges.insert(system.charges.end(), background.charges.begin(), background.charges.end());
    Lattice lattice = makeLattice({0.05, 0.05, 0.05}, {0.1, 0.1, 0.1}, {24, 24, 24});
    expectClose(lattice, system, Method::Cutoff, 1.0, nullptr, "cutoff, dense cluster");
}

TEST_P(PotentialMapTest, TimeAverageIsTheMeanOfFrames) {
    System first = randomSystem(200, 0.0, 2.0, 9), second = randomSystem(200, 0.0, 2.0, 10);
    second.charges = first.charges;
    Lattice lattice = makeLattice({0, 0, 0}, {0.1, 0.1, 0.1}, {20, 20, 20});
    PotentialMapEngine engine(lattice, first.charges, options(Method::Cutoff, 1.0));
    EXPECT_THROW({ std::vector<double> none(lattice.numPoints()); engine.getAverage(none.data()); }, std::runtime_error);
    engine.accumulate(first.positions.data(), nullptr);
    engine.accumulate(second.positions.data(), nullptr);
    EXPECT_EQ(engine.numFrames(), 2);
    std::vector<double> average(lattice.numPoints());
    engine.getAverage(average.data());
    std::vector<double> sensitivityA, sensitivityB;
    auto a = bruteForce(lattice, first, Method::Cutoff, 1.0, nullptr, &sensitivityA);
    auto b = bruteForce(lattice, second, Method::Cutoff, 1.0, nullptr, &sensitivityB);
    std::vector<float> averageFloat(average.begin(), average.end());
    std::vector<double> expected(a.size()), sensitivity(a.size());
    for (size_t i = 0; i < a.size(); i++) {
        expected[i] = 0.5 * (a[i] + b[i]);
        sensitivity[i] = 0.5 * (sensitivityA[i] + sensitivityB[i]);
    }
    expectWithinRounding(averageFloat, expected, sensitivity, "time average of two frames");
}

} // namespace

#endif // NARUMI_POTENTIAL_MAP_TESTS_H_
