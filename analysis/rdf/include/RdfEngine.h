#ifndef NARUMI_RDF_ENGINE_H_
#define NARUMI_RDF_ENGINE_H_

/**
 * Radial distribution functions g(r) between two atom selections, accumulated over frames with 64-bit counts.
 *
 * Pairs counted in frame f: every ordered pair (i, j) with i in selection 1, j in selection 2, i != j, not in the
 * same exclusion group, rMin <= r_ij < rMax (minimum image).  With C_k the total count in bin k over F frames:
 *     g_k = C_k / (N_pairs * sum_f(1/V_f) * 4/3 pi (r_{k+1}^3 - r_k^3)),   n_k = sum_{m<=k} C_m / (F * N1)
 * where N_pairs = N1 N2 - |sel1 & sel2| - (ordered pairs within one exclusion group).  For identical selections
 * N_pairs = N1 (N1 - 1) (Levine et al. 2011, Eqs. 1-5).  sum_f(1/V_f) is the normalisation of mdtraj, cpptraj
 * and gmx rdf.  Frames without a box use the reference volume (setReferenceVolume) if one was given.
 *
 * Two backends count bitwise the same pairs in the same bins (RdfPairMath.h): a multithreaded CPU backend and a
 * CUDA backend (tiled all-pairs histogramming, or a cell list).  Errors throw std::invalid_argument (bad input)
 * or std::runtime_error (CUDA failures) with the offending value in the message.
 */

#include "NarumiCommon/ShareBalance.h"
#include "RdfPairMath.h"
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace OpenMMNarumi::Rdf {

enum class Backend { Auto, CPU, CUDA };
enum class Algorithm { Auto, AllPairs, CellList };

/**
 * Atoms per task of the host's passes over each frame's positions (the finite check, and the CUDA backend's gather
 * into page-locked memory) on cpuThreads threads: a smaller selection is one task, run on the calling thread.
 */
constexpr long HOST_CHUNK_ATOMS = 1 << 15;

struct RdfSettings {
    double rMin = 0.0;
    double rMax = 1.0;          // nm
    int bins = 200;
    Backend backend = Backend::Auto;
    Algorithm algorithm = Algorithm::Auto;
    int cpuThreads = 0;         // the CPU backend's threads, and the host's per frame (0: std::thread::hardware_concurrency())
    int cudaDevice = 0;
    std::vector<int> cudaDevices;   // two or more: frames spread over these devices (cudaDevice is then unused)
    // On several devices, a frame of at least this many pair tests is split between them (each counts a share of
    // its pairs); smaller frames go whole to one device.  2^33 tests take ~4.5 ms on an H100, far more than the
    // host's gathering and upload of the frame, which a split does once per device.
    int64_t splitFramePairs = int64_t(1) << 33;
};

/**
 * The part of a frame's pair work that a backend counts: the selection-1 rows (all-pairs tiles of selection 1, or
 * cells of the cell list) between these fractions of the frame's work.  Shares laid end to end over [0, 1) count
 * every pair once.
 */
struct WorkShare {
    double begin = 0.0;
    double end = 1.0;
    bool whole() const { return begin <= 0.0 && end >= 1.0; }
};

/** What a backend counts in one frame; positions are the caller's, numAtoms x 3 values in nm. */
struct FrameInput {
    const float* positionsFloat = nullptr;
    const double* positionsDouble = nullptr;
    BoxDouble box;
    CellGrid grid;
    Algorithm algorithm = Algorithm::AllPairs;  // already resolved
    WorkShare share;                            // the whole frame except on several devices (CUDA backend only)
};

/** Interface of the backends.  Raw counts: unordered pairs i<j for identical selections, otherwise every
 *  (i in A, j in B) pair, self pairs included (they fall in the bin of r = 0 unless exclusion groups are used). */
class PairHistogramBackend {
public:
    virtual ~PairHistogramBackend() = default;
    virtual void accumulate(const FrameInput& frame) = 0;
    virtual std::vector<uint64_t> rawCounts() = 0;
    virtual void reset() = 0;
    virtual std::string name() const = 0;
    /** Whether accumulate() would queue a frame now without waiting for earlier ones (pipelined backends). */
    virtual bool canTakeFrameNow() {
        return true;
    }
    /** The GPU time (ms) of the latest frame whose counting has finished, the share of it counted, and the frame's
     *  number (serial -1 where none or unknown): the devices' load balance (Common::ShareBalancer). */
    virtual Common::ShareTiming lastFrameTiming() {
        return {};
    }
};

/** Selections, exclusion groups and binning, validated; shared by the engine and its backends. */
struct RdfProblem {
    int numAtoms = 0;
    std::vector<int> selectionA, selectionB;   // B empty when sameSelection
    bool sameSelection = true;
    std::vector<int> groupA, groupB;           // per selected atom; empty when no exclusion groups
    RdfSettings settings;
    Binning binning;
    int64_t numPairs = 0;                      // ordered pairs per frame that g(r) is normalised by
    int64_t overlap = 0;                       // atoms in both selections
    int64_t numSelected() const { return (int64_t) selectionA.size() + (int64_t) selectionB.size(); }
};

/**
 * Validates the selections, exclusion groups and settings (std::invalid_argument naming the bad value) and works
 * out the binning and the pair normalisation.  Shared by RdfEngine and OpenMM's in-context RDFSampler kernels.
 */
RdfProblem buildProblem(int numAtoms, const std::vector<int>& selection1, const std::vector<int>* selection2,
                        const RdfSettings& settings, const std::vector<int>& exclusionGroups);

/**
 * The checks of OpenMM's in-context RDFSampler when a Context is created (called by its platforms' kernels, so that
 * the API layer needs no engine): buildProblem's, and rMax against the System's default box, 9 values (a, b, c row by
 * row, nm) or nullptr for a non-periodic System.  selection2 empty means "the same as selection 1".  Throws
 * std::invalid_argument naming the bad value.
 */
RdfProblem buildSamplerProblem(int numAtoms, const std::vector<int>& selection1, const std::vector<int>& selection2,
                               const RdfSettings& settings, const std::vector<int>& exclusionGroups, const double* defaultBox);

/** A box of 9 values (a, b, c row by row, nm) in OpenMM's reduced form, checked against rMax (at most half the
 *  shortest brick side); nullptr gives BoxKind::None. */
BoxDouble parseBox(const double* box, double rMax);

/** Cells at least rMax wide over a periodic box (at most max(27, min(2^24, 2 numSelected)) of them). */
CellGrid periodicCellGrid(const BoxDouble& box, double rMax, int64_t numSelected);

/** A grid of cells over a bounding box of the given extents (frames without a periodic box). */
CellGrid boundingBoxCellGrid(const double low[3], const double high[3], double rMax, int64_t numSelected);

/** A backend's raw counts as ordered-pair counts (identical selections count each unordered pair twice; self
 *  pairs of atoms in both selections are removed from the bin of r = 0). */
std::vector<uint64_t> orderedPairCounts(const RdfProblem& problem, std::vector<uint64_t> rawCounts, int64_t numFrames);

class RdfEngine {
public:
    /**
     * numAtoms: atoms per frame.  selection2: nullptr means "the same as selection 1".  exclusionGroups: empty, or
     * one integer per atom (pairs of equal group are skipped: a residue or molecule index, as MDAnalysis'
     * exclusion_block does for fixed-size blocks).  The backend is settings.backend's (src/RdfBackendChoice.cpp:
     * NarumiRdf, not NarumiRdfHost).
     */
    RdfEngine(int numAtoms, const std::vector<int>& selection1, const std::vector<int>* selection2,
              const RdfSettings& settings, const std::vector<int>& exclusionGroups = {});
    /** An engine for a problem already built (buildProblem, buildSamplerProblem) on a backend made for it. */
    RdfEngine(RdfProblem problem, std::unique_ptr<PairHistogramBackend> backend);
    ~RdfEngine();

    /** Adds one frame.  box: 9 values (a, b, c row by row, nm) in OpenMM's reduced form, or nullptr.  Bad input
     *  throws here; the CUDA backend queues the frame and returns (positions may be reused at once), and reading,
     *  resetting or destroying the counts waits for every queued frame. */
    void addFrame(const float* positions, const double* box);
    void addFrame(const double* positions, const double* box);

    /** The volume (nm^3) that normalises frames without a periodic box. */
    void setReferenceVolume(double volume);
    void reset();

    int64_t numFrames() const { return numFrames_; }
    /** Ordered-pair counts per bin summed over frames (see the class comment); exact 64-bit integers. */
    std::vector<uint64_t> pairCounts();
    std::vector<double> binEdges() const;
    std::vector<double> binCenters() const;
    /** g(r); throws if there are no pairs to normalise by or a frame had no volume. */
    std::vector<double> rdf();
    /** n(r): mean number of selection-2 atoms within each bin's upper edge of a selection-1 atom. */
    std::vector<double> coordinationNumber();

    int64_t numPairsPerFrame() const { return problem_.numPairs; }
    /** sum over frames with a periodic box of 1/V (nm^-3), and the number of frames without a box. */
    double sumInverseVolume() const { return sumInverseVolume_; }
    int64_t framesWithoutBox() const { return framesWithoutVolume_; }
    int selection1Size() const { return (int) problem_.selectionA.size(); }
    int selection2Size() const { return problem_.sameSelection ? selection1Size() : (int) problem_.selectionB.size(); }
    const RdfSettings& settings() const { return problem_.settings; }
    std::string backendName() const;
    /** The algorithm the last frame used ("all-pairs" or "cell-list"; empty before the first frame). */
    std::string lastAlgorithm() const { return lastAlgorithm_; }
    /** Largest rMax this box allows: min(ax, by, cz) / 2. */
    static double maximumRMax(const double* box);
    /** True if this build has the CUDA backend and a CUDA device is present (NarumiRdf only). */
    static bool cudaAvailable();

private:
    void addFrameImpl(const float* positionsFloat, const double* positionsDouble, const double* box);
    CellGrid makeGrid(const BoxDouble& box, const float* pf, const double* pd) const;

    RdfProblem problem_;
    std::unique_ptr<PairHistogramBackend> backend_;
    int64_t numFrames_ = 0;
    int64_t framesWithoutVolume_ = 0;
    double sumInverseVolume_ = 0;
    double referenceVolume_ = 0;
    std::string lastAlgorithm_;
};

/** Backends (RdfCpuBackend.cpp; cuda/RdfCudaBackend.cu, compiled only in builds with CUDA). */
std::unique_ptr<PairHistogramBackend> createCpuBackend(const RdfProblem& problem);
std::unique_ptr<PairHistogramBackend> createCudaBackend(const RdfProblem& problem);
/**
 * Several backends as one (src/RdfMultiDeviceBackend.cpp).  A frame of at least settings.splitFramePairs pair tests
 * is split: every backend counts its share of the frame's pairs, the shares following the devices' measured times
 * (Levine et al.'s load balancing).  A smaller frame goes whole to the first backend, in rotation, that can queue it
 * at once (else to the next in rotation, which waits), so that a faster device counts more frames.  The raw counts
 * are the 64-bit sums of theirs, identical to one backend's whatever was counted where.
 */
std::unique_ptr<PairHistogramBackend> createMultiDeviceBackend(const RdfProblem& problem,
                                                               std::vector<std::unique_ptr<PairHistogramBackend> > backends);

/** Chooses the algorithm: a cell list when its 27-cell stencil covers at most a quarter of the grid and there are
 *  at least 2^24 pairs, otherwise all pairs (docs/rdf.md). */
Algorithm chooseAlgorithm(const CellGrid& grid, int64_t numPairs);

} // namespace OpenMMNarumi::Rdf

#endif // NARUMI_RDF_ENGINE_H_
