"""Trajectory RDF in the MDAnalysis ecosystem: openmmnarumi.mdanalysis.InterRDF (GPU) against MDAnalysis' InterRDF.

Writes a trajectory of a 100k-atom TIP3P water box (Modeller, NarumiNonbondedForce, reaction field, CUDA), FRAMES
frames of DCD, then times on the O-O g(r) (rMax 12 A, 240 bins):
  - reading alone: every frame read and the oxygens' positions taken (the floor of any frame-by-frame analysis);
  - openmmnarumi InterRDF: serial on the GPU, with MDAnalysis' multiprocessing backend on 2 and 4 workers, and dask;
  - MDAnalysis' InterRDF, serial, on the first few frames (a frame takes seconds) and with its parallel backends
    (InterRDF 2.9 is not parallelizable: the error is recorded).
Counts are checked: equal on every backend, and against MDAnalysis' InterRDF on the frames both ran.

    python3 -m benchmarks.mdanalysis_rdf_speed [--frames 2000] [--workdir /tmp/narumi_mdanalysis_bench] [--markdown F]
        [--json F]
"""
import argparse
import datetime
import json
import os
import time

import numpy as np
from MDAnalysis.analysis.base import AnalysisBase
from MDAnalysis.analysis.results import ResultsGroup

from openmmnarumi.mdanalysis import InterRDF
from benchmarks.reporting import gpu_names, write_report


def write_trajectory(workdir, frames, interval, edge_nm, platform="CUDA"):
    import openmm
    import openmm.app as app
    import openmm.unit as unit
    import openmmnarumi
    pdb, dcd = os.path.join(workdir, "water.pdb"), os.path.join(workdir, "water.dcd")
    forcefield = app.ForceField("amber14/tip3p.xml")
    modeller = app.Modeller(app.Topology(), [])
    modeller.addSolvent(forcefield, boxSize=openmm.Vec3(edge_nm, edge_nm, edge_nm) * unit.nanometer)
    system = forcefield.createSystem(modeller.topology, nonbondedMethod=app.CutoffPeriodic,
                                     nonbondedCutoff=1.0 * unit.nanometer, constraints=app.HBonds)
    openmmnarumi.replaceNonbondedForces(system)
    simulation = app.Simulation(modeller.topology, system, openmm.LangevinMiddleIntegrator(300, 1, 0.002),
                                openmm.Platform.getPlatformByName(platform))
    simulation.context.setPositions(modeller.positions)
    simulation.minimizeEnergy(maxIterations=200)
    simulation.step(1000)
    with open(pdb, "w") as f:
        app.PDBFile.writeFile(modeller.topology, simulation.context.getState(getPositions=True).getPositions(), f)
    # Frames written by MDAnalysis' DCD writer from NumPy positions (OpenMM's DCDReporter converts every position
    # to a Vec3 in Python: 130 ms per 100k-atom frame).
    import MDAnalysis as mda
    universe = mda.Universe(pdb)
    start = time.perf_counter()
    with mda.Writer(dcd, universe.atoms.n_atoms) as writer:
        for _ in range(frames):
            simulation.step(interval)
            state = simulation.context.getState(getPositions=True, enforcePeriodicBox=True)
            universe.atoms.positions = state.getPositions(asNumpy=True).value_in_unit(unit.angstrom)
            a, b, c = state.getPeriodicBoxVectors(asNumpy=True).value_in_unit(unit.angstrom)
            universe.dimensions = [a[0], b[1], c[2], 90.0, 90.0, 90.0]
            writer.write(universe.atoms)
    seconds = time.perf_counter() - start
    return pdb, dcd, modeller.topology.getNumAtoms(), seconds


class ReadOnly(AnalysisBase):
    """Reads every frame and takes the group's positions: the cost of run() without an analysis."""
    _analysis_algorithm_is_parallelizable = True

    @classmethod
    def get_supported_backends(cls):
        return ("serial", "multiprocessing", "dask")

    def __init__(self, group):
        super().__init__(group.universe.trajectory)
        self.group = group

    def _prepare(self):
        self.results.frames_read = 0

    def _single_frame(self):
        self.group.positions
        self.results.frames_read += 1

    def _get_aggregator(self):
        return ResultsGroup(lookup={"frames_read": sum})


class TimedInterRDF(InterRDF):
    """InterRDF that also sums the wall time spent in _single_frame (the class's own per-frame work)."""

    def _prepare(self):
        super()._prepare()
        self.results.single_frame_seconds = 0.0

    def _single_frame(self):
        start = time.perf_counter()
        super()._single_frame()
        self.results.single_frame_seconds += time.perf_counter() - start


def timed(function):
    start = time.perf_counter()
    value = function()
    return value, time.perf_counter() - start


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--frames", type=int, default=2000)
    parser.add_argument("--interval", type=int, default=10, help="MD steps between frames (2 fs steps)")
    parser.add_argument("--edge", type=float, default=10.0, help="water box edge (nm): 10 nm is about 100k atoms")
    parser.add_argument("--workers", default="2,4")
    parser.add_argument("--mdanalysis-frames", type=int, default=3)
    parser.add_argument("--workdir", default="/tmp/narumi_mdanalysis_bench")
    parser.add_argument("--markdown")
    parser.add_argument("--json")
    parser.add_argument("--platform", default="CUDA", help="OpenMM platform of the simulation that writes the frames")
    parser.add_argument("--write-only", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.write_only:
        written = write_trajectory(args.workdir, args.frames, args.interval, args.edge, args.platform)
        with open(os.path.join(args.workdir, "written.json"), "w") as f:
            json.dump(written, f)
        return
    import MDAnalysis as mda
    from MDAnalysis.analysis.rdf import InterRDF as ReferenceInterRDF

    os.makedirs(args.workdir, exist_ok=True)
    # Written by a child process, as a simulation would have written it: the analysis process never held an
    # OpenMM CUDA context.
    import subprocess
    import sys
    subprocess.run([sys.executable, "-m", "benchmarks.mdanalysis_rdf_speed", "--write-only", "--frames", str(args.frames),
                    "--interval", str(args.interval), "--edge", str(args.edge), "--workdir", os.path.abspath(args.workdir),
                    "--platform", args.platform], cwd=os.path.dirname(os.path.dirname(os.path.abspath(__file__))), check=True)
    with open(os.path.join(args.workdir, "written.json")) as f:
        pdb, dcd, atoms, md_seconds = json.load(f)
    size_gb = os.path.getsize(dcd) / 1e9
    print(f"{atoms} atoms, {args.frames} frames written in {md_seconds:.1f} s ({size_gb:.2f} GB DCD)", flush=True)
    u = mda.Universe(pdb, dcd)
    oxygens = u.select_atoms("name O")
    settings = dict(nbins=240, range=(0.0, 12.0))
    rows = []

    def row(tool, backend, workers, frames, seconds, note=""):
        rows.append(dict(tool=tool, backend=backend, workers=workers, frames=frames, seconds=seconds,
                         frames_per_second=frames / seconds, note=note))
        print(f"  {tool:34} {backend:16} {str(workers):>3} workers: {frames:5} frames in {seconds:8.2f} s = "
              f"{frames / seconds:9.1f} frames/s {note}", flush=True)

    def read_all():
        for _ in u.trajectory:
            oxygens.positions
    _, seconds = timed(read_all)  # also warms the page cache for every run below
    _, seconds = timed(read_all)
    row("MDAnalysis, reading only (plain loop)", "serial", 1, args.frames, seconds, "(oxygen positions taken)")
    # The floor of any AnalysisBase: the same run() machinery, reading frames by index, doing nothing with them.
    for backend, workers in [("serial", 1)] + [("multiprocessing", int(w)) for w in args.workers.split(",") if w]:
        _, seconds = timed(lambda: ReadOnly(oxygens).run(backend=backend, n_workers=workers if workers > 1 else None))
        row("AnalysisBase, reading only", backend, workers, args.frames, seconds, "(oxygen positions taken)")

    serial, seconds = timed(lambda: TimedInterRDF(oxygens, oxygens, **settings).run())
    inside = serial.results.single_frame_seconds
    row("openmmnarumi InterRDF (GPU)", "serial", 1, args.frames, seconds,
        f"({1e3 * inside / args.frames:.3f} ms/frame in _single_frame: the box, and queuing the frame, whose groups "
        "the engine gathers)")
    for workers in [int(w) for w in args.workers.split(",") if w]:
        for backend in ("multiprocessing", "dask"):
            parallel, seconds = timed(lambda: InterRDF(oxygens, oxygens, **settings).run(backend=backend,
                                                                                          n_workers=workers))
            assert np.array_equal(parallel.results.count, serial.results.count), (backend, workers)
            row("openmmnarumi InterRDF (GPU)", backend, workers, args.frames, seconds, "(counts identical to serial)")

    # The GPU's share: the engine alone on frames already in memory.
    from openmmnarumi.rdf import RDFEngine
    u.trajectory[0]
    positions = oxygens.positions.astype(np.float64) * 0.1
    box = np.diag(u.dimensions[:3].astype(np.float64) * 0.1)
    engine = RDFEngine(len(oxygens), np.arange(len(oxygens)), rMax=1.2, bins=240, backend="cuda")
    engine.addFrame(positions, box)
    engine.pairCounts()
    def engine_frames():
        for _ in range(200):
            engine.addFrame(positions, box)
        engine.pairCounts()
    _, seconds = timed(engine_frames)
    row("RDF engine alone (frames in memory)", "serial", 1, 200, seconds, "(GPU work per frame)")

    k = args.mdanalysis_frames
    reference, seconds = timed(lambda: ReferenceInterRDF(oxygens, oxygens, **settings).run(stop=k))
    row("MDAnalysis 2.9.0 InterRDF", "serial", 1, k, seconds)
    ours_k = InterRDF(oxygens, oxygens, **settings).run(stop=k)
    difference = int(np.abs(ours_k.results.count - reference.results.count).sum())
    total = int(reference.results.count.sum())
    print(f"  counts against MDAnalysis on {k} frames: {difference} of {total} pairs in another bin", flush=True)
    refused = {}
    for backend in ("multiprocessing", "dask"):
        try:
            ReferenceInterRDF(oxygens, oxygens, **settings).run(stop=k, backend=backend, n_workers=2)
            refused[backend] = None
        except ValueError as error:
            refused[backend] = str(error)
            print(f"  MDAnalysis InterRDF with backend={backend!r}: ValueError: {error}", flush=True)

    import openmm
    device = gpu_names() or "no GPU"
    record = dict(date=datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"), gpu=device,
                  cpu_cores=os.cpu_count(), openmm=openmm.__version__, mdanalysis=mda.__version__, atoms=atoms,
                  oxygens=len(oxygens), frames=args.frames, dcd_gb=size_gb, md_seconds=md_seconds, rows=rows,
                  mdanalysis_count_difference=difference, mdanalysis_count_total=total,
                  mdanalysis_parallel_refused=refused)
    lines = [f"{record['date']}, {device}, {os.cpu_count()} CPU cores, OpenMM {openmm.__version__}, "
             f"MDAnalysis {mda.__version__}; {atoms} atoms ({len(oxygens)} oxygens), {args.frames} frames "
             f"({size_gb:.2f} GB DCD), O-O, range 0-12 A, 240 bins", "",
             "| tool | backend | workers | frames | seconds | frames/s |", "| --- | --- | --- | --- | --- | --- |"]
    lines += [f"| {r['tool']} {r['note']} | {r['backend']} | {r['workers']} | {r['frames']} | {r['seconds']:.2f} | "
              f"{r['frames_per_second']:.1f} |" for r in rows]
    write_report(lines, args.markdown, args.json, record)
    os.remove(dcd)


if __name__ == "__main__":
    main()
