#ifndef NARUMI_COMMON_SHARE_BALANCE_H_
#define NARUMI_COMMON_SHARE_BALANCE_H_

/**
 * How work is divided between devices, the one way for the multi-device force and the analysis engines: each device
 * has a share (fractions that sum to 1), and after every measurement the shares move halfway toward those that would
 * make every device take equally long, each by at most LARGEST_SHARE_CHANGE and none below SMALLEST_SHARE (its time
 * must stay measurable for it to win work back).  Header only, no CUDA.
 */

#include <algorithm>
#include <cmath>
#include <numeric>
#include <utility>
#include <vector>

namespace OpenMMNarumi::Common {

/** At one rebalancing a share changes by at most this factor: a noisy timing cannot swing the shares. */
constexpr double LARGEST_SHARE_CHANGE = 1.25;
/** No device's share drops below this. */
constexpr double SMALLEST_SHARE = 0.02;

/** Equal shares of n devices. */
inline std::vector<double> equalShares(int n) {
    return std::vector<double>(std::max(1, n), 1.0 / std::max(1, n));
}

/**
 * The shares after one measurement: times[i] is how long device i took for its share (any unit).  Unchanged when a
 * time is missing (not positive or not finite).
 */
inline std::vector<double> rebalancedShares(std::vector<double> shares, const std::vector<double>& times) {
    int n = (int) shares.size();
    if ((int) times.size() != n || n < 2)
        return shares;
    for (double t : times)
        if (!(t > 0) || !std::isfinite(t))
            return shares;
    // A device's speed is its share per unit of time; the shares that equalize the times are proportional to it.
    std::vector<double> target(n);
    for (int i = 0; i < n; i++)
        target[i] = std::max(shares[i], SMALLEST_SHARE) / times[i];
    double total = std::accumulate(target.begin(), target.end(), 0.0);
    for (int i = 0; i < n; i++) {
        double wanted = 0.5 * (shares[i] + target[i] / total);
        shares[i] = std::max(SMALLEST_SHARE, std::min(shares[i] * LARGEST_SHARE_CHANGE, std::max(shares[i] / LARGEST_SHARE_CHANGE, wanted)));
    }
    double sum = std::accumulate(shares.begin(), shares.end(), 0.0);
    for (double& share : shares)
        share /= sum;
    return shares;
}

/** The [begin, end) fractions of device `index` when the shares are laid end to end over [0, 1). */
inline std::pair<double, double> shareBounds(const std::vector<double>& shares, int index) {
    double begin = 0;
    for (int i = 0; i < index; i++)
        begin += shares[i];
    double end = (index + 1 == (int) shares.size()) ? 1.0 : std::min(1.0, begin + shares[index]);
    return {std::min(begin, 1.0), end};
}

/** One device's measurement: how long it took (any unit) for the share it had then; serial numbers its measurements. */
struct ShareTiming {
    double time = 0;
    double share = 0;
    long long serial = -1;   // -1: none yet
};

/**
 * The shares of a multi-device job and their balancing: update() moves them (rebalancedShares) once every device has
 * a measurement not used before, each time scaled from the share it was measured with to the device's share now,
 * since the devices' work runs ahead of the measurements (pipelined frames, a sampler's queued counts).
 */
class ShareBalancer {
public:
    explicit ShareBalancer(int numDevices) : shares_(equalShares(numDevices)), used_(shares_.size(), -1) {
    }
    const std::vector<double>& shares() const {
        return shares_;
    }
    /** Device index's [begin, end) fractions of the work. */
    std::pair<double, double> bounds(int index) const {
        return shareBounds(shares_, index);
    }
    /** Moves the shares if every device has a new, usable measurement; returns whether they moved. */
    bool update(const std::vector<ShareTiming>& timings) {
        if (timings.size() != shares_.size())
            return false;
        std::vector<double> times(shares_.size());
        for (size_t i = 0; i < shares_.size(); i++) {
            const ShareTiming& t = timings[i];
            if (t.serial <= used_[i] || !(t.time > 0) || !(t.share > 0))
                return false;
            times[i] = t.time * shares_[i] / t.share;
        }
        for (size_t i = 0; i < shares_.size(); i++)
            used_[i] = timings[i].serial;
        shares_ = rebalancedShares(shares_, times);
        return true;
    }

private:
    std::vector<double> shares_;
    std::vector<long long> used_;
};

} // namespace OpenMMNarumi::Common

#endif // NARUMI_COMMON_SHARE_BALANCE_H_
