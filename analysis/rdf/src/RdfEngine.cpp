#include "RdfEngine.h"
#include "RdfLimits.h"
#include "NarumiCommon/CudaAvailability.h"
#include "NarumiCommon/ThreadPool.h"
#include <algorithm>
#include <atomic>
#include <cmath>
#include <limits>
#include <sstream>
#include <stdexcept>
#include <unordered_map>

namespace OpenMMNarumi::Rdf {

namespace {

const double CELL_MARGIN = 1e-5;       // cells are at least rMax (1 + margin) wide: float rounding never splits a pair
const double FILTER_MARGIN = 1e-6;     // the squared-distance prefilter never rejects a pair inside the last bin
const double ZERO_TOLERANCE = 1e-6;    // box entries below this fraction of the box size are zero (float32 DCD cells)

template <class... Parts>
std::string message(const Parts&... parts) {
    std::ostringstream stream;
    stream.precision(17);
    (stream << ... << parts);
    return stream.str();
}

std::vector<int> validatedSelection(const std::vector<int>& selection, int numAtoms, const char* name) {
    std::vector<char> seen(numAtoms, 0);
    for (size_t k = 0; k < selection.size(); k++) {
        int index = selection[k];
        if (index < 0 || index >= numAtoms)
            throw std::invalid_argument(message(name, "[", k, "] = ", index, " is not an atom index (0 to ", numAtoms - 1, ")"));
        if (seen[index])
            throw std::invalid_argument(message(name, " lists atom ", index, " twice"));
        seen[index] = 1;
    }
    return selection;
}

template <class Real>
void checkFinite(const Real* positions, const std::vector<int>& selection, int threads) {
    // Every value of a frame is read, on threads (a million atoms take milliseconds on one).  The error names the
    // first bad atom of the selection, whichever thread finds a bad one first.
    const long none = std::numeric_limits<long>::max();
    std::atomic<long> firstBad(none);
    Common::parallelChunks((long) selection.size(), HOST_CHUNK_ATOMS, threads, [&](long first, long last) {
        for (long k = first; k < last && k < firstBad.load(std::memory_order_relaxed); k++) {
            const Real* p = positions + 3 * (size_t) selection[k];
            if (!(std::isfinite(p[0]) && std::isfinite(p[1]) && std::isfinite(p[2]))) {
                for (long seen = firstBad.load(); k < seen && !firstBad.compare_exchange_weak(seen, k);) {
                }
                return;
            }
        }
    });
    if (firstBad.load() == none)
        return;
    int atom = selection[firstBad.load()];
    for (int d = 0; d < 3; d++) {
        double value = positions[3 * (size_t) atom + d];
        if (!std::isfinite(value))
            throw std::invalid_argument(message("position of atom ", atom, " is not finite (", "xyz"[d], " = ", value, ")"));
    }
}

template <class Real>
void boundingBox(const Real* positions, const std::vector<int>& selection, double low[3], double high[3]) {
    for (int atom : selection)
        for (int d = 0; d < 3; d++) {
            double value = positions[3 * (size_t) atom + d];
            low[d] = std::min(low[d], value);
            high[d] = std::max(high[d], value);
        }
}

} // namespace

Algorithm chooseAlgorithm(const CellGrid& grid, int64_t numPairs) {
    int stencil = 1;
    for (int d = 0; d < 3; d++)
        stencil *= std::min(grid.n[d], 3);
    bool stencilIsSmall = 4 * (int64_t) stencil <= (int64_t) grid.numCells();
    return stencilIsSmall && numPairs >= (int64_t(1) << 24) ? Algorithm::CellList : Algorithm::AllPairs;
}

RdfProblem buildProblem(int numAtoms, const std::vector<int>& selection1, const std::vector<int>* selection2,
                        const RdfSettings& settings, const std::vector<int>& exclusionGroups) {
    if (numAtoms < 0)
        throw std::invalid_argument(message("numAtoms = ", numAtoms, " is negative"));
    if (settings.bins < 1 || settings.bins > MAX_BINS)
        throw std::invalid_argument(message("bins = ", settings.bins, " is outside 1 to ", MAX_BINS));
    if (!std::isfinite(settings.rMin) || settings.rMin < 0)
        throw std::invalid_argument(message("rMin = ", settings.rMin, " must be finite and >= 0"));
    if (!std::isfinite(settings.rMax) || settings.rMax <= settings.rMin)
        throw std::invalid_argument(message("rMax = ", settings.rMax, " must be finite and larger than rMin = ", settings.rMin));
    if (settings.cpuThreads < 0)
        throw std::invalid_argument(message("cpuThreads = ", settings.cpuThreads, " is negative"));
    if (settings.splitFramePairs < 0)
        throw std::invalid_argument(message("splitFramePairs = ", settings.splitFramePairs, " is negative"));
    if (!exclusionGroups.empty() && (int) exclusionGroups.size() != numAtoms)
        throw std::invalid_argument(message("exclusionGroups has ", exclusionGroups.size(), " entries for ", numAtoms, " atoms"));

    RdfProblem p;
    p.numAtoms = numAtoms;
    p.settings = settings;
    Common::resolveCudaDevices(p.settings.cudaDevice, p.settings.cudaDevices);
    p.selectionA = validatedSelection(selection1, numAtoms, "selection1");
    p.sameSelection = selection2 == nullptr;
    if (!p.sameSelection)
        p.selectionB = validatedSelection(*selection2, numAtoms, "selection2");
    if (!exclusionGroups.empty()) {
        for (int atom : p.selectionA)
            p.groupA.push_back(exclusionGroups[atom]);
        for (int atom : p.selectionB)
            p.groupB.push_back(exclusionGroups[atom]);
    }
    double range = settings.rMax - settings.rMin;
    double filter = settings.rMax * (1 + FILTER_MARGIN);
    p.binning.bins = settings.bins;
    p.binning.invWidth = (float) (settings.bins / range);
    p.binning.offset = (float) (-settings.rMin * settings.bins / range);
    p.binning.filterSq = (float) (filter * filter);

    // Normalisation: ordered pairs (i in 1, j in 2, i != j) minus those inside one exclusion group.
    int64_t n1 = p.selectionA.size(), n2 = p.sameSelection ? n1 : (int64_t) p.selectionB.size();
    if (p.sameSelection) {
        p.overlap = n1;
    } else {
        std::vector<char> inA(numAtoms, 0);
        for (int atom : p.selectionA)
            inA[atom] = 1;
        for (int atom : p.selectionB)
            p.overlap += inA[atom];
    }
    int64_t excluded = 0;
    if (!exclusionGroups.empty()) {
        struct GroupCounts { int64_t a = 0, b = 0, both = 0; };
        std::unordered_map<int, GroupCounts> groups;
        std::vector<char> inA(numAtoms, 0);
        for (int atom : p.selectionA) {
            groups[exclusionGroups[atom]].a++;
            inA[atom] = 1;
        }
        for (int atom : (p.sameSelection ? p.selectionA : p.selectionB)) {
            GroupCounts& g = groups[exclusionGroups[atom]];
            g.b++;
            g.both += inA[atom];
        }
        for (const auto& entry : groups)
            excluded += entry.second.a * entry.second.b - entry.second.both;
    }
    p.numPairs = n1 * n2 - p.overlap - excluded;
    return p;
}

RdfProblem buildSamplerProblem(int numAtoms, const std::vector<int>& selection1, const std::vector<int>& selection2,
                               const RdfSettings& settings, const std::vector<int>& exclusionGroups, const double* defaultBox) {
    RdfProblem problem = buildProblem(numAtoms, selection1, selection2.empty() ? nullptr : &selection2, settings, exclusionGroups);
    if (defaultBox != nullptr)
        parseBox(defaultBox, settings.rMax);
    return problem;
}

RdfEngine::RdfEngine(RdfProblem problem, std::unique_ptr<PairHistogramBackend> backend)
    : problem_(std::move(problem)), backend_(std::move(backend)) {
}

RdfEngine::~RdfEngine() = default;

std::string RdfEngine::backendName() const {
    return backend_->name();
}

double RdfEngine::maximumRMax(const double* box) {
    return 0.5 * std::min({box[0], box[4], box[8]});
}

BoxDouble parseBox(const double* box, double rMax) {
    BoxDouble result;
    if (box == nullptr)
        return result;
    for (int k = 0; k < 9; k++)
        if (!std::isfinite(box[k]))
            throw std::invalid_argument(message("box vector entry ", k, " is not finite (", box[k], ")"));
    double ax = box[0], by = box[4], cz = box[8];
    if (ax <= 0 || by <= 0 || cz <= 0)
        throw std::invalid_argument(message("box diagonal (", ax, ", ", by, ", ", cz, ") must be positive (OpenMM's reduced form)"));
    double tolerance = ZERO_TOLERANCE * std::max({ax, by, cz});
    if (std::fabs(box[1]) > tolerance || std::fabs(box[2]) > tolerance || std::fabs(box[5]) > tolerance)
        throw std::invalid_argument(message("box vectors are not in OpenMM's reduced (lower-triangular) form: a = (", ax, ", ",
                                            box[1], ", ", box[2], "), b_z = ", box[5]));
    auto snap = [&](double v) { return std::fabs(v) <= tolerance ? 0.0 : v; };
    result.ax = ax;
    result.bx = snap(box[3]);
    result.by = by;
    result.cx = snap(box[6]);
    result.cy = snap(box[7]);
    result.cz = cz;
    bool rectangular = result.bx == 0 && result.cx == 0 && result.cy == 0;
    result.kind = rectangular ? BoxKind::Rectangular : BoxKind::Triclinic;
    double limit = RdfEngine::maximumRMax(box);
    if (rMax > limit)
        throw std::invalid_argument(message("rMax = ", rMax, " nm is more than half the box (min(ax, by, cz)/2 = ",
                                            limit, " nm): the minimum image would miss pairs"));
    return result;
}

namespace {

/** Cells at least rMax (1 + margin) wide across the given heights, at most max(27, min(2^24, 2 numSelected)). */
CellGrid gridForHeights(const double heights[3], double rMax, int64_t numSelected, bool periodic) {
    CellGrid grid;
    grid.periodic = periodic;
    double width = rMax * (1 + CELL_MARGIN);
    int64_t maxCells = std::max<int64_t>(27, std::min<int64_t>(int64_t(1) << 24, 2 * numSelected));
    for (int d = 0; d < 3; d++)
        grid.n[d] = (int) std::max(1.0, std::min(1024.0, std::floor(heights[d] / width)));
    while ((int64_t) grid.n[0] * grid.n[1] * grid.n[2] > maxCells) {
        double shrink = std::cbrt((double) grid.n[0] * grid.n[1] * grid.n[2] / maxCells);
        for (int d = 0; d < 3; d++)
            grid.n[d] = std::max(1, (int) std::floor(grid.n[d] / shrink));
    }
    if (!periodic)
        for (int d = 0; d < 3; d++)
            grid.scale[d] = heights[d] > 0 ? grid.n[d] / heights[d] : 0;
    return grid;
}

} // namespace

CellGrid periodicCellGrid(const BoxDouble& box, double rMax, int64_t numSelected) {
    // Distances between opposite faces of the periodic cell: V / |b x c|, V / |c x a|, V / |a x b|.
    double volume = box.ax * box.by * box.cz;
    double bxc[3] = {box.by * box.cz, -box.bx * box.cz, box.bx * box.cy - box.by * box.cx};
    double cxa[3] = {0, box.cz * box.ax, -box.cy * box.ax};
    double heights[3];
    heights[0] = volume / std::sqrt(bxc[0] * bxc[0] + bxc[1] * bxc[1] + bxc[2] * bxc[2]);
    heights[1] = volume / std::sqrt(cxa[1] * cxa[1] + cxa[2] * cxa[2]);
    heights[2] = box.cz;
    return gridForHeights(heights, rMax, numSelected, true);
}

CellGrid boundingBoxCellGrid(const double low[3], const double high[3], double rMax, int64_t numSelected) {
    double heights[3];
    for (int d = 0; d < 3; d++)
        heights[d] = high[d] - low[d];
    CellGrid grid = gridForHeights(heights, rMax, numSelected, false);
    for (int d = 0; d < 3; d++)
        grid.origin[d] = low[d];
    return grid;
}

CellGrid RdfEngine::makeGrid(const BoxDouble& box, const float* pf, const double* pd) const {
    const RdfProblem& p = problem_;
    if (box.kind != BoxKind::None)
        return periodicCellGrid(box, p.settings.rMax, p.numSelected());
    double low[3], high[3];
    for (int d = 0; d < 3; d++) {
        low[d] = std::numeric_limits<double>::infinity();
        high[d] = -low[d];
    }
    if (pf) {
        boundingBox(pf, p.selectionA, low, high);
        boundingBox(pf, p.selectionB, low, high);
    } else {
        boundingBox(pd, p.selectionA, low, high);
        boundingBox(pd, p.selectionB, low, high);
    }
    for (int d = 0; d < 3; d++)
        if (!(high[d] >= low[d]))
            low[d] = high[d] = 0;   // no atoms
    return boundingBoxCellGrid(low, high, p.settings.rMax, p.numSelected());
}

void RdfEngine::addFrame(const float* positions, const double* box) {
    addFrameImpl(positions, nullptr, box);
}

void RdfEngine::addFrame(const double* positions, const double* box) {
    addFrameImpl(nullptr, positions, box);
}

void RdfEngine::addFrameImpl(const float* pf, const double* pd, const double* box) {
    const RdfProblem& p = problem_;
    if (pf == nullptr && pd == nullptr && p.numAtoms > 0)
        throw std::invalid_argument("positions are missing");
    if (pf) {
        checkFinite(pf, p.selectionA, p.settings.cpuThreads);
        checkFinite(pf, p.selectionB, p.settings.cpuThreads);
    } else if (pd) {
        checkFinite(pd, p.selectionA, p.settings.cpuThreads);
        checkFinite(pd, p.selectionB, p.settings.cpuThreads);
    }
    FrameInput frame;
    frame.positionsFloat = pf;
    frame.positionsDouble = pd;
    frame.box = parseBox(box, p.settings.rMax);
    frame.grid = makeGrid(frame.box, pf, pd);
    frame.algorithm = p.settings.algorithm == Algorithm::Auto ? chooseAlgorithm(frame.grid, p.numPairs) : p.settings.algorithm;
    backend_->accumulate(frame);
    numFrames_++;
    if (frame.box.kind == BoxKind::None)
        framesWithoutVolume_++;
    else
        sumInverseVolume_ += 1.0 / (frame.box.ax * frame.box.by * frame.box.cz);
    lastAlgorithm_ = frame.algorithm == Algorithm::CellList ? "cell-list" : "all-pairs";
}

void RdfEngine::setReferenceVolume(double volume) {
    if (!std::isfinite(volume) || volume <= 0)
        throw std::invalid_argument(message("reference volume = ", volume, " must be positive"));
    referenceVolume_ = volume;
}

void RdfEngine::reset() {
    backend_->reset();
    numFrames_ = framesWithoutVolume_ = 0;
    sumInverseVolume_ = 0;
    lastAlgorithm_.clear();
}

std::vector<uint64_t> orderedPairCounts(const RdfProblem& p, std::vector<uint64_t> counts, int64_t numFrames) {
    if (p.sameSelection) {
        for (uint64_t& count : counts)
            count *= 2;
    } else if (p.groupA.empty() && p.overlap > 0) {
        // Each atom in both selections met itself at r = 0 once per frame.
        int zeroBin = binIndex(0.0f, p.binning);
        if (zeroBin >= 0 && zeroBin < p.binning.bins) {
            uint64_t selfPairs = (uint64_t) p.overlap * (uint64_t) numFrames;
            if (counts[zeroBin] < selfPairs)
                throw std::runtime_error(message("internal error: bin ", zeroBin, " holds ", counts[zeroBin], " pairs, fewer than the ",
                                                 selfPairs, " self pairs"));
            counts[zeroBin] -= selfPairs;
        }
    }
    return counts;
}

std::vector<uint64_t> RdfEngine::pairCounts() {
    return orderedPairCounts(problem_, backend_->rawCounts(), numFrames_);
}

std::vector<double> RdfEngine::binEdges() const {
    const RdfSettings& s = problem_.settings;
    std::vector<double> edges(s.bins + 1);
    double width = (s.rMax - s.rMin) / s.bins;
    for (int k = 0; k < s.bins; k++)
        edges[k] = s.rMin + k * width;
    edges[s.bins] = s.rMax;
    return edges;
}

std::vector<double> RdfEngine::binCenters() const {
    std::vector<double> edges = binEdges(), centers(edges.size() - 1);
    for (size_t k = 0; k < centers.size(); k++)
        centers[k] = 0.5 * (edges[k] + edges[k + 1]);
    return centers;
}

std::vector<double> RdfEngine::rdf() {
    if (numFrames_ == 0)
        throw std::invalid_argument("g(r) needs at least one frame");
    if (problem_.numPairs <= 0)
        throw std::invalid_argument(message("g(r) is undefined: there are no atom pairs to normalise by (selection sizes ",
                                            selection1Size(), " and ", selection2Size(), ")"));
    if (framesWithoutVolume_ > 0 && referenceVolume_ <= 0)
        throw std::invalid_argument(message(framesWithoutVolume_, " frames had no periodic box: set a reference volume to normalise g(r)"));
    double sumInverseVolume = sumInverseVolume_ + (framesWithoutVolume_ > 0 ? framesWithoutVolume_ / referenceVolume_ : 0.0);
    std::vector<uint64_t> counts = pairCounts();
    std::vector<double> edges = binEdges(), g(counts.size());
    const double pi = 3.14159265358979323846;
    for (size_t k = 0; k < g.size(); k++) {
        double shell = 4.0 / 3.0 * pi * (edges[k + 1] * edges[k + 1] * edges[k + 1] - edges[k] * edges[k] * edges[k]);
        g[k] = (double) counts[k] / ((double) problem_.numPairs * sumInverseVolume * shell);
    }
    return g;
}

std::vector<double> RdfEngine::coordinationNumber() {
    if (numFrames_ == 0)
        throw std::invalid_argument("n(r) needs at least one frame");
    if (selection1Size() == 0)
        throw std::invalid_argument("n(r) is undefined: selection 1 is empty");
    std::vector<uint64_t> counts = pairCounts();
    std::vector<double> n(counts.size());
    uint64_t running = 0;
    for (size_t k = 0; k < n.size(); k++) {
        running += counts[k];
        n[k] = (double) running / ((double) numFrames_ * selection1Size());
    }
    return n;
}

} // namespace OpenMMNarumi::Rdf
