#include "CudaParallelNarumiKernels.h"
#include "openmm/OpenMMException.h"
#include <algorithm>
#include <numeric>

using namespace OpenMMNarumi;
using namespace OpenMM;
using namespace std;

namespace {

/** At one rebalancing a share changes by at most this factor: a noisy timing cannot swing the shares. */
constexpr double LARGEST_SHARE_CHANGE = 1.25;
/** No device's share drops below this: its timing must stay measurable to win work back. */
constexpr double SMALLEST_SHARE = 0.02;

} // namespace

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
                                                                                       CudaPlatform::PlatformData& platformData)
    : CalcNarumiNonbondedForceKernel(name, platform), platformData(platformData) {
    int numDevices = (int) platformData.contexts.size();
    for (int i = 0; i < numDevices; i++) {
        auto* kernel = new CudaCalcNarumiNonbondedForceKernel(name, platform, *platformData.contexts[i]);
        kernel->setPartOfParallel();
        kernels.emplace_back(kernel);
    }
    shares.assign(numDevices, 1.0 / numDevices);
    measurementsUsed.assign(numDevices, 0);
}

void CudaParallelCalcNarumiNonbondedForceKernel::initialize(const System& system, const NarumiNonbondedForce& force) {
    for (int i = 0; i < (int) kernels.size(); i++)
        device(i).initialize(system, force);
    applyShares();
}

void CudaParallelCalcNarumiNonbondedForceKernel::applyShares() {
    double begin = 0;
    for (int i = 0; i < (int) kernels.size(); i++) {
        double end = (i + 1 == (int) kernels.size() ? 1.0 : min(1.0, begin + shares[i]));
        device(i).setShare(begin, end);
        begin = end;
    }
}

void CudaParallelCalcNarumiNonbondedForceKernel::rebalance() {
    int numDevices = (int) kernels.size();
    for (int i = 0; i < numDevices; i++)
        if (device(i).shareMeasurements() <= measurementsUsed[i] || !(device(i).lastShareMilliseconds() > 0))
            return;
    // Each device's speed is its share per millisecond; the shares that would make every device take equally long
    // are proportional to it.  Half of that step is taken, within LARGEST_SHARE_CHANGE, for stability.
    vector<double> target(numDevices);
    for (int i = 0; i < numDevices; i++) {
        target[i] = max(shares[i], SMALLEST_SHARE) / device(i).lastShareMilliseconds();
        measurementsUsed[i] = device(i).shareMeasurements();
    }
    double total = accumulate(target.begin(), target.end(), 0.0);
    for (int i = 0; i < numDevices; i++) {
        double wanted = 0.5 * (shares[i] + target[i] / total);
        shares[i] = max(SMALLEST_SHARE, min(shares[i] * LARGEST_SHARE_CHANGE, max(shares[i] / LARGEST_SHARE_CHANGE, wanted)));
    }
    double sum = accumulate(shares.begin(), shares.end(), 0.0);
    for (double& share : shares)
        share /= sum;
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
    return energy.value() + device(0).dispersionEnergy();
}

void CudaParallelCalcNarumiNonbondedForceKernel::copyParametersToContext(ContextImpl& context, const NarumiNonbondedForce& force) {
    for (int i = 0; i < (int) kernels.size(); i++)
        device(i).copyParametersToContext(context, force);
}
