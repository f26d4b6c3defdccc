"""Maps of PDB structures and trajectory files, with charges from an OpenMM force field."""
import numpy as np

from .._optional import importMdtraj
from .._system import chargesFromSystem
from .._units import nanometers, positionsInNanometers, wholeNumber
from .engine import PERIODIC_METHODS, computePotentialMap, createEngine, makeLattice
from ..pqr import isPQR, readPDBFile, readPQR
from .result import PotentialMap

__all__ = ["potentialMapFromStructure", "potentialMapFromTrajectory"]

DEFAULT_FORCEFIELD = ("amber14-all.xml", "amber14/tip3p.xml")


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


def potentialMapFromStructure(pdbFile, forcefield=DEFAULT_FORCEFIELD, spacing=0.05, method="cutoff", cutoff=1.2,
                              region=None, margin=0.5, periodic=None, accumulation="compensated", backend="auto",
                              addHydrogens=True, cudaDevice=0, msmAccuracy=1e-3, msmOrder=5):
    """The map of one structure: a PDB with force-field charges, or a PQR file with its own charges.  Lengths in nm
    (or Quantities).  periodic=None: periodic if the file has a box (CRYST1) and the method is 'cutoff' or 'msm'.
    The other arguments are computePotentialMap's.  Returns a PotentialMap (kJ/mol/e)."""
    if isPQR(pdbFile):
        structure = readPQR(pdbFile)
        charges, positions, box = structure.charges, structure.positions, structure.boxVectors
    else:
        pdb = readPDBFile(pdbFile)
        system, modeller = _systemFromStructure(pdb, forcefield, addHydrogens)
        charges = chargesFromSystem(system)
        positions = positionsInNanometers(modeller.positions)
        box = modeller.topology.getPeriodicBoxVectors()
    usePeriodic = method in PERIODIC_METHODS and box is not None if periodic is None else bool(periodic)
    if usePeriodic and box is None:
        raise ValueError(f"{pdbFile} has no periodic box (CRYST1); use periodic=False")
    return computePotentialMap(positions, charges, spacing, region, margin, method, cutoff,
                               box if usePeriodic else None, accumulation, backend, cudaDevice=cudaDevice,
                               msmAccuracy=msmAccuracy, msmOrder=msmOrder)


def potentialMapFromTrajectory(trajectoryFile, topologyFile, forcefield=DEFAULT_FORCEFIELD, spacing=0.05,
                               method="cutoff", cutoff=1.2, region=None, margin=0.5, periodic=None, stride=1,
                               accumulation="compensated", backend="auto", progress=True, chunk=100, cudaDevice=0,
                               msmAccuracy=1e-3, msmOrder=5):
    """The time-averaged map of a trajectory (any format mdtraj reads) whose atoms match the topology PDB, with charges
    from the force field.  Lengths in nm (or Quantities); stride: every stride-th frame; progress: a tqdm bar when
    stderr is a terminal; the other arguments are potentialMapFromStructure's.  Returns a PotentialMap (kJ/mol/e)."""
    stride = wholeNumber("stride", stride, 1)  # bad input is named before a missing optional package
    mdtraj = importMdtraj("potentialMapFromTrajectory (narumi-map --trajectory)")
    from tqdm import tqdm
    pdb = readPDBFile(topologyFile)
    system, modeller = _systemFromStructure(pdb, forcefield, addHydrogens=False)
    charges = chargesFromSystem(system)
    engine = None
    usePeriodic = False
    frames = tqdm(desc="potential map", unit="frame", disable=None if progress else True)  # a bar on a terminal only
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
                    usePeriodic = (method in PERIODIC_METHODS and box is not None) if periodic is None else bool(periodic)
                    if usePeriodic and box is None:
                        raise ValueError(f"{trajectoryFile} has no unit cell; use periodic=False")
                    lattice = makeLattice(spacing, region, positions, box if usePeriodic else None, margin)
                    engine = createEngine(lattice, charges, method, nanometers(cutoff), accumulation, backend,
                                          cudaDevice, msmAccuracy, msmOrder)
                engine.accumulate(positions, reducedBox(box) if usePeriodic else None)
                frames.update(1)
    finally:
        frames.close()
    if engine is None:
        raise ValueError(f"{trajectoryFile} has no frames")
    return PotentialMap._fromEngineArray(engine.average(), engine, frames=engine.numFrames, method=method,
                                         cutoff=nanometers(cutoff) if method == "cutoff" else None)


def reducedBox(box):
    """OpenMM's reduced form of three box vectors (a trajectory may store any basis of the same lattice)."""
    import openmm.unit as unit
    a, b, c = np.array(box, dtype=np.float64)
    if max(abs(a[1]), abs(a[2]), abs(b[2])) > 1e-6 * np.linalg.norm(a):
        # Rotate into the lower-triangular form through lengths and angles (OpenMM's own conversion).
        from openmm.app.internal.unitcell import computePeriodicBoxVectors
        la, lb, lc = np.linalg.norm(a), np.linalg.norm(b), np.linalg.norm(c)
        angles = [np.arccos(np.dot(u, v) / (np.linalg.norm(u) * np.linalg.norm(v))) for u, v in ((b, c), (a, c), (a, b))]
        a, b, c = [np.array(v.value_in_unit(unit.nanometer)) for v in computePeriodicBoxVectors(la, lb, lc, *angles)]
    a[1] = a[2] = b[2] = 0.0  # single-precision files leave tiny residues
    c = c - b * np.round(c[1] / b[1])
    c = c - a * np.round(c[0] / a[0])
    b = b - a * np.round(b[0] / a[0])
    return np.array([a, b, c])
