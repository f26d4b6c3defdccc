"""The potential-map engine (the compiled module openmmnarumi._potentialmap), its lattices, and one structure's map."""
import numpy as np

from .. import _potentialmap
from .._units import positionsInNanometers, stripUnit
from .result import PotentialMap

__all__ = ["COINCIDENCE_RADIUS", "cudaAvailable", "makeLattice", "computePotentialMap"]

#: The map methods, and those that take a periodic box (cutoff: minimum image; msm: the Ewald potential).
METHODS = ("cutoff", "direct", "msm")
PERIODIC_METHODS = ("cutoff", "msm")

#: Pairs of an atom and a lattice point closer than this (nm) are left out of the sum.
COINCIDENCE_RADIUS = _potentialmap.COINCIDENCE_RADIUS


def cudaAvailable():
    """Whether the CUDA backend was built and sees a GPU (backend='auto' then uses it)."""
    return _potentialmap.cudaAvailable()


def boxInNanometers(boxVectors):
    """Three box vectors (nm, Vec3s or a Quantity) as a (3, 3) float64 array; None stays None."""
    if boxVectors is None:
        return None
    values = stripUnit(boxVectors, "nanometer")
    box = np.asarray([[v[0], v[1], v[2]] for v in values], dtype=np.float64)
    if box.shape != (3, 3):
        raise ValueError(f"boxVectors must be 3 vectors of 3 components, got shape {box.shape}")
    if not (np.all(np.isfinite(box)) and min(box[0, 0], box[1, 1], box[2, 2]) > 0):
        raise ValueError(f"boxVectors must be finite with positive widths (OpenMM's reduced form), got {box.tolist()}")
    return box


def makeLattice(spacing, region=None, positions=None, boxVectors=None, margin=0.5):
    """(origin, spacing[3], dims[3]) in nm for a region; spacing and margin in nm (or Quantities), boxVectors 3 x 3
    in nm.  The region:

    - None: the periodic box if boxVectors is given (the brick [0, ax) x [0, by) x [0, cz) with the spacing adjusted
      so that whole numbers of points fill it and the map repeats with the box), else the positions' bounding box
      grown by margin;
    - ((x0, y0, z0), (x1, y1, z1)): the corners (nm or Quantity), spacing as given;
    - a sequence of atom indices: the bounding box of those atoms grown by margin.
    """
    h = float(stripUnit(spacing, "nanometer"))
    margin = float(stripUnit(margin, "nanometer"))
    if not np.isfinite(h) or h <= 0:
        raise ValueError(f"spacing must be positive and finite, got {h} nm")
    if region is None and boxVectors is not None:
        box = boxInNanometers(boxVectors)
        lengths = np.array([box[0, 0], box[1, 1], box[2, 2]])
        dims = np.maximum(1, np.rint(lengths / h)).astype(int)
        return np.zeros(3), lengths / dims, dims
    if region is None or (np.ndim(stripUnit(region, "nanometer")) == 1 and len(region) > 0):
        if positions is None:
            raise ValueError("a bounding-box region needs positions")
        points = positionsInNanometers(positions)
        if region is not None:
            indices = np.asarray(region, dtype=np.int64)
            if indices.min() < 0 or indices.max() >= len(points):
                raise ValueError(f"region atom indices must lie in 0..{len(points) - 1}")
            points = points[indices]
        origin, spacings, dims = _potentialmap.boundingBoxLattice(points, margin, h)
        return np.asarray(origin), np.asarray(spacings), np.asarray(dims)
    corners = np.asarray(stripUnit(region, "nanometer"), dtype=np.float64)
    if corners.shape != (2, 3):
        raise ValueError("region must be None, a pair of corners ((x0, y0, z0), (x1, y1, z1)) or atom indices")
    lo, hi = corners
    if not np.all(np.isfinite(corners)) or np.any(hi < lo):
        raise ValueError(f"region corners must be finite with hi >= lo, got {lo} and {hi}")
    dims = np.floor((hi - lo) / h + 1e-9).astype(int) + 1
    return lo, np.full(3, h), dims


def checkMsmSettings(msmAccuracy, msmOrder):
    """ValueError naming a bad msmAccuracy or msmOrder now (the engine's own checks on a one-atom CPU probe), not at
    the first frame of a long run."""
    createEngine(([0.0] * 3, [0.1] * 3, [2, 2, 2]), [0.0], "msm", 1.2, "compensated", "cpu", msmAccuracy=msmAccuracy,
                 msmOrder=msmOrder)


def createEngine(lattice, charges, method, cutoff, accumulation, backend, cudaDevice=0, msmAccuracy=1e-3, msmOrder=5):
    """The compiled engine for a lattice (origin, spacing[3], dims[3]) and charges (e); cutoff in nm; msmAccuracy:
    the bound on method 'msm''s relative RMS error at the map's points 0.15 nm or more from every charge (its lattice
    spacing and cutoff follow from it; docs/potentialmap.md, "Accuracy"); msmOrder: its interpolation, 5 (quintic,
    default) or 3 (cubic)."""
    origin, spacings, dims = lattice
    return _potentialmap.Engine(np.asarray(origin, float), np.asarray(spacings, float), [int(d) for d in dims], charges,
                                method=method, cutoff=cutoff, accumulation=accumulation, backend=backend,
                                cudaDevice=cudaDevice, msmAccuracy=float(msmAccuracy), msmOrder=int(msmOrder))


def computePotentialMap(positions, charges, spacing=0.05, region=None, margin=0.5, method="cutoff", cutoff=1.2,
                        boxVectors=None, accumulation="compensated", backend="auto", lattice=None, cudaDevice=0,
                        msmAccuracy=1e-3, msmOrder=5):
    """One structure's map.  positions (n, 3) nm, charges (n,) e; spacing, margin, cutoff and the region's corners
    in nm (or Quantities); boxVectors (3 x 3, nm) makes the cutoff method periodic.
    method: "cutoff", "direct" or "msm" (the direct sum's potential by multilevel summation, GPU or CPU, within
    msmAccuracy relative RMS error, msmOrder 5 (quintic) or 3 (cubic) interpolation; with boxVectors the Ewald
    potential, neutralizing background included).

    lattice=(origin, spacing[3], dims[3]) overrides spacing/region/margin; cudaDevice: the GPU of the CUDA backend.
    Returns a PotentialMap (kJ/mol/e).
    """
    points = positionsInNanometers(positions)
    charges = np.asarray(stripUnit(charges, "elementary_charge"), dtype=np.float64)
    if charges.shape != (len(points),):
        raise ValueError(f"charges must have one entry per atom ({len(points)}), got shape {charges.shape}")
    box = boxInNanometers(boxVectors)
    if lattice is None:
        lattice = makeLattice(spacing, region, points, box, margin)
    cutoff = float(stripUnit(cutoff, "nanometer"))
    engine = createEngine(lattice, charges, method, cutoff, accumulation, backend, cudaDevice, msmAccuracy, msmOrder)
    values = engine.compute(points, box)
    return PotentialMap._fromEngineArray(values, engine, method=method, cutoff=cutoff if method == "cutoff" else None)
