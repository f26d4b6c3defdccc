"""RDFReporter: g(r) accumulated while OpenMM simulates, written as CSV and PNG."""
import os

from .._units import nanometers
from .engine import RDFEngine
from .result import RDFResult, outputPaths
from .selection import exclusionGroups, selectAtoms

__all__ = ["RDFReporter"]


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
        self._csvPath, self._pngPath = outputPaths(os.fspath(file))
        self._reportInterval = int(reportInterval)
        self._selections = (selection1, selection2)
        self._rMax, self._rMin, self._bins = nanometers(rMax), nanometers(rMin), int(bins)
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
        indices1 = selectAtoms(topology, self._selections[0])
        indices2 = None if self._selections[1] is None else selectAtoms(topology, self._selections[1])
        if len(indices1) == 0:
            raise ValueError(f"selection1 {self._selections[0]!r} matched no atoms")
        if indices2 is not None and len(indices2) == 0:
            raise ValueError(f"selection2 {self._selections[1]!r} matched no atoms")
        molecules = None
        if self._exclusion == "molecule":
            molecules = [list(molecule) for molecule in simulation.context.getMolecules()]
        groups = exclusionGroups(topology, self._exclusion, molecules)
        self._periodic = simulation.system.usesPeriodicBoundaryConditions()
        self._engine = RDFEngine(simulation.system.getNumParticles(), indices1, indices2, rMax=self._rMax,
                                 bins=self._bins, rMin=self._rMin, exclusionGroups=groups, backend=self._backend,
                                 algorithm=self._algorithm)
        if self._engine.numPairsPerFrame == 0:
            raise ValueError("the selections have no atom pairs (one atom, or every pair excluded)")
        if self._referenceVolume is not None:
            self._engine.setReferenceVolume(nanometers(self._referenceVolume))

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
        return RDFResult.fromEngine(self._engine, rMin=self._engine.rMin, rMax=self._engine.rMax,
                                    bins=self._engine.bins, exclusion=self._exclusion)

    def write(self):
        """Writes the CSV (and the PNG if plot=True) for the frames so far."""
        result = self.result()
        result.writeCSV(self._csvPath)
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
