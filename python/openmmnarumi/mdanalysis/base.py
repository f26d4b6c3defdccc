"""NarumiAnalysisBase: what the project's MDAnalysis classes share (parallel backends, a CUDA device per part,
the engine built in the worker and dropped before the worker's results travel back)."""
import numpy as np

from ._mdanalysis import AnalysisBase, BackendMultiprocessing, triclinic_vectors
from .backends import DaskClusterBackend, ForkServerBackend

__all__ = ["NarumiAnalysisBase"]

ENGINE_BACKENDS = ("auto", "cuda", "cpu")


def cudaDeviceCount():
    """CUDA devices this process sees (0 without a CUDA build or device)."""
    from .. import _hcp
    return _hcp.cuda_device_count()


def reducedBoxOf(ts, scale=0.1):
    """OpenMM's reduced box vectors (3 x 3) of a Timestep in Angstrom times scale (0.1: nm), or None when the frame
    has no box."""
    from ..potentialmap.structure import reducedBox
    dimensions = ts.dimensions
    if dimensions is None or not np.all(np.asarray(dimensions[:3]) > 0):
        return None
    return reducedBox(triclinic_vectors(dimensions).astype(np.float64) * scale)


def atomCharges(atomgroup, charges):
    """Charges (e) of the group's atoms: the given array, else the topology's (PSF, PRMTOP, TPR, PQR, ...)."""
    if charges is None:
        if not hasattr(atomgroup, "charges"):
            raise ValueError("the topology has no charges: give charges= (one per atom, e), e.g. "
                             "openmmnarumi.chargesFromSystem(system)[atomgroup.ix]")
        charges = atomgroup.charges
    charges = np.ascontiguousarray(charges, dtype=np.float64)
    if charges.shape != (len(atomgroup),):
        raise ValueError(f"{charges.shape[0] if charges.ndim else 0} charges for {len(atomgroup)} atoms")
    if not np.all(np.isfinite(charges)):
        raise ValueError("charges must be finite")
    return charges


def positionsAtFrame(atomgroup, frame):
    """The group's positions (nm, float64) and reduced box (nm, or None) at one frame; the trajectory is left at
    the frame it was on."""
    trajectory = atomgroup.universe.trajectory
    current = trajectory.ts.frame
    ts = trajectory[frame]
    positions, box = atomgroup.positions.astype(np.float64) * 0.1, reducedBoxOf(ts)
    trajectory[current]
    return positions, box


def first(values):
    """Aggregator of results that every part computes the same (edges, points): the first part's."""
    return values[0]


class NarumiAnalysisBase(AnalysisBase):
    """An AnalysisBase that runs serial, with MDAnalysis' multiprocessing and dask backends, or with
    :class:`DaskClusterBackend`; subclasses build their engine in ``_createEngine(device)``, fill ``self.results``
    from it in ``_collectEngine()``, and declare their aggregation in ``_get_aggregator``."""

    _analysis_algorithm_is_parallelizable = True

    @classmethod
    def get_supported_backends(cls):
        """MDAnalysis' backend names that ``run(backend=...)`` accepts beside a :class:`DaskClusterBackend`."""
        return ("serial", "multiprocessing", "dask")

    def __init__(self, trajectory, engine="auto", devices=None, **kwargs):
        super().__init__(trajectory, **kwargs)
        if engine not in ENGINE_BACKENDS:
            raise ValueError(f"engine must be one of {ENGINE_BACKENDS}, got {engine!r}")
        if devices is not None:
            devices = [int(d) for d in np.atleast_1d(devices)]
            if not devices or min(devices) < 0:
                raise ValueError(f"devices must be a non-empty list of CUDA device indices, got {devices}")
        self._engineBackend = engine
        self._devices = devices
        self._firstIndexOfPart = {}
        self._engine = None

    def _configure_backend(self, backend, n_workers, unsupported_backend=False):
        # DaskClusterBackend is this package's own and tested with these classes.
        if isinstance(backend, DaskClusterBackend):
            unsupported_backend = True
        executor = super()._configure_backend(backend, n_workers, unsupported_backend)
        if type(executor) is BackendMultiprocessing:
            executor = ForkServerBackend(n_workers=executor.n_workers)
        return executor

    def _setup_computation_groups(self, *args, **kwargs):
        groups = super()._setup_computation_groups(*args, **kwargs)
        self._firstIndexOfPart = {int(group[0, 0]): part for part, group in enumerate(groups) if len(group)}
        return groups

    def deviceForPart(self, part):
        """The CUDA device of part `part` of a run: devices[part % len(devices)] (default: all visible devices)."""
        devices = self._devices
        if devices is None:
            count = cudaDeviceCount()
            devices = list(range(count)) if count > 0 else [0]
        return devices[part % len(devices)]

    def _compute(self, indexed_frames, *args, **kwargs):
        part = self._firstIndexOfPart.get(int(indexed_frames[0, 0]), 0) if len(indexed_frames) else 0
        self._engine = self._createEngine(self.deviceForPart(part))
        try:
            result = super()._compute(indexed_frames, *args, **kwargs)
            self._collectEngine()
        finally:
            self._engine = None  # engines hold GPU memory and cannot be pickled back to the caller
        return result

    def _createEngine(self, device):
        raise NotImplementedError

    def _collectEngine(self):
        raise NotImplementedError

    def _box(self, scale=0.1):
        """This frame's reduced box (Angstrom times scale; 0.1: nm) or None; recomputed only when the frame's
        dimensions change."""
        dimensions = self._ts.dimensions
        key = (scale, None if dimensions is None else dimensions.tobytes())
        if key != getattr(self, "_lastBoxKey", None):
            self._lastBox, self._lastBoxKey = reducedBoxOf(self._ts, scale), key
        return self._lastBox

    def _boxOrRaise(self, what):
        """This frame's box (nm) or a ValueError naming the frame and what needed it."""
        box = self._box()
        if box is None:
            raise ValueError(f"frame {self._ts.frame} has no periodic box, which {what} needs")
        return box
