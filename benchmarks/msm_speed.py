"""Multilevel summation (method "msm") against the direct sum: time and error side by side on the same machine.

Cases:
  dhfr    DHFR alone (5dfr_minimized.pdb, amber14 charges, hydrogens added), map over the protein + 0.5 nm at 0.1 nm
  water   the potential-map benchmark's water box (benchmarks/potentialmap_speed.py: TIP3P over a 10 nm cube, 99,444
          atoms, 200^3 points at 0.05 nm), open boundaries
  large   the solvated DHFR cube (5dfr_solv-cube_equil.pdb, amber14 + TIP3P charges) repeated n x n x m times to at
          least --large-atoms atoms, as one open (non-periodic) cluster; map spanning it at --large-spacing nm (0: 16
          points per edge, the default without a GPU, where the direct sum is slow)
  periodic  the solvated DHFR cube (23,558 atoms) in its periodic cell, the cell's map at 0.1 nm; the error against
          the NumPy Ewald sum (tests/python/ewald_sum.py) at 200 map points 0.15 nm or more from every charge
The direct sum (the oracle; on the GPU in float with compensated sums, ~1e-6 relative) runs on --direct-backend, MSM
on --msm-backend (both cuda where there is a GPU, else cpu).  Each time is one call after a warm-up call (on the
GPU) on the same engine, the whole call: upload, every stage, download.  Error: relative RMS difference from the
direct sum.  Data from --data-dir (default ../shared/data); cases whose file is missing are skipped.

    python3 -m benchmarks.msm_speed [--cases dhfr water large periodic] [--accuracies 1e-3 1e-4] [--orders 5 3] [--json out.json]
"""
import argparse
import json
import os
import platform
import time

import numpy as np

from openmmnarumi import _potentialmap
from openmmnarumi.potentialmap.engine import createEngine


def structureCharges(path, forcefieldFiles, addHydrogens):
    """Positions (nm) and force-field charges (e) of a PDB file."""
    import openmm.app as app
    from openmmnarumi._system import chargesFromSystem
    pdb = app.PDBFile(path)
    forcefield = app.ForceField(*forcefieldFiles)
    modeller = app.Modeller(pdb.topology, pdb.positions)
    if addHydrogens:
        modeller.addHydrogens(forcefield)
    system = forcefield.createSystem(modeller.topology, nonbondedMethod=app.NoCutoff, constraints=None, rigidWater=False)
    positions = np.array([[v.x, v.y, v.z] for v in modeller.positions])
    box = modeller.topology.getPeriodicBoxVectors()
    edges = None if box is None else np.array([box[0][0]._value, box[1][1]._value, box[2][2]._value])
    return positions, chargesFromSystem(system), edges


def timedMap(lattice, positions, charges, method, backend, msmAccuracy=1e-3, msmOrder=5, box=None):
    engine = createEngine(lattice, charges, method, 1.2, "compensated", backend, msmAccuracy=msmAccuracy, msmOrder=msmOrder)
    if engine.backend == "cuda":
        engine.compute(positions, box)  # the warm-up: module load, allocations
    start = time.perf_counter()
    values = engine.compute(positions, box).astype(np.float64)
    return values, time.perf_counter() - start, engine.backend


def runCase(name, positions, charges, lattice, args, rows):
    reference, directSeconds, directBackend = timedMap(lattice, positions, charges, "direct", args.direct_backend)
    points = int(np.prod(lattice[2]))
    print(f"{name}: {len(charges)} atoms, {points} map points; direct ({directBackend}) {directSeconds:.3f} s", flush=True)
    rows.append(dict(case=name, atoms=len(charges), points=points, method="direct", backend=directBackend,
                     seconds=directSeconds, error=0.0))
    for order in args.orders:
        for accuracy in args.accuracies:
            values, seconds, backend = timedMap(lattice, positions, charges, "msm", args.msm_backend, accuracy, order)
            error = float(np.sqrt(np.mean((values - reference) ** 2) / np.mean(reference ** 2)))
            print(f"  msm order {order} ({backend}), accuracy {accuracy:g}: {seconds:.3f} s, relative RMS error {error:.2e}",
                  flush=True)
            rows.append(dict(case=name, atoms=len(charges), points=points, method="msm", backend=backend, order=order,
                             accuracy=accuracy, seconds=seconds, error=error))


def runPeriodicCase(name, positions, charges, box, args, rows):
    from tests.python.msm_error import exact_potential, far_points
    dims = np.ceil(np.diag(box) / 0.1).astype(int)
    lattice = ([0.0] * 3, np.diag(box) / dims, dims)
    axes = [lattice[1][d] * np.arange(dims[d]) for d in range(3)]
    points = np.stack(np.meshgrid(*axes, indexing="ij"), -1).transpose(2, 1, 0, 3).reshape(-1, 3)  # x fastest
    chosen = far_points(points, positions, box, 200)
    exact = exact_potential(points[chosen], positions, charges, box)
    print(f"{name}: {len(charges)} atoms, {len(points)} map points, periodic", flush=True)
    for order in args.orders:
        for accuracy in args.accuracies:
            values, seconds, backend = timedMap(lattice, positions, charges, "msm", args.msm_backend, accuracy, order, box)
            error = float(np.sqrt(np.mean((values.ravel()[chosen] - exact) ** 2) / np.mean(exact ** 2)))
            print(f"  msm order {order} ({backend}), accuracy {accuracy:g}: {seconds:.3f} s, relative RMS error {error:.2e}"
                  " (far points)", flush=True)
            rows.append(dict(case=name, atoms=len(charges), points=len(points), method="msm", backend=backend,
                             order=order, accuracy=accuracy, seconds=seconds, error=error))


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data-dir", default=os.path.join(os.path.dirname(__file__), "..", "..", "shared", "data"))
    parser.add_argument("--cases", nargs="+", choices=["dhfr", "water", "large", "periodic"],
                        default=["dhfr", "water", "large", "periodic"])
    parser.add_argument("--accuracies", type=float, nargs="+", default=[1e-3, 1e-4])
    parser.add_argument("--orders", type=int, nargs="+", choices=[3, 5], default=[5, 3],
                        help="MSM interpolation orders (5 quintic, 3 cubic)")
    parser.add_argument("--large-atoms", type=int, default=1_000_000)
    gpu = _potentialmap.cudaAvailable()
    parser.add_argument("--direct-backend", choices=["cuda", "cpu"], default="cuda" if gpu else "cpu")
    parser.add_argument("--msm-backend", choices=["cuda", "cpu"], default="cuda" if gpu else "cpu")
    parser.add_argument("--large-spacing", type=float, default=0.1 if gpu else 0.0,
                        help="map spacing of the large case in nm (0: 16 points per edge)")
    parser.add_argument("--json", help="write the rows to this file")
    args = parser.parse_args()
    rows = []
    protein = os.path.join(args.data_dir, "5dfr_minimized.pdb")
    if "dhfr" in args.cases and os.path.exists(protein):
        positions, charges, _ = structureCharges(protein, ["amber14-all.xml"], True)
        lo = positions.min(0) - 0.5
        dims = np.floor((positions.max(0) + 0.5 - lo) / 0.1).astype(int) + 1
        runCase("DHFR", positions, charges, (lo, [0.1] * 3, dims), args, rows)
    if "water" in args.cases:
        from benchmarks.potentialmap_speed import water_box
        positions, charges = water_box()
        runCase("water 10 nm", positions, charges, ([0.0] * 3, [0.05] * 3, [200] * 3), args, rows)
    solvated = os.path.join(args.data_dir, "5dfr_solv-cube_equil.pdb")
    if "large" in args.cases and os.path.exists(solvated):
        positions, charges, edges = structureCharges(solvated, ["amber14-all.xml", "amber14/tip3p.xml"], False)
        copies = int(np.ceil(args.large_atoms / len(charges)))
        n = int(np.ceil(copies ** (1 / 3)))
        shape = (n, n, int(np.ceil(copies / (n * n))))
        shifts = np.array([[i, j, k] for i in range(shape[0]) for j in range(shape[1]) for k in range(shape[2])]) * edges
        tiled = (positions[None, :, :] + shifts[:, None, :]).reshape(-1, 3)
        tiledCharges = np.tile(charges, len(shifts))
        lo, hi = tiled.min(0), tiled.max(0)
        if args.large_spacing > 0:
            dims = np.floor((hi - lo) / args.large_spacing).astype(int) + 1
            lattice = (lo, [args.large_spacing] * 3, dims)
        else:
            lattice = (lo, (hi - lo) / 15, [16, 16, 16])
        runCase(f"solvated DHFR x {len(shifts)} ({shape[0]}x{shape[1]}x{shape[2]})", tiled, tiledCharges, lattice, args, rows)
    if "periodic" in args.cases and os.path.exists(solvated):
        positions, charges, edges = structureCharges(solvated, ["amber14-all.xml", "amber14/tip3p.xml"], False)
        runPeriodicCase("solvated DHFR, periodic cube", positions, charges, np.diag(edges), args, rows)
    if args.json:
        with open(args.json, "w") as out:
            json.dump(dict(machine=platform.node(), cpus=os.cpu_count(), rows=rows), out, indent=1)


if __name__ == "__main__":
    main()
