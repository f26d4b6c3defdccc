/**
 * NarumiListSkin, the neighbour list's skin chosen from how often the list is rebuilt: the device's running totals of
 * evaluations and builds written here as the build rates measured in MD (docs/benchmarks.md: a build every 2.0-2.4
 * evaluations at 4 fs, every 4 at 2 fs, with 0.1 nm).  Host code: runs without a GPU.
 */
#include "NarumiListSkin.h"
#include <gtest/gtest.h>

using namespace OpenMMNarumi;

namespace {

/**
 * Running totals as the device keeps them: run(n, every) adds n evaluations with a build at every `every`-th;
 * sortAfter also asks the skin for the sort that follows them.
 */
struct DeviceTotals {
    unsigned long long evaluations = 0, builds = 0;
    void run(int n, int every) {
        for (int k = 0; k < n; k++)
            builds += (++evaluations % every == 0);
    }
    double sortAfter(NarumiListSkin& skin, int n, int every) {
        run(n, every);
        return skin.atForcedRebuild(evaluations, builds);
    }
};

TEST(ListSkin, StartsNarrow) {
    EXPECT_EQ(NarumiListSkin().current(), NarumiListSkin::NARROW);
    EXPECT_TRUE(NarumiListSkin().isChosen());
}

TEST(ListSkin, WidensWhereTheListLastsTwoEvaluationsAndStaysWide) {
    NarumiListSkin skin;
    DeviceTotals device;
    EXPECT_EQ(device.sortAfter(skin, 20, 2), NarumiListSkin::WIDE);
    // Wider, the list lasts longer (a build every third evaluation): still the fast atoms of 4 fs steps.
    for (int sort = 0; sort < 5; sort++)
        EXPECT_EQ(device.sortAfter(skin, 20, 3), NarumiListSkin::WIDE) << "sort " << sort;
}

TEST(ListSkin, StaysNarrowWhereTheListLastsFourEvaluations) {
    NarumiListSkin skin;
    DeviceTotals device;
    for (int sort = 0; sort < 5; sort++)
        EXPECT_EQ(device.sortAfter(skin, 20, 4), NarumiListSkin::NARROW) << "sort " << sort;
}

TEST(ListSkin, NarrowsAgainWhenTheAtomsSlowDown) {
    NarumiListSkin skin;
    DeviceTotals device;
    ASSERT_EQ(device.sortAfter(skin, 20, 2), NarumiListSkin::WIDE);
    EXPECT_EQ(device.sortAfter(skin, 20, 6), NarumiListSkin::NARROW) << "2 fs steps with the wide skin";
}

TEST(ListSkin, ChoosesFromTheEvaluationsSinceTheLastChoiceOnly) {
    NarumiListSkin skin;
    DeviceTotals device;
    // A build at every evaluation, but too few of them to choose from; one more, and the skin widens.
    EXPECT_EQ(device.sortAfter(skin, (int) NarumiListSkin::FEWEST_EVALUATIONS - 1, 1), NarumiListSkin::NARROW);
    EXPECT_EQ(device.sortAfter(skin, 1, 1), NarumiListSkin::WIDE);
    // Slow evaluations since that choice decide the next one, whatever came before.
    EXPECT_EQ(device.sortAfter(skin, 40, 8), NarumiListSkin::NARROW);
}

TEST(ListSkin, FixedSkinNeverChanges) {
    for (double fixed : {0.0, 0.05, 0.14}) {
        NarumiListSkin skin(fixed);
        EXPECT_FALSE(skin.isChosen());
        DeviceTotals device;
        EXPECT_EQ(device.sortAfter(skin, 40, 1), fixed);
        EXPECT_EQ(skin.current(), fixed);
    }
}

} // namespace
