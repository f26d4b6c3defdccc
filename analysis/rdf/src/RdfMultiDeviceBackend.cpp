/**
 * The RDF engine on several GPUs: whole frames handed to the devices' pipelined backends, each frame to the first
 * device in rotation whose pipeline has room (the least busy one), so that the devices count frames side by side
 * and a slower device is given fewer.  Counts are 64-bit integers: their sum does not depend on which device
 * counted which frame.
 */

#include "RdfEngine.h"
#include <stdexcept>

namespace OpenMMNarumi::Rdf {

namespace {

class MultiDeviceBackend : public PairHistogramBackend {
public:
    explicit MultiDeviceBackend(std::vector<std::unique_ptr<PairHistogramBackend> > backends) : backends_(std::move(backends)) {
        if (backends_.empty())
            throw std::invalid_argument("a multi-device RDF backend needs at least one device");
    }

    void accumulate(const FrameInput& frame) override {
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
    std::vector<std::unique_ptr<PairHistogramBackend> > backends_;
    size_t next_ = 0;
};

} // namespace

std::unique_ptr<PairHistogramBackend> createMultiDeviceBackend(std::vector<std::unique_ptr<PairHistogramBackend> > backends) {
    return std::make_unique<MultiDeviceBackend>(std::move(backends));
}

} // namespace OpenMMNarumi::Rdf
