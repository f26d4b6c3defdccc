"""Speed of every fresh Context, from its first step: does NarumiNonbondedForce start, and stay, at full speed?

DHFR (5dfr_minimized.pdb) solvated by Modeller in a truncated octahedron (1.2 nm padding, 0.15 M NaCl, about 24,600
atoms; --shape picks another box: cube, dodecahedron, or openmm-cube, OpenMM's own DHFR benchmark box
5dfr_solv-cube_equil.pdb as it is, 23,558 atoms, no ions, the same for every build), amber99sb + TIP3P, reaction
field at 1.0 nm, HBonds, hydrogen mass 1.5 amu, is built --builds times (each build places its ions anew),
minimized and relaxed with OpenMM's NonbondedForce, then timed at 4 fs (LangevinMiddleIntegrator) in --contexts fresh
Contexts per precision, OpenMM's NonbondedForce and NarumiNonbondedForce alternating in one process, in one or both
timing modes:
  windows   consecutive windows of --window steps from the first step, each ended by an energy read;
  adaptive  as OpenMM's benchmark script times: 20 steps, then runs grown until one lasts --adaptive-seconds / 2, each
            after 5 steps and an energy read; the last run is the figure.
Exit status 1 when a Narumi Context runs below 0.9x the fastest Narumi Context of its precision and mode, or its first
window below 0.9x the median of its later windows.  --profile adds one Context per build and precision with the stage
timer on (NARUMI_DIAGNOSTICS=profile-stages), whose search counters say which stage grew.
  python3 -m benchmarks.context_speed [--data-dir ../shared/data] [--builds 3] [--contexts 4]
      [--first-build 0] [--precisions mixed single] [--timing windows adaptive] [--markdown F] [--json F]"""
import argparse
import datetime
import os
import random
import statistics
import time

import openmm
import openmm.app as app
import openmm.unit as unit

import openmmnarumi
from benchmarks.nonbonded_speed import create_system, dhfr, forcefield, make_context, profile_stages, relaxed_start
from benchmarks.reporting import gpu_names, write_report

STEP_FS = 4.0


def source_pdb(shape):
    """The PDB of the data folder that a box of `shape` is made from."""
    return "5dfr_solv-cube_equil.pdb" if shape == "openmm-cube" else "5dfr_minimized.pdb"


def solvated(data_dir, shape, seed):
    """DHFR in a box of `shape` with 0.15 M NaCl, or OpenMM's own DHFR box ('openmm-cube'); None where the PDB is absent."""
    if shape == "openmm-cube":
        found = dhfr(data_dir)
        return None if found is None else found[1:]
    path = os.path.join(data_dir, source_pdb(shape))
    if not os.path.exists(path):
        return None
    pdb = app.PDBFile(path)
    modeller = app.Modeller(pdb.topology, pdb.positions)
    random.seed(seed)  # Modeller picks the waters it replaces by ions at random
    modeller.addSolvent(forcefield(), padding=1.2 * unit.nanometer, boxShape=shape, ionicStrength=0.15 * unit.molar)
    return modeller.topology, modeller.positions


def window_speeds(context, integrator, window, windows):
    """ns/day of consecutive windows from the Context's first step, each timed to an energy read."""
    speeds = []
    for _ in range(windows):
        context.getState(getEnergy=True)
        start = time.perf_counter()
        integrator.step(window)
        context.getState(getEnergy=True)
        speeds.append(STEP_FS * 1e-6 * window / (time.perf_counter() - start) * 86400)
    return speeds


def adaptive_speed(context, integrator, seconds):
    """ns/day as OpenMM's benchmark.py measures it: runs grown until one lasts seconds / 2."""
    steps = 20
    while True:
        integrator.step(5)
        context.getState(getEnergy=True)
        start = time.perf_counter()
        integrator.step(steps)
        context.getState(getEnergy=True)
        elapsed = time.perf_counter() - start
        if elapsed >= 0.5 * seconds:
            return STEP_FS * 1e-6 * steps / elapsed * 86400
        steps = int(steps / elapsed) if elapsed < 0.5 else int(steps * seconds / elapsed)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0], formatter_class=argparse.RawDescriptionHelpFormatter,
                                     epilog="\n".join(__doc__.splitlines()[2:]))
    parser.add_argument("--data-dir", default=os.path.join(os.path.dirname(__file__), "..", "..", "shared", "data"))
    parser.add_argument("--shape", default="octahedron", choices=["cube", "dodecahedron", "octahedron", "openmm-cube"])
    parser.add_argument("--builds", type=int, default=3)
    parser.add_argument("--first-build", type=int, default=0, help="number of the first build (its ions' random seed)")
    parser.add_argument("--contexts", type=int, default=4)
    parser.add_argument("--precisions", nargs="+", default=["mixed", "single"], choices=["single", "mixed", "double"])
    parser.add_argument("--timing", nargs="+", default=["windows", "adaptive"], choices=["windows", "adaptive"])
    parser.add_argument("--window", type=int, default=1500, help="steps per window (windows mode)")
    parser.add_argument("--windows", type=int, default=6, help="windows per Context (windows mode)")
    parser.add_argument("--adaptive-seconds", type=float, default=4.0, help="OpenMM benchmark.py's --seconds (adaptive mode)")
    parser.add_argument("--profile", action="store_true", help="one stage-profiled Narumi Context per build and precision")
    parser.add_argument("--markdown")
    parser.add_argument("--json")
    args = parser.parse_args()
    for name, value in (("--builds", args.builds), ("--contexts", args.contexts), ("--window", args.window)):
        if value < 1:
            parser.error(f"{name} must be at least 1, not {value}")
    if args.windows < 2:
        parser.error(f"--windows must be at least 2 (the first is compared with the rest), not {args.windows}")
    if not args.adaptive_seconds > 0:
        parser.error(f"--adaptive-seconds must be positive, not {args.adaptive_seconds}")

    box_name = f"OpenMM's DHFR box ({source_pdb(args.shape)})" if args.shape == "openmm-cube" else f"DHFR {args.shape} 0.15 M NaCl"
    lines = [f"Context speed, {box_name}, {STEP_FS:g} fs, {gpu_names() or 'no GPU'}, "
             f"{datetime.date.today()}, OpenMM {openmm.__version__}, openmmnarumi {openmmnarumi.__version__}", "",
             "| build | precision | timing | Context | OpenMM ns/day | Narumi ns/day | ratio | Narumi windows |",
             "|---|---|---|---|---|---|---|---|"]
    measurements, profiles = [], []
    for build in range(args.first_build, args.first_build + args.builds):
        found = solvated(args.data_dir, args.shape, 2026 + build)
        if found is None:
            print(f"skipped: {source_pdb(args.shape)} is not in {args.data_dir}")
            return 0
        topology, positions = found
        positions, box = relaxed_start(topology, positions)
        openmmSystem = create_system(topology)
        narumiSystem = openmm.XmlSerializer.clone(openmmSystem)
        openmmnarumi.replaceNonbondedForces(narumiSystem)
        print(f"build {build}: {openmmSystem.getNumParticles()} atoms", flush=True)
        for precision in args.precisions:
            for timing in args.timing:
                for index in range(args.contexts):
                    row = {"build": build, "precision": precision, "timing": timing, "context": index}
                    for force, system in (("openmm", openmmSystem), ("narumi", narumiSystem)):
                        context, integrator = make_context(system, positions, box, precision, STEP_FS, 100 * build + index + 1)
                        integrator.setConstraintTolerance(1e-5)
                        if timing == "windows":
                            speeds = window_speeds(context, integrator, args.window, args.windows)
                            row[force] = statistics.median(speeds[1:])
                            row[force + "_windows"] = speeds
                        else:
                            row[force] = adaptive_speed(context, integrator, args.adaptive_seconds)
                        del context, integrator
                    measurements.append(row)
                    shown = " ".join(f"{s:.0f}" for s in row.get("narumi_windows", []))
                    lines.append(f"| {build} | {precision} | {timing} | {index} | {row['openmm']:.0f} | {row['narumi']:.0f} | "
                                 f"{row['narumi'] / row['openmm']:.2f} | {shown} |")
                    print(lines[-1], flush=True)
            if args.profile:
                stages, counters = profile_stages(narumiSystem, positions, box, precision, STEP_FS, args.window)
                profiles.append({"build": build, "precision": precision, "stages": stages, "search": counters})

    failures = []
    for precision in args.precisions:
        for timing in args.timing:
            rows = [r for r in measurements if r["precision"] == precision and r["timing"] == timing]
            fastest = max(r["narumi"] for r in rows)
            failures += [f"{precision} {timing} build {r['build']} Context {r['context']}: {r['narumi']:.0f} ns/day, "
                         f"below 0.9x the fastest ({fastest:.0f})" for r in rows if r["narumi"] < 0.9 * fastest]
            failures += [f"{precision} {timing} build {r['build']} Context {r['context']}: first window {r['narumi_windows'][0]:.0f} "
                         f"ns/day, below 0.9x the rest ({r['narumi']:.0f})"
                         for r in rows if "narumi_windows" in r and r["narumi_windows"][0] < 0.9 * r["narumi"]]
    ratios = [r["narumi"] / r["openmm"] for r in measurements]
    lines += ["", f"Narumi / OpenMM: {min(ratios):.2f} to {max(ratios):.2f} over {len(ratios)} Context pairs; "
                  f"{len(failures)} Contexts below the 0.9x rules" + (":" if failures else ".")]
    lines += [f"- {failure}" for failure in failures]
    for profile in profiles:
        lines.append(f"profiled build {profile['build']} {profile['precision']}: {profile['search']}")
    write_report(lines, args.markdown, args.json, {"contexts": measurements, "profiles": profiles})
    return 1 if failures else 0


if __name__ == "__main__":
    raise SystemExit(main())
