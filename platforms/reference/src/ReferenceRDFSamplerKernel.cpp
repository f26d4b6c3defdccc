#include "ReferenceRDFSamplerKernel.h"
#include "internal/RDFSamplerProblem.h"
#include "openmm/OpenMMException.h"
#include "openmm/internal/ContextImpl.h"
#include "openmm/reference/ReferencePlatform.h"
#include <stdexcept>

using namespace OpenMMNarumi;
using namespace OpenMM;
using namespace std;

namespace {

ReferencePlatform::PlatformData& getPlatformData(ContextImpl& context) {
    return *reinterpret_cast<ReferencePlatform::PlatformData*>(context.getPlatformData());
}

} // namespace

void ReferenceCalcRDFSamplerKernel::initialize(const System& system, const RDFSampler& sampler) {
    periodic = system.usesPeriodicBoundaryConditions();
    OpenMMNarumi::Rdf::RdfProblem problem = rdfSamplerProblem(system, sampler, OpenMMNarumi::Rdf::Backend::CPU);
    try {
        unique_ptr<OpenMMNarumi::Rdf::PairHistogramBackend> backend = OpenMMNarumi::Rdf::createCpuBackend(problem);
        engine = make_unique<OpenMMNarumi::Rdf::RdfEngine>(std::move(problem), std::move(backend));
    }
    catch (const exception& error) {
        throw OpenMMException(string("RDFSampler: ") + error.what());
    }
}

void ReferenceCalcRDFSamplerKernel::sample(ContextImpl& context) {
    ReferencePlatform::PlatformData& data = getPlatformData(context);
    const vector<Vec3>& positions = *data.positions;
    // Vec3 is three contiguous doubles: the positions are the engine's numAtoms x 3 array as they are.
    const double* box = periodic ? reinterpret_cast<const double*>(data.periodicBoxVectors) : nullptr;
    try {
        engine->addFrame(reinterpret_cast<const double*>(positions.data()), box);
    }
    catch (const invalid_argument& error) {
        throw OpenMMException(string("RDFSampler: ") + error.what());
    }
}

void ReferenceCalcRDFSamplerKernel::getResult(ContextImpl& context, RDFSamplerResult& result) {
    vector<uint64_t> counts = engine->pairCounts();
    result.pairCounts.assign(counts.begin(), counts.end());
    result.numFrames = engine->numFrames();
    result.framesWithoutBox = engine->framesWithoutBox();
    result.sumInverseVolume = engine->sumInverseVolume();
    result.numPairsPerFrame = engine->numPairsPerFrame();
}

void ReferenceCalcRDFSamplerKernel::reset(ContextImpl& context) {
    engine->reset();
}
