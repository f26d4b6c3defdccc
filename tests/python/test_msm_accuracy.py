"""msmAccuracy as a bound (docs/potentialmap.md, "Accuracy"): the relative RMS error of a multilevel-summation map,
over its points at least 0.15 nm from every charge, is at most msmAccuracy.  Oracles: the NumPy Ewald sum
(ewald_sum.py) in periodic cells, a float64 NumPy direct sum with open boundaries.  Systems: random neutral charges
in a cube, a triclinic cell, a strongly skewed cell and an elongated box (two seeds each), TIP3P water (periodic and
as an open cluster) and DHFR in vacuum; the quintic scheme at 1e-2, 1e-3 and 1e-4, the cubic one at 1e-2 and 1e-3
(its finest)."""
import functools

import numpy as np
import openmm.unit as unit
import pytest

from openmmnarumi import potentialmap as pm
from openmmnarumi import _potentialmap

from conftest import relative_rms, water_box
from msm_error import exact_potential, far_points, random_neutral_charges

BACKENDS = ["cpu", pytest.param("cuda", marks=pytest.mark.skipif(not _potentialmap.cudaAvailable(), reason="no CUDA device"))]
CELLS = {  # OpenMM's reduced form
    "cube": np.diag([3.0, 3.0, 3.0]),
    "triclinic": np.array([[3.0, 0, 0], [1.0, 2.83, 0], [-1.0, 1.4, 2.45]]),  # a truncated octahedron
    "skewed": np.array([[3.2, 0, 0], [1.6, 2.8, 0], [1.6, 1.4, 2.6]]),  # every tilt at the reduced form's limit
    "elongated": np.diag([2.4, 2.6, 5.0]),  # two sides of twice the short-range cutoff
}
# (cell, msmOrder, msmAccuracy): the quintic scheme down to 1e-4 in every cell; the cubic one (finest 1e-3, and
# slower: its lattices are finer) at 1e-2 and 1e-3 in the triclinic cell (in the cube with water below).
RANDOM_CASES = ([(cell, 5, accuracy) for cell in CELLS for accuracy in (1e-2, 1e-3, 1e-4)] +
                [("triclinic", 3, accuracy) for accuracy in (1e-2, 1e-3)])
_REFERENCES = {}


def map_points(result):
    axes = [result.coordinates(a) for a in range(3)]
    return np.stack(np.meshgrid(*axes, indexing="ij"), -1).reshape(-1, 3)


def msm_error(positions, charges, box, msmOrder, msmAccuracy, backend, count):
    """The relative RMS error of the msm map at spacing 0.15 nm (the periodic cell, or the atoms' bounding box plus
    0.5 nm) over count of its far points, against the oracle (computed once per system and kept)."""
    result = pm.computePotentialMap(positions, charges, spacing=0.15, method="msm", boxVectors=box, msmOrder=msmOrder,
                                    msmAccuracy=msmAccuracy, backend=backend)
    points = map_points(result)
    key = (points.tobytes(), positions.tobytes(), charges.tobytes(), None if box is None else box.tobytes(), count)
    if key not in _REFERENCES:
        chosen = far_points(points, positions, box, count)
        assert len(chosen) == count
        _REFERENCES[key] = (chosen, exact_potential(points[chosen], positions, charges, box))
    chosen, exact = _REFERENCES[key]
    return relative_rms(result.values.ravel()[chosen], exact)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("cell, msmOrder, msmAccuracy", RANDOM_CASES)
def test_random_neutral_charges_in_periodic_cells(cell, msmOrder, msmAccuracy, backend):
    # 600 charges of +-(0.2 to 0.9) e, made neutral; the fixed lattice presets before the error model gave up to
    # 1.2e-3 at the default 1e-3 and 1.1e-4 at 1e-4 here.
    box = CELLS[cell]
    for seed in (1, 2):
        positions, charges = random_neutral_charges(box, seed, 600)
        error = msm_error(positions, charges, box, msmOrder, msmAccuracy, backend, count=200)
        assert 0 < error <= msmAccuracy, (seed, error)


@functools.lru_cache
def water(edge, shape):
    _, positions, system = water_box(edge, box_shape=shape)
    box = np.array([list(v.value_in_unit(unit.nanometer)) for v in system.getDefaultPeriodicBoxVectors()])
    positions = np.array(positions.value_in_unit(unit.nanometer))
    return positions, np.tile([-0.834, 0.417, 0.417], len(positions) // 3), box


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("shape, edge, msmOrder, msmAccuracy",
                         [("cube", 3.0, 5, 1e-3), ("cube", 3.0, 5, 1e-4), ("cube", 3.0, 3, 1e-3),
                          ("octahedron", 3.3, 5, 1e-3), ("octahedron", 3.3, 5, 1e-4)])
def test_periodic_water(shape, edge, msmOrder, msmAccuracy, backend):
    # Dense water is the hardest case: between the molecules its potential nearly cancels.
    positions, charges, box = water(edge, shape)
    error = msm_error(positions, charges, box, msmOrder, msmAccuracy, backend, count=200)
    assert 0 < error <= msmAccuracy


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("msmOrder, msmAccuracy", [(5, 1e-3), (5, 1e-4), (3, 1e-3)])
def test_open_water_cluster(msmOrder, msmAccuracy, backend):
    positions, charges, _ = water(3.0, "cube")
    error = msm_error(positions, charges, None, msmOrder, msmAccuracy, backend, count=2000)
    assert 0 < error <= msmAccuracy


@pytest.fixture(scope="module")
def dhfr(data_dir):
    from studies.msm.msm_prototype import protein
    atoms = protein(data_dir)
    if atoms is None:
        pytest.skip(f"no 5dfr_minimized.pdb in {data_dir}")
    return atoms


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("msmOrder, msmAccuracy", [(5, 1e-2), (5, 1e-3), (5, 1e-4), (3, 1e-3)])
def test_dhfr_in_vacuum(msmOrder, msmAccuracy, backend, dhfr):
    positions, charges = dhfr
    error = msm_error(positions, charges, None, msmOrder, msmAccuracy, backend, count=2000)
    assert 0 < error <= msmAccuracy
