#!/usr/bin/env python3
"""Where a step's time goes: NarumiNonbondedForce's per-stage GPU times next to the whole step of both forces.

    python3 -m benchmarks.profile_nonbonded [--data-dir DIR] [--atoms 100000 400000] [--steps 200]

For DHFR (when DIR holds 5dfr_solv-cube_equil.pdb) and water boxes of about --atoms atoms (the settings of
benchmarks/nonbonded_speed.py, mixed precision) it prints ms per step of a LangevinMiddleIntegrator step with
OpenMM's NonbondedForce and with NarumiNonbondedForce, then runs NarumiNonbondedForce again with
NARUMI_DIAGNOSTICS=profile-stages, which makes the plugin record CUDA events between its launches and print the mean time of
every stage when the Context is deleted (each evaluation then waits for its events, so only the stage times count).
Under a kernel profiler (ncu --kernel-name regex:... python3 -m benchmarks.profile_nonbonded --steps 20) the same
steps give each kernel's time for both forces.
"""
import argparse
import gc
import os
import sys
import time

import openmm
import openmm.app as app
import openmm.unit as unit

import openmmnarumi
from benchmarks.diagnostics import narumi_diagnostics


def systems(args):
    forcefield = app.ForceField("amber99sb.xml", "tip3p.xml")
    path = os.path.join(args.data_dir, "5dfr_solv-cube_equil.pdb")
    if os.path.exists(path):
        pdb = app.PDBFile(path)
        yield "DHFR", forcefield, pdb.topology, pdb.positions
    for atoms in args.atoms:
        edge = (atoms / 3 / 33.43) ** (1 / 3)
        modeller = app.Modeller(app.Topology(), [])
        modeller.addSolvent(forcefield, boxSize=openmm.Vec3(edge, edge, edge) * unit.nanometer)
        yield f"water {modeller.topology.getNumAtoms()}", forcefield, modeller.topology, modeller.positions


def run(forcefield, topology, positions, use_narumi, steps, profile):
    system = forcefield.createSystem(topology, nonbondedMethod=app.CutoffPeriodic, nonbondedCutoff=1.0 * unit.nanometer,
                                     constraints=app.HBonds, hydrogenMass=1.5 * unit.amu)
    if use_narumi:
        openmmnarumi.replaceNonbondedForces(system)
    integrator = openmm.LangevinMiddleIntegrator(300 * unit.kelvin, 1 / unit.picosecond, 4 * unit.femtosecond)
    with narumi_diagnostics("profile-stages" if profile else None):
        context = openmm.Context(system, integrator, openmm.Platform.getPlatformByName("CUDA"), {"Precision": "mixed"})
    context.setPositions(positions)
    openmm.LocalEnergyMinimizer.minimize(context, 10.0, 100)
    context.setVelocitiesToTemperature(300 * unit.kelvin, 1)
    integrator.step(50)
    context.getState(getEnergy=True)
    start = time.perf_counter()
    integrator.step(steps)
    energy = context.getState(getEnergy=True).getPotentialEnergy()
    elapsed = time.perf_counter() - start
    del context, integrator
    gc.collect()
    return elapsed / steps * 1000, energy


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data-dir", default=os.path.join(os.path.dirname(__file__), "..", "..", "shared", "data"))
    parser.add_argument("--atoms", type=int, nargs="*", default=[100000, 400000])
    parser.add_argument("--steps", type=int, default=200)
    args = parser.parse_args()
    unstable = 0
    for name, forcefield, topology, positions in systems(args):
        for use_narumi in (False, True):
            ms, energy = run(forcefield, topology, positions, use_narumi, args.steps, False)
            # Liquid water lies near -14 kJ/mol per atom; far above that the run came apart (atoms flew off), and its
            # time per step means nothing.  Seen with both forces on the 395k box built by Modeller.
            per_atom = energy.value_in_unit(unit.kilojoule_per_mole) / topology.getNumAtoms()
            note = "" if per_atom < -5 else f"  UNSTABLE ({per_atom:.2f} kJ/mol per atom): not a timing"
            unstable += bool(note)
            print(f"{name}: {'NarumiNonbondedForce' if use_narumi else 'NonbondedForce'} {ms:.3f} ms/step ({energy}){note}", flush=True)
        print(f"{name}: NarumiNonbondedForce stages ({args.steps} steps):", flush=True)
        sys.stderr.flush()
        run(forcefield, topology, positions, True, args.steps, True)
        sys.stderr.flush()
    if unstable:
        sys.exit(f"{unstable} run(s) came apart: their times are not timings")


if __name__ == "__main__":
    main()
