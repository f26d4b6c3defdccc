#!/usr/bin/env python3
"""NarumiNonbondedForce against OpenMM's NonbondedForce on the CUDA platform: ns/day, same GPU, same process.

Systems (as OpenMM's examples/benchmarks/benchmark.py sets up its 'rf' test): amber99sb + tip3p, CutoffPeriodic
1.0 nm reaction field, HBonds constraints, hydrogen mass 1.5 amu, LangevinMiddleIntegrator at 300 K, 1/ps, 4 fs.
  dhfr   ../shared/data/5dfr_solv-cube_equil.pdb (23,558 atoms)        [skipped when the file is absent]
  water  cubic TIP3P boxes of about --water-atoms atoms (Modeller.addSolvent)
Each start is minimized and relaxed for 1 ps at 1 fs with OpenMM's force.
For each system and precision the two forces run from the same positions and velocities; the table row gives
ns/day of each and their ratio (NarumiNonbondedForce / NonbondedForce, > 1 means faster).
"""
import argparse
import datetime
import os
import sys
import time

import openmm
import openmm.app as app
import openmm.unit as unit

import openmmnarumi


def forcefield():
    return app.ForceField("amber99sb.xml", "tip3p.xml")


def create_system(topology):
    return forcefield().createSystem(topology, nonbondedMethod=app.CutoffPeriodic, nonbondedCutoff=1.0 * unit.nanometer,
                                     constraints=app.HBonds, hydrogenMass=1.5 * unit.amu)


def dhfr(data_dir):
    path = os.path.join(data_dir, "5dfr_solv-cube_equil.pdb")
    if not os.path.exists(path):
        return None
    pdb = app.PDBFile(path)
    return "DHFR (rf)", pdb.topology, pdb.positions


def water_box(atoms):
    edge = (atoms / 3 / 33.43) ** (1 / 3)
    modeller = app.Modeller(app.Topology(), [])
    modeller.addSolvent(forcefield(), boxSize=openmm.Vec3(edge, edge, edge) * unit.nanometer)
    return f"water {edge:.2f} nm", modeller.topology, modeller.positions


def make_context(system, positions, precision, seed):
    integrator = openmm.LangevinMiddleIntegrator(300 * unit.kelvin, 1 / unit.picosecond, 4 * unit.femtosecond)
    integrator.setRandomNumberSeed(seed)
    platform = openmm.Platform.getPlatformByName("CUDA")
    context = openmm.Context(system, integrator, platform, {"Precision": precision})
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


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data-dir", default=os.path.join(os.path.dirname(__file__), "..", "..", "shared", "data"))
    parser.add_argument("--water-atoms", type=int, nargs="*", default=[100000, 400000])
    parser.add_argument("--precisions", nargs="*", default=["single", "mixed"])
    parser.add_argument("--seconds", type=float, default=4.0, help="timed seconds per run (default 4)")
    parser.add_argument("--markdown", help="append the table to this file")
    args = parser.parse_args()
    if "CUDA" not in [openmm.Platform.getPlatform(i).getName() for i in range(openmm.Platform.getNumPlatforms())]:
        sys.exit("no CUDA platform: " + "; ".join(openmmnarumi.pluginLoadFailures))

    systems = [s for s in [dhfr(args.data_dir)] if s is not None] + [water_box(n) for n in args.water_atoms]
    rows = []
    for name, topology, positions in systems:
        reference_system = create_system(topology)
        # Minimization and 1 ps at 1 fs with OpenMM's force give both runs the same relaxed start (a freshly solvated
        # 400k-atom box once blew up in OpenMM's own single-precision run at 4 fs after minimization alone).
        context, integrator = make_context(reference_system, positions, "mixed", 1)
        openmm.LocalEnergyMinimizer.minimize(context, 10.0, 1000)
        integrator.setStepSize(1 * unit.femtosecond)
        integrator.step(1000)
        start = context.getState(getPositions=True).getPositions()
        del context, integrator
        narumi_system = create_system(topology)
        openmmnarumi.replaceNonbondedForces(narumi_system)
        for precision in args.precisions:
            speeds = {}
            for label, system in (("OpenMM", reference_system), ("Narumi", narumi_system)):
                context, integrator = make_context(system, start, precision, 2)
                speeds[label], steps = ns_per_day(context, integrator, args.seconds)
                print(f"{name:16s} {topology.getNumAtoms():8d} atoms  {precision:6s} {label:6s} {speeds[label]:9.1f} ns/day ({steps} steps)", flush=True)
                del context, integrator
            rows.append((name, topology.getNumAtoms(), precision, speeds["OpenMM"], speeds["Narumi"], speeds["Narumi"] / speeds["OpenMM"]))

    gpu = os.popen("nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null").read().strip() or "unknown GPU"
    lines = [f"`python3 benchmarks/nonbonded_speed.py {' '.join(sys.argv[1:])}` on {gpu}, OpenMM {openmm.__version__}, "
             f"{datetime.date.today().isoformat()}:", "",
             "| system | atoms | precision | NonbondedForce (ns/day) | NarumiNonbondedForce (ns/day) | ratio |",
             "| --- | --- | --- | --- | --- | --- |"]
    lines += [f"| {n} | {a} | {p} | {o:.1f} | {m:.1f} | {r:.2f} |" for n, a, p, o, m, r in rows]
    print("\n".join(lines))
    if args.markdown:
        with open(args.markdown, "a") as out:
            out.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
