#!/usr/bin/env python3
"""Stage times of NarumiNonbondedForce on the DHFR box with the atoms held still, for comparing kernel variants.

    [NARUMI_COULOMB_GENERIC=1] python3 benchmarks/dhfr_stage_times.py [--data-dir DIR] [--steps 300]

Runs --steps VerletIntegrator steps of 1e-9 ps from DIR/5dfr_solv-cube_equil.pdb (the system of
benchmarks/nonbonded_speed.py: amber99sb + tip3p, CutoffPeriodic 1.0 nm reaction field, HBonds, hydrogen mass 1.5 amu;
mixed precision, CUDA platform) with NARUMI_PROFILE_STAGES=1, so the plugin prints the
mean time of every stage when the Context is deleted.  The atoms barely move, so every run, and every build of the
kernels, sees the same neighbour tiles: differences between runs are the kernels'.  NARUMI_COULOMB_GENERIC=1 makes the
pair kernel read the Coulomb form at run time instead of using the copy compiled for it (docs/benchmarks.md).
"""
import argparse
import os
import sys

import openmm
import openmm.unit as unit

import openmmnarumi
from nonbonded_speed import create_system, dhfr  # the benchmark's own DHFR system, one definition


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data-dir", default=os.path.join(os.path.dirname(__file__), "..", "..", "shared", "data"))
    parser.add_argument("--steps", type=int, default=300)
    args = parser.parse_args()
    found = dhfr(args.data_dir)
    if found is None:
        sys.exit(f"{os.path.join(args.data_dir, '5dfr_solv-cube_equil.pdb')} not found (--data-dir)")
    _, topology, positions = found
    system = create_system(topology)
    openmmnarumi.replaceNonbondedForces(system)
    integrator = openmm.VerletIntegrator(1e-9 * unit.picosecond)
    os.environ["NARUMI_PROFILE_STAGES"] = "1"
    context = openmm.Context(system, integrator, openmm.Platform.getPlatformByName("CUDA"), {"Precision": "mixed"})
    context.setPositions(positions)
    context.setVelocitiesToTemperature(300 * unit.kelvin, 1)
    integrator.step(args.steps)
    del context  # prints the stage times


if __name__ == "__main__":
    main()
