#include "CudaRDFSamplerKernel.h"
#include "RDFSamplerProblem.h"
#include "RdfCudaHistogram.h"
#include "openmm/OpenMMException.h"
#include "openmm/common/ContextSelector.h"
#include "openmm/internal/ContextImpl.h"
#include <stdexcept>

using namespace OpenMMNarumi;
using namespace OpenMM;
using namespace std;

CudaCalcRDFSamplerKernel::~CudaCalcRDFSamplerKernel() {
    // The histogram's device memory belongs to OpenMM's context: free it while that context is current.
    ContextSelector selector(cu);
    histogram.reset();
}

void CudaCalcRDFSamplerKernel::initialize(const System& system, const RDFSampler& sampler) {
    ContextSelector selector(cu);
    periodic = system.usesPeriodicBoundaryConditions();
    problem = rdfSamplerProblem(system, sampler, OpenMMNarumi::Rdf::Backend::CUDA);
    int numMultiprocessors = 1;
    cuDeviceGetAttribute(&numMultiprocessors, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, cu.getDevice());
    try {
        histogram = make_unique<OpenMMNarumi::Rdf::CudaPairHistogram>(problem, numMultiprocessors, true,
                                                              (cudaStream_t) cu.getCurrentStream());
    }
    catch (const exception& error) {
        throw OpenMMException(string("RDFSampler (CUDA): ") + error.what());
    }
}

void CudaCalcRDFSamplerKernel::sample(ContextImpl& context) {
    ContextSelector selector(cu);
    OpenMMNarumi::Rdf::BoxDouble box;
    OpenMMNarumi::Rdf::CellGrid grid;   // without a box: one cell, all pairs
    try {
        if (periodic) {
            Vec3 vectors[3];
            cu.getPeriodicBoxVectors(vectors[0], vectors[1], vectors[2]);
            box = OpenMMNarumi::Rdf::parseBox(&vectors[0][0], problem.settings.rMax);
            grid = OpenMMNarumi::Rdf::periodicCellGrid(box, problem.settings.rMax, problem.numSelected());
        }
        OpenMMNarumi::Rdf::Algorithm algorithm = OpenMMNarumi::Rdf::chooseAlgorithm(grid, problem.numPairs);
        OpenMMNarumi::Rdf::PosqPositions posq;
        posq.posq = (const void*) cu.getPosq().getDevicePointer();
        posq.doublePrecision = cu.getUseDoublePrecision();
        posq.correction = cu.getUseMixedPrecision() ? (const void*) cu.getPosqCorrection().getDevicePointer() : nullptr;
        posq.atomIndex = (const int*) cu.getAtomIndexArray().getDevicePointer();
        posq.numSlots = cu.getNumAtoms();
        OpenMMNarumi::Rdf::DevicePositions positions;
        positions.posq = &posq;
        histogram->accumulate(positions, box, grid, algorithm, (cudaStream_t) cu.getCurrentStream());
    }
    catch (const invalid_argument& error) {
        throw OpenMMException(string("RDFSampler (CUDA): ") + error.what());
    }
    catch (const runtime_error& error) {
        throw OpenMMException(string("RDFSampler (CUDA): ") + error.what());
    }
    numFrames++;
    if (box.kind == OpenMMNarumi::Rdf::BoxKind::None)
        framesWithoutBox++;
    else
        sumInverseVolume += 1.0 / (box.ax * box.by * box.cz);
}

void CudaCalcRDFSamplerKernel::getResult(ContextImpl& context, RDFSamplerResult& result) {
    ContextSelector selector(cu);
    vector<uint64_t> counts;
    try {
        counts = OpenMMNarumi::Rdf::orderedPairCounts(problem, histogram->download((cudaStream_t) cu.getCurrentStream()), numFrames);
    }
    catch (const runtime_error& error) {
        throw OpenMMException(string("RDFSampler (CUDA): ") + error.what());
    }
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
