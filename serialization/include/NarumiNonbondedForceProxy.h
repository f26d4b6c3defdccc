#ifndef OPENMM_NARUMI_NONBONDED_FORCE_PROXY_H_
#define OPENMM_NARUMI_NONBONDED_FORCE_PROXY_H_

#include "openmm/serialization/SerializationProxy.h"

namespace OpenMMNarumi {

/** XML serialization of NarumiNonbondedForce (every setting, particle and exception). */
class NarumiNonbondedForceProxy : public OpenMM::SerializationProxy {
public:
    NarumiNonbondedForceProxy();
    void serialize(const void* object, OpenMM::SerializationNode& node) const override;
    void* deserialize(const OpenMM::SerializationNode& node) const override;
};

} // namespace OpenMMNarumi

#endif // OPENMM_NARUMI_NONBONDED_FORCE_PROXY_H_
