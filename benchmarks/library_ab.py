#!/usr/bin/env python3
"""Builds of the CUDA plugin library against each other, NarumiNonbondedForce alone, on the GPU machine.

    python3 -m benchmarks.library_ab prepare --data-dir DIR --cache CACHE [--systems dhfr water98k water395k]
    python3 -m benchmarks.library_ab run --cache CACHE --label NAME [--library LIB.so.xz] [--precision mixed]
    python3 -m benchmarks.library_ab compare --cache CACHE --label NAME --against OTHER [--precision mixed]

'prepare' builds nonbonded_speed.py's systems (4 fs, hydrogen mass 1.5 amu), minimizes and relaxes them with OpenMM's
force as nonbonded_speed.py does, and saves each System and its positions in CACHE, so that every build then starts
from the same state.  'run' first puts --library (a libOpenMMNarumiCUDA.so, or one packed by
scripts/variant_library.sh) in place of the installed package's own ('original' puts that back), then for each
system saves NarumiNonbondedForce's forces and energy, runs nonbonded_speed.py's stage profile (--steps MD steps,
NARUMI_DIAGNOSTICS=profile-stages) and times whole MD steps (--seconds), and prints one line; a fresh process per
build, since a library loads once.  'compare' tells whether two builds gave the same bits, and their errors against the Reference
platform on the systems below 30,000 atoms.  NarumiNonbondedForce's sums are exact, so kernels that sum the same
terms in another order must give the same bits.
"""
import argparse
import hashlib
import importlib.util
import lzma
import os
import shutil

import numpy as np

LIBRARY = "libOpenMMNarumiCUDA.so"


def file_digest(path):
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


def install_library(library):
    """The library in place of the installed package's own ('original': that one again), before anything loads it.
    The package's own is kept beside it as .original, taken again whenever the file in place is not the one this script
    put there last (a reinstalled package), so that 'original' never brings back an older build's."""
    package = importlib.util.find_spec("openmmnarumi").submodule_search_locations[0]
    target = os.path.join(package, LIBRARY)
    original, installed = target + ".original", target + ".installed"
    last = open(installed).read() if os.path.exists(installed) else None
    if not os.path.exists(original) or file_digest(target) != last:
        shutil.copy2(target, original)
    if library == "original":
        shutil.copy2(original, target)
    elif library.endswith(".xz"):
        with lzma.open(library) as packed, open(target, "wb") as unpacked:
            shutil.copyfileobj(packed, unpacked)
    else:
        shutil.copy2(library, target)
    with open(installed, "w") as f:
        f.write(file_digest(target))


def load(cache, name):
    import openmm
    import openmm.unit as unit
    import openmmnarumi
    with open(os.path.join(cache, f"{name}.xml")) as f:
        system = openmm.XmlSerializer.deserialize(f.read())
    openmmnarumi.replaceNonbondedForces(system)
    for force in system.getForces():
        force.setForceGroup(1 if openmmnarumi.NarumiNonbondedForce.isinstance(force) else 0)
    positions = np.load(os.path.join(cache, f"{name}_positions.npy")) * unit.nanometer
    return system, positions, system.getDefaultPeriodicBoxVectors()


def narumi_forces(system, positions, platform, properties):
    import openmm
    import openmm.unit as unit
    context = openmm.Context(system, openmm.VerletIntegrator(0.001), openmm.Platform.getPlatformByName(platform), properties)
    context.setPositions(positions)
    state = context.getState(getForces=True, getEnergy=True, groups={1})
    return (np.array(state.getForces().value_in_unit(unit.kilojoule_per_mole / unit.nanometer)),
            state.getPotentialEnergy().value_in_unit(unit.kilojoule_per_mole))


def prepare(args):
    import openmm
    import openmm.unit as unit
    from benchmarks.nonbonded_speed import build, create_system, relaxed_start
    os.makedirs(args.cache, exist_ok=True)
    for name in args.systems:
        found = build(name, args.data_dir)
        if found is None:
            print(f"{name}: its PDB is not in {args.data_dir}, skipped")
            continue
        _, topology, positions = found
        start, box = relaxed_start(topology, positions)
        system = create_system(topology, 1.5)
        system.setDefaultPeriodicBoxVectors(*box)
        with open(os.path.join(args.cache, f"{name}.xml"), "w") as f:
            f.write(openmm.XmlSerializer.serialize(system))
        np.save(os.path.join(args.cache, f"{name}_positions.npy"), np.array(start.value_in_unit(unit.nanometer)))
        print(f"prepared {name}: {system.getNumParticles()} atoms", flush=True)


def prepared(args):
    names = [name for name in args.systems if os.path.exists(os.path.join(args.cache, f"{name}.xml"))]
    if not names:
        raise SystemExit(f"no prepared system of {args.systems} in {args.cache}: run 'prepare' first")
    return names


def run(args):
    if args.library:
        install_library(args.library)
    from benchmarks.nonbonded_speed import make_context, ns_per_day, profile_stages
    for name in prepared(args):
        system, positions, box = load(args.cache, name)
        forces, energy = narumi_forces(system, positions, "CUDA", {"Precision": args.precision})
        stem = os.path.join(args.cache, f"{args.label}_{args.precision}_{name}")
        np.save(stem + "_forces.npy", forces)
        np.save(stem + "_energy.npy", np.array([energy]))
        stages, counters = profile_stages(system, positions, box, args.precision, 4.0, args.steps)
        context, integrator = make_context(system, positions, box, args.precision, 4.0, 2)
        speed, steps = ns_per_day(context, integrator, args.seconds)
        del context, integrator
        times = ", ".join(f"{stage} {stages[stage]:.1f} us" for stage in ("findNeighborTiles", "computeTiles", "total") if stage in stages)
        print(f"{args.label} {args.precision} {name}: {times}, tiles {counters.get('tiles', 0):.0f}, "
              f"list builds {counters.get('list builds', 0):.3f} per evaluation, {counters.get('search warps', 0):g} search warps, "
              f"Narumi sums in doubles {counters.get('sums in doubles', 0):g}; "
              f"{speed:.1f} ns/day ({steps} steps at 4 fs)", flush=True)


def compare(args):
    for name in prepared(args):
        def saved(label, what):
            return np.load(os.path.join(args.cache, f"{label}_{args.precision}_{name}_{what}.npy"))
        forces, other = saved(args.label, "forces"), saved(args.against, "forces")
        line = (f"{name} {args.precision}: {args.label} and {args.against} give the same bits: {np.array_equal(forces, other)} "
                f"(largest difference {np.abs(forces - other).max():.3e} kJ/mol/nm, energies {saved(args.label, 'energy')[0]:.6f} "
                f"and {saved(args.against, 'energy')[0]:.6f})")
        if len(forces) < 30000:  # the Reference platform's time grows fast with the atoms
            system, positions, _ = load(args.cache, name)
            reference, energy = narumi_forces(system, positions, "Reference", {})
            scale = np.sqrt((reference ** 2).sum(1).mean())
            errors = [np.linalg.norm(f - reference, axis=1).max() / scale for f in (forces, other)]
            line += f"; against Reference, largest |dF| / rms F {errors[0]:.3e} and {errors[1]:.3e}, energy {energy:.6f}"
        print(line, flush=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("mode", choices=["prepare", "run", "compare"])
    parser.add_argument("--cache", required=True, help="folder of the prepared systems and the saved forces")
    parser.add_argument("--data-dir", default=os.path.join(os.path.dirname(__file__), "..", "..", "shared", "data"))
    parser.add_argument("--systems", nargs="*", default=["dhfr", "water98k", "water395k"],
                        choices=["dhfr", "dodecahedron", "octahedron", "dhfr8", "water98k", "water395k"])
    parser.add_argument("--label", help="the build's name in the saved files (run, compare)")
    parser.add_argument("--against", help="the other build's label (compare)")
    parser.add_argument("--library", help="run: the library to install first (.so, .so.xz, or 'original')")
    parser.add_argument("--precision", default="mixed", choices=["single", "mixed", "double"])
    parser.add_argument("--steps", type=int, default=60, help="MD steps of the stage profile (run)")
    parser.add_argument("--seconds", type=float, default=1.5, help="timed seconds of whole MD steps (run)")
    args = parser.parse_args()
    if args.mode in ("run", "compare") and not args.label:
        parser.error(f"{args.mode} needs --label")
    if args.mode == "compare" and not args.against:
        parser.error("compare needs --against")
    if args.steps <= 0 or args.seconds <= 0:
        parser.error(f"--steps and --seconds must be positive (not {args.steps}, {args.seconds})")
    {"prepare": prepare, "run": run, "compare": compare}[args.mode](args)


if __name__ == "__main__":
    main()
