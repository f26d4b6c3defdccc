"""g(r) of a trajectory file (read with mdtraj), with a progress bar."""
import os

from .._deprecation import deprecatedAlias
from .._optional import importMdtraj
from .._units import nanometers, wholeNumber
from .engine import RDFEngine
from .result import RDFResult
from .selection import exclusionGroups, selectAtoms

__all__ = ["computeRDFTrajectory"]


def _frameCount(trajectory):
    mdtraj = importMdtraj("reading a trajectory")
    try:
        with mdtraj.open(trajectory) as handle:
            return len(handle)
    except Exception:  # formats without a cheap length: the progress bar just counts
        return None


def _loadTopology(mdtraj, path):
    """mdtraj's topology of a file; ValueError naming the file if it cannot be read (a PDB without atoms, another
    format under a known extension), where mdtraj raises IndexError deep inside its reader."""
    try:
        topology = mdtraj.load_topology(os.fspath(path))
    except (IndexError, KeyError) as error:
        raise ValueError(f"{path}: not a topology mdtraj can read ({type(error).__name__}: {error})") from None
    if topology.n_atoms == 0:
        raise ValueError(f"{path}: the topology has no atoms")
    return topology


def computeRDFTrajectory(trajectory, topology, selection1, selection2=None, rMax=1.0, bins=200, rMin=0.0,
                         exclusion=None, stride=1, chunk=100, backend="auto", algorithm="auto", progress=True,
                         cudaDevice=0):
    """g(r) over a trajectory file read with mdtraj (DCD, XTC, TRR, NetCDF, ...) and a topology file (PDB).

    rMax, rMin in nm (or Quantities).  progress: a tqdm bar when stderr is a terminal.

    Frames without unit cells use no periodicity, and their volume must then be known: such trajectories are refused
    unless every frame has a box.  Returns an RDFResult.
    """
    stride = wholeNumber("stride", stride, 1)  # bad input is named before a missing optional package
    mdtraj = importMdtraj("computeRDFTrajectory (narumi-rdf)")
    from tqdm import tqdm

    mdTopology = _loadTopology(mdtraj, topology) if isinstance(topology, (str, os.PathLike)) else topology
    indices1 = selectAtoms(mdTopology, selection1)
    indices2 = None if selection2 is None else selectAtoms(mdTopology, selection2)
    if len(indices1) == 0:
        raise ValueError(f"selection1 {selection1!r} matched no atoms")
    if indices2 is not None and len(indices2) == 0:
        raise ValueError(f"selection2 {selection2!r} matched no atoms")
    engine = RDFEngine(mdTopology.n_atoms, indices1, indices2, rMax=nanometers(rMax), bins=wholeNumber("bins", bins),
                       rMin=nanometers(rMin), exclusionGroups=exclusionGroups(mdTopology, exclusion),
                       backend=backend, algorithm=algorithm, cudaDevice=cudaDevice)
    total = _frameCount(os.fspath(trajectory))
    total = None if total is None else (total + stride - 1) // stride
    # tqdm's disable=None: a bar on a terminal only.
    with tqdm(total=total, unit="frame", disable=None if progress else True, desc="RDF") as bar:
        for frames in mdtraj.iterload(os.fspath(trajectory), top=mdTopology, chunk=chunk, stride=stride):
            if frames.unitcell_vectors is None:
                raise ValueError(f"{trajectory} has no unit cells: g(r) needs each frame's volume")
            for xyz, box in zip(frames.xyz, frames.unitcell_vectors):
                engine.addFrame(xyz, box)
            bar.update(frames.n_frames)
    return RDFResult.fromEngine(engine, trajectory=os.fspath(trajectory), rMin=engine.rMin, rMax=engine.rMax,
                                bins=engine.bins, exclusion=exclusion)


compute_rdf_trajectory = deprecatedAlias(computeRDFTrajectory, "compute_rdf_trajectory")
