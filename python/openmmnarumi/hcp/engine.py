"""SurfacePotential: the ALPB potential at surface points, exact or with HCP (the compiled module openmmnarumi._hcp,
CUDA or all CPU cores), and its result."""
import dataclasses
import time

import numpy as np

from .. import _hcp
from .._deprecation import deprecatedAlias, deprecatedAttribute, renamedKeywords
from .._units import positionsInNanometers, stripUnit
from . import molecule
from .molecule import atomicRadii, componentIndices
from .surface import SurfacePointSet

__all__ = ["ALPB_ALPHA", "DEFAULT_THRESHOLDS", "cudaAvailable", "SurfacePotential",
           "SurfacePotentialResult"]

#: ALPB constant alpha (dimensionless; Sigalov, Fenley & Onufriev 2006).
ALPB_ALPHA = _hcp.ALPB_ALPHA
#: Default HCP thresholds (nm) for residues, chains and complexes: 10 A and 70 A as Daga et al. used, and the
#: AmberTools (sff/hcp.c) default of 150 A for the top level, which Daga et al. do not state.
DEFAULT_THRESHOLDS = (1.0, 7.0, 15.0)


def cudaAvailable():
    """True when the CUDA backend was built and a CUDA device is usable."""
    return _hcp.cuda_device_count() > 0


def _points(values):
    return positionsInNanometers(values, "positions/points")


@dataclasses.dataclass
class SurfacePotentialResult:
    """Potentials (kJ/mol/e) at the points, their sum (the total surface potential), how they were computed."""
    potentials: np.ndarray     #: (P,) potentials at the points, kJ/mol/e
    total: float               #: their sum, kJ/mol/e
    mode: str                  #: "hcp" or "exact"
    backend: str               #: "cuda" or "cpu"
    seconds: float             #: wall time of the call, s
    deviceMilliseconds: float  #: CUDA backend: kernels and reductions alone (CUDA events), ms; -1 on the CPU

    device_milliseconds = deprecatedAttribute("deviceMilliseconds", "device_milliseconds")


SurfacePotentialResult.__init__ = renamedKeywords(device_milliseconds="deviceMilliseconds")(
    SurfacePotentialResult.__init__)


class SurfacePotential:
    """ALPB potential of a molecule at surface points, exact or with HCP, on the CUDA or the CPU backend.

    Plain numbers are in OpenMM's units (nm, e); OpenMM Quantities are converted.
    positions: (N, 3) nm (array, Quantity or list of Vec3); charges: N charges in e; topology: the OpenMM Topology
    whose residues and chains define the hierarchy (or give ``hierarchy=(residueOfAtom, chainOfResidue,
    complexOfChain)``); radii: atomic radii in nm for the electrostatic size (default: Bondi radii of the
    topology's elements); soluteDielectric, solventDielectric: eps_in and eps_out of the ALPB model;
    electrostaticSize: A in nm (default: computed with ``sizeMethod``); thresholds: the HCP distances (nm) for
    residues, chains and complexes (``float("inf")`` turns a level off); complexes: see ``componentIndices``;
    backend: "auto" (CUDA if available, else CPU), "cuda" or "cpu"; threads: CPU threads (0: all); cudaDevice: the
    GPU of the CUDA backend.
    """

    @renamedKeywords(eps_in="soluteDielectric", eps_out="solventDielectric", electrostatic_size="electrostaticSize",
                     size_method="sizeMethod", device="cudaDevice")
    def __init__(self, positions, charges, topology=None, *, hierarchy=None, radii=None, soluteDielectric=1.0,
                 solventDielectric=80.0, electrostaticSize=None, sizeMethod="determinant", thresholds=DEFAULT_THRESHOLDS,
                 complexes=None, backend="auto", threads=0, cudaDevice=0):
        positions = _points(positions)
        charges = np.ascontiguousarray(stripUnit(charges, "elementary_charge"), dtype=np.float64)
        if charges.ndim != 1 or charges.size == 0:
            raise ValueError("no charges: give one charge (e) per atom")
        if charges.shape[0] != positions.shape[0]:
            raise ValueError(f"{charges.shape[0]} charges for {positions.shape[0]} positions")
        if hierarchy is None:
            if topology is None:
                raise ValueError("give the topology (or hierarchy=(residueOfAtom, chainOfResidue, complexOfChain))")
            hierarchy = componentIndices(topology, complexes)
        size = electrostaticSize
        if size is None:
            if radii is None:
                if topology is None:
                    raise ValueError("give radii (nm) or electrostaticSize (nm) when there is no topology")
                radii = atomicRadii(topology)
            size = molecule.electrostaticSize(positions, np.asarray(stripUnit(radii, "nanometer"), dtype=np.float64),
                                              sizeMethod)  # the function; the argument shadows it
        size = float(stripUnit(size, "nanometer"))
        if not size > 0:
            raise ValueError(f"electrostaticSize = {size} nm must be positive")
        thresholds = tuple(float(stripUnit(h, "nanometer")) for h in stripUnit(thresholds, "nanometer"))
        if len(thresholds) != 3:
            raise ValueError(f"thresholds needs 3 distances (residue, chain, complex), got {len(thresholds)}")
        self._size = float(size)
        self.thresholds = thresholds
        self.soluteDielectric, self.solventDielectric = float(soluteDielectric), float(solventDielectric)
        residueOfAtom, chainOfResidue, complexOfChain = hierarchy
        self._engine = _hcp.SurfacePotentialEngine(
            positions, charges, np.asarray(residueOfAtom, dtype=np.int32), np.asarray(chainOfResidue, dtype=np.int32),
            np.asarray(complexOfChain, dtype=np.int32), self.soluteDielectric, self.solventDielectric, self._size,
            *thresholds, backend=backend, threads=int(threads), device=int(cudaDevice))

    @property
    def backend(self):
        """"cuda" or "cpu"."""
        return self._engine.backend

    @property
    def electrostaticSize(self):
        """A (nm)."""
        return self._size

    @property
    def totalCharge(self):
        """The molecule's total charge (e)."""
        return self._engine.total_charge

    def componentCounts(self):
        """(atoms, residues, chains, complexes)."""
        return self._engine.component_counts()

    def approximateCharges(self, level):
        """For level "residue", "chain" or "complex": geometric centres (K, 3), the negative and positive
        approximate charges (K, 4: x, y, z in nm, q in e) and the original atom indices of each component."""
        return self._engine.approximate_charges(level)

    def setPositions(self, positions):
        """New coordinates for the same atoms (e.g. the next frame); A is kept."""
        self._engine.set_positions(_points(positions))

    def compute(self, points, offsets=0.0, mode="hcp"):
        """Potentials (kJ/mol/e) at points (P, 3) in nm.  offsets: the points' distance outside the molecular
        surface in nm (one value or one per point; a SurfacePointSet's ``offset``); mode: "hcp" or "exact"."""
        if isinstance(points, SurfacePointSet):
            offsets = points.offset
            points = points.points
        points = _points(points)
        offsets = np.atleast_1d(np.asarray(offsets, dtype=np.float64))
        start = time.perf_counter()
        potentials, total, deviceMs = self._engine.compute(points, offsets, mode)
        return SurfacePotentialResult(potentials, total, mode, self.backend, time.perf_counter() - start, deviceMs)

    electrostatic_size = deprecatedAttribute("electrostaticSize", "electrostatic_size")
    total_charge = deprecatedAttribute("totalCharge", "total_charge")
    eps_in = deprecatedAttribute("soluteDielectric", "eps_in")
    eps_out = deprecatedAttribute("solventDielectric", "eps_out")
    component_counts = deprecatedAlias(componentCounts, "component_counts")
    approximate_charges = deprecatedAlias(approximateCharges, "approximate_charges")
    set_positions = deprecatedAlias(setPositions, "set_positions")
