#ifndef NARUMI_RDF_TEST_SYSTEMS_H_
#define NARUMI_RDF_TEST_SYSTEMS_H_

/**
 * Test systems and the independent oracle of the C++ suites: a double-precision brute-force histogram that finds
 * the minimum image by searching 5 x 5 x 5 lattice translations (no reduction formula shared with the engine).
 * The engine works in single precision, so a pair within float rounding of a bin edge may land on either side; the
 * oracle returns, per bin, the pairs certainly in it and those that may be, and a correct count lies between.
 */

#include "RdfEngine.h"
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

namespace OpenMMNarumi::Rdf::Test {

struct System {
    int numAtoms = 0;
    std::vector<double> positions;   // numAtoms x 3, nm
    std::vector<double> box;         // 9 values or empty
    std::vector<int> residue;        // a group per atom (3 atoms per "molecule")
};

/** Random atoms in a box (given as 9 values; empty: a 3 nm cube without periodicity), some outside the cell. */
inline System randomSystem(int numAtoms, const std::vector<double>& box, unsigned seed) {
    System system;
    system.numAtoms = numAtoms;
    system.box = box;
    std::mt19937 random(seed);
    std::uniform_real_distribution<double> fraction(-0.3, 1.3);
    for (int i = 0; i < numAtoms; i++) {
        double s[3] = {fraction(random), fraction(random), fraction(random)};
        if (box.empty()) {
            for (int d = 0; d < 3; d++)
                system.positions.push_back(3.0 * s[d]);
        } else {
            for (int d = 0; d < 3; d++)
                system.positions.push_back(s[0] * box[d] + s[1] * box[3 + d] + s[2] * box[6 + d]);
        }
        system.residue.push_back(i / 3);
    }
    return system;
}

inline std::vector<double> cube(double edge) {
    return {edge, 0, 0, 0, edge, 0, 0, 0, edge};
}

/** A triclinic box in OpenMM's reduced form (a rhombic-dodecahedron-like shape with a sheared c). */
inline std::vector<double> triclinic(double edge) {
    return {edge, 0, 0, 0.31 * edge, 0.93 * edge, 0, -0.42 * edge, 0.27 * edge, 0.81 * edge};
}

struct Band {
    std::vector<int64_t> low, high;   // per bin: pairs certainly in it, and pairs that may be in it
    int64_t ambiguous = 0;            // pairs within float rounding of an edge (or of rMax)
    int64_t certain = 0;
};

inline double minimumImageDistance(const System& s, int i, int j) {
    double d[3];
    for (int k = 0; k < 3; k++)
        d[k] = s.positions[3 * i + k] - s.positions[3 * j + k];
    if (s.box.empty())
        return std::sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
    // Bring d near the origin in fractional coordinates, then search the surrounding translations.
    const std::vector<double>& b = s.box;
    double sc = d[2] / b[8], sb = (d[1] - sc * b[7]) / b[4], sa = (d[0] - sb * b[3] - sc * b[6]) / b[0];
    double na = std::round(sa), nb = std::round(sb), nc = std::round(sc);
    double best = INFINITY;
    for (int ia = -2; ia <= 2; ia++)
        for (int ib = -2; ib <= 2; ib++)
            for (int ic = -2; ic <= 2; ic++) {
                double ta = na + ia, tb = nb + ib, tc = nc + ic, r2 = 0;
                for (int k = 0; k < 3; k++) {
                    double v = d[k] - ta * b[k] - tb * b[3 + k] - tc * b[6 + k];
                    r2 += v * v;
                }
                best = std::min(best, r2);
            }
    return std::sqrt(best);
}

/**
 * Ordered pairs (i in sel1, j in sel2, i != j, different residue if useGroups) per bin; sel2 empty = sel1.
 * A pair is ambiguous when its distance is within tolerance (nm) of an edge.
 */
inline Band bruteForce(const System& s, const std::vector<int>& sel1, const std::vector<int>& sel2Given, double rMin,
                       double rMax, int bins, bool useGroups, double tolerance = 4e-6) {
    const std::vector<int>& sel2 = sel2Given.empty() ? sel1 : sel2Given;
    Band band;
    band.low.assign(bins, 0);
    band.high.assign(bins, 0);
    double width = (rMax - rMin) / bins;
    for (int i : sel1)
        for (int j : sel2) {
            if (i == j || (useGroups && s.residue[i] == s.residue[j]))
                continue;
            double r = minimumImageDistance(s, i, j);
            double x = (r - rMin) / width, dx = tolerance / width;
            long lowBin = (long) std::floor(x - dx), highBin = (long) std::floor(x + dx);
            if (lowBin == highBin) {
                if (lowBin >= 0 && lowBin < bins) {
                    band.low[lowBin]++;
                    band.high[lowBin]++;
                    band.certain++;
                }
            } else {
                band.ambiguous++;
                for (long k = std::max(0L, lowBin); k <= std::min<long>(bins - 1, highBin); k++)
                    band.high[k]++;
            }
        }
    return band;
}

/** Number of bins whose count lies outside the oracle's band. */
inline int binsOutsideBand(const std::vector<uint64_t>& counts, const Band& band) {
    int outside = 0;
    for (size_t k = 0; k < counts.size(); k++)
        outside += (int64_t) counts[k] < band.low[k] || (int64_t) counts[k] > band.high[k];
    return outside;
}

inline OpenMMNarumi::Rdf::RdfSettings settings(double rMax, int bins, OpenMMNarumi::Rdf::Backend backend, OpenMMNarumi::Rdf::Algorithm algorithm,
                                       double rMin = 0.0) {
    OpenMMNarumi::Rdf::RdfSettings s;
    s.rMin = rMin;
    s.rMax = rMax;
    s.bins = bins;
    s.backend = backend;
    s.algorithm = algorithm;
    return s;
}

/** Counts of one frame of a system with the given engine configuration. */
inline std::vector<uint64_t> countsOf(const System& s, const std::vector<int>& sel1, const std::vector<int>* sel2,
                                      const OpenMMNarumi::Rdf::RdfSettings& settings, bool useGroups, std::string* algorithmUsed = nullptr) {
    OpenMMNarumi::Rdf::RdfEngine engine(s.numAtoms, sel1, sel2, settings, useGroups ? s.residue : std::vector<int>());
    engine.addFrame(s.positions.data(), s.box.empty() ? nullptr : s.box.data());
    if (algorithmUsed)
        *algorithmUsed = engine.lastAlgorithm();
    return engine.pairCounts();
}

inline std::vector<int> range(int begin, int end, int step = 1) {
    std::vector<int> values;
    for (int i = begin; i < end; i += step)
        values.push_back(i);
    return values;
}

} // namespace OpenMMNarumi::Rdf::Test

#endif // NARUMI_RDF_TEST_SYSTEMS_H_
