#include "ChargeHierarchy.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <stdexcept>
#include <string>

namespace OpenMMNarumi::Hcp {

void requireFinite(const std::vector<double>& values, const char* what, int componentsPerItem) {
    for (size_t k = 0; k < values.size(); ++k)
        if (!std::isfinite(values[k]))
            throw std::invalid_argument(std::string(what) + " " + std::to_string(k / componentsPerItem) +
                                        " is not finite (" + std::to_string(values[k]) + ")");
}

namespace {

void requireIndicesInRange(const std::vector<int>& indices, int limit, const char* what, const char* target) {
    for (size_t k = 0; k < indices.size(); ++k)
        if (indices[k] < 0 || indices[k] >= limit)
            throw std::invalid_argument(std::string(what) + "[" + std::to_string(k) + "] = " +
                                        std::to_string(indices[k]) + " is not a valid " + target + " index (0.." +
                                        std::to_string(limit - 1) + ")");
}

// Geometric centre and the two sign-separated charges of the atoms [first, last) (hierarchy order).
void describeAtoms(const std::vector<Vec3>& positions, const std::vector<double>& charges, int first, int last,
                   Vec3& center, ApproximateCharges& approximation) {
    Vec3 sum{0, 0, 0}, negativeMoment{0, 0, 0}, positiveMoment{0, 0, 0};
    double negative = 0, positive = 0;
    for (int a = first; a < last; ++a) {
        const double q = charges[a];
        for (int d = 0; d < 3; ++d) {
            sum[d] += positions[a][d];
            if (q < 0) negativeMoment[d] += q * positions[a][d];
            if (q > 0) positiveMoment[d] += q * positions[a][d];
        }
        if (q < 0) negative += q;
        if (q > 0) positive += q;
    }
    const double count = last - first;
    for (int d = 0; d < 3; ++d) {
        center[d] = sum[d] / count;
        // All charges of one sign: their centre of charge is a convex combination of atom positions.
        approximation.negativeCenter[d] = negative < 0 ? negativeMoment[d] / negative : center[d];
        approximation.positiveCenter[d] = positive > 0 ? positiveMoment[d] / positive : center[d];
    }
    approximation.negativeCharge = negative;
    approximation.positiveCharge = positive;
}

void resizeLevel(ComponentLevel& level, int size) {
    level.centers.resize(size);
    level.approximations.resize(size);
}

}  // namespace

ChargeHierarchy::ChargeHierarchy(const std::vector<double>& positions, const std::vector<double>& charges,
                                 const std::vector<int>& residueOfAtom, const std::vector<int>& chainOfResidue,
                                 const std::vector<int>& complexOfChain) {
    const size_t numAtoms = charges.size();
    if (numAtoms == 0) throw std::invalid_argument("no charges: the molecule has no atoms");
    if (positions.size() != 3 * numAtoms)
        throw std::invalid_argument("positions hold " + std::to_string(positions.size()) + " numbers for " +
                                    std::to_string(numAtoms) + " charges (3 per atom expected)");
    if (residueOfAtom.size() != numAtoms)
        throw std::invalid_argument("residue_of_atom has " + std::to_string(residueOfAtom.size()) +
                                    " entries for " + std::to_string(numAtoms) + " atoms");
    requireFinite(charges, "charge of atom", 1);
    requireFinite(positions, "position of atom", 3);
    if (std::all_of(charges.begin(), charges.end(), [](double q) { return q == 0; }))
        throw std::invalid_argument("no charges: all " + std::to_string(numAtoms) +
                                    " atom charges are zero (were charges assigned by a force field?)");
    if (chainOfResidue.empty()) throw std::invalid_argument("chain_of_residue is empty");
    if (complexOfChain.empty()) throw std::invalid_argument("complex_of_chain is empty");
    requireIndicesInRange(residueOfAtom, static_cast<int>(chainOfResidue.size()), "residue_of_atom", "residue");
    requireIndicesInRange(chainOfResidue, static_cast<int>(complexOfChain.size()), "chain_of_residue", "chain");
    const int numComplexIds = *std::max_element(complexOfChain.begin(), complexOfChain.end()) + 1;
    requireIndicesInRange(complexOfChain, numComplexIds, "complex_of_chain", "complex");

    // Hierarchy order: by complex, chain, residue, then original index (a stable sort keeps the last).
    originalIndex.resize(numAtoms);
    std::iota(originalIndex.begin(), originalIndex.end(), 0);
    auto key = [&](int atom) {
        const int residue = residueOfAtom[atom], chain = chainOfResidue[residue];
        return std::array<int, 3>{complexOfChain[chain], chain, residue};
    };
    std::stable_sort(originalIndex.begin(), originalIndex.end(), [&](int a, int b) { return key(a) < key(b); });

    // CSR offsets; a new component starts wherever the key of that level changes.
    std::array<int, 3> previous{-1, -1, -1};
    for (size_t k = 0; k < numAtoms; ++k) {
        const std::array<int, 3> current = key(originalIndex[k]);
        const int atom = static_cast<int>(k);
        if (current[0] != previous[0]) complexes.childStart.push_back(static_cast<int>(chains.childStart.size()));
        if (current[0] != previous[0] || current[1] != previous[1])
            chains.childStart.push_back(static_cast<int>(residues.childStart.size()));
        if (current != previous) residues.childStart.push_back(atom);
        previous = current;
    }
    complexes.childStart.push_back(static_cast<int>(chains.childStart.size()));
    chains.childStart.push_back(static_cast<int>(residues.childStart.size()));
    residues.childStart.push_back(static_cast<int>(numAtoms));
    resizeLevel(residues, static_cast<int>(residues.childStart.size()) - 1);
    resizeLevel(chains, static_cast<int>(chains.childStart.size()) - 1);
    resizeLevel(complexes, static_cast<int>(complexes.childStart.size()) - 1);

    atomCharges.resize(numAtoms);
    for (size_t k = 0; k < numAtoms; ++k) atomCharges[k] = charges[originalIndex[k]];
    totalCharge_ = std::accumulate(atomCharges.begin(), atomCharges.end(), 0.0);
    setPositions(positions);
}

void ChargeHierarchy::setPositions(const std::vector<double>& positions) {
    if (positions.size() != 3 * atomCharges.size())
        throw std::invalid_argument("positions hold " + std::to_string(positions.size()) + " numbers for " +
                                    std::to_string(atomCharges.size()) + " atoms (3 per atom expected)");
    requireFinite(positions, "position of atom", 3);
    atomPositions.resize(atomCharges.size());
    for (size_t k = 0; k < atomCharges.size(); ++k)
        for (int d = 0; d < 3; ++d) atomPositions[k][d] = positions[3 * originalIndex[k] + d];
    computeComponents();
}

void ChargeHierarchy::computeComponents() {
    for (int r = 0; r < residues.size(); ++r)
        describeAtoms(atomPositions, atomCharges, residues.childStart[r], residues.childStart[r + 1],
                      residues.centers[r], residues.approximations[r]);
    for (int s = 0; s < chains.size(); ++s)
        describeAtoms(atomPositions, atomCharges, residues.childStart[chains.childStart[s]],
                      residues.childStart[chains.childStart[s + 1]], chains.centers[s], chains.approximations[s]);
    for (int c = 0; c < complexes.size(); ++c) {
        const int firstResidue = chains.childStart[complexes.childStart[c]];
        const int lastResidue = chains.childStart[complexes.childStart[c + 1]];
        describeAtoms(atomPositions, atomCharges, residues.childStart[firstResidue],
                      residues.childStart[lastResidue], complexes.centers[c], complexes.approximations[c]);
    }
}

}  // namespace OpenMMNarumi::Hcp
