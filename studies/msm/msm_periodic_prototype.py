"""Multilevel summation in a periodic cell (rectangular or triclinic): the NumPy prototype of the periodic engine
of issue 24, measured against the Ewald oracle (tests/python/ewald_sum.py, neutralizing background included).

Lattices are commensurate with the cell (n_d points along cell vector d, a multiple of 2^(levels-1)); interpolation,
anterpolation, restriction and prolongation work in the lattice's own (fractional) coordinates with indices wrapped;
each level's kernel is summed over every image within its cutoff and applied as a circular FFT convolution; the top
level's smoothed kernel g = 1/r - s is applied as the Ewald sum of 1/r minus the short-range s over images, with
g(0) for a lattice point's own charge.  See README.md.

    python3 -m studies.msm.msm_periodic_prototype
"""
import math
import time

import numpy as np

from openmmnarumi import COULOMB_CONSTANT
from studies.msm.msm_prototype import RESTRICTION, smoothed, stencil
from tests.python.ewald_sum import ewald_potential


def image_shifts(box, reach):
    """Lattice translations n @ box that can bring a displacement inside the cell within `reach`."""
    volume = abs(np.linalg.det(box))
    widths = volume / np.linalg.norm(np.cross(box[[1, 2, 0]], box[[2, 0, 1]]), axis=1)
    counts = np.ceil(reach / widths).astype(int) + 1
    return np.array([[i, j, k] for i in range(-counts[0], counts[0] + 1) for j in range(-counts[1], counts[1] + 1)
                     for k in range(-counts[2], counts[2] + 1)], dtype=float) @ box


def periodic_kernel(n, box, kernel, reach):
    """K[m] = sum over images of kernel(|(m / n) @ box + image|) within reach (the lattice's periodic kernel)."""
    m = np.stack(np.meshgrid(*[np.arange(k) for k in n], indexing="ij"), axis=-1).reshape(-1, 3)
    displacement = (m / n) @ box
    K = np.zeros(len(m))
    for shift in image_shifts(box, reach):
        r = np.linalg.norm(displacement + shift, axis=1)
        K += np.where(r < reach, kernel(r), 0.0)
    return K.reshape(tuple(n))


def circular(q, K):
    return np.real(np.fft.ifftn(np.fft.fftn(q) * np.fft.fftn(K)))


def wrapped_stencil(fractional, n):
    """stencil() in the lattice's fractional coordinates, indices wrapped into the periodic lattice."""
    return [(tuple(i % n[d] for d, i in enumerate(index)), w)
            for index, w in stencil(fractional * n, np.zeros(3), 1.0)]


def anterpolate(fractional, charges, n):
    grid = np.zeros(tuple(n))
    for index, w in wrapped_stencil(fractional, n):
        np.add.at(grid, index, charges * w)
    return grid


def interpolate(fractional, grid):
    return sum(w * grid[index] for index, w in wrapped_stencil(fractional, np.array(grid.shape)))


def restrict(fine):
    coarse = fine
    for axis in range(3):
        n = coarse.shape[axis]
        j = np.arange(n // 2)
        coarse = sum(RESTRICTION[k + 3] * np.take(coarse, (2 * j + k) % n, axis=axis) for k in range(-3, 4))
    return coarse


def prolong(coarse):
    fine = coarse
    for axis in range(3):
        m = fine.shape[axis]
        shape = list(fine.shape)
        shape[axis] = 2 * m
        out = np.zeros(shape)
        j = np.arange(m)
        for k in range(-3, 4):
            index = [slice(None)] * 3
            index[axis] = (2 * j + k) % (2 * m)
            np.add.at(out, tuple(index), RESTRICTION[k + 3] * fine)
        fine = out
    return fine


def msm_periodic_potential(points, positions, charges, box, h, a, top=4):
    """phi (kJ/mol/e) at points of the periodic charges; lattice spacing about h, cutoff a, top lattice <= top^3."""
    box = np.asarray(box, dtype=float)
    inverse = np.linalg.inv(box)
    lengths = np.linalg.norm(box, axis=1)
    levels = 1
    while np.any(np.ceil(lengths / h / 2 ** (levels - 1)) > top):
        levels += 1
    n = (np.ceil(lengths / h / 2 ** (levels - 1)).astype(int) * 2 ** (levels - 1))
    q = [anterpolate((positions @ inverse) % 1.0, charges, n)]
    for _ in range(levels - 1):
        q.append(restrict(q[-1]))
    e = []
    for level in range(levels):
        shape = np.array(q[level].shape)
        scale = 2 ** level * a
        if level < levels - 1:
            K = periodic_kernel(shape, box, lambda r, s=scale: smoothed(r, s) - smoothed(r, 2 * s), 2 * scale)
        else:
            # g = 1/r - s: the Ewald sum of a unit charge minus s over the images, g(0) for the point itself.
            m = np.stack(np.meshgrid(*[np.arange(k) for k in shape], indexing="ij"), axis=-1).reshape(-1, 3)
            displacement = (m / shape) @ box
            ewald = ewald_potential(displacement, np.zeros((1, 3)), np.ones(1), box) / COULOMB_CONSTANT
            short = periodic_kernel(shape, box, lambda r, s=scale: np.where(r > 1e-12, 1 / np.maximum(r, 1e-300)
                                                                           - smoothed(r, s), 0.0), scale).reshape(-1)
            K = (ewald - short).reshape(tuple(shape))
            K[0, 0, 0] += smoothed(0.0, scale)
        e.append(circular(q[level], K))
    for level in range(levels - 1, 0, -1):
        e[level - 1] = e[level - 1] + prolong(e[level])
    long_range = interpolate((points @ inverse) % 1.0, e[0])
    short = np.zeros(len(points))
    shifts = image_shifts(box, a)
    for p, point in enumerate(points):
        delta = (point - positions)[None, :, :] + shifts[:, None, :]
        r = np.linalg.norm(delta, axis=2)
        near = (r < a) & (r > 1e-3)
        short[p] = np.sum(np.where(near, (1 / np.where(near, r, 1.0) - smoothed(r, a)) * charges[None, :], 0.0))
        short[p] -= np.sum(charges[np.any(r <= 1e-3, axis=0)]) * smoothed(0.0, a)
    return COULOMB_CONSTANT * (short + long_range)


def water(edge):
    import openmm
    import openmm.app as app
    import openmm.unit as unit
    forcefield = app.ForceField("amber14/tip3p.xml")
    modeller = app.Modeller(app.Topology(), [])
    modeller.addSolvent(forcefield, boxSize=openmm.Vec3(edge, edge, edge) * unit.nanometer)
    positions = np.array(modeller.positions.value_in_unit(unit.nanometer))
    charges = np.tile([-0.834, 0.417, 0.417], len(positions) // 3)
    return positions, charges


def main():
    rng = np.random.default_rng(0)
    cases = []
    positions, charges = water(3.0)
    cases.append(("TIP3P water, cube 3.0 nm (neutral)", positions, charges, np.diag([3.0, 3.0, 3.0])))
    triclinic = np.array([[3.2, 0, 0], [1.0, 3.0, 0], [-1.2, 1.1, 2.9]])
    random_positions = rng.random((1500, 3)) @ triclinic
    random_charges = rng.normal(size=1500) * 0.5
    cases.append((f"1500 random charges, triclinic (net {random_charges.sum():+.2f} e)", random_positions,
                  random_charges, triclinic))
    print("| system | h (nm) | a (nm) | relative RMS error | seconds |")
    print("| --- | --- | --- | --- | --- |")
    for name, positions, charges, box in cases:
        points = rng.random((400, 3)) @ box
        reference = ewald_potential(points, positions, charges, box)
        for h, a in [(0.25, 1.2), (0.2, 1.2), (0.15, 1.6)]:
            start = time.perf_counter()
            values = msm_periodic_potential(points, positions, charges, box, h, a)
            rms = np.sqrt(np.mean((values - reference) ** 2) / np.mean(reference ** 2))
            print(f"| {name} | {h} | {a} | {rms:.2e} | {time.perf_counter() - start:.1f} |", flush=True)


if __name__ == "__main__":
    main()
