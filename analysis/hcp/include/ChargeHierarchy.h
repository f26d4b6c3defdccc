#pragma once
// The natural hierarchy of a molecule for hierarchical charge partitioning (HCP; Anandakrishnan & Onufriev,
// J Comput Chem 31, 691 (2010)): atoms -> residues -> chains -> complexes.  Components are stored in CSR form
// (each level's children are contiguous), atoms reordered accordingly.  Each component carries its geometric
// centre (the HCP distance criterion is measured to it) and two approximate point charges: the sum of its
// negative charges at their centre of charge and the sum of its positive charges at theirs (the 2-charge
// scheme of the HCP paper and of AmberTools' sff/hcp.c).  Together they keep the component's total charge and
// its dipole moment exactly; a sign with no charges gets charge 0 placed at the geometric centre.

#include <array>
#include <cstddef>
#include <vector>

namespace OpenMMNarumi::Hcp {

using Vec3 = std::array<double, 3>;

/// Two point charges that keep a component's monopole and dipole.
struct ApproximateCharges {
    Vec3 negativeCenter;
    double negativeCharge;  ///< sum of the component's negative charges (<= 0)
    Vec3 positiveCenter;
    double positiveCharge;  ///< sum of the component's positive charges (>= 0)
};

/// One level of the hierarchy: component k owns children [childStart[k], childStart[k+1]) of the level below.
struct ComponentLevel {
    std::vector<int> childStart;
    std::vector<Vec3> centers;
    std::vector<ApproximateCharges> approximations;
    int size() const { return static_cast<int>(centers.size()); }
};

/// Distances (nm) at and beyond which a component's two approximate charges replace its contents.
struct HcpThresholds {
    double residue = 1.0;   ///< level 1: 10 A (Daga et al.)
    double chain = 7.0;     ///< level 2: 70 A (Daga et al.)
    double complex = 15.0;  ///< level 3: 150 A (AmberTools' hcp_h3 default; Daga et al. do not state theirs)
};

class ChargeHierarchy {
public:
    /// residueOfAtom[i], chainOfResidue[r], complexOfChain[c]: the component each item belongs to.  Indices
    /// must be in range; components without atoms are dropped.  Positions in nm (N x 3, row-major), charges in e.
    ChargeHierarchy(const std::vector<double>& positions, const std::vector<double>& charges,
                    const std::vector<int>& residueOfAtom, const std::vector<int>& chainOfResidue,
                    const std::vector<int>& complexOfChain);

    /// New coordinates for the same atoms (original order); recomputes centres and approximate charges.
    void setPositions(const std::vector<double>& positions);

    int numAtoms() const { return static_cast<int>(atomCharges.size()); }
    double totalCharge() const { return totalCharge_; }

    // Atoms in hierarchy order: atomPositions[k], atomCharges[k] belong to original atom originalIndex[k].
    std::vector<Vec3> atomPositions;
    std::vector<double> atomCharges;
    std::vector<int> originalIndex;
    ComponentLevel residues;   ///< children: atoms
    ComponentLevel chains;     ///< children: residues
    ComponentLevel complexes;  ///< children: chains

private:
    void computeComponents();
    double totalCharge_ = 0;
};

/// Checks that every value is finite; throws std::invalid_argument naming the first bad one.
void requireFinite(const std::vector<double>& values, const char* what, int componentsPerItem);

}  // namespace OpenMMNarumi::Hcp
