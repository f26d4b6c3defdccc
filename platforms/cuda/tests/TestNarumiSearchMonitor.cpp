/**
 * NarumiSearchMonitor, the host's judgement of the neighbour search's running totals: status words written here as
 * the device would count them, evaluation by evaluation.  Host code: runs without a GPU.
 */
#include "NarumiSearchMonitor.h"
#include <gtest/gtest.h>

using namespace OpenMMNarumi;

namespace {

/** Running totals as the device keeps them; evaluate() adds one evaluation that listed `tiles` tiles. */
struct DeviceTotals {
    NarumiStatusWords words = {};
    const NarumiStatusWords& evaluate(unsigned long long tiles, unsigned long long overflowBlocks = 0) {
        words.evaluations++;
        words.listedTiles += tiles;
        words.overflowBlocks += overflowBlocks;
        return words;
    }
};

constexpr int ATOMS = 22400;  // 700 blocks

TEST(SearchMonitor, SteadyListGivesNoWarning) {
    NarumiSearchMonitor monitor;
    DeviceTotals device;
    for (int k = 0; k < 100; k++)
        EXPECT_EQ(monitor.note(device.evaluate(16000 + 37 * (k % 9)), false, ATOMS, false), "");
    EXPECT_EQ(monitor.totals().evaluations, 100u);
}

TEST(SearchMonitor, ListGrownWithinOneRangeIsReportedOnce) {
    NarumiSearchMonitor monitor;
    DeviceTotals device;
    for (int k = 0; k < 10; k++)
        monitor.note(device.evaluate(16000), false, ATOMS, false);
    std::string what = monitor.note(device.evaluate(25000), false, ATOMS, false);
    EXPECT_NE(what.find("grew from 16000 to 25000 tiles"), std::string::npos) << what;
    EXPECT_NE(what.find("becoming unstable"), std::string::npos) << "an exploding system grows the list too: " << what;
    EXPECT_EQ(monitor.note(device.evaluate(40000), false, ATOMS, false), "") << "a second warning";
}

/** The warning that every two-GPU run gave (DHFR, water 389k): a device's share, and so its listed range, grew. */
TEST(SearchMonitor, NewRangeOfListedBlocksStartsANewReference) {
    NarumiSearchMonitor monitor;
    DeviceTotals device;
    monitor.listRangeChanged(1);
    for (int k = 0; k < 10; k++)
        EXPECT_EQ(monitor.note(device.evaluate(5000), false, ATOMS, false), "");
    // The share grows at the 11th evaluation: the list covers 1.6 times the blocks.
    monitor.listRangeChanged(11);
    EXPECT_EQ(monitor.note(device.evaluate(8000), false, ATOMS, false), "");
    for (int k = 0; k < 10; k++)
        EXPECT_EQ(monitor.note(device.evaluate(8100), false, ATOMS, false), "");
    // Within the new range a real growth is still seen.
    std::string what = monitor.note(device.evaluate(13000), false, ATOMS, false);
    EXPECT_NE(what.find("grew from 8000 to 13000 tiles"), std::string::npos) << what;
}

/** Totals read rarely (the host looks only when they have arrived) may mix two ranges: no reference, no verdict. */
TEST(SearchMonitor, TotalsSpanningTwoRangesAreNoReference) {
    NarumiSearchMonitor monitor;
    DeviceTotals device;
    monitor.note(device.evaluate(5000), false, ATOMS, false);
    monitor.listRangeChanged(3);
    device.evaluate(5000);                      // evaluation 2, the old range, not read alone
    const NarumiStatusWords& mixed = device.evaluate(9000);   // evaluation 3, the new one
    EXPECT_EQ(monitor.note(mixed, false, ATOMS, false), "");
    EXPECT_EQ(monitor.note(device.evaluate(9000), false, ATOMS, false), "");
    std::string what = monitor.note(device.evaluate(14000), false, ATOMS, false);
    EXPECT_NE(what.find("grew from 9000 to 14000 tiles"), std::string::npos) << "the reference is the new range's: " << what;
}

TEST(SearchMonitor, OverflowOfTheLargestListIsReportedWithWhatToDo) {
    NarumiSearchMonitor monitor;
    DeviceTotals device;
    monitor.note(device.evaluate(16000), false, ATOMS, false);
    EXPECT_EQ(monitor.note(device.evaluate(15000, 2), false, ATOMS, false), "") << "a list that can still grow";
    std::string what = monitor.note(device.evaluate(15000, 2), true, ATOMS, false);
    EXPECT_NE(what.find("neighbour list of 22400 particles cannot hold every pair"), std::string::npos) << what;
    EXPECT_NE(what.find("a shorter cutoff"), std::string::npos) << what;
    NarumiSearchMonitor noCutoff;
    noCutoff.note(device.evaluate(16000), false, ATOMS, true);
    what = noCutoff.note(device.evaluate(15000, 2), true, ATOMS, true);
    EXPECT_NE(what.find("CutoffNonPeriodic with a cutoff, instead of NoCutoff"), std::string::npos) << what;
}

/** A 3.3 nm box of 3,718 atoms at a 1 nm cutoff tests no block pair and filters no block: right for it, no warning. */
TEST(SearchMonitor, UntestedBlockPairsAndUnfilteredBlocksGiveNoWarning) {
    NarumiSearchMonitor monitor;
    DeviceTotals device;
    for (int k = 0; k < 20; k++) {
        device.words.untestedBlockPairs += 600;
        device.words.unfilteredBlocks += 116;
        device.words.listBuilds++;
        EXPECT_EQ(monitor.note(device.evaluate(6700), false, 3718, false), "") << "evaluation " << k;
    }
}

} // namespace
