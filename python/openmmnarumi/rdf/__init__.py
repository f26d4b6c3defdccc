"""Radial distribution functions on the GPU while OpenMM simulates, and for existing trajectories.

* :class:`RDFReporter` -- an OpenMM reporter: ``simulation.reporters.append(RDFReporter("rdf.csv", 100, ...))``;
  ``close()`` writes ``rdf.csv`` (r, g(r), n(r), counts) and ``rdf.png``.
* :func:`compute_rdf_trajectory` -- the same for a trajectory file read with mdtraj (DCD, XTC, ...), with a progress
  bar; ``python3 -m openmmnarumi.rdf TRAJ --top PDB --sel1 ... --r-max ...`` on the command line.
* :class:`RDFEngine` -- the engine itself (``openmmnarumi._rdf``): CUDA when a GPU is present, else all CPU cores.
* :func:`createSampler` and :func:`samplerResult` -- g(r) sampled inside OpenMM's Context by the
  ``openmmnarumi.RDFSampler`` force (no position download, no synchronisation: the way to sample often on a fast
  GPU simulation)::

      sampler = openmmnarumi.rdf.createSampler(topology, {"resname": "HOH", "name": "O"}, rMax=1.2, samplingInterval=100)
      system.addForce(sampler)          # before the Simulation/Context is created
      ...
      simulation.step(100000)
      result = openmmnarumi.rdf.samplerResult(sampler, simulation.context)   # an RDFResult
      result.write_csv("rdf.csv"); result.plot("rdf.png")

Selections are atom indices, an mdtraj selection string (``"name O and resname HOH"``; needs mdtraj), or a dict
matched against an OpenMM Topology: ``{"resname": "HOH", "name": "O"}``, ``{"element": "O"}`` (values may be lists).
Units: nm.  Normalisation and limits: docs/rdf.md.
"""
import argparse
import os
import sys
from dataclasses import dataclass, field

import numpy as np

from .._rdf import RDFEngine, cudaAvailable, maximumRMax

__all__ = ["RDFEngine", "RDFReporter", "RDFResult", "compute_rdf_trajectory", "select_atoms", "exclusion_groups",
           "cudaAvailable", "maximumRMax", "createSampler", "samplerResult"]

_QUERY_KEYS = {"resname", "name", "element", "resid", "chain", "index"}


def _nanometers(value):
    """A float in nm from a float or an openmm.unit Quantity of length."""
    if hasattr(value, "value_in_unit"):
        import openmm.unit as unit
        return float(value.value_in_unit(unit.nanometer))
    return float(value)


def _as_set(value):
    return {value} if isinstance(value, (str, int)) else set(value)


def select_atoms(topology, selection):
    """Atom indices of a selection: indices, an mdtraj selection string, or a query dict on an OpenMM Topology.

    Query keys: resname, name, element (symbol), resid (residue index), chain (chain index), index; each value is
    one value or a collection, and an atom must match every key.
    """
    if isinstance(selection, str):
        try:
            import mdtraj
        except ImportError as error:
            raise ImportError("selection strings need mdtraj; pass atom indices or a query dict instead") from error
        md_topology = topology if isinstance(topology, mdtraj.Topology) else mdtraj.Topology.from_openmm(topology)
        return [int(i) for i in md_topology.select(selection)]
    if isinstance(selection, dict):
        unknown = set(selection) - _QUERY_KEYS
        if unknown:
            raise ValueError(f"unknown selection keys {sorted(unknown)}; use {sorted(_QUERY_KEYS)}")
        if topology is None:
            raise ValueError("a query selection needs a topology")
        wanted = {key: _as_set(value) for key, value in selection.items()}
        if hasattr(topology, "to_openmm"):  # an mdtraj Topology
            topology = topology.to_openmm()
        indices = []
        for atom in topology.atoms():
            properties = {"resname": atom.residue.name, "name": atom.name, "resid": atom.residue.index,
                          "chain": atom.residue.chain.index, "index": atom.index,
                          "element": atom.element.symbol if atom.element is not None else None}
            if all(properties[key] in values for key, values in wanted.items()):
                indices.append(atom.index)
        return indices
    indices = [int(i) for i in np.asarray(selection, dtype=np.int64).ravel()]
    return indices


def exclusion_groups(topology, exclusion, molecules=None):
    """One group per atom for RDFEngine: exclusion None, "residue", "molecule" (needs molecules, a list of atom-index
    lists, or an mdtraj topology) or an explicit sequence of integers."""
    if exclusion is None:
        return None
    if isinstance(exclusion, str):
        if hasattr(topology, "to_openmm") and exclusion == "molecule" and molecules is None:
            molecules = [[atom.index for atom in molecule] for molecule in topology.find_molecules()]
        if hasattr(topology, "to_openmm"):
            topology = topology.to_openmm()
        if exclusion == "residue":
            return [atom.residue.index for atom in topology.atoms()]
        if exclusion == "molecule":
            if molecules is None:
                raise ValueError("exclusion='molecule' needs the molecules (a Context's getMolecules())")
            groups = [-1] * topology.getNumAtoms()
            for number, molecule in enumerate(molecules):
                for atom in molecule:
                    groups[atom] = number
            return groups
        raise ValueError(f"exclusion = {exclusion!r} is not None, 'residue', 'molecule' or a list of groups")
    return [int(g) for g in exclusion]


@dataclass
class RDFResult:
    """g(r) and n(r) at the bin centres r (nm), the ordered-pair counts behind them, and the frames used."""
    r: np.ndarray
    g: np.ndarray
    n: np.ndarray
    counts: np.ndarray
    edges: np.ndarray
    frames: int
    metadata: dict = field(default_factory=dict)

    @classmethod
    def from_engine(cls, engine, **metadata):
        metadata.update(selection1Size=engine.selection1Size, selection2Size=engine.selection2Size,
                        pairsPerFrame=engine.numPairsPerFrame, backend=engine.backend, algorithm=engine.lastAlgorithm)
        return cls(r=engine.binCenters(), g=engine.rdf(), n=engine.coordinationNumber(), counts=engine.pairCounts(),
                   edges=engine.binEdges(), frames=engine.numFrames, metadata=metadata)

    def write_csv(self, path):
        """Comment lines with the metadata, then columns r_nm, g, n, pair_count."""
        with open(path, "w") as out:
            out.write("# radial distribution function (openmm-narumi)\n")
            out.write(f"# frames: {self.frames}\n")
            for key, value in self.metadata.items():
                out.write(f"# {key}: {value}\n")
            out.write("r_nm,g,n,pair_count\n")
            for values in zip(self.r, self.g, self.n, self.counts):
                out.write(f"{values[0]:.6f},{values[1]:.9g},{values[2]:.9g},{values[3]:d}\n")

    def plot(self, path, title=None):
        """g(r) with n(r) on a second axis, written with matplotlib's Agg backend."""
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        figure, axis = plt.subplots(figsize=(6, 4), dpi=120)
        axis.plot(self.r, self.g, color="tab:blue")
        axis.axhline(1.0, color="0.7", linewidth=0.8)
        axis.set_xlabel("r (nm)")
        axis.set_ylabel("g(r)", color="tab:blue")
        twin = axis.twinx()
        twin.plot(self.r, self.n, color="tab:orange", linestyle="--")
        twin.set_ylabel("n(r)", color="tab:orange")
        axis.set_title(title or f"RDF over {self.frames} frames")
        figure.tight_layout()
        figure.savefig(path)
        plt.close(figure)


def _output_paths(file):
    stem, extension = os.path.splitext(file)
    return (file if extension else file + ".csv"), stem + ".png"


class RDFReporter:
    """An OpenMM reporter that accumulates g(r) every reportInterval steps.

    RDFReporter(file, reportInterval, selection1, selection2=None, rMax=1.0, bins=200, rMin=0.0, exclusion=None,
    backend="auto", algorithm="auto", plot=True, writeInterval=None, referenceVolume=None)

    file: the CSV path (the PNG goes next to it, same stem).  selection1/2: see the module documentation.
    rMax, rMin: nm or length Quantities.  exclusion: None, "residue", "molecule" or a group per atom.
    writeInterval: also rewrite the files every this many reports (default: only at close()).
    referenceVolume: nm^3, to normalise g(r) of simulations without a periodic box.
    """

    def __init__(self, file, reportInterval, selection1, selection2=None, rMax=1.0, bins=200, rMin=0.0, exclusion=None,
                 backend="auto", algorithm="auto", plot=True, writeInterval=None, referenceVolume=None):
        if int(reportInterval) < 1:
            raise ValueError(f"reportInterval = {reportInterval} must be at least 1")
        self._csvPath, self._pngPath = _output_paths(os.fspath(file))
        self._reportInterval = int(reportInterval)
        self._selections = (selection1, selection2)
        self._rMax, self._rMin, self._bins = _nanometers(rMax), _nanometers(rMin), int(bins)
        self._exclusion = exclusion
        self._backend, self._algorithm = backend, algorithm
        self._plot = plot
        self._writeInterval = writeInterval
        self._referenceVolume = referenceVolume
        self._engine = None
        self._periodic = None
        self._reports = 0
        self._closed = False

    @property
    def engine(self):
        """The RDFEngine (None before the first report)."""
        return self._engine

    def describeNextReport(self, simulation):
        steps = self._reportInterval - simulation.currentStep % self._reportInterval
        # Positions only, not wrapped into the box: the engine applies the minimum image itself.
        return {"steps": steps, "periodic": False, "include": ["positions"]}

    def _initialize(self, simulation):
        topology = simulation.topology
        indices1 = select_atoms(topology, self._selections[0])
        indices2 = None if self._selections[1] is None else select_atoms(topology, self._selections[1])
        if len(indices1) == 0:
            raise ValueError(f"selection1 {self._selections[0]!r} matched no atoms")
        if indices2 is not None and len(indices2) == 0:
            raise ValueError(f"selection2 {self._selections[1]!r} matched no atoms")
        molecules = None
        if self._exclusion == "molecule":
            molecules = [list(molecule) for molecule in simulation.context.getMolecules()]
        groups = exclusion_groups(topology, self._exclusion, molecules)
        self._periodic = simulation.system.usesPeriodicBoundaryConditions()
        self._engine = RDFEngine(simulation.system.getNumParticles(), indices1, indices2, rMax=self._rMax,
                                 bins=self._bins, rMin=self._rMin, exclusionGroups=groups, backend=self._backend,
                                 algorithm=self._algorithm)
        if self._engine.numPairsPerFrame == 0:
            raise ValueError("the selections have no atom pairs (one atom, or every pair excluded)")
        if self._referenceVolume is not None:
            self._engine.setReferenceVolume(_nanometers(self._referenceVolume))

    def report(self, simulation, state):
        if self._closed:
            raise RuntimeError("this RDFReporter was closed")
        if self._engine is None:
            self._initialize(simulation)
        import openmm.unit as unit
        positions = state.getPositions(asNumpy=True).value_in_unit(unit.nanometer)
        box = state.getPeriodicBoxVectors(asNumpy=True).value_in_unit(unit.nanometer) if self._periodic else None
        self._engine.addFrame(positions, box)
        self._reports += 1
        if self._writeInterval and self._reports % int(self._writeInterval) == 0:
            self.write()

    def result(self):
        """The RDF so far, as an RDFResult."""
        if self._engine is None or self._engine.numFrames == 0:
            raise RuntimeError("no frame was reported yet")
        return RDFResult.from_engine(self._engine, rMin=self._engine.rMin, rMax=self._engine.rMax,
                                     bins=self._engine.bins, exclusion=self._exclusion)

    def write(self):
        """Writes the CSV (and the PNG if plot=True) for the frames so far."""
        result = self.result()
        result.write_csv(self._csvPath)
        if self._plot:
            result.plot(self._pngPath)
        return result

    def close(self):
        """Writes the files once more and stops accepting reports."""
        if not self._closed and self._engine is not None and self._engine.numFrames > 0:
            self.write()
        self._closed = True

    def __enter__(self):
        return self

    def __exit__(self, *exception):
        self.close()


def _bonded_molecules(topology):
    """Atom-index lists of the molecules of an OpenMM Topology (connected by its bonds)."""
    parent = list(range(topology.getNumAtoms()))

    def root(i):
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    for bond in topology.bonds():
        a, b = root(bond[0].index), root(bond[1].index)
        if a != b:
            parent[max(a, b)] = min(a, b)
    molecules = {}
    for i in range(len(parent)):
        molecules.setdefault(root(i), []).append(i)
    return list(molecules.values())


def createSampler(topology, selection1, selection2=None, rMax=1.0, bins=200, samplingInterval=100, rMin=0.0,
                  exclusion=None, molecules=None):
    """An openmmnarumi.RDFSampler for the selections of a topology; add it to the System before creating the Context.

    selection1/2: atom indices, an mdtraj selection string or a query dict (see the module documentation).
    exclusion: None, "residue", "molecule" (molecules from the topology's bonds unless given) or a group per atom.
    The sampler takes a frame at the start of every step whose step count is a multiple of samplingInterval.
    """
    from ..narumi import RDFSampler
    indices1 = select_atoms(topology, selection1)
    indices2 = [] if selection2 is None else select_atoms(topology, selection2)
    if len(indices1) == 0:
        raise ValueError(f"selection1 {selection1!r} matched no atoms")
    if selection2 is not None and len(indices2) == 0:
        raise ValueError(f"selection2 {selection2!r} matched no atoms")
    if exclusion == "molecule" and molecules is None and topology is not None and not hasattr(topology, "to_openmm"):
        molecules = _bonded_molecules(topology)
    groups = exclusion_groups(topology, exclusion, molecules)
    sampler = RDFSampler(indices1, indices2, _nanometers(rMax), int(bins), int(samplingInterval), _nanometers(rMin))
    if groups is not None:
        sampler.setExclusionGroups([int(g) for g in groups])
    return sampler


def samplerResult(sampler, context, referenceVolume=None, **metadata):
    """What an RDFSampler has sampled in context, as an RDFResult (g(r), n(r), counts; write_csv, plot).

    The normalisation is RDFEngine's (docs/rdf.md), evaluated in the same order, so a sampler and an engine that saw
    the same frames give the same numbers.  referenceVolume (nm^3) normalises frames without a periodic box.
    """
    raw = sampler.getResult(context)
    frames = int(raw.numFrames)
    if frames == 0:
        raise RuntimeError("the RDFSampler has sampled no frame yet (frames are taken at the start of each step whose "
                           "step count is a multiple of its sampling interval)")
    counts = np.array(raw.pairCounts, dtype=np.uint64)
    rMin, rMax, bins = sampler.getRMin(), sampler.getRMax(), sampler.getNumBins()
    width = (rMax - rMin) / bins
    edges = rMin + np.arange(bins + 1, dtype=np.float64) * width
    edges[bins] = rMax
    centers = 0.5 * (edges[:-1] + edges[1:])
    numPairs = int(raw.numPairsPerFrame)
    size1 = len(sampler.getSelection1())
    size2 = len(sampler.getSelection2()) or size1
    without_box = int(raw.framesWithoutBox)
    if without_box > 0 and referenceVolume is None:
        raise ValueError(f"{without_box} frames had no periodic box: pass referenceVolume to normalise g(r)")
    sum_inverse_volume = raw.sumInverseVolume + (without_box / _nanometers(referenceVolume) if without_box else 0.0)
    if numPairs <= 0:
        raise ValueError(f"g(r) is undefined: there are no atom pairs to normalise by (selection sizes {size1} and {size2})")
    shells = 4.0 / 3.0 * np.pi * (edges[1:] * edges[1:] * edges[1:] - edges[:-1] * edges[:-1] * edges[:-1])
    g = counts.astype(np.float64) / (float(numPairs) * sum_inverse_volume * shells)
    n = np.cumsum(counts).astype(np.float64) / (float(frames) * size1)
    platform = context.getPlatform().getName()
    info = dict(selection1Size=size1, selection2Size=size2, pairsPerFrame=numPairs,
                backend=f"in-context RDFSampler ({platform})", samplingInterval=sampler.getSamplingInterval(),
                lastSampledStep=int(raw.lastSampledStep), rMin=rMin, rMax=rMax, bins=bins)
    info.update(metadata)
    return RDFResult(r=centers, g=g, n=n, counts=counts, edges=edges, frames=frames, metadata=info)


def _frame_count(trajectory, topology):
    import mdtraj
    try:
        with mdtraj.open(trajectory) as handle:
            return len(handle)
    except Exception:  # formats without a cheap length: the progress bar just counts
        return None


def compute_rdf_trajectory(trajectory, topology, selection1, selection2=None, rMax=1.0, bins=200, rMin=0.0,
                           exclusion=None, stride=1, chunk=100, backend="auto", algorithm="auto", progress=True):
    """g(r) over a trajectory file read with mdtraj (DCD, XTC, TRR, NetCDF, ...) and a topology file (PDB).

    Frames without unit cells use no periodicity, and their volume must then be known: such trajectories are refused
    unless every frame has a box.  Returns an RDFResult.
    """
    import mdtraj
    from tqdm import tqdm

    md_topology = mdtraj.load_topology(topology) if isinstance(topology, (str, os.PathLike)) else topology
    indices1 = select_atoms(md_topology, selection1)
    indices2 = None if selection2 is None else select_atoms(md_topology, selection2)
    if len(indices1) == 0:
        raise ValueError(f"selection1 {selection1!r} matched no atoms")
    if indices2 is not None and len(indices2) == 0:
        raise ValueError(f"selection2 {selection2!r} matched no atoms")
    engine = RDFEngine(md_topology.n_atoms, indices1, indices2, rMax=_nanometers(rMax), bins=int(bins),
                       rMin=_nanometers(rMin), exclusionGroups=exclusion_groups(md_topology, exclusion),
                       backend=backend, algorithm=algorithm)
    total = _frame_count(os.fspath(trajectory), md_topology)
    total = None if total is None else (total + stride - 1) // stride
    with tqdm(total=total, unit="frame", disable=not progress, desc="RDF") as bar:
        for frames in mdtraj.iterload(os.fspath(trajectory), top=md_topology, chunk=chunk, stride=stride):
            if frames.unitcell_vectors is None:
                raise ValueError(f"{trajectory} has no unit cells: g(r) needs each frame's volume")
            for xyz, box in zip(frames.xyz, frames.unitcell_vectors):
                engine.addFrame(xyz, box)
            bar.update(frames.n_frames)
    return RDFResult.from_engine(engine, trajectory=os.fspath(trajectory), rMin=engine.rMin, rMax=engine.rMax,
                                 bins=engine.bins, exclusion=exclusion)


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python3 -m openmmnarumi.rdf",
                                     description="g(r) of a trajectory on the GPU (or CPU): writes a CSV and a PNG.")
    parser.add_argument("trajectory", help="trajectory file (DCD, XTC, ...; read with mdtraj)")
    parser.add_argument("--top", required=True, help="topology file (PDB)")
    parser.add_argument("--sel1", required=True, help='mdtraj selection, e.g. "name O and water"')
    parser.add_argument("--sel2", help="second selection (default: the same as --sel1)")
    parser.add_argument("--r-max", type=float, default=1.0, help="largest distance, nm (default 1.0)")
    parser.add_argument("--r-min", type=float, default=0.0, help="smallest distance, nm (default 0)")
    parser.add_argument("--bins", type=int, default=200, help="number of bins (default 200)")
    parser.add_argument("--stride", type=int, default=1, help="use every STRIDE-th frame")
    parser.add_argument("--exclude", choices=["residue", "molecule"], help="skip pairs within one residue/molecule")
    parser.add_argument("--backend", choices=["auto", "cpu", "cuda"], default="auto")
    parser.add_argument("--algorithm", choices=["auto", "all-pairs", "cell-list"], default="auto")
    parser.add_argument("--output", default="rdf.csv", help="CSV path; the PNG gets the same stem (default rdf.csv)")
    parser.add_argument("--no-plot", action="store_true", help="write no PNG")
    parser.add_argument("--quiet", action="store_true", help="no progress bar")
    args = parser.parse_args(argv)
    try:
        result = compute_rdf_trajectory(args.trajectory, args.top, args.sel1, args.sel2, rMax=args.r_max,
                                        bins=args.bins, rMin=args.r_min, exclusion=args.exclude, stride=args.stride,
                                        backend=args.backend, algorithm=args.algorithm, progress=not args.quiet)
    except (ValueError, RuntimeError, OSError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    csv_path, png_path = _output_paths(args.output)
    result.write_csv(csv_path)
    if not args.no_plot:
        result.plot(png_path, title=f"{args.sel1} / {args.sel2 or args.sel1}")
    print(f"{result.frames} frames, {result.metadata['pairsPerFrame']} pairs per frame ({result.metadata['backend']}, "
          f"{result.metadata['algorithm']}): wrote {csv_path}" + ("" if args.no_plot else f" and {png_path}"))
    return 0

