// Registers the XML proxy when the plugin's API library is loaded, so XmlSerializer knows the force.
#include "NarumiNonbondedForce.h"
#include "NarumiNonbondedForceProxy.h"
#include "openmm/serialization/SerializationProxy.h"

extern "C" __attribute__((constructor)) void registerNarumiSerializationProxies() {
    OpenMM::SerializationProxy::registerProxy(typeid(NarumiPlugin::NarumiNonbondedForce), new NarumiPlugin::NarumiNonbondedForceProxy());
}
