"""Independent oracle: a double-precision NumPy direct sum of the reaction-field + Lennard-Jones energy and
forces, with the true minimum image found among the 27 neighbouring images (valid for any box shape)."""
import numpy as np

from openmmnarumi import COULOMB_CONSTANT


def reaction_field_direct_sum(positions, box, charges, sigmas, epsilons, exceptions, cutoff, dielectric=78.3):
    """Energy (kJ/mol) and forces (kJ/mol/nm) of a periodic system; exceptions are (i, j, chargeProd, sigma,
    epsilon) tuples computed as plain Coulomb + LJ without cutoff or periodicity, as NonbondedForce does."""
    positions = np.asarray(positions, dtype=float)
    box = np.asarray(box, dtype=float)
    n = len(positions)
    krf = (dielectric - 1) / ((2 * dielectric + 1) * cutoff ** 3)
    crf = 3 * dielectric / ((2 * dielectric + 1) * cutoff)
    excluded = [set() for _ in range(n)]
    for i, j, *_ in exceptions:
        excluded[i].add(j)
        excluded[j].add(i)
    images = np.array([[a, b, c] for a in (-1, 0, 1) for b in (-1, 0, 1) for c in (-1, 0, 1)], dtype=float) @ box
    inverse_box = np.linalg.inv(box)
    energy = 0.0
    forces = np.zeros((n, 3))
    for i in range(n - 1):
        delta = positions[i + 1:] - positions[i]
        delta -= np.round(delta @ inverse_box) @ box  # to the home cell in fractional coordinates
        candidates = delta[:, None, :] + images[None, :, :]
        nearest = np.argmin(np.einsum("pkd,pkd->pk", candidates, candidates), axis=1)
        delta = candidates[np.arange(len(delta)), nearest]
        r = np.linalg.norm(delta, axis=1)
        partners = np.arange(i + 1, n)
        keep = (r < cutoff) & ~np.isin(partners, list(excluded[i]))
        r, delta, partners = r[keep], delta[keep], partners[keep]
        kq = COULOMB_CONSTANT * charges[i] * charges[partners]
        sigma = 0.5 * (sigmas[i] + sigmas[partners])
        epsilon = np.sqrt(epsilons[i] * epsilons[partners])
        sr6 = (sigma / r) ** 6
        energy += np.sum(kq * (1 / r + krf * r ** 2 - crf) + 4 * epsilon * (sr6 ** 2 - sr6))
        dEdr = kq * (-1 / r ** 2 + 2 * krf * r) + 4 * epsilon * (-12 * sr6 ** 2 + 6 * sr6) / r
        pair_force = (dEdr / r)[:, None] * delta  # force on i; the partner gets the opposite
        forces[i] += pair_force.sum(axis=0)
        np.subtract.at(forces, partners, pair_force)
    for i, j, charge_prod, sigma, epsilon in exceptions:
        if charge_prod == 0 and epsilon == 0:
            continue
        delta = positions[j] - positions[i]
        r = np.linalg.norm(delta)
        sr6 = (sigma / r) ** 6
        energy += COULOMB_CONSTANT * charge_prod / r + 4 * epsilon * (sr6 ** 2 - sr6)
        dEdr = -COULOMB_CONSTANT * charge_prod / r ** 2 + 4 * epsilon * (-12 * sr6 ** 2 + 6 * sr6) / r
        forces[i] += dEdr / r * delta
        forces[j] -= dEdr / r * delta
    return energy, forces
