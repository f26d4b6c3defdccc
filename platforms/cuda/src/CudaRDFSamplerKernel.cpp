#include "CudaRDFSamplerKernel.h"
#include "NarumiCommon/CudaKernelImage.h"
#include "NarumiCommon/ShareBalance.h"
#include "RdfCudaHistogram.h"
#include "internal/RDFSamplerProblem.h"
#include "openmm/OpenMMException.h"
#include "openmm/common/ContextSelector.h"
#include "openmm/internal/ContextImpl.h"
#include <stdexcept>

using namespace OpenMMNarumi;
using namespace OpenMM;
using namespace std;

namespace {

/** OpenMM's exceptions for the engine's: the sampler's errors name it. */
template <class Work>
void asSamplerError(const Work& work) {
    try {
        work();
    }
    catch (const OpenMMException&) {
        throw;
    }
    catch (const exception& error) {
        throw OpenMMException(string("RDFSampler (CUDA): ") + error.what());
    }
}

void checkDriver(CUresult result, const char* what) {
    if (result != CUDA_SUCCESS)
        throw OpenMMException(string("RDFSampler (CUDA): ") + what + " failed: " + CudaContext::getErrorString(result));
}

} // namespace

CudaCalcRDFSamplerKernel::~CudaCalcRDFSamplerKernel() {
    // The histogram's device memory belongs to OpenMM's context: free it while that context is current.
    ContextSelector selector(cu);
    histogram.reset();
    posqCopy = {};
    correctionCopy = {};
    atomIndexCopy = {};
    shareStarted.reset();
    shareFinished.reset();
}

void CudaCalcRDFSamplerKernel::initialize(const System& system, const RDFSampler& sampler) {
    ContextSelector selector(cu);
    periodic = system.usesPeriodicBoundaryConditions();
    problem = rdfSamplerProblem(system, sampler, OpenMMNarumi::Rdf::Backend::CUDA);
    int numMultiprocessors = 1;
    cuDeviceGetAttribute(&numMultiprocessors, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, cu.getDevice());
    asSamplerError([&] {
        Common::requireKernelImage(cu.getDeviceIndex(), "");  // asSamplerError names the sampler
        histogram = make_unique<OpenMMNarumi::Rdf::CudaPairHistogram>(problem, numMultiprocessors, true,
                                                                      (cudaStream_t) cu.getCurrentStream());
        shareStarted = make_unique<Common::CudaEvent>(true);
        shareFinished = make_unique<Common::CudaEvent>(true);
    });
}

void CudaCalcRDFSamplerKernel::frameGeometry(OpenMMNarumi::Rdf::BoxDouble& box, OpenMMNarumi::Rdf::CellGrid& grid) const {
    if (!periodic)
        return;  // without a box: one cell, all pairs
    Vec3 vectors[3];
    cu.getPeriodicBoxVectors(vectors[0], vectors[1], vectors[2]);
    box = OpenMMNarumi::Rdf::parseBox(&vectors[0][0], problem.settings.rMax);
    grid = OpenMMNarumi::Rdf::periodicCellGrid(box, problem.settings.rMax, problem.numSelected());
}

void CudaCalcRDFSamplerKernel::countShare(const OpenMMNarumi::Rdf::WorkShare& share, const OpenMMNarumi::Rdf::BoxDouble& box,
                                          const OpenMMNarumi::Rdf::CellGrid& grid, CudaContext& positionsOf, const void* posq,
                                          const void* correction, const int* atomIndex) {
    OpenMMNarumi::Rdf::PosqPositions positions;
    positions.posq = posq;
    positions.doublePrecision = positionsOf.getUseDoublePrecision();
    positions.correction = correction;
    positions.atomIndex = atomIndex;
    positions.numSlots = positionsOf.getNumAtoms();
    OpenMMNarumi::Rdf::DevicePositions devicePositions;
    devicePositions.posq = &positions;
    cudaStream_t stream = (cudaStream_t) cu.getCurrentStream();
    shareStarted->record(stream);
    histogram->accumulate(devicePositions, box, grid, OpenMMNarumi::Rdf::chooseAlgorithm(grid, problem.numPairs), stream, share);
    shareFinished->record(stream);
    sharesQueued++;
    shareSize = share.end - share.begin;
}

void CudaCalcRDFSamplerKernel::noteFrame(const OpenMMNarumi::Rdf::BoxDouble& box) {
    numFrames++;
    if (box.kind == OpenMMNarumi::Rdf::BoxKind::None)
        framesWithoutBox++;
    else
        sumInverseVolume += 1.0 / (box.ax * box.by * box.cz);
}

void CudaCalcRDFSamplerKernel::sample(ContextImpl& context) {
    ContextSelector selector(cu);
    OpenMMNarumi::Rdf::BoxDouble box;
    asSamplerError([&] {
        OpenMMNarumi::Rdf::CellGrid grid;
        frameGeometry(box, grid);
        countShare(OpenMMNarumi::Rdf::WorkShare(), box, grid, cu, (const void*) cu.getPosq().getDevicePointer(),
                   cu.getUseMixedPrecision() ? (const void*) cu.getPosqCorrection().getDevicePointer() : nullptr,
                   (const int*) cu.getAtomIndexArray().getDevicePointer());
    });
    noteFrame(box);
}

void CudaCalcRDFSamplerKernel::sampleShare(const OpenMMNarumi::Rdf::WorkShare& share, const OpenMMNarumi::Rdf::BoxDouble& box,
                                           const OpenMMNarumi::Rdf::CellGrid& grid, CudaContext* source, CUevent positionsReady) {
    ContextSelector selector(cu);
    asSamplerError([&] {
        if (source == nullptr) {
            countShare(share, box, grid, cu, (const void*) cu.getPosq().getDevicePointer(),
                       cu.getUseMixedPrecision() ? (const void*) cu.getPosqCorrection().getDevicePointer() : nullptr,
                       (const int*) cu.getAtomIndexArray().getDevicePointer());
            return;
        }
        // The first device's positions, atom order included, as they are at this frame.
        CUstream stream = cu.getCurrentStream();
        checkDriver(cuStreamWaitEvent(stream, positionsReady, 0), "waiting for the first device's positions");
        size_t posqBytes = source->getPosq().getSize() * source->getPosq().getElementSize();
        size_t indexBytes = source->getAtomIndexArray().getSize() * source->getAtomIndexArray().getElementSize();
        checkDriver(cuMemcpyPeerAsync((CUdeviceptr) posqCopy.resize(posqBytes), cu.getContext(), source->getPosq().getDevicePointer(),
                                      source->getContext(), posqBytes, stream), "copying the positions between devices");
        checkDriver(cuMemcpyPeerAsync((CUdeviceptr) atomIndexCopy.resize(indexBytes), cu.getContext(),
                                      source->getAtomIndexArray().getDevicePointer(), source->getContext(), indexBytes, stream),
                    "copying the atom order between devices");
        const void* correction = nullptr;
        if (source->getUseMixedPrecision()) {
            size_t bytes = source->getPosqCorrection().getSize() * source->getPosqCorrection().getElementSize();
            correction = correctionCopy.resize(bytes);
            checkDriver(cuMemcpyPeerAsync((CUdeviceptr) correction, cu.getContext(), source->getPosqCorrection().getDevicePointer(),
                                          source->getContext(), bytes, stream), "copying the position corrections between devices");
        }
        countShare(share, box, grid, *source, posqCopy.data(), correction, (const int*) atomIndexCopy.data());
    });
}

vector<uint64_t> CudaCalcRDFSamplerKernel::rawCounts() {
    ContextSelector selector(cu);
    vector<uint64_t> counts;
    asSamplerError([&] { counts = histogram->download((cudaStream_t) cu.getCurrentStream()); });
    return counts;
}

Common::ShareTiming CudaCalcRDFSamplerKernel::lastShareTiming() {
    ContextSelector selector(cu);
    Common::ShareTiming timing;
    asSamplerError([&] {
        if (sharesQueued > 0 && shareFinished->reached("RDF sampler share"))
            timing = {shareFinished->millisecondsSince(*shareStarted), shareSize, sharesQueued - 1};
    });
    return timing;
}

void CudaCalcRDFSamplerKernel::getResult(ContextImpl& context, RDFSamplerResult& result) {
    vector<uint64_t> counts;
    asSamplerError([&] { counts = OpenMMNarumi::Rdf::orderedPairCounts(problem, rawCounts(), numFrames); });
    result.pairCounts.assign(counts.begin(), counts.end());
    result.numFrames = numFrames;
    result.framesWithoutBox = framesWithoutBox;
    result.sumInverseVolume = sumInverseVolume;
    result.numPairsPerFrame = problem.numPairs;
}

void CudaCalcRDFSamplerKernel::reset(ContextImpl& context) {
    ContextSelector selector(cu);
    histogram->clear((cudaStream_t) cu.getCurrentStream());
    numFrames = framesWithoutBox = 0;
    sumInverseVolume = 0;
}

CudaParallelCalcRDFSamplerKernel::CudaParallelCalcRDFSamplerKernel(string name, const Platform& platform, CudaPlatform::PlatformData& platformData)
    : CalcRDFSamplerKernel(name, platform), platformData(platformData), balancer((int) platformData.contexts.size()) {
    for (CudaContext* context : platformData.contexts)
        devices.push_back(make_unique<CudaCalcRDFSamplerKernel>(name, platform, *context));
}

CudaParallelCalcRDFSamplerKernel::~CudaParallelCalcRDFSamplerKernel() {
    if (positionsReady != nullptr) {
        ContextSelector selector(*platformData.contexts[0]);
        cuEventDestroy(positionsReady);
    }
}

void CudaParallelCalcRDFSamplerKernel::initialize(const System& system, const RDFSampler& sampler) {
    for (auto& device : devices)
        device->initialize(system, sampler);
    ContextSelector selector(*platformData.contexts[0]);
    checkDriver(cuEventCreate(&positionsReady, CU_EVENT_DISABLE_TIMING), "creating an event");
}

void CudaParallelCalcRDFSamplerKernel::sample(ContextImpl& context) {
    // The shares follow the devices' newest finished shares; the frame's box and grid are the first device's.
    vector<Common::ShareTiming> timings(devices.size());
    for (size_t k = 0; k < devices.size(); k++)
        timings[k] = devices[k]->lastShareTiming();
    balancer.update(timings);
    OpenMMNarumi::Rdf::BoxDouble box;
    OpenMMNarumi::Rdf::CellGrid grid;
    asSamplerError([&] { devices[0]->frameGeometry(box, grid); });
    CudaContext& first = *platformData.contexts[0];
    {
        ContextSelector selector(first);
        checkDriver(cuEventRecord(positionsReady, first.getCurrentStream()), "recording an event");
    }
    for (size_t k = 0; k < devices.size(); k++) {
        auto [begin, end] = balancer.bounds((int) k);
        devices[k]->sampleShare(OpenMMNarumi::Rdf::WorkShare{begin, end}, box, grid, k == 0 ? nullptr : &first, positionsReady);
    }
    for (auto& device : devices)
        device->noteFrame(box);
}

void CudaParallelCalcRDFSamplerKernel::getResult(ContextImpl& context, RDFSamplerResult& result) {
    vector<uint64_t> raw = devices[0]->rawCounts();
    for (size_t k = 1; k < devices.size(); k++) {
        vector<uint64_t> counts = devices[k]->rawCounts();
        for (size_t bin = 0; bin < raw.size(); bin++)
            raw[bin] += counts[bin];
    }
    const CudaCalcRDFSamplerKernel& frames = *devices[0];
    vector<uint64_t> counts;
    asSamplerError([&] { counts = OpenMMNarumi::Rdf::orderedPairCounts(frames.problem, raw, frames.numFrames); });
    result.pairCounts.assign(counts.begin(), counts.end());
    result.numFrames = frames.numFrames;
    result.framesWithoutBox = frames.framesWithoutBox;
    result.sumInverseVolume = frames.sumInverseVolume;
    result.numPairsPerFrame = frames.problem.numPairs;
}

void CudaParallelCalcRDFSamplerKernel::reset(ContextImpl& context) {
    for (auto& device : devices)
        device->reset(context);
}
