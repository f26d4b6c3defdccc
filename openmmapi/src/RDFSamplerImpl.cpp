#include "internal/RDFSamplerImpl.h"
#include "RDFSamplerKernels.h"
#include "openmm/internal/ContextImpl.h"

using namespace OpenMMNarumi;
using namespace OpenMM;
using namespace std;

void RDFSamplerImpl::initialize(ContextImpl& context) {
    // The kernel checks the sampler against the System (the platforms own the RDF engine that knows the rules).
    samplingInterval = owner.getSamplingInterval();
    kernel = context.getPlatform().createKernel(CalcRDFSamplerKernel::Name(), context);
    kernel.getAs<CalcRDFSamplerKernel>().initialize(context.getSystem(), owner);
}

vector<string> RDFSamplerImpl::getKernelNames() {
    return {CalcRDFSamplerKernel::Name()};
}

void RDFSamplerImpl::updateContextState(ContextImpl& context, bool& forcesInvalid) {
    // Called at the start of each step: the positions are those after getStepCount() steps.  Nothing changes in
    // the state, so forcesInvalid stays as it is.
    long long step = context.getStepCount();
    if (step % samplingInterval == 0 && step != lastSampledStep) {
        kernel.getAs<CalcRDFSamplerKernel>().sample(context);
        lastSampledStep = step;
    }
}

void RDFSamplerImpl::sample(ContextImpl& context) {
    kernel.getAs<CalcRDFSamplerKernel>().sample(context);
    lastSampledStep = context.getStepCount();
}

RDFSamplerResult RDFSamplerImpl::getResult(ContextImpl& context) {
    RDFSamplerResult result;
    kernel.getAs<CalcRDFSamplerKernel>().getResult(context, result);
    result.lastSampledStep = lastSampledStep;
    return result;
}

void RDFSamplerImpl::reset(ContextImpl& context) {
    kernel.getAs<CalcRDFSamplerKernel>().reset(context);
}
