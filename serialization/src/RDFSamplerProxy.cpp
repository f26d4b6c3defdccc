#include "RDFSamplerProxy.h"
#include "RDFSampler.h"
#include "openmm/OpenMMException.h"
#include "openmm/serialization/SerializationNode.h"
#include <memory>

using namespace OpenMMNarumi;
using namespace OpenMM;
using namespace std;

namespace {

const int FORMAT_VERSION = 1;

void writeIndices(SerializationNode& parent, const char* name, const vector<int>& values) {
    SerializationNode& node = parent.createChildNode(name);
    for (int value : values)
        node.createChildNode("I").setIntProperty("v", value);
}

vector<int> readIndices(const SerializationNode& parent, const char* name) {
    vector<int> values;
    for (const SerializationNode& child : parent.getChildNode(name).getChildren())
        values.push_back(child.getIntProperty("v"));
    return values;
}

} // namespace

RDFSamplerProxy::RDFSamplerProxy() : SerializationProxy("RDFSampler") {
}

void RDFSamplerProxy::serialize(const void* object, SerializationNode& node) const {
    const RDFSampler& sampler = *reinterpret_cast<const RDFSampler*>(object);
    node.setIntProperty("version", FORMAT_VERSION);
    node.setIntProperty("forceGroup", sampler.getForceGroup());
    node.setStringProperty("name", sampler.getName());
    node.setDoubleProperty("rMin", sampler.getRMin());
    node.setDoubleProperty("rMax", sampler.getRMax());
    node.setIntProperty("bins", sampler.getNumBins());
    node.setIntProperty("samplingInterval", sampler.getSamplingInterval());
    writeIndices(node, "Selection1", sampler.getSelection1());
    writeIndices(node, "Selection2", sampler.getSelection2());
    writeIndices(node, "ExclusionGroups", sampler.getExclusionGroups());
}

void* RDFSamplerProxy::deserialize(const SerializationNode& node) const {
    int version = node.getIntProperty("version");
    if (version != FORMAT_VERSION)
        throw OpenMMException("RDFSampler: unsupported serialization version " + to_string(version) + " (this build reads version " +
                              to_string(FORMAT_VERSION) + ")");
    // Missing properties and children throw from SerializationNode; illegal values throw from the constructor.
    unique_ptr<RDFSampler> sampler(new RDFSampler(readIndices(node, "Selection1"), readIndices(node, "Selection2"),
                                                  node.getDoubleProperty("rMax"), node.getIntProperty("bins"),
                                                  node.getIntProperty("samplingInterval"), node.getDoubleProperty("rMin")));
    sampler->setExclusionGroups(readIndices(node, "ExclusionGroups"));
    sampler->setForceGroup(node.getIntProperty("forceGroup", sampler->getForceGroup()));
    sampler->setName(node.getStringProperty("name", sampler->getName()));
    return sampler.release();
}
