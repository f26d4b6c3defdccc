#ifndef OPENMM_NARUMI_ATTACHED_RDF_SAMPLER_H_
#define OPENMM_NARUMI_ATTACHED_RDF_SAMPLER_H_

#include "RDFSampler.h"
#include "internal/NarumiExport.h"
#include "openmm/Context.h"
#include <memory>

namespace OpenMMNarumi {

struct AttachedRDFSamplerLink;

/**
 * An RDFSampler attached to a Context that already exists, whose System does not contain it: what RDFReporter uses
 * to histogram OpenMM's own positions (on CUDA: its device buffer, on its stream) with no getState copy.
 *
 * Distances in nm, as in RDFSampler.
 */
class OPENMM_EXPORT_NARUMI AttachedRDFSampler {
public:
    /**
     * Attach a copy of settings to context: the Context's platform creates the sampler's kernel, which checks the
     * settings against the System (OpenMMException naming the bad value), and the Context owns it from then on.
     * The copy takes frames only when sample() is called (its sampling interval is not used).
     */
    AttachedRDFSampler(OpenMM::Context& context, const RDFSampler& settings);
    /** Detaches from the Context if that still exists. */
    ~AttachedRDFSampler();
    AttachedRDFSampler(const AttachedRDFSampler&) = delete;
    AttachedRDFSampler& operator=(const AttachedRDFSampler&) = delete;

    /** Add one frame of the Context's current positions (and box); an OpenMMException once detached. */
    void sample();
    /**
     * The frames so far: from the Context while attached, afterwards as they were when the Context was deleted or
     * reinitialized (the sampler's frames are read out just before its kernel goes).
     */
    RDFSamplerResult getResult() const;
    /** False once the Context has been deleted or reinitialized. */
    bool isAttached() const;
    /** The settings it was attached with (selections, range in nm, bins, exclusion groups). */
    const RDFSampler& getSettings() const;

private:
    std::shared_ptr<AttachedRDFSamplerLink> link;
};

} // namespace OpenMMNarumi

#endif // OPENMM_NARUMI_ATTACHED_RDF_SAMPLER_H_
