"""The measurements behind the multilevel-summation presets of the engine (analysis/potentialmap/include/MsmNumerics.h):
the CPU engine's relative RMS error at each preset's spacing h and cutoff a, per scheme (5 quintic, 3 cubic) and
boundary, against independent oracles.

  open:     the direct sum (the engine's own direct method, itself tested against NumPy: double precision on the CPU,
            float with compensated sums, ~1e-6, on the GPU) for DHFR in vacuum (5dfr_minimized.pdb, amber14 charges), a
            charged cloud of 1,500 dipoles in a 6 nm cube and the potential-map benchmark's TIP3P water filling a 10 nm
            cube (99,444 atoms, benchmarks/potentialmap_speed.py) as one open cluster
  periodic: the NumPy Ewald sum (tests/python/ewald_sum.py) for a 3 nm TIP3P cube and 1,500 random charges with a net
            charge in a triclinic cell

Rows marked "candidate" are settings measured to choose among, not presets.

    python3 -m studies.msm.msm_engine_presets [--data-dir ../shared/data] [--backend cpu|cuda] [--skip-slow] [--no-water]
"""
import argparse
import os
import time

import numpy as np

from openmmnarumi import _potentialmap
from studies.msm.msm_periodic_prototype import water
from studies.msm.msm_prototype import protein
from tests.python.ewald_sum import ewald_potential

# (order, boundary) -> [(target, h, a)], as in MsmNumerics.h
PRESETS = {
    (5, "open"): [(1e-3, 0.25, 1.2), (1e-4, 0.15, 1.6), (3e-5, 0.1, 1.6)],
    (3, "open"): [(1e-3, 0.15, 1.2), (5e-5, 0.075, 1.6)],
    (5, "periodic"): [(1e-3, 0.25, 1.2), (1e-4, 0.15, 1.2), (3e-5, 0.1, 1.2)],
    (3, "periodic"): [(1e-3, 0.15, 1.2), (1e-4, 0.075, 1.2)],
}
# Settings measured beside the presets (the presets before 2026-11-26 among them, which dense water missed).
CANDIDATES = {
    (5, "open"): [(1e-4, 0.2, 1.6), (1e-4, 0.15, 1.2), (3e-5, 0.15, 1.6), (3e-5, 0.1, 1.2)],
    (3, "open"): [(1e-3, 0.2, 1.2), (1e-3, 0.125, 1.2), (1e-4, 0.125, 1.6), (1e-4, 0.1, 1.2), (1e-4, 0.075, 1.2),
                  (5e-5, 0.1, 1.6)],
}


def dipoleCloud(rng, pairs=1500, edge=6.0):
    positions = rng.random((2 * pairs, 3)) * edge
    positions[1::2] = positions[0::2] + [0.1, 0, 0]
    q = np.abs(rng.uniform(-1, 1, pairs)) + 0.1
    charges = np.empty(2 * pairs)
    charges[0::2], charges[1::2] = q, -q
    charges[0] += 2
    return positions, charges


def relativeRms(values, reference):
    return float(np.sqrt(np.mean((values - reference) ** 2) / np.mean(reference ** 2)))


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data-dir", default=os.path.join(os.path.dirname(__file__), "..", "..", "..", "shared", "data"))
    parser.add_argument("--skip-slow", action="store_true", help="leave out the cubic periodic 1e-4 preset (a minute each)")
    parser.add_argument("--backend", choices=["cpu", "cuda"], default="cpu", help="the engine measured (and the direct sum)")
    parser.add_argument("--no-water", action="store_true", help="leave out the 99k-atom open water cluster (slow on a CPU)")
    args = parser.parse_args()
    rng = np.random.default_rng(1)
    openSystems = [("charged dipole cloud", *dipoleCloud(rng))]
    dhfr = protein(args.data_dir)
    if dhfr is not None:
        openSystems.insert(0, ("DHFR in vacuum", *dhfr))
    if not args.no_water:
        from benchmarks.potentialmap_speed import water_box
        openSystems.append(("TIP3P water 10 nm, open", *water_box(10.0)))
    rng = np.random.default_rng(0)
    triclinic = np.array([[3.2, 0, 0], [1.0, 3.0, 0], [-1.2, 1.1, 2.9]])
    randomCharges = rng.normal(size=1500) * 0.5
    periodicSystems = [("TIP3P cube 3 nm", *water(3.0), np.diag([3.0, 3.0, 3.0])),
                       ("random charges, triclinic", rng.random((1500, 3)) @ triclinic, randomCharges, triclinic)]
    print("| scheme | boundary | system | target | h (nm) | a (nm) | relative RMS error | seconds |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- |")
    for name, positions, charges in openSystems:
        lo, hi = positions.min(0) - 0.5, positions.max(0) + 0.5
        dims = [28, 29, 27]
        spacing = (hi - lo) / (np.array(dims) - 1)
        reference = _potentialmap.Engine(lo, spacing, dims, charges, method="direct", backend=args.backend).compute(positions, None)
        for order in (5, 3):
            rows = [(row, "") for row in PRESETS[(order, "open")]] + [(row, " candidate") for row in CANDIDATES[(order, "open")]]
            for (target, h, a), kind in rows:
                start = time.perf_counter()
                engine = _potentialmap.Engine(lo, spacing, dims, charges, method="msm", backend=args.backend, msmSpacing=h,
                                              msmCutoff=a, msmOrder=order)
                error = relativeRms(engine.compute(positions, None).astype(float), reference.astype(float))
                print(f"| {order} | open | {name} | {target:g}{kind} | {h} | {a} | {error:.2e} | "
                      f"{time.perf_counter() - start:.2f} |", flush=True)
    origin, spacing, dims = np.array([0.05, 0.1, 0.07]), np.array([0.31, 0.33, 0.27]), [9, 8, 10]
    grid = np.stack(np.meshgrid(*[origin[d] + spacing[d] * np.arange(dims[d]) for d in range(3)], indexing="ij"), -1)
    points = grid.transpose(2, 1, 0, 3).reshape(-1, 3)  # x fastest, as the engine stores maps
    for name, positions, charges, box in periodicSystems:
        reference = ewald_potential(points, positions, charges, box)
        for order in (5, 3):
            for target, h, a in PRESETS[(order, "periodic")]:
                if args.skip_slow and order == 3 and target < 1e-3:
                    continue
                start = time.perf_counter()
                engine = _potentialmap.Engine(origin, spacing, dims, charges, method="msm", backend=args.backend, msmSpacing=h,
                                              msmCutoff=a, msmOrder=order)
                error = relativeRms(engine.compute(positions, box).astype(float).ravel(), reference)
                print(f"| {order} | periodic | {name} | {target:g} | {h} | {a} | {error:.2e} | "
                      f"{time.perf_counter() - start:.2f} |", flush=True)


if __name__ == "__main__":
    main()
