/**
 * The CPU backend against the double-precision brute-force sum of MapTestSystems.h, analytic values, and the errors
 * that bad input must raise.  The CPU backend works in double, so agreement is to float32 output rounding.
 */

#include "MapTestSystems.h"

#include <limits>
#include <stdexcept>

using namespace NarumiPotentialMap;
using namespace NarumiPotentialMapTest;

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

TEST(PotentialMapCpu, DirectMatchesBruteForce) {
    System system = randomSystem(200, 0.0, 2.5, 1);
    Lattice lattice = makeLattice({-0.3, 0.1, -0.2}, {0.11, 0.13, 0.09}, {27, 21, 33});
    auto map = computeMap(lattice, system, cpuOptions(Method::Direct), nullptr);
    EXPECT_LT(maxRelativeError(map, bruteForce(lattice, system, Method::Direct, 0, nullptr)), FLOAT_OUTPUT);
}

TEST(PotentialMapCpu, CutoffNonPeriodicMatchesBruteForce) {
    System system = randomSystem(300, 0.0, 3.0, 2);
    Lattice lattice = makeLattice({-0.5, -0.4, 0.2}, {0.1, 0.12, 0.08}, {36, 30, 34});
    auto map = computeMap(lattice, system, cpuOptions(Method::Cutoff, 0.9), nullptr);
    EXPECT_LT(maxRelativeError(map, bruteForce(lattice, system, Method::Cutoff, 0.9, nullptr)), FLOAT_OUTPUT);
}

TEST(PotentialMapCpu, CutoffRectangularBoxIsMinimumImage) {
    System system = randomSystem(300, -1.0, 4.0, 3);  // some atoms outside the box: they are wrapped
    PeriodicBox box;
    box.a = {3.0, 0, 0};
    box.b = {0, 2.6, 0};
    box.c = {0, 0, 2.8};
    Lattice lattice = makeLattice({-0.5, 0.0, 0.3}, {0.1, 0.1, 0.1}, {40, 26, 28});
    auto map = computeMap(lattice, system, cpuOptions(Method::Cutoff, 1.2), &box);
    EXPECT_LT(maxRelativeError(map, bruteForce(lattice, system, Method::Cutoff, 1.2, &box)), FLOAT_OUTPUT);
}

TEST(PotentialMapCpu, CutoffTriclinicBoxIsMinimumImage) {
    System system = randomSystem(300, 0.0, 3.0, 4);
    PeriodicBox box = triclinicBox();
    Lattice lattice = makeLattice({0.0, 0.0, 0.0}, {0.1, 0.1, 0.1}, {30, 29, 26});
    auto map = computeMap(lattice, system, cpuOptions(Method::Cutoff, 1.0), &box);
    EXPECT_LT(maxRelativeError(map, bruteForce(lattice, system, Method::Cutoff, 1.0, &box)), FLOAT_OUTPUT);
}

TEST(PotentialMapCpu, SingleChargeIsAnalytic) {
    System system{{0.512, 0.487, 0.533}, {-0.75}};
    Lattice lattice = makeLattice({0, 0, 0}, {0.1, 0.1, 0.1}, {11, 11, 11});
    auto direct = computeMap(lattice, system, cpuOptions(Method::Direct), nullptr);
    auto cutoff = computeMap(lattice, system, cpuOptions(Method::Cutoff, 0.6), nullptr);
    for (int iz = 0; iz < 11; iz++)
        for (int iy = 0; iy < 11; iy++)
            for (int ix = 0; ix < 11; ix++) {
                double r = std::sqrt(std::pow(ix * 0.1 - 0.512, 2) + std::pow(iy * 0.1 - 0.487, 2) + std::pow(iz * 0.1 - 0.533, 2));
                double coulomb = ONE_4PI_EPS0 * -0.75 / r;
                double shifted = r < 0.6 ? coulomb * std::pow(1 - r * r / 0.36, 2) : 0.0;
                size_t i = (iz * 11 + iy) * 11 + ix;
                EXPECT_NEAR(direct[i], coulomb, 1e-6 * std::abs(coulomb));
                EXPECT_NEAR(cutoff[i], shifted, 1e-6 * std::abs(coulomb));
            }
}

TEST(PotentialMapCpu, AtomsOnLatticePointsAreSkippedThere) {
    System system = randomSystem(50, 0.0, 2.0, 5);
    // Put every other atom exactly on a lattice point (0.1 nm lattice).
    for (size_t a = 0; a < system.charges.size(); a += 2)
        for (int d = 0; d < 3; d++)
            system.positions[3 * a + d] = 0.1 * std::round(system.positions[3 * a + d] / 0.1);
    Lattice lattice = makeLattice({0, 0, 0}, {0.1, 0.1, 0.1}, {21, 21, 21});
    for (Method method : {Method::Direct, Method::Cutoff}) {
        auto map = computeMap(lattice, system, cpuOptions(method, 0.8), nullptr);
        for (float value : map)
            ASSERT_TRUE(std::isfinite(value));
        EXPECT_LT(maxRelativeError(map, bruteForce(lattice, system, method, 0.8, nullptr)), FLOAT_OUTPUT);
    }
}

TEST(PotentialMapCpu, DenseClusterLosesNoAtom) {
    // 2000 atoms inside a 0.02 nm cube (hundreds of times any fixed bin capacity) plus a dilute background.
    System system = randomSystem(2000, 1.00, 1.02, 6);
    System background = randomSystem(200, 0.0, 2.5, 7);
    system.positions.insert(system.positions.end(), background.positions.begin(), background.positions.end());
    system.charges.insert(system.charges.end(), background.charges.begin(), background.charges.end());
    Lattice lattice = makeLattice({0.05, 0.05, 0.05}, {0.1, 0.1, 0.1}, {24, 24, 24});
    auto map = computeMap(lattice, system, cpuOptions(Method::Cutoff, 1.0), nullptr);
    EXPECT_LT(maxRelativeError(map, bruteForce(lattice, system, Method::Cutoff, 1.0, nullptr)), FLOAT_OUTPUT);
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

TEST(PotentialMapCpu, TimeAverageIsTheMeanOfFrames) {
    System first = randomSystem(100, 0.0, 2.0, 9), second = randomSystem(100, 0.0, 2.0, 10);
    second.charges = first.charges;
    Lattice lattice = makeLattice({0, 0, 0}, {0.1, 0.1, 0.1}, {20, 20, 20});
    PotentialMapEngine engine(lattice, first.charges, cpuOptions(Method::Cutoff));
    EXPECT_THROW({ std::vector<double> none(lattice.numPoints()); engine.getAverage(none.data()); }, std::runtime_error);
    engine.accumulate(first.positions.data(), nullptr);
    engine.accumulate(second.positions.data(), nullptr);
    std::vector<double> average(lattice.numPoints());
    engine.getAverage(average.data());
    auto a = bruteForce(lattice, first, Method::Cutoff, 1.0, nullptr), b = bruteForce(lattice, second, Method::Cutoff, 1.0, nullptr);
    for (size_t i = 0; i < average.size(); i++)
        ASSERT_NEAR(average[i], 0.5 * (a[i] + b[i]), 1e-9 * (std::abs(a[i]) + std::abs(b[i])) + 1e-9);
    EXPECT_EQ(engine.numFrames(), 2);
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
