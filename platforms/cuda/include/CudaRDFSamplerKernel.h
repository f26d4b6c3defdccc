#ifndef OPENMM_CUDA_RDF_SAMPLER_KERNEL_H_
#define OPENMM_CUDA_RDF_SAMPLER_KERNEL_H_

#include "NarumiCommon/CudaEvent.h"
#include "NarumiCommon/DeviceBuffer.h"
#include "NarumiCommon/ShareBalance.h"
#include "RDFSamplerKernels.h"
#include "RdfCudaHistogram.h"
#include "RdfEngine.h"
#include "openmm/cuda/CudaContext.h"
#include "openmm/cuda/CudaPlatform.h"
#include <memory>
#include <vector>

namespace OpenMMNarumi {

/**
 * RDFSampler on OpenMM's CUDA platform.  A frame reads OpenMM's own posq (float4, double4 in double precision; in
 * mixed precision posq + posqCorrection, summed in double as getState does, so the counts equal the CPU path's for
 * the same frames) through atomIndex (OpenMM reorders atoms), and runs the RDF engine's kernels
 * (OpenMMNarumi::Rdf::CudaPairHistogram) on OpenMM's current stream into 64-bit device counts: no synchronisation, no
 * download.  The box and the cell grid are worked out on the host from the CudaContext's box vectors.
 *
 * On a Context of several devices (CudaParallelCalcRDFSamplerKernel below) each device counts a share of every
 * frame's pairs; a device other than the first copies the first device's positions (peer to peer, after the first
 * device's stream reaches the frame) into its own buffers first, since OpenMM updates the other devices' positions
 * only when it computes forces.
 */
class CudaCalcRDFSamplerKernel : public CalcRDFSamplerKernel {
public:
    CudaCalcRDFSamplerKernel(std::string name, const OpenMM::Platform& platform, OpenMM::CudaContext& cu)
        : CalcRDFSamplerKernel(name, platform), cu(cu) {
    }
    ~CudaCalcRDFSamplerKernel();
    void initialize(const OpenMM::System& system, const RDFSampler& sampler) override;
    void sample(OpenMM::ContextImpl& context) override;
    void getResult(OpenMM::ContextImpl& context, RDFSamplerResult& result) override;
    void reset(OpenMM::ContextImpl& context) override;

    /**
     * One device's part of a frame on several devices: the share of its pairs (Rdf::WorkShare), from the positions of
     * source (the first device, whose stream has recorded positionsReady at the frame) or, with source null, from
     * this device's own.  Counts no frame: the parallel kernel keeps the frames' bookkeeping.
     */
    void sampleShare(const OpenMMNarumi::Rdf::WorkShare& share, const OpenMMNarumi::Rdf::BoxDouble& box,
                     const OpenMMNarumi::Rdf::CellGrid& grid, OpenMM::CudaContext* source, CUevent positionsReady);
    /** This device's raw counts (CudaPairHistogram::download), summed over the devices before orderedPairCounts. */
    std::vector<uint64_t> rawCounts();
    /** GPU time (ms) of this device's latest share, its size and number, once it has finished (else serial -1). */
    OpenMMNarumi::Common::ShareTiming lastShareTiming();

private:
    /** The frame's box and cell grid from the CudaContext's box vectors (none without periodicity). */
    void frameGeometry(OpenMMNarumi::Rdf::BoxDouble& box, OpenMMNarumi::Rdf::CellGrid& grid) const;
    /** Queues this device's share of a frame on its stream. */
    void countShare(const OpenMMNarumi::Rdf::WorkShare& share, const OpenMMNarumi::Rdf::BoxDouble& box,
                    const OpenMMNarumi::Rdf::CellGrid& grid, OpenMM::CudaContext& positionsOf, const void* posq,
                    const void* correction, const int* atomIndex);
    /** Notes a frame in the result's bookkeeping. */
    void noteFrame(const OpenMMNarumi::Rdf::BoxDouble& box);

    OpenMM::CudaContext& cu;
    OpenMMNarumi::Rdf::RdfProblem problem;
    std::unique_ptr<OpenMMNarumi::Rdf::CudaPairHistogram> histogram;
    bool periodic = false;
    long long numFrames = 0, framesWithoutBox = 0;
    double sumInverseVolume = 0;
    // A device other than the first: its copy of the first device's positions, and its share's timing.
    OpenMMNarumi::Common::DeviceBuffer<unsigned char> posqCopy, correctionCopy, atomIndexCopy;
    std::unique_ptr<OpenMMNarumi::Common::CudaEvent> shareStarted, shareFinished;
    long long sharesQueued = 0;   // the number of the latest share is sharesQueued - 1
    double shareSize = 0;

    friend class CudaParallelCalcRDFSamplerKernel;
};

/**
 * RDFSampler on a CUDA Context of several devices: one CudaCalcRDFSamplerKernel per device, each counting a share of
 * every frame (the selection-1 rows of the all-pairs tiles or of the cell list), the shares following the devices'
 * measured times (Common::ShareBalancer); the counts are 64-bit integers, summed exactly when read.
 */
class CudaParallelCalcRDFSamplerKernel : public CalcRDFSamplerKernel {
public:
    CudaParallelCalcRDFSamplerKernel(std::string name, const OpenMM::Platform& platform, OpenMM::CudaPlatform::PlatformData& platformData);
    ~CudaParallelCalcRDFSamplerKernel();
    void initialize(const OpenMM::System& system, const RDFSampler& sampler) override;
    void sample(OpenMM::ContextImpl& context) override;
    void getResult(OpenMM::ContextImpl& context, RDFSamplerResult& result) override;
    void reset(OpenMM::ContextImpl& context) override;

private:
    OpenMM::CudaPlatform::PlatformData& platformData;
    std::vector<std::unique_ptr<CudaCalcRDFSamplerKernel> > devices;
    OpenMMNarumi::Common::ShareBalancer balancer;
    CUevent positionsReady = nullptr;   // on the first device's stream, at each frame
};

} // namespace OpenMMNarumi

#endif // OPENMM_CUDA_RDF_SAMPLER_KERNEL_H_
