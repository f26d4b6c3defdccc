"""RDFReporter: g(r) accumulated inside the running Context, on disk all along (CSV + JSON sidecar, PNG at the end)."""
import dataclasses
import os
import warnings

import numpy as np

from .._deprecation import renamedKeywords
from .._reporting import (Accumulation, UpdateSchedule, checkAppendedSettings, checkOutputPath, claimOutputPaths,
                          loadArrays, replaceAtomically, saveArrays, statePath, watchReporter)
from .._units import nanometers, wholeNumber
from .result import RDFCounts, RDFResult, metadataPath, outputPaths, referenceVolumeInNanometers3
from .selection import checkSelection, exclusionGroups, selectAtoms

__all__ = ["RDFReporter"]


class RDFReporter:
    """An OpenMM reporter that accumulates g(r) every reportInterval steps, like OpenMM's own reporters writing as it
    goes.

    RDFReporter(file, reportInterval, selection1, selection2=None, rMax=1.0, bins=200, rMin=0.0, exclusion=None,
    png=True, writeInterval=10, writeSeconds=60, append=False, referenceVolume=None)

    Frames are histogrammed inside the Context by the plugin's RDF sampling kernel on the Context's own positions (on
    CUDA: OpenMM's device buffer, on its stream, with no getState copy); the Context's platform must be Reference,
    CPU or CUDA.

    file: the CSV path (r_nm, g, n, pair_count under one header line); beside it FILE.json (metadata: frames,
    selections, range, units), FILE.csv.state.npz (the counts, for append=True) and the PNG of g(r) and n(r)
    (png=True: same stem; a path; False: none).  selection1/2: atom indices, an mdtraj selection string or a query dict (see the rdf module).
    rMax, rMin: nm or length Quantities.  exclusion: None, "residue", "molecule" or a group per atom.
    referenceVolume: nm^3 (or a volume Quantity), to normalise g(r) of simulations without a periodic box.

    Never losing data: the CSV, JSON and state are rewritten during the run after writeInterval reports or
    writeSeconds of wall time, whichever comes first (None turns either off; updates are spaced so that writing
    costs at most 2% of the wall time), each file replaced atomically; close(), the end of the interpreter (also
    after an exception or SIGTERM) and the reporter's finalizer write everything once more, PNG included.

    append=True continues the accumulation of an earlier run of this reporter from its state file (after a
    restart from an OpenMM checkpoint): frames at steps the state already holds are not counted twice.  A run that
    takes no frame (refused at its first report, or ended before it) writes nothing, so an earlier run's files stay.
    The reporter's files are its own until close(): another open reporter of the process writing one of them, or
    two of them being one file, is refused when it is created (docs/reporters.md).
    """

    @renamedKeywords(plot="png")
    def __init__(self, file, reportInterval, selection1, selection2=None, rMax=1.0, bins=200, rMin=0.0, exclusion=None,
                 png=True, writeInterval=10, writeSeconds=60.0, append=False, referenceVolume=None, backend=None,
                 algorithm=None):
        import openmm
        from ..narumi import RDFSampler
        if backend is not None or algorithm is not None:
            warnings.warn("RDFReporter: backend and algorithm are deprecated and ignored (the Context's platform "
                          "computes the frames); they will be removed in the next release", DeprecationWarning,
                          stacklevel=2)
        reportInterval = wholeNumber("reportInterval", reportInterval, 1, " of steps")
        selection1 = checkSelection("selection1", selection1)
        if selection2 is not None:
            selection2 = checkSelection("selection2", selection2)
        if not (exclusion is None or exclusion in ("residue", "molecule") or not isinstance(exclusion, str)):
            raise ValueError(f"exclusion = {exclusion!r} must be None, 'residue', 'molecule' or a group per atom")
        try:  # the C++ class checks range and bins now; the selections are checked against the System later
            settings = RDFSampler([], [], nanometers(rMax), wholeNumber("bins", bins), 1, nanometers(rMin))
        except openmm.OpenMMException as error:
            raise ValueError(f"RDFReporter: {error}") from None
        referenceVolume = referenceVolumeInNanometers3(referenceVolume)
        csvPath, pngPath = outputPaths(os.fspath(file))
        checkOutputPath(csvPath, "RDFReporter file")
        pngPath = pngPath if png is True else (os.fspath(png) if png else None)
        if pngPath is not None:
            checkOutputPath(pngPath, "RDFReporter png")
        self._reportInterval = reportInterval
        self._selections = (selection1, selection2)
        self._exclusion = exclusion
        self._accumulation = _RDFAccumulation(csvPath, pngPath, settings, referenceVolume,
                                              UpdateSchedule(writeInterval, writeSeconds), append)
        # Last, once every check has passed: from here on the reporter holds its files until close().
        self._accumulation.claim = claimOutputPaths("RDFReporter", {
            "file": csvPath, "JSON sidecar": metadataPath(csvPath), "state file": statePath(csvPath), "png": pngPath})
        self._finalizer = watchReporter(self, self._accumulation)
        self._closed = False

    def describeNextReport(self, simulation):
        """OpenMM's reporter protocol: the steps to the next report and what it needs from getState."""
        steps = self._reportInterval - simulation.currentStep % self._reportInterval
        # Nothing from getState: the frame is taken from the Context's own positions.
        return {"steps": steps, "periodic": None, "include": []}

    def report(self, simulation, state):
        """OpenMM's reporter protocol: takes this step's frame (and writes an update when one is due)."""
        if self._closed:
            raise RuntimeError("this RDFReporter was closed")
        accumulation = self._accumulation
        if accumulation.sampler is None:
            if accumulation.referenceVolume is None and not simulation.system.usesPeriodicBoundaryConditions():
                raise ValueError("RDFReporter: the System has no periodic box, so g(r) needs referenceVolume (nm^3) "
                                 "to be normalised; give it when creating the reporter")
            accumulation.attach(simulation.context, self._samplerSettings(simulation))
        elif accumulation.context is not simulation.context or not accumulation.sampler.isAttached():
            accumulation.attach(simulation.context, accumulation.sampler.getSettings())
        step = simulation.currentStep
        if step <= accumulation.appendedLastStep:
            return  # the earlier run's state holds this step's frame (a restart from an older checkpoint)
        accumulation.takeFrame(step, accumulation.sampler.sample)

    def _samplerSettings(self, simulation):
        import openmm
        topology = simulation.topology
        indices1 = selectAtoms(topology, self._selections[0])
        indices2 = [] if self._selections[1] is None else selectAtoms(topology, self._selections[1])
        if len(indices1) == 0:
            raise ValueError(f"selection1 {self._selections[0]!r} matched no atoms")
        if self._selections[1] is not None and len(indices2) == 0:
            raise ValueError(f"selection2 {self._selections[1]!r} matched no atoms")
        molecules = None
        if self._exclusion == "molecule":
            molecules = [list(molecule) for molecule in simulation.context.getMolecules()]
        groups = exclusionGroups(topology, self._exclusion, molecules)
        settings = self._accumulation.settings
        settings.setSelections([int(i) for i in indices1], [int(i) for i in indices2])
        if groups is not None:
            settings.setExclusionGroups([int(g) for g in groups])
        if self._accumulation.appended is not None:
            self._accumulation.checkAppendedSettings()
        return settings

    @property
    def lastStep(self):
        """The step of the last frame counted (-1 before the first)."""
        return self._accumulation.lastStep

    def result(self):
        """The RDF so far (this run's frames plus an appended earlier run's), as an RDFResult."""
        return self._accumulation.result()

    def write(self):
        """Writes the CSV, its JSON sidecar, the state file and the PNG (unless png=False) for the frames so far."""
        self._accumulation.write(final=True)
        return self.result()

    def close(self):
        """Writes every file once more and stops accepting reports.  Idempotent."""
        if not self._closed:
            self._closed = True
            self._finalizer()

    def __enter__(self):
        return self

    def __exit__(self, *exception):
        self.close()


class _RDFAccumulation(Accumulation):
    """The counts of one RDFReporter: an earlier run's (append=True), those of Contexts this reporter was attached to
    before (deleted or reinitialized), and the live AttachedRDFSampler's."""

    def __init__(self, csvPath, pngPath, settings, referenceVolume, schedule, append):
        super().__init__(schedule)
        self.csvPath, self.pngPath = csvPath, pngPath
        self.statePath = statePath(csvPath)
        self.settings = settings
        self.referenceVolume = referenceVolume
        self.sampler = None
        self.context = None
        self.platform = None
        self.earlier = RDFCounts.empty(settings.getNumBins())
        self.appended = loadArrays(self.statePath, "RDFReporter", ("counts", "frames", "framesWithoutBox",
                                                                  "sumInverseVolume", "pairsPerFrame", "lastStep")) \
            if append else None
        self.appendedLastStep = -1
        if self.appended is not None:
            self.earlier = RDFCounts(counts=self.appended["counts"].astype(np.uint64),
                                     frames=int(self.appended["frames"]),
                                     framesWithoutBox=int(self.appended["framesWithoutBox"]),
                                     sumInverseVolume=float(self.appended["sumInverseVolume"]),
                                     pairsPerFrame=int(self.appended["pairsPerFrame"]),
                                     lastStep=int(self.appended["lastStep"]))
            self.appendedLastStep = self.lastStep = self.earlier.lastStep

    def checkAppendedSettings(self):
        """The earlier run must have counted the same pairs into the same bins."""
        checkAppendedSettings(self.appended, self._signature(), self.statePath)

    def _signature(self):
        s = self.settings
        return {"selection1": np.asarray(s.getSelection1(), dtype=np.int64),
                "selection2": np.asarray(s.getSelection2(), dtype=np.int64),
                "exclusionGroups": np.asarray(s.getExclusionGroups(), dtype=np.int64),
                "range": np.array([s.getRMin(), s.getRMax()]), "bins": np.array(s.getNumBins())}

    def attach(self, context, settings):
        from ..narumi import AttachedRDFSampler
        if self.sampler is not None:
            self.earlier = self.earlier + self._liveCounts()
            self.sampler = None  # detaches from the previous Context if that still exists
        platform = context.getPlatform()
        if not platform.supportsKernels(["CalcRDFSampler"]):
            raise ValueError(f"RDFReporter: the Context runs on the {platform.getName()} platform, which has no RDF "
                             "sampling kernel (Reference, CPU and CUDA have); use computeRDFTrajectory on a trajectory")
        self.sampler = AttachedRDFSampler(context, settings)
        self.context = context
        self.platform = platform.getName()

    def _liveCounts(self):
        counts = RDFCounts.fromSamplerResult(self.sampler.getResult())
        counts.lastStep = -1
        return counts

    def counts(self):
        """Every frame's counts so far (one download from the live sampler), with the last frame's step."""
        total = self.earlier if self.sampler is None else self.earlier + self._liveCounts()
        return dataclasses.replace(total, lastStep=self.lastStep)

    def result(self, counts=None):
        s = self.settings
        size1 = len(s.getSelection1())
        return RDFResult.fromCounts(self.counts() if counts is None else counts, s.getRMin(), s.getRMax(), size1,
                                    len(s.getSelection2()) or size1, self.referenceVolume,
                                    backend=f"in-context ({self.platform} platform)")

    def snapshot(self):
        counts = self.counts()
        return counts if counts.frames > 0 else None

    def writeResults(self, counts, final):
        result = self.result(counts)
        replaceAtomically(self.csvPath, result.writeCSV)
        replaceAtomically(metadataPath(self.csvPath), result.writeMetadata)
        saveArrays(self.statePath, counts=counts.counts.astype(np.int64), frames=counts.frames,
                   framesWithoutBox=counts.framesWithoutBox, sumInverseVolume=counts.sumInverseVolume,
                   pairsPerFrame=counts.pairsPerFrame, lastStep=counts.lastStep, **self._signature())
        if final and self.pngPath is not None:
            replaceAtomically(self.pngPath, result.plot)
