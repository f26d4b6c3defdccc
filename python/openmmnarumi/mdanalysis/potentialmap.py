"""PotentialMapAnalysis: the time-averaged electrostatic potential map of a trajectory."""
import numpy as np

from ..potentialmap.engine import METHODS, PERIODIC_METHODS
from ._mdanalysis import ResultsGroup
from .base import NarumiAnalysisBase, atomCharges, positionsAtFrame

__all__ = ["PotentialMapAnalysis"]


class PotentialMapAnalysis(NarumiAnalysisBase):
    """The time-averaged electrostatic potential of an AtomGroup on a lattice, over a trajectory.

    The map is the one of :func:`openmmnarumi.potentialmap.computePotentialMap` averaged over frames, computed by
    the same engine (GPU, or CPU): method "cutoff" (Rodrigues et al.'s smoothed cutoff, periodic by the
    minimum-image convention when ``periodic``), "direct" (every atom, no images) or "msm" (the direct sum's
    potential by multilevel summation, linear in the atoms, the Ewald potential when ``periodic``, within the relative
    RMS error ``msm_accuracy`` with ``msm_order`` 5 (quintic) or 3 (cubic) interpolation).
    MDAnalysis conventions:
    lengths in Angstrom (``spacing``, ``cutoff``, ``margin``, ``region`` corners); charges in e, from ``charges``
    or the topology.  The lattice is fixed at creation from the first frame of the trajectory: the periodic box
    (``periodic``; default: periodic when the method is "cutoff" or "msm" and the trajectory has a box) or the atoms'
    bounding box grown by ``margin``, or ``region=((x0, y0, z0), (x1, y1, z1))``.

    Results: ``results.sum`` (the sum of the frames' maps, kJ/mol/e, shape (nz, ny, nx)) and, after the run,
    ``results.potential_map``: a :class:`openmmnarumi.potentialmap.PotentialMap` (``values[ix, iy, iz]`` in
    kJ/mol/e; ``write`` (OpenDX or MRC), ``writeSlicePNG``: the reporter's files).  Parallel runs sum the workers' maps, then
    divide by the frame count.
    """

    def __init__(self, atomgroup, charges=None, spacing=0.5, method="cutoff", cutoff=12.0, periodic=None,
                 region=None, margin=5.0, accumulation="compensated", engine="auto", devices=None, msm_accuracy=1e-3,
                 msm_order=5, **kwargs):
        super().__init__(atomgroup.universe.trajectory, engine=engine, devices=devices, **kwargs)
        from ..potentialmap.engine import checkMsmSettings, makeLattice
        if len(atomgroup) == 0:
            raise ValueError("empty atom group")
        if method not in METHODS:
            raise ValueError(f"method must be one of {METHODS}, got {method!r}")
        for name, value in (("spacing", spacing), ("cutoff", cutoff)):
            if not (np.isfinite(float(value)) and float(value) > 0):
                raise ValueError(f"{name} = {value} A must be positive and finite")
        if not (np.isfinite(float(margin)) and float(margin) >= 0):
            raise ValueError(f"margin = {margin} A must be zero or positive")
        self.atomgroup = atomgroup
        self.charges = atomCharges(atomgroup, charges)
        if method == "msm":
            checkMsmSettings(msm_accuracy, msm_order)
        self.method, self.cutoff, self.accumulation = method, float(cutoff), accumulation
        self.msm_accuracy, self.msm_order = float(msm_accuracy), int(msm_order)
        positions, box = positionsAtFrame(atomgroup, 0)
        self.periodic = (method in PERIODIC_METHODS and box is not None) if periodic is None else bool(periodic)
        if self.periodic and method not in PERIODIC_METHODS:
            raise ValueError("periodic maps need method='cutoff' or 'msm'")
        if self.periodic and box is None:
            raise ValueError("periodic=True, but the trajectory's first frame has no box")
        if region is not None:
            region = np.asarray(region, dtype=np.float64) * 0.1
        self._lattice = makeLattice(0.1 * float(spacing), region, positions, box if self.periodic else None,
                                    0.1 * float(margin))

    def _createEngine(self, device):
        from ..potentialmap.engine import createEngine
        return createEngine(self._lattice, self.charges, self.method, 0.1 * self.cutoff, self.accumulation,
                            self._engineBackend, cudaDevice=device, msmAccuracy=self.msm_accuracy, msmOrder=self.msm_order)

    def _prepare(self):
        dims = [int(d) for d in self._lattice[2]]
        self.results.sum = np.zeros(dims[::-1])

    def _single_frame(self):
        box = self._boxOrRaise("a periodic map") if self.periodic else None
        self._engine.accumulate(self.atomgroup.positions.astype(np.float64) * 0.1, box)

    def _collectEngine(self):
        self.results.sum = np.asarray(self._engine.sum())

    def _get_aggregator(self):
        return ResultsGroup(lookup={"sum": ResultsGroup.ndarray_sum})

    def _conclude(self):
        from ..potentialmap.result import PotentialMap
        if self.n_frames == 0:
            raise ValueError("no frames were analysed")
        average = self.results.sum / self.n_frames
        origin, spacing, _ = self._lattice
        self.results.potential_map = PotentialMap(np.ascontiguousarray(average.transpose(2, 1, 0)), origin, spacing,
                                                  frames=self.n_frames, method=self.method,
                                                  cutoff=0.1 * self.cutoff if self.method == "cutoff" else None)
