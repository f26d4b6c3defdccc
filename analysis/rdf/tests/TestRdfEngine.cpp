/**
 * The RDF engine on the CPU backend against independent oracles: a double-precision brute-force histogram with an
 * exhaustive minimum-image search, an ideal gas, a simple cubic crystal; normalisation, errors, edge cases.
 */

#include "RdfTestSystems.h"
#include <gtest/gtest.h>
#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <numeric>
#include <stdexcept>

using namespace OpenMMNarumi::Rdf;
using namespace OpenMMNarumi::Rdf::Test;

namespace {

const double PI = 3.14159265358979323846;

struct Case {
    const char* name;
    std::vector<double> box;
    double rMax;
};

std::vector<Case> boxCases() {
    return {{"none", {}, 1.7}, {"rectangular", {3.1, 0, 0, 0, 2.9, 0, 0, 0, 3.3}, 1.4}, {"triclinic", triclinic(3.4), 1.35}};
}

class CpuOracle : public ::testing::TestWithParam<int> {};

TEST_P(CpuOracle, CountsMatchTheDoubleBruteForceForEverySelectionKind) {
    Case c = boxCases()[GetParam()];
    System s = randomSystem(600, c.box, 11 + GetParam());
    std::vector<int> all = range(0, 600), even = range(0, 600, 2), firstHalf = range(0, 400), lastPart = range(250, 600);
    struct Selection { const char* name; std::vector<int> sel1, sel2; bool groups; };
    std::vector<Selection> selections = {
        {"identical", all, {}, false},
        {"disjoint", even, range(1, 600, 2), false},
        {"overlapping", firstHalf, lastPart, false},
        {"identical+exclusions", all, {}, true},
        {"overlapping+exclusions", firstHalf, lastPart, true},
    };
    for (const Selection& sel : selections) {
        Band band = bruteForce(s, sel.sel1, sel.sel2, 0.05, c.rMax, 97, sel.groups);
        ASSERT_GT(band.certain, 10000) << c.name << " " << sel.name;
        ASSERT_LT(band.ambiguous, band.certain / 100) << "the oracle must leave almost every pair unambiguous";
        const std::vector<int>* sel2 = sel.sel2.empty() ? nullptr : &sel.sel2;
        std::vector<uint64_t> allPairs = countsOf(s, sel.sel1, sel2, settings(c.rMax, 97, Backend::CPU, Algorithm::AllPairs, 0.05), sel.groups);
        std::vector<uint64_t> cellList = countsOf(s, sel.sel1, sel2, settings(c.rMax, 97, Backend::CPU, Algorithm::CellList, 0.05), sel.groups);
        EXPECT_EQ(binsOutsideBand(allPairs, band), 0) << c.name << " " << sel.name;
        EXPECT_EQ(allPairs, cellList) << c.name << " " << sel.name << ": both algorithms must count the same pairs";
    }
}

INSTANTIATE_TEST_SUITE_P(Boxes, CpuOracle, ::testing::Values(0, 1, 2),
                         [](const ::testing::TestParamInfo<int>& info) { return std::string(boxCases()[info.param].name); });

TEST(RdfEngine, CellListCoversEveryPairInALargeBox) {
    // 5 x 5 x 5 cells at rMax = 0.6: the cell list's stencil is a fifth of the box; rMax sits on a cell boundary.
    System s = randomSystem(3000, cube(3.0), 5);
    std::vector<int> all = range(0, 3000);
    std::vector<uint64_t> allPairs = countsOf(s, all, nullptr, settings(0.6, 60, Backend::CPU, Algorithm::AllPairs), false);
    std::vector<uint64_t> cellList = countsOf(s, all, nullptr, settings(0.6, 60, Backend::CPU, Algorithm::CellList), false);
    EXPECT_EQ(allPairs, cellList);
    Band band = bruteForce(s, all, {}, 0.0, 0.6, 60, false);
    EXPECT_EQ(binsOutsideBand(cellList, band), 0);
}

TEST(RdfEngine, IdealGasGivesOne) {
    // Uniform random points: g = 1 up to Poisson noise.  200 frames of 400 atoms in a 2 nm box, 20 bins to 1 nm.
    const int numAtoms = 400, frames = 200, bins = 20;
    std::vector<double> box = cube(2.0);
    RdfEngine engine(numAtoms, range(0, numAtoms), nullptr, settings(1.0, bins, Backend::CPU, Algorithm::Auto));
    std::mt19937 random(3);
    std::uniform_real_distribution<double> uniform(0.0, 2.0);
    std::vector<double> positions(3 * numAtoms);
    for (int f = 0; f < frames; f++) {
        for (double& x : positions)
            x = uniform(random);
        engine.addFrame(positions.data(), box.data());
    }
    std::vector<double> g = engine.rdf();
    std::vector<uint64_t> counts = engine.pairCounts();
    for (int k = 0; k < bins; k++) {
        double sigma = 1.0 / std::sqrt((double) counts[k] / 2);   // ordered counts are pairs twice
        EXPECT_NEAR(g[k], 1.0, 5 * sigma) << "bin " << k << " of " << counts[k] << " ordered pairs";
    }
    std::vector<double> n = engine.coordinationNumber();
    double density = (numAtoms - 1) / 8.0;
    EXPECT_NEAR(n[bins - 1], density * 4.0 / 3.0 * PI, 0.01 * density * 4.0 / 3.0 * PI);
}

TEST(RdfEngine, SimpleCubicCrystalHasItsShells) {
    // Lattice constant 0.317 nm, 10^3 sites: shells at a, a sqrt2, a sqrt3, 2a with 6, 12, 8, 6 neighbours, all mid-bin.
    const double a = 0.317;
    const int m = 10, numAtoms = m * m * m;
    std::vector<double> positions;
    for (int i = 0; i < m; i++)
        for (int j = 0; j < m; j++)
            for (int k = 0; k < m; k++) {
                positions.push_back(a * (i + 0.25));
                positions.push_back(a * (j + 0.25));
                positions.push_back(a * (k + 0.25));
            }
    std::vector<double> box = cube(a * m);
    for (Algorithm algorithm : {Algorithm::AllPairs, Algorithm::CellList}) {
        RdfEngine engine(numAtoms, range(0, numAtoms), nullptr, settings(0.7, 35, Backend::CPU, algorithm));
        engine.addFrame(positions.data(), box.data());
        std::vector<uint64_t> counts = engine.pairCounts();
        std::vector<double> n = engine.coordinationNumber();
        double shells[4] = {a, a * std::sqrt(2.0), a * std::sqrt(3.0), 2 * a};
        int neighbours[4] = {6, 12, 8, 6}, cumulative = 0;
        uint64_t total = 0;
        for (int s = 0; s < 4; s++) {
            int bin = (int) (shells[s] / 0.02);
            cumulative += neighbours[s];
            EXPECT_EQ(counts[bin], (uint64_t) numAtoms * neighbours[s]) << "shell " << s;
            EXPECT_DOUBLE_EQ(n[bin], cumulative) << "shell " << s;
            total += counts[bin];
        }
        EXPECT_EQ(std::accumulate(counts.begin(), counts.begin() + (int) (2 * a / 0.02) + 1, (uint64_t) 0), total)
            << "no pair may fall between the shells";
    }
}

TEST(RdfEngine, NormalisationCountsPairsOfPartlyOverlappingSelectionsAndExclusions) {
    System s = randomSystem(30, cube(3.0), 1);   // residues of 3 atoms
    std::vector<int> sel1 = range(0, 12), sel2 = range(6, 30);
    RdfEngine plain(30, sel1, &sel2, settings(1.0, 10, Backend::CPU, Algorithm::Auto));
    EXPECT_EQ(plain.numPairsPerFrame(), 12 * 24 - 6);
    RdfEngine excluded(30, sel1, &sel2, settings(1.0, 10, Backend::CPU, Algorithm::Auto), s.residue);
    // Residues 2 and 3 (atoms 6-11) lie in both selections: 3 x 3 - 3 ordered same-residue pairs each.
    EXPECT_EQ(excluded.numPairsPerFrame(), 12 * 24 - 6 - 2 * 6);
    RdfEngine same(30, sel1, nullptr, settings(1.0, 10, Backend::CPU, Algorithm::Auto), s.residue);
    EXPECT_EQ(same.numPairsPerFrame(), 12 * 11 - 4 * 6);
}

TEST(RdfEngine, GMatchesItsDefinitionForANonCubicBox) {
    System s = randomSystem(200, {2.0, 0, 0, 0, 2.5, 0, 0, 0, 3.0}, 4);
    std::vector<int> sel1 = range(0, 80), sel2 = range(50, 200);
    RdfEngine engine(200, sel1, &sel2, settings(0.95, 19, Backend::CPU, Algorithm::Auto));
    engine.addFrame(s.positions.data(), s.box.data());
    engine.addFrame(s.positions.data(), s.box.data());
    std::vector<uint64_t> counts = engine.pairCounts();
    std::vector<double> g = engine.rdf(), edges = engine.binEdges();
    double volume = 2.0 * 2.5 * 3.0;
    for (int k = 0; k < 19; k++) {
        double shell = 4.0 / 3.0 * PI * (std::pow(edges[k + 1], 3) - std::pow(edges[k], 3));
        double expected = counts[k] / ((80.0 * 150 - 30) * (2 / volume) * shell);
        EXPECT_NEAR(g[k], expected, 1e-12 * expected);
    }
}

TEST(RdfEngine, CountsAccumulateOverFramesAndReset) {
    System s = randomSystem(300, cube(2.5), 8);
    RdfEngine engine(300, range(0, 300), nullptr, settings(1.2, 50, Backend::CPU, Algorithm::Auto));
    engine.addFrame(s.positions.data(), s.box.data());
    std::vector<uint64_t> one = engine.pairCounts();
    for (int f = 0; f < 4; f++)
        engine.addFrame(s.positions.data(), s.box.data());
    std::vector<uint64_t> five = engine.pairCounts();
    for (size_t k = 0; k < one.size(); k++)
        EXPECT_EQ(five[k], 5 * one[k]);
    EXPECT_EQ(engine.numFrames(), 5);
    engine.reset();
    EXPECT_EQ(engine.numFrames(), 0);
    std::vector<uint64_t> cleared = engine.pairCounts();
    EXPECT_EQ(std::accumulate(cleared.begin(), cleared.end(), (uint64_t) 0), 0u);
}

TEST(RdfEngine, FloatAndDoubleInputAndThreadCountsAgree) {
    System s = randomSystem(500, triclinic(3.0), 9);
    std::vector<float> single(s.positions.begin(), s.positions.end());
    std::vector<double> rounded(single.begin(), single.end());
    std::vector<std::vector<uint64_t>> results;
    for (int threads : {1, 2, 3}) {
        RdfSettings config = settings(1.2, 40, Backend::CPU, Algorithm::AllPairs);
        config.cpuThreads = threads;
        RdfEngine fromFloat(500, range(0, 500), nullptr, config), fromDouble(500, range(0, 500), nullptr, config);
        fromFloat.addFrame(single.data(), s.box.data());
        fromDouble.addFrame(rounded.data(), s.box.data());
        EXPECT_EQ(fromFloat.pairCounts(), fromDouble.pairCounts());
        results.push_back(fromFloat.pairCounts());
    }
    EXPECT_EQ(results[0], results[1]);
    EXPECT_EQ(results[0], results[2]);
}

TEST(RdfEngine, SelectionsOfOneAndZeroAtoms) {
    System s = randomSystem(50, cube(2.0), 2);
    std::vector<int> one = {7}, none = {}, others = range(8, 50);
    RdfEngine single(50, one, nullptr, settings(0.9, 30, Backend::CPU, Algorithm::Auto));
    single.addFrame(s.positions.data(), s.box.data());
    std::vector<uint64_t> counts = single.pairCounts();
    EXPECT_EQ(std::accumulate(counts.begin(), counts.end(), (uint64_t) 0), 0u);
    EXPECT_EQ(single.numPairsPerFrame(), 0);
    EXPECT_THROW(single.rdf(), std::invalid_argument);
    EXPECT_EQ(single.coordinationNumber().back(), 0.0);

    RdfEngine oneAgainstMany(50, one, &others, settings(0.9, 30, Backend::CPU, Algorithm::Auto));
    oneAgainstMany.addFrame(s.positions.data(), s.box.data());
    EXPECT_EQ(binsOutsideBand(oneAgainstMany.pairCounts(), bruteForce(s, one, others, 0.0, 0.9, 30, false)), 0);
    EXPECT_NO_THROW(oneAgainstMany.rdf());

    RdfEngine empty(50, none, &others, settings(0.9, 30, Backend::CPU, Algorithm::Auto));
    empty.addFrame(s.positions.data(), s.box.data());
    counts = empty.pairCounts();
    EXPECT_EQ(std::accumulate(counts.begin(), counts.end(), (uint64_t) 0), 0u);
    EXPECT_THROW(empty.rdf(), std::invalid_argument);
    EXPECT_THROW(empty.coordinationNumber(), std::invalid_argument);
}

TEST(RdfEngine, FramesWithoutABoxNeedAReferenceVolume) {
    System s = randomSystem(100, {}, 3);
    RdfEngine engine(100, range(0, 100), nullptr, settings(2.0, 20, Backend::CPU, Algorithm::Auto));
    engine.addFrame(s.positions.data(), nullptr);
    EXPECT_EQ(binsOutsideBand(engine.pairCounts(), bruteForce(s, range(0, 100), {}, 0.0, 2.0, 20, false)), 0);
    EXPECT_THROW(engine.rdf(), std::invalid_argument);
    engine.setReferenceVolume(27.0);
    EXPECT_NO_THROW(engine.rdf());
}

std::string messageOf(const std::function<void()>& call) {
    try {
        call();
    } catch (const std::invalid_argument& error) {
        return error.what();
    }
    return "(no std::invalid_argument thrown)";
}

TEST(RdfEngine, BadInputGivesAClearError) {
    System s = randomSystem(20, cube(2.0), 6);
    auto config = settings(0.9, 10, Backend::CPU, Algorithm::Auto);
    std::vector<int> all = range(0, 20);
    RdfEngine engine(20, all, nullptr, config);

    std::vector<double> withNan = s.positions;
    withNan[3 * 13 + 1] = std::numeric_limits<double>::quiet_NaN();
    EXPECT_NE(messageOf([&] { engine.addFrame(withNan.data(), s.box.data()); }).find("atom 13"), std::string::npos);
    withNan[3 * 13 + 1] = std::numeric_limits<double>::infinity();
    EXPECT_NE(messageOf([&] { engine.addFrame(withNan.data(), s.box.data()); }).find("not finite"), std::string::npos);
    EXPECT_EQ(engine.numFrames(), 0) << "a rejected frame must not count";

    std::vector<double> small = cube(1.7);
    EXPECT_NE(messageOf([&] { engine.addFrame(s.positions.data(), small.data()); }).find("more than half the box"), std::string::npos);
    std::vector<double> skewedTriclinic = {3.0, 0, 0, 0.5, 1.7, 0, 0.2, 0.3, 3.0};   // by / 2 = 0.85 < rMax
    EXPECT_THROW(engine.addFrame(s.positions.data(), skewedTriclinic.data()), std::invalid_argument);
    std::vector<double> notReduced = {2.0, 0.3, 0, 0, 2.0, 0, 0, 0, 2.0};
    EXPECT_NE(messageOf([&] { engine.addFrame(s.positions.data(), notReduced.data()); }).find("lower-triangular"), std::string::npos);
    std::vector<double> negative = {-2.0, 0, 0, 0, 2.0, 0, 0, 0, 2.0};
    EXPECT_THROW(engine.addFrame(s.positions.data(), negative.data()), std::invalid_argument);

    std::vector<int> outOfRange = {0, 20}, twice = {3, 4, 3};
    EXPECT_NE(messageOf([&] { RdfEngine bad(20, outOfRange, nullptr, config); }).find("= 20"), std::string::npos);
    EXPECT_NE(messageOf([&] { RdfEngine bad(20, twice, nullptr, config); }).find("atom 3 twice"), std::string::npos);
    EXPECT_THROW(RdfEngine(20, all, nullptr, settings(0.9, 0, Backend::CPU, Algorithm::Auto)), std::invalid_argument);
    EXPECT_THROW(RdfEngine(20, all, nullptr, settings(0.5, 10, Backend::CPU, Algorithm::Auto, 0.5)), std::invalid_argument);
    EXPECT_THROW(RdfEngine(20, all, nullptr, settings(NAN, 10, Backend::CPU, Algorithm::Auto)), std::invalid_argument);
    EXPECT_THROW(RdfEngine(20, all, nullptr, config, std::vector<int>(19, 0)), std::invalid_argument);
    auto negativeSplit = config;
    negativeSplit.splitFramePairs = -5;
    EXPECT_NE(messageOf([&] { RdfEngine bad(20, all, nullptr, negativeSplit); }).find("splitFramePairs = -5"), std::string::npos);
}

/**
 * A frame large enough for the finite check to run in chunks on several threads (HOST_CHUNK_ATOMS): the error names
 * the first bad atom of the selection, whichever thread meets a bad one first, and the frame is not counted.
 */
TEST(RdfEngine, NonFiniteAtomOfALargeFrameIsTheFirstInTheSelection) {
    const int numAtoms = 5 * (int) OpenMMNarumi::Rdf::HOST_CHUNK_ATOMS;
    System s = randomSystem(numAtoms, cube(12.0), 7);
    std::vector<int> reversed = range(0, numAtoms);
    std::reverse(reversed.begin(), reversed.end());
    auto config = settings(0.9, 10, Backend::CPU, Algorithm::Auto);
    config.cpuThreads = 4;
    RdfEngine engine(numAtoms, reversed, nullptr, config);
    std::vector<double> positions = s.positions;
    for (int atom : {150000, 9000, 70001})
        positions[3 * atom + 2] = std::numeric_limits<double>::infinity();
    // In selection order (reversed) the first bad atom is 150000, in the first chunk; 9000 is in the last.
    std::string error = messageOf([&] { engine.addFrame(positions.data(), s.box.data()); });
    EXPECT_NE(error.find("atom 150000 is not finite (z = inf)"), std::string::npos) << error;
    EXPECT_EQ(engine.numFrames(), 0);
    positions[3 * 150000 + 2] = s.positions[3 * 150000 + 2];
    positions[3 * 70001 + 2] = s.positions[3 * 70001 + 2];
    error = messageOf([&] { engine.addFrame(positions.data(), s.box.data()); });
    EXPECT_NE(error.find("atom 9000 is not finite"), std::string::npos) << error;
}

TEST(RdfEngine, TheLimitIsHalfTheShortestBrickSide) {
    // rMax exactly min(ax, by, cz)/2 is allowed and exact: the oracle searches all images.
    std::vector<double> box = triclinic(3.0);
    double limit = RdfEngine::maximumRMax(box.data());
    EXPECT_DOUBLE_EQ(limit, 0.5 * 0.81 * 3.0);
    System s = randomSystem(500, box, 21);
    std::vector<int> all = range(0, 500);
    std::vector<uint64_t> counts = countsOf(s, all, nullptr, settings(limit, 45, Backend::CPU, Algorithm::AllPairs), false);
    EXPECT_EQ(binsOutsideBand(counts, bruteForce(s, all, {}, 0.0, limit, 45, false)), 0);
}

TEST(RdfEngine, AutomaticAlgorithmChoice) {
    CellGrid small;
    small.n[0] = small.n[1] = small.n[2] = 3;
    CellGrid large;
    large.n[0] = large.n[1] = large.n[2] = 8;
    EXPECT_EQ(chooseAlgorithm(small, int64_t(1) << 30), Algorithm::AllPairs);
    EXPECT_EQ(chooseAlgorithm(large, int64_t(1) << 30), Algorithm::CellList);
    EXPECT_EQ(chooseAlgorithm(large, 1000), Algorithm::AllPairs);
}

} // namespace
