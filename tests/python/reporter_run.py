"""A plain OpenMM script with an RDFReporter and a PotentialMapReporter, run as a subprocess by test_reporters.py.

python3 reporter_run.py OUTDIR MODE [STEPS]; MODE says how the script ends:
  plain         simulation.step(STEPS), then the script just ends (no close())
  self-kill     simulation.step(STEPS), then SIGKILL to itself
  run-forever   steps until killed from outside
  reporter-raises / integrator-raises
                a reporter raises / the integrator meets NaN coordinates after STEPS steps
  append        continues OUTDIR's files from a checkpoint (OUTDIR/checkpoint.chk) with append=True
  append-refused
                the same with another RDF selection (which the reporter must refuse at its first report)
After every report of the RDFReporter it prints "frame STEP WRITTEN", WRITTEN being the last step on disk.
"""
import os
import signal
import sys

import openmm
import openmm.app as app
import openmm.unit as unit

import openmmnarumi._reporting
from conftest import water_box  # the script's folder is on sys.path
from openmmnarumi import PotentialMapReporter, RDFReporter

# Updates exactly every writeInterval reports, whatever a write costs here (test_update_schedule tests that guard).
openmmnarumi._reporting.MAXIMUM_WRITE_SHARE = float("inf")

INTERVAL = 5


class Announcer:
    """Prints the step and the last step written to disk after each RDF report (it runs after the RDFReporter)."""

    def __init__(self, reporter):
        self.reporter = reporter

    def describeNextReport(self, simulation):
        return {"steps": INTERVAL - simulation.currentStep % INTERVAL, "periodic": None, "include": []}

    def report(self, simulation, state):
        print(f"frame {simulation.currentStep} {self.reporter._accumulation.writtenStep}", flush=True)


class Saboteur:
    """Raises (reporter-raises) or poisons the velocities (integrator-raises) once the simulation reaches a step."""

    def __init__(self, step, mode):
        self.step, self.mode = step, mode

    def describeNextReport(self, simulation):
        return {"steps": max(1, self.step - simulation.currentStep), "periodic": None, "include": []}

    def report(self, simulation, state):
        if simulation.currentStep < self.step:
            return
        if self.mode == "reporter-raises":
            raise RuntimeError("a reporter failed")
        count = simulation.system.getNumParticles()
        simulation.context.setVelocities([openmm.Vec3(float("nan"), 0, 0)] * count)


def main():
    outdir, mode = sys.argv[1], sys.argv[2]
    steps = int(sys.argv[3]) if len(sys.argv) > 3 else 40
    topology, positions, system = water_box(2.0)
    integrator = openmm.LangevinMiddleIntegrator(300 * unit.kelvin, 1 / unit.picosecond, 0.002 * unit.picoseconds)
    integrator.setRandomNumberSeed(11)
    # Reference: a checkpoint restart continues bit for bit there (the append test compares with one run); CPU: its
    # integration step raises on NaN coordinates, where Reference's carries on.
    platform = "CPU" if mode == "integrator-raises" else "Reference"
    simulation = app.Simulation(topology, system, integrator, openmm.Platform.getPlatformByName(platform))
    simulation.context.setPositions(positions)
    append = mode in ("append", "append-refused")
    if append:
        simulation.loadCheckpoint(os.path.join(outdir, "checkpoint.chk"))
    selection = {"name": "H1"} if mode == "append-refused" else {"name": "O"}
    rdf = RDFReporter(os.path.join(outdir, "rdf.csv"), INTERVAL, selection, rMax=0.9, bins=90, writeInterval=2,
                      append=append)
    potential = PotentialMapReporter(os.path.join(outdir, "map.dx"), INTERVAL, spacing=0.2, backend="cpu",
                                     writeInterval=2, append=append)
    simulation.reporters += [rdf, potential, Announcer(rdf)]
    if mode in ("reporter-raises", "integrator-raises"):
        simulation.reporters.append(Saboteur(steps, mode))
        simulation.step(10 * steps)
    elif mode == "run-forever":
        print("running", flush=True)
        while True:
            simulation.step(INTERVAL)
    else:
        if mode == "plain" and len(sys.argv) > 4:  # a checkpoint part way, for the append test
            simulation.step(int(sys.argv[4]))
            simulation.saveCheckpoint(os.path.join(outdir, "checkpoint.chk"))
            steps -= int(sys.argv[4])
        simulation.step(steps)
        if mode == "self-kill":
            os.kill(os.getpid(), signal.SIGKILL)


if __name__ == "__main__":
    main()
