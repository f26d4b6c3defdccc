/**
 * NarumiListSkin, the neighbour list's skin chosen from how often the list is rebuilt: the device's running totals of
 * evaluations and builds written here as the build rates measured in MD (docs/benchmarks.md: a build every 2.0-2.4
 * evaluations at 4 fs, every 4 at 2 fs, with 0.1 nm).  Host code: runs without a GPU.
 */
#include "NarumiListSkin.h"
#include <gtest/gtest.h>

using namespace OpenMMNarumi;

namespace {

/** Running totals as the device keeps them: run(n, every) adds n evaluations with a build at every `every`-th. */
struct DeviceTotals {
    unsigned long long evaluations = 0, builds = 0;
    void run(int n, int every) {
        for (int k = 0; k < n; k++)
            builds += (++evaluations % every == 0);
    }
};

TEST(ListSkin, StartsNarrow) {
    EXPECT_EQ(NarumiListSkin().current(), NarumiListSkin::NARROW);
    EXPECT_TRUE(NarumiListSkin().isChosen());
}

TEST(ListSkin, WidensWhereTheListLastsTwoEvaluationsAndStaysWide) {
    NarumiListSkin skin;
    DeviceTotals device;
    device.run(20, 2);
    EXPECT_EQ(skin.atForcedRebuild(device.evaluations, device.builds), NarumiListSkin::WIDE);
    // Wider, the list lasts longer (a build every third evaluation): still the fast atoms of 4 fs steps.
    for (int sort = 0; sort < 5; sort++) {
        device.run(20, 3);
        EXPECT_EQ(skin.atForcedRebuild(device.evaluations, device.builds), NarumiListSkin::WIDE) << "sort " << sort;
    }
}

TEST(ListSkin, StaysNarrowWhereTheListLastsFourEvaluations) {
    NarumiListSkin skin;
    DeviceTotals device;
    for (int sort = 0; sort < 5; sort++) {
        device.run(20, 4);
        EXPECT_EQ(skin.atForcedRebuild(device.evaluations, device.builds), NarumiListSkin::NARROW) << "sort " << sort;
    }
}

TEST(ListSkin, NarrowsAgainWhenTheAtomsSlowDown) {
    NarumiListSkin skin;
    DeviceTotals device;
    device.run(20, 2);
    ASSERT_EQ(skin.atForcedRebuild(device.evaluations, device.builds), NarumiListSkin::WIDE);
    device.run(20, 6);  // 2 fs steps with the wide skin
    EXPECT_EQ(skin.atForcedRebuild(device.evaluations, device.builds), NarumiListSkin::NARROW);
}

TEST(ListSkin, ChoosesFromTheEvaluationsSinceTheLastChoiceOnly) {
    unsigned long long few = NarumiListSkin::FEWEST_EVALUATIONS - 1;
    DeviceTotals early;
    early.run((int) few, 1);  // a build at every evaluation, but too few of them to choose from
    NarumiListSkin fresh;
    EXPECT_EQ(fresh.atForcedRebuild(early.evaluations, early.builds), NarumiListSkin::NARROW);
    early.run(1, 1);
    EXPECT_EQ(fresh.atForcedRebuild(early.evaluations, early.builds), NarumiListSkin::WIDE);
    // Slow evaluations since that choice decide the next one, whatever came before.
    early.run(40, 8);
    EXPECT_EQ(fresh.atForcedRebuild(early.evaluations, early.builds), NarumiListSkin::NARROW);
}

TEST(ListSkin, FixedSkinNeverChanges) {
    for (double fixed : {0.0, 0.05, 0.14}) {
        NarumiListSkin skin(fixed);
        EXPECT_FALSE(skin.isChosen());
        DeviceTotals device;
        device.run(40, 1);
        EXPECT_EQ(skin.atForcedRebuild(device.evaluations, device.builds), fixed);
        EXPECT_EQ(skin.current(), fixed);
    }
}

} // namespace
