/**
 * The CUDA backend against the double-precision brute force (MapTestSystems.h) for both methods and all three
 * accumulations, and against the CPU backend on a water-like neutral system.  Every test skips (never passes) where
 * no CUDA device is present.
 */

#include "CudaBackend.h"
#include "MapTestSystems.h"

#include <cstdio>
#include <stdexcept>
#include <string>

using namespace NarumiPotentialMap;
using namespace NarumiPotentialMapTest;

namespace {

#define SKIP_WITHOUT_GPU()                                        \
    if (!PotentialMapEngine::cudaAvailable())                     \
        GTEST_SKIP() << "no CUDA device: CUDA backend not tested"

const Accumulation ACCUMULATIONS[] = {Accumulation::Compensated, Accumulation::Narumi, Accumulation::Float};
const char* NAMES[] = {"compensated", "narumi", "float"};

Options cudaOptions(Method method, double cutoff, Accumulation accumulation) {
    Options options;
    options.method = method;
    options.cutoff = cutoff;
    options.accumulation = accumulation;
    options.backend = Backend::Cuda;
    return options;
}

/**
 * Single-precision kernels: the error at a point is bounded by a few float epsilons (6e-8) times the oracle's
 * sensitivity (MapTestSystems.h: the shift of V when every coordinate and term moves by one relative unit).  The
 * paper's max relative error is printed too: it grows without bound where V nearly cancels, so it is no test.
 * Compensated and Narumi sums add little to the terms' rounding; plain float sums add up to ~sqrt(n) eps.
 */
double allowedScaledError(Accumulation accumulation) {
    return accumulation == Accumulation::Float ? 2e-5 : 2e-6;
}

void expectWithinRounding(const std::vector<float>& map, const std::vector<double>& reference, const std::vector<double>& sensitivity,
                          Accumulation accumulation, const std::string& what) {
    const double scaled = maxScaledError(map, reference, sensitivity);
    std::printf("[ measure  ] %s: max error / sensitivity %.3g, max relative error %.3g\n", what.c_str(), scaled,
                maxRelativeError(map, reference));
    EXPECT_LT(scaled, allowedScaledError(accumulation)) << what;
}

void expectClose(const Lattice& lattice, const System& system, Method method, double cutoff, const PeriodicBox* box, const char* what) {
    std::vector<double> sensitivity;
    auto reference = bruteForce(lattice, system, method, cutoff, box, &sensitivity);
    for (int i = 0; i < 3; i++) {
        auto map = computeMap(lattice, system, cudaOptions(method, cutoff, ACCUMULATIONS[i]), box);
        expectWithinRounding(map, reference, sensitivity, ACCUMULATIONS[i], std::string(what) + ", " + NAMES[i]);
    }
}

} // namespace

TEST(PotentialMapCuda, DirectMatchesBruteForce) {
    SKIP_WITHOUT_GPU();
    System system = randomSystem(700, 0.0, 2.5, 1);  // > 5 staging tiles of 128 atoms, a partial last one
    Lattice lattice = makeLattice({-0.3, 0.1, -0.2}, {0.11, 0.13, 0.09}, {37, 35, 5});  // partial tiles on every axis
    expectClose(lattice, system, Method::Direct, 0, nullptr, "direct");
}

TEST(PotentialMapCuda, DirectSoftwareRsqrtVariantsAgree) {
    SKIP_WITHOUT_GPU();
    System system = randomSystem(400, 0.0, 2.5, 12);
    Lattice lattice = makeLattice({0, 0, 0}, {0.1, 0.1, 0.1}, {33, 33, 4});
    std::vector<double> sensitivity;
    auto reference = bruteForce(lattice, system, Method::Direct, 0, nullptr, &sensitivity);
    for (int soft : {0, 2, 4, 6}) {
        Options options = cudaOptions(Method::Direct, 0, Accumulation::Compensated);
        options.directSoftwareRsqrt = soft;
        expectWithinRounding(computeMap(lattice, system, options, nullptr), reference, sensitivity, Accumulation::Compensated,
                             "direct, " + std::to_string(soft) + " of 16 points with FMA-pipe rsqrt");
    }
}

TEST(PotentialMapCuda, CutoffNonPeriodicMatchesBruteForce) {
    SKIP_WITHOUT_GPU();
    System system = randomSystem(600, 0.0, 3.0, 2);
    Lattice lattice = makeLattice({-0.5, -0.4, 0.2}, {0.1, 0.12, 0.08}, {36, 30, 34});
    expectClose(lattice, system, Method::Cutoff, 0.9, nullptr, "cutoff non-periodic");
}

TEST(PotentialMapCuda, CutoffRectangularBoxIsMinimumImage) {
    SKIP_WITHOUT_GPU();
    System system = randomSystem(300, -1.0, 4.0, 3);
    PeriodicBox box;
    box.a = {3.0, 0, 0};
    box.b = {0, 2.6, 0};
    box.c = {0, 0, 2.8};
    Lattice lattice = makeLattice({-0.5, 0.0, 0.3}, {0.1, 0.1, 0.1}, {40, 26, 28});
    expectClose(lattice, system, Method::Cutoff, 1.2, &box, "cutoff rectangular");
}

TEST(PotentialMapCuda, CutoffTriclinicBoxIsMinimumImage) {
    SKIP_WITHOUT_GPU();
    System system = randomSystem(300, 0.0, 3.0, 4);
    PeriodicBox box = triclinicBox();
    Lattice lattice = makeLattice({0.0, 0.0, 0.0}, {0.1, 0.1, 0.1}, {30, 29, 26});
    expectClose(lattice, system, Method::Cutoff, 1.0, &box, "cutoff triclinic");
}

TEST(PotentialMapCuda, AtomsOnLatticePointsAreSkippedThere) {
    SKIP_WITHOUT_GPU();
    System system = randomSystem(300, 0.0, 2.0, 5);
    for (size_t a = 0; a < system.charges.size(); a += 2)
        for (int d = 0; d < 3; d++)
            system.positions[3 * a + d] = 0.1 * std::round(system.positions[3 * a + d] / 0.1);
    Lattice lattice = makeLattice({0, 0, 0}, {0.1, 0.1, 0.1}, {21, 21, 21});
    expectClose(lattice, system, Method::Direct, 0, nullptr, "direct, atoms on lattice points");
    expectClose(lattice, system, Method::Cutoff, 0.8, nullptr, "cutoff, atoms on lattice points");
}

TEST(PotentialMapCuda, DenseClusterLosesNoAtom) {
    SKIP_WITHOUT_GPU();
    System system = randomSystem(5000, 1.00, 1.02, 6);
    System background = randomSystem(300, 0.0, 2.5, 7);
    system.positions.insert(system.positions.end(), background.positions.begin(), background.positions.end());
    system.charges.insert(system.charges.end(), background.charges.begin(), background.charges.end());
    Lattice lattice = makeLattice({0.05, 0.05, 0.05}, {0.1, 0.1, 0.1}, {24, 24, 24});
    expectClose(lattice, system, Method::Cutoff, 1.0, nullptr, "cutoff, dense cluster");
}

TEST(PotentialMapCuda, TimeAverageStaysOnTheDevice) {
    SKIP_WITHOUT_GPU();
    System first = randomSystem(200, 0.0, 2.0, 9), second = randomSystem(200, 0.0, 2.0, 10);
    second.charges = first.charges;
    Lattice lattice = makeLattice({0, 0, 0}, {0.1, 0.1, 0.1}, {20, 20, 20});
    PotentialMapEngine engine(lattice, first.charges, cudaOptions(Method::Cutoff, 1.0, Accumulation::Compensated));
    EXPECT_EQ(engine.backendName(), "cuda");
    engine.accumulate(first.positions.data(), nullptr);
    engine.accumulate(second.positions.data(), nullptr);
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
    expectWithinRounding(averageFloat, expected, sensitivity, Accumulation::Compensated, "time average of two frames");
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
