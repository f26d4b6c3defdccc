/**
 * The engine built from settings, and the backend it gets: CPU when asked for (or Auto without a CUDA device),
 * otherwise CUDA, or common/'s "no CUDA" error.  Only NarumiRdf, the whole engine, compiles this file: the engine's
 * core (NarumiRdfHost), which OpenMM's Reference plugin hands a CPU backend itself, then carries no CUDA code.
 */

#include "NarumiCommon/CudaAvailability.h"
#include "RdfEngine.h"

namespace OpenMMNarumi::Rdf {

namespace {

std::unique_ptr<PairHistogramBackend> createBackend(const RdfProblem& problem) {
    Backend kind = problem.settings.backend;
    bool cudaPresent = Common::cudaDeviceCount() > 0;
    if (kind == Backend::CPU || (kind == Backend::Auto && !cudaPresent))
        return createCpuBackend(problem);
    if constexpr (Common::builtWithCuda) {
        if (cudaPresent && problem.settings.cudaDevices.size() > 1) {
            std::vector<std::unique_ptr<PairHistogramBackend> > backends;
            for (int device : problem.settings.cudaDevices) {
                RdfProblem onDevice = problem;
                onDevice.settings.cudaDevice = device;
                backends.push_back(createCudaBackend(onDevice));
            }
            return createMultiDeviceBackend(problem, std::move(backends));
        }
        if (cudaPresent)
            return createCudaBackend(problem);
    }
    Common::throwCudaUnavailable("the RDF engine");
}

} // namespace

RdfEngine::RdfEngine(int numAtoms, const std::vector<int>& selection1, const std::vector<int>* selection2,
                     const RdfSettings& settings, const std::vector<int>& exclusionGroups)
    : problem_(buildProblem(numAtoms, selection1, selection2, settings, exclusionGroups)), backend_(createBackend(problem_)) {
}

bool RdfEngine::cudaAvailable() {
    return Common::cudaDeviceCount() > 0;
}

} // namespace OpenMMNarumi::Rdf
