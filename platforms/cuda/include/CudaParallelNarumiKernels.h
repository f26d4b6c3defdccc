#ifndef OPENMM_CUDA_PARALLEL_NARUMI_KERNELS_H_
#define OPENMM_CUDA_PARALLEL_NARUMI_KERNELS_H_

#include "CudaNarumiKernels.h"
#include "NarumiCommon/ShareBalance.h"
#include "openmm/Kernel.h"
#include "openmm/cuda/CudaPlatform.h"
#include <vector>

namespace OpenMMNarumi {

/**
 * NarumiNonbondedForce on a CUDA Context of several devices (DeviceIndex "0,1", ...), in the pattern of OpenMM's own
 * parallel kernels: one CudaCalcNarumiNonbondedForceKernel per device, run on that device's work thread.  Every
 * device sorts all atoms, lists the tiles of about its own share of the blocks (CudaNarumiKernels.h: setShare) and
 * computes the pairs and exceptions whose lower block lies in its share into its own force buffer,
 * which OpenMM sums into the first device's as 64-bit integers.  Narumi and FixedPoint64 sums are exact on the
 * 2^-25 (2^-32) grid whatever the partition, so forces and energy are bit-identical to one device's; the
 * floating-point methods A to E are not (order-dependent by design).  The shares follow the measured GPU time of
 * each device's pair stages (Common::ShareBalancer, NarumiCommon/ShareBalance.h), except with TileSums: its float
 * tile sums depend on which list made the tiles, and a share moved by timing makes a device list anew at a moment
 * that timing chose, so its shares stay equal and its runs repeat bit for bit.
 */
class CudaParallelCalcNarumiNonbondedForceKernel : public CalcNarumiNonbondedForceKernel {
public:
    /** diagnostics: NARUMI_DIAGNOSTICS as the Context read it, the same for every device. */
    CudaParallelCalcNarumiNonbondedForceKernel(std::string name, const OpenMM::Platform& platform,
                                               OpenMM::CudaPlatform::PlatformData& platformData, const NarumiDiagnostics& diagnostics);
    void initialize(const OpenMM::System& system, const NarumiNonbondedForce& force) override;
    double execute(OpenMM::ContextImpl& context, bool includeForces, bool includeEnergy) override;
    void copyParametersToContext(OpenMM::ContextImpl& context, const NarumiNonbondedForce& force) override;

private:
    class Task;
    CudaCalcNarumiNonbondedForceKernel& device(int index) {
        return kernels[index].getAs<CudaCalcNarumiNonbondedForceKernel>();
    }
    /** Hand each device its share of [0, 1). */
    void applyShares();
    /** Move the shares toward equal GPU time once every device has timed a new evaluation. */
    void rebalance();

    OpenMM::CudaPlatform::PlatformData& platformData;
    std::vector<OpenMM::Kernel> kernels;
    Common::ShareBalancer balancer;
    bool fixedShares = false;  // TileSums: the shares stay as they start
};

} // namespace OpenMMNarumi

#endif // OPENMM_CUDA_PARALLEL_NARUMI_KERNELS_H_
