#!/usr/bin/env python3
"""NarumiNonbondedForce against OpenMM's NonbondedForce on the CUDA platform: ns/day, same GPU, same process.

    python3 -m benchmarks.nonbonded_speed [--systems all] [--timesteps 4fs-hmr 2fs] [--precisions single mixed]

Force field and method as OpenMM's examples/benchmarks/benchmark.py sets up its 'rf' test: amber99sb + tip3p,
CutoffPeriodic 1.0 nm reaction field, HBonds constraints, LangevinMiddleIntegrator at 300 K, 1/ps; each system is run
at 4 fs with hydrogen mass 1.5 amu ('4fs-hmr') and at 2 fs without ('2fs').  Systems (--systems, default all):
  dhfr          ../shared/data/5dfr_solv-cube_equil.pdb, cubic box (23,558 atoms)
  dodecahedron  ../shared/data/5dfr_minimized.pdb solvated by Modeller in a rhombic dodecahedron, 1.0 nm padding
  octahedron    the same in a truncated octahedron, 1.1 nm padding, 0.15 M NaCl (ions placed with a fixed seed)
  cube          the same in a cube, 1.2 nm padding, 0.15 M NaCl (about 32,500 atoms; context_speed.py's cube)
  dhfr8         the cubic DHFR box repeated 2 x 2 x 2 (188,464 atoms, eight proteins)
  water98k, water395k   cubic TIP3P boxes (Modeller.addSolvent)
Systems whose PDB is absent from --data-dir are skipped with a message.  Each start is minimized and relaxed for 1 ps
at 1 fs with OpenMM's force.  For each system, timestep and precision the two forces run from the same positions and
velocities, --repeats times in turn; a row gives the median ns/day of each and their ratio (> 1: Narumi faster),
and the spread of the ratio over the repeats (with --methods, --list-skins or --settings, one row per accumulation
method or NARUMI_DIAGNOSTICS setting, each with its own ratio to the same OpenMM runs; the paper's float pairs C-E run
through the diagnostic accumulation=NAME).  Then NarumiNonbondedForce runs --profile-steps steps with the diagnostic
profile-stages (with the first of --methods) and the stage times and neighbour-search counters of that run are
printed under the table.  --barostat N adds OpenMM's MonteCarloBarostat (1 bar, 300 K, a trial every N steps) to
both forces' Systems: constant pressure, as most production runs are, where every trial move evaluates the energy.
"""
import argparse
import contextlib
import datetime
import gc
import os
import random
import re
import statistics
import sys
import tempfile
import time

import openmm
import openmm.app as app
import openmm.unit as unit

import openmmnarumi
from benchmarks.diagnostics import narumi_diagnostics, refusal
from benchmarks.reporting import gpu_names, write_report
# the accumulation methods, named once
from studies.accuracy.accuracylib import METHODS as STUDY_METHODS, accumulation_diagnostics, set_accumulation

METHODS = list(STUDY_METHODS.values())
TIMESTEPS = {"4fs-hmr": (4.0, 1.5), "2fs": (2.0, None)}  # femtoseconds, hydrogen mass (amu; None: unchanged)
SYSTEMS = ["dhfr", "dodecahedron", "octahedron", "cube", "dhfr8", "water98k", "water395k"]


def forcefield():
    return app.ForceField("amber99sb.xml", "tip3p.xml")


def create_system(topology, hydrogen_mass=1.5):
    mass = None if hydrogen_mass is None else hydrogen_mass * unit.amu
    return forcefield().createSystem(topology, nonbondedMethod=app.CutoffPeriodic, nonbondedCutoff=1.0 * unit.nanometer,
                                     constraints=app.HBonds, hydrogenMass=mass)


def dhfr(data_dir):
    path = os.path.join(data_dir, "5dfr_solv-cube_equil.pdb")
    if not os.path.exists(path):
        return None
    pdb = app.PDBFile(path)
    return "DHFR (rf)", pdb.topology, pdb.positions


def solvated_protein(data_dir, shape, padding, molar):
    path = os.path.join(data_dir, "5dfr_minimized.pdb")
    if not os.path.exists(path):
        return None
    pdb = app.PDBFile(path)
    modeller = app.Modeller(pdb.topology, pdb.positions)
    random.seed(2026)  # Modeller places ions by random choice of waters: the same system every run
    modeller.addSolvent(forcefield(), padding=padding * unit.nanometer, boxShape=shape, ionicStrength=molar * unit.molar)
    salt = f", {molar} M NaCl" if molar else ""
    return f"DHFR {shape}{salt}", modeller.topology, modeller.positions


def tiled_dhfr(data_dir, copies=2):
    """The cubic DHFR box repeated copies^3 times: an equilibrated-density system of several proteins."""
    found = dhfr(data_dir)
    if found is None:
        return None
    _, topology, positions = found
    edge = topology.getPeriodicBoxVectors()[0][0].value_in_unit(unit.nanometer)
    base = positions.value_in_unit(unit.nanometer)
    modeller = app.Modeller(topology, positions)
    for i in range(copies):
        for j in range(copies):
            for k in range(copies):
                if i or j or k:
                    shift = openmm.Vec3(i * edge, j * edge, k * edge)
                    modeller.add(topology, [p + shift for p in base] * unit.nanometer)
    modeller.topology.setPeriodicBoxVectors([openmm.Vec3(copies * edge, 0, 0), openmm.Vec3(0, copies * edge, 0),
                                             openmm.Vec3(0, 0, copies * edge)] * unit.nanometer)
    return f"DHFR x{copies ** 3} (rf)", modeller.topology, modeller.positions


def water_box(atoms):
    if atoms <= 0:
        raise ValueError(f"a water box needs a positive number of atoms, not {atoms}")
    edge = (atoms / 3 / 33.43) ** (1 / 3)
    modeller = app.Modeller(app.Topology(), [])
    modeller.addSolvent(forcefield(), boxSize=openmm.Vec3(edge, edge, edge) * unit.nanometer)
    return f"water {edge:.2f} nm", modeller.topology, modeller.positions


def build(name, data_dir):
    if name == "dhfr":
        return dhfr(data_dir)
    if name == "dodecahedron":
        return solvated_protein(data_dir, "dodecahedron", 1.0, 0.0)
    if name == "octahedron":
        return solvated_protein(data_dir, "octahedron", 1.1, 0.15)
    if name == "cube":
        return solvated_protein(data_dir, "cube", 1.2, 0.15)
    if name == "dhfr8":
        return tiled_dhfr(data_dir)
    return water_box(int(name[len("water"):-1]) * 1000)


def make_context(system, positions, box, precision, step_fs, seed, devices=None):
    """A CUDA Context at 300 K; devices: its DeviceIndex property ("0,1": two GPUs; None: OpenMM's choice)."""
    integrator = openmm.LangevinMiddleIntegrator(300 * unit.kelvin, 1 / unit.picosecond, step_fs * unit.femtosecond)
    integrator.setRandomNumberSeed(seed)
    platform = openmm.Platform.getPlatformByName("CUDA")
    properties = {"Precision": precision, **({"DeviceIndex": devices} if devices else {})}
    context = openmm.Context(system, integrator, platform, properties)
    context.setPeriodicBoxVectors(*box)
    context.setPositions(positions)
    context.setVelocitiesToTemperature(300 * unit.kelvin, seed)
    return context, integrator


def ns_per_day(context, integrator, seconds):
    """Steps for about `seconds` after a warm-up, timed to completion (getState waits for the GPU)."""
    integrator.step(100)
    context.getState(getEnergy=True)
    steps, start = 0, time.perf_counter()
    chunk = 100
    while time.perf_counter() - start < seconds:
        integrator.step(chunk)
        steps += chunk
        context.getState(getEnergy=True)  # forces completion, and checks for NaN through OpenMM
    elapsed = time.perf_counter() - start
    dt = integrator.getStepSize().value_in_unit(unit.nanosecond)
    return steps * dt / elapsed * 86400, steps


@contextlib.contextmanager
def captured_stderr():
    """What C++ code prints to file descriptor 2 inside the block, as a list of one string (filled on exit)."""
    sys.stderr.flush()
    saved = os.dup(2)
    result = [""]
    with tempfile.TemporaryFile(mode="w+") as capture:
        os.dup2(capture.fileno(), 2)
        try:
            yield result
        finally:
            os.dup2(saved, 2)
            os.close(saved)
            capture.seek(0)
            result[0] = capture.read()
    sys.stderr.write(result[0])


def profile_stages(system, positions, box, precision, step_fs, steps, diagnostics=None):
    """Stage times (us per evaluation) and search counters of NarumiNonbondedForce over `steps` MD steps (with the
    NARUMI_DIAGNOSTICS `diagnostics` too)."""
    with captured_stderr() as text:
        with narumi_diagnostics("profile-stages", diagnostics):
            context, integrator = make_context(system, positions, box, precision, step_fs, 3)
        integrator.step(steps)
        del context, integrator
        gc.collect()
    stages = {m.group(1): float(m.group(2)) for m in re.finditer(r"^\s+(\S+)\s+([\d.]+) us", text[0], re.MULTILINE)}
    counters = {}
    search = re.search(r"search, \d+ evaluations \(per evaluation\): (.*); (\d+) blocks", text[0])
    if search:
        for item in search.group(1).split(", "):
            key, value = item.rsplit(" ", 1)
            counters[key] = float(value)
        counters["blocks"] = int(search.group(2))
    for key, pattern in (("search warps", r"search warps per block I (\d+)"), ("sums in doubles", r"Narumi sums in doubles (\d+)"),
                         ("skin (nm)", r"blocks, skin ([\d.]+) nm")):
        found = re.search(pattern, text[0])
        if found:
            counters[key] = float(found.group(1))
    return stages, counters


def relaxed_start(topology, positions):
    """Minimized, then 1 ps at 1 fs with OpenMM's force (a freshly solvated box can blow up at 4 fs otherwise)."""
    system = create_system(topology)
    box = topology.getPeriodicBoxVectors()
    context, integrator = make_context(system, positions, box, "mixed", 1.0, 1)
    openmm.LocalEnergyMinimizer.minimize(context, 10.0, 1000)
    integrator.step(1000)
    state = context.getState(getPositions=True)
    return state.getPositions(), state.getPeriodicBoxVectors()


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data-dir", default=os.path.join(os.path.dirname(__file__), "..", "..", "shared", "data"))
    parser.add_argument("--systems", nargs="*", default=["all"], choices=["all"] + SYSTEMS)
    parser.add_argument("--timesteps", nargs="*", default=list(TIMESTEPS), choices=list(TIMESTEPS))
    parser.add_argument("--precisions", nargs="*", default=["single", "mixed"], choices=["single", "mixed", "double"])
    parser.add_argument("--seconds", type=float, default=3.0, help="timed seconds per run (default 3)")
    parser.add_argument("--repeats", type=int, default=1, help="runs of each force per row, in turn (default 1)")
    parser.add_argument("--profile-steps", type=int, default=200, help="steps of the profiled run (0: none)")
    parser.add_argument("--methods", nargs="*", default=[], choices=METHODS,
                        help="run NarumiNonbondedForce with each of these accumulation methods (default: its default, "
                             "Narumi), before any --list-skins and --settings")
    parser.add_argument("--list-skins", nargs="*", type=float, default=[],
                        help="run NarumiNonbondedForce with each of these neighbour-list skins in nm (the diagnostic "
                             "list-skin; default: the plugin's own choice)")
    parser.add_argument("--settings", nargs="*", default=[],
                        help="run NarumiNonbondedForce with each of these NARUMI_DIAGNOSTICS values (e.g. "
                             "exclusion-stream=off, or tile-chunks=off,search-warps=4), and with 'default'; after any "
                             "--list-skins")
    parser.add_argument("--barostat", type=int, default=0, metavar="N",
                        help="a MonteCarloBarostat (1 bar, 300 K) with a trial every N steps in both forces' Systems (default 0: none)")
    parser.add_argument("--markdown", help="append the tables to this file")
    parser.add_argument("--json", help="write every measurement to this file")
    args = parser.parse_args()
    if args.repeats < 1 or args.seconds <= 0 or args.profile_steps < 0 or args.barostat < 0:
        parser.error("--repeats must be >= 1, --seconds > 0, --profile-steps >= 0 and --barostat >= 0")
    if "CUDA" not in [openmm.Platform.getPlatform(i).getName() for i in range(openmm.Platform.getNumPlatforms())]:
        sys.exit("no CUDA platform: " + "; ".join(openmmnarumi.pluginLoadFailures))
    names = SYSTEMS if "all" in args.systems else args.systems
    # Each Narumi run's (accumulation method, NARUMI_DIAGNOSTICS setting) (None: the defaults); several make a column.
    variants = ([(method, None) for method in args.methods] + [(None, f"list-skin={skin:g}") for skin in args.list_skins] +
                [(None, None if s == "default" else s) for s in args.settings])
    variants = variants or [(None, None)]
    for _, setting in variants:
        refused = setting and refusal(setting)
        if refused:
            parser.error(refused)

    rows, profiles = [], []
    for key in names:
        found = build(key, args.data_dir)
        if found is None:
            print(f"{key}: skipped, its PDB is not in {args.data_dir}", flush=True)
            continue
        name, topology, positions = found
        atoms = topology.getNumAtoms()
        start, box = relaxed_start(topology, positions)
        for timestep in args.timesteps:
            step_fs, hydrogen_mass = TIMESTEPS[timestep]
            systems = {"OpenMM": create_system(topology, hydrogen_mass)}
            for method in {method for method, _ in variants}:
                systems[method] = create_system(topology, hydrogen_mass)
                openmmnarumi.replaceNonbondedForces(systems[method])
                set_accumulation(systems[method], method)
            if args.barostat:
                for system in systems.values():
                    system.addForce(openmm.MonteCarloBarostat(1 * unit.bar, 300 * unit.kelvin, args.barostat))
            for precision in args.precisions:
                runs = [None] + variants  # None: OpenMM's force
                speeds = [[] for _ in runs]
                for repeat in range(args.repeats):
                    for k, variant in enumerate(runs):
                        force = "OpenMM" if k == 0 else "Narumi"
                        method, switch = variant or ("OpenMM", None)
                        with narumi_diagnostics(accumulation_diagnostics(method), switch):
                            context, integrator = make_context(systems[method], start, box, precision, step_fs, 2 + repeat)
                        speed, steps = ns_per_day(context, integrator, args.seconds)
                        speeds[k].append(speed)
                        setting = "" if k == 0 or variant == (None, None) else f" {method or switch}"
                        print(f"{name:28s} {atoms:7d} atoms {timestep:8s} {precision:6s} {force:6s}{setting} {speed:9.1f} ns/day "
                              f"({steps} steps)", flush=True)
                        del context, integrator
                for k, (method, switch) in enumerate(variants, start=1):
                    ratios = [n / o for n, o in zip(speeds[k], speeds[0])]
                    rows.append({"system": name, "atoms": atoms, "timestep": timestep, "precision": precision, "setting": method or switch,
                                 "openmm": statistics.median(speeds[0]), "narumi": statistics.median(speeds[k]),
                                 "ratio": statistics.median(ratios), "ratio_min": min(ratios), "ratio_max": max(ratios),
                                 "openmm_runs": speeds[0], "narumi_runs": speeds[k]})
            if args.profile_steps:
                method = variants[0][0]
                stages, counters = profile_stages(systems[method], start, box, args.precisions[0], step_fs, args.profile_steps,
                                                  accumulation_diagnostics(method))
                profiles.append({"system": name, "atoms": atoms, "timestep": timestep, "precision": args.precisions[0],
                                 "stages": stages, "search": counters})

    gpu = gpu_names() or "unknown GPU"
    lines = [f"`python3 -m benchmarks.nonbonded_speed {' '.join(sys.argv[1:])}` on {gpu}, OpenMM {openmm.__version__}, "
             f"{datetime.datetime.now(datetime.timezone.utc).strftime('%Y-%m-%d %H:%M UTC')}:", "",
             "| system | atoms | step | precision | NonbondedForce (ns/day) | NarumiNonbondedForce (ns/day) | ratio | ratio range |",
             "| --- | --- | --- | --- | --- | --- | --- | --- |"]
    settings = variants != [(None, None)]
    if settings:
        lines[2] = lines[2].replace("| precision |", "| precision | setting |")
        lines[3] += " --- |"
    lines += [f"| {r['system']} | {r['atoms']} | {r['timestep']} | {r['precision']} | " +
              (f"{r['setting'] or 'default'} | " if settings else "") +
              f"{r['openmm']:.1f} | {r['narumi']:.1f} | "
              f"{r['ratio']:.2f} | {r['ratio_min']:.2f}-{r['ratio_max']:.2f} |" for r in rows]
    if profiles:
        stage_names = []
        for p in profiles:
            stage_names += [s for s in p["stages"] if s not in stage_names]
        lines += ["", f"NarumiNonbondedForce stages (us per evaluation, {args.profile_steps} MD steps, "
                  "NARUMI_DIAGNOSTICS=profile-stages: each evaluation waits for its events) and search counters per evaluation:", "",
                  "| stage | " + " | ".join(f"{p['system']} {p['timestep']}" for p in profiles) + " |",
                  "| --- |" + " --- |" * len(profiles)]
        lines += [f"| {s} | " + " | ".join(f"{p['stages'].get(s, float('nan')):.1f}" for p in profiles) + " |" for s in stage_names]
        for counter in ("tiles", "list builds", "overflow blocks", "unfiltered blocks", "untested block pairs", "tiles in chunks",
                        "blocks", "search warps", "sums in doubles", "skin (nm)"):
            lines.append(f"| search: {counter} | " + " | ".join(f"{p['search'].get(counter, float('nan')):g}" for p in profiles) + " |")
    write_report(lines, args.markdown, args.json, {"gpu": gpu, "openmm": openmm.__version__, "command": sys.argv, "rows": rows,
                                                   "profiles": profiles}, append=True)


if __name__ == "__main__":
    main()
