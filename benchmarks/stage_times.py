#!/usr/bin/env python3
"""Stage times of NarumiNonbondedForce with the atoms held still, for comparing kernel variants.

    python3 -m benchmarks.stage_times [--data-dir DIR] [--water-atoms 100000 400000] [--steps 300] [--methods Narumi SingleFloat]
                                      [--martini complex 200k]

For DHFR (DIR/5dfr_solv-cube_equil.pdb, skipped when absent) and TIP3P boxes of about --water-atoms atoms, with the
system of benchmarks/nonbonded_speed.py (amber99sb + tip3p, CutoffPeriodic 1.0 nm reaction field, HBonds, hydrogen
mass 1.5 amu; mixed precision, CUDA platform), it runs --steps VerletIntegrator steps of 1e-9 ps with
NARUMI_DIAGNOSTICS=profile-stages, so the plugin prints the mean time of every stage when the Context is deleted.  The atoms
barely move, so every run, and every build of the kernels, sees the same neighbour tiles: differences between runs
are the kernels'.  The timer waits for each evaluation's events, so short stages include their launch latency.

--martini SIZES: the Martini bilayers of benchmarks/martini_speed.py (complex 11k, 200k, 1m beads; DIR/martini),
moving: for each size NarumiNonbondedForce with Martini's type table and with the per-particle stand-in, in turn and
twice, each 100 + --steps LangevinMiddleIntegrator steps of 20 fs from the same frame (the table's cost per stage).
"""
import argparse
import gc
import itertools
import os
import sys
import tempfile

import openmm
import openmm.unit as unit

import openmmnarumi
from benchmarks import martini_speed
from benchmarks.diagnostics import narumi_diagnostics
from benchmarks.nonbonded_speed import METHODS, create_system, dhfr, water_box  # one definition each
from studies.accuracy.accuracylib import accumulation_diagnostics, set_accumulation


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data-dir", default=os.path.join(os.path.dirname(__file__), "..", "..", "shared", "data"))
    parser.add_argument("--water-atoms", type=int, nargs="*", default=[])
    parser.add_argument("--steps", type=int, default=300)
    parser.add_argument("--methods", nargs="+", default=["Narumi"], choices=METHODS,
                        help="NarumiNonbondedForce's accumulation methods to run (default Narumi)")
    parser.add_argument("--martini", nargs="*", default=[], choices=list(martini_speed.SIZES),
                        help="Martini bilayers instead: the type table against per-particle parameters")
    args = parser.parse_args()
    if args.martini:
        return martini_stages(args.data_dir, args.martini, args.steps)
    systems = [s for s in [dhfr(args.data_dir)] if s is not None] + [water_box(n) for n in args.water_atoms]
    if not systems:
        parser.error("no system: DHFR's PDB is not in --data-dir and no --water-atoms given")
    for (name, topology, positions), method in itertools.product(systems, args.methods):
        system = create_system(topology)
        openmmnarumi.replaceNonbondedForces(system)
        set_accumulation(system, method)
        integrator = openmm.VerletIntegrator(1e-9 * unit.picosecond)
        with narumi_diagnostics("profile-stages", accumulation_diagnostics(method)):
            context = openmm.Context(system, integrator, openmm.Platform.getPlatformByName("CUDA"), {"Precision": "mixed"})
        context.setPositions(positions)
        print(f"{name}, {topology.getNumAtoms()} atoms, {method}:", flush=True)
        integrator.step(args.steps)
        del context, integrator  # prints the stage times
        gc.collect()


def martini_stages(data_dir, sizes, steps):
    """Stage times of the table and per-particle routes of martini_speed on each bilayer, in turn, twice."""
    if not martini_speed.has_data(data_dir):
        print(f"no Martini data in {data_dir}/martini: nothing to measure")
        return 0
    with tempfile.TemporaryDirectory() as work:
        for size in sizes:
            inputs = martini_speed.load(data_dir, size, work)
            table = martini_speed.type_table(inputs.nonbondedForce)
            for route in ("narumi-table", "narumi-particle") * 2:
                system, _ = martini_speed.route_system(inputs, route, table)
                with narumi_diagnostics("profile-stages"):
                    context, integrator = martini_speed.make_context(system, inputs, "CUDA", "mixed", 20, 1)
                print(f"Martini {size}, {system.getNumParticles()} beads, {table[1]} type classes, {route}:", flush=True)
                integrator.step(100 + steps)
                context.getState(getEnergy=True)
                del context, integrator  # prints the stage times
                gc.collect()
    return 0


if __name__ == "__main__":
    sys.exit(main())
