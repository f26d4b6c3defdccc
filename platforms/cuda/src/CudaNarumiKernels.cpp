#include "CudaNarumiKernels.h"
#include "NarumiCommon/CoulombConstant.h"
#include "NarumiCommon/CudaError.h"
#include "NarumiCommon/CudaKernelImage.h"
#include "NarumiDeviceQuery.h"
#include "NarumiSortCurve.cuh"
#include "internal/NarumiLennardJonesPairs.h"
#include "internal/NarumiNonbondedForceImpl.h"
#include "openmm/OpenMMException.h"
#include "openmm/common/ComputeForceInfo.h"
#include "openmm/common/ContextSelector.h"
#include "openmm/internal/ContextImpl.h"
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <cstddef>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

using namespace OpenMMNarumi;
using namespace OpenMM;
using namespace std;
using Common::COULOMB_CONSTANT;

namespace {

/** The most Lennard-Jones classes a type table takes: its float and double copies then fill at most 96 MiB. */
const int MAX_LENNARD_JONES_CLASSES = 2048;

/** The launch code and common/ report CUDA errors as std::runtime_error; OpenMM's callers expect OpenMMException. */
OpenMMException asOpenMMException(const std::runtime_error& error) {
    return OpenMMException(string("NarumiNonbondedForce (CUDA): ") + error.what());
}

void checkDriver(CUresult result, const char* what) {
    if (result != CUDA_SUCCESS)
        throw OpenMMException("NarumiNonbondedForce (CUDA): " + Common::cudaErrorMessage(result, what));
}

/** The exception pairs as a sorted list of (lower, higher) atom indices: the exclusion structure of the force. */
vector<pair<int, int> > sortedExceptionPairs(const NarumiNonbondedForce& force) {
    vector<pair<int, int> > pairs;
    for (int i = 0; i < force.getNumExceptions(); i++) {
        int p1, p2;
        double chargeProd, sigma, epsilon;
        force.getExceptionParameters(i, p1, p2, chargeProd, sigma, epsilon);
        pairs.emplace_back(min(p1, p2), max(p1, p2));
    }
    sort(pairs.begin(), pairs.end());
    return pairs;
}

/**
 * The accuracy study's float-pair methods C-E (diagnostics only) have no copy of the pair kernel with Lennard-Jones type
 * tables: refused with the method named, before anything runs.
 */
void refuseTypesWithStudyMethod(const NarumiNonbondedForce& force, NarumiAccumulation method) {
    if (method != NarumiAccumulation::TakahashiIitaka && method != NarumiAccumulation::Nitadori && method != NarumiAccumulation::ModifiedNitadori)
        return;
    for (int i = 0; i < force.getNumParticles(); i++)
        if (force.getParticleLennardJonesType(i) >= 0)
            throw OpenMMException("NarumiNonbondedForce (CUDA): the diagnostic accumulation " + to_string((int) method) +
                                  " (the accuracy study's methods C-E) does not take Lennard-Jones types (particle " + to_string(i) +
                                  " has type " + to_string(force.getParticleLennardJonesType(i)) + ")");
}

/** The float pairs' constants: the double ones rounded once (2 krf stays exactly twice krf). */
NarumiPairConstants roundedToFloat(const NarumiPairConstantsOf<double>& c) {
    return {(float) c.cutoff2, (float) c.invCutoff2, (float) c.krf, (float) c.crf, (float) c.twoKrf, (float) c.switchDistance,
            (float) c.invSwitchWidth, c.coulombKind, c.useSwitch, c.shiftLennardJones, c.excludedChargeTerms};
}

float3 roundedToFloat(double3 v) {
    return make_float3((float) v.x, (float) v.y, (float) v.z);
}

template <class T>
void initializeZeroed(CudaArray& array, CudaContext& cu, size_t size, const char* name) {
    array.initialize<T>(cu, size, name);
    array.upload(vector<T>(size, T{}));
}

// The API's methods are the kernels' first four, with the same values: a force's method converts by value.
static_assert((int) NarumiAccumulation::Narumi == NarumiNonbondedForce::Narumi, "NarumiAccumulation::Narumi");
static_assert((int) NarumiAccumulation::SingleFloat == NarumiNonbondedForce::SingleFloat, "NarumiAccumulation::SingleFloat");
static_assert((int) NarumiAccumulation::DoubleFloat == NarumiNonbondedForce::DoubleFloat, "NarumiAccumulation::DoubleFloat");
static_assert((int) NarumiAccumulation::FixedPoint64 == NarumiNonbondedForce::FixedPoint64, "NarumiAccumulation::FixedPoint64");
static_assert((int) NarumiAccumulation::TileSums == NarumiNonbondedForce::TileSums, "NarumiAccumulation::TileSums");

/** The kernels' method: the force's, or the paper's float pair (C-E) that the diagnostics select for the accuracy study. */
NarumiAccumulation accumulationFor(const NarumiNonbondedForce& force, const NarumiDiagnostics& diagnostics) {
    return diagnostics.accumulation.value_or(static_cast<NarumiAccumulation>(force.getAccumulationMethod()));
}

} // namespace

double NarumiEnergyParts::value() const {
    if (outOfRange)
        return numeric_limits<double>::infinity();
    return (double) fixed / 4294967296.0 + floating;
}

/** Tells OpenMM which atoms and exception pairs it may swap when it reorders atoms (same rules as NonbondedForce). */
class CudaCalcNarumiNonbondedForceKernel::ForceInfo : public ComputeForceInfo {
public:
    explicit ForceInfo(const NarumiNonbondedForce& force) : force(force) {
    }
    bool areParticlesIdentical(int particle1, int particle2) override {
        double q1, s1, e1, q2, s2, e2;
        force.getParticleParameters(particle1, q1, s1, e1);
        force.getParticleParameters(particle2, q2, s2, e2);
        return q1 == q2 && s1 == s2 && e1 == e2;
    }
    int getNumParticleGroups() override {
        return force.getNumExceptions();
    }
    void getParticlesInGroup(int index, vector<int>& particles) override {
        int p1, p2;
        double chargeProd, sigma, epsilon;
        force.getExceptionParameters(index, p1, p2, chargeProd, sigma, epsilon);
        particles = {p1, p2};
    }
    bool areGroupsIdentical(int group1, int group2) override {
        int p1, p2;
        double c1, s1, e1, c2, s2, e2;
        force.getExceptionParameters(group1, p1, p2, c1, s1, e1);
        force.getExceptionParameters(group2, p1, p2, c2, s2, e2);
        return c1 == c2 && s1 == s2 && e1 == e2;
    }

private:
    const NarumiNonbondedForce& force;
};

/**
 * OpenMM's own reordering (run when another force uses its neighbour list) moves molecules between posq indices: our
 * slots then hold scattered atoms until the next sort (correct, but every block spans the box), so sort at once.
 * OpenMM owns the listener and may outlive the kernel: it shares only the flag.
 */
class CudaCalcNarumiNonbondedForceKernel::ReorderListener : public ComputeContext::ReorderListener {
public:
    explicit ReorderListener(shared_ptr<bool> resortRequested) : resortRequested(std::move(resortRequested)) {
    }
    void execute() override {
        *resortRequested = true;
    }

private:
    shared_ptr<bool> resortRequested;
};

CudaCalcNarumiNonbondedForceKernel::~CudaCalcNarumiNonbondedForceKernel() {
    // The events and the pinned memory belong to OpenMM's context: free them while it is current.
    ContextSelector selector(cu);
    // Nothing may still run on the exclusion pass's stream when the memory it reads is freed (after this body).
    if (exceptionsStream != nullptr)
        cudaStreamSynchronize(exceptionsStream->stream);
    exceptionsStream.reset();
    if (stageTimer != nullptr) {
        printSearchReport();
        stageTimer->printTotals(stderr, "NarumiNonbondedForce, after its first evaluation,");
        stageTimer.reset();
    }
    pinnedStatus.reset();
    for (CUevent event : statusReady)
        cuEventDestroy(event);
    for (CUevent event : {shareStarted, shareFinished})
        if (event != nullptr)
            cuEventDestroy(event);
}

void CudaCalcNarumiNonbondedForceKernel::setShare(double beginFraction, double endFraction) {
    if (!(0 <= beginFraction && beginFraction <= endFraction && endFraction <= 1))
        throw OpenMMException("NarumiNonbondedForce (CUDA): a device's share must be 0 <= begin <= end <= 1, not [" +
                              to_string(beginFraction) + ", " + to_string(endFraction) + ")");
    // Rounded the same way on every device, so that neighbouring shares meet exactly.
    auto boundary = [](double fraction, int count) { return (int) llround(fraction * count); };
    data.shareBlockBegin = boundary(beginFraction, data.numBlocks);
    data.shareBlockEnd = boundary(endFraction, data.numBlocks);
    // The list covers the share and a margin for the shares' drift.  A share that leaves it, or a list more than two
    // margins wider than the share (the whole, before the first shares), is listed anew at the next evaluation.
    int margin = (int) ceil(LIST_SHARE_MARGIN * data.numBlocks);
    int begin = max(0, data.shareBlockBegin - margin), end = min(data.numBlocks, data.shareBlockEnd + margin);
    bool uncovered = data.shareBlockBegin < data.listBlockBegin || data.shareBlockEnd > data.listBlockEnd;
    bool tooWide = data.listBlockBegin < begin - margin || data.listBlockEnd > end + margin;
    if (uncovered || tooWide || data.listBlockEnd <= data.listBlockBegin) {
        data.listBlockBegin = begin;
        data.listBlockEnd = end;
        rebuildRequested = true;
        searchMonitor.listRangeChanged(evaluationsLaunched + 1);
    }
}

double CudaCalcNarumiNonbondedForceKernel::hostEnergy() const {
    if (nonbondedMethod != NarumiNonbondedForce::CutoffPeriodic || dispersionCoefficient == 0)
        return selfEnergy;
    return selfEnergy + dispersionCoefficient / (lastBoxVectors[0][0] * lastBoxVectors[1][1] * lastBoxVectors[2][2]);
}

void CudaCalcNarumiNonbondedForceKernel::initialize(const System& system, const NarumiNonbondedForce& force) {
    ContextSelector selector(cu);
    chooseDeviceSettings();
    readForce(system, force);
    setPairConstants(force);
    applySpeedSettings();
    allocateParameters(system, force);
    allocateWorkArrays();
    allocateSums();
    pointLaunchDataAtArrays();
    chooseSharedCarveout();
    setShare(0, 1);
    createEvents();
    registerWithContext(force);
    createStreamOrTimer();
}

void CudaCalcNarumiNonbondedForceKernel::chooseDeviceSettings() {
    try {
        Common::requireKernelImage(cu.getDeviceIndex(), "NarumiNonbondedForce (CUDA)");
        NarumiDeviceProperties gpu = queryNarumiDeviceProperties(cu.getDeviceIndex());
        // device-class: this GPU taken as one of that class, for the settings only.
        deviceSettings = chooseNarumiDeviceSettings(diagnostics.deviceClass ? emulatedAs(gpu, *diagnostics.deviceClass) : gpu);
    }
    catch (const std::runtime_error& error) {
        throw OpenMMException(error.what());
    }
}

void CudaCalcNarumiNonbondedForceKernel::readForce(const System& system, const NarumiNonbondedForce& force) {
    int numAtoms = system.getNumParticles();
    if (numAtoms >= (1 << NARUMI_LIST_SLOT_BITS))
        throw OpenMMException("NarumiNonbondedForce (CUDA): " + to_string(numAtoms) + " particles; the CUDA platform takes at most " +
                              to_string((1 << NARUMI_LIST_SLOT_BITS) - 1));
    method = accumulationFor(force, diagnostics);
    refuseTypesWithStudyMethod(force, method);
    nonbondedMethod = force.getNonbondedMethod();
    cutoff = force.getCutoffDistance();
    bool periodic = (nonbondedMethod == NarumiNonbondedForce::CutoffPeriodic);
    // Double precision: the pairs in double too, for the methods whose sums hold double terms (the float-pair
    // methods A and C-E are defined on float terms and keep them).
    pairsInDouble = cu.getUseDoublePrecision() && (method == NarumiAccumulation::Narumi || method == NarumiAccumulation::FixedPoint64 ||
                                                   method == NarumiAccumulation::TileSums || method == NarumiAccumulation::DoubleFloat);
    data.numAtoms = numAtoms;
    data.numSlots = (numAtoms + 31) / 32 * 32;
    data.numBlocks = data.numSlots / 32;
    data.numSuperblocks = (data.numBlocks + 31) / 32;
    data.numExceptions = force.getNumExceptions();
    data.box.periodic = periodic;
    data.exceptionsUsePeriodic = periodic && force.getExceptionsUsePeriodicBoundaryConditions();
    // Non-periodic sort cells: fine enough to give compact blocks, repeating every 1024 cells (102 nm).
    data.sortCellSize = 0.1f;
}

void CudaCalcNarumiNonbondedForceKernel::setPairConstants(const NarumiNonbondedForce& force) {
    bool useCutoff = (nonbondedMethod != NarumiNonbondedForce::NoCutoff);
    NarumiPairConstantsOf<double>& pair = data.pairDouble;
    if (force.getElectrostaticsMethod() == NarumiNonbondedForce::NoCoulomb)
        pair.coulombKind = NARUMI_COULOMB_NONE;
    else if (!useCutoff)
        pair.coulombKind = NARUMI_COULOMB_PLAIN;
    else if (force.getElectrostaticsMethod() == NarumiNonbondedForce::ReactionField)
        pair.coulombKind = NARUMI_COULOMB_REACTION_FIELD;
    else
        pair.coulombKind = NARUMI_COULOMB_SHIFTED;
    pair.cutoff2 = useCutoff ? cutoff * cutoff : numeric_limits<double>::infinity();
    pair.invCutoff2 = useCutoff ? 1 / (cutoff * cutoff) : 0.0;
    NarumiNonbondedForceImpl::ReactionFieldConstants rf = NarumiNonbondedForceImpl::reactionFieldConstants(force);
    pair.krf = useCutoff ? rf.krf : 0.0;
    pair.twoKrf = 2 * pair.krf;
    pair.crf = useCutoff ? rf.crf : 0.0;
    pair.useSwitch = useCutoff && force.getUseSwitchingFunction();
    pair.switchDistance = force.getSwitchingDistance();
    pair.invSwitchWidth = pair.useSwitch ? 1 / (cutoff - force.getSwitchingDistance()) : 0.0;
    pair.shiftLennardJones = useCutoff && force.getLennardJonesModifier() == NarumiNonbondedForce::LennardJonesPotentialShift;
    pair.excludedChargeTerms = useCutoff && pair.coulombKind == NARUMI_COULOMB_REACTION_FIELD &&
                               force.getReactionFieldConvention() == NarumiNonbondedForce::GromacsReactionField;
    data.pair = roundedToFloat(pair);
    // |f_c| <= |dE/dr / r| r with r below the cutoff: 1e-4 to spare covers the rounding of r^2, rsqrt and f_c.
    data.smallForceOverR = useCutoff ? (float) (NARUMI_LARGE_TERM * (1 - 1e-4) / cutoff) : 0.0f;
}

void CudaCalcNarumiNonbondedForceKernel::applySpeedSettings() {
    // The list holds every pair within cutoff + skin and is kept until an atom has moved half the skin (a Verlet
    // buffer, as OpenMM and GROMACS keep theirs), the skin chosen from how often that happens (NarumiListSkin).
    listSkin = NarumiListSkin(diagnostics.listSkin.value_or(-1));
    applyListSkin(listSkin.current());
    data.tileChunks = diagnostics.tileChunks.value_or(deviceSettings.tileChunks) ? 1 : 0;
    data.tileFirstChunksAssigned = diagnostics.tileFirstChunksAssigned.value_or(deviceSettings.tileFirstChunksAssigned) ? 1 : 0;
    data.slotOrderedPartners = (method == NarumiAccumulation::TileSums) ? 1 : 0;
    data.searchWarps = diagnostics.searchWarps.value_or(0);  // 0: chosen from the list's size at each launch
    data.fewSearchWarpsFromWaves = deviceSettings.fewSearchWarpsFromWaves;
    data.narumiSumsInDouble = diagnostics.sumsInDouble.value_or(deviceSettings.narumiSumsInDouble) ? 1 : 0;
    data.sharedCarveout = -1;  // chooseSharedCarveout, once the pair kernel is known
}

void CudaCalcNarumiNonbondedForceKernel::chooseSharedCarveout() {
    // Every kernel of the force in the split of L1 and shared memory that its pair kernel needs: with the driver's
    // choice per kernel the DHFR boxes ran 1.5-2.7% slower (H200, docs/benchmarks.md, "Design decisions").
    try {
        data.sharedCarveout = diagnostics.sharedCarveout.value_or(narumiPairKernelCarveout(data, method));
    }
    catch (const std::runtime_error& error) {
        throw asOpenMMException(error);
    }
}

void CudaCalcNarumiNonbondedForceKernel::allocateParameters(const System& system, const NarumiNonbondedForce& force) {
    exceptionPairs = sortedExceptionPairs(force);
    int numAtoms = data.numAtoms;
    atomParameters.initialize<float4>(cu, max(1, numAtoms), "narumiAtomParameters");
    exceptionAtoms.initialize<int2>(cu, max(1, data.numExceptions), "narumiExceptionAtoms");
    exceptionParameters.initialize<float4>(cu, max(1, data.numExceptions), "narumiExceptionParameters");
    if (pairsInDouble) {
        atomParametersDouble.initialize<NarumiDouble4>(cu, max(1, numAtoms), "narumiAtomParametersDouble");
        exceptionParametersDouble.initialize<NarumiDouble4>(cu, max(1, data.numExceptions), "narumiExceptionParametersDouble");
    }
    uploadParameters(system, force);
}

void CudaCalcNarumiNonbondedForceKernel::allocateWorkArrays() {
    int numAtoms = data.numAtoms;
    sortKeys.initialize<unsigned int>(cu, numAtoms, "narumiSortKeys");
    sortedKeys.initialize<unsigned int>(cu, numAtoms, "narumiSortedKeys");
    sortValues.initialize<int>(cu, numAtoms, "narumiSortValues");
    slotPosqIndex.initialize<int>(cu, data.numSlots, "narumiSlotPosqIndex");
    slotOfAtom.initialize<int>(cu, numAtoms, "narumiSlotOfAtom");
    slotPositions.initialize<float4>(cu, data.numSlots, "narumiSlotPositions");
    builtPositions.initialize<float4>(cu, data.numSlots, "narumiBuiltPositions");
    slotLennardJones.initialize<float2>(cu, data.numSlots, "narumiSlotLennardJones");
    if (pairsInDouble) {
        slotPositionsDouble.initialize<NarumiDouble4>(cu, data.numSlots, "narumiSlotPositionsDouble");
        slotLennardJonesDouble.initialize<double2>(cu, data.numSlots, "narumiSlotLennardJonesDouble");
    }
    blockCenters.initialize<float4>(cu, data.numBlocks, "narumiBlockCenters");
    blockHalfExtents.initialize<float4>(cu, data.numBlocks, "narumiBlockHalfExtents");
    superblockCenters.initialize<float4>(cu, data.numSuperblocks, "narumiSuperblockCenters");
    superblockHalfExtents.initialize<float4>(cu, data.numSuperblocks, "narumiSuperblockHalfExtents");
    initializeZeroed<int>(tileCounts, cu, data.numBlocks + 1, "narumiTileCounts");  // the last entry stays 0
    candidateCounts.initialize<int>(cu, data.numBlocks, "narumiCandidateCounts");
    initializeZeroed<int>(candidatesReady, cu, data.numBlocks, "narumiCandidatesReady");  // no build's epoch is 0
    tileOffsets.initialize<int>(cu, data.numBlocks + 1, "narumiTileOffsets");
    overflowBlocks.initialize<int>(cu, data.numBlocks, "narumiOverflowBlocks");
    try {
        data.cubStorageBytes = narumiSortStorageBytes(numAtoms);
        pinnedStatus.resize(STATUS_SLOTS);
    }
    catch (const std::runtime_error& error) {
        throw asOpenMMException(error);
    }
    cubStorage.initialize<char>(cu, max<size_t>(1, data.cubStorageBytes), "narumiCubStorage");
    // A first guess (water at a 1 nm cutoff needs about 20 tiles and 70 candidate blocks per block); the first
    // evaluation measures what is needed (blocks that do not fit are never lost: computeTiles computes them whole) and the
    // segments then grow whenever an evaluation reports more.
    allocateTiles(64);
    allocateCandidates(160);
}

void CudaCalcNarumiNonbondedForceKernel::allocateSums() {
    int paddedNumAtoms = cu.getPaddedNumAtoms();
    if (method == NarumiAccumulation::SingleFloat)
        initializeZeroed<float>(forceFloat, cu, 3 * paddedNumAtoms, "narumiForceFloat");
    if (narumiSumsForcesInDouble(method))
        initializeZeroed<double>(forceDouble, cu, 3 * paddedNumAtoms, "narumiForceDouble");
    initializeZeroed<unsigned long long>(energyFixed, cu, 1, "narumiEnergyFixed");
    initializeZeroed<float>(energyFloat, cu, 1, "narumiEnergyFloat");
    initializeZeroed<double>(energyDouble, cu, 1, "narumiEnergyDouble");
    initializeZeroed<NarumiStatusWords>(status, cu, 1, "narumiStatus");
}

void CudaCalcNarumiNonbondedForceKernel::pointLaunchDataAtArrays() {
    data.sortKeys = (unsigned int*) sortKeys.getDevicePointer();
    data.sortedKeys = (unsigned int*) sortedKeys.getDevicePointer();
    data.sortValues = (int*) sortValues.getDevicePointer();
    data.slotPosqIndex = (int*) slotPosqIndex.getDevicePointer();
    data.slotOfAtom = (int*) slotOfAtom.getDevicePointer();
    data.slotPositions = (float4*) slotPositions.getDevicePointer();
    data.builtPositions = (float4*) builtPositions.getDevicePointer();
    data.slotLennardJones = (float2*) slotLennardJones.getDevicePointer();
    data.blockCenters = (float4*) blockCenters.getDevicePointer();
    data.blockHalfExtents = (float4*) blockHalfExtents.getDevicePointer();
    data.superblockCenters = (float4*) superblockCenters.getDevicePointer();
    data.superblockHalfExtents = (float4*) superblockHalfExtents.getDevicePointer();
    data.tileCounts = (int*) tileCounts.getDevicePointer();
    data.candidateCounts = (int*) candidateCounts.getDevicePointer();
    data.candidatesReady = (int*) candidatesReady.getDevicePointer();
    data.tileOffsets = (int*) tileOffsets.getDevicePointer();
    data.overflowBlocks = (int*) overflowBlocks.getDevicePointer();
    data.cubStorage = (void*) cubStorage.getDevicePointer();
    data.atomParameters = (const float4*) atomParameters.getDevicePointer();
    data.exceptionAtoms = (const int2*) exceptionAtoms.getDevicePointer();
    data.exceptionParameters = (const float4*) exceptionParameters.getDevicePointer();
    // Null pointers say "float pairs" to the launcher.
    data.atomParametersDouble = pairsInDouble ? (const NarumiDouble4*) atomParametersDouble.getDevicePointer() : nullptr;
    data.exceptionParametersDouble = pairsInDouble ? (const NarumiDouble4*) exceptionParametersDouble.getDevicePointer() : nullptr;
    data.slotPositionsDouble = pairsInDouble ? (NarumiDouble4*) slotPositionsDouble.getDevicePointer() : nullptr;
    data.slotLennardJonesDouble = pairsInDouble ? (double2*) slotLennardJonesDouble.getDevicePointer() : nullptr;
    data.sums.forceFloat = forceFloat.isInitialized() ? (float*) forceFloat.getDevicePointer() : nullptr;
    data.sums.forceDouble = forceDouble.isInitialized() ? (double*) forceDouble.getDevicePointer() : nullptr;
    data.sums.energyFixed = (unsigned long long*) energyFixed.getDevicePointer();
    data.sums.energyFloat = (float*) energyFloat.getDevicePointer();
    data.sums.energyDouble = (double*) energyDouble.getDevicePointer();
    data.status = (NarumiStatusWords*) status.getDevicePointer();
    data.sums.errorFlags = &data.status->errorFlags;
}

void CudaCalcNarumiNonbondedForceKernel::createEvents() {
    statusReady.reserve(STATUS_SLOTS);
    for (int slot = 0; slot < STATUS_SLOTS; slot++) {
        CUevent event;
        checkDriver(cuEventCreate(&event, CU_EVENT_DISABLE_TIMING), "creating an event");
        statusReady.push_back(event);
    }
    if (partOfParallel) {
        checkDriver(cuEventCreate(&shareStarted, CU_EVENT_DEFAULT), "creating an event");
        checkDriver(cuEventCreate(&shareFinished, CU_EVENT_DEFAULT), "creating an event");
    }
}

void CudaCalcNarumiNonbondedForceKernel::registerWithContext(const NarumiNonbondedForce& force) {
    info = new ForceInfo(force);
    cu.addForce(info);
    cu.addReorderListener(new ReorderListener(resortRequested));
}

void CudaCalcNarumiNonbondedForceKernel::createStreamOrTimer() {
    if (diagnostics.profileStages.value_or(false))
        stageTimer = make_unique<Common::StageTimer>();  // times the stages one after another, on one stream
    else if (diagnostics.exclusionStream.value_or(true)) {
        try {
            exceptionsStream = make_unique<NarumiExceptionsStream>();
        }
        catch (const std::runtime_error& error) {
            throw asOpenMMException(error);
        }
    }
}

void CudaCalcNarumiNonbondedForceKernel::uploadTypeTable(const NarumiNonbondedForce& force) {
    NarumiLennardJonesPairs pairs(force);
    // With type tables the kernels read every pair's C6 and C12 from a (class, class) table: one load per pair, no
    // per-particle parameters in the pair loop.
    int classes = pairs.usesTable() ? pairs.getNumClasses() : 0;
    if (classes > MAX_LENNARD_JONES_CLASSES)
        throw OpenMMException("NarumiNonbondedForce: the particles fall into " + to_string(classes) + " classes of Lennard-Jones parameters "
                              "(type, sigma, epsilon); the CUDA platform's type table takes at most " +
                              to_string(MAX_LENNARD_JONES_CLASSES) + ". Give particles of one type the same sigma and epsilon.");
    data.numTableClasses = classes;
    if (classes == 0)
        return;
    vector<double2> tableDouble((size_t) classes * classes);
    for (int a = 0; a < classes; a++)
        for (int b = 0; b < classes; b++)
            pairs.pairParameters(pairs.classMember(a), pairs.classMember(b), tableDouble[(size_t) a * classes + b].x,
                                 tableDouble[(size_t) a * classes + b].y);
    vector<float2> table(tableDouble.size());
    for (size_t k = 0; k < table.size(); k++)
        table[k] = float2{(float) tableDouble[k].x, (float) tableDouble[k].y};
    vector<int> classOfAtom(max(1, data.numAtoms), 0);
    for (int i = 0; i < data.numAtoms; i++)
        classOfAtom[i] = pairs.classOf(i);
    // Types may first be given by updateParametersInContext: the arrays are made (or resized) here.
    auto sized = [&](CudaArray& array, size_t size, size_t elementSize, const char* name) {
        if (!array.isInitialized())
            array.initialize(cu, size, elementSize, name);
        else if (array.getSize() != size)
            array.resize(size);
    };
    sized(atomTableClass, classOfAtom.size(), sizeof(int), "narumiAtomTableClass");
    sized(slotTableClass, data.numSlots, sizeof(int), "narumiSlotTableClass");
    sized(lennardJonesTable, table.size(), sizeof(float2), "narumiLennardJonesTable");
    atomTableClass.upload(classOfAtom);
    lennardJonesTable.upload(table);
    data.atomTableClass = (const int*) atomTableClass.getDevicePointer();
    data.slotTableClass = (int*) slotTableClass.getDevicePointer();
    data.lennardJonesTable = (const float2*) lennardJonesTable.getDevicePointer();
    if (pairsInDouble) {
        sized(lennardJonesTableDouble, tableDouble.size(), sizeof(double2), "narumiLennardJonesTableDouble");
        lennardJonesTableDouble.upload(tableDouble);
        data.lennardJonesTableDouble = (const double2*) lennardJonesTableDouble.getDevicePointer();
    }
}

void CudaCalcNarumiNonbondedForceKernel::uploadParameters(const System& system, const NarumiNonbondedForce& force) {
    int numAtoms = force.getNumParticles();
    // The Coulomb dielectric eps_r divides every Coulomb term: k/eps_r is folded into the charges and exceptions.
    const double coulombFactor = COULOMB_CONSTANT / force.getCoulombDielectric();
    double sqrtCoulomb = sqrt(coulombFactor);
    vector<float4> parameters(max(1, numAtoms), float4{0, 0, 0, 0});
    vector<NarumiDouble4> parametersDouble(max(1, numAtoms), NarumiDouble4{0, 0, 0, 0});
    for (int i = 0; i < numAtoms; i++) {
        double charge, sigma, epsilon;
        force.getParticleParameters(i, charge, sigma, epsilon);
        // Stored so that a pair needs only symmetric products: k q_i q_j = (q_i sqrt k)(q_j sqrt k), and so on.
        parametersDouble[i] = NarumiDouble4{charge * sqrtCoulomb, 0.5 * sigma, 2 * sqrt(epsilon), 0.0};
        parameters[i] = float4{(float) parametersDouble[i].x, (float) parametersDouble[i].y, (float) parametersDouble[i].z, 0.0f};
    }
    atomParameters.upload(parameters);
    if (pairsInDouble)
        atomParametersDouble.upload(parametersDouble);
    bool noCoulomb = (force.getElectrostaticsMethod() == NarumiNonbondedForce::NoCoulomb);
    vector<float4> exceptions(max(1, data.numExceptions), float4{0, 0, 0, 0});
    vector<NarumiDouble4> exceptionsDouble(max(1, data.numExceptions), NarumiDouble4{0, 0, 0, 0});
    vector<int2> atoms(max(1, data.numExceptions), int2{0, 0});
    for (int i = 0; i < data.numExceptions; i++) {
        int p1, p2;
        double chargeProd, sigma, epsilon;
        force.getExceptionParameters(i, p1, p2, chargeProd, sigma, epsilon);
        atoms[i] = int2{p1, p2};
        // NoCoulomb drops every Coulomb term, those of exceptions too (as the Reference kernel does).
        exceptionsDouble[i] = NarumiDouble4{noCoulomb ? 0.0 : coulombFactor * chargeProd, sigma, 4 * epsilon, 0.0};
        exceptions[i] = float4{(float) exceptionsDouble[i].x, (float) sigma, (float) exceptionsDouble[i].z, 0.0f};
    }
    exceptionParameters.upload(exceptions);
    if (pairsInDouble)
        exceptionParametersDouble.upload(exceptionsDouble);
    exceptionAtoms.upload(atoms);
    uploadTypeTable(force);
    selfEnergy = NarumiNonbondedForceImpl::reactionFieldSelfEnergy(force, COULOMB_CONSTANT);
    dispersionCoefficient = (force.getUseDispersionCorrection() ? NarumiNonbondedForceImpl::calcDispersionCorrection(system, force) : 0.0);
}

int CudaCalcNarumiNonbondedForceKernel::maxTilesPerBlock() const {
    // Every block with every block (NoCutoff), but at most 2^22 tiles in all (512 MB of atom slots): blocks beyond
    // that computeTiles computes whole, with the same pairs.
    return (int) max<long long>(1, min<long long>(data.numBlocks, (1LL << 22) / data.numBlocks));
}

int CudaCalcNarumiNonbondedForceKernel::allocatePerBlockList(CudaArray& list, int perBlock, int entriesPerItem, const char* name) {
    perBlock = max(1, min(perBlock, maxTilesPerBlock()));
    long long entries = (long long) entriesPerItem * perBlock * data.numBlocks;
    if (list.isInitialized())
        list.resize(entries);
    else
        list.initialize<int>(cu, entries, name);
    return perBlock;
}

void CudaCalcNarumiNonbondedForceKernel::allocateTiles(int tilesPerBlock) {
    data.tilesPerBlockCapacity = allocatePerBlockList(tileAtoms, tilesPerBlock, 32, "narumiTileAtoms");
    data.tileAtoms = (int*) tileAtoms.getDevicePointer();
}

void CudaCalcNarumiNonbondedForceKernel::allocateCandidates(int candidatesPerBlock) {
    data.candidatesPerBlockCapacity = allocatePerBlockList(candidateBlocks, candidatesPerBlock, 1, "narumiCandidateBlocks");
    data.candidateBlocks = (int*) candidateBlocks.getDevicePointer();
}

void CudaCalcNarumiNonbondedForceKernel::growListForSkin(double oldSkin, double newSkin) {
    const NarumiStatusWords& totals = searchMonitor.totals();
    double growth = pow((cutoff + newSkin) / (cutoff + oldSkin), 3);
    if (nonbondedMethod == NarumiNonbondedForce::NoCutoff || growth <= 1)
        return;
    // The volume a block lists grows less than the sphere's (the block's own extent adds to both radii): an upper bound.
    int tiles = (int) ceil(totals.tilesPerBlockNeeded * growth), candidates = (int) ceil(totals.candidatesPerBlockNeeded * growth);
    if (tiles > data.tilesPerBlockCapacity && data.tilesPerBlockCapacity < maxTilesPerBlock())
        allocateTiles(tiles + tiles / 8 + 4);
    if (candidates > data.candidatesPerBlockCapacity && data.candidatesPerBlockCapacity < maxTilesPerBlock())
        allocateCandidates(candidates + candidates / 8 + 4);
}

void CudaCalcNarumiNonbondedForceKernel::setBox(const Vec3* boxVectors) {
    NarumiBox& box = data.box;
    box.sizeDouble = make_double3(boxVectors[0][0], boxVectors[1][1], boxVectors[2][2]);
    box.invSizeDouble = make_double3(1 / boxVectors[0][0], 1 / boxVectors[1][1], 1 / boxVectors[2][2]);
    box.vecXDouble = make_double3(boxVectors[0][0], boxVectors[0][1], boxVectors[0][2]);
    box.vecYDouble = make_double3(boxVectors[1][0], boxVectors[1][1], boxVectors[1][2]);
    box.vecZDouble = make_double3(boxVectors[2][0], boxVectors[2][1], boxVectors[2][2]);
    box.size = roundedToFloat(box.sizeDouble);
    box.invSize = roundedToFloat(box.invSizeDouble);
    box.vecX = roundedToFloat(box.vecXDouble);
    box.vecY = roundedToFloat(box.vecYDouble);
    box.vecZ = roundedToFloat(box.vecZDouble);
    box.triclinic = (boxVectors[1][0] != 0 || boxVectors[2][0] != 0 || boxVectors[2][1] != 0);
    if (box.periodic && diagnostics.sortAlongCubes.value_or(true))
        setSortCubes(boxVectors);
}

void CudaCalcNarumiNonbondedForceKernel::setSortCubes(const Vec3* boxVectors) {
    // Cubes of about the brick's shortest edge, at most 4,096 of them (the path's place takes 12 of the key's 30 bits,
    // leaving 2^6 cells along a cube's edge), each with as many cells along its edges as the key's bits leave.
    const double edges[3] = {boxVectors[0][0], boxVectors[1][1], boxVectors[2][2]};
    double cubeEdge = min(edges[0], min(edges[1], edges[2]));
    NarumiCubeGrid grid;
    while (true) {
        for (int j = 0; j < 3; j++)
            grid.cubes[j] = max(1, (int) lround(edges[j] / cubeEdge));
        if (grid.numCubes() <= 4096)
            break;
        cubeEdge *= 1.25;
    }
    int orderBits = 0;
    while ((1 << orderBits) < grid.numCubes())
        orderBits++;
    grid.cubeBits = min(10, (30 - orderBits) / 3);
    data.sortCubeCellsPerNm = make_float3((float) ((grid.cubes[0] << grid.cubeBits) / edges[0]), (float) ((grid.cubes[1] << grid.cubeBits) / edges[1]),
                                          (float) ((grid.cubes[2] << grid.cubeBits) / edges[2]));
    if (data.sortAlongCubes && grid.cubes[0] == data.sortCubes.x && grid.cubes[1] == data.sortCubes.y && grid.cubes[2] == data.sortCubes.z &&
        grid.cubeBits == data.sortCubeBits)
        return;
    vector<unsigned char> turns = narumiCubeTurns(grid);
    if (!sortCubeTurns.isInitialized())
        sortCubeTurns.initialize(cu, 4096, 1, "narumiSortCubeTurns");
    sortCubeTurns.uploadSubArray(turns.data(), 0, turns.size());
    data.sortCubeTurns = (const unsigned char*) sortCubeTurns.getDevicePointer();
    data.sortCubes = make_int3(grid.cubes[0], grid.cubes[1], grid.cubes[2]);
    data.sortCubeBits = grid.cubeBits;
    data.sortAlongCubes = 1;
}

void CudaCalcNarumiNonbondedForceKernel::checkStatus(bool wait) {
    if (firstUnreadCopy == statusCopies)
        return;
    unsigned long long newest = statusCopies - 1;
    if (wait)
        checkDriver(cuEventSynchronize(statusReady[newest % STATUS_SLOTS]), "waiting for the nonbonded kernels");
    else {
        // The totals are running sums: only the newest finished copy matters, and the copies finish in order.
        unsigned long long finished = firstUnreadCopy;
        while (finished < statusCopies && cuEventQuery(statusReady[finished % STATUS_SLOTS]) == CUDA_SUCCESS)
            finished++;
        if (finished == firstUnreadCopy)
            return;
        newest = finished - 1;
    }
    firstUnreadCopy = newest + 1;
    const NarumiStatusWords words = pinnedStatus.data()[newest % STATUS_SLOTS];
    lastStatus = words;
    if (shareStarted != nullptr && newest == statusCopies - 1) {
        // The share's events belong to the last evaluation, which precedes its status copy in the stream: completed.
        float milliseconds = 0;
        checkDriver(cuEventElapsedTime(&milliseconds, shareStarted, shareFinished), "timing the device's share");
        shareMilliseconds = milliseconds;
        shareTimesRead++;
    }
    noteSearchCounters(words);
    // Blocks whose tiles did not fit were computed whole by the pair kernel; grow the segments so that the next steps
    // need not.  The segments move when they grow: the list is rebuilt at the next evaluation.
    bool grew = false;
    if (words.tilesPerBlockNeeded > data.tilesPerBlockCapacity && data.tilesPerBlockCapacity < maxTilesPerBlock()) {
        allocateTiles(words.tilesPerBlockNeeded + words.tilesPerBlockNeeded / 8 + 4);
        grew = true;
    }
    if (words.candidatesPerBlockNeeded > data.candidatesPerBlockCapacity && data.candidatesPerBlockCapacity < maxTilesPerBlock()) {
        allocateCandidates(words.candidatesPerBlockNeeded + words.candidatesPerBlockNeeded / 8 + 4);
        grew = true;
    }
    // A block that overflowed its candidates counted no tiles: the next evaluation, listed anew, is waited for too.
    rebuildRequested |= grew;
    tileListSized = !grew;
    if (words.errorFlags != 0) {
        checkDriver(cuMemsetD32Async(status.getDevicePointer() + offsetof(NarumiStatusWords, errorFlags), 0, 1, cu.getCurrentStream()),
                    "clearing the error flags");
        firstUnreadCopy = statusCopies;  // the copies made before the flags are cleared still hold them
        if (wait) {
            // An energy evaluation of this very state: report it through an infinite energy, which a minimizer's
            // line search rejects (it probes such overlaps) and which getState shows to anyone else.
            lastEvaluationOutOfRange = true;
            return;
        }
        string what = (words.errorFlags & NARUMI_ERROR_TERM_RANGE)
            ? "a pair force or energy was not finite or exceeded 2^31 kJ/mol(/nm), OpenMM's fixed-point range"
            : "an atom's force sum left the range of Narumi's accumulator (|F| >= 2^20 kJ/mol/nm)";
        throw OpenMMException("NarumiNonbondedForce (CUDA): " + what + ". Particles overlap or the simulation has become "
                              "unstable (NaN coordinates, too large a time step, an unminimized structure).");
    }
}

double CudaCalcNarumiNonbondedForceKernel::execute(ContextImpl& context, bool includeForces, bool includeEnergy) {
    ContextSelector selector(cu);
    checkStatus(false);
    Vec3 boxVectors[3];
    cu.getPeriodicBoxVectors(boxVectors[0], boxVectors[1], boxVectors[2]);
    bool periodic = (nonbondedMethod == NarumiNonbondedForce::CutoffPeriodic);
    if (periodic) {
        NarumiNonbondedForceImpl::checkCutoffAgainstBox(cutoff, boxVectors);
        // A new box (a barostat) moves every image: the list is rebuilt.
        for (int i = 0; i < 3; i++)
            rebuildRequested |= (boxVectors[i] != lastBoxVectors[i]);
        setBox(boxVectors);
        for (int i = 0; i < 3; i++)
            lastBoxVectors[i] = boxVectors[i];
    }
    data.posq = (const void*) cu.getPosq().getDevicePointer();
    data.atomIndex = (const int*) cu.getAtomIndexArray().getDevicePointer();
    data.sums.forceFixed = (unsigned long long*) cu.getLongForceBuffer().getDevicePointer();
    data.sums.paddedNumAtoms = cu.getPaddedNumAtoms();
    CUstream stream = cu.getCurrentStream();
    try {
        // The sort order only makes blocks compact: atoms move a few hundredths of a nm between re-sorts.
        bool resort = (evaluationsSinceSort == 0 || evaluationsSinceSort >= SORT_INTERVAL || *resortRequested);
        *resortRequested = false;
        if (resort) {
            evaluationsSinceSort = 0;
            // A sort rebuilds the list: the one moment the skin may change (the search's tiles then change too).
            double skin = listSkin.current();
            const NarumiStatusWords& totals = searchMonitor.totals();
            if (listSkin.atForcedRebuild(totals.evaluations, totals.listBuilds) != skin) {
                growListForSkin(skin, listSkin.current());
                applyListSkin(listSkin.current());
                searchMonitor.listRangeChanged(evaluationsLaunched + 1);
            }
        }
        evaluationsSinceSort++;
        if (rebuildRequested)
            checkDriver(cuMemsetD32Async(status.getDevicePointer() + offsetof(NarumiStatusWords, rebuildList), 1, 1, stream),
                        "requesting a list rebuild");
        rebuildRequested = false;
        evaluationsLaunched++;
        narumiLaunchNonbonded(data, method, includeEnergy, cu.getUseDoublePrecision(), resort, (cudaStream_t) stream,
                              exceptionsStream.get(), stageTimer.get(), (cudaEvent_t) shareStarted, (cudaEvent_t) shareFinished);
        // The first evaluation sorts, sizes the list and loads the kernels: the report is of the evaluations after it.
        if (stageTimer != nullptr && evaluationsLaunched == 1)
            stageTimer->clearTotals();
        // A slot still unread when the GPU is STATUS_SLOTS evaluations behind is given up: a newer copy supersedes it.
        if (statusCopies - firstUnreadCopy == STATUS_SLOTS)
            firstUnreadCopy++;
        int slot = (int) (statusCopies % STATUS_SLOTS);
        checkDriver(cuMemcpyDtoHAsync(pinnedStatus.data() + slot, status.getDevicePointer(), sizeof(NarumiStatusWords), stream),
                    "reading the status");
        checkDriver(cuEventRecord(statusReady[slot], stream), "recording an event");
        statusCopies++;
    }
    catch (const std::runtime_error& error) {
        throw asOpenMMException(error);
    }
    // The first evaluation sizes the tile list, and one after the list grew checks it; energy evaluations report errors
    // at once (OpenMM waits for them anyway).
    lastEvaluationOutOfRange = false;
    if (!tileListSized || includeEnergy)
        checkStatus(true);
    if (!includeEnergy)
        return 0.0;
    // The energy comes back with the status words (OpenMM sums what execute returns), in double whatever the
    // precision: on several devices their fixed-point parts add exactly before this one conversion.
    lastEnergyParts.fixed = lastStatus.energyFixed;
    lastEnergyParts.floating = lastStatus.energyFloating;
    lastEnergyParts.outOfRange = lastEvaluationOutOfRange;
    if (partOfParallel)
        return 0.0;
    return lastEnergyParts.value() + hostEnergy();
}

void CudaCalcNarumiNonbondedForceKernel::noteSearchCounters(const NarumiStatusWords& words) {
    string what = searchMonitor.note(words, data.tilesPerBlockCapacity >= maxTilesPerBlock(), data.numAtoms,
                                     nonbondedMethod == NarumiNonbondedForce::NoCutoff);
    if (!what.empty())
        fprintf(stderr, "NarumiNonbondedForce (CUDA) warning: %s.\n", what.c_str());
}

void CudaCalcNarumiNonbondedForceKernel::applyListSkin(double skin) {
    // The block test runs on float bounding boxes: a small margin keeps it conservative despite their rounding.
    // NoCutoff lists every pair: its list never goes stale.
    bool useCutoff = (nonbondedMethod != NarumiNonbondedForce::NoCutoff);
    double tileCutoff = (cutoff + skin) * (1 + 1e-5) + 1e-4;
    data.tileCutoff2 = useCutoff ? (float) (tileCutoff * tileCutoff) : numeric_limits<float>::infinity();
    data.halfSkin2 = useCutoff ? (float) (0.25 * skin * skin) : numeric_limits<float>::infinity();
}

void CudaCalcNarumiNonbondedForceKernel::printSearchReport() {
    NarumiStatusWords w = searchMonitor.totals();
    if (firstUnreadCopy < statusCopies && cuEventSynchronize(statusReady[(statusCopies - 1) % STATUS_SLOTS]) == CUDA_SUCCESS)
        w = pinnedStatus.data()[(statusCopies - 1) % STATUS_SLOTS];
    double evaluations = max(1.0, (double) w.evaluations);
    int searchWarps = 0;  // 0 in the report if the occupancy query fails: this runs in the destructor, which must not throw
    try {
        searchWarps = narumiSearchWarps(data);
    }
    catch (const std::exception&) {
    }
    fprintf(stderr, "NarumiNonbondedForce search, %llu evaluations (per evaluation): tiles %.1f, list builds %.3f, overflow "
            "blocks %.3f, unfiltered blocks %.3f, untested block pairs %.3f, tiles in chunks %.3f; %d blocks, skin %g nm, search "
            "warps per block I %d, Narumi sums in doubles %d, float-rate settings %d\n",
            w.evaluations, w.listedTiles / evaluations, w.listBuilds / evaluations, w.overflowBlocks / evaluations,
            w.unfilteredBlocks / evaluations, w.untestedBlockPairs / evaluations, w.chunkedEvaluations / evaluations, data.numBlocks,
            listSkin.current(), searchWarps, data.narumiSumsInDouble, deviceSettings.deviceClass == NarumiDeviceClass::FloatRate ? 1 : 0);
}

void CudaCalcNarumiNonbondedForceKernel::copyParametersToContext(ContextImpl& context, const NarumiNonbondedForce& force) {
    ContextSelector selector(cu);
    if (force.getNumParticles() != data.numAtoms)
        throw OpenMMException("NarumiNonbondedForce: updateParametersInContext cannot change the number of particles (" +
                              to_string(data.numAtoms) + " -> " + to_string(force.getNumParticles()) + ")");
    if (sortedExceptionPairs(force) != exceptionPairs)
        throw OpenMMException("NarumiNonbondedForce: updateParametersInContext cannot change which pairs are exceptions");
    refuseTypesWithStudyMethod(force, method);  // types may have been given since the Context was created
    uploadParameters(context.getSystem(), force);
    chooseSharedCarveout();  // the type table may have changed size
    *resortRequested = true;  // between sorts the slots keep their atoms' parameters (gatherSlots.cu)
    cu.invalidateMolecules(info);
}
