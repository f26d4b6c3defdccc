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

constexpr int BLOCKS = 700;

TEST(SearchMonitor, SteadyListGivesNoWarning) {
    NarumiSearchMonitor monitor;
    DeviceTotals device;
    for (int k = 0; k < 100; k++)
        EXPECT_EQ(monitor.note(device.evaluate(16000 + 37 * (k % 9)), false, BLOCKS), "");
    EXPECT_EQ(monitor.totals().evaluations, 100u);
}

TEST(SearchMonitor, ListGrownWithinOneRangeIsReportedOnce) {
    NarumiSearchMonitor monitor;
    DeviceTotals device;
    for (int k = 0; k < 10; k++)
        monitor.note(device.evaluate(16000), false, BLOCKS);
    std::string what = monitor.note(device.evaluate(25000), false, BLOCKS);
    EXPECT_NE(what.find("grew from 16000 to 25000 tiles"), std::string::npos) << what;
    EXPECT_EQ(monitor.note(device.evaluate(40000), false, BLOCKS), "") << "a second warning";
}

/** The warning that every two-GPU run gave (DHFR, water 389k): a device's share, and so its listed range, grew. */
TEST(SearchMonitor, NewRangeOfListedBlocksStartsANewReference) {
    NarumiSearchMonitor monitor;
    DeviceTotals device;
    monitor.listRangeChanged(1);
    for (int k = 0; k < 10; k++)
        EXPECT_EQ(monitor.note(device.evaluate(5000), false, BLOCKS), "");
    // The share grows at the 11th evaluation: the list covers 1.6 times the blocks.
    monitor.listRangeChanged(11);
    EXPECT_EQ(monitor.note(device.evaluate(8000), false, BLOCKS), "");
    for (int k = 0; k < 10; k++)
        EXPECT_EQ(monitor.note(device.evaluate(8100), false, BLOCKS), "");
    // Within the new range a real growth is still seen.
    std::string what = monitor.note(device.evaluate(13000), false, BLOCKS);
    EXPECT_NE(what.find("grew from 8000 to 13000 tiles"), std::string::npos) << what;
}

/** Totals read rarely (the host looks only when they have arrived) may mix two ranges: no reference, no verdict. */
TEST(SearchMonitor, TotalsSpanningTwoRangesAreNoReference) {
    NarumiSearchMonitor monitor;
    DeviceTotals device;
    monitor.note(device.evaluate(5000), false, BLOCKS);
    monitor.listRangeChanged(3);
    device.evaluate(5000);                      // evaluation 2, the old range, not read alone
    const NarumiStatusWords& mixed = device.evaluate(9000);   // evaluation 3, the new one
    EXPECT_EQ(monitor.note(mixed, false, BLOCKS), "");
    EXPECT_EQ(monitor.note(device.evaluate(9000), false, BLOCKS), "");
    std::string what = monitor.note(device.evaluate(14000), false, BLOCKS);
    EXPECT_NE(what.find("grew from 9000 to 14000 tiles"), std::string::npos) << "the reference is the new range's: " << what;
}

TEST(SearchMonitor, OverflowOfTheLargestListIsReported) {
    NarumiSearchMonitor monitor;
    DeviceTotals device;
    monitor.note(device.evaluate(16000), false, BLOCKS);
    EXPECT_EQ(monitor.note(device.evaluate(15000, 2), false, BLOCKS), "") << "a list that can still grow";
    std::string what = monitor.note(device.evaluate(15000, 2), true, BLOCKS);
    EXPECT_NE(what.find("overflowed a tile list already at its largest"), std::string::npos) << what;
}

TEST(SearchMonitor, UntestedBlockPairsAreReportedOnlyForManyBlocks) {
    DeviceTotals device;
    device.words.untestedBlockPairs = 0;
    NarumiSearchMonitor large, small;
    large.note(device.evaluate(16000), false, BLOCKS);
    small.note(device.words, false, 20);
    device.words.untestedBlockPairs += 100;   // > 5% of 700 blocks in one evaluation
    device.evaluate(16000);
    std::string what = large.note(device.words, false, BLOCKS);
    EXPECT_NE(what.find("100 block pairs taken as interacting untested"), std::string::npos) << what;
    EXPECT_EQ(small.note(device.words, false, 20), "") << "a box of 20 blocks lists nearly everything anyway";
}

} // namespace
