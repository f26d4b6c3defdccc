"""PotentialMapReporter: the time-averaged potential map of a running simulation, on disk all along."""
import os

import numpy as np

from .._reporting import (Accumulation, UpdateSchedule, checkAppendedSettings, checkOutputPath, claimOutputPaths,
                          loadArrays, replaceAtomically, saveArrays, statePath, watchReporter)
from .._system import chargesFromSystem, nonbondedCutoff
from .._units import DEFAULT_TEMPERATURE, nanometers, stripUnit, unitFactor, wholeNumber
from .engine import METHODS, PERIODIC_METHODS, boxInNanometers, checkMsmSettings, createEngine, makeLattice
from .result import PotentialMap, mapFormat

__all__ = ["PotentialMapReporter"]

#: The cutoff (nm) of method 'cutoff' for a System whose nonbonded force has none.
DEFAULT_MAP_CUTOFF = 1.2


def simulationCudaDevice(context):
    """The (first) CUDA device of a Context on OpenMM's CUDA platform, else 0: the map's engine runs beside the
    simulation by default."""
    platform = context.getPlatform()
    if platform.getName() != "CUDA":
        return 0
    return int(platform.getPropertyValue(context, "DeviceIndex").split(",")[0])


class PotentialMapReporter:
    """Accumulates the time-averaged potential map of a simulation and writes it as OpenDX (file ending .dx) or MRC
    (.mrc, .map), plus a PNG slice, like OpenMM's own reporters writing as it goes.

    simulation.reporters.append(PotentialMapReporter("map.dx", 1000, spacing=0.05*nanometer))

    method 'cutoff' (default) takes its cutoff from the System's NonbondedForce or NarumiNonbondedForce (1.2 nm if
    that has none; cutoff= overrides it) and uses periodic images when the System is periodic; 'direct' sums every
    atom as reported (molecules wrapped into the box), with no images; 'msm' is the full Coulomb potential by
    multilevel summation (the Ewald potential, neutralizing background included, when the System is periodic) within
    the relative RMS error msmAccuracy, with msmOrder 5 (quintic, default) or 3 (cubic) interpolation.
    region: see makeLattice (None: the periodic box, or the bounding box of the first frame grown by margin).  Lengths in nm or Quantities; charges in e (default:
    the System's); the files' values in units (kT/e at temperature K by default; kJ/mol/e, kcal/mol/e, V, mV, e/A).
    cudaDevice: the GPU of the map's CUDA backend, or a list of GPUs to cut the map into slabs over (None: the
    simulation's own first GPU when it runs on CUDA, else 0).

    Never losing data: the .dx and the state file (FILE.state.npz: the average and its frame count, for append=True)
    are rewritten during the run after writeInterval reports or writeSeconds of wall time, whichever comes first
    (None turns either off; updates are spaced so that writing costs at most 2% of the wall time), each replaced
    atomically; close(), the end of the interpreter (also after an exception or SIGTERM) and the finalizer write
    everything once more, the PNG slice (png=True: same stem; a path; False) included.

    append=True continues the average of an earlier run of this reporter from its state file (after a restart from an
    OpenMM checkpoint): frames at steps the state already holds are not counted twice.  A run that takes no frame
    writes nothing, so an earlier run's files stay.  The reporter's files are its own until close(): another open
    reporter of the process writing one of them, or two of them being one file, is refused when it is created.
    """

    def __init__(self, file, reportInterval, spacing=0.05, method="cutoff", cutoff=None, region=None, margin=0.5,
                 accumulation="compensated", backend="auto", units="kT/e", temperature=DEFAULT_TEMPERATURE, png=True,
                 charges=None, sliceAxis="z", writeInterval=10, writeSeconds=60.0, append=False, cudaDevice=None,
                 msmAccuracy=1e-3, msmOrder=5):
        reportInterval = wholeNumber("reportInterval", reportInterval, 1, " of steps")
        if method not in METHODS:
            raise ValueError(f"method must be one of {METHODS}, got {method!r}")
        if sliceAxis not in ("x", "y", "z"):
            raise ValueError(f"sliceAxis must be 'x', 'y' or 'z', got {sliceAxis!r}")
        spacingValue = nanometers(spacing)
        if not np.isfinite(spacingValue) or spacingValue <= 0:
            raise ValueError(f"spacing = {spacingValue} nm must be positive and finite")
        if cutoff is not None and not (np.isfinite(nanometers(cutoff)) and nanometers(cutoff) > 0):
            raise ValueError(f"cutoff = {nanometers(cutoff)} nm must be positive and finite")
        unitFactor(units, temperature)  # checks the units now rather than at the end of a long run
        if method == "msm":
            checkMsmSettings(msmAccuracy, msmOrder)
        file = checkOutputPath(file, "PotentialMapReporter file")
        mapFormat(file)  # .dx or .mrc/.map, named now rather than at the first write
        pngPath = (os.path.splitext(file)[0] + ".png") if png is True else (os.fspath(png) if png else None)
        if pngPath is not None:
            checkOutputPath(pngPath, "PotentialMapReporter png")
        self._reportInterval = reportInterval
        self._options = dict(spacing=spacing, method=method, cutoff=None if cutoff is None else nanometers(cutoff),
                             region=region, margin=margin, accumulation=accumulation, backend=backend, charges=charges,
                             cudaDevice=cudaDevice, msmAccuracy=msmAccuracy, msmOrder=msmOrder)
        self._accumulation = _MapAccumulation(file, pngPath, units, temperature, sliceAxis,
                                              UpdateSchedule(writeInterval, writeSeconds), append)
        # Last, once every check has passed: from here on the reporter holds its files until close().
        self._accumulation.claim = claimOutputPaths("PotentialMapReporter", {
            "file": file, "state file": statePath(file), "png": pngPath})
        self._finalizer = watchReporter(self, self._accumulation)
        self._closed = False

    def describeNextReport(self, simulation):
        """OpenMM's reporter protocol: the steps to the next report and what it needs from getState."""
        steps = self._reportInterval - simulation.currentStep % self._reportInterval
        # Cutoff and msm maps image atoms themselves; direct maps want molecules wrapped into the box.
        return {"steps": steps, "periodic": self._options["method"] == "direct", "include": ["positions"]}

    def report(self, simulation, state):
        """OpenMM's reporter protocol: takes this step's frame (and writes an update when one is due)."""
        if self._closed:
            raise RuntimeError("PotentialMapReporter.report called after close()")
        import openmm.unit as unit
        accumulation = self._accumulation
        if accumulation.engine is None:
            options = dict(self._options)
            if options["cudaDevice"] is None:
                options["cudaDevice"] = simulationCudaDevice(simulation.context)
            accumulation.start(simulation.system, state, **options)
        step = simulation.currentStep
        if step <= accumulation.appendedLastStep:
            return  # the earlier run's state holds this step's frame (a restart from an older checkpoint)
        positions = state.getPositions(asNumpy=True).value_in_unit(unit.nanometer)
        box = boxInNanometers(state.getPeriodicBoxVectors()) if accumulation.periodic else None
        positions = np.asarray(positions, dtype=np.float64)
        accumulation.takeFrame(step, lambda: accumulation.engine.accumulate(positions, box))

    @property
    def backend(self):
        """'cuda' or 'cpu' once the first report has been made, else None."""
        engine = self._accumulation.engine
        return None if engine is None else engine.backend

    @property
    def cutoff(self):
        """The cutoff (nm) of method 'cutoff' once the first report has been made (None before, and for 'direct')."""
        return self._accumulation.cutoff

    @property
    def map(self):
        """The time average so far (this run's frames and an appended earlier run's) as a PotentialMap (kJ/mol/e)."""
        return self._accumulation.map()

    def close(self):
        """Writes the averaged map (.dx, the state file and the PNG slice unless png=False).  Idempotent."""
        if not self._closed:
            self._closed = True
            self._finalizer()

    finalize = close

    def __enter__(self):
        return self

    def __exit__(self, *exception):
        self.close()


class _MapAccumulation(Accumulation):
    """The average of one PotentialMapReporter: an earlier run's (append=True) and the engine's."""

    def __init__(self, file, pngPath, units, temperature, sliceAxis, schedule, append):
        super().__init__(schedule)
        self.file, self.pngPath = file, pngPath
        self.statePath = statePath(file)
        self.units, self.temperature, self.sliceAxis = units, temperature, sliceAxis
        self.engine = None
        self.charges = None
        self.periodic = False
        self.method = None
        self.cutoff = None
        self.msmSettings = None
        self.appended = loadArrays(self.statePath, "PotentialMapReporter", ("average", "frames", "lastStep")) \
            if append else None
        # The earlier run's last step stays the last step on disk until this run takes a frame after it.
        self.appendedLastStep = self.lastStep = -1 if self.appended is None else int(self.appended["lastStep"])

    def start(self, system, state, spacing, method, cutoff, region, margin, accumulation, backend, charges, cudaDevice,
              msmAccuracy, msmOrder):
        """The engine, from the System and the first frame: charges, cutoff and periodicity, the lattice."""
        import openmm.unit as unit
        positions = state.getPositions(asNumpy=True).value_in_unit(unit.nanometer)
        if charges is None:
            charges = chargesFromSystem(system)
        else:
            charges = np.asarray(stripUnit(charges, "elementary_charge"), float)
        if len(charges) != len(positions):
            raise ValueError(f"{len(charges)} charges for {len(positions)} particles")
        if method == "cutoff" and cutoff is None:
            cutoff = nonbondedCutoff(system) or DEFAULT_MAP_CUTOFF
        self.method, self.cutoff = method, (cutoff if method == "cutoff" else None)
        self.msmSettings = (float(msmAccuracy), int(msmOrder)) if method == "msm" else None
        self.periodic = method in PERIODIC_METHODS and system.usesPeriodicBoundaryConditions()
        box = boxInNanometers(state.getPeriodicBoxVectors()) if self.periodic else None
        lattice = makeLattice(spacing, region, positions, box, margin)
        engine = createEngine(lattice, charges, method, cutoff if cutoff is not None else DEFAULT_MAP_CUTOFF,
                              accumulation, backend, cudaDevice, msmAccuracy, msmOrder)
        if self.appended is not None:
            checkAppendedSettings(self.appended, self._signature(engine, charges), self.statePath)
        self.engine, self.charges = engine, charges

    def _signature(self, engine, charges):
        return {"origin": np.asarray(engine.origin, float), "spacing": np.asarray(engine.spacing, float),
                "dims": np.asarray(engine.dims, np.int64), "charges": np.asarray(charges, float),
                "method": np.array(self.method), "cutoff": np.array(-1.0 if self.cutoff is None else self.cutoff),
                **({} if self.msmSettings is None else {"msmAccuracy": np.array(self.msmSettings[0]),
                                                        "msmOrder": np.array(self.msmSettings[1])})}

    def frames(self):
        earlier = 0 if self.appended is None else int(self.appended["frames"])
        return earlier + (0 if self.engine is None else self.engine.numFrames)

    def averageArray(self):
        """The average in the engine's layout (nz, ny, nx), kJ/mol/e: the earlier run's frames and this run's."""
        current = self.engine.numFrames
        average = np.asarray(self.engine.average(), dtype=np.float64) if current else 0.0
        if self.appended is None or int(self.appended["frames"]) == 0:
            return average
        earlierFrames = int(self.appended["frames"])
        return (self.appended["average"] * earlierFrames + average * current) / (earlierFrames + current)

    def map(self, array=None):
        """The average as a PotentialMap; array: averageArray() when the caller has it already."""
        if self.engine is None or self.frames() == 0:
            raise RuntimeError("no frame has been reported yet")
        return PotentialMap._fromEngineArray(self.averageArray() if array is None else array, self.engine,
                                             frames=self.frames(), method=self.method, cutoff=self.cutoff)

    def snapshot(self):
        # One download of the map per update, for both the .dx and the state file.
        return None if self.engine is None or self.frames() == 0 else self.averageArray()

    def writeResults(self, array, final):
        average = self.map(array)
        replaceAtomically(self.file, lambda path: average.write(path, self.units, self.temperature))
        saveArrays(self.statePath, average=array, frames=self.frames(), lastStep=self.lastStep,
                   **self._signature(self.engine, self.charges))
        if final and self.pngPath is not None:
            replaceAtomically(self.pngPath, lambda path: average.writeSlicePNG(
                path, axis=self.sliceAxis, units=self.units, temperature=self.temperature,
                title=f"{average.frames}-frame average"))
