/**
 * The RDF engine on several GPUs.  A large frame (settings.splitFramePairs pair tests or more) is split: every
 * device counts a share of its pairs (the rows of selection 1), and the shares follow the devices' measured
 * counting times (Common::rebalancedShares), Levine et al.'s load balancing, so that one frame takes about 1/N of
 * its time.  A smaller frame goes whole to the devices' pipelined backends, to the first device in rotation whose
 * pipeline has room (the least busy one), so that the devices count frames side by side and a slower device is given
 * fewer.  Counts are 64-bit integers: their sum does not depend on which device counted which pair.
 */

#include "NarumiCommon/ShareBalance.h"
#include "RdfEngine.h"
#include <algorithm>
#include <stdexcept>

namespace OpenMMNarumi::Rdf {

namespace {

class MultiDeviceBackend : public PairHistogramBackend {
public:
    MultiDeviceBackend(const RdfProblem& problem, std::vector<std::unique_ptr<PairHistogramBackend> > backends)
        : problem_(problem), backends_(std::move(backends)), shares_(Common::equalShares((int) backends_.size())) {
        if (backends_.empty())
            throw std::invalid_argument("a multi-device RDF backend needs at least one device");
    }

    void accumulate(const FrameInput& frame) override {
        if (backends_.size() > 1 && framePairTests(problem_, frame) >= problem_.settings.splitFramePairs) {
            splitFrame(frame);
            return;
        }
        size_t chosen = next_;
        for (size_t k = 0; k < backends_.size(); k++) {
            size_t candidate = (next_ + k) % backends_.size();
            if (backends_[candidate]->canTakeFrameNow()) {
                chosen = candidate;
                break;
            }
        }
        backends_[chosen]->accumulate(frame);
        next_ = (chosen + 1) % backends_.size();
        lastWasSplit_ = false;
    }

    std::vector<uint64_t> rawCounts() override {
        std::vector<uint64_t> total = backends_[0]->rawCounts();
        for (size_t k = 1; k < backends_.size(); k++) {
            std::vector<uint64_t> counts = backends_[k]->rawCounts();
            for (size_t bin = 0; bin < total.size(); bin++)
                total[bin] += counts[bin];
        }
        return total;
    }

    void reset() override {
        for (auto& backend : backends_)
            backend->reset();
    }

    std::string name() const override {
        return backends_[0]->name();
    }

    bool canTakeFrameNow() override {
        for (auto& backend : backends_)
            if (backend->canTakeFrameNow())
                return true;
        return false;
    }

private:
    /** Every device counts its share of the frame; the shares first move toward the last split frame's times. */
    void splitFrame(const FrameInput& frame) {
        if (lastWasSplit_) {
            std::vector<double> milliseconds(backends_.size());
            for (size_t k = 0; k < backends_.size(); k++)
                milliseconds[k] = backends_[k]->lastFrameMilliseconds();
            shares_ = Common::rebalancedShares(shares_, milliseconds);
        }
        for (size_t k = 0; k < backends_.size(); k++) {
            FrameInput part = frame;
            auto [begin, end] = Common::shareBounds(shares_, (int) k);
            part.share = WorkShare{begin, end};
            backends_[k]->accumulate(part);
        }
        lastWasSplit_ = true;
    }

    RdfProblem problem_;
    std::vector<std::unique_ptr<PairHistogramBackend> > backends_;
    std::vector<double> shares_;
    bool lastWasSplit_ = false;
    size_t next_ = 0;
};

} // namespace

int64_t framePairTests(const RdfProblem& problem, const FrameInput& frame) {
    double a = (double) problem.selectionA.size(), b = problem.sameSelection ? a : (double) problem.selectionB.size();
    double pairs = problem.sameSelection ? 0.5 * a * (a - 1) : a * b;
    if (frame.algorithm == Algorithm::CellList) {
        // Each cell meets its own and up to 26 neighbours: that fraction of the grid.
        double stencil = 1;
        for (int d = 0; d < 3; d++)
            stencil *= std::min(3, frame.grid.n[d]);
        pairs *= stencil / std::max(1, frame.grid.numCells());
    }
    return (int64_t) std::min(pairs, 9.0e18);
}

std::unique_ptr<PairHistogramBackend> createMultiDeviceBackend(const RdfProblem& problem,
                                                               std::vector<std::unique_ptr<PairHistogramBackend> > backends) {
    return std::make_unique<MultiDeviceBackend>(problem, std::move(backends));
}

} // namespace OpenMMNarumi::Rdf
