"""Potential-map speed and accuracy: the paper's cutoff case and direct Coulomb summation (DCS) throughput.

Cases (Rodrigues et al. 2008, Table 2 and 4; Stone's DCS lecture):
  cutoff: a TIP3P water box filling a 10 nm cube (~99,000 atoms; the paper's had 96,603), lattice 200^3 at 0.05 nm
          (0.5 A) over the cube, cutoff 1.2 nm (12 A), non-periodic like the paper (and, with --periodic, periodic).
  dcs:    the same atoms, direct summation onto a 256 x 256 x 16 lattice at 0.04 nm: throughput in atom evaluations
          per second (lattice points x atoms / kernel time).
Accuracy is the paper's Table 2 measure against a float64 reference computed independently with CuPy on the GPU
(or NumPy on the CPU for a subset of planes): max |V - V_ref| / |V_ref| over points with |V_ref| > 1e-4 e/A
(= 0.1389 kJ/mol/e), where e/A is the paper's unit (charge over distance in Angstrom, no Coulomb constant).

    python3 -m benchmarks.potentialmap_speed --backend cuda --cases cutoff dcs
    python3 -m benchmarks.potentialmap_speed --backend cpu --cases cutoff --repeats 1
"""
import argparse
import json
import os
import platform
import statistics
import time

import numpy as np

from openmmnarumi import _potentialmap
from openmmnarumi import COULOMB_CONSTANT

PAPER_THRESHOLD = 1e-4 * 10 * COULOMB_CONSTANT   # 1e-4 e/A in kJ/mol/e
TIP3P_CHARGES = {"O": -0.834, "H": 0.417}


def water_box(edge_nm=10.0):
    """TIP3P water filling [0, edge)^3: OpenMM's equilibrated 3 nm box tiled, whole molecules with O inside."""
    import openmm.app as app
    import openmm.unit as unit
    path = os.path.join(os.path.dirname(app.__file__), "data", "tip3p.pdb")
    pdb = app.PDBFile(path)
    cell = pdb.topology.getPeriodicBoxVectors()[0][0].value_in_unit(unit.nanometer)
    xyz = np.array(pdb.getPositions(asNumpy=True).value_in_unit(unit.nanometer)).reshape(-1, 3, 3)  # O H H
    copies = int(np.ceil(edge_nm / cell))
    shifts = np.stack(np.meshgrid(*[np.arange(copies)] * 3, indexing="ij"), -1).reshape(-1, 3) * cell
    molecules = (xyz[None] + shifts[:, None, None, :]).reshape(-1, 3, 3)
    keep = np.all((molecules[:, 0, :] >= 0) & (molecules[:, 0, :] < edge_nm), axis=1)
    molecules = molecules[keep]
    positions = molecules.reshape(-1, 3)
    charges = np.tile([TIP3P_CHARGES["O"], TIP3P_CHARGES["H"], TIP3P_CHARGES["H"]], len(molecules))
    return positions, charges


def lattice_points(origin, spacing, dims, planes):
    """Coordinates of the points of the given z planes, shape (len(planes), ny, nx, 3)."""
    x = origin[0] + spacing[0] * np.arange(dims[0])
    y = origin[1] + spacing[1] * np.arange(dims[1])
    return x, y, [origin[2] + spacing[2] * k for k in planes]


def reference_planes(positions, charges, origin, spacing, dims, planes, cutoff, box, xp):
    """float64 reference for whole z planes: shape (len(planes), ny, nx), kJ/mol/e.  xp is cupy or numpy."""
    pos = xp.asarray(positions)
    q = xp.asarray(charges)
    x, y, zs = lattice_points(origin, spacing, dims, planes)
    x = xp.asarray(x)
    out = np.zeros((len(planes), dims[1], dims[0]))
    rows = 16 if cutoff else max(1, int(3e7 // (dims[0] * len(charges))))  # bounds the temporaries to a few GB
    for p, z in enumerate(zs):
        dz_all = pos[:, 2] - z
        if box is not None:
            dz_all = dz_all - box[2] * xp.rint(dz_all / box[2])
        near_plane = xp.abs(dz_all) < (cutoff if cutoff else np.inf)
        for row0 in range(0, dims[1], rows):
            yrows = xp.asarray(y[row0:row0 + rows])
            dy_all = pos[:, 1][None, :] - yrows[:, None]
            if box is not None:
                dy_all = dy_all - box[1] * xp.rint(dy_all / box[1])
            if cutoff:
                select = near_plane & xp.any(xp.abs(dy_all) < cutoff, axis=0)
            else:
                select = xp.ones(len(charges), dtype=bool)
            idx = xp.nonzero(select)[0]
            dxa = pos[idx, 0][None, :] - x[:, None]                        # (nx, m)
            if box is not None:
                dxa = dxa - box[0] * xp.rint(dxa / box[0])
            r2 = (dxa ** 2)[None, :, :] + (dy_all[:, idx] ** 2)[:, None, :] + (dz_all[idx] ** 2)[None, None, :]
            r = xp.sqrt(r2)
            if cutoff:
                term = xp.where((r < cutoff) & (r >= 1e-3), q[idx] * (1 - r2 / cutoff ** 2) ** 2 / xp.maximum(r, 1e-3), 0.0)
            else:
                term = xp.where(r >= 1e-3, q[idx] / xp.maximum(r, 1e-3), 0.0)
            values = COULOMB_CONSTANT * term.sum(axis=2)
            out[p, row0:row0 + rows, :] = values.get() if hasattr(values, "get") else values
    return out


def errors(map_planes, reference):
    mask = np.abs(reference) > PAPER_THRESHOLD
    relative = np.abs(map_planes[mask] - reference[mask]) / np.abs(reference[mask])
    absolute = np.abs(map_planes - reference)
    return {"max_relative_percent": 100 * float(relative.max()), "points_compared": int(mask.sum()),
            "max_absolute_kJ_mol_e": float(absolute.max()), "max_absolute_e_per_A": float(absolute.max() / (10 * COULOMB_CONSTANT))}


def time_engine(engine, positions, box, repeats):
    engine.compute(positions, box)  # warm-up: module load, allocations, first launch
    walls, stages = [], []
    for _ in range(repeats):
        start = time.perf_counter()
        result = engine.compute(positions, box)
        walls.append(time.perf_counter() - start)
        stages.append(engine.timings)
    median = {key: statistics.median(s[key] for s in stages) for key in stages[0]}
    return result, statistics.median(walls), median


def get_xp(kind):
    if kind == "cupy":
        try:
            import cupy
            cupy.zeros(1)
            return cupy
        except Exception as error:  # noqa: BLE001
            print(f"# cupy unavailable ({error}); falling back to numpy")
    return np if kind != "none" else None


def run_cutoff(args, positions, charges, xp, results):
    dims = [200, 200, 200]
    origin, spacing = [0.0, 0.0, 0.0], [0.05, 0.05, 0.05]
    box = np.diag([10.0, 10.0, 10.0]) if args.periodic else None
    planes = list(range(0, 200, args.plane_stride))
    reference = None
    for accumulation in args.accumulations:
        engine = _potentialmap.Engine(origin, spacing, dims, charges, method="cutoff", cutoff=1.2, accumulation=accumulation,
                                      backend=args.backend, cpuThreads=args.threads)
        result, wall, stages = time_engine(engine, positions, box, args.repeats)
        gpu_map_seconds = stages.get("binning", 0.0) + stages["map"]
        row = {"case": "cutoff" + (" periodic" if args.periodic else ""), "backend": engine.backend, "accumulation": accumulation,
               "atoms": len(charges), "points": int(np.prod(dims)), "wall_s": wall, "stages_s": stages,
               "binning_plus_map_s": gpu_map_seconds}
        if xp is not None:
            if reference is None:
                start = time.perf_counter()
                reference = reference_planes(positions, charges, origin, spacing, dims, planes, 1.2, None if box is None else np.diag(box), xp)
                print(f"# float64 reference ({len(planes)} planes) took {time.perf_counter() - start:.1f} s", flush=True)
            row.update(errors(np.asarray(result)[planes], reference))
            row["planes_compared"] = len(planes)
        results.append(row)
        print(json.dumps(row), flush=True)


def run_dcs(args, positions, charges, xp, results):
    dims = list(args.dcs_dims)
    origin, spacing = [0.0, 0.0, 4.7], [0.04, 0.04, 0.04]
    planes = [0, dims[2] - 1]
    reference = None
    variants = [(acc, soft) for acc in args.accumulations for soft in ((0, 2, 4, 6) if args.backend == "cuda" else (-1,))]
    for accumulation, soft in variants:
        engine = _potentialmap.Engine(origin, spacing, dims, charges, method="direct", accumulation=accumulation,
                                      backend=args.backend, cpuThreads=args.threads, directSoftwareRsqrt=soft)
        result, wall, stages = time_engine(engine, positions, None, args.repeats)
        evaluations = float(np.prod(dims)) * len(charges)
        row = {"case": "dcs", "backend": engine.backend, "accumulation": accumulation, "software_rsqrt_of_16": soft,
               "atoms": len(charges), "points": int(np.prod(dims)), "wall_s": wall, "stages_s": stages,
               "atom_evaluations_per_s": evaluations / stages["map"]}
        if xp is not None and (soft in (-1, 0, 4) or accumulation == "compensated"):
            if reference is None:
                reference = reference_planes(positions, charges, origin, spacing, dims, planes, None, None, xp)
            row.update(errors(np.asarray(result)[planes], reference))
            row["planes_compared"] = len(planes)
        results.append(row)
        print(json.dumps(row), flush=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--backend", choices=["cuda", "cpu"], default="cuda")
    parser.add_argument("--cases", nargs="+", choices=["cutoff", "dcs"], default=["cutoff", "dcs"])
    parser.add_argument("--accumulations", nargs="+", choices=["compensated", "narumi", "float"],
                        default=["compensated", "narumi", "float"])
    parser.add_argument("--repeats", type=int, default=10)
    parser.add_argument("--threads", type=int, default=0, help="CPU backend threads (0: all)")
    parser.add_argument("--periodic", action="store_true", help="cutoff case with the 10 nm periodic box")
    parser.add_argument("--oracle", choices=["cupy", "numpy", "none"], default="cupy")
    parser.add_argument("--plane-stride", type=int, default=1, help="compare every n-th z plane of the cutoff map")
    parser.add_argument("--dcs-dims", type=int, nargs=3, default=[256, 256, 16])
    parser.add_argument("--json", help="write all rows to this file")
    args = parser.parse_args()
    positions, charges = water_box()
    print(f"# water box: {len(charges)} atoms in a 10 nm cube; {platform.node()}; backend {args.backend}", flush=True)
    xp = get_xp(args.oracle)
    results = []
    if "cutoff" in args.cases:
        run_cutoff(args, positions, charges, xp, results)
    if "dcs" in args.cases:
        run_dcs(args, positions, charges, xp, results)
    print("\n| case | backend | accumulation | rsqrt on FMA (of 16) | wall (ms) | GPU binning+map / map (ms) | rate | max rel. error (%) |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- |")
    for row in results:
        stage = row.get("binning_plus_map_s", row["stages_s"]["map"])
        rate = f"{row['atom_evaluations_per_s'] / 1e9:.4g} G evals/s" if "atom_evaluations_per_s" in row else ""
        error = f"{row['max_relative_percent']:.3g}" if "max_relative_percent" in row else "not computed"
        print(f"| {row['case']} | {row['backend']} | {row['accumulation']} | {row.get('software_rsqrt_of_16', '')} | "
              f"{1e3 * row['wall_s']:.2f} | {1e3 * stage:.3f} | {rate} | {error} |")
    if args.json:
        with open(args.json, "w") as out:
            json.dump(results, out, indent=1)


if __name__ == "__main__":
    main()
