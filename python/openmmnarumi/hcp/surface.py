"""Surface points of a molecule (Shrake-Rupley), where HCP surface potentials are evaluated."""
import dataclasses

import numpy as np

from .. import _hcp
from .._deprecation import deprecatedAlias, deprecatedAttribute, renamedKeywords
from .._units import positionsInNanometers, stripUnit

__all__ = ["SurfacePointSet", "surfacePoints"]


@dataclasses.dataclass
class SurfacePointSet:
    """Points (P, 3) in nm, outward unit normals, the atom each point belongs to, and the points' distance
    outside the molecular surface (nm): the probe radius for solvent-accessible points, 0 for contact points."""
    points: np.ndarray     #: (P, 3), nm
    normals: np.ndarray    #: (P, 3) outward unit vectors
    atomIndex: np.ndarray  #: (P,) the atom each point belongs to
    offset: float          #: the points' distance outside the molecular surface, nm

    def __len__(self):
        return len(self.points)

    atom_index = deprecatedAttribute("atomIndex", "atom_index")


SurfacePointSet.__init__ = renamedKeywords(atom_index="atomIndex")(SurfacePointSet.__init__)


@renamedKeywords(probe_radius="probeRadius")
def surfacePoints(positions, radii, probeRadius=0.14, density=300.0, kind="sas", threads=0):
    """Shrake-Rupley surface points: ``kind="sas"`` the solvent-accessible surface (atom radius + probe), ``kind=
    "contact"`` the same points moved back onto the atoms (the contact part of the molecular surface).  density
    in points per nm^2 (300 = 3 per A^2, GEM's default); radii and probeRadius in nm (or Quantities); threads: CPU
    threads (0: all)."""
    import openmm.unit as unit
    if unit.is_quantity(density):
        density = density.value_in_unit(unit.nanometer ** -2)
    points, normals, atoms, offset = _hcp.surface_points(positionsInNanometers(positions, "positions/points"),
                                                         np.asarray(stripUnit(radii, "nanometer"), dtype=np.float64),
                                                         float(stripUnit(probeRadius, "nanometer")), float(density),
                                                         kind, int(threads))
    return SurfacePointSet(points, normals, atoms, offset)


surface_points = deprecatedAlias(surfacePoints, "surface_points")
