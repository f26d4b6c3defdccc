#ifndef OPENMM_NARUMI_RDF_SAMPLER_PROXY_H_
#define OPENMM_NARUMI_RDF_SAMPLER_PROXY_H_

#include "openmm/serialization/SerializationProxy.h"

namespace OpenMMNarumi {

/** XML serialization of RDFSampler (selections, range, bins, interval, exclusion groups; not sampled counts). */
class RDFSamplerProxy : public OpenMM::SerializationProxy {
public:
    RDFSamplerProxy();
    void serialize(const void* object, OpenMM::SerializationNode& node) const override;
    void* deserialize(const OpenMM::SerializationNode& node) const override;
};

} // namespace OpenMMNarumi

#endif // OPENMM_NARUMI_RDF_SAMPLER_PROXY_H_
