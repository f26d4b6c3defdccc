"""The error model behind msmAccuracy (analysis/potentialmap/include/MsmNumerics.h; docs/potentialmap.md, "Accuracy").

The measure (tests/python/msm_error.py): the relative RMS error of a multilevel-summation map at spacing 0.15 nm (the
periodic cell's brick, or the atoms' bounding box plus 0.5 nm) over up to --points of its points at least 0.15 nm
from every charge, against the NumPy Ewald sum in periodic cells and the float64 direct sum with open boundaries.

Calibration: the engine's error at given lattice spacings h and short-range cutoffs a (msmSpacing, msmCutoff), for
each scheme (5 quintic, 3 cubic) and boundary; the ratio error / (h / a)^p (p = 4 quintic, 3 cubic) per system, its
largest value per scheme and boundary, and 1.25 times that, the model's coefficient.  In periodic cells h is chosen so
that the longest cell vector gets exactly n = m 2^k points (8 <= m <= 15, or n < 16), which the engine's lattices
keep: h is then the largest lattice spacing, as the model takes it.
Check: the engine's error at msmAccuracy 1e-2, 1e-3, 1e-4 and each scheme's finest (h and a from the model), as a
fraction of msmAccuracy; every entry must be below 1.

Systems:
  periodic  random neutral charges (+-(0.2 to 0.9) e; 22 per nm^3, two seeds, and 90 per nm^3) in cubes of 2.4, 3 and
            4.5 nm, truncated octahedra (the reduced form of d = 2.94 nm, widths 2a, and 3.5 nm), a rhombic
            dodecahedron (3.4 nm, widths 2a), a skewed cell and an elongated box; TIP3P water in cubes of 2.6 to 4.5
            nm, truncated octahedra and a rhombic dodecahedron; DHFR solvated in its 6.2 nm cube (--slow: its Ewald
            sum takes minutes)
  open      random neutral clouds (3 and 5 nm cubes), TIP3P water clusters (3 and 5 nm cubes), DHFR in vacuum

    python3 -m studies.msm.msm_error_model [--data-dir ../shared/data] [--backend cpu|cuda] [--quick] [--slow]
"""
import argparse
import math
import os
import time

import numpy as np

from openmmnarumi import _potentialmap
from openmmnarumi.potentialmap.engine import makeLattice
from studies.msm.msm_prototype import protein
from tests.python.conftest import relative_rms, water_box
from tests.python.msm_error import exact_potential, far_points, random_neutral_charges

EXPONENT = {5: 4, 3: 3}
# h / a of the calibration per scheme, coarsest first (the model's largest h / a is 0.25)
RATIOS = {5: [0.25, 0.2, 0.16, 0.125, 0.1, 0.08, 0.06, 0.05], 3: [0.2, 0.15, 0.1, 0.075, 0.06, 0.05]}
CHECKED = {5: [1e-2, 1e-3, 1e-4, 3e-5], 3: [1e-2, 1e-3]}
S2, S6 = math.sqrt(2), math.sqrt(6)


def octahedron(d):
    return np.array([[d, 0, 0], [d / 3, 2 * S2 * d / 3, 0], [-d / 3, S2 * d / 3, S6 * d / 3]])


def dodecahedron(d):
    return np.array([[d, 0, 0], [0, d, 0], [d / 2, d / 2, S2 * d / 2]])


RANDOM_CELLS = {"cube 2.4": np.diag([2.4] * 3), "cube 3": np.diag([3.0] * 3), "cube 4.5": np.diag([4.5] * 3),
                "octahedron 2.94": octahedron(2.94), "octahedron 3.5": octahedron(3.5),
                "dodecahedron 3.4": dodecahedron(3.4), "skewed": np.array([[3.4, 0, 0], [1.7, 2.9, 0], [1.7, 1.45, 2.6]]),
                "elongated": np.diag([2.4, 2.6, 5.0])}
WATER_BOXES = [("cube", 2.6), ("cube", 3.0), ("cube", 3.3), ("cube", 3.6), ("cube", 4.0), ("cube", 4.5),
               ("octahedron", 3.0), ("octahedron", 3.5), ("dodecahedron", 3.4)]


def water(edge, shape="cube"):
    import openmm.unit as unit
    _, positions, system = water_box(edge, box_shape=shape)
    box = np.array([list(v.value_in_unit(unit.nanometer)) for v in system.getDefaultPeriodicBoxVectors()])
    positions = np.array(positions.value_in_unit(unit.nanometer))
    return positions, np.tile([-0.834, 0.417, 0.417], len(positions) // 3), box


def systems(args):
    """(name, positions, charges, box or None), periodic ones first."""
    quick = args.quick
    for name, box in RANDOM_CELLS.items():
        if quick and name not in ("cube 3", "octahedron 2.94", "elongated"):
            continue
        volume = abs(np.linalg.det(box))
        for seed, density in ((1, 22), (2, 22), (3, 90))[:1 if quick else 3]:
            yield (f"random {density}/nm^3 #{seed}, {name}", *random_neutral_charges(box, seed, int(density * volume)), box)
    for shape, edge in WATER_BOXES[:2] if quick else WATER_BOXES:
        yield (f"water, {shape} {edge}", *water(edge, shape))
    if args.slow:
        from benchmarks.msm_speed import structureCharges
        path = os.path.join(args.data_dir, "5dfr_solv-cube_equil.pdb")
        if os.path.exists(path):
            positions, charges, edges = structureCharges(path, ["amber14-all.xml", "amber14/tip3p.xml"], False)
            yield "DHFR solvated, cube 6.2", positions, charges, np.diag(edges)
    for edge, seed in ((3.0, 1), (5.0, 2))[:1 if quick else 2]:
        cube = np.diag([edge] * 3)
        yield (f"random 22/nm^3 #{seed}, open {edge} nm cloud", *random_neutral_charges(cube, seed, int(22 * edge ** 3)), None)
    for edge in (3.0,) if quick else (3.0, 5.0):
        positions, charges, _ = water(edge)
        yield f"water, open {edge} nm cluster", positions, charges, None
    dhfr = protein(args.data_dir)
    if dhfr is not None:
        yield "DHFR in vacuum", *dhfr, None


def periodicSpacing(box, ratio, cutoff):
    """The spacing that gives the longest cell vector n = m 2^k points (8 <= m <= 15, or n < 16), n the fewest of
    those at or above its length / (ratio cutoff): the engine's lattices keep that n, so h is its largest spacing."""
    longest = np.linalg.norm(box, axis=1).max()
    n = math.ceil(longest / (ratio * cutoff))
    while n >= 16 and not any(n % 2 ** k == 0 and 8 <= n // 2 ** k <= 15 for k in range(1, 20)):
        n += 1
    return longest / n * (1 + 1e-9), longest / n


class Measured:
    """One system's lattice, far points and exact potential there; the engine's error for given settings."""

    def __init__(self, positions, charges, box, args):
        self.positions, self.charges, self.box, self.backend = positions, charges, box, args.backend
        self.lattice = makeLattice(0.15, None, positions, box)
        origin, spacing, dims = self.lattice
        axes = [origin[d] + spacing[d] * np.arange(dims[d]) for d in range(3)]
        points = np.stack(np.meshgrid(*axes, indexing="ij"), -1).reshape(-1, 3)
        self.chosen = far_points(points, positions, box, args.points)
        self.exact = exact_potential(points[self.chosen], positions, charges, box)

    def error(self, order, **settings):
        origin, spacing, dims = self.lattice
        engine = _potentialmap.Engine(origin, spacing, [int(d) for d in dims], self.charges, method="msm",
                                      backend=self.backend, msmOrder=order, **settings)
        values = engine.compute(self.positions, self.box).astype(np.float64)
        return relative_rms(values.transpose(2, 1, 0).ravel()[self.chosen], self.exact)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data-dir", default=os.path.join(os.path.dirname(__file__), "..", "..", "..", "shared", "data"))
    parser.add_argument("--backend", choices=["cpu", "cuda"], default="cpu")
    parser.add_argument("--points", type=int, default=300, help="far points per system (the Ewald sum's cost)")
    parser.add_argument("--quick", action="store_true", help="a few systems only")
    parser.add_argument("--slow", action="store_true", help="also DHFR solvated in its cube")
    args = parser.parse_args()
    largest = {}
    checks = {}
    print("| system | scheme | a (nm) | h / a: relative RMS error (error / (h / a)^p) | check: error / msmAccuracy | seconds |")
    print("| --- | --- | --- | --- | --- | --- |")
    for name, positions, charges, box in systems(args):
        start = time.perf_counter()
        measured = Measured(positions, charges, box, args)
        boundary = "open" if box is None else "periodic"
        for order in (5, 3):
            for cutoff in (1.2,) if box is not None else (1.2, 1.6):
                cells = []
                for ratio in RATIOS[order]:
                    spacing, h = periodicSpacing(box, ratio, cutoff) if box is not None else (ratio * cutoff, ratio * cutoff)
                    error = measured.error(order, msmSpacing=spacing, msmCutoff=cutoff)
                    coefficient = error / (h / cutoff) ** EXPONENT[order]
                    largest[(order, boundary)] = max(largest.get((order, boundary), 0.0), coefficient)
                    cells.append(f"{h / cutoff:.3f}: {error:.2e} ({coefficient:.2f})")
                check = []
                if cutoff == 1.2:
                    for accuracy in CHECKED[order]:
                        fraction = measured.error(order, msmAccuracy=accuracy) / accuracy
                        checks[(order, boundary, accuracy)] = max(checks.get((order, boundary, accuracy), 0.0), fraction)
                        check.append(f"{accuracy:g}: {fraction:.2f}")
                print(f"| {name} | {order} | {cutoff} | {'; '.join(cells)} | {'; '.join(check)} | "
                      f"{time.perf_counter() - start:.0f} |", flush=True)
    print("\n| scheme | boundary | largest error / (h / a)^p | model coefficient (x 1.25) |")
    print("| --- | --- | --- | --- |")
    for (order, boundary), value in sorted(largest.items(), reverse=True):
        print(f"| {order} | {boundary} | {value:.2f} | {1.25 * value:.2f} |")
    print("\n| scheme | boundary | msmAccuracy | largest error / msmAccuracy |")
    print("| --- | --- | --- | --- |")
    for (order, boundary, accuracy), value in sorted(checks.items(), key=lambda item: (-item[0][0], item[0][1], -item[0][2])):
        print(f"| {order} | {boundary} | {accuracy:g} | {value:.2f} |")


if __name__ == "__main__":
    main()
