"""Electrostatic potential maps: direct and cutoff summation on the GPU (or CPU), time-averaged maps from simulations.

Units: positions and lengths in nm (OpenMM's), charges in e.  Maps are computed in kJ/mol/e,

    V(p) = ONE_4PI_EPS0 * sum_i q_i s(|p - r_i|) / |p - r_i|,   ONE_4PI_EPS0 = 138.935457644382 kJ nm/(mol e^2),

with s = 1 for method 'direct' (every atom as given, no periodic images) and s(r) = (1 - r^2/rc^2)^2 inside the cutoff
rc for method 'cutoff' (Rodrigues et al. 2008; periodic images by the minimum-image convention when a box is given).
A pair closer than COINCIDENCE_RADIUS (0.001 nm) is left out, so a lattice point on an atom holds the potential of
all the other atoms.  Files are written in kT/e by default (``units=`` takes 'kT/e', 'V', 'mV', 'kJ/mol/e',
'kcal/mol/e' or 'e/A', the unit of the papers' error table); OpenDX coordinates are in Angstrom, as VMD, PyMOL and
ChimeraX expect.  See docs/potentialmap.md.

    python3 -m openmmnarumi.potentialmap structure.pdb [--trajectory traj.dcd] --output map.dx --png map.png
"""
import argparse
import os
import sys

import numpy as np

from .. import _potentialmap

__all__ = ["PotentialMap", "PotentialMapReporter", "computePotentialMap", "potentialMapFromStructure",
           "potentialMapFromTrajectory", "chargesFromSystem", "unitFactor", "cudaAvailable",
           "ONE_4PI_EPS0", "COINCIDENCE_RADIUS"]

ONE_4PI_EPS0 = _potentialmap.ONE_4PI_EPS0          # kJ nm / (mol e^2), OpenMM's value
COINCIDENCE_RADIUS = _potentialmap.COINCIDENCE_RADIUS  # nm
FARADAY = 96485.33212                              # C/mol (exact in the 2019 SI)
MOLAR_GAS_CONSTANT = 8.314462618e-3                # kJ/(mol K) (exact in the 2019 SI)


def cudaAvailable():
    """Whether the CUDA backend was built and sees a GPU (backend='auto' then uses it)."""
    return _potentialmap.cudaAvailable()


def unitFactor(units, temperature=300.0):
    """Factor that converts kJ/mol/e into `units`; temperature (K, or an OpenMM Quantity) is used by 'kT/e'."""
    temperature = _value(temperature, "kelvin")
    factors = {
        "kJ/mol/e": 1.0,
        "kcal/mol/e": 1.0 / 4.184,
        "V": 1000.0 / FARADAY,
        "mV": 1e6 / FARADAY,
        "e/A": 1.0 / (10.0 * ONE_4PI_EPS0),  # q/r with r in Angstrom and no Coulomb constant (VMD's cionize)
    }
    if units == "kT/e":
        if not temperature > 0:
            raise ValueError(f"temperature must be positive for kT/e, got {temperature} K")
        return 1.0 / (MOLAR_GAS_CONSTANT * temperature)
    if units not in factors:
        raise ValueError(f"units must be one of {sorted(factors) + ['kT/e']}, got {units!r}")
    return factors[units]


def _value(quantity, unit_name):
    """A plain float/array from an OpenMM Quantity (converted to unit_name) or a plain number (assumed in it)."""
    try:
        import openmm.unit as unit
        if unit.is_quantity(quantity):
            return quantity.value_in_unit(getattr(unit, unit_name))
    except ImportError:  # pragma: no cover
        pass
    return quantity


def _positions(positions):
    values = _value(positions, "nanometer")
    array = np.asarray([[v[0], v[1], v[2]] for v in values] if not isinstance(values, np.ndarray) else values, dtype=np.float64)
    if array.ndim != 2 or array.shape[1] != 3:
        raise ValueError(f"positions must have shape (n, 3), got {array.shape}")
    return array


def _box(boxVectors):
    if boxVectors is None:
        return None
    values = _value(boxVectors, "nanometer")
    box = np.asarray([[v[0], v[1], v[2]] for v in values], dtype=np.float64)
    if box.shape != (3, 3):
        raise ValueError(f"boxVectors must be 3 vectors of 3 components, got shape {box.shape}")
    return box


class PotentialMap:
    """A potential map: ``values[ix, iy, iz]`` in kJ/mol/e at ``origin + (ix, iy, iz) * spacing`` (nm)."""

    def __init__(self, values, origin, spacing, frames=1, method="cutoff", cutoff=None):
        self.values = np.asarray(values, dtype=np.float64)
        self.origin = np.asarray(origin, dtype=np.float64)
        self.spacing = np.asarray(spacing, dtype=np.float64)
        self.frames = frames
        self.method = method
        self.cutoff = cutoff

    @classmethod
    def _fromEngineArray(cls, array, engine, **kwargs):
        # The engine stores x fastest (shape (nz, ny, nx)); the transposed view indexes [ix, iy, iz].
        return cls(np.ascontiguousarray(np.asarray(array, dtype=np.float64).transpose(2, 1, 0)),
                   engine.origin, engine.spacing, **kwargs)

    @property
    def shape(self):
        return self.values.shape

    def inUnits(self, units="kT/e", temperature=300.0):
        """The values converted from kJ/mol/e (see unitFactor)."""
        return self.values * unitFactor(units, temperature)

    def coordinates(self, axis):
        """Coordinates (nm) of the lattice points along axis 0, 1 or 2."""
        return self.origin[axis] + self.spacing[axis] * np.arange(self.values.shape[axis])

    def writeDX(self, path, units="kT/e", temperature=300.0):
        """Writes OpenDX (VMD, PyMOL, ChimeraX, APBS's layout): coordinates in Angstrom, values in `units`."""
        values = self.inUnits(units, temperature)
        nx, ny, nz = values.shape
        origin = 10.0 * self.origin
        delta = 10.0 * self.spacing
        with open(path, "w") as dx:
            dx.write(f"# Electrostatic potential map from openmm-narumi ({self.method}"
                     f"{'' if self.cutoff is None else f', cutoff {self.cutoff:g} nm'}, {self.frames} frame(s))\n")
            note = f" at {float(_value(temperature, 'kelvin')):g} K" if units == "kT/e" else ""
            dx.write(f"# values in {units}{note}; coordinates in Angstrom\n")
            dx.write(f"object 1 class gridpositions counts {nx} {ny} {nz}\n")
            dx.write("origin {:.8e} {:.8e} {:.8e}\n".format(*origin))
            dx.write(f"delta {delta[0]:.8e} 0 0\ndelta 0 {delta[1]:.8e} 0\ndelta 0 0 {delta[2]:.8e}\n")
            dx.write(f"object 2 class gridconnections counts {nx} {ny} {nz}\n")
            dx.write(f"object 3 class array type double rank 0 items {values.size} data follows\n")
            flat = values.ravel(order="C")  # z fastest, as OpenDX wants
            whole = flat.size - flat.size % 3
            np.savetxt(dx, flat[:whole].reshape(-1, 3), fmt="%.7e")
            if whole < flat.size:
                dx.write(" ".join(f"{v:.7e}" for v in flat[whole:]) + "\n")
            dx.write('attribute "dep" string "positions"\n')
            dx.write('object "regular positions regular connections" class field\n')
            dx.write('component "positions" value 1\ncomponent "connections" value 2\ncomponent "data" value 3\n')

    def writeSlicePNG(self, path, axis="z", index=None, units="kT/e", temperature=300.0, limit=None, title=None):
        """A PNG of one lattice plane (the middle one by default), coloured red (negative) to blue (positive)."""
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        axes = {"x": 0, "y": 1, "z": 2}
        if axis not in axes:
            raise ValueError(f"axis must be 'x', 'y' or 'z', got {axis!r}")
        a = axes[axis]
        index = self.values.shape[a] // 2 if index is None else index
        if not 0 <= index < self.values.shape[a]:
            raise ValueError(f"slice index {index} is outside 0..{self.values.shape[a] - 1}")
        plane = np.take(self.inUnits(units, temperature), index, axis=a)
        u, v = [d for d in range(3) if d != a]
        limit = limit if limit is not None else float(np.percentile(np.abs(plane), 99)) or 1.0
        figure, ax = plt.subplots(figsize=(6, 5), dpi=120)
        extent = [self.coordinates(u)[0], self.coordinates(u)[-1], self.coordinates(v)[0], self.coordinates(v)[-1]]
        image = ax.imshow(plane.T, origin="lower", extent=extent, cmap="RdBu", vmin=-limit, vmax=limit, aspect="equal")
        ax.set_xlabel(f"{'xyz'[u]} (nm)")
        ax.set_ylabel(f"{'xyz'[v]} (nm)")
        ax.set_title(title or f"{axis} = {self.coordinates(a)[index]:.3f} nm")
        figure.colorbar(image, ax=ax, label=f"potential ({units})")
        figure.tight_layout()
        figure.savefig(path)
        plt.close(figure)


def makeLattice(spacing, region=None, positions=None, boxVectors=None, margin=0.5):
    """(origin, spacing[3], dims[3]) in nm for a region:

    - None: the periodic box if boxVectors is given (the brick [0, ax) x [0, by) x [0, cz) with the spacing adjusted
      so that whole numbers of points fill it and the map repeats with the box), else the positions' bounding box
      grown by margin;
    - ((x0, y0, z0), (x1, y1, z1)): the corners (nm or Quantity), spacing as given;
    - a sequence of atom indices: the bounding box of those atoms grown by margin.
    """
    h = float(_value(spacing, "nanometer"))
    margin = float(_value(margin, "nanometer"))
    if not np.isfinite(h) or h <= 0:
        raise ValueError(f"spacing must be positive and finite, got {h} nm")
    if region is None and boxVectors is not None:
        box = _box(boxVectors)
        lengths = np.array([box[0, 0], box[1, 1], box[2, 2]])
        dims = np.maximum(1, np.rint(lengths / h)).astype(int)
        return np.zeros(3), lengths / dims, dims
    if region is None or (np.ndim(_value(region, "nanometer")) == 1 and len(region) > 0):
        if positions is None:
            raise ValueError("a bounding-box region needs positions")
        points = _positions(positions)
        if region is not None:
            indices = np.asarray(region, dtype=np.int64)
            if indices.min() < 0 or indices.max() >= len(points):
                raise ValueError(f"region atom indices must lie in 0..{len(points) - 1}")
            points = points[indices]
        origin, spacings, dims = _potentialmap.boundingBoxLattice(points, margin, h)
        return np.asarray(origin), np.asarray(spacings), np.asarray(dims)
    corners = np.asarray(_value(region, "nanometer"), dtype=np.float64)
    if corners.shape != (2, 3):
        raise ValueError("region must be None, a pair of corners ((x0, y0, z0), (x1, y1, z1)) or atom indices")
    lo, hi = corners
    if not np.all(np.isfinite(corners)) or np.any(hi < lo):
        raise ValueError(f"region corners must be finite with hi >= lo, got {lo} and {hi}")
    dims = np.floor((hi - lo) / h + 1e-9).astype(int) + 1
    return lo, np.full(3, h), dims


def computePotentialMap(positions, charges, spacing=0.05, region=None, margin=0.5, method="cutoff", cutoff=1.2,
                        boxVectors=None, accumulation="compensated", backend="auto", lattice=None):
    """One structure's map.  positions (n, 3) nm, charges (n,) e; boxVectors makes the cutoff method periodic.

    lattice=(origin, spacing[3], dims[3]) overrides spacing/region/margin.  Returns a PotentialMap (kJ/mol/e).
    """
    points = _positions(positions)
    charges = np.asarray(_value(charges, "elementary_charge"), dtype=np.float64)
    if charges.shape != (len(points),):
        raise ValueError(f"charges must have one entry per atom ({len(points)}), got shape {charges.shape}")
    box = _box(boxVectors)
    if lattice is None:
        lattice = makeLattice(spacing, region, points, box, margin)
    origin, spacings, dims = lattice
    cutoff = float(_value(cutoff, "nanometer"))
    engine = _potentialmap.Engine(np.asarray(origin, float), np.asarray(spacings, float), [int(d) for d in dims], charges,
                                  method=method, cutoff=cutoff, accumulation=accumulation, backend=backend)
    values = engine.compute(points, box)
    return PotentialMap._fromEngineArray(values, engine, method=method, cutoff=cutoff if method == "cutoff" else None)


def chargesFromSystem(system):
    """Per-particle charges (e) of the System's NonbondedForce or NarumiNonbondedForce."""
    import openmm
    import openmm.unit as unit
    from .. import narumi
    for force in system.getForces():
        if isinstance(force, openmm.NonbondedForce):
            return np.array([force.getParticleParameters(i)[0].value_in_unit(unit.elementary_charge)
                             for i in range(force.getNumParticles())])
        if narumi.NarumiNonbondedForce.isinstance(force):
            force = narumi.NarumiNonbondedForce.cast(force)
            return np.array([force.getParticleParameters(i)[0].value_in_unit(unit.elementary_charge)
                             for i in range(force.getNumParticles())])
    raise ValueError("the System has no NonbondedForce or NarumiNonbondedForce to take charges from; pass charges=")


class PotentialMapReporter:
    """Accumulates the time-averaged potential map of a simulation and writes it as OpenDX (+ a PNG slice).

    simulation.reporters.append(PotentialMapReporter("map.dx", 1000, spacing=0.05*nanometer))
    ...; simulation.step(n); reporter.close()       # writes map.dx and map.png

    method 'cutoff' (default) uses periodic images when the System is periodic; 'direct' sums every atom as reported
    (molecules wrapped into the box), with no images.  region: see makeLattice (None: the periodic box, or the bounding
    box of the first frame grown by margin).  The map stays on the GPU between reports; only close() copies it back.
    """

    def __init__(self, file, reportInterval, spacing=0.05, method="cutoff", cutoff=1.2, region=None, margin=0.5,
                 accumulation="compensated", backend="auto", units="kT/e", temperature=300.0, png=True, charges=None,
                 sliceAxis="z"):
        if int(reportInterval) <= 0:
            raise ValueError(f"reportInterval must be a positive number of steps, got {reportInterval}")
        if method not in ("direct", "cutoff"):
            raise ValueError(f"method must be 'direct' or 'cutoff', got {method!r}")
        unitFactor(units, temperature)  # checks the units now rather than at the end of a long run
        self._file = file
        self._reportInterval = int(reportInterval)
        self._spacing = spacing
        self._method = method
        self._cutoff = float(_value(cutoff, "nanometer"))
        self._region = region
        self._margin = margin
        self._accumulation = accumulation
        self._backend = backend
        self._units = units
        self._temperature = temperature
        self._png = (os.path.splitext(file)[0] + ".png") if png is True else (png or None)
        self._charges = charges
        self._sliceAxis = sliceAxis
        self._engine = None
        self._periodic = False
        self._closed = False

    def describeNextReport(self, simulation):
        steps = self._reportInterval - simulation.currentStep % self._reportInterval
        # Cutoff maps image atoms themselves; direct maps want molecules wrapped into the box.
        return {"steps": steps, "periodic": self._method == "direct", "include": ["positions"]}

    def report(self, simulation, state):
        if self._closed:
            raise RuntimeError("PotentialMapReporter.report called after close()")
        positions = state.getPositions(asNumpy=True).value_in_unit(_unit("nanometer"))
        box = None
        if self._engine is None:
            self._start(simulation, state, positions)
        if self._periodic:
            box = _box(state.getPeriodicBoxVectors())
        self._engine.accumulate(np.asarray(positions, dtype=np.float64), box)

    def _start(self, simulation, state, positions):
        system = simulation.system
        charges = chargesFromSystem(system) if self._charges is None else np.asarray(_value(self._charges, "elementary_charge"), float)
        if len(charges) != len(positions):
            raise ValueError(f"{len(charges)} charges for {len(positions)} particles")
        self._periodic = self._method == "cutoff" and system.usesPeriodicBoundaryConditions()
        box = _box(state.getPeriodicBoxVectors()) if self._periodic else None
        origin, spacings, dims = makeLattice(self._spacing, self._region, positions, box, self._margin)
        self._engine = _potentialmap.Engine(origin, spacings, [int(d) for d in dims], charges, method=self._method,
                                            cutoff=self._cutoff, accumulation=self._accumulation, backend=self._backend)

    @property
    def backend(self):
        """'cuda' or 'cpu' once the first report has been made, else None."""
        return None if self._engine is None else self._engine.backend

    @property
    def map(self):
        """The time average so far as a PotentialMap (kJ/mol/e)."""
        if self._engine is None or self._engine.numFrames == 0:
            raise RuntimeError("no frame has been reported yet")
        return PotentialMap._fromEngineArray(self._engine.average(), self._engine, frames=self._engine.numFrames,
                                             method=self._method, cutoff=self._cutoff if self._method == "cutoff" else None)

    def close(self):
        """Writes the averaged map (.dx, and the PNG slice unless png=False).  Idempotent."""
        if self._closed:
            return
        self._closed = True
        if self._engine is None or self._engine.numFrames == 0:
            return
        average = self.map
        average.writeDX(self._file, self._units, self._temperature)
        if self._png:
            average.writeSlicePNG(self._png, axis=self._sliceAxis, units=self._units, temperature=self._temperature,
                                  title=f"{average.frames}-frame average")

    finalize = close

    def __del__(self):
        try:
            self.close()
        except Exception:  # never raise from a destructor
            pass


def _unit(name):
    import openmm.unit as unit
    return getattr(unit, name)


def _systemFromStructure(pdb, forcefieldFiles, addHydrogens):
    """Charges from an OpenMM ForceField; hydrogens are added (Modeller) if the templates need them."""
    import openmm.app as app
    forcefield = app.ForceField(*forcefieldFiles)
    modeller = app.Modeller(pdb.topology, pdb.positions)
    try:
        system = forcefield.createSystem(modeller.topology, nonbondedMethod=app.NoCutoff, constraints=None, rigidWater=False)
    except ValueError:
        if not addHydrogens:
            raise
        modeller.addHydrogens(forcefield)
        system = forcefield.createSystem(modeller.topology, nonbondedMethod=app.NoCutoff, constraints=None, rigidWater=False)
    return system, modeller


def potentialMapFromStructure(pdbFile, forcefield=("amber14-all.xml", "amber14/tip3p.xml"), spacing=0.05, method="cutoff",
                              cutoff=1.2, region=None, margin=0.5, periodic=None, accumulation="compensated", backend="auto",
                              addHydrogens=True):
    """The map of one PDB structure with force-field charges.  periodic=None: periodic if the PDB has a box (cutoff)."""
    import openmm.app as app
    pdb = app.PDBFile(pdbFile)
    system, modeller = _systemFromStructure(pdb, forcefield, addHydrogens)
    charges = chargesFromSystem(system)
    positions = _positions(modeller.positions)
    box = modeller.topology.getPeriodicBoxVectors()
    usePeriodic = method == "cutoff" and box is not None if periodic is None else bool(periodic)
    if usePeriodic and box is None:
        raise ValueError(f"{pdbFile} has no periodic box (CRYST1); use periodic=False")
    return computePotentialMap(positions, charges, spacing, region, margin, method, cutoff,
                               box if usePeriodic else None, accumulation, backend)


def potentialMapFromTrajectory(trajectoryFile, topologyFile, forcefield=("amber14-all.xml", "amber14/tip3p.xml"), spacing=0.05,
                               method="cutoff", cutoff=1.2, region=None, margin=0.5, periodic=None, stride=1,
                               accumulation="compensated", backend="auto", progress=True, chunk=100):
    """The time-averaged map of a trajectory (any format mdtraj reads) whose atoms match the topology PDB."""
    import mdtraj
    import openmm.app as app
    from tqdm import tqdm
    pdb = app.PDBFile(topologyFile)
    system, modeller = _systemFromStructure(pdb, forcefield, addHydrogens=False)
    charges = chargesFromSystem(system)
    engine = None
    usePeriodic = False
    frames = tqdm(desc="potential map", unit="frame", disable=not progress)
    try:
        for part in mdtraj.iterload(trajectoryFile, top=topologyFile, chunk=chunk, stride=stride):
            if part.n_atoms != len(charges):
                raise ValueError(f"the trajectory has {part.n_atoms} atoms, the topology with charges {len(charges)}")
            for frame in range(part.n_frames):
                positions = part.xyz[frame].astype(np.float64)
                box = None
                if part.unitcell_vectors is not None:
                    box = part.unitcell_vectors[frame].astype(np.float64)
                if engine is None:
                    usePeriodic = (method == "cutoff" and box is not None) if periodic is None else bool(periodic)
                    if usePeriodic and box is None:
                        raise ValueError(f"{trajectoryFile} has no unit cell; use periodic=False")
                    origin, spacings, dims = makeLattice(spacing, region, positions, box if usePeriodic else None, margin)
                    engine = _potentialmap.Engine(origin, spacings, [int(d) for d in dims], charges, method=method,
                                                  cutoff=float(_value(cutoff, "nanometer")), accumulation=accumulation,
                                                  backend=backend)
                engine.accumulate(positions, _reducedBox(box) if usePeriodic else None)
                frames.update(1)
    finally:
        frames.close()
    if engine is None:
        raise ValueError(f"{trajectoryFile} has no frames")
    return PotentialMap._fromEngineArray(engine.average(), engine, frames=engine.numFrames, method=method,
                                         cutoff=float(_value(cutoff, "nanometer")) if method == "cutoff" else None)


def _reducedBox(box):
    """OpenMM's reduced form of three box vectors (a trajectory may store any basis of the same lattice)."""
    a, b, c = np.array(box, dtype=np.float64)
    if max(abs(a[1]), abs(a[2]), abs(b[2])) > 1e-6 * np.linalg.norm(a):
        # Rotate into the lower-triangular form through lengths and angles (OpenMM's own conversion).
        from openmm.app.internal.unitcell import computePeriodicBoxVectors
        la, lb, lc = np.linalg.norm(a), np.linalg.norm(b), np.linalg.norm(c)
        angles = [np.arccos(np.dot(u, v) / (np.linalg.norm(u) * np.linalg.norm(v))) for u, v in ((b, c), (a, c), (a, b))]
        a, b, c = [np.array(v.value_in_unit(_unit("nanometer"))) for v in computePeriodicBoxVectors(la, lb, lc, *angles)]
    a[1] = a[2] = b[2] = 0.0  # single-precision files leave tiny residues
    c = c - b * np.round(c[1] / b[1])
    c = c - a * np.round(c[0] / a[0])
    b = b - a * np.round(b[0] / a[0])
    return np.array([a, b, c])


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python3 -m openmmnarumi.potentialmap",
                                     description="Electrostatic potential map of a PDB structure or the time average of a trajectory "
                                                 "(OpenDX + PNG slice).")
    parser.add_argument("pdb", help="structure (PDB); with --trajectory, its topology")
    parser.add_argument("--trajectory", help="trajectory file read with mdtraj (DCD, XTC, ...), atoms as in the PDB")
    parser.add_argument("--forcefield", nargs="+", default=["amber14-all.xml", "amber14/tip3p.xml"],
                        help="OpenMM force field XML files for the charges (default: amber14-all.xml amber14/tip3p.xml)")
    parser.add_argument("--spacing", type=float, default=0.05, help="lattice spacing in nm (default 0.05)")
    parser.add_argument("--method", choices=["cutoff", "direct"], default="cutoff")
    parser.add_argument("--cutoff", type=float, default=1.2, help="cutoff in nm for --method cutoff (default 1.2)")
    parser.add_argument("--margin", type=float, default=0.5, help="margin around the atoms in nm for non-periodic maps")
    parser.add_argument("--no-periodic", action="store_true", help="ignore the box even if the input has one")
    parser.add_argument("--stride", type=int, default=1, help="use every n-th trajectory frame")
    parser.add_argument("--accumulation", choices=["compensated", "narumi", "float"], default="compensated")
    parser.add_argument("--backend", choices=["auto", "cuda", "cpu"], default="auto")
    parser.add_argument("--units", default="kT/e", help="kT/e (default), V, mV, kJ/mol/e, kcal/mol/e or e/A")
    parser.add_argument("--temperature", type=float, default=300.0, help="temperature in K for kT/e (default 300)")
    parser.add_argument("--output", default="potential.dx", help="OpenDX file to write (default potential.dx)")
    parser.add_argument("--png", default=None, help="PNG slice to write (default: the output name with .png; 'none' for no PNG)")
    parser.add_argument("--slice-axis", choices=["x", "y", "z"], default="z")
    args = parser.parse_args(argv)
    unitFactor(args.units, args.temperature)
    periodic = False if args.no_periodic else None
    if args.trajectory:
        result = potentialMapFromTrajectory(args.trajectory, args.pdb, args.forcefield, args.spacing, args.method, args.cutoff,
                                            None, args.margin, periodic, args.stride, args.accumulation, args.backend)
    else:
        result = potentialMapFromStructure(args.pdb, args.forcefield, args.spacing, args.method, args.cutoff, None, args.margin,
                                           periodic, args.accumulation, args.backend)
    result.writeDX(args.output, args.units, args.temperature)
    png = os.path.splitext(args.output)[0] + ".png" if args.png is None else (None if args.png == "none" else args.png)
    if png:
        result.writeSlicePNG(png, axis=args.slice_axis, units=args.units, temperature=args.temperature)
    values = result.inUnits(args.units, args.temperature)
    print(f"{args.output}: {result.shape[0]} x {result.shape[1]} x {result.shape[2]} points at "
          f"{', '.join(f'{s:g}' for s in result.spacing)} nm, {result.frames} frame(s), {args.units} from "
          f"{values.min():.4g} to {values.max():.4g}" + (f"; {png}" if png else ""))
    return 0

