#include "AttachedRDFSampler.h"
#include "internal/RDFSamplerImpl.h"
#include "openmm/OpenMMException.h"
#include "openmm/internal/ContextImpl.h"
#include <algorithm>

using namespace OpenMMNarumi;
using namespace OpenMM;
using namespace std;

namespace OpenMMNarumi {

/** What the handle and the ForceImpl in the Context share; the ForceImpl clears context when the Context deletes it. */
struct AttachedRDFSamplerLink {
    explicit AttachedRDFSamplerLink(const RDFSampler& settings) : settings(settings) {
    }
    RDFSampler settings;
    ContextImpl* context = nullptr;
    RDFSamplerImpl* impl = nullptr;
    RDFSamplerResult resultAtDetach;
};

} // namespace OpenMMNarumi

namespace {

/**
 * The RDFSampler's ForceImpl appended to ContextImpl::getForceImpls(): ~ContextImpl deletes it first, while the
 * platform's data still exist, so its kernel is freed (and its frames read out) before the Context's device memory.
 */
class AttachedRDFSamplerImpl : public RDFSamplerImpl {
public:
    explicit AttachedRDFSamplerImpl(shared_ptr<AttachedRDFSamplerLink> link)
        : RDFSamplerImpl(link->settings), link(std::move(link)) {
    }
    ~AttachedRDFSamplerImpl() override {
        if (link->context == nullptr)
            return;
        try {
            link->resultAtDetach = getResult(*link->context);
        }
        catch (...) {  // a destructor must not throw; the handle then reports the last frames it could read
        }
        link->context = nullptr;
        link->impl = nullptr;
    }
    void updateContextState(ContextImpl& context, bool& forcesInvalid) override {
        // Frames come from AttachedRDFSampler::sample() only.
    }

private:
    shared_ptr<AttachedRDFSamplerLink> link;
};

} // namespace

AttachedRDFSampler::AttachedRDFSampler(Context& context, const RDFSampler& settings)
    : link(make_shared<AttachedRDFSamplerLink>(settings)) {
    ContextImpl& contextImpl = link->settings.getContextImpl(context);
    auto impl = make_unique<AttachedRDFSamplerImpl>(link);
    impl->initialize(contextImpl);  // throws, before anything is attached, for settings that do not fit the System
    link->context = &contextImpl;
    link->impl = impl.get();
    contextImpl.getForceImpls().push_back(impl.release());
}

AttachedRDFSampler::~AttachedRDFSampler() {
    if (link->context == nullptr)
        return;
    vector<ForceImpl*>& impls = link->context->getForceImpls();
    impls.erase(remove(impls.begin(), impls.end(), static_cast<ForceImpl*>(link->impl)), impls.end());
    delete link->impl;
}

void AttachedRDFSampler::sample() {
    if (link->context == nullptr)
        throw OpenMMException("AttachedRDFSampler: the Context it was attached to was deleted or reinitialized");
    link->impl->sample(*link->context);
}

RDFSamplerResult AttachedRDFSampler::getResult() const {
    if (link->context == nullptr)
        return link->resultAtDetach;
    return link->impl->getResult(*link->context);
}

bool AttachedRDFSampler::isAttached() const {
    return link->context != nullptr;
}

const RDFSampler& AttachedRDFSampler::getSettings() const {
    return link->settings;
}
