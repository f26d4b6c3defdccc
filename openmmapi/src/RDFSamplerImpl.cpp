#include "internal/RDFSamplerImpl.h"
#include "RDFSamplerKernels.h"
#include "RdfEngine.h"
#include "openmm/OpenMMException.h"
#include "openmm/internal/ContextImpl.h"
#include <stdexcept>

using namespace NarumiPlugin;
using namespace OpenMM;
using namespace std;

void RDFSamplerImpl::validate(const System& system, const RDFSampler& sampler) {
    NarumiRdf::RdfSettings settings;
    settings.rMin = sampler.getRMin();
    settings.rMax = sampler.getRMax();
    settings.bins = sampler.getNumBins();
    const vector<int>& selection2 = sampler.getSelection2();
    try {
        // The engine's own checks: indices in range, no duplicates, bins, range, one group per particle.
        NarumiRdf::buildProblem(system.getNumParticles(), sampler.getSelection1(), selection2.empty() ? nullptr : &selection2,
                                settings, sampler.getExclusionGroups());
        if (system.usesPeriodicBoundaryConditions()) {
            Vec3 box[3];
            system.getDefaultPeriodicBoxVectors(box[0], box[1], box[2]);
            NarumiRdf::parseBox(&box[0][0], settings.rMax);
        }
    }
    catch (const invalid_argument& error) {
        throw OpenMMException(string("RDFSampler: ") + error.what());
    }
    if (sampler.getSamplingInterval() < 1)
        throw OpenMMException("RDFSampler: samplingInterval = " + to_string(sampler.getSamplingInterval()) + " must be at least 1 step");
}

void RDFSamplerImpl::initialize(ContextImpl& context) {
    validate(context.getSystem(), owner);
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
