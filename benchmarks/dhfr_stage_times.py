#!/usr/bin/env python3
"""Stage times of NarumiNonbondedForce on the DHFR box with the atoms held still, for comparing kernel variants.

    [NARUMI_COULOMB_GENERIC=1] python3 benchmarks/dhfr_stage_times.py [--data-dir DIR] [--steps 300]

Runs --steps VerletIntegrator steps of 1e-9 ps from DIR/5dfr_solv-cube_equil.pdb (amber99sb + tip3p, CutoffPeriodic
1.0 nm reaction field, HBonds, mixed precision, CUDA platform) with NARUMI_PROFILE_STAGES=1, so the plugin prints the
mean time of every stage when the Context is deleted.  The atoms barely move, so every run, and every build of the
kernels, sees the same neighbour tiles: differences between runs are the kernels'.  NARUMI_COULOMB_GENERIC=1 makes the
pair kernel read the Coulomb form at run time instead of using the copy compiled for it (docs/benchmarks.md).
"""
import argparse
import os
import sys

import openmm
import openmm.app as app
import openmm.unit as unit

import openmmnarumi


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data-dir", default=os.path.join(os.path.dirname(__file__), "..", "..", "shared", "data"))
    parser.add_argument("--steps", type=int, default=300)
    args = parser.parse_args()
    path = os.path.join(args.data_dir, "5dfr_solv-cube_equil.pdb")
    if not os.path.exists(path):
        sys.exit(f"{path} not found (--data-dir)")
    pdb = app.PDBFile(path)
    forcefield = app.ForceField("amber99sb.xml", "tip3p.xml")
    system = forcefield.createSystem(pdb.topology, nonbondedMethod=app.CutoffPeriodic, nonbondedCutoff=1.0 * unit.nanometer,
                                     constraints=app.HBonds, hydrogenMass=1.5 * unit.amu)
    openmmnarumi.replaceNonbondedForces(system)
    integrator = openmm.VerletIntegrator(1e-9 * unit.picosecond)
    os.environ["NARUMI_PROFILE_STAGES"] = "1"
    context = openmm.Context(system, integrator, openmm.Platform.getPlatformByName("CUDA"), {"Precision": "mixed"})
    context.setPositions(pdb.positions)
    context.setVelocitiesToTemperature(300 * unit.kelvin, 1)
    integrator.step(args.steps)
    del context  # prints the stage times


if __name__ == "__main__":
    main()
