#!/usr/bin/env python3
"""How often a padded neighbour list kept over steps (OpenMM's way) would be rebuilt: steps until some atom has moved
more than half the padding since the last rebuild.

    python3 -m benchmarks.list_rebuild_interval [--data-dir DIR] [--system dhfr] [--paddings 0.08 0.1 0.05]
        [--steps 150] [--warmup 200] [--timestep 4fs-hmr] [--platform CPU] [--pair-rule]

On one of benchmarks/nonbonded_speed.py's systems (default its DHFR box: amber99sb + tip3p, CutoffPeriodic 1.0 nm RF,
HBonds; at 4 fs with hydrogen mass 1.5 amu, or at 2 fs without), with a LangevinMiddleIntegrator at 300 K, after
minimization and --warmup steps, it runs --steps steps per padding and prints the mean interval and the intervals seen.
--pair-rule also follows, on the same steps, the finest test a kernel with the list could make instead: rebuild only
when two atoms within the cutoff plus twice the padding of each other at the build have moved more than the padding
together, or one atom more than the padding (an unlisted pair was farther than the cutoff plus the padding apart at
the build, so only then can it have come within the cutoff).  A test by blocks of atoms can only rebuild more often
than this one.  Needs no GPU.
"""
import argparse
import os
import sys

import numpy as np
import openmm
import openmm.unit as unit
from scipy.spatial import cKDTree

from benchmarks.nonbonded_speed import SYSTEMS, build, create_system

CUTOFF = 1.0  # nm, create_system's


class PairRule:
    """The pair test: positions and a periodic k-d tree of the build; due() after each step."""

    def __init__(self, positions, box_edges, padding):
        self.padding, self.box_edges = padding, box_edges
        self.rebuild(positions)

    def rebuild(self, positions):
        self.built = positions.copy()
        self.tree = cKDTree(np.mod(positions, self.box_edges), boxsize=self.box_edges)

    def due(self, positions):
        moved = np.sqrt(((positions - self.built) ** 2).sum(1))
        if moved.max() > self.padding:
            return True
        # d_i + d_j > padding needs one of them above half the padding
        for i in np.flatnonzero(moved > self.padding / 2):
            near = self.tree.query_ball_point(np.mod(self.built[i], self.box_edges), CUTOFF + 2 * self.padding)
            others = [j for j in near if j != i]
            if others and moved[i] + moved[others].max() > self.padding:
                return True
        return False


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data-dir", default=os.path.join(os.path.dirname(__file__), "..", "..", "shared", "data"))
    parser.add_argument("--system", default="dhfr", choices=SYSTEMS)
    parser.add_argument("--paddings", type=float, nargs="+", default=[0.08, 0.1, 0.05])
    parser.add_argument("--steps", type=int, default=150)
    parser.add_argument("--warmup", type=int, default=200, help="steps after the minimization, before the count")
    parser.add_argument("--timestep", default="4fs-hmr", choices=["4fs-hmr", "2fs"])
    parser.add_argument("--platform", default="CPU")
    parser.add_argument("--pair-rule", action="store_true", help="also the test by pairs of atoms near each other")
    args = parser.parse_args()
    if args.steps < 1 or args.warmup < 0 or min(args.paddings) <= 0:
        parser.error(f"--steps must be at least 1, --warmup at least 0 and every padding positive (not {args.steps}, "
                     f"{args.warmup}, {args.paddings})")
    found = build(args.system, args.data_dir)
    if found is None:
        sys.exit(f"the PDB of {args.system} is not in {args.data_dir} (--data-dir)")
    name, topology, positions = found
    step_fs, hydrogen_mass = (4, 1.5) if args.timestep == "4fs-hmr" else (2, None)
    box = topology.getPeriodicBoxVectors()
    box_edges = np.array([box[k][k].value_in_unit(unit.nanometer) for k in range(3)]) if box is not None else None
    if args.pair_rule and (box is None or any(box[a][b] != 0 * unit.nanometer for a in range(3) for b in range(3) if a != b)):
        sys.exit(f"--pair-rule needs a rectangular periodic box; {name} has another")
    integrator = openmm.LangevinMiddleIntegrator(300 * unit.kelvin, 1 / unit.picosecond, step_fs * unit.femtosecond)
    context = openmm.Context(create_system(topology, hydrogen_mass), integrator, openmm.Platform.getPlatformByName(args.platform))
    context.setPositions(positions)
    context.setVelocitiesToTemperature(300 * unit.kelvin, 1)
    openmm.LocalEnergyMinimizer.minimize(context, 10, 200)
    integrator.step(args.warmup)
    print(f"{name}, {topology.getNumAtoms()} atoms, {args.timestep}:", flush=True)

    def current():
        return context.getState(getPositions=True).getPositions(asNumpy=True).value_in_unit(unit.nanometer)

    for padding in args.paddings:
        built, since, intervals = current(), 0, []
        pair_rule = PairRule(built, box_edges, padding) if args.pair_rule else None
        pair_since, pair_intervals = 0, []
        for _ in range(args.steps):
            integrator.step(1)
            since, pair_since = since + 1, pair_since + 1
            now = current()
            if np.sqrt(((now - built) ** 2).sum(1)).max() > padding / 2:
                intervals.append(since)
                built, since = now, 0
            if pair_rule is not None and pair_rule.due(now):
                pair_intervals.append(pair_since)
                pair_rule.rebuild(now)
                pair_since = 0
        print(f"padding {padding} nm: steps between rebuilds {np.mean(intervals):.2f} (n={len(intervals)}) {intervals[:20]}", flush=True)
        if pair_rule is not None:
            print(f"padding {padding} nm, pair test: steps between rebuilds {np.mean(pair_intervals):.2f} (n={len(pair_intervals)}) "
                  f"{pair_intervals[:20]}", flush=True)


if __name__ == "__main__":
    main()
