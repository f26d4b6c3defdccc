/**
 * The CUDA backend against the CPU backend (bitwise the same counts: both evaluate RdfPairMath.h in IEEE single
 * precision) and against the double-precision oracle, on every path: all pairs and cell list, no box, rectangular
 * and triclinic boxes, identical, disjoint and overlapping selections, exclusion groups, several shared-memory bin
 * passes, and a frame with more than 2^32 pairs in one bin.  Every test skips (never passes) without a CUDA device.
 */

#include "NarumiTestDevices.h"
#include "RdfTestSystems.h"
#include <gtest/gtest.h>
#include <algorithm>
#include <cstdio>
#include <limits>
#include <numeric>
#include <stdexcept>

using namespace OpenMMNarumi::Rdf;
using namespace OpenMMNarumi::Rdf::Test;

namespace {

class RdfCuda : public ::testing::Test {
protected:
    void SetUp() override {
        if (!RdfEngine::cudaAvailable())
            GTEST_SKIP() << "no CUDA device";
    }
};

struct BoxCase {
    const char* name;
    std::vector<double> box;
    double rMax;
};

uint64_t total(const std::vector<uint64_t>& counts) {
    return std::accumulate(counts.begin(), counts.end(), (uint64_t) 0);
}

TEST_F(RdfCuda, CountsEqualTheCpuBackendOnEveryPath) {
    std::vector<BoxCase> boxes = {{"none", {}, 1.5}, {"rectangular", {4.1, 0, 0, 0, 3.9, 0, 0, 0, 4.4}, 1.3},
                                  {"triclinic", triclinic(4.6), 1.25}};
    int numAtoms = 2500;   // several all-pairs tiles, ragged last tile
    std::vector<int> all = range(0, numAtoms), even = range(0, numAtoms, 2), odd = range(1, numAtoms, 2);
    std::vector<int> first = range(0, 1700), last = range(900, numAtoms);
    struct Selection { const char* name; std::vector<int> sel1, sel2; bool groups; };
    std::vector<Selection> selections = {{"identical", all, {}, false}, {"disjoint", even, odd, false},
                                         {"overlapping", first, last, false}, {"identical+exclusions", all, {}, true},
                                         {"overlapping+exclusions", first, last, true}};
    for (size_t b = 0; b < boxes.size(); b++) {
        System s = randomSystem(numAtoms, boxes[b].box, 100 + b);
        for (const Selection& sel : selections) {
            const std::vector<int>* sel2 = sel.sel2.empty() ? nullptr : &sel.sel2;
            std::vector<uint64_t> cpu = countsOf(s, sel.sel1, sel2, settings(boxes[b].rMax, 173, Backend::CPU, Algorithm::AllPairs, 0.02), sel.groups);
            ASSERT_GT(total(cpu), 100000u);
            for (Algorithm algorithm : {Algorithm::AllPairs, Algorithm::CellList}) {
                std::string used;
                std::vector<uint64_t> gpu = countsOf(s, sel.sel1, sel2, settings(boxes[b].rMax, 173, Backend::CUDA, algorithm, 0.02), sel.groups, &used);
                EXPECT_EQ(gpu, cpu) << boxes[b].name << " " << sel.name << " " << used;
            }
        }
        Band band = bruteForce(s, all, {}, 0.02, boxes[b].rMax, 173, false);
        EXPECT_EQ(binsOutsideBand(countsOf(s, all, nullptr, settings(boxes[b].rMax, 173, Backend::CUDA, Algorithm::CellList, 0.02), false), band), 0)
            << boxes[b].name;
    }
}

TEST_F(RdfCuda, PipelinedFramesEachCountTheirOwnPositions) {
    // Frames are queued, not waited for: the caller overwrites its one buffer right after each addFrame, and the
    // frames alternate float and double input and both algorithms, so a slot reused too early changes the counts.
    const int numAtoms = 6000, numFrames = 9;
    std::vector<double> box = cube(5.0);
    std::vector<int> all = range(0, numAtoms);
    RdfEngine gpu(numAtoms, all, nullptr, settings(1.2, 120, Backend::CUDA, Algorithm::AllPairs));
    RdfEngine gpuCells(numAtoms, all, nullptr, settings(1.2, 120, Backend::CUDA, Algorithm::CellList));
    RdfEngine cpu(numAtoms, all, nullptr, settings(1.2, 120, Backend::CPU, Algorithm::AllPairs));
    std::vector<double> buffer(3 * numAtoms);
    std::vector<float> bufferFloat(3 * numAtoms);
    for (int f = 0; f < numFrames; f++) {
        System s = randomSystem(numAtoms, box, 500 + f);
        std::copy(s.positions.begin(), s.positions.end(), bufferFloat.begin());
        std::copy(bufferFloat.begin(), bufferFloat.end(), buffer.begin());   // the float-rounded frame, in double
        cpu.addFrame(buffer.data(), box.data());
        if (f % 2 == 0) {
            gpu.addFrame(buffer.data(), box.data());
            gpuCells.addFrame(bufferFloat.data(), box.data());
        } else {
            gpu.addFrame(bufferFloat.data(), box.data());
            gpuCells.addFrame(buffer.data(), box.data());
        }
        std::fill(buffer.begin(), buffer.end(), 0.0);
        std::fill(bufferFloat.begin(), bufferFloat.end(), 0.0f);
    }
    std::vector<uint64_t> expected = cpu.pairCounts();
    ASSERT_GT(total(expected), (uint64_t) numFrames * 100000u);
    EXPECT_EQ(gpu.pairCounts(), expected);
    EXPECT_EQ(gpuCells.pairCounts(), expected);
    EXPECT_EQ(gpu.numFrames(), numFrames);
}

TEST_F(RdfCuda, ManyCellsAndThousandsOfBinsInSeveralPasses) {
    // 40,000 bins take three shared-memory passes; 7 x 7 x 7 cells make the automatic choice the cell list.
    System s = randomSystem(20000, cube(6.0), 7);
    std::vector<int> all = range(0, 20000);
    std::string used;
    std::vector<uint64_t> cpu = countsOf(s, all, nullptr, settings(0.85, 40000, Backend::CPU, Algorithm::CellList), false);
    std::vector<uint64_t> gpuAuto = countsOf(s, all, nullptr, settings(0.85, 40000, Backend::CUDA, Algorithm::Auto), false, &used);
    std::vector<uint64_t> gpuAllPairs = countsOf(s, all, nullptr, settings(0.85, 40000, Backend::CUDA, Algorithm::AllPairs), false);
    EXPECT_EQ(used, "cell-list");
    EXPECT_EQ(gpuAuto, cpu);
    EXPECT_EQ(gpuAllPairs, cpu);
    EXPECT_GT(cpu[39999], 0u) << "the last pass must be filled";
}

TEST_F(RdfCuda, MoreThan2To32PairsInOneBinDoNotOverflow) {
    // 92,700 atoms on one point: 4,296,563,650 unordered pairs, all in bin 0, more than 2^32.
    const int numAtoms = 92700;
    std::vector<float> positions(3 * numAtoms, 1.25f);
    std::vector<double> box = cube(5.0);
    RdfEngine engine(numAtoms, range(0, numAtoms), nullptr, settings(1.0, 100, Backend::CUDA, Algorithm::AllPairs));
    engine.addFrame(positions.data(), box.data());
    std::vector<uint64_t> counts = engine.pairCounts();
    uint64_t expected = (uint64_t) numAtoms * (numAtoms - 1);
    EXPECT_GT(expected / 2, (uint64_t) 1 << 32);
    EXPECT_EQ(counts[0], expected);
    EXPECT_EQ(total(counts), expected);
}

TEST_F(RdfCuda, FloatDoubleFramesResetAndEdgeCases) {
    System s = randomSystem(3000, triclinic(4.0), 12);
    std::vector<float> single(s.positions.begin(), s.positions.end());
    std::vector<double> rounded(single.begin(), single.end());
    std::vector<int> all = range(0, 3000);
    RdfEngine fromFloat(3000, all, nullptr, settings(1.5, 64, Backend::CUDA, Algorithm::Auto));
    RdfEngine fromDouble(3000, all, nullptr, settings(1.5, 64, Backend::CUDA, Algorithm::Auto));
    EXPECT_EQ(fromFloat.backendName(), "cuda");
    for (int f = 0; f < 3; f++) {
        fromFloat.addFrame(single.data(), s.box.data());
        fromDouble.addFrame(rounded.data(), s.box.data());
    }
    std::vector<uint64_t> three = fromFloat.pairCounts();
    EXPECT_EQ(three, fromDouble.pairCounts());
    System roundedSystem = s;   // the CPU reference sees the same float-rounded coordinates
    roundedSystem.positions = rounded;
    std::vector<uint64_t> one = countsOf(roundedSystem, all, nullptr, settings(1.5, 64, Backend::CPU, Algorithm::Auto), false);
    for (size_t k = 0; k < one.size(); k++)
        ASSERT_EQ(three[k], 3 * one[k]) << "bin " << k;
    fromFloat.reset();
    EXPECT_EQ(total(fromFloat.pairCounts()), 0u);

    std::vector<int> one_atom = {5}, none = {};
    RdfEngine single_atom(3000, one_atom, nullptr, settings(1.5, 64, Backend::CUDA, Algorithm::Auto));
    single_atom.addFrame(s.positions.data(), s.box.data());
    EXPECT_EQ(total(single_atom.pairCounts()), 0u);
    EXPECT_THROW(single_atom.rdf(), std::invalid_argument);
    RdfEngine empty(3000, none, &all, settings(1.5, 64, Backend::CUDA, Algorithm::Auto));
    empty.addFrame(s.positions.data(), s.box.data());
    EXPECT_EQ(total(empty.pairCounts()), 0u);

    std::vector<double> withNan = s.positions;
    withNan[3 * 2999] = std::numeric_limits<double>::quiet_NaN();
    EXPECT_THROW(fromDouble.addFrame(withNan.data(), s.box.data()), std::invalid_argument);
    EXPECT_EQ(fromDouble.numFrames(), 3);
}

/**
 * Frames split over several devices (splitFramePairs = 0: every frame; NARUMI_TEST_DEVICES, by default the same GPU
 * listed twice) count exactly what one device and the CPU backend count: all pairs and the cell list, identical,
 * disjoint and overlapping selections, exclusion groups, no box, a rectangular and a triclinic box, over several
 * frames, between which the shares follow the devices' measured times.
 */
TEST_F(RdfCuda, SplitFramesCountWhatOneDeviceCounts) {
    const int numAtoms = 6000, numFrames = 4;
    std::vector<BoxCase> boxes = {{"none", {}, 1.4}, {"rectangular", {5.1, 0, 0, 0, 4.9, 0, 0, 0, 5.4}, 1.3},
                                  {"triclinic", triclinic(5.0), 1.2}};
    std::vector<int> all = range(0, numAtoms), first = range(0, 3500), last = range(2000, numAtoms);
    std::vector<int> groups(numAtoms);
    for (int i = 0; i < numAtoms; i++)
        groups[i] = i / 3;
    for (const BoxCase& box : boxes)
        for (Algorithm algorithm : {Algorithm::AllPairs, Algorithm::CellList})
            for (bool overlapping : {false, true}) {
                const std::vector<int>& sel1 = overlapping ? first : all;
                const std::vector<int>* sel2 = overlapping ? &last : nullptr;
                std::vector<int> exclusionGroups = overlapping ? groups : std::vector<int>();
                RdfSettings one = settings(box.rMax, 150, Backend::CUDA, algorithm), split = one, cpu = one;
                split.cudaDevices = OpenMMNarumi::Test::multiDeviceList();
                split.splitFramePairs = 0;
                cpu.backend = Backend::CPU;
                RdfEngine onOne(numAtoms, sel1, sel2, one, exclusionGroups), onSeveral(numAtoms, sel1, sel2, split, exclusionGroups),
                    onCpu(numAtoms, sel1, sel2, cpu, exclusionGroups);
                for (int f = 0; f < numFrames; f++) {
                    System s = randomSystem(numAtoms, box.box, 900 + f);
                    const double* frameBox = box.box.empty() ? nullptr : box.box.data();
                    onOne.addFrame(s.positions.data(), frameBox);
                    onSeveral.addFrame(s.positions.data(), frameBox);
                    onCpu.addFrame(s.positions.data(), frameBox);
                }
                std::string label = std::string(box.name) + (algorithm == Algorithm::CellList ? " cell list" : " all pairs") +
                                    (overlapping ? ", overlapping selections with exclusions" : ", identical selections");
                std::vector<uint64_t> expected = onCpu.pairCounts();
                ASSERT_GT(total(expected), (uint64_t) numFrames * 100000u) << label;
                EXPECT_EQ(onOne.pairCounts(), expected) << label;
                EXPECT_EQ(onSeveral.pairCounts(), expected) << label;
            }
}

/**
 * Frames spread over several devices (NARUMI_TEST_DEVICES; by default the same GPU listed twice: two backends with
 * their own streams and pipelines)
 * count exactly what one device counts, over enough frames that both devices get some, with the caller's buffer
 * overwritten after each frame; reset clears every device; a negative device is named.
 */
TEST_F(RdfCuda, FramesSpreadOverDevicesCountWhatOneDeviceCounts) {
    const int numAtoms = 5000, numFrames = 12;
    std::vector<double> box = cube(5.0);
    std::vector<int> all = range(0, numAtoms), half = range(0, numAtoms / 2);
    RdfSettings oneDevice = settings(1.2, 150, Backend::CUDA, Algorithm::Auto);
    RdfSettings twoDevices = oneDevice;
    twoDevices.cudaDevices = OpenMMNarumi::Test::multiDeviceList();
    RdfEngine one(numAtoms, half, &all, oneDevice), two(numAtoms, half, &all, twoDevices);
    std::vector<double> buffer(3 * numAtoms);
    for (int f = 0; f < numFrames; f++) {
        System s = randomSystem(numAtoms, box, 700 + f);
        std::copy(s.positions.begin(), s.positions.end(), buffer.begin());
        one.addFrame(buffer.data(), box.data());
        two.addFrame(buffer.data(), box.data());
        std::fill(buffer.begin(), buffer.end(), 0.0);
    }
    std::vector<uint64_t> expected = one.pairCounts();
    ASSERT_GT(total(expected), (uint64_t) numFrames * 100000u);
    EXPECT_EQ(two.pairCounts(), expected);
    EXPECT_EQ(two.numFrames(), numFrames);
    EXPECT_EQ(two.backendName(), "cuda");
    two.reset();
    EXPECT_EQ(total(two.pairCounts()), 0u);
    RdfSettings bad = oneDevice;
    bad.cudaDevices = {0, -1};
    try {
        RdfEngine engine(numAtoms, all, nullptr, bad);
        FAIL() << "cudaDevices {0, -1} was accepted";
    }
    catch (const std::invalid_argument& error) {
        EXPECT_NE(std::string(error.what()).find("-1"), std::string::npos) << error.what();
    }
}

} // namespace
