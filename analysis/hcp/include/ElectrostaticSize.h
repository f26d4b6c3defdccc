#pragma once
// The electrostatic size A of a molecule (Sigalov, Fenley & Onufriev, J Chem Phys 124, 124902 (2006)), as their
// program elsize (AmberTools) and GEM compute it: atoms are solid spheres of their radii with "mass" r^3; the
// molecule's inertia tensor defines an effective ellipsoid of the same mass and principal moments, with
// semi-axes a, b, c.  Two definitions:
//   Determinant (elsize's and GEM's default): A_det = sqrt(5 / (2 M)) (det I)^(1/6)
//   Ellipsoid   (elsize -ell):  A_ell = 2 / Integral_0^inf dt / sqrt((a^2 + t)(b^2 + t)(c^2 + t)) = 1 / R_F(a^2, b^2, c^2)
// with R_F Carlson's symmetric elliptic integral of the first kind.  Both give the radius for a sphere.

#include <array>
#include <vector>

namespace OpenMMNarumi::Hcp {

enum class ElectrostaticSizeMethod { Determinant, Ellipsoid };

struct EffectiveEllipsoid {
    std::array<double, 3> semiAxes;  ///< a >= b >= c (nm)
    double sizeDeterminant;          ///< A_det (nm)
    double sizeEllipsoid;            ///< A_ell (nm)
};

/// positions: N x 3 (nm, row-major); radii: N atomic radii (nm).  Throws std::invalid_argument on bad input.
EffectiveEllipsoid effectiveEllipsoid(const std::vector<double>& positions, const std::vector<double>& radii);

double electrostaticSize(const std::vector<double>& positions, const std::vector<double>& radii,
                         ElectrostaticSizeMethod method);

/// Carlson's R_F(x, y, z) by the duplication theorem (Carlson, Numer. Algorithms 10, 13 (1995)).
double carlsonRF(double x, double y, double z);

}  // namespace OpenMMNarumi::Hcp
