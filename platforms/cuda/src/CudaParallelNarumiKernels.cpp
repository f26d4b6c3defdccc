#include "CudaParallelNarumiKernels.h"
#include "NarumiCommon/ShareBalance.h"
#include "openmm/OpenMMException.h"

using namespace OpenMMNarumi;
using namespace OpenMM;
using namespace std;

/** One device's evaluation, queued on its work thread (after OpenMM's copy of the positions to it). */
class CudaParallelCalcNarumiNonbondedForceKernel::Task : public ComputeContext::WorkTask {
public:
    Task(ContextImpl& context, CudaCalcNarumiNonbondedForceKernel& kernel, bool includeForces, bool includeEnergy)
        : context(context), kernel(kernel), includeForces(includeForces), includeEnergy(includeEnergy) {
    }
    void execute() override {
        kernel.execute(context, includeForces, includeEnergy);
    }

private:
    ContextImpl& context;
    CudaCalcNarumiNonbondedForceKernel& kernel;
    bool includeForces, includeEnergy;
};

CudaParallelCalcNarumiNonbondedForceKernel::CudaParallelCalcNarumiNonbondedForceKernel(string name, const Platform& platform,
                                                                                       CudaPlatform::PlatformData& platformData,
                                                                                       const NarumiDiagnostics& diagnostics)
    : CalcNarumiNonbondedForceKernel(name, platform), platformData(platformData), balancer((int) platformData.contexts.size()) {
    int numDevices = (int) platformData.contexts.size();
    for (int i = 0; i < numDevices; i++) {
        auto* kernel = new CudaCalcNarumiNonbondedForceKernel(name, platform, *platformData.contexts[i], diagnostics);
        kernel->setPartOfParallel();
        kernels.emplace_back(kernel);
    }
}

void CudaParallelCalcNarumiNonbondedForceKernel::initialize(const System& system, const NarumiNonbondedForce& force) {
    fixedShares = (force.getAccumulationMethod() == NarumiNonbondedForce::TileSums);
    for (int i = 0; i < (int) kernels.size(); i++)
        device(i).initialize(system, force);
    applyShares();
}

void CudaParallelCalcNarumiNonbondedForceKernel::applyShares() {
    for (int i = 0; i < (int) kernels.size(); i++) {
        auto [begin, end] = balancer.bounds(i);
        device(i).setShare(begin, end);
    }
}

void CudaParallelCalcNarumiNonbondedForceKernel::rebalance() {
    if (fixedShares)
        return;
    // Each device's latest timing is of the last evaluation, which ran with the shares as they are.
    vector<Common::ShareTiming> timings(kernels.size());
    for (int i = 0; i < (int) kernels.size(); i++)
        timings[i] = {device(i).lastShareMilliseconds(), balancer.shares()[i], device(i).shareMeasurements() - 1};
    if (balancer.update(timings))
        applyShares();
}

double CudaParallelCalcNarumiNonbondedForceKernel::execute(ContextImpl& context, bool includeForces, bool includeEnergy) {
    // OpenMM flushed the work threads at the end of the last step: the kernels' timings are safe to read here.
    rebalance();
    for (int i = 0; i < (int) kernels.size(); i++)
        platformData.contexts[i]->getWorkThread().addTask(new Task(context, device(i), includeForces, includeEnergy));
    if (!includeEnergy)
        return 0.0;
    // The devices' fixed-point energies add exactly, then convert once: the same double as on one device.
    NarumiEnergyParts energy;
    for (int i = 0; i < (int) kernels.size(); i++) {
        platformData.contexts[i]->getWorkThread().flush();
        energy += device(i).lastEnergy();
    }
    return energy.value() + device(0).hostEnergy();
}

void CudaParallelCalcNarumiNonbondedForceKernel::copyParametersToContext(ContextImpl& context, const NarumiNonbondedForce& force) {
    for (int i = 0; i < (int) kernels.size(); i++)
        device(i).copyParametersToContext(context, force);
}
