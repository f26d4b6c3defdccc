#include "ReferenceNarumiKernels.h"
#include "ReferenceCellList.h"
#include "internal/NarumiNonbondedForceImpl.h"
#include "NarumiCommon/CoulombConstant.h"
#include "openmm/OpenMMException.h"
#include "openmm/internal/ContextImpl.h"
#include "openmm/reference/ReferencePlatform.h"
#include <algorithm>
#include <cmath>

using namespace OpenMMNarumi;
using namespace OpenMM;
using namespace std;
using OpenMMNarumi::Common::COULOMB_CONSTANT;

namespace {

ReferencePlatform::PlatformData& getPlatformData(ContextImpl& context) {
    return *reinterpret_cast<ReferencePlatform::PlatformData*>(context.getPlatformData());
}

/** Minimum-image displacement in OpenMM's reduced box (exact for distances up to half the box width). */
class MinimumImage {
public:
    explicit MinimumImage(const Vec3* box) : box(box), inverseWidth(1 / box[0][0], 1 / box[1][1], 1 / box[2][2]) {
    }
    Vec3 operator()(Vec3 delta) const {
        // lrint compiles to one instruction (with -fno-math-errno); its ties-to-even cannot matter below half a box.
        delta -= box[2] * (double) lrint(delta[2] * inverseWidth[2]);
        delta -= box[1] * (double) lrint(delta[1] * inverseWidth[1]);
        delta -= box[0] * (double) lrint(delta[0] * inverseWidth[0]);
        return delta;
    }

private:
    const Vec3* box;
    Vec3 inverseWidth;
};

/** For every particle, the sorted partners it has an exception with. */
vector<vector<int> > exceptionPartners(const NarumiNonbondedForce& force) {
    vector<vector<int> > partners(force.getNumParticles());
    for (int i = 0; i < force.getNumExceptions(); i++) {
        int p1, p2;
        double chargeProd, sigma, epsilon;
        force.getExceptionParameters(i, p1, p2, chargeProd, sigma, epsilon);
        partners[p1].push_back(p2);
        partners[p2].push_back(p1);
    }
    for (auto& p : partners)
        sort(p.begin(), p.end());
    return partners;
}

} // namespace

void ReferenceCalcNarumiNonbondedForceKernel::initialize(const System& system, const NarumiNonbondedForce& force) {
    method = force.getNonbondedMethod();
    exceptionsUsePeriodic = force.getExceptionsUsePeriodicBoundaryConditions() && method == NarumiNonbondedForce::CutoffPeriodic;
    potential.reset(new NarumiPairPotential(force));
    excludedPartners = exceptionPartners(force);
    copyParameters(system, force);
}

void ReferenceCalcNarumiNonbondedForceKernel::copyParameters(const System& system, const NarumiNonbondedForce& force) {
    int numParticles = force.getNumParticles();
    charges.resize(numParticles);
    for (int i = 0; i < numParticles; i++) {
        double sigma, epsilon;
        force.getParticleParameters(i, charges[i], sigma, epsilon);
    }
    selfEnergy = NarumiNonbondedForceImpl::reactionFieldSelfEnergy(force, COULOMB_CONSTANT);
    lennardJones.reset(new NarumiLennardJonesPairs(force));
    exceptions.clear();
    bool noCoulomb = (force.getElectrostaticsMethod() == NarumiNonbondedForce::NoCoulomb);
    for (int i = 0; i < force.getNumExceptions(); i++) {
        Exception e;
        double sigma, epsilon;
        force.getExceptionParameters(i, e.particle1, e.particle2, e.chargeProd, sigma, epsilon);
        if (noCoulomb)
            e.chargeProd = 0; // NoCoulomb has no Coulomb term at all, exceptions included
        e.c6 = 4 * epsilon * pow(sigma, 6);
        e.c12 = e.c6 * pow(sigma, 6);
        if (e.chargeProd != 0 || epsilon != 0)
            exceptions.push_back(e);
    }
    dispersionCoefficient = (force.getUseDispersionCorrection() ? NarumiNonbondedForceImpl::calcDispersionCorrection(system, force) : 0.0);
}

void ReferenceCalcNarumiNonbondedForceKernel::copyParametersToContext(ContextImpl& context, const NarumiNonbondedForce& force) {
    // The exclusion structure is fixed at initialization: the exception pairs must be the same.
    if (exceptionPartners(force) != excludedPartners)
        throw OpenMMException("NarumiNonbondedForce: updateParametersInContext cannot change which pairs are exceptions");
    copyParameters(context.getSystem(), force);
}

double ReferenceCalcNarumiNonbondedForceKernel::execute(ContextImpl& context, bool includeForces, bool includeEnergy) {
    ReferencePlatform::PlatformData& data = getPlatformData(context);
    const vector<Vec3>& positions = *data.positions;
    vector<Vec3>& forces = *data.forces;
    const Vec3* box = data.periodicBoxVectors;
    bool periodic = (method == NarumiNonbondedForce::CutoffPeriodic);
    if (periodic)
        NarumiNonbondedForceImpl::checkCutoffAgainstBox(potential->getCutoff(), box);
    int numParticles = positions.size();
    for (int i = 0; i < numParticles; i++)
        if (!isfinite(positions[i][0]) || !isfinite(positions[i][1]) || !isfinite(positions[i][2]))
            throw OpenMMException("NarumiNonbondedForce: particle " + to_string(i) + " has a non-finite position");

    // All pairs inside the cutoff (or all pairs), skipping exception pairs.
    unique_ptr<ReferenceCellList> cells;
    if (potential->usesCutoff())
        cells.reset(new ReferenceCellList(positions, periodic ? box : nullptr, potential->getCutoff()));
    double cutoff2 = potential->getCutoff() * potential->getCutoff();
    // OpenMM's own pool (not common/'s): the CPU platform's Threads property sizes it, and its threads already run.
    ThreadPool& threads = data.threads;
    int numThreads = threads.getNumThreads();
    vector<vector<Vec3> > threadForces(numThreads, vector<Vec3>(numParticles));
    vector<double> threadEnergy(numThreads, 0.0);
    MinimumImage minimumImage(box);
    auto interact = [&](int i, int j, vector<Vec3>& f, double& energy) {
        Vec3 delta = positions[j] - positions[i];
        if (periodic)
            delta = minimumImage(delta);
        double r2 = delta.dot(delta);
        if (potential->usesCutoff() && r2 >= cutoff2)
            return;
        double dEdrOverR;
        if (binary_search(excludedPartners[i].begin(), excludedPartners[i].end(), j)) {
            if (!potential->hasExcludedChargeTerms() || charges[i] * charges[j] == 0)
                return;
            energy += potential->excludedPairEnergy(r2, charges[i] * charges[j], dEdrOverR);
        }
        else {
            double c6, c12;
            lennardJones->pairParameters(i, j, c6, c12);
            energy += potential->pairEnergy(r2, charges[i] * charges[j], c6, c12, dEdrOverR);
        }
        f[i] += delta * dEdrOverR;
        f[j] -= delta * dEdrOverR;
    };
    threads.execute([&](ThreadPool& pool, int thread) {
        vector<Vec3>& f = threadForces[thread];
        double& energy = threadEnergy[thread];
        if (cells) {
            // Each unordered pair of cells is visited once, from the lower-numbered cell.
            for (int cell = thread; cell < cells->getNumCells(); cell += numThreads)
                for (int neighbor : cells->neighborCells(cell)) {
                    if (neighbor < cell)
                        continue;
                    for (const int* i = cells->cellBegin(cell); i != cells->cellEnd(cell); ++i)
                        for (const int* j = (neighbor == cell ? i + 1 : cells->cellBegin(neighbor)); j != cells->cellEnd(neighbor); ++j)
                            interact(*i, *j, f, energy);
                }
        }
        else {
            for (int i = thread; i < numParticles; i += numThreads)
                for (int j = i + 1; j < numParticles; j++)
                    interact(i, j, f, energy);
        }
    });
    threads.waitForThreads();
    double energy = 0;
    for (int thread = 0; thread < numThreads; thread++) {
        energy += threadEnergy[thread];
        if (includeForces)
            for (int i = 0; i < numParticles; i++)
                forces[i] += threadForces[thread][i];
    }

    // Exception pairs: plain Coulomb + LJ with their own parameters, no cutoff.
    for (const Exception& e : exceptions) {
        Vec3 delta = positions[e.particle2] - positions[e.particle1];
        if (exceptionsUsePeriodic)
            delta = minimumImage(delta);
        double dEdrOverR;
        energy += potential->exceptionEnergy(delta.dot(delta), e.chargeProd, e.c6, e.c12, dEdrOverR);
        if (includeForces) {
            forces[e.particle1] += delta * dEdrOverR;
            forces[e.particle2] -= delta * dEdrOverR;
        }
    }
    if (periodic && dispersionCoefficient != 0)
        energy += dispersionCoefficient / (box[0][0] * box[1][1] * box[2][2]);
    return energy + selfEnergy;
}
