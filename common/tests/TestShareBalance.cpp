/** The devices' shares (NarumiCommon/ShareBalance.h) against what they are defined to do, computed here by hand. */

#include "NarumiCommon/ShareBalance.h"
#include <gtest/gtest.h>
#include <limits>
#include <numeric>

using namespace OpenMMNarumi::Common;

TEST(ShareBalance, EqualTimesKeepTheShares) {
    // Equal times for unequal shares: device 1 is the faster one in just that proportion.
    std::vector<double> after = rebalancedShares({0.3, 0.7}, {2.0, 2.0});
    EXPECT_NEAR(after[0], 0.3, 1e-15);
    EXPECT_NEAR(after[1], 0.7, 1e-15);
    // Equal speeds (time in proportion to the share) want equal shares: halfway there.
    after = rebalancedShares({0.45, 0.55}, {0.45, 0.55});
    EXPECT_NEAR(after[0], 0.475, 1e-15);
    // Beyond LARGEST_SHARE_CHANGE the step is cut: 0.3 may grow to 0.375 at most (then the sum is normalized).
    after = rebalancedShares({0.3, 0.7}, {0.3, 0.7});
    EXPECT_NEAR(after[0], 0.375 / (0.375 + 0.6), 1e-15);
}

TEST(ShareBalance, ASlowerDeviceGetsLessHalfwayTowardEqualTimes) {
    // Device 1 takes twice as long for an equal share: equal times want 2/3 and 1/3; half that step is 7/12, 5/12.
    std::vector<double> after = rebalancedShares({0.5, 0.5}, {1.0, 2.0});
    EXPECT_NEAR(after[0], 7.0 / 12.0, 1e-12);
    EXPECT_NEAR(after[1], 5.0 / 12.0, 1e-12);
    // Repeated measurements at the same speeds converge on the shares that equalize the times.
    std::vector<double> shares = {0.5, 0.5};
    for (int k = 0; k < 60; k++)
        shares = rebalancedShares(shares, {shares[0] / 2.0, shares[1] / 1.0});
    EXPECT_NEAR(shares[0], 2.0 / 3.0, 1e-9);
}

TEST(ShareBalance, ChangesAreBoundedAndSharesStayMeasurableAndSumToOne) {
    std::vector<double> after = rebalancedShares({0.5, 0.25, 0.25}, {1.0, 1000.0, 1.0});
    EXPECT_GE(after[1], 0.25 / LARGEST_SHARE_CHANGE / 1.25 - 1e-12);  // bounded change, before normalization
    EXPECT_NEAR(std::accumulate(after.begin(), after.end(), 0.0), 1.0, 1e-15);
    std::vector<double> shares = {0.5, 0.5};
    for (int k = 0; k < 100; k++)
        shares = rebalancedShares(shares, {1.0, 1e6});
    EXPECT_GE(shares[1], SMALLEST_SHARE / (1 + SMALLEST_SHARE) - 1e-12);
}

TEST(ShareBalance, AMissingTimeChangesNothing) {
    std::vector<double> shares = {0.4, 0.6};
    EXPECT_EQ(rebalancedShares(shares, {1.0, 0.0}), shares);
    EXPECT_EQ(rebalancedShares(shares, {std::numeric_limits<double>::quiet_NaN(), 1.0}), shares);
    EXPECT_EQ(rebalancedShares(shares, {1.0}), shares);
}

TEST(ShareBalance, BoundsTileTheUnitIntervalExactly) {
    std::vector<double> shares = {0.1, 0.2, 0.3, 0.4};
    double end = 0;
    for (int i = 0; i < 4; i++) {
        auto [begin, next] = shareBounds(shares, i);
        EXPECT_EQ(begin, end) << "device " << i;
        EXPECT_LE(begin, next);
        end = next;
    }
    EXPECT_EQ(end, 1.0);
    EXPECT_EQ(equalShares(4), std::vector<double>(4, 0.25));
}

TEST(ShareBalance, TheBalancerUsesEachMeasurementOnceScaledToTheShareNow) {
    ShareBalancer balancer(2);
    // Device 1 twice as slow, measured on equal shares: the shares move as rebalancedShares moves them.
    ASSERT_TRUE(balancer.update({{1.0, 0.5, 0}, {2.0, 0.5, 0}}));
    std::vector<double> expected = rebalancedShares({0.5, 0.5}, {1.0, 2.0});
    EXPECT_EQ(balancer.shares(), expected);
    // The same measurements again change nothing; nor does a device without a new one.
    EXPECT_FALSE(balancer.update({{1.0, 0.5, 0}, {2.0, 0.5, 0}}));
    EXPECT_FALSE(balancer.update({{1.0, 0.5, 1}, {2.0, 0.5, 0}}));
    EXPECT_EQ(balancer.shares(), expected);
    // Measured on the old shares, the times are scaled to the shares now: the same speeds give the same targets.
    ASSERT_TRUE(balancer.update({{1.0, 0.5, 2}, {2.0, 0.5, 2}}));
    EXPECT_EQ(balancer.shares(), rebalancedShares(expected, {expected[0] / 0.5, 2.0 * expected[1] / 0.5}));
    auto [begin, end] = balancer.bounds(1);
    EXPECT_EQ(begin, balancer.shares()[0]);
    EXPECT_EQ(end, 1.0);
}
