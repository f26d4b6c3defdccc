#pragma once
// Surface points of a molecule by Shrake-Rupley sampling (Shrake & Rupley, J Mol Biol 79, 351 (1973)): each atom's
// sphere of radius r_i + probe gets golden-spiral points at a given density; a point is kept when no other atom's
// expanded sphere contains it (neighbours found with a cell list).  The kept points lie on the solvent-accessible
// surface (SAS).  With SurfaceKind::Contact they are moved back along their normals onto the atoms' own spheres:
// the contact part of the molecular (solvent-excluded) surface, the part that touches atoms.

#include <vector>

namespace OpenMMNarumi::Hcp {

enum class SurfaceKind { SolventAccessible, Contact };

struct SurfacePointSet {
    std::vector<double> points;   ///< P x 3 (nm)
    std::vector<double> normals;  ///< P x 3, outward unit normals
    std::vector<int> atoms;       ///< the atom each point belongs to
    /// The points' distance outside the molecular (dielectric) surface: the probe radius for SAS points,
    /// 0 for contact points (the ALPB uses r = A + this distance).
    double offset = 0;
};

/// positions N x 3 (nm), radii (nm), probeRadius (nm), density in points per nm^2 of each expanded sphere.
/// numThreads 0: all hardware threads.
SurfacePointSet surfacePoints(const std::vector<double>& positions, const std::vector<double>& radii,
                              double probeRadius, double density, SurfaceKind kind, int numThreads = 0);

}  // namespace OpenMMNarumi::Hcp
