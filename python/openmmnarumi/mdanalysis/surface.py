"""SurfacePotentialAnalysis: the HCP surface potential of a molecule in every frame of a trajectory."""
import numpy as np

from ._mdanalysis import ResultsGroup
from .base import NarumiAnalysisBase, atomCharges, first, positionsAtFrame

__all__ = ["SurfacePotentialAnalysis"]

MODES = ("hcp", "exact")


def bondiRadii(atomgroup):
    """Bondi radii (nm) of the atoms, from their elements (or, without elements, the first letter of the name)."""
    from ..hcp.molecule import BONDI_RADII, DEFAULT_RADIUS
    if hasattr(atomgroup, "elements"):
        symbols = [str(e).capitalize() for e in atomgroup.elements]
    else:
        symbols = [name[:1].upper() for name in atomgroup.names]
    return np.array([BONDI_RADII.get(s, DEFAULT_RADIUS) for s in symbols], dtype=np.float64)


def hierarchy(atomgroup):
    """(residueOfAtom, chainOfResidue, complexOfChain) of the group: residues, segments as chains, one complex."""
    residues, residueOfAtom = np.unique(atomgroup.resindices, return_inverse=True)
    segmentOfResidue = atomgroup.universe.residues[residues].segindices
    chains, chainOfResidue = np.unique(segmentOfResidue, return_inverse=True)
    return (residueOfAtom.astype(np.int32).reshape(-1), chainOfResidue.astype(np.int32).reshape(-1),
            np.zeros(len(chains), dtype=np.int32))


def rotationOnto(mobile, reference):
    """The rotation R (3 x 3) that best superimposes centred `mobile` on centred `reference`: mobile @ R ~ reference
    (Kabsch)."""
    u, _, vt = np.linalg.svd(mobile.T @ reference)
    d = np.sign(np.linalg.det(u @ vt))
    return u @ np.diag([1.0, 1.0, d]) @ vt


class SurfacePotentialAnalysis(NarumiAnalysisBase):
    """The ALPB surface potential (HCP or exact, :class:`openmmnarumi.hcp.SurfacePotential`) of a molecule per frame.

    Surface points (Shrake-Rupley, ``kind`` "sas" or "contact", ``density`` points per A^2, ``probe_radius`` A) are
    made once on frame ``reference_frame``; in every frame they follow the molecule (the points are carried by the
    best-fit rotation and translation of the molecule onto that frame), so each point keeps its place on the surface
    and its potential can be averaged.  Charges in e from ``charges`` or the topology; radii: Bondi radii of the
    elements; hierarchy: residues, segments (as chains), one complex.  Potentials in kJ/mol/e (MDAnalysis has no
    potential unit; ``openmmnarumi.hcp.convertPotential`` gives kcal/mol/e or kT/e).

    Results: ``results.total`` (the time series of the total surface potential, the sum over points, one value per
    frame), ``results.mean`` (the mean over points per frame), ``results.points`` (the points on the reference
    frame, A), ``results.point_sum`` and, after the run, ``results.point_mean`` (each point's average over frames).
    Parallel runs join the time series in frame order and sum the per-point sums.
    """

    def __init__(self, atomgroup, charges=None, mode="hcp", kind="sas", probe_radius=1.4, density=3.0,
                 reference_frame=0, solute_dielectric=1.0, solvent_dielectric=80.0, engine="auto", devices=None,
                 **kwargs):
        super().__init__(atomgroup.universe.trajectory, engine=engine, devices=devices, **kwargs)
        from ..hcp import electrostaticSize, surfacePoints
        if len(atomgroup) == 0:
            raise ValueError("empty atom group")
        if mode not in MODES:
            raise ValueError(f"mode must be one of {MODES}, got {mode!r}")
        self.atomgroup = atomgroup
        self.mode = mode
        self.charges = atomCharges(atomgroup, charges)
        self.radii = bondiRadii(atomgroup)
        self.hierarchy = hierarchy(atomgroup)
        self.dielectrics = (float(solute_dielectric), float(solvent_dielectric))
        trajectory = atomgroup.universe.trajectory
        if not 0 <= reference_frame < len(trajectory):
            raise ValueError(f"reference_frame = {reference_frame} is not a frame of the trajectory "
                             f"(0..{len(trajectory) - 1})")
        reference, _ = positionsAtFrame(atomgroup, reference_frame)
        pointSet = surfacePoints(reference, self.radii, probeRadius=0.1 * float(probe_radius), density=100.0 * float(density),
                                 kind=kind)
        if len(pointSet) == 0:
            raise ValueError("the molecule has no surface points at this density")
        self._reference = reference
        self._referenceCentre = reference.mean(axis=0)
        self._referenceCentred = reference - self._referenceCentre
        self._points = pointSet.points - self._referenceCentre
        self._offset = pointSet.offset
        self._size = electrostaticSize(reference, self.radii)  # A of the reference frame, kept for every frame

    def _createEngine(self, device):
        from ..hcp import SurfacePotential
        return SurfacePotential(self._reference, self.charges, hierarchy=self.hierarchy,
                                soluteDielectric=self.dielectrics[0], solventDielectric=self.dielectrics[1],
                                electrostaticSize=self._size, backend=self._engineBackend, cudaDevice=device)

    def _prepare(self):
        self.results.total = np.zeros(self.n_frames)
        self.results.point_sum = np.zeros(len(self._points))
        self.results.points = (self._points + self._referenceCentre) * 10.0

    def _single_frame(self):
        positions = self.atomgroup.positions.astype(np.float64) * 0.1
        centre = positions.mean(axis=0)
        rotation = rotationOnto(self._referenceCentred, positions - centre)  # reference frame -> this frame
        self._engine.setPositions(positions)
        result = self._engine.compute(self._points @ rotation + centre, self._offset, self.mode)
        self.results.total[self._frame_index] = result.total
        self.results.point_sum += result.potentials

    def _collectEngine(self):
        pass  # the results are filled frame by frame

    def _get_aggregator(self):
        return ResultsGroup(lookup={"total": ResultsGroup.ndarray_hstack, "point_sum": ResultsGroup.ndarray_sum,
                                    "points": first})

    def _conclude(self):
        if self.n_frames == 0:
            raise ValueError("no frames were analysed")
        self.results.mean = self.results.total / len(self._points)
        self.results.point_mean = self.results.point_sum / self.n_frames
