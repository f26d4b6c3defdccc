#!/usr/bin/env python3
"""Determinism: two runs from the same state, bitwise comparison of the positions after --steps steps.

The DHFR water box as in nve.py (1.0 nm RF, rigid water + HBonds, VerletIntegrator 2 fs).  One state (minimized,
velocities from seed 1) is saved; for each variant two fresh Contexts start from it and run --steps steps; the
positions (as the State returns them, float64) and the forces are compared bit for bit.
"""
import argparse
import datetime
import json
import os
import sys

import numpy as np
import openmm
import openmm.unit as unit

from benchmarks.reporting import gpu_names, write_report  # the benchmarks' and studies' one report writer
from studies.accuracy.nve import build_system

VARIANTS = [("narumi", "single"), ("narumi", "mixed"), ("narumi", "double"), ("narumi-single", "mixed"),
            ("openmm", "single"), ("openmm", "mixed"), ("openmm", "double")]


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data-dir", default=os.path.join(os.path.dirname(__file__), "..", "..", "..", "shared", "data"))
    parser.add_argument("--platform", default="CUDA")
    parser.add_argument("--steps", type=int, default=2000)
    parser.add_argument("--variants", nargs="*", default=[f"{f}:{p}" for f, p in VARIANTS])
    parser.add_argument("--json", default="determinism.json")
    parser.add_argument("--markdown", default="determinism.md")
    args = parser.parse_args()
    if not os.path.exists(os.path.join(args.data_dir, "5dfr_solv-cube_equil.pdb")):
        raise SystemExit(f"no data in {args.data_dir}")
    start = None
    rows = []
    for variant in args.variants:
        force, precision = variant.split(":")
        pdb, system = build_system(args.data_dir, force, 1e-6)
        props = {"Precision": precision} if args.platform in ("CUDA", "OpenCL") else {}
        if start is None:  # one starting state for every variant
            c = openmm.Context(system, openmm.VerletIntegrator(0.002), openmm.Platform.getPlatformByName(args.platform), props)
            c.setPositions(pdb.positions)
            openmm.LocalEnergyMinimizer.minimize(c, 10.0, 100)
            c.setVelocitiesToTemperature(300 * unit.kelvin, 1)
            start = c.getState(getPositions=True, getVelocities=True)
            del c
        results = []
        for _ in range(2):
            integrator = openmm.VerletIntegrator(0.002)
            integrator.setConstraintTolerance(1e-6)
            context = openmm.Context(system, integrator, openmm.Platform.getPlatformByName(args.platform), props)
            context.setState(start)
            integrator.step(args.steps)
            s = context.getState(getPositions=True, getForces=True, getEnergy=True)
            results.append((np.array(s.getPositions(asNumpy=True).value_in_unit(unit.nanometer)),
                            np.array(s.getForces(asNumpy=True).value_in_unit(unit.kilojoule_per_mole / unit.nanometer)),
                            s.getPotentialEnergy().value_in_unit(unit.kilojoule_per_mole)))
            del context
        (p1, f1, e1), (p2, f2, e2) = results
        row = dict(force=force, precision=precision, steps=args.steps,
                   positions_identical=bool(np.array_equal(p1.view(np.int64), p2.view(np.int64))),
                   forces_identical=bool(np.array_equal(f1.view(np.int64), f2.view(np.int64))),
                   energy_identical=e1 == e2, max_position_diff_nm=float(np.abs(p1 - p2).max()),
                   atoms_differing=int((p1 != p2).any(1).sum()))
        rows.append(row)
        print(json.dumps(row), flush=True)
    meta = dict(command="python3 -m studies.accuracy.determinism " + " ".join(sys.argv[1:]),
                date=datetime.date.today().isoformat(), platform=args.platform, gpu=gpu_names() or None)
    lines = [f"`{meta['command']}` on {meta['gpu'] or args.platform}, {meta['date']}", "",
             "| force | precision | steps | positions bitwise identical | forces identical | energy identical | "
             "max position difference (nm) | atoms differing |", "| --- | --- | --- | --- | --- | --- | --- | --- |"]
    lines += [f"| {r['force']} | {r['precision']} | {r['steps']} | {r['positions_identical']} | {r['forces_identical']} | "
              f"{r['energy_identical']} | {r['max_position_diff_nm']:.2e} | {r['atoms_differing']} |" for r in rows]
    write_report(lines, args.markdown, args.json, dict(meta=meta, results=rows))


if __name__ == "__main__":
    main()
