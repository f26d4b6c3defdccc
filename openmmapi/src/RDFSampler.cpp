#include "RDFSampler.h"
#include "RdfLimits.h"
#include "internal/RDFSamplerImpl.h"
#include "openmm/OpenMMException.h"
#include <cmath>
#include <sstream>

using namespace OpenMMNarumi;
using namespace OpenMM;
using namespace std;

namespace {

/** The highest force group: the sampler computes nothing in an evaluation, and alone there it is never selected
 *  along with real forces. */
const int SAMPLER_FORCE_GROUP = 31;

template <class... Parts>
string message(const Parts&... parts) {
    stringstream stream;
    stream.precision(17);
    (stream << ... << parts);
    return stream.str();
}

} // namespace

RDFSampler::RDFSampler(const vector<int>& selection1, const vector<int>& selection2, double rMax, int bins,
                       int samplingInterval, double rMin) : rMin(0), rMax(1), bins(1), samplingInterval(1) {
    setSelections(selection1, selection2);
    setRange(rMin, rMax);
    setNumBins(bins);
    setSamplingInterval(samplingInterval);
    setForceGroup(SAMPLER_FORCE_GROUP);
    setName("RDFSampler");
}

void RDFSampler::setSelections(const vector<int>& selection1, const vector<int>& selection2) {
    // Indices are checked against the System when a Context is created (CalcRDFSamplerKernel::initialize).
    this->selection1 = selection1;
    this->selection2 = selection2;
}

void RDFSampler::setRange(double rMin, double rMax) {
    if (!isfinite(rMin) || rMin < 0)
        throw OpenMMException(message("RDFSampler: rMin = ", rMin, " must be finite and >= 0"));
    if (!isfinite(rMax) || rMax <= rMin)
        throw OpenMMException(message("RDFSampler: rMax = ", rMax, " must be finite and larger than rMin = ", rMin));
    this->rMin = rMin;
    this->rMax = rMax;
}

void RDFSampler::setNumBins(int bins) {
    if (bins < 1 || bins > Rdf::MAX_BINS)
        throw OpenMMException(message("RDFSampler: bins = ", bins, " is outside 1 to ", Rdf::MAX_BINS));
    this->bins = bins;
}

void RDFSampler::setSamplingInterval(int steps) {
    if (steps < 1)
        throw OpenMMException(message("RDFSampler: samplingInterval = ", steps, " must be at least 1 step"));
    samplingInterval = steps;
}

void RDFSampler::setExclusionGroups(const vector<int>& groupOfParticle) {
    exclusionGroups = groupOfParticle;
}

ForceImpl* RDFSampler::createImpl() const {
    return new RDFSamplerImpl(*this);
}

RDFSamplerResult RDFSampler::getResult(Context& context) const {
    return dynamic_cast<RDFSamplerImpl&>(getImplInContext(context)).getResult(getContextImpl(context));
}

void RDFSampler::reset(Context& context) const {
    dynamic_cast<RDFSamplerImpl&>(getImplInContext(context)).reset(getContextImpl(context));
}

void RDFSampler::sample(Context& context) const {
    dynamic_cast<RDFSamplerImpl&>(getImplInContext(context)).sample(getContextImpl(context));
}
