/**
 * The CPU backend: the shared tests of every backend (PotentialMapTests.h), then what only it has: analytic values,
 * a result independent of the thread count, and the errors that bad input must raise (checked before any backend
 * runs).  It works in double, so its error is the float32 rounding of the output map.
 */

#include "MsmNumerics.h"
#include "PotentialMapTests.h"

#include <limits>
#include <stdexcept>

using namespace OpenMMNarumi::PotentialMap;
using namespace OpenMMNarumi::PotentialMap::Test;

namespace {

Options cpuOptions(Method method, double cutoff = 1.0) {
    Options options;
    options.method = method;
    options.cutoff = cutoff;
    options.backend = Backend::Cpu;
    return options;
}

const double FLOAT_OUTPUT = 2e-7;  // float32 rounding of the output map

} // namespace

// The accumulation setting is the CUDA kernels'; the CPU backend sums in double whatever it says.
INSTANTIATE_TEST_SUITE_P(CPU, PotentialMapTest,
                         ::testing::Values(BackendUnderTest{Backend::Cpu, Accumulation::Compensated, 2e-7, "CPU"}), backendLabel);

TEST(PotentialMapCpu, SingleChargeIsAnalytic) {
    System system{{0.512, 0.487, 0.533}, {-0.75}};
    Lattice lattice = makeLattice({0, 0, 0}, {0.1, 0.1, 0.1}, {11, 11, 11});
    auto direct = computeMap(lattice, system, cpuOptions(Method::Direct), nullptr);
    auto cutoff = computeMap(lattice, system, cpuOptions(Method::Cutoff, 0.6), nullptr);
    for (int iz = 0; iz < 11; iz++)
        for (int iy = 0; iy < 11; iy++)
            for (int ix = 0; ix < 11; ix++) {
                double r = std::sqrt(std::pow(ix * 0.1 - 0.512, 2) + std::pow(iy * 0.1 - 0.487, 2) + std::pow(iz * 0.1 - 0.533, 2));
                double coulomb = COULOMB_CONSTANT * -0.75 / r;
                double shifted = r < 0.6 ? coulomb * std::pow(1 - r * r / 0.36, 2) : 0.0;
                size_t i = (iz * 11 + iy) * 11 + ix;
                EXPECT_NEAR(direct[i], coulomb, 1e-6 * std::abs(coulomb));
                EXPECT_NEAR(cutoff[i], shifted, 1e-6 * std::abs(coulomb));
            }
}

TEST(PotentialMapCpu, ResultDoesNotDependOnThreadCount) {
    System system = randomSystem(500, 0.0, 3.0, 8);
    Lattice lattice = makeLattice({0, 0, 0}, {0.07, 0.07, 0.07}, {43, 43, 43});
    for (Method method : {Method::Direct, Method::Cutoff}) {
        Options one = cpuOptions(method), two = cpuOptions(method);
        one.cpuThreads = 1;
        two.cpuThreads = 2;
        EXPECT_EQ(computeMap(lattice, system, one, nullptr), computeMap(lattice, system, two, nullptr));
    }
}

TEST(PotentialMapCpu, BadInputIsRejectedWithTheValue) {
    System system = randomSystem(10, 0.0, 1.0, 11);
    Options options = cpuOptions(Method::Cutoff);
    auto expectInvalid = [&](const Lattice& lattice, const std::string& fragment) {
        try {
            PotentialMapEngine engine(lattice, system.charges, options);
            FAIL() << "no exception for " << fragment;
        }
        catch (const std::invalid_argument& error) {
            EXPECT_NE(std::string(error.what()).find(fragment), std::string::npos) << error.what();
        }
    };
    expectInvalid(makeLattice({0, 0, 0}, {0.0, 0.1, 0.1}, {5, 5, 5}), "got 0 nm");
    expectInvalid(makeLattice({0, 0, 0}, {0.1, -0.2, 0.1}, {5, 5, 5}), "got -0.2");
    expectInvalid(makeLattice({0, 0, 0}, {0.1, 0.1, std::nan("")}, {5, 5, 5}), "nan");
    expectInvalid(makeLattice({0, 0, 0}, {0.1, 0.1, 0.1}, {5, 0, 5}), "empty");
    Lattice lattice = makeLattice({0, 0, 0}, {0.1, 0.1, 0.1}, {5, 5, 5});
    PotentialMapEngine engine(lattice, system.charges, options);
    std::vector<float> map(lattice.numPoints());
    System bad = system;
    bad.positions[3 * 4 + 1] = std::numeric_limits<double>::quiet_NaN();
    EXPECT_THROW(engine.compute(bad.positions.data(), nullptr, map.data()), std::invalid_argument);
    try {
        engine.compute(bad.positions.data(), nullptr, map.data());
    }
    catch (const std::invalid_argument& error) {
        EXPECT_NE(std::string(error.what()).find("atom 4"), std::string::npos) << error.what();
    }
    PeriodicBox small;
    small.a = {1.5, 0, 0};
    small.b = {0, 1.5, 0};
    small.c = {0, 0, 1.5};
    EXPECT_THROW(engine.compute(system.positions.data(), &small, map.data()), std::invalid_argument);  // rc 1.0 > 0.75
    PeriodicBox skewed = small;
    skewed.a = {3, 0.1, 0};
    EXPECT_THROW(engine.compute(system.positions.data(), &skewed, map.data()), std::invalid_argument);
    PotentialMapEngine direct(lattice, system.charges, cpuOptions(Method::Direct));
    PeriodicBox big = small;
    big.a[0] = big.b[1] = big.c[2] = 5;
    EXPECT_THROW(direct.compute(system.positions.data(), &big, map.data()), std::invalid_argument);
    Options negativeCutoff = options;
    negativeCutoff.cutoff = -1;
    EXPECT_THROW(PotentialMapEngine(lattice, system.charges, negativeCutoff), std::invalid_argument);
    std::vector<double> nanCharges = system.charges;
    nanCharges[3] = NAN;
    EXPECT_THROW(PotentialMapEngine(lattice, nanCharges, options), std::invalid_argument);
}

TEST(PotentialMapCpu, BoundingBoxLatticeCoversAtomsAndMargin) {
    std::vector<Vec3> points = {{0.1, 0.2, 0.3}, {1.0, -0.5, 0.7}};
    Lattice lattice = Lattice::boundingBox(points, 0.4, 0.05);
    for (int d = 0; d < 3; d++) {
        double lo = std::min(points[0][d], points[1][d]) - 0.4, hi = std::max(points[0][d], points[1][d]) + 0.4;
        EXPECT_DOUBLE_EQ(lattice.origin[d], lo);
        EXPECT_GE(lattice.origin[d] + (lattice.dims[d] - 1) * 0.05, hi - 1e-12);
        EXPECT_LT(lattice.origin[d] + (lattice.dims[d] - 2) * 0.05, hi);
    }
    EXPECT_THROW(Lattice::boundingBox(points, 0.4, 0.0), std::invalid_argument);
}


/**
 * Multilevel summation against the double-precision direct sum (MapTestSystems.h's brute force): relative RMS error
 * within the accuracy asked for, cubic at 1e-3 (its finest) and quintic at 1e-3 and 1e-4, on a lattice larger than
 * the MSM's top level (several levels), with a net charge; far better than the cutoff method's at the same cutoff.
 * The quintic scheme's finest accuracy on a 1.6 nm cloud; the CUDA driver runs it on the large one.
 */
TEST(PotentialMapMsm, MatchesTheDirectSumWithinTheAccuracyAskedFor) {
    System system = dipoleCloud(1500, 6.0, 31);
    Lattice lattice = makeLattice({-0.5, -0.4, -0.3}, {0.23, 0.21, 0.25}, {31, 32, 29});
    std::vector<double> reference = bruteForce(lattice, system, Method::Direct, 0, nullptr);
    Options onCpu;
    onCpu.backend = Backend::Cpu;
    for (int order : {3, 5})
        for (double accuracy : order == 3 ? std::vector<double>{1e-3} : std::vector<double>{1e-3, 1e-4})
            expectMsmWithinAccuracy(lattice, system, reference, onCpu, order, accuracy, "6 nm cloud");
    Options cutoff;
    cutoff.method = Method::Cutoff;
    cutoff.cutoff = 1.2;
    cutoff.backend = Backend::Cpu;
    EXPECT_GT(relativeRms(computeMap(lattice, system, cutoff, nullptr), reference), 1e-2) << "the cutoff method drops the long range";
    System small = dipoleCloud(300, 1.6, 32);
    Lattice smallLattice = makeLattice({-0.1, -0.05, 0.0}, {0.12, 0.13, 0.11}, {16, 15, 17});
    std::vector<double> smallReference = bruteForce(smallLattice, small, Method::Direct, 0, nullptr);
    for (double accuracy : {1e-4, Msm::finestAccuracy(Msm::MSM_QUINTIC)})
        expectMsmWithinAccuracy(smallLattice, small, smallReference, onCpu, Msm::MSM_QUINTIC, accuracy, "1.6 nm cloud");
}

TEST(PotentialMapMsm, BadSettingsAreNamed) {
    System system = randomSystem(10, 0.0, 1.0, 3);
    Lattice lattice = makeLattice({0, 0, 0}, {0.1, 0.1, 0.1}, {4, 4, 4});
    auto expectError = [&](Options options, const std::string& text) {
        options.method = Method::Msm;
        try {
            PotentialMapEngine engine(lattice, system.charges, options);
            FAIL() << "accepted; expected an error naming " << text;
        }
        catch (const std::invalid_argument& error) {
            EXPECT_NE(std::string(error.what()).find(text), std::string::npos) << error.what();
        }
    };
    Options options;
    options.msmSpacing = -0.1;
    expectError(options, "-0.1");
    options = Options();
    options.msmAccuracy = 0;
    expectError(options, "msmAccuracy");
    options.msmOrder = Msm::MSM_CUBIC;
    options.msmAccuracy = 1e-4;   // finer than the cubic scheme's finest, 1e-3
    expectError(options, "0.001");
    options = Options();
    options.msmSpacing = 0.5;
    options.msmCutoff = 0.6;
    expectError(options, "twice");
    options = Options();
    options.msmOrder = 4;
    expectError(options, "msmOrder");
    // Lattices beyond this machine's memory: an error naming their size, before any work.
    Options huge;
    huge.method = Method::Msm;
    huge.backend = Backend::Cpu;
    huge.msmSpacing = 0.001;
    huge.msmCutoff = 1.0;
    std::vector<double> farApart = {0, 0, 0, 3000, 3000, 3000};
    PotentialMapEngine hugeEngine(lattice, {1.0, -1.0}, huge);
    std::vector<float> hugeMap(lattice.numPoints());
    try {
        hugeEngine.compute(farApart.data(), nullptr, hugeMap.data());
        FAIL() << "a lattice of 3e6 points per side was accepted";
    }
    catch (const std::invalid_argument& error) {
        EXPECT_NE(std::string(error.what()).find("GB"), std::string::npos) << error.what();
    }
    Options open;
    open.method = Method::Msm;
    PotentialMapEngine engine(lattice, system.charges, open);
    PeriodicBox box;   // too small for the periodic preset's short-range cutoff of 1.2 nm
    box.a = {2, 0, 0};
    box.b = {0, 2, 0};
    box.c = {0, 0, 2};
    std::vector<float> map(lattice.numPoints());
    try {
        engine.compute(system.positions.data(), &box, map.data());
        FAIL() << "a 2 nm box was accepted for a 1.2 nm short-range cutoff";
    }
    catch (const std::invalid_argument& error) {
        EXPECT_NE(std::string(error.what()).find("1.2"), std::string::npos) << error.what();
    }
}

/**
 * The CPU backend keeps a periodic cell's plan between frames: frames in one box, then in another, each give the map
 * that a new backend computes for that frame alone (a stale plan would give the first box's kernels).
 */
TEST(PotentialMapMsm, FramesInOneBoxAndThenAnotherGiveTheMapsOfNewBackends) {
    Options options;
    options.method = Method::Msm;
    options.backend = Backend::Cpu;
    options.cpuThreads = 2;
    Lattice lattice = makeLattice({0.1, 0.2, 0.1}, {0.2, 0.2, 0.2}, {12, 11, 13});
    PeriodicBox first{{3.0, 0, 0}, {0, 3.1, 0}, {0, 0, 2.9}}, second{{3.2, 0, 0}, {0.9, 3.0, 0}, {-1.0, 1.1, 2.8}};
    System system = randomSystem(600, 0.0, 2.8, 41);
    std::unique_ptr<MapBackend> kept = createCpuBackend(lattice, system.charges, options);
    for (const PeriodicBox* box : {&first, &first, &second}) {
        System frame = randomSystem(600, 0.0, 2.8, box == &second ? 43 : 42);
        std::vector<float> fromKept(lattice.numPoints()), fromNew(lattice.numPoints());
        kept->compute(frame.positions.data(), box, fromKept.data());
        createCpuBackend(lattice, system.charges, options)->compute(frame.positions.data(), box, fromNew.data());
        EXPECT_EQ(fromKept, fromNew) << (box == &second ? "the second box" : "the first box");
    }
}
