"""Where a Martini bilayer's MD step goes: the loaded System's whole step, then without each of its forces in turn,
without any force (the integrator, constraints and virtual sites), and without constraints too.

    python3 -m benchmarks.martini_step_parts [--data-dir ../shared/data] [--systems complex 200k] [--seconds 2]

Each variant is a clone of the System that openmmnarumi.gromacs.GromacsInputs loads (benchmarks.martini_speed's
narumi-table route), in its own Context on one GPU, timed in turn --rounds times (medians); microseconds per step
(LangevinMiddleIntegrator, 20 fs).  A force's cost is the whole step's time less the time without it (a System that
is not stable without a force says so); beside it, the time of an energy evaluation of that force's group alone
(getState, the same for every group: the row "no group" is that call with no force evaluated).  Without forces no
atom is pushed, so the step without constraints stays finite too.
"""
import argparse
import datetime
import math
import os
import statistics
import sys
import tempfile
import time

import openmm

from benchmarks.martini_speed import SIZES, has_data, load, make_context
from benchmarks.reporting import gpu_names, write_report


def variants(system):
    """(name, System) of every variant: whole, without each force, without forces, without forces and constraints."""
    clone = openmm.XmlSerializer.clone
    yield "whole step", clone(system)
    for index in range(system.getNumForces()):
        variant = clone(system)
        name = variant.getForce(index).getName()
        variant.removeForce(index)
        yield f"without {name}", variant
    bare = clone(system)
    while bare.getNumForces():
        bare.removeForce(0)
    yield "no forces", clone(bare)
    while bare.getNumConstraints():
        bare.removeConstraint(0)
    yield "no forces, no constraints", bare


def microseconds_per_step(integrator, context, seconds):
    """Microseconds per step, or NaN where the variant's coordinates became NaN."""
    try:
        integrator.step(10)
        context.getState()
        steps, start = 0, time.perf_counter()
        while time.perf_counter() - start < seconds:
            integrator.step(100)
            context.getState()
            steps += 100
    except openmm.OpenMMException:
        return math.nan
    return (time.perf_counter() - start) / steps * 1e6


def microseconds_per_evaluation(context, groups, seconds):
    """Microseconds of getState(getEnergy=True) of the force groups in the bit mask `groups` alone."""
    context.getState(getEnergy=True, groups=groups)
    evaluations, start = 0, time.perf_counter()
    while time.perf_counter() - start < seconds:
        for _ in range(20):
            context.getState(getEnergy=True, groups=groups)
        evaluations += 20
    return (time.perf_counter() - start) / evaluations * 1e6


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data-dir", default=os.path.join(os.path.dirname(__file__), "..", "..", "shared", "data"))
    parser.add_argument("--systems", nargs="*", choices=list(SIZES), default=["complex", "200k"])
    parser.add_argument("--platform", default="CUDA")
    parser.add_argument("--precision", default="mixed", choices=("single", "mixed", "double"))
    parser.add_argument("--step-fs", type=float, default=20.0)
    parser.add_argument("--seconds", type=float, default=1.0, help="timed seconds per variant and round (default 1)")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--markdown")
    parser.add_argument("--json")
    args = parser.parse_args()
    if args.rounds < 1 or args.seconds <= 0:
        parser.error(f"--rounds {args.rounds}, --seconds {args.seconds}: both must be positive")
    if not has_data(args.data_dir):
        print(f"no Martini data in {args.data_dir}/martini: nothing to measure")
        return 0
    import openmmnarumi  # noqa: F401  (loads the plugins)
    precision = args.precision if args.platform in ("CUDA", "OpenCL") else None
    started = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    command = "python3 -m benchmarks.martini_step_parts " + " ".join(sys.argv[1:])
    device = gpu_names() or f"the {args.platform} platform"
    lines = [f"`{command}` on {device}, OpenMM {openmm.__version__}, "
             f"{args.step_fs:g} fs, {started}, medians of {args.rounds} rounds in turn (min-max):", "",
             "| system | variant | us per step | whole step less this | energy of its group alone (us) |",
             "| --- | --- | --- | --- | --- |"]
    rows = []
    with tempfile.TemporaryDirectory() as work:
        for size in args.systems:
            inputs = load(args.data_dir, size, work)
            print(f"{size}: {inputs.system.getNumParticles():,} particles, {inputs.system.getNumConstraints():,} constraints, "
                  f"{sum(inputs.system.isVirtualSite(i) for i in range(inputs.system.getNumParticles())):,} virtual sites",
                  flush=True)
            contexts = {name: make_context(system, inputs, args.platform, precision, args.step_fs, seed=7)
                        for name, system in variants(inputs.system)}
            times = {name: [] for name in contexts}
            # the groups evaluated alone, in the whole step's Context: "without F" -> F's group
            groups = {f"without {force.getName()}": 1 << force.getForceGroup() for force in inputs.system.getForces()}
            groups["no group"] = 0
            evaluations = {name: [] for name in groups}
            for _ in range(args.rounds):
                for name, (context, integrator) in contexts.items():
                    times[name].append(microseconds_per_step(integrator, context, args.seconds))
                for name, mask in groups.items():
                    evaluations[name].append(microseconds_per_evaluation(contexts["whole step"][0], mask, args.seconds / 4))
            del contexts
            whole = statistics.median(times["whole step"])
            for name, values in times.items():
                stable = not any(math.isnan(value) for value in values)
                median = statistics.median(values)
                step = f"{median:.1f} ({min(values):.1f}-{max(values):.1f})" if stable else "not stable"
                less = f"{whole - median:.1f}" if stable else "-"
                alone = f"{statistics.median(evaluations[name]):.1f}" if name in evaluations else "-"
                lines.append(f"| {size} | {name} | {step} | {less} | {alone} |")
                rows.append({"system": size, "variant": name, "us_per_step": values,
                             "us_per_group_energy": evaluations.get(name, [])})
            lines.append(f"| {size} | no group | - | - | {statistics.median(evaluations['no group']):.1f} |")
            rows.append({"system": size, "variant": "no group", "us_per_step": [],
                         "us_per_group_energy": evaluations["no group"]})
    write_report(lines, args.markdown, args.json, {"command": command, "gpu": device, "date": started, "rows": rows})
    return 0


if __name__ == "__main__":
    sys.exit(main())
