#!/usr/bin/env python3
"""One GPU against several: NarumiNonbondedForce and OpenMM's NonbondedForce, the RDF engine and potential maps.

    python3 -m benchmarks.multi_gpu_speed [--devices 0,1] [--parts md identity rdf map] [--systems dhfr dhfr8 water395k]

Every part compares DeviceIndex "0" (cudaDevice=[0]) with the --devices list, in one process on one machine:
  md        ns/day of whole MD steps (benchmarks/nonbonded_speed.py's 'rf' settings; --timestep 4fs-hmr by default)
            for both forces on one GPU and on the list, the runs in turn: each force's scaling (several / one) and
            Narumi / OpenMM on several GPUs; and the step with no nonbonded force at all on one GPU and on the list
            (OpenMM's own machinery, which no force can make faster), hence NarumiNonbondedForce's scaling had its
            part of the step been split evenly at no cost (the most any force can gain on that Context)
  identity  NarumiNonbondedForce's forces and energy on one GPU and on the list at the same positions, every precision,
            over --evaluations evaluations with the atoms moved between them (the devices' shares are rebalanced from
            measured times after each): the force components and energies that differ in any bit are counted
  rdf       RDFEngine (all pairs and cell list) on a ~1M-atom water box: pairs/s over a run of frames, and the time of
            one frame to its counts, on one GPU and on the list (a frame of 2^33 pair tests or more is split between
            the devices, smaller ones go whole to one), counts compared exactly
  profile   NarumiNonbondedForce's stage times and search counters on each of the listed devices
            (NARUMI_DIAGNOSTICS=profile-stages) over --profile-steps MD steps of each system
  map       the direct-Coulomb potential map of benchmarks/potentialmap_speed.py (99,444 atoms, 256 x 256 x 16
            points) and its cutoff map (200^3 points): atom evaluations/s on one GPU and on the list (z slabs), the
            largest difference between the two maps
A table of each part is printed at the end and appended to --markdown; --json keeps every measurement.
"""
import argparse
import datetime
import gc
import os
import statistics
import sys
import time

import numpy as np
import openmm
import openmm.unit as unit

import openmmnarumi
from benchmarks import nonbonded_speed as md
from benchmarks.diagnostics import narumi_diagnostics
from benchmarks.reporting import gpu_names, write_report

DEFAULT_SYSTEMS = ["dhfr", "dhfr8", "water395k"]


def parse_devices(text):
    devices = [int(item) for item in text.split(",")] if text else []
    if len(devices) < 2 or min(devices) < 0:
        raise argparse.ArgumentTypeError(f"--devices {text!r} must list two or more CUDA devices, e.g. 0,1")
    return devices


def md_part(args, systems, rows):
    step_fs, hydrogen_mass = md.TIMESTEPS[args.timestep]
    several = ",".join(map(str, args.devices))
    for name, topology, start, box in systems:
        atoms = topology.getNumAtoms()
        forces = {"OpenMM": md.create_system(topology, hydrogen_mass), "Narumi": md.create_system(topology, hydrogen_mass),
                  "none": md.create_system(topology, hydrogen_mass)}
        openmmnarumi.replaceNonbondedForces(forces["Narumi"])
        # The step without any nonbonded force: what OpenMM's own machinery (integrator, constraints, bonded forces,
        # and on several devices the exchange of forces and positions) costs, the floor of every scaling.
        nonbonded = [i for i, f in enumerate(forces["none"].getForces()) if isinstance(f, openmm.NonbondedForce)]
        for i in reversed(nonbonded):
            forces["none"].removeForce(i)
        for precision in args.precisions:
            speeds = {(force, devices): [] for force in forces for devices in ("0", several)}
            for repeat in range(args.repeats):
                for force, devices in speeds:
                    context, integrator = md.make_context(forces[force], start, box, precision, step_fs, 2 + repeat, devices)
                    speed, steps = md.ns_per_day(context, integrator, args.seconds)
                    speeds[force, devices].append(speed)
                    print(f"{name:20s} {atoms:7d} atoms {precision:6s} {force:6s} DeviceIndex {devices:5s} {speed:9.1f} ns/day "
                          f"({steps} steps)", flush=True)
                    del context, integrator
                    gc.collect()
            median = {key: statistics.median(value) for key, value in speeds.items()}
            rows.append({"system": name, "atoms": atoms, "timestep": args.timestep, "precision": precision, "devices": several,
                         "openmm_one": median["OpenMM", "0"], "openmm_several": median["OpenMM", several],
                         "narumi_one": median["Narumi", "0"], "narumi_several": median["Narumi", several],
                         "rest_one_us": step_microseconds(median["none", "0"], step_fs),
                         "rest_several_us": step_microseconds(median["none", several], step_fs),
                         "runs": {f"{force} {devices}": value for (force, devices), value in speeds.items()}})


NARUMI_GROUP = 1  # the identity part puts NarumiNonbondedForce alone in this force group


def step_microseconds(ns_per_day, step_fs):
    return 86400e6 / (ns_per_day * 1e6 / step_fs)


def perfect_split_scaling(row):
    """NarumiNonbondedForce's N/1 had its share of a step (the step less the one without any nonbonded force) been
    split evenly over the N devices at no cost, on top of the step without it on N devices: the most a force can gain
    on OpenMM's multi-device Context."""
    step_fs = md.TIMESTEPS[row["timestep"]][0]
    one = step_microseconds(row["narumi_one"], step_fs)
    force = one - row["rest_one_us"]
    return one / (force / len(row["devices"].split(",")) + row["rest_several_us"])


def forces_and_energy(context, groups=-1):
    state = context.getState(getForces=True, getEnergy=True, groups=groups)
    forces = state.getForces(asNumpy=True).value_in_unit(unit.kilojoule_per_mole / unit.nanometer)
    return np.asarray(forces), state.getPotentialEnergy().value_in_unit(unit.kilojoule_per_mole)


def identity_part(args, systems, rows):
    """NarumiNonbondedForce alone (its force group) bit for bit; the whole system's energy beside it, since OpenMM's
    own bonded forces sum their energies in floating point, in an order that depends on the devices."""
    several = ",".join(map(str, args.devices))
    for name, topology, start, box in systems:
        system = md.create_system(topology)
        openmmnarumi.replaceNonbondedForces(system)
        for force in system.getForces():
            force.setForceGroup(NARUMI_GROUP if openmmnarumi.NarumiNonbondedForce.isinstance(force) else 0)
        for precision in ("single", "mixed", "double"):
            contexts = [md.make_context(system, start, box, precision, 1.0, 5, devices) for devices in ("0", several)]
            random = np.random.default_rng(7)
            positions = np.asarray(start.value_in_unit(unit.nanometer))
            differing_forces = differing_energies = differing_total_forces = differing_total_energies = 0
            largest = 0.0
            for _ in range(args.evaluations):
                positions = positions + random.normal(0.0, 0.002, positions.shape)
                narumi, total = [], []
                for context, _integrator in contexts:
                    context.setPositions(positions)
                    narumi.append(forces_and_energy(context, {NARUMI_GROUP}))
                    total.append(forces_and_energy(context))
                (one, energy_one), (two, energy_two) = narumi
                differing_forces += int(np.count_nonzero(one != two))
                differing_energies += int(energy_one != energy_two)
                largest = max(largest, float(np.max(np.abs(one - two))))
                differing_total_forces += int(np.count_nonzero(total[0][0] != total[1][0]))
                differing_total_energies += int(total[0][1] != total[1][1])
            rows.append({"system": name, "atoms": topology.getNumAtoms(), "precision": precision, "devices": several,
                         "evaluations": args.evaluations, "components": 3 * topology.getNumAtoms() * args.evaluations,
                         "differing_components": differing_forces, "differing_energies": differing_energies,
                         "largest_difference": largest, "differing_total_components": differing_total_forces,
                         "differing_total_energies": differing_total_energies})
            print(f"identity {name} {precision}: NarumiNonbondedForce {differing_forces} differing force components, "
                  f"{differing_energies} differing energies; the whole system {differing_total_forces} and "
                  f"{differing_total_energies}, over {args.evaluations} evaluations", flush=True)
            del contexts
            gc.collect()


def profile_part(args, systems):
    """Each device kernel prints its stage report when its Context goes: shown as it comes."""
    step_fs, hydrogen_mass = md.TIMESTEPS[args.timestep]
    several = ",".join(map(str, args.devices))
    for name, topology, start, box in systems:
        system = md.create_system(topology, hydrogen_mass)
        openmmnarumi.replaceNonbondedForces(system)
        print(f"== profile: {name}, DeviceIndex {several}, {args.profile_steps} steps", flush=True)
        with narumi_diagnostics("profile-stages"):
            context, integrator = md.make_context(system, start, box, args.precisions[0], step_fs, 9, several)
        integrator.step(args.profile_steps)
        context.getState(getEnergy=True)
        del context, integrator
        gc.collect()


def rdf_part(args, rows):
    from benchmarks import rdf_speed
    from openmmnarumi.rdf import RDFEngine
    positions, _elements, edge = rdf_speed.water_box(args.rdf_atoms, rdf_speed.water_template())
    n = len(positions)
    box = np.diag([edge] * 3)
    everything = np.arange(n)
    pairs = n * (n - 1) // 2
    for algorithm in ("all-pairs", "cell-list"):
        counts, seconds, single = {}, {}, {}
        for label, devices in (("one", [args.devices[0]]), ("several", args.devices)):
            engine = RDFEngine(n, everything, rMax=rdf_speed.R_MAX, bins=240, backend="cuda", algorithm=algorithm,
                               cpuThreads=args.rdf_cpu_threads, cudaDevice=devices)
            # Two warm-up frames for each device (whole frames go to the devices in turn, and each pipeline has two
            # staging slots whose page-locked memory is allocated at their first frame), so that no first launch or
            # allocation is timed; then a run of frames, the same number on both.
            for _ in range(2 * len(args.devices)):
                engine.addFrame(positions, box)
            engine.pairCounts()
            seconds[label], frames = rdf_speed.time_frames(engine, positions, box, min_seconds=float("inf"),
                                                           max_frames=args.rdf_frames, warmup=False)
            # One frame on its own, to the counts: a frame large enough is split between the devices.
            start = time.perf_counter()
            engine.addFrame(positions, box)
            counts[label] = np.asarray(engine.pairCounts())
            single[label] = time.perf_counter() - start
            print(f"rdf {algorithm} {n} atoms on {devices}: {seconds[label] * 1e3:.2f} ms/frame ({frames} frames)", flush=True)
        rows.append({"algorithm": algorithm, "atoms": n, "devices": ",".join(map(str, args.devices)),
                     "host_threads": args.rdf_cpu_threads or os.cpu_count(),
                     "one_pairs_per_s": pairs / seconds["one"], "several_pairs_per_s": pairs / seconds["several"],
                     "one_frame_one_s": single["one"], "one_frame_several_s": single["several"],
                     "identical_counts": bool(np.array_equal(counts["one"], counts["several"]))})


def map_part(args, rows):
    from benchmarks import potentialmap_speed
    from openmmnarumi import _potentialmap
    positions, charges = potentialmap_speed.water_box()
    cases = [("direct", [0.0, 0.0, 4.7], [0.04, 0.04, 0.04], [256, 256, 16], 0.0),
             ("cutoff", [0.0, 0.0, 0.0], [0.05, 0.05, 0.05], [200, 200, 200], 1.2)]
    for method, origin, spacing, dims, cutoff in cases:
        maps, seconds = {}, {}
        for label, devices in (("one", [args.devices[0]]), ("several", args.devices)):
            engine = _potentialmap.Engine(origin, spacing, dims, charges, method=method, cutoff=cutoff,
                                          accumulation="compensated", backend="cuda", cudaDevice=devices)
            maps[label], seconds[label], _stages = potentialmap_speed.time_engine(engine, positions, None, args.map_repeats)
            maps[label] = np.asarray(maps[label], dtype=np.float64)
            print(f"map {method} on {devices}: {seconds[label] * 1e3:.2f} ms per map", flush=True)
        evaluations = float(np.prod(dims)) * len(charges)
        scale = float(np.max(np.abs(maps["one"])))
        rows.append({"method": method, "atoms": len(charges), "points": int(np.prod(dims)),
                     "devices": ",".join(map(str, args.devices)),
                     "one_evaluations_per_s": evaluations / seconds["one"],
                     "several_evaluations_per_s": evaluations / seconds["several"],
                     "largest_relative_difference": float(np.max(np.abs(maps["several"] - maps["one"]))) / scale})


def markdown_table(header, rows):
    """A markdown table: the header's cells, then one row of cells (already formatted) per entry."""
    return (["| " + " | ".join(header) + " |", "| --- |" + " --- |" * (len(header) - 1)] +
            ["| " + " | ".join(str(cell) for cell in row) + " |" for row in rows])


def tables(args, results):
    gpu = gpu_names()
    when = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    lines = [f"`python3 -m benchmarks.multi_gpu_speed {' '.join(sys.argv[1:])}` on {gpu or 'unknown GPUs'}, "
             f"OpenMM {openmm.__version__}, {when}:", ""]
    if results["md"]:
        lines += markdown_table(
            ["system", "atoms", "step", "precision", "OpenMM 1 GPU", "OpenMM N GPUs", "OpenMM N/1", "Narumi 1 GPU", "Narumi N GPUs",
             "Narumi N/1", "Narumi/OpenMM on N", "step without nonbonded force, 1 / N GPUs (us)", "Narumi N/1 split perfectly"],
            [[r["system"], r["atoms"], r["timestep"], r["precision"], f"{r['openmm_one']:.1f}", f"{r['openmm_several']:.1f}",
              f"{r['openmm_several'] / r['openmm_one']:.2f}", f"{r['narumi_one']:.1f}", f"{r['narumi_several']:.1f}",
              f"{r['narumi_several'] / r['narumi_one']:.2f}", f"{r['narumi_several'] / r['openmm_several']:.2f}",
              f"{r['rest_one_us']:.0f} / {r['rest_several_us']:.0f}", f"{perfect_split_scaling(r):.2f}"] for r in results["md"]])
        lines += ["", "(ns/day; N = the devices " + results["md"][0]["devices"] + ")", ""]
    if results["identity"]:
        lines += markdown_table(
            ["system", "atoms", "precision", "evaluations", "force components compared",
             "NarumiNonbondedForce: components differing", "its energies differing", "whole system: components differing",
             "its energies differing"],
            [[r["system"], r["atoms"], r["precision"], r["evaluations"], r["components"], r["differing_components"],
              r["differing_energies"], r["differing_total_components"], r["differing_total_energies"]] for r in results["identity"]])
        lines.append("")
    if results["rdf"]:
        lines += markdown_table(
            ["RDF algorithm", "atoms", "host threads", "run of frames, 1 GPU (G pairs/s)", "N GPUs (G pairs/s)", "N/1", "one frame, 1 GPU (ms)",
             "N GPUs (ms)", "counts identical"],
            [[r["algorithm"], r["atoms"], r["host_threads"], f"{r['one_pairs_per_s'] / 1e9:.1f}", f"{r['several_pairs_per_s'] / 1e9:.1f}",
              f"{r['several_pairs_per_s'] / r['one_pairs_per_s']:.2f}", f"{1e3 * r['one_frame_one_s']:.1f}",
              f"{1e3 * r['one_frame_several_s']:.1f}", "yes" if r["identical_counts"] else "NO"] for r in results["rdf"]])
        lines.append("")
    if results["map"]:
        lines += markdown_table(
            ["map method", "atoms", "points", "1 GPU (G evaluations/s)", "N GPUs", "N/1", "largest difference / largest value"],
            [[r["method"], r["atoms"], r["points"], f"{r['one_evaluations_per_s'] / 1e9:.1f}",
              f"{r['several_evaluations_per_s'] / 1e9:.1f}", f"{r['several_evaluations_per_s'] / r['one_evaluations_per_s']:.2f}",
              f"{r['largest_relative_difference']:.2g}"] for r in results["map"]])
    return gpu, lines


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data-dir", default=os.path.join(os.path.dirname(__file__), "..", "..", "shared", "data"))
    parser.add_argument("--devices", type=parse_devices, default=[0, 1], help="the devices to compare with device 0 (0,1)")
    parser.add_argument("--parts", nargs="+", default=["md", "identity", "rdf", "map"],
                        choices=["md", "identity", "profile", "rdf", "map"])
    parser.add_argument("--systems", nargs="+", default=DEFAULT_SYSTEMS, choices=md.SYSTEMS)
    parser.add_argument("--timestep", default="4fs-hmr", choices=list(md.TIMESTEPS))
    parser.add_argument("--precisions", nargs="+", default=["single", "mixed"], choices=["single", "mixed", "double"])
    parser.add_argument("--seconds", type=float, default=3.0, help="timed seconds per MD run (default 3)")
    parser.add_argument("--repeats", type=int, default=1, help="runs of each force and device list per row (default 1)")
    parser.add_argument("--evaluations", type=int, default=5, help="evaluations per identity case (default 5)")
    parser.add_argument("--profile-steps", type=int, default=200, help="MD steps of the profile part (default 200)")
    parser.add_argument("--rdf-atoms", type=int, default=1_000_000)
    parser.add_argument("--rdf-frames", type=int, default=12)
    parser.add_argument("--rdf-cpu-threads", type=int, default=0,
                        help="threads that check and gather each RDF frame on the host (cpuThreads; default 0: all cores)")
    parser.add_argument("--map-repeats", type=int, default=5)
    parser.add_argument("--markdown", help="append the tables to this file")
    parser.add_argument("--json", help="write every measurement to this file")
    args = parser.parse_args()
    if args.repeats < 1 or args.seconds <= 0 or args.evaluations < 1:
        parser.error("--repeats and --evaluations must be >= 1 and --seconds > 0")
    platforms = [openmm.Platform.getPlatform(i).getName() for i in range(openmm.Platform.getNumPlatforms())]
    if "CUDA" not in platforms:
        sys.exit("no CUDA platform: " + "; ".join(openmmnarumi.pluginLoadFailures))

    results = {"md": [], "identity": [], "rdf": [], "map": []}
    if {"md", "identity", "profile"} & set(args.parts):
        systems = []
        for key in args.systems:
            found = md.build(key, args.data_dir)
            if found is None:
                print(f"{key}: skipped, its PDB is not in {args.data_dir}", flush=True)
                continue
            name, topology, positions = found
            start, box = md.relaxed_start(topology, positions)
            systems.append((name, topology, start, box))
        if "md" in args.parts:
            md_part(args, systems, results["md"])
        if "identity" in args.parts:
            identity_part(args, systems, results["identity"])
        if "profile" in args.parts:
            profile_part(args, systems)
    if "rdf" in args.parts:
        rdf_part(args, results["rdf"])
    if "map" in args.parts:
        map_part(args, results["map"])

    gpu, lines = tables(args, results)
    write_report(lines, args.markdown, args.json, {"gpu": gpu, "openmm": openmm.__version__, "command": sys.argv,
                                                   "results": results}, append=True)


if __name__ == "__main__":
    main()
