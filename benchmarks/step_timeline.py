#!/usr/bin/env python3
"""Where the time of an MD step goes on the GPU and on the host, from an Nsight Systems timeline.

    nsys profile -t cuda --capture-range=cudaProfilerApi --export=sqlite -o OUT \\
        python3 benchmarks/step_timeline.py run --force narumi [--data-dir DIR] [--steps 400]
    python3 benchmarks/step_timeline.py summarize OUT.sqlite --steps 400

`run` sets up benchmarks/nonbonded_speed.py's DHFR system at 4 fs with hydrogen mass 1.5 amu, mixed precision, with
one nonbonded force, warms up for 300 steps and lets the profiler capture --steps steps (cuProfilerStart/Stop).
`summarize` reads the capture and prints per step: its wall time on the GPU (first kernel start to last end, over the
steps), the time some kernel, copy or memset was running (their union), the kernels launched, the host's time inside
CUDA calls, and the median delay from a launch call's return to its kernel's start.  A GPU busy for nearly all of a
step, with launches waiting long in the queue, is bound by its kernels; short delays and gaps between kernels mean the
host cannot launch fast enough.
"""
import argparse
import os
import sqlite3
import statistics
import sys


def run(args):
    import ctypes

    import openmm
    import openmm.unit as unit

    import openmmnarumi
    from nonbonded_speed import TIMESTEPS, create_system, dhfr

    found = dhfr(args.data_dir)
    if found is None:
        sys.exit(f"{os.path.join(args.data_dir, '5dfr_solv-cube_equil.pdb')} not found (--data-dir)")
    _, topology, positions = found
    step_fs, hydrogen_mass = TIMESTEPS["4fs-hmr"]
    system = create_system(topology, hydrogen_mass)
    if args.force == "narumi":
        openmmnarumi.replaceNonbondedForces(system)
    integrator = openmm.LangevinMiddleIntegrator(300 * unit.kelvin, 1 / unit.picosecond, step_fs * unit.femtosecond)
    context = openmm.Context(system, integrator, openmm.Platform.getPlatformByName("CUDA"), {"Precision": "mixed"})
    context.setPositions(positions)
    openmm.LocalEnergyMinimizer.minimize(context, 10.0, 200)
    context.setVelocitiesToTemperature(300 * unit.kelvin, 1)
    integrator.step(300)
    context.getState(getEnergy=True)
    cuda = ctypes.CDLL("libcuda.so.1")
    cuda.cuProfilerStart()
    integrator.step(args.steps)
    context.getState(getEnergy=True)
    cuda.cuProfilerStop()


def union_length(intervals):
    total, end = 0, None
    for start, stop in sorted(intervals):
        if end is None or start > end:
            total += stop - start
            end = stop
        elif stop > end:
            total += stop - end
            end = stop
    return total


def tables(db):
    return {row[0] for row in db.execute("SELECT name FROM sqlite_master WHERE type='table'")}


def summarize(args):
    db = sqlite3.connect(args.file)
    names = tables(db)
    kernels = db.execute("SELECT start, end, correlationId FROM CUPTI_ACTIVITY_KIND_KERNEL").fetchall()
    others = []
    for table in ("CUPTI_ACTIVITY_KIND_MEMCPY", "CUPTI_ACTIVITY_KIND_MEMSET"):
        if table in names:
            others += db.execute(f"SELECT start, end FROM {table}").fetchall()
    calls = db.execute("SELECT start, end, correlationId FROM CUPTI_ACTIVITY_KIND_RUNTIME").fetchall()
    if not kernels:
        sys.exit("no kernels in the capture")
    first, last = min(k[0] for k in kernels), max(k[1] for k in kernels)
    busy = union_length([(s, e) for s, e, _ in kernels] + [(s, e) for s, e in others if first <= s <= last])
    call_end = {c[2]: c[1] for c in calls}
    delays = [k[0] - call_end[k[2]] for k in kernels if k[2] in call_end]
    host = sum(e - s for s, e, _ in calls)
    steps = args.steps
    print(f"{args.file}: {steps} steps")
    print(f"  GPU span per step           {(last - first) / steps / 1e3:8.1f} us")
    print(f"  GPU busy per step           {busy / steps / 1e3:8.1f} us ({100 * busy / (last - first):.1f}% of the span)")
    print(f"  kernels per step            {len(kernels) / steps:8.1f}")
    print(f"  host time in CUDA calls     {host / steps / 1e3:8.1f} us per step ({len(calls) / steps:.1f} calls)")
    if delays:
        print(f"  launch-to-start delay       {statistics.median(delays) / 1e3:8.1f} us (median)")


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    commands = parser.add_subparsers(dest="command", required=True)
    workload = commands.add_parser("run", help="the profiled workload (under nsys)")
    workload.add_argument("--force", choices=["narumi", "openmm"], required=True)
    workload.add_argument("--data-dir", default=os.path.join(os.path.dirname(__file__), "..", "..", "shared", "data"))
    workload.add_argument("--steps", type=int, default=400)
    report = commands.add_parser("summarize", help="per-step figures of a capture exported as SQLite")
    report.add_argument("file")
    report.add_argument("--steps", type=int, default=400, help="the steps the capture holds (run's --steps)")
    args = parser.parse_args()
    if args.steps < 1:
        parser.error("--steps must be at least 1")
    run(args) if args.command == "run" else summarize(args)


if __name__ == "__main__":
    main()
