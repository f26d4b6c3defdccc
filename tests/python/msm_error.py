"""The measure that msmAccuracy bounds (docs/potentialmap.md, "Accuracy"): the relative RMS error of a map over its
points at least MEASURED_DISTANCE from every charge (periodic images included), against the Ewald sum (ewald_sum.py)
in a periodic cell or the float64 direct sum with open boundaries; and the random neutral charges it is measured on
beside water and proteins.  Shared by test_msm_accuracy.py and studies/msm/msm_error_model.py."""
import numpy as np
from scipy.spatial import cKDTree

from openmmnarumi import COULOMB_CONSTANT

try:
    from ewald_sum import ewald_potential
except ImportError:  # imported as tests.python.msm_error (the studies)
    from tests.python.ewald_sum import ewald_potential

MEASURED_DISTANCE = 0.15  # nm: closer points, where the nearest charge's 1/r dominates the sum, would hide the error


def random_neutral_charges(box, seed, count):
    """count charges of +-(0.2 to 0.9) e placed uniformly in the cell (rows of box), shifted to a net charge of zero."""
    rng = np.random.default_rng(seed)
    positions = rng.random((count, 3)) @ box
    charges = rng.uniform(0.2, 0.9, count) * rng.choice([-1.0, 1.0], count)
    return positions, charges - charges.mean()


def far_points(points, positions, box, count):
    """Indices (sorted) of up to count points, a fixed random choice among those at least MEASURED_DISTANCE from every
    charge and its periodic images (box: rows of the cell, or None)."""
    if box is not None:
        home = positions - np.floor(positions @ np.linalg.inv(box)) @ box
        shifts = np.array([[i, j, k] for i in (-1, 0, 1) for j in (-1, 0, 1) for k in (-1, 0, 1)]) @ box
        positions = (home[None] + shifts[:, None]).reshape(-1, 3)
    distance, _ = cKDTree(positions).query(points)
    far = np.nonzero(distance >= MEASURED_DISTANCE)[0]
    return np.sort(np.random.default_rng(0).choice(far, min(count, len(far)), replace=False))


def exact_potential(points, positions, charges, box):
    """The potential (kJ/mol/e) at points away from every charge: Ewald's in a cell, the direct sum without one."""
    if box is not None:
        widths = abs(np.linalg.det(box)) / np.linalg.norm(np.cross(box[[1, 2, 0]], box[[2, 0, 1]]), axis=1)
        return ewald_potential(points, positions, charges, box, alpha=6.0 / widths.min())  # half the real-space work
    distance = np.linalg.norm(points[:, None, :] - positions[None, :, :], axis=-1)
    return COULOMB_CONSTANT * (charges[None, :] / distance).sum(axis=1)
