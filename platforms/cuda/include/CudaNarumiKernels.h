#ifndef OPENMM_CUDA_NARUMI_KERNELS_H_
#define OPENMM_CUDA_NARUMI_KERNELS_H_

#include "NarumiCommon/DeviceBuffer.h"
#include "NarumiCommon/StageTimer.h"
#include "NarumiDeviceSettings.h"
#include "NarumiDiagnostics.h"
#include "NarumiKernels.h"
#include "NarumiListSkin.h"
#include "NarumiNonbondedLaunch.h"
#include "NarumiSearchMonitor.h"
#include "openmm/cuda/CudaArray.h"
#include "openmm/cuda/CudaContext.h"
#include <cuda.h>
#include <memory>
#include <vector>

namespace OpenMMNarumi {

/**
 * An evaluation's energy as the kernels summed it: fixed-point units of 2^-32 kJ/mol (Narumi, FixedPoint64) plus
 * floating-point sums (methods A to E).  Several devices' parts add exactly (integers) before one conversion.
 */
struct NarumiEnergyParts {
    long long fixed = 0;
    double floating = 0;
    bool outOfRange = false;   // an accumulator or term left its range: the energy is +infinity
    NarumiEnergyParts& operator+=(const NarumiEnergyParts& other) {
        fixed += other.fixed;  // two's complement: the total is exact whatever the order
        floating += other.floating;
        outOfRange |= other.outOfRange;
        return *this;
    }
    double value() const;
};

/**
 * NarumiNonbondedForce on OpenMM's CUDA platform: single-precision pairs (double ones in Precision=double), Narumi
 * (or the other selected) accumulation, exclusions and exceptions corrected afterwards (src/NarumiNonbondedLaunch.cu
 * and src/kernels/).  The host side owns the device memory and launch geometry; every entry point makes OpenMM's CUDA
 * context current.
 */
class CudaCalcNarumiNonbondedForceKernel : public CalcNarumiNonbondedForceKernel {
public:
    /** diagnostics: NARUMI_DIAGNOSTICS as the Context read it (none for a production run). */
    CudaCalcNarumiNonbondedForceKernel(std::string name, const OpenMM::Platform& platform, OpenMM::CudaContext& cu,
                                       const NarumiDiagnostics& diagnostics)
        : CalcNarumiNonbondedForceKernel(name, platform), cu(cu), diagnostics(diagnostics) {
    }
    ~CudaCalcNarumiNonbondedForceKernel();
    void initialize(const OpenMM::System& system, const NarumiNonbondedForce& force) override;
    double execute(OpenMM::ContextImpl& context, bool includeForces, bool includeEnergy) override;
    void copyParametersToContext(OpenMM::ContextImpl& context, const NarumiNonbondedForce& force) override;

    /**
     * Make this kernel one device's part of a multi-device Context (CudaParallelCalcNarumiNonbondedForceKernel):
     * execute() then computes only its share, returns 0 and keeps the pairs' energy for lastEnergy(), and times its
     * share for lastShareMilliseconds().  Call before initialize().
     */
    void setPartOfParallel() {
        partOfParallel = true;
    }
    /**
     * This device's share: the pairs, and the exceptions, whose lower block lies in [begin, end) of the blocks
     * (fractions of 0 to 1).  Any partition of [0, 1) over the devices computes every pair once.  The neighbour list
     * holds the tiles of the share's blocks and a margin of LIST_SHARE_MARGIN around it; a share beyond that margin
     * is listed anew at the next evaluation.  Call after initialize(), which sets the whole.
     */
    void setShare(double beginFraction, double endFraction);
    /** The pairs' energy of the last energy evaluation (without the dispersion correction). */
    const NarumiEnergyParts& lastEnergy() const {
        return lastEnergyParts;
    }
    /** What the host adds to the pairs' energy: the dispersion correction in the current box and GROMACS's
     *  reaction-field self term (0 without them). */
    double hostEnergy() const;
    /** GPU time of the share's stages at the latest evaluation read back (ms), and how many have been read. */
    double lastShareMilliseconds() const {
        return shareMilliseconds;
    }
    long long shareMeasurements() const {
        return shareTimesRead;
    }

private:
    class ForceInfo;
    class ReorderListener;
    /** Warn once (stderr) when the search counters show it listing more than it should (NarumiSearchMonitor). */
    void noteSearchCounters(const NarumiStatusWords& words);
    /** The search counters per evaluation, to stderr (with the stage report, diagnostic profile-stages). */
    void printSearchReport();

    // initialize(), step by step, in this order.
    /** The speed settings for this GPU (or for the class of GPU that the diagnostics name); its code must be built. */
    void chooseDeviceSettings();
    /** The force's sizes, methods (the diagnostics may select the paper's C-E) and box kind into the launch data. */
    void readForce(const OpenMM::System& system, const NarumiNonbondedForce& force);
    /** The pair potential's constants, in double and rounded to float. */
    void setPairConstants(const NarumiNonbondedForce& force);
    /** The neighbour list's skin and the kernels' speed settings, each of which a diagnostic may fix. */
    void applySpeedSettings();
    /** data.sharedCarveout: the diagnostic's, or the one the pair kernel needs (narumiPairKernelCarveout). */
    void chooseSharedCarveout();
    /** The atoms' and exceptions' parameters on the device (uploaded). */
    void allocateParameters(const OpenMM::System& system, const NarumiNonbondedForce& force);
    /** The sort's, the slots', the blocks' and the neighbour list's arrays, and the pinned status slots. */
    void allocateWorkArrays();
    /** The force, energy and status sums of the accumulation method, zeroed. */
    void allocateSums();
    /** The launch data's pointers into the arrays above. */
    void pointLaunchDataAtArrays();
    /** The status slots' events, and on a multi-device Context the share's timing events. */
    void createEvents();
    /** Tells OpenMM which atoms it may reorder, and has it say when it does. */
    void registerWithContext(const NarumiNonbondedForce& force);
    /** The exclusion pass's own stream, or with profile-stages the stage timer (all stages on one stream). */
    void createStreamOrTimer();

    /** The list's cutoff and rebuild distance for a skin (nm); only at an evaluation that rebuilds the list. */
    void applyListSkin(double skin);
    /** The Lennard-Jones type table and each atom's row (none without types), pointed at by data. */
    void uploadTypeTable(const NarumiNonbondedForce& force);
    void uploadParameters(const OpenMM::System& system, const NarumiNonbondedForce& force);
    void setBox(const OpenMM::Vec3* boxVectors);
    /** The curve of cubes' grid for the box's brick (periodic boxes), its turns uploaded when the grid changes. */
    void setSortCubes(const OpenMM::Vec3* boxVectors);
    /** (Re)size a list of entriesPerItem ints per item, perBlock items per block (capped); returns the items kept. */
    int allocatePerBlockList(OpenMM::CudaArray& list, int perBlock, int entriesPerItem, const char* name);
    void allocateTiles(int tilesPerBlock);
    void allocateCandidates(int candidatesPerBlock);
    /** The most tiles (or candidate blocks) a block's segment needs: every later block, within a memory bound. */
    int maxTilesPerBlock() const;
    /**
     * Act on the status words of the newest finished evaluation: grow the tile list and report range errors.  With wait
     * (an energy evaluation, or one after the list grew) it waits for the last evaluation and marks an out-of-range one
     * in lastEvaluationOutOfRange; otherwise it reads the newest evaluation already finished, if any, and throws
     * OpenMMException for an out-of-range earlier step.
     */
    void checkStatus(bool wait);
    /** Before a build with a wider skin: segments grown by the ratio of the listed volumes, so that no block overflows. */
    void growListForSkin(double oldSkin, double newSkin);

    OpenMM::CudaContext& cu;
    const NarumiDiagnostics diagnostics;
    ForceInfo* info = nullptr;
    NarumiAccumulation method = NarumiAccumulation::Narumi;
    NarumiNonbondedForce::NonbondedMethod nonbondedMethod = NarumiNonbondedForce::NoCutoff;
    double cutoff = 0, dispersionCoefficient = 0, selfEnergy = 0;
    std::vector<std::pair<int, int> > exceptionPairs;  // fixed at initialization, as in NonbondedForce
    NarumiNonbondedData data = {};
    OpenMM::CudaArray atomParameters, exceptionAtoms, exceptionParameters;
    OpenMM::CudaArray atomTableClass, slotTableClass, lennardJonesTable, lennardJonesTableDouble;   // type tables only
    OpenMM::CudaArray atomParametersDouble, exceptionParametersDouble, slotPositionsDouble, slotLennardJonesDouble;
    bool pairsInDouble = false;  // Precision=double with a method whose sums hold double terms
    OpenMM::CudaArray sortKeys, sortedKeys, sortValues, slotPosqIndex, slotOfAtom, slotPositions, builtPositions, slotLennardJones;
    OpenMM::CudaArray blockCenters, blockHalfExtents, superblockCenters, superblockHalfExtents, tileCounts, tileOffsets, overflowBlocks, tileAtoms, cubStorage;
    OpenMM::CudaArray candidateBlocks, candidateCounts, candidatesReady;
    OpenMM::CudaArray sortCubeTurns;   // periodic boxes
    OpenMM::CudaArray forceFloat, forceDouble, energyFixed, energyFloat, energyDouble, status;
    /**
     * Status copies in flight, one slot per evaluation: the host reads the newest evaluation the GPU has finished
     * although it runs up to this many behind (a full launch queue), so list growth and the skin's choice never wait
     * for an energy read.
     */
    static constexpr int STATUS_SLOTS = 256;
    Common::PinnedBuffer<NarumiStatusWords> pinnedStatus;  // STATUS_SLOTS sets of status words, read without blocking the stream
    std::vector<CUevent> statusReady;                      // recorded after each slot's copy
    unsigned long long statusCopies = 0, firstUnreadCopy = 0;  // copies [firstUnreadCopy, statusCopies) not yet read
    NarumiStatusWords lastStatus = {};                      // the newest status words read
    std::unique_ptr<Common::StageTimer> stageTimer;  // profile-stages: per-stage GPU times, printed at destruction
    bool tileListSized = false;  // false: the next evaluation waits for its status (the first, and one after a list grew)
    /** Evaluations between two Hilbert sorts of the atoms; the blocks are rebuilt from current positions every time. */
    static constexpr int SORT_INTERVAL = 20;
    /** The list of a device that computes a share covers it and this fraction of the blocks on either side. */
    static constexpr double LIST_SHARE_MARGIN = 0.03;
    int evaluationsSinceSort = 0;   // 0: sort at the next evaluation
    bool lastEvaluationOutOfRange = false;  // the evaluation just waited for overflowed: its energy is +infinity
    std::shared_ptr<bool> resortRequested = std::make_shared<bool>(false);  // set when OpenMM reorders atoms or the parameters change
    bool rebuildRequested = false;          // the list's segments moved, or the box changed: rebuild it next time
    OpenMM::Vec3 lastBoxVectors[3];
    NarumiDeviceSettings deviceSettings;   // the speed settings chosen for this GPU at initialization
    NarumiListSkin listSkin;               // the neighbour list's skin, chosen from how often the list is rebuilt
    NarumiSearchMonitor searchMonitor;     // the search's running totals last read, and whether to warn
    unsigned long long evaluationsLaunched = 0;  // numbered as the status words count them: the list's ranges start there
    bool partOfParallel = false;
    NarumiEnergyParts lastEnergyParts;
    CUevent shareStarted = nullptr, shareFinished = nullptr;   // timing events, multi-device only
    /**
     * The exclusion pass on a stream of its own, beside the search and the pairs on OpenMM's stream (forked after the
     * gather, joined before the finish: NarumiNonbondedLaunch.h).  Null (diagnostics): all on OpenMM's.
     */
    std::unique_ptr<NarumiExceptionsStream> exceptionsStream;
    double shareMilliseconds = 0;
    long long shareTimesRead = 0;
};

} // namespace OpenMMNarumi

#endif // OPENMM_CUDA_NARUMI_KERNELS_H_
