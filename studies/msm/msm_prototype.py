"""Multilevel summation (MSM) of the Coulomb potential on a map, open boundaries: a NumPy prototype that fixes the
numerics (splitting, interpolation, restriction, level kernels) and measures the accuracy of grid spacing h and
cutoff a against a double-precision direct sum, before the C++/CUDA engine of issue 24 is written.

Method (Hardy, Stone & Schulten, Parallel Computing 35, 164 (2009)): 1/r = [1/r - g_a] + sum_l [g_{2^l a} - g_{2^{l+1} a}]
+ g_top, g_a(r) = gamma(r/a)/a with the C2 Taylor smoothing gamma(rho) = 15/8 - 5/4 rho^2 + 3/8 rho^4 (rho <= 1),
1/rho beyond; the smooth parts live on lattices of spacing h, 2h, 4h, ... with the C1 cubic basis Phi; charges are
anterpolated to the finest lattice, restricted upwards, each level's kernel summed within its cutoff (2^l a), the
top level over all points, prolonged down and interpolated to the map points; the short-range part is summed
exactly within a.

    python3 -m studies.msm.msm_prototype [--data-dir ../shared/data]
"""
import argparse
import os
import time

import numpy as np
from scipy.signal import fftconvolve

from openmmnarumi import COULOMB_CONSTANT



def gamma(rho):
    """C2 Taylor smoothing of 1/rho."""
    rho = np.asarray(rho, dtype=float)
    inside = 15 / 8 - 5 / 4 * rho ** 2 + 3 / 8 * rho ** 4
    return np.where(rho <= 1, inside, 1 / np.maximum(rho, 1e-300))


def smoothed(r, a):
    return gamma(r / a) / a


def phi(t):
    """The C1 cubic interpolation basis (support [-2, 2])."""
    t = np.abs(t)
    return np.where(t <= 1, (1 - t) * (1 + t - 1.5 * t * t), np.where(t <= 2, -0.5 * (t - 1) * (2 - t) ** 2, 0.0))


RESTRICTION = phi(np.arange(-3, 4) / 2.0)  # weights of fine point 2m + k for coarse point m, k = -3..3


def weights_1d(x, origin, h):
    """For coordinates x: the first of the 4 lattice indices each touches and their 4 weights."""
    s = (x - origin) / h
    first = np.floor(s).astype(int) - 1
    offsets = s[:, None] - (first[:, None] + np.arange(4)[None, :])
    return first, phi(offsets)


def stencil(points, origin, h):
    """The 4 x 4 x 4 lattice points around each point and their weights: [((ix, iy, iz), w)] over the 64 offsets."""
    firsts, weights = zip(*(weights_1d(points[:, d], origin[d], h) for d in range(3)))
    return [((firsts[0] + a, firsts[1] + b, firsts[2] + c), weights[0][:, a] * weights[1][:, b] * weights[2][:, c])
            for a in range(4) for b in range(4) for c in range(4)]


def anterpolate(positions, charges, origin, h, shape):
    grid = np.zeros(shape)
    for index, w in stencil(positions, origin, h):
        np.add.at(grid, index, charges * w)
    return grid


def interpolate(points, grid, origin, h):
    return sum(w * grid[index] for index, w in stencil(points, origin, h))


def transfer(grid, sizes, to_fine):
    """Restriction (to_fine False: coarse point j gathers fine points i = 2 (j - 2) + k, k = -3..3, with RESTRICTION
    weights) or its transpose, prolongation, along each axis; sizes: the output's shape.  The coarse lattice starts
    2 points before the fine one's origin / 2, so that its support covers the fine lattice."""
    for axis in range(3):
        shape = list(grid.shape)
        shape[axis] = sizes[axis]
        out = np.zeros(shape)
        coarse, fine = (grid.shape[axis], sizes[axis]) if to_fine else (sizes[axis], grid.shape[axis])
        j = np.arange(coarse)
        for k in range(-3, 4):
            i = 2 * (j - 2) + k
            valid = (i >= 0) & (i < fine)
            source, target = (j[valid], i[valid]) if to_fine else (i[valid], j[valid])
            index = [slice(None)] * 3
            index[axis] = target
            out[tuple(index)] += RESTRICTION[k + 3] * np.take(grid, source, axis=axis)
        grid = out
    return grid


def restrict(fine):
    return transfer(fine, [(n + 1) // 2 + 4 for n in fine.shape], to_fine=False)


def prolong(coarse, fine_shape):
    return transfer(coarse, fine_shape, to_fine=True)


def lattice_sum(q, h, kernel, reach):
    """e_m = sum_n kernel(|x_m - x_n|) q_n for |x_m - x_n| < reach (all n when reach is None), by FFT convolution."""
    radius = [s - 1 for s in q.shape] if reach is None else [int(np.ceil(reach / h))] * 3
    axes = [np.arange(-r, r + 1) * h for r in radius]
    dx, dy, dz = np.meshgrid(*axes, indexing="ij")
    r = np.sqrt(dx * dx + dy * dy + dz * dz)
    k = kernel(r)
    if reach is not None:
        k = np.where(r < reach, k, 0.0)
    full = fftconvolve(q, k, mode="full")
    return full[radius[0]:radius[0] + q.shape[0], radius[1]:radius[1] + q.shape[1], radius[2]:radius[2] + q.shape[2]]


def msm_potential(points, positions, charges, h, a, top_points=12):
    """phi (kJ/mol/e) at points: short-range sum within a plus the lattice levels."""
    low = np.minimum(points.min(0), positions.min(0))
    high = np.maximum(points.max(0), positions.max(0))
    origin = low - 2 * h
    shape = tuple(np.ceil((high - origin) / h).astype(int) + 3)
    q = [anterpolate(positions, charges, origin, h, shape)]
    origins, spacings = [origin], [h]
    while max(q[-1].shape) > top_points:
        q.append(restrict(q[-1]))
        spacings.append(2 * spacings[-1])
        origins.append(origins[-1] - 2 * spacings[-1])
    levels = len(q)
    e = [None] * levels
    for level in range(levels):
        scale = 2 ** level * a
        if level < levels - 1:
            e[level] = lattice_sum(q[level], spacings[level], lambda r, s=scale: smoothed(r, s) - smoothed(r, 2 * s),
                                   2 * scale)
        else:
            e[level] = lattice_sum(q[level], spacings[level], lambda r, s=scale: smoothed(r, s), None)
    for level in range(levels - 1, 0, -1):
        e[level - 1] = e[level - 1] + prolong(e[level], q[level - 1].shape)
    long_range = interpolate(points, e[0], origin, h)
    short = np.zeros(len(points))
    for p, point in enumerate(points):
        r = np.linalg.norm(positions - point, axis=1)
        near = (r < a) & (r > 1e-3)
        short[p] = np.sum(charges[near] * (1 / r[near] - smoothed(r[near], a)))
        short[p] -= np.sum(charges[r <= 1e-3] * smoothed(0.0, a))  # an atom on the point: only its bare 1/r is left out
    return COULOMB_CONSTANT * (short + long_range)


def direct_potential(points, positions, charges):
    out = np.zeros(len(points))
    for start in range(0, len(points), 256):
        chunk = points[start:start + 256]
        r = np.linalg.norm(chunk[:, None, :] - positions[None, :, :], axis=2)
        out[start:start + 256] = np.sum(np.where(r > 1e-3, charges[None, :] / np.where(r > 1e-3, r, 1.0), 0.0), axis=1)
    return COULOMB_CONSTANT * out


def protein(data_dir):
    """DHFR's atoms and amber14 charges (nm, e), or None without the data."""
    path = os.path.join(data_dir, "5dfr_minimized.pdb")
    if not os.path.exists(path):
        return None
    import openmm.app as app
    pdb = app.PDBFile(path)
    forcefield = app.ForceField("amber14-all.xml")
    modeller = app.Modeller(pdb.topology, pdb.positions)
    modeller.addHydrogens(forcefield)
    system = forcefield.createSystem(modeller.topology, nonbondedMethod=app.NoCutoff)
    force = next(f for f in system.getForces() if f.__class__.__name__ == "NonbondedForce")
    charges = np.array([force.getParticleParameters(i)[0]._value for i in range(system.getNumParticles())])
    positions = np.array([[v.x, v.y, v.z] for v in modeller.positions])
    return positions, charges


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data-dir", default=os.path.join(os.path.dirname(__file__), "..", "..", "..", "shared", "data"))
    parser.add_argument("--points", type=int, default=3000)
    args = parser.parse_args()
    system = protein(args.data_dir)
    if system is None:
        print(f"no 5dfr_minimized.pdb in {args.data_dir}: nothing to measure")
        return
    positions, charges = system
    rng = np.random.default_rng(0)
    low, high = positions.min(0) - 0.5, positions.max(0) + 0.5
    points = low + rng.random((args.points, 3)) * (high - low)
    start = time.perf_counter()
    reference = direct_potential(points, positions, charges)
    print(f"{len(positions)} atoms (net charge {charges.sum():+.3f} e), {len(points)} random map points in the "
          f"molecule's box + 0.5 nm; direct sum {time.perf_counter() - start:.1f} s")
    print("| h (nm) | a (nm) | relative RMS error | max abs error (kJ/mol/e) | seconds |")
    print("| --- | --- | --- | --- | --- |")
    for h, a in [(0.25, 0.8), (0.25, 1.0), (0.25, 1.2), (0.2, 1.2), (0.15, 1.2), (0.2, 1.6), (0.15, 1.6), (0.1, 1.2)]:
        start = time.perf_counter()
        values = msm_potential(points, positions, charges, h, a)
        seconds = time.perf_counter() - start
        error = values - reference
        rms = np.sqrt(np.mean(error ** 2) / np.mean(reference ** 2))
        print(f"| {h} | {a} | {rms:.2e} | {np.abs(error).max():.3f} | {seconds:.1f} |", flush=True)


if __name__ == "__main__":
    main()
