"""The NumPy Ewald oracle (ewald_sum.py) of the periodic potential-map tests, checked on its own: independent of the
splitting parameter alpha (which the background term of a charged cell must make true), of the basis chosen for the
same lattice, and equal to OpenMM's PME energy on the Reference platform for the same charges (rectangular and
triclinic boxes, neutral and charged cells)."""
import numpy as np
import openmm
import openmm.unit as unit
import pytest

from ewald_sum import ewald_energy, ewald_potential

TRICLINIC = np.array([[2.4, 0.0, 0.0], [0.7, 2.2, 0.0], [-0.5, 0.8, 2.1]])  # OpenMM's reduced form
RECTANGULAR = np.diag([2.3, 2.0, 2.6])


def random_charges(n, box, seed, neutral=True):
    rng = np.random.default_rng(seed)
    positions = rng.random((n, 3)) @ box
    charges = rng.normal(size=n)
    if neutral:
        charges -= charges.mean()
    return positions, charges


@pytest.mark.parametrize("box", [RECTANGULAR, TRICLINIC], ids=["rectangular", "triclinic"])
@pytest.mark.parametrize("neutral", [True, False], ids=["neutral", "charged"])
def test_independent_of_alpha(box, neutral):
    positions, charges = random_charges(40, box, 1, neutral)
    points = np.random.default_rng(2).random((15, 3)) @ box * 1.3 - 0.2  # some outside the cell
    width = abs(np.linalg.det(box)) / np.linalg.norm(np.cross(box[1], box[2]))
    first = ewald_potential(points, positions, charges, box, alpha=2.5 / width)
    second = ewald_potential(points, positions, charges, box, alpha=4.5 / width)
    np.testing.assert_allclose(first, second, rtol=0, atol=1e-9 * np.abs(first).max())


def test_independent_of_the_lattice_basis_and_of_images():
    positions, charges = random_charges(30, TRICLINIC, 3, neutral=False)
    points = np.random.default_rng(4).random((10, 3)) @ TRICLINIC
    other_basis = TRICLINIC.copy()
    other_basis[2] += TRICLINIC[0] - TRICLINIC[1]  # the same lattice, another cell
    shifted = positions + np.array([1, -2, 1]) @ TRICLINIC  # the same charges, other images
    reference = ewald_potential(points, positions, charges, TRICLINIC)
    np.testing.assert_allclose(ewald_potential(points, shifted, charges, other_basis), reference, rtol=0,
                               atol=1e-9 * np.abs(reference).max())


@pytest.mark.parametrize("box", [RECTANGULAR, TRICLINIC], ids=["rectangular", "triclinic"])
@pytest.mark.parametrize("neutral", [True, False], ids=["neutral", "charged"])
def test_energy_equals_openmm_pme(box, neutral):
    positions, charges = random_charges(60, box, 5, neutral)
    system = openmm.System()
    system.setDefaultPeriodicBoxVectors(*[openmm.Vec3(*row) * unit.nanometer for row in box])
    force = openmm.NonbondedForce()
    force.setNonbondedMethod(openmm.NonbondedForce.PME)
    force.setCutoffDistance(0.95)
    force.setEwaldErrorTolerance(1e-8)
    for q in charges:
        system.addParticle(1.0)
        force.addParticle(q, 0.1, 0.0)
    system.addForce(force)
    context = openmm.Context(system, openmm.VerletIntegrator(0.001), openmm.Platform.getPlatformByName("Reference"))
    context.setPositions(positions * unit.nanometer)
    expected = context.getState(getEnergy=True).getPotentialEnergy().value_in_unit(unit.kilojoule_per_mole)
    assert ewald_energy(positions, charges, box) == pytest.approx(expected, rel=1e-5, abs=1e-4)
