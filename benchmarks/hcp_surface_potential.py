"""Speed and accuracy of the HCP surface potential (openmmnarumi.hcp) at the sizes of Daga et al.'s Table III.

The paper's structures (1MBO H helix, 1KX5 nucleosome, 2EU1 GroEL, 1A6C virus capsid) are not in this repository;
structures of the same sizes are built from DHFR (../shared/data/5dfr_minimized.pdb, 2489 atoms with hydrogens,
amber14 charges):
  helix       the first 24 residues of DHFR                            (~380 atoms,    ~5.9k vertices)
  nucleosome  10 DHFR copies as 10 chains in two rings of 5, one complex  (24,890 atoms, ~259k vertices)
  groel       44 copies as 44 chains in 4 stacked rings of 11, a complex per ring (109,516 atoms, ~899k vertices)
  capsid      191 copies as 191 chains on a spherical shell, 12 complexes around the icosahedron's vertices
              (475,399 atoms, ~594k vertices)
Copies are turned at random (seeded) and their centres are 4.6 nm apart.  Vertices are solvent-accessible
Shrake-Rupley points (probe 1.4 A) at the density that gives the paper's vertex count.

For each structure: the CUDA backend exact and HCP (median of --repeats calls after a warm-up; the kernel time by
CUDA events, and the whole call), the CPU backend HCP and, where atoms x vertices <= --cpu-exact-limit, exact; the
relative RMS error of each against the double-precision exact sum (the CPU backend) on --accuracy-points vertices
drawn at random.  HCP thresholds 10 A / 70 A / 150 A, eps_in 1, eps_out 80.

    python3 -m benchmarks.hcp_surface_potential --data-dir ../shared/data --markdown hcp_benchmark.md
"""
import argparse
import json
import os
import platform
import statistics
import sys
import time

import numpy as np

from openmmnarumi import hcp
from benchmarks.reporting import gpu_names, write_report

# Daga et al., Tables II and III (GTX 280): atoms, vertices, GPU exact (s), GPU HCP (s).
PAPER = {
    "helix": ("1MBO H helix", 382, 5884, 0.06, 0.05),
    "nucleosome": ("1KX5 nucleosome", 25086, 258797, 3.30, 0.24),
    "groel": ("2EU1 GroEL", 109802, 898584, 53.0, 1.24),
    "capsid": ("1A6C capsid", 476040, 593615, 150.0, 0.89),
}
PAPER_HCP_ERROR = {"helix": 0.236, "nucleosome": 0.0229, "groel": 0.0088, "capsid": 0.0153}  # Table IV, GPU with HCP
SPACING = 4.6  # nm between copy centres


def random_rotation(rng):
    q, r = np.linalg.qr(rng.normal(size=(3, 3)))
    q *= np.sign(np.diag(r))
    return q if np.linalg.det(q) > 0 else -q


def ring(count, radius, z):
    angles = 2 * np.pi * np.arange(count) / count
    return np.stack([radius * np.cos(angles), radius * np.sin(angles), np.full(count, z)], axis=1)


def fibonacci_sphere(count, radius):
    k = np.arange(count) + 0.5
    z = 1 - 2 * k / count
    rho = np.sqrt(1 - z * z)
    phi = np.pi * (3 - np.sqrt(5)) * k
    return radius * np.stack([rho * np.cos(phi), rho * np.sin(phi), z], axis=1)


def icosahedron_vertices():
    g = (1 + np.sqrt(5)) / 2
    v = [(0, s1, s2 * g) for s1 in (-1, 1) for s2 in (-1, 1)]
    v += [(s1, s2 * g, 0) for s1 in (-1, 1) for s2 in (-1, 1)]
    v += [(s2 * g, 0, s1) for s1 in (-1, 1) for s2 in (-1, 1)]
    v = np.array(v, dtype=float)
    return v / np.linalg.norm(v, axis=1, keepdims=True)


def layout(name):
    """Copy centres (nm) and the complex of each copy."""
    if name == "nucleosome":
        radius = SPACING / (2 * np.sin(np.pi / 5))
        centers = np.concatenate([ring(5, radius, -SPACING / 2), ring(5, radius, SPACING / 2)])
        return centers, np.zeros(10, dtype=int)
    if name == "groel":
        radius = SPACING / (2 * np.sin(np.pi / 11))
        centers = np.concatenate([ring(11, radius, SPACING * (k - 1.5)) for k in range(4)])
        return centers, np.repeat(np.arange(4), 11)
    if name == "capsid":
        centers = fibonacci_sphere(191, SPACING * np.sqrt(191 / (4 * np.pi)) * 1.05)
        complexes = np.argmax(centers @ icosahedron_vertices().T, axis=1)
        return centers, complexes
    raise ValueError(name)


def build(name, dhfr):
    topology, positions, charges = dhfr
    centered = positions - positions.mean(axis=0)
    if name == "helix":
        import openmm.app as app
        residues = list(topology.residues())[:24]
        atoms = [a.index for r in residues for a in r.atoms()]
        helix = app.Topology()
        chain = helix.addChain()
        for r in residues:
            new = helix.addResidue(r.name, chain, r.id)
            for a in r.atoms():
                helix.addAtom(a.name, a.element, new)
        return helix, centered[atoms], charges[atoms], [0]
    centers, complexes = layout(name)
    rng = np.random.default_rng(2026)
    transforms = [(random_rotation(rng), c) for c in centers]
    assembly, assembly_positions = hcp.assembleCopies(topology, centered, transforms)
    return assembly, assembly_positions, np.tile(charges, len(centers)), complexes


def surface_for(positions, radii, target):
    trial = hcp.surfacePoints(positions, radii, 0.14, 100.0)
    return hcp.surfacePoints(positions, radii, 0.14, 100.0 * target / len(trial))


def timed(function, repeats):
    function()  # warm-up: allocation, module load
    walls, device = [], []
    for _ in range(repeats):
        result = function()
        walls.append(result.seconds)
        device.append(result.deviceMilliseconds)
    return result, statistics.median(walls), statistics.median(device)


def relative_rms(actual, expected):
    return float(np.sqrt(np.sum((actual - expected) ** 2) / np.sum(expected ** 2)))


def run(name, dhfr, args):
    label, paper_atoms, paper_vertices, paper_exact, paper_hcp = PAPER[name]
    topology, positions, charges, complexes = build(name, dhfr)
    radii = hcp.atomicRadii(topology)
    start = time.perf_counter()
    surface = surface_for(positions, radii, paper_vertices)
    surface_seconds = time.perf_counter() - start
    row = {"structure": name, "paper": label, "atoms": len(charges), "chains": topology.getNumChains(),
           "complexes": int(len(set(complexes))), "vertices": len(surface), "surface_s": surface_seconds,
           "paper_exact_s": paper_exact, "paper_hcp_s": paper_hcp, "paper_hcp_error": PAPER_HCP_ERROR[name]}
    options = dict(complexes=complexes, soluteDielectric=1.0, solventDielectric=80.0)
    cpu = hcp.SurfacePotential(positions, charges, topology, backend="cpu", threads=args.threads, **options)
    row["A_nm"] = cpu.electrostaticSize
    rng = np.random.default_rng(1)
    sample = np.sort(rng.choice(len(surface), min(args.accuracy_points, len(surface)), replace=False))
    reference = cpu.compute(surface.points[sample], surface.offset, mode="exact").potentials
    row["accuracy_points"] = len(sample)
    results = {}
    if "cuda" in args.backends and hcp.cudaAvailable():
        gpu = hcp.SurfacePotential(positions, charges, topology, backend="cuda", **options)
        for mode in ("exact", "hcp"):
            result, wall, device = timed(lambda: gpu.compute(surface, mode=mode), args.repeats)
            row[f"gpu_{mode}_kernel_ms"] = device
            row[f"gpu_{mode}_call_s"] = wall
            row[f"gpu_{mode}_error"] = relative_rms(result.potentials[sample], reference)
            results[f"gpu_{mode}"] = result
        row["gpu_exact_pairs_per_s"] = len(charges) * len(surface) / (row["gpu_exact_kernel_ms"] * 1e-3)
    if "cpu" in args.backends:
        result, wall, _ = timed(lambda: cpu.compute(surface, mode="hcp"), args.cpu_repeats)
        row["cpu_hcp_s"] = wall
        row["cpu_hcp_error"] = relative_rms(result.potentials[sample], reference)
        if len(charges) * len(surface) <= args.cpu_exact_limit:
            result = cpu.compute(surface, mode="exact")
            row["cpu_exact_s"] = result.seconds
            results["cpu_exact"] = result
    if "gpu_exact" in results and "cpu_exact" in results:
        row["gpu_exact_error_all_points"] = relative_rms(results["gpu_exact"].potentials, results["cpu_exact"].potentials)
    return row


def fmt(value, digits=3):
    if value is None:
        return "n/a"
    return f"{value:.{digits}g}"


def markdown(rows, args):
    lines = [f"Command: `python3 -m benchmarks.hcp_surface_potential {' '.join(sys.argv[1:])}`", "",
             f"Machine: {platform.node()}, {os.cpu_count()} CPU threads; {args.device_name}", "",
             "| structure (paper's) | atoms | chains / complexes | vertices | A (A) | GPU exact: kernels ms (call s) | "
             "GPU HCP: kernels ms (call s) | CPU HCP s | CPU exact s | HCP rel. RMS error (GPU / CPU) | GPU exact rel. RMS | "
             "paper GTX 280 exact / HCP s (HCP error) |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        lines.append(
            f"| {r['structure']} ({r['paper']}) | {r['atoms']:,} | {r['chains']} / {r['complexes']} | {r['vertices']:,} | "
            f"{10 * r['A_nm']:.1f} | {fmt(r.get('gpu_exact_kernel_ms'))} ({fmt(r.get('gpu_exact_call_s'))}) | "
            f"{fmt(r.get('gpu_hcp_kernel_ms'))} ({fmt(r.get('gpu_hcp_call_s'))}) | {fmt(r.get('cpu_hcp_s'))} | "
            f"{fmt(r.get('cpu_exact_s'))} | {fmt(r.get('gpu_hcp_error'))} / {fmt(r.get('cpu_hcp_error'))} | "
            f"{fmt(r.get('gpu_exact_error'))} | {r['paper_exact_s']} / {r['paper_hcp_s']} ({r['paper_hcp_error']}) |")
    rates = [f"{r['structure']} {r['gpu_exact_pairs_per_s'] / 1e12:.2f}" for r in rows if "gpu_exact_pairs_per_s" in r]
    if rates:
        lines += ["", "GPU exact, atom-vertex pairs per second (T/s): " + ", ".join(rates)]
    lines += ["", f"Errors against the double-precision exact sum on up to {args.accuracy_points:,} random vertices "
              "per structure. 'n/a': not run (CPU exact above --cpu-exact-limit atom-vertex pairs, or no GPU)."]
    return lines


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data-dir", default=os.path.join(os.path.dirname(__file__), "..", "..", "shared", "data"))
    parser.add_argument("--sizes", nargs="+", default=["helix", "nucleosome", "groel", "capsid"], choices=list(PAPER))
    parser.add_argument("--backends", nargs="+", default=["cuda", "cpu"], choices=["cuda", "cpu"])
    parser.add_argument("--repeats", type=int, default=10, help="timed GPU calls (median)")
    parser.add_argument("--cpu-repeats", type=int, default=1, help="timed CPU HCP calls (median)")
    parser.add_argument("--threads", type=int, default=0, help="CPU backend threads (0: all)")
    parser.add_argument("--cpu-exact-limit", type=float, default=1e10, help="largest atoms x vertices for the CPU exact run")
    parser.add_argument("--accuracy-points", type=int, default=20000)
    parser.add_argument("--markdown", help="write the table here")
    parser.add_argument("--json", help="write all numbers here")
    args = parser.parse_args(argv)
    args.device_name = (gpu_names() or "a CUDA device") if hcp.cudaAvailable() else "no CUDA device"
    dhfr = hcp.prepareMolecule(os.path.join(args.data_dir, "5dfr_minimized.pdb"))
    rows = []
    for name in args.sizes:
        start = time.perf_counter()
        rows.append(run(name, dhfr, args))
        print(f"{name}: {json.dumps(rows[-1])}  ({time.perf_counter() - start:.1f} s)", flush=True)
    write_report(markdown(rows, args), args.markdown, args.json, rows)
    return 0


if __name__ == "__main__":
    sys.exit(main())
