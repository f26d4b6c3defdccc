#!/usr/bin/env python3
"""A few DHFR MD steps with each nonbonded force, as the workload of a kernel profiler.

    ncu --kernel-name regex:'computeTiles|computeNonbonded' python3 benchmarks/kernel_steps.py [--data-dir DIR]

Builds benchmarks/nonbonded_speed.py's DHFR system (amber99sb + tip3p, CutoffPeriodic 1.0 nm reaction field,
HBonds, hydrogen mass 1.5 amu; mixed precision) and runs --steps LangevinMiddleIntegrator steps (1 fs, so that the
unminimized start stays sane) first with OpenMM's NonbondedForce, then with NarumiNonbondedForce, so that one
profiler run sees both forces' kernels on the same positions.  --forces picks one or both.
"""
import argparse
import os
import sys

import openmm
import openmm.unit as unit

import openmmnarumi
from nonbonded_speed import create_system, dhfr


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data-dir", default=os.path.join(os.path.dirname(__file__), "..", "..", "shared", "data"))
    parser.add_argument("--steps", type=int, default=12)
    parser.add_argument("--forces", nargs="*", default=["openmm", "narumi"], choices=["openmm", "narumi"])
    args = parser.parse_args()
    found = dhfr(args.data_dir)
    if found is None:
        sys.exit(f"{os.path.join(args.data_dir, '5dfr_solv-cube_equil.pdb')} not found (--data-dir)")
    _, topology, positions = found
    for force in args.forces:
        system = create_system(topology)
        if force == "narumi":
            openmmnarumi.replaceNonbondedForces(system)
        integrator = openmm.LangevinMiddleIntegrator(300 * unit.kelvin, 1 / unit.picosecond, 1 * unit.femtosecond)
        context = openmm.Context(system, integrator, openmm.Platform.getPlatformByName("CUDA"), {"Precision": "mixed"})
        context.setPositions(positions)
        context.setVelocitiesToTemperature(300 * unit.kelvin, 1)
        integrator.step(args.steps)
        energy = context.getState(getEnergy=True).getPotentialEnergy()
        print(f"{force}: {args.steps} steps, potential energy {energy}", flush=True)
        del context, integrator


if __name__ == "__main__":
    main()
