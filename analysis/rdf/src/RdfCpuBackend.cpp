/**
 * The multithreaded CPU backend: privatized 64-bit histograms per thread (Levine et al. 2011, section 2.3), work
 * handed out in small pieces through an atomic counter, all pairs or a cell list.  The pair loops are compiled twice,
 * for CPUs with FMA instructions and without (std::fma is then a correctly rounded library call), so the counts are
 * bitwise those of the CUDA backend on any x86-64 CPU.
 */

#include "NarumiCommon/ThreadPool.h"
#include "RdfEngine.h"
#include <algorithm>
#include <numeric>

namespace OpenMMNarumi::Rdf {

namespace {

/** Wrapped positions of one selection, structure of arrays, sorted by cell for the cell list. */
struct Atoms {
    std::vector<float> x, y, z;
    std::vector<int> group;
    std::vector<int> cellStart;   // numCells + 1 entries (cell list only)
    int size() const { return (int) x.size(); }
};

struct PairLoopArguments {
    const Atoms* a;
    const Atoms* b;
    BoxFloat box;
    Binning binning;
    CellGrid grid;
    uint64_t* histogram;
};

template <BoxKind KIND, bool SAME, bool EXCLUSIONS>
struct PairLoops {
    static inline void countPair(const PairLoopArguments& args, int i, int j) {
        const Atoms& a = *args.a;
        const Atoms& b = *args.b;
        if (EXCLUSIONS && a.group[i] == b.group[j])
            return;
        float r2 = distanceSquared<KIND>(a.x[i], a.y[i], a.z[i], b.x[j], b.y[j], b.z[j], args.box);
        if (r2 < args.binning.filterSq) {
            int bin = binIndex(r2, args.binning);
            if ((unsigned) bin < (unsigned) args.binning.bins)
                args.histogram[bin]++;
        }
    }

    /** Atoms [begin, end) of A against all of B (SAME: against the atoms after each). */
    static void allPairs(const PairLoopArguments& args, int begin, int end) {
        int numB = args.b->size();
        for (int i = begin; i < end; i++)
            for (int j = SAME ? i + 1 : 0; j < numB; j++)
                countPair(args, i, j);
    }

    /** The atoms of one cell of A against the atoms of the neighbouring cells of B (SAME: later atoms only). */
    static void cell(const PairLoopArguments& args, int cellIndex) {
        const CellGrid& grid = args.grid;
        int begin = args.a->cellStart[cellIndex], end = args.a->cellStart[cellIndex + 1];
        if (begin == end)
            return;
        int c[3] = {cellIndex % grid.n[0], (cellIndex / grid.n[0]) % grid.n[1], cellIndex / (grid.n[0] * grid.n[1])};
        int near[3][3], count[3];
        for (int d = 0; d < 3; d++)
            count[d] = neighbourCoordinates(c[d], grid.n[d], grid.periodic, near[d]);
        for (int iz = 0; iz < count[2]; iz++)
            for (int iy = 0; iy < count[1]; iy++)
                for (int ix = 0; ix < count[0]; ix++) {
                    int other = near[0][ix] + grid.n[0] * (near[1][iy] + grid.n[1] * near[2][iz]);
                    if (SAME && other < cellIndex)
                        continue;   // sorted by cell: these atoms all come before ours
                    int otherBegin = args.b->cellStart[other], otherEnd = args.b->cellStart[other + 1];
                    for (int i = begin; i < end; i++)
                        for (int j = (SAME && other == cellIndex) ? i + 1 : otherBegin; j < otherEnd; j++)
                            countPair(args, i, j);
                }
    }

    __attribute__((target("avx2,fma"), flatten)) static void allPairsFma(const PairLoopArguments& args, int begin, int end) {
        allPairs(args, begin, end);
    }
    __attribute__((target("avx2,fma"), flatten)) static void cellFma(const PairLoopArguments& args, int cellIndex) {
        cell(args, cellIndex);
    }
};

bool cpuHasFma() {
    static const bool hasFma = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
    return hasFma;
}

class CpuBackend : public PairHistogramBackend {
public:
    explicit CpuBackend(const RdfProblem& problem) : problem_(problem), counts_(problem.settings.bins, 0) {
    }

    std::string name() const override {
        return "cpu";
    }

    void reset() override {
        std::fill(counts_.begin(), counts_.end(), 0);
    }

    std::vector<uint64_t> rawCounts() override {
        return counts_;
    }

    void accumulate(const FrameInput& frame) override {
        bool cellList = frame.algorithm == Algorithm::CellList;
        prepare(frame, problem_.selectionA, problem_.groupA, cellList, atomsA_);
        if (!problem_.sameSelection)
            prepare(frame, problem_.selectionB, problem_.groupB, cellList, atomsB_);
        PairLoopArguments args{&atomsA_, problem_.sameSelection ? &atomsA_ : &atomsB_, boxFloat(frame.box), problem_.binning,
                               frame.grid, nullptr};
        bool exclusions = !problem_.groupA.empty();
        switch (frame.box.kind) {
        case BoxKind::None: dispatch<BoxKind::None>(args, exclusions, cellList); break;
        case BoxKind::Rectangular: dispatch<BoxKind::Rectangular>(args, exclusions, cellList); break;
        case BoxKind::Triclinic: dispatch<BoxKind::Triclinic>(args, exclusions, cellList); break;
        }
    }

private:
    /** Wraps (double) and rounds (float) the selected atoms; for the cell list also sorts them by cell. */
    void prepare(const FrameInput& frame, const std::vector<int>& selection, const std::vector<int>& groups, bool cellList,
                 Atoms& atoms) {
        int n = selection.size();
        BoxInverse inverse = boxInverse(frame.box);
        std::vector<float> x(n), y(n), z(n);
        std::vector<int> cell(cellList ? n : 0);
        for (int k = 0; k < n; k++) {
            size_t atom = selection[k];
            double px, py, pz;
            if (frame.positionsFloat) {
                px = frame.positionsFloat[3 * atom];
                py = frame.positionsFloat[3 * atom + 1];
                pz = frame.positionsFloat[3 * atom + 2];
            } else {
                px = frame.positionsDouble[3 * atom];
                py = frame.positionsDouble[3 * atom + 1];
                pz = frame.positionsDouble[3 * atom + 2];
            }
            if (frame.box.kind != BoxKind::None)
                wrapIntoBox(px, py, pz, frame.box, inverse);
            if (cellList)
                cell[k] = cellIndex(px, py, pz, frame.grid, frame.box, inverse);
            x[k] = (float) px;
            y[k] = (float) py;
            z[k] = (float) pz;
        }
        std::vector<int> order(n);
        std::iota(order.begin(), order.end(), 0);
        atoms.cellStart.clear();
        if (cellList) {
            std::stable_sort(order.begin(), order.end(), [&](int p, int q) { return cell[p] < cell[q]; });
            int numCells = frame.grid.numCells();
            atoms.cellStart.assign(numCells + 1, 0);
            for (int k = 0; k < n; k++)
                atoms.cellStart[cell[k] + 1]++;
            std::partial_sum(atoms.cellStart.begin(), atoms.cellStart.end(), atoms.cellStart.begin());
        }
        atoms.x.resize(n);
        atoms.y.resize(n);
        atoms.z.resize(n);
        atoms.group.resize(groups.empty() ? 0 : n);
        for (int k = 0; k < n; k++) {
            atoms.x[k] = x[order[k]];
            atoms.y[k] = y[order[k]];
            atoms.z[k] = z[order[k]];
            if (!groups.empty())
                atoms.group[k] = groups[order[k]];
        }
    }

    template <BoxKind KIND>
    void dispatch(PairLoopArguments& args, bool exclusions, bool cellList) {
        if (problem_.sameSelection)
            exclusions ? run<PairLoops<KIND, true, true>>(args, cellList) : run<PairLoops<KIND, true, false>>(args, cellList);
        else
            exclusions ? run<PairLoops<KIND, false, true>>(args, cellList) : run<PairLoops<KIND, false, false>>(args, cellList);
    }

    /** Runs the work items (rows of 32 atoms, or cells) on the threads, each into its own histogram, then sums. */
    template <class Loops>
    void run(const PairLoopArguments& shared, bool cellList) {
        const int rowsPerItem = 32;
        int numA = shared.a->size();
        int numItems = cellList ? shared.grid.numCells() : (numA + rowsPerItem - 1) / rowsPerItem;
        int requestedThreads = problem_.settings.cpuThreads;
        int bins = problem_.settings.bins;
        std::vector<std::vector<uint64_t>> histograms(Common::threadsForTasks(numItems, requestedThreads),
                                                      std::vector<uint64_t>(bins, 0));
        bool fma = cpuHasFma();
        Common::parallelFor(numItems, requestedThreads, [&](long task, int thread) {
            PairLoopArguments args = shared;
            args.histogram = histograms[thread].data();
            int item = (int) task;
            if (cellList) {
                fma ? Loops::cellFma(args, item) : Loops::cell(args, item);
            } else {
                int begin = item * rowsPerItem, end = std::min(numA, begin + rowsPerItem);
                fma ? Loops::allPairsFma(args, begin, end) : Loops::allPairs(args, begin, end);
            }
        });
        for (const std::vector<uint64_t>& histogram : histograms)
            for (int k = 0; k < bins; k++)
                counts_[k] += histogram[k];
    }

    RdfProblem problem_;
    std::vector<uint64_t> counts_;
    Atoms atomsA_, atomsB_;
};

} // namespace

std::unique_ptr<PairHistogramBackend> createCpuBackend(const RdfProblem& problem) {
    return std::make_unique<CpuBackend>(problem);
}

} // namespace OpenMMNarumi::Rdf
