// Registers the XML proxies when the plugin's API library is loaded, so XmlSerializer knows the forces.
#include "NarumiNonbondedForce.h"
#include "NarumiNonbondedForceProxy.h"
#include "RDFSampler.h"
#include "RDFSamplerProxy.h"
#include "openmm/serialization/SerializationProxy.h"

extern "C" __attribute__((constructor)) void registerNarumiSerializationProxies() {
    OpenMM::SerializationProxy::registerProxy(typeid(OpenMMNarumi::NarumiNonbondedForce), new OpenMMNarumi::NarumiNonbondedForceProxy());
    OpenMM::SerializationProxy::registerProxy(typeid(OpenMMNarumi::RDFSampler), new OpenMMNarumi::RDFSamplerProxy());
}
