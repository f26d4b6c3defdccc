#!/usr/bin/env python3
"""How often a padded neighbour list kept over steps (OpenMM's way) would be rebuilt: steps until some atom has moved
more than half the padding since the last rebuild.

    python3 benchmarks/list_rebuild_interval.py [--data-dir DIR] [--paddings 0.08 0.1 0.05] [--steps 150] [--platform CPU]

On benchmarks/nonbonded_speed.py's DHFR system (amber99sb + tip3p, CutoffPeriodic 1.0 nm RF, HBonds, hydrogen mass
1.5 amu, LangevinMiddleIntegrator 4 fs at 300 K) after minimization and 200 steps, it runs --steps steps per padding
and prints the mean interval and the intervals seen.  Needs no GPU.
"""
import argparse
import os
import sys

import numpy as np
import openmm
import openmm.unit as unit

from nonbonded_speed import create_system, dhfr


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data-dir", default=os.path.join(os.path.dirname(__file__), "..", "..", "shared", "data"))
    parser.add_argument("--paddings", type=float, nargs="+", default=[0.08, 0.1, 0.05])
    parser.add_argument("--steps", type=int, default=150)
    parser.add_argument("--platform", default="CPU")
    args = parser.parse_args()
    found = dhfr(args.data_dir)
    if found is None:
        sys.exit(f"{os.path.join(args.data_dir, '5dfr_solv-cube_equil.pdb')} not found (--data-dir)")
    _, topology, positions = found
    integrator = openmm.LangevinMiddleIntegrator(300 * unit.kelvin, 1 / unit.picosecond, 4 * unit.femtosecond)
    context = openmm.Context(create_system(topology), integrator, openmm.Platform.getPlatformByName(args.platform))
    context.setPositions(positions)
    context.setVelocitiesToTemperature(300 * unit.kelvin, 1)
    openmm.LocalEnergyMinimizer.minimize(context, 10, 200)
    integrator.step(200)

    def current():
        return context.getState(getPositions=True).getPositions(asNumpy=True).value_in_unit(unit.nanometer)

    for padding in args.paddings:
        built, since, intervals = current(), 0, []
        for _ in range(args.steps):
            integrator.step(1)
            since += 1
            now = current()
            if np.sqrt(((now - built) ** 2).sum(1)).max() > padding / 2:
                intervals.append(since)
                built, since = now, 0
        print(f"padding {padding} nm: steps between rebuilds {np.mean(intervals):.2f} (n={len(intervals)}) {intervals[:20]}", flush=True)


if __name__ == "__main__":
    main()
