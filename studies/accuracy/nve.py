#!/usr/bin/env python3
"""One NVE run of the DHFR water box for the energy-drift study (issue 4), e.g. 1 ns:

    python3 -m studies.accuracy.nve --force narumi --precision mixed --dt-fs 2 --seed 1 --length-ns 1 --out runs/x

amber99sb + tip3p, CutoffPeriodic 1.0 nm reaction field (eps_rf 78.3, no switching, dispersion correction on),
rigid water + HBonds constraints (tolerance --tolerance, default 1e-6), normal hydrogen masses.  --force:
  narumi         NarumiNonbondedForce, Narumi accumulation (default method F)
  narumi-single  NarumiNonbondedForce, SingleFloat accumulation (method A)
  openmm         OpenMM's NonbondedForce
Start: energy minimization (100 iterations), velocities at 300 K from --seed, --equil-ps of Langevin dynamics
(300 K, 1/ps, same seed) in a CompoundIntegrator, then VerletIntegrator until --length-ns of NVE or --max-wall-s
seconds of wall time, whichever comes first.  Every --report-ps the total energy is appended to OUT.csv
(time_ps, potential, kinetic, total in kJ/mol; flushed, so a killed run keeps its data); at the end OUT.json
(settings, length reached, ns/day of the NVE part) and OUT.state.xml (positions and velocities, for --resume,
which continues the NVE run from that state and appends to the CSV).
"""
import argparse
import json
import os
import time

import openmm
import openmm.app as app
import openmm.unit as unit

import openmmnarumi
from studies.accuracy.accuracylib import set_accumulation


def build_system(data_dir, force, tolerance):
    pdb = app.PDBFile(os.path.join(data_dir, "5dfr_solv-cube_equil.pdb"))
    system = app.ForceField("amber99sb.xml", "tip3p.xml").createSystem(
        pdb.topology, nonbondedMethod=app.CutoffPeriodic, nonbondedCutoff=1.0 * unit.nanometer,
        constraints=app.HBonds, rigidWater=True)
    if force in ("narumi", "narumi-single"):
        openmmnarumi.replaceNonbondedForces(system)
        set_accumulation(system, "Narumi" if force == "narumi" else "SingleFloat")
    return pdb, system


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data-dir", default=os.path.join(os.path.dirname(__file__), "..", "..", "..", "shared", "data"))
    parser.add_argument("--force", choices=["narumi", "narumi-single", "openmm"], default="narumi")
    parser.add_argument("--precision", choices=["single", "mixed", "double"], default="mixed")
    parser.add_argument("--platform", default="CUDA")
    parser.add_argument("--dt-fs", type=float, default=2.0)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--length-ns", type=float, default=1.0)
    parser.add_argument("--max-wall-s", type=float, default=1e9)
    parser.add_argument("--equil-ps", type=float, default=2.0)
    parser.add_argument("--report-ps", type=float, default=0.2)
    parser.add_argument("--tolerance", type=float, default=1e-6)
    parser.add_argument("--resume", help="a previous run's OUT.state.xml: continue its NVE run")
    parser.add_argument("--out", required=True, help="output prefix")
    args = parser.parse_args()
    wall_start = time.perf_counter()
    if not os.path.exists(os.path.join(args.data_dir, "5dfr_solv-cube_equil.pdb")):
        raise SystemExit(f"no 5dfr_solv-cube_equil.pdb in {args.data_dir}")
    os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
    pdb, system = build_system(args.data_dir, args.force, args.tolerance)
    dof = 3 * system.getNumParticles() - system.getNumConstraints() - 3  # CMMotionRemover present
    dt = args.dt_fs * unit.femtosecond
    verlet = openmm.VerletIntegrator(dt)
    langevin = openmm.LangevinMiddleIntegrator(300 * unit.kelvin, 1 / unit.picosecond, dt)
    langevin.setRandomNumberSeed(args.seed)
    for integrator in (verlet, langevin):
        integrator.setConstraintTolerance(args.tolerance)
    compound = openmm.CompoundIntegrator()
    compound.addIntegrator(verlet)
    compound.addIntegrator(langevin)
    props = {"Precision": args.precision} if args.platform in ("CUDA", "OpenCL") else {}
    context = openmm.Context(system, compound, openmm.Platform.getPlatformByName(args.platform), props)
    t_offset_ps = 0.0
    if args.resume:
        with open(args.resume) as f:
            state = openmm.XmlSerializer.deserialize(f.read())
        context.setState(state)
        t_offset_ps = state.getTime().value_in_unit(unit.picosecond)
        mode = "a"
    else:
        context.setPositions(pdb.positions)
        openmm.LocalEnergyMinimizer.minimize(context, 10.0, 100)
        context.setVelocitiesToTemperature(300 * unit.kelvin, args.seed)
        compound.setCurrentIntegrator(1)
        compound.step(int(round(args.equil_ps * 1000 / args.dt_fs)))
        context.setTime(0.0)
        mode = "w"
    compound.setCurrentIntegrator(0)
    report = max(1, int(round(args.report_ps * 1000 / args.dt_fs)))
    total_steps = int(round(args.length_ns * 1e6 / args.dt_fs))
    steps_done = int(round(t_offset_ps * 1000 / args.dt_fs))
    csv = open(args.out + ".csv", mode)
    if mode == "w":
        csv.write("time_ps,potential,kinetic,total\n")

    def sample():
        s = context.getState(getEnergy=True)
        pe = s.getPotentialEnergy().value_in_unit(unit.kilojoule_per_mole)
        ke = s.getKineticEnergy().value_in_unit(unit.kilojoule_per_mole)
        csv.write(f"{s.getTime().value_in_unit(unit.picosecond):.4f},{pe:.6f},{ke:.6f},{pe + ke:.6f}\n")
        csv.flush()
        return pe + ke

    if mode == "w":
        sample()
    nve_start, nve_steps, status = time.perf_counter(), 0, "complete"
    while steps_done < total_steps:
        if time.perf_counter() - wall_start > args.max_wall_s:
            status = "wall-time limit"
            break
        n = min(report, total_steps - steps_done)
        compound.step(n)
        steps_done += n
        nve_steps += n
        total = sample()
        if total != total:
            status = "NaN"
            break
    elapsed = time.perf_counter() - nve_start
    csv.close()
    state = context.getState(getPositions=True, getVelocities=True)
    with open(args.out + ".state.xml", "w") as f:
        f.write(openmm.XmlSerializer.serialize(state))
    summary = dict(force=args.force, precision=args.precision, dt_fs=args.dt_fs, seed=args.seed, tolerance=args.tolerance,
                   platform=args.platform, atoms=system.getNumParticles(), dof=dof, status=status,
                   length_ns=steps_done * args.dt_fs * 1e-6, this_call_ns=nve_steps * args.dt_fs * 1e-6,
                   ns_per_day=nve_steps * args.dt_fs * 1e-6 / elapsed * 86400 if elapsed > 0 else None,
                   resumed=bool(args.resume))
    with open(args.out + ".json", "w") as f:
        json.dump(summary, f, indent=1)
    print(json.dumps(summary))


if __name__ == "__main__":
    main()
