"""NarumiNonbondedForce on Reference and CPU against OpenMM's own NonbondedForce on Reference (the oracle)."""
import copy
import os

import numpy as np
import openmm
import openmm.app as app
import openmm.unit as unit
import pytest

import openmmnarumi
from direct_sum import reaction_field_direct_sum
from conftest import (available_platforms, energy_and_forces, is_narumi, isolate_in_group, nonbonded_force,
                      relative_rms, water_box)

TOLERANCE = 1e-6


def compare_with_openmm(system, positions, platform_name):
    """Energy and forces of the NonbondedForce (oracle, Reference) and of its Narumi replacement."""
    isolate_in_group(system, lambda f: isinstance(f, openmm.NonbondedForce))
    expected_energy, expected_forces = energy_and_forces(system, positions, "Reference", group=1)
    narumi_system = copy.deepcopy(system)
    assert openmmnarumi.replaceNonbondedForces(narumi_system) == 1
    isolate_in_group(narumi_system, is_narumi)
    energy, forces = energy_and_forces(narumi_system, positions, platform_name, group=1)
    assert abs(energy - expected_energy) <= TOLERANCE * abs(expected_energy), (energy, expected_energy)
    assert relative_rms(forces, expected_forces) <= TOLERANCE
    return energy, forces


@pytest.mark.parametrize("platform_name", available_platforms())
@pytest.mark.parametrize("method", [app.CutoffPeriodic, app.CutoffNonPeriodic, app.NoCutoff])
@pytest.mark.parametrize("switching", [False, True])
def test_water_box_matches_nonbonded_force(platform_name, method, switching):
    topology, positions, system = water_box(2.6, nonbonded_method=method, cutoff_nm=1.0)
    assert system.getNumParticles() > 1500
    force = nonbonded_force(system)
    force.setUseSwitchingFunction(switching)
    force.setSwitchingDistance(0.85)
    compare_with_openmm(system, positions, platform_name)


@pytest.mark.parametrize("platform_name", available_platforms())
@pytest.mark.parametrize("shape,edge,cutoff", [("dodecahedron", 3.0, 0.9), ("octahedron", 3.0, 0.9)])
def test_triclinic_water_box_matches_direct_sum(platform_name, shape, edge, cutoff):
    """Triclinic boxes against a NumPy direct sum over true minimum images.

    OpenMM 8.6.1's Reference NonbondedForce is not the oracle here: for these boxes it disagrees with the
    direct sum by up to 2e-3 relative while OpenMM's own CPU platform agrees with it (see docs/validation.md).
    """
    topology, positions, system = water_box(edge, box_shape=shape, cutoff_nm=cutoff)
    box = np.array([v.value_in_unit(unit.nanometer) for v in system.getDefaultPeriodicBoxVectors()])
    assert box[2][0] != 0  # really triclinic
    force = nonbonded_force(system)
    force.setUseDispersionCorrection(False)
    parameters = np.array([[x._value for x in force.getParticleParameters(i)] for i in range(force.getNumParticles())])
    exceptions = [tuple(x if isinstance(x, int) else x._value for x in force.getExceptionParameters(i))
                  for i in range(force.getNumExceptions())]
    expected_energy, expected_forces = reaction_field_direct_sum(positions.value_in_unit(unit.nanometer), box,
                                                                 *parameters.T, exceptions, cutoff)
    openmmnarumi.replaceNonbondedForces(system)
    isolate_in_group(system, is_narumi)
    energy, forces = energy_and_forces(system, positions, platform_name, group=1)
    assert abs(energy - expected_energy) <= TOLERANCE * abs(expected_energy), (energy, expected_energy)
    assert relative_rms(forces, expected_forces) <= TOLERANCE


@pytest.mark.parametrize("platform_name", available_platforms())
def test_dispersion_correction_matches_nonbonded_force(platform_name):
    topology, positions, system = water_box(2.2, cutoff_nm=1.0)
    force = nonbonded_force(system)
    force.setUseDispersionCorrection(True)
    with_correction, _ = compare_with_openmm(system, positions, platform_name)
    force.setUseDispersionCorrection(False)
    without_correction, _ = compare_with_openmm(system, positions, platform_name)
    assert with_correction < without_correction  # the correction of an attractive tail is negative


def protein_system(data_dir, solvate):
    path = os.path.join(data_dir, "5dfr_minimized.pdb")
    if not os.path.exists(path):
        pytest.skip(f"shared data not found: {path}")
    pdb = app.PDBFile(path)
    forcefield = app.ForceField("amber14-all.xml", "amber14/tip3p.xml")
    modeller = app.Modeller(pdb.topology, pdb.positions)
    if solvate:
        modeller.addSolvent(forcefield, padding=0.6 * unit.nanometer)
        method = app.CutoffPeriodic
    else:
        method = app.NoCutoff
    system = forcefield.createSystem(modeller.topology, nonbondedMethod=method, nonbondedCutoff=1.0 * unit.nanometer)
    return modeller, system


@pytest.mark.parametrize("platform_name", available_platforms())
def test_protein_with_exceptions_in_vacuum(data_dir, platform_name):
    modeller, system = protein_system(data_dir, solvate=False)
    force = nonbonded_force(system)
    scaled = 0
    for i in range(force.getNumExceptions()):
        _, _, chargeProd, _, epsilon = force.getExceptionParameters(i)
        scaled += (chargeProd._value != 0 or epsilon._value != 0)
    assert scaled > 1000  # AMBER 1-4 pairs are present
    compare_with_openmm(system, modeller.positions, platform_name)


@pytest.mark.parametrize("platform_name", available_platforms())
def test_solvated_protein_reaction_field(data_dir, platform_name):
    modeller, system = protein_system(data_dir, solvate=True)
    compare_with_openmm(system, modeller.positions, platform_name)
