"""Independent oracle for periodic electrostatic potentials: the Ewald sum in double-precision NumPy.

The potential at points p of point charges in a periodic box (any triclinic cell), with the uniform neutralizing
background that Ewald summation implies for a charged cell, in kJ/mol/e:

    phi(p) = k_e [ sum_i q_i sum_n erfc(alpha |p - r_i - n|) / |p - r_i - n|                       (real space)
                   + 4 pi / V sum_{k != 0} exp(-k^2 / 4 alpha^2) / k^2 Re(exp(i k.p) S(-k))          (reciprocal)
                   - pi Q / (alpha^2 V) ]                                                           (background)

with S(k) = sum_i q_i exp(i k.r_i) and Q the net charge. A point closer than `coincidence` to atom i leaves out that
atom's bare 1/r (its real-space term is replaced by its limit -2 alpha / sqrt(pi) q_i): the potential there is
that of every other charge and of all periodic images of atom i, so that q_i phi(r_i) / 2 summed over atoms is the
Ewald energy. alpha and the real- and reciprocal-space ranges are chosen for `tolerance` (the sum does not depend on
alpha: the tests check it).
"""
import math

import numpy as np
from scipy.special import erfc

from openmmnarumi import COULOMB_CONSTANT


def ewald_potential(points, positions, charges, box, alpha=None, tolerance=1e-13, coincidence=1e-3):
    """phi (kJ/mol/e) at points (P, 3) nm of charges (N,) e at positions (N, 3) nm in box (3 x 3 rows, nm)."""
    points = np.atleast_2d(np.asarray(points, dtype=float))
    positions = np.asarray(positions, dtype=float)
    charges = np.asarray(charges, dtype=float)
    box = np.asarray(box, dtype=float)
    volume = abs(np.linalg.det(box))
    widths = volume / np.linalg.norm(np.cross(box[[1, 2, 0]], box[[2, 0, 1]]), axis=1)  # distance between faces
    if alpha is None:
        alpha = 3.0 / widths.min()
    reach = math.sqrt(-math.log(tolerance))  # erfc(x) ~ exp(-x^2) and exp(-k^2 / 4 alpha^2) both below tolerance
    cutoff = reach / alpha
    kmax = 2 * alpha * reach
    inverse = np.linalg.inv(box)  # columns: the reciprocal vectors / (2 pi)

    # Real space: every image within the cutoff of every point.
    fractional = points @ inverse
    home = positions - np.floor(positions @ inverse) @ box
    counts = np.ceil(cutoff / widths).astype(int) + 1
    shifts = np.array([[a, b, c] for a in range(-counts[0], counts[0] + 1) for b in range(-counts[1], counts[1] + 1)
                       for c in range(-counts[2], counts[2] + 1)], dtype=float) @ box
    real = np.zeros(len(points))
    for p, point in enumerate(points - np.floor(fractional) @ box):
        delta = point[None, None, :] - home[None, :, :] - shifts[:, None, :]
        r = np.linalg.norm(delta, axis=2)
        inside = r < cutoff
        coincident = r < coincidence
        safe = np.where(coincident | ~inside, 1.0, r)
        terms = np.where(inside & ~coincident, erfc(alpha * safe) / safe, 0.0)
        real[p] = np.sum(terms * charges[None, :])
        real[p] -= 2 * alpha / math.sqrt(math.pi) * np.sum(charges[np.any(coincident, axis=0)])

    # Reciprocal space: k = 2 pi (h, k, l) . inverse^T over |k| <= kmax, k != 0.
    reciprocal = 2 * math.pi * inverse.T  # rows: reciprocal vectors, |b_d| = 2 pi / widths[d]
    hmax = np.ceil(kmax * widths / (2 * math.pi)).astype(int)
    grid = np.array([[h, k, l] for h in range(-hmax[0], hmax[0] + 1) for k in range(-hmax[1], hmax[1] + 1)
                     for l in range(-hmax[2], hmax[2] + 1) if (h, k, l) != (0, 0, 0)], dtype=float)
    kvectors = grid @ reciprocal
    k2 = np.einsum("kd,kd->k", kvectors, kvectors)
    keep = k2 <= kmax ** 2
    kvectors, k2 = kvectors[keep], k2[keep]
    weights = np.exp(-k2 / (4 * alpha ** 2)) / k2
    structure = np.exp(1j * positions @ kvectors.T).T @ charges  # S(k)
    recip = 4 * math.pi / volume * np.real(np.exp(1j * points @ kvectors.T) @ (weights * np.conj(structure)))

    background = -math.pi * np.sum(charges) / (alpha ** 2 * volume)
    return COULOMB_CONSTANT * (real + recip + background)


def ewald_energy(positions, charges, box, **kwargs):
    """The Ewald electrostatic energy (kJ/mol) of the charges, background included: sum_i q_i phi(r_i) / 2 with atom
    i's own bare 1/r left out of phi(r_i)."""
    return 0.5 * float(np.dot(charges, ewald_potential(positions, positions, charges, box, **kwargs)))
