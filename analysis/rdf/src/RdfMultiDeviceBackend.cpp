/**
 * The RDF engine on several GPUs.  A large frame (settings.splitFramePairs pair tests or more) is split: every
 * device counts a share of its pairs (the rows of selection 1), and the shares follow the devices' measured
 * counting times (Common::ShareBalancer), Levine et al.'s load balancing, so that one frame takes about 1/N of
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
        : allPairTests_(allPairTests(problem)), splitFramePairs_(problem.settings.splitFramePairs), backends_(std::move(backends)),
          balancer_((int) backends_.size()) {
        if (backends_.empty())
            throw std::invalid_argument("a multi-device RDF backend needs at least one device");
    }

    void accumulate(const FrameInput& frame) override {
        if (backends_.size() > 1 && framePairTests(frame) >= (double) splitFramePairs_) {
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
    /** Pair tests of a whole frame: all pairs of the selections (unordered for identical ones). */
    static double allPairTests(const RdfProblem& problem) {
        double a = (double) problem.selectionA.size(), b = problem.sameSelection ? a : (double) problem.selectionB.size();
        return problem.sameSelection ? 0.5 * a * (a - 1) : a * b;
    }

    /** Pair tests of this frame: all pairs, or for the cell list those of the cells each cell meets (the 27-cell
     *  stencil's part of the grid). */
    double framePairTests(const FrameInput& frame) const {
        if (frame.algorithm != Algorithm::CellList)
            return allPairTests_;
        double stencil = 1;
        for (int d = 0; d < 3; d++)
            stencil *= std::min(3, frame.grid.n[d]);
        return allPairTests_ * stencil / std::max(1, frame.grid.numCells());
    }

    /** Every device counts its share of the frame; the shares first follow the devices' newest measured frames. */
    void splitFrame(const FrameInput& frame) {
        std::vector<Common::ShareTiming> timings(backends_.size());
        for (size_t k = 0; k < backends_.size(); k++)
            timings[k] = backends_[k]->lastFrameTiming();
        balancer_.update(timings);
        for (size_t k = 0; k < backends_.size(); k++) {
            FrameInput part = frame;
            auto [begin, end] = balancer_.bounds((int) k);
            part.share = WorkShare{begin, end};
            backends_[k]->accumulate(part);
        }
    }

    double allPairTests_;
    int64_t splitFramePairs_;
    std::vector<std::unique_ptr<PairHistogramBackend> > backends_;
    Common::ShareBalancer balancer_;
    size_t next_ = 0;
};

} // namespace

std::unique_ptr<PairHistogramBackend> createMultiDeviceBackend(const RdfProblem& problem,
                                                               std::vector<std::unique_ptr<PairHistogramBackend> > backends) {
    return std::make_unique<MultiDeviceBackend>(problem, std::move(backends));
}

} // namespace OpenMMNarumi::Rdf
