#include "ElectrostaticSize.h"

#include "ChargeHierarchy.h"

#include <Eigen/Eigenvalues>

#include <algorithm>
#include <cmath>
#include <functional>
#include <stdexcept>
#include <string>

namespace OpenMMNarumi::Hcp {

double carlsonRF(double x, double y, double z) {
    if (!(x >= 0 && y >= 0 && z >= 0) || (x + y == 0) || (x + z == 0) || (y + z == 0))
        throw std::invalid_argument("carlsonRF needs non-negative arguments, at most one of them zero");
    // Each duplication step shrinks the spread by 4; stop when the relative spread is below 1e-3, where the
    // fifth-order series below is exact to double precision.
    for (int step = 0; step < 200; ++step) {
        const double mean = (x + y + z) / 3;
        const double dx = 1 - x / mean, dy = 1 - y / mean, dz = 1 - z / mean;
        if (std::max({std::fabs(dx), std::fabs(dy), std::fabs(dz)}) < 1e-3) {
            const double e2 = dx * dy - dz * dz, e3 = dx * dy * dz;
            return (1 + (e2 / 24 - 0.1 - 3 * e3 / 44) * e2 + e3 / 14) / std::sqrt(mean);
        }
        const double sx = std::sqrt(x), sy = std::sqrt(y), sz = std::sqrt(z);
        const double lambda = sx * sy + sx * sz + sy * sz;
        x = (x + lambda) / 4;
        y = (y + lambda) / 4;
        z = (z + lambda) / 4;
    }
    throw std::runtime_error("carlsonRF did not converge");
}

EffectiveEllipsoid effectiveEllipsoid(const std::vector<double>& positions, const std::vector<double>& radii) {
    const size_t numAtoms = radii.size();
    if (numAtoms == 0) throw std::invalid_argument("electrostatic size: no atoms");
    if (positions.size() != 3 * numAtoms)
        throw std::invalid_argument("electrostatic size: positions hold " + std::to_string(positions.size()) +
                                    " numbers for " + std::to_string(numAtoms) + " radii");
    requireFinite(positions, "position of atom", 3);
    for (size_t i = 0; i < numAtoms; ++i)
        if (!(std::isfinite(radii[i]) && radii[i] > 0))
            throw std::invalid_argument("radius of atom " + std::to_string(i) + " must be positive, got " +
                                        std::to_string(radii[i]));

    double mass = 0;
    Eigen::Vector3d center = Eigen::Vector3d::Zero();
    for (size_t i = 0; i < numAtoms; ++i) {
        const double atomMass = radii[i] * radii[i] * radii[i];
        mass += atomMass;
        center += atomMass * Eigen::Vector3d(positions[3 * i], positions[3 * i + 1], positions[3 * i + 2]);
    }
    center /= mass;
    Eigen::Matrix3d inertia = Eigen::Matrix3d::Zero();
    for (size_t i = 0; i < numAtoms; ++i) {
        const double atomMass = radii[i] * radii[i] * radii[i];
        const Eigen::Vector3d x = Eigen::Vector3d(positions[3 * i], positions[3 * i + 1], positions[3 * i + 2]) - center;
        // A solid sphere's own moment (2/5) m r^2 about every axis, plus the parallel-axis term.
        inertia += atomMass * ((x.squaredNorm() + 0.4 * radii[i] * radii[i]) * Eigen::Matrix3d::Identity() - x * x.transpose());
    }
    const Eigen::Vector3d moments = Eigen::SelfAdjointEigenSolver<Eigen::Matrix3d>(inertia, Eigen::EigenvaluesOnly).eigenvalues();
    std::array<double, 3> squares;
    for (int k = 0; k < 3; ++k) {
        // A uniform ellipsoid with semi-axes a_k has I_1 = M (a_2^2 + a_3^2) / 5, and so on.
        squares[k] = 2.5 * (moments.sum() - 2 * moments[k]) / mass;
        if (!(squares[k] > 0))
            throw std::invalid_argument("electrostatic size: degenerate inertia tensor (semi-axis^2 = " +
                                        std::to_string(squares[k]) + ")");
    }
    std::sort(squares.begin(), squares.end(), std::greater<double>());
    EffectiveEllipsoid result;
    for (int k = 0; k < 3; ++k) result.semiAxes[k] = std::sqrt(squares[k]);
    result.sizeDeterminant = std::sqrt(2.5 / mass) * std::pow(inertia.determinant(), 1.0 / 6.0);
    result.sizeEllipsoid = 1.0 / carlsonRF(squares[0], squares[1], squares[2]);
    return result;
}

double electrostaticSize(const std::vector<double>& positions, const std::vector<double>& radii,
                         ElectrostaticSizeMethod method) {
    const EffectiveEllipsoid ellipsoid = effectiveEllipsoid(positions, radii);
    return method == ElectrostaticSizeMethod::Determinant ? ellipsoid.sizeDeterminant : ellipsoid.sizeEllipsoid;
}

}  // namespace OpenMMNarumi::Hcp
