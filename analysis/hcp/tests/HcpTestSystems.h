#pragma once
// Small synthetic molecules for the HCP tests: residues of a few atoms scattered in chains and complexes, with
// charges like a force field's (mostly small, some residues net charged), and a double-precision direct sum.

#include "AlpbModel.h"

#include <cmath>
#include <random>
#include <vector>

namespace OpenMMNarumi::Hcp::Test {

struct TestMolecule {
    std::vector<double> positions, charges;  // nm, e
    std::vector<int> residueOfAtom, chainOfResidue, complexOfChain;
};

// complexes x chainsPerComplex x residuesPerChain residues of atomsPerResidue atoms; chain centres 3 nm apart.
inline TestMolecule makeMolecule(int complexes, int chainsPerComplex, int residuesPerChain, int atomsPerResidue,
                                 unsigned seed) {
    std::mt19937 random(seed);
    std::uniform_real_distribution<double> unit(-1.0, 1.0);
    TestMolecule m;
    int residue = 0;
    for (int c = 0; c < complexes; ++c)
        for (int s = 0; s < chainsPerComplex; ++s) {
            const int chain = static_cast<int>(m.complexOfChain.size());
            m.complexOfChain.push_back(c);
            const double chainCenter[3] = {3.0 * s, 8.0 * c, 0.0};
            for (int r = 0; r < residuesPerChain; ++r, ++residue) {
                m.chainOfResidue.push_back(chain);
                double residueCenter[3];
                for (int d = 0; d < 3; ++d) residueCenter[d] = chainCenter[d] + 1.2 * unit(random);
                const double netCharge = (residue % 5 == 0) ? (residue % 2 ? 1.0 : -1.0) : 0.0;
                double sum = 0;
                for (int a = 0; a < atomsPerResidue; ++a) {
                    for (int d = 0; d < 3; ++d) m.positions.push_back(residueCenter[d] + 0.25 * unit(random));
                    const double q = a + 1 < atomsPerResidue ? 0.6 * unit(random) : netCharge - sum;
                    sum += q;
                    m.charges.push_back(q);
                    m.residueOfAtom.push_back(residue);
                }
            }
        }
    return m;
}

// Random points on a shell of the given radius around centre (outside the molecule for large radii).
inline std::vector<double> shellPoints(int count, const double center[3], double radius, unsigned seed) {
    std::mt19937 random(seed);
    std::normal_distribution<double> normal;
    std::vector<double> points;
    for (int p = 0; p < count; ++p) {
        double v[3] = {normal(random), normal(random), normal(random)};
        const double norm = std::sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
        for (int d = 0; d < 3; ++d) points.push_back(center[d] + radius * v[d] / norm);
    }
    return points;
}

// The ALPB potential by a plain double loop: the oracle for the exact mode.
inline std::vector<double> directAlpb(const TestMolecule& m, const std::vector<double>& points, double epsIn,
                                      double epsOut, double r) {
    const double beta = epsIn / epsOut, alpha = OpenMMNarumi::Hcp::kAlpbAlpha, k = OpenMMNarumi::Hcp::COULOMB_CONSTANT;
    std::vector<double> phi(points.size() / 3, 0.0);
    for (size_t p = 0; p < phi.size(); ++p) {
        double sum = 0;
        for (size_t i = 0; i < m.charges.size(); ++i) {
            const double dx = points[3 * p] - m.positions[3 * i], dy = points[3 * p + 1] - m.positions[3 * i + 1],
                         dz = points[3 * p + 2] - m.positions[3 * i + 2];
            const double d = std::sqrt(dx * dx + dy * dy + dz * dz);
            sum += m.charges[i] * ((1 + alpha) / d - alpha * (1 - beta) / r);
        }
        phi[p] = k / (epsOut * (1 + alpha * beta)) * sum;
    }
    return phi;
}

inline double relativeRms(const std::vector<double>& actual, const std::vector<double>& expected) {
    double num = 0, den = 0;
    for (size_t k = 0; k < actual.size(); ++k) {
        num += (actual[k] - expected[k]) * (actual[k] - expected[k]);
        den += expected[k] * expected[k];
    }
    return std::sqrt(num / den);
}

}  // namespace OpenMMNarumi::Hcp::Test
