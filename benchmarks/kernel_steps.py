#!/usr/bin/env python3
"""A few DHFR MD steps with each nonbonded force, as the workload of a kernel profiler.

    ncu --kernel-name regex:'computeTiles|computeNonbonded' python3 -m benchmarks.kernel_steps [--data-dir DIR]
        [--water-atoms N] [--method TileSums]

Builds benchmarks/nonbonded_speed.py's DHFR system (amber99sb + tip3p, CutoffPeriodic 1.0 nm reaction field,
HBonds, hydrogen mass 1.5 amu; mixed precision) and runs --steps LangevinMiddleIntegrator steps (1 fs, so that the
unminimized start stays sane) first with OpenMM's NonbondedForce, then with NarumiNonbondedForce, so that one
profiler run sees both forces' kernels on the same positions.  --forces picks one or both.  --water-atoms N takes
nonbonded_speed.py's TIP3P box of about N atoms instead of DHFR; --method is NarumiNonbondedForce's accumulation
method (default Narumi).
"""
import argparse
import os
import sys

import openmm
import openmm.unit as unit

import openmmnarumi
from benchmarks.nonbonded_speed import METHODS, create_system, dhfr, water_box
from studies.accuracy.accuracylib import DIAGNOSTIC_METHODS


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data-dir", default=os.path.join(os.path.dirname(__file__), "..", "..", "shared", "data"))
    parser.add_argument("--steps", type=int, default=12)
    parser.add_argument("--forces", nargs="*", default=["openmm", "narumi"], choices=["openmm", "narumi"])
    parser.add_argument("--water-atoms", type=int, help="a TIP3P box of about this many atoms instead of DHFR")
    # The methods a force can be given (the diagnostics' C-E need NARUMI_DIAGNOSTICS instead).
    parser.add_argument("--method", default="Narumi", choices=[m for m in METHODS if m not in DIAGNOSTIC_METHODS])
    args = parser.parse_args()
    found = water_box(args.water_atoms) if args.water_atoms is not None else dhfr(args.data_dir)
    if found is None:
        sys.exit(f"{os.path.join(args.data_dir, '5dfr_solv-cube_equil.pdb')} not found (--data-dir)")
    _, topology, positions = found
    for force in args.forces:
        system = create_system(topology)
        if force == "narumi":
            openmmnarumi.replaceNonbondedForces(system, accumulationMethod=getattr(openmmnarumi.NarumiNonbondedForce, args.method))
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
