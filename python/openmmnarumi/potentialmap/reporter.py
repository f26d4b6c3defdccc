"""PotentialMapReporter: the time-averaged potential map of a running simulation."""
import os

import numpy as np

from .._system import chargesFromSystem
from .._units import DEFAULT_TEMPERATURE, stripUnit, unitFactor
from .engine import boxInNanometers, createEngine, makeLattice
from .result import PotentialMap

__all__ = ["PotentialMapReporter"]


class PotentialMapReporter:
    """Accumulates the time-averaged potential map of a simulation and writes it as OpenDX (+ a PNG slice).

    simulation.reporters.append(PotentialMapReporter("map.dx", 1000, spacing=0.05*nanometer))
    ...; simulation.step(n); reporter.close()       # writes map.dx and map.png

    method 'cutoff' (default) uses periodic images when the System is periodic; 'direct' sums every atom as reported
    (molecules wrapped into the box), with no images.  region: see makeLattice (None: the periodic box, or the bounding
    box of the first frame grown by margin).  The map stays on the GPU between reports; only close() copies it back.
    """

    def __init__(self, file, reportInterval, spacing=0.05, method="cutoff", cutoff=1.2, region=None, margin=0.5,
                 accumulation="compensated", backend="auto", units="kT/e", temperature=DEFAULT_TEMPERATURE, png=True,
                 charges=None, sliceAxis="z"):
        if int(reportInterval) <= 0:
            raise ValueError(f"reportInterval must be a positive number of steps, got {reportInterval}")
        if method not in ("direct", "cutoff"):
            raise ValueError(f"method must be 'direct' or 'cutoff', got {method!r}")
        unitFactor(units, temperature)  # checks the units now rather than at the end of a long run
        self._file = file
        self._reportInterval = int(reportInterval)
        self._spacing = spacing
        self._method = method
        self._cutoff = float(stripUnit(cutoff, "nanometer"))
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
        import openmm.unit as unit
        positions = state.getPositions(asNumpy=True).value_in_unit(unit.nanometer)
        box = None
        if self._engine is None:
            self._start(simulation, state, positions)
        if self._periodic:
            box = boxInNanometers(state.getPeriodicBoxVectors())
        self._engine.accumulate(np.asarray(positions, dtype=np.float64), box)

    def _start(self, simulation, state, positions):
        system = simulation.system
        if self._charges is None:
            charges = chargesFromSystem(system)
        else:
            charges = np.asarray(stripUnit(self._charges, "elementary_charge"), float)
        if len(charges) != len(positions):
            raise ValueError(f"{len(charges)} charges for {len(positions)} particles")
        self._periodic = self._method == "cutoff" and system.usesPeriodicBoundaryConditions()
        box = boxInNanometers(state.getPeriodicBoxVectors()) if self._periodic else None
        lattice = makeLattice(self._spacing, self._region, positions, box, self._margin)
        self._engine = createEngine(lattice, charges, self._method, self._cutoff, self._accumulation, self._backend)

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
