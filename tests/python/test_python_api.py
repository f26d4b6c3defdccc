"""The Python face of the plugin: units, casting, serialization, the converter, errors."""
import copy

import numpy as np
import openmm
import openmm.app as app
import openmm.unit as unit
import pytest

import openmmnarumi
from openmmnarumi import NarumiNonbondedForce
from conftest import energy_and_forces, water_box


def small_force():
    force = NarumiNonbondedForce()
    force.addParticle(0.5, 0.3, 0.5)
    force.addParticle(-0.5 * unit.elementary_charge, 3.2 * unit.angstrom, 0.2 * unit.kilocalorie_per_mole)
    force.addParticle(0.0, 0.25, 0.1)
    return force


def test_units_are_accepted_and_returned():
    force = small_force()
    charge, sigma, epsilon = force.getParticleParameters(1)
    assert charge == -0.5 * unit.elementary_charge
    assert sigma.value_in_unit(unit.nanometer) == pytest.approx(0.32)
    assert epsilon.value_in_unit(unit.kilojoule_per_mole) == pytest.approx(0.2 * 4.184)
    force.setCutoffDistance(9 * unit.angstrom)
    assert force.getCutoffDistance() == 0.9 * unit.nanometer


def test_defaults_follow_nonbonded_force():
    force, reference = NarumiNonbondedForce(), openmm.NonbondedForce()
    assert force.getCutoffDistance() == reference.getCutoffDistance()
    assert force.getReactionFieldDielectric() == reference.getReactionFieldDielectric() == 78.3
    assert force.getUseDispersionCorrection() == reference.getUseDispersionCorrection()
    assert force.getUseSwitchingFunction() == reference.getUseSwitchingFunction()
    assert force.getAccumulationMethod() == NarumiNonbondedForce.Narumi
    assert force.getElectrostaticsMethod() == NarumiNonbondedForce.ReactionField


def test_every_accumulation_method_of_the_paper_is_settable():
    force = NarumiNonbondedForce()
    names = ["Narumi", "SingleFloat", "DoubleFloat", "FixedPoint64", "TakahashiIitaka", "Nitadori", "ModifiedNitadori"]
    for value, name in enumerate(names):
        assert getattr(NarumiNonbondedForce, name) == value
        force.setAccumulationMethod(getattr(NarumiNonbondedForce, name))
        assert force.getAccumulationMethod() == value
    with pytest.raises(openmm.OpenMMException, match="method 7"):
        force.setAccumulationMethod(7)


def test_system_add_force_cast_and_isinstance():
    system = openmm.System()
    for _ in range(3):
        system.addParticle(1.0)
    index = system.addForce(small_force())
    generic = system.getForce(index)
    assert NarumiNonbondedForce.isinstance(generic)
    assert not NarumiNonbondedForce.isinstance(openmm.HarmonicBondForce())
    assert NarumiNonbondedForce.cast(generic).getNumParticles() == 3
    with pytest.raises(openmm.OpenMMException, match="not a NarumiNonbondedForce"):
        NarumiNonbondedForce.cast(openmm.HarmonicBondForce())


def test_xml_round_trip_keeps_every_field():
    force = small_force()
    force.setNonbondedMethod(NarumiNonbondedForce.CutoffPeriodic)
    force.setElectrostaticsMethod(NarumiNonbondedForce.Shifted)
    force.setAccumulationMethod(NarumiNonbondedForce.FixedPoint64)
    force.setCutoffDistance(0.85)
    force.setReactionFieldDielectric(60.0)
    force.setUseSwitchingFunction(True)
    force.setSwitchingDistance(0.7)
    force.setUseDispersionCorrection(False)
    force.setExceptionsUsePeriodicBoundaryConditions(True)
    force.setForceGroup(5)
    force.addException(0, 2, 0.1, 0.3, 0.05)
    copy_ = NarumiNonbondedForce.cast(openmm.XmlSerializer.deserialize(openmm.XmlSerializer.serialize(force)))
    for getter in ["getNonbondedMethod", "getElectrostaticsMethod", "getAccumulationMethod", "getCutoffDistance",
                   "getReactionFieldDielectric", "getUseSwitchingFunction", "getSwitchingDistance",
                   "getUseDispersionCorrection", "getExceptionsUsePeriodicBoundaryConditions", "getForceGroup",
                   "getNumParticles", "getNumExceptions", "getName"]:
        assert getattr(copy_, getter)() == getattr(force, getter)(), getter
    for i in range(force.getNumParticles()):
        assert copy_.getParticleParameters(i) == force.getParticleParameters(i)
    assert copy_.getExceptionParameters(0) == force.getExceptionParameters(0)


def truncated_after_complete_lines():
    """Serialized XML cut after its first Particle line.  Cuts inside a tag are not tested: OpenMM 8.6.1's own
    XML reader then reads past the end of its input (valgrind), before any code of this plugin runs."""
    lines = openmm.XmlSerializer.serialize(small_force()).splitlines()
    return "\n".join(lines[:next(i for i, line in enumerate(lines) if "<Particle " in line) + 1])


@pytest.mark.parametrize("xml, message", [
    (truncated_after_complete_lines(), None),
    ("<Force type=\"NarumiNonbondedForce\" version=\"1\"/>", "method"),   # properties missing
    ("<Force type=\"NarumiNonbondedForce\" version=\"99\"/>", "99"),      # unknown version
], ids=["truncated", "missing-properties", "unknown-version"])
def test_malformed_xml_raises(xml, message):
    with pytest.raises(openmm.OpenMMException, match=message):
        openmm.XmlSerializer.deserialize(xml)


def test_bad_values_in_xml_raise_with_the_value():
    xml = openmm.XmlSerializer.serialize(small_force()).replace('sig=".3"', 'sig="-7"')
    assert 'sig="-7"' in xml
    with pytest.raises(openmm.OpenMMException, match="-7"):
        openmm.XmlSerializer.deserialize(xml)


@pytest.mark.parametrize("call, message", [
    (lambda f: f.getParticleParameters(7), "7"),
    (lambda f: f.setParticleParameters(-1, 0, 0.3, 0.1), "-1"),
    (lambda f: f.addParticle(0.1, -0.3, 0.1), "-0.3"),
    (lambda f: f.addParticle(0.1, 0.3, -2.0), "-2"),
    (lambda f: f.addParticle(float("nan"), 0.3, 0.1), "nan"),
    (lambda f: (f.addException(0, 1, 0.0, 1.0, 0.0), f.addException(1, 0, 0.0, 1.0, 0.0)), "already an exception"),
    (lambda f: f.addException(1, 1, 0.0, 1.0, 0.0), "two different particles"),
    (lambda f: f.setCutoffDistance(-1.0), "-1"),
    (lambda f: f.setReactionFieldDielectric(0.0), "0"),
    (lambda f: f.setNonbondedMethod(4), "PME"),
])
def test_bad_input_raises_clear_errors(call, message):
    with pytest.raises(openmm.OpenMMException, match=message):
        call(small_force())


def test_cutoff_larger_than_half_box_is_rejected():
    topology, positions, system = water_box(1.9, cutoff_nm=0.9)
    openmmnarumi.replaceNonbondedForces(system)
    narumi = next(NarumiNonbondedForce.cast(f) for f in system.getForces() if NarumiNonbondedForce.isinstance(f))
    narumi.setCutoffDistance(1.0)
    with pytest.raises(openmm.OpenMMException, match="half the shortest periodic box width"):
        openmm.Context(system, openmm.VerletIntegrator(0.001), openmm.Platform.getPlatformByName("Reference"))
    narumi.setCutoffDistance(0.9)
    context = openmm.Context(system, openmm.VerletIntegrator(0.001), openmm.Platform.getPlatformByName("Reference"))
    context.setPositions(positions)
    context.setPeriodicBoxVectors((1.7, 0, 0), (0, 1.7, 0), (0, 0, 1.7))  # the box shrinks during a run
    with pytest.raises(openmm.OpenMMException, match="half the shortest periodic box width"):
        context.getState(getEnergy=True)


@pytest.mark.parametrize("method", [app.PME, app.Ewald, app.LJPME])
def test_converter_refuses_ewald_methods_and_leaves_system_unchanged(method):
    topology, positions, system = water_box(2.0, nonbonded_method=method, cutoff_nm=0.9)
    before = openmm.XmlSerializer.serialize(system)
    name = {app.PME: "PME", app.Ewald: "Ewald", app.LJPME: "LJPME"}[method]
    with pytest.raises(openmm.OpenMMException, match=name):
        openmmnarumi.replaceNonbondedForces(system)
    assert openmm.XmlSerializer.serialize(system) == before


def test_converter_copies_every_setting():
    topology, positions, system = water_box(2.0, cutoff_nm=0.8)
    source = next(f for f in system.getForces() if isinstance(f, openmm.NonbondedForce))
    source.setUseSwitchingFunction(True)
    source.setSwitchingDistance(0.7)
    source.setReactionFieldDielectric(50.0)
    source.setExceptionsUsePeriodicBoundaryConditions(True)
    source.setForceGroup(3)
    converted = openmmnarumi.createNarumiNonbondedForce(source)
    assert converted.getNonbondedMethod() == NarumiNonbondedForce.CutoffPeriodic
    assert converted.getCutoffDistance() == source.getCutoffDistance()
    assert converted.getSwitchingDistance() == source.getSwitchingDistance()
    assert converted.getUseSwitchingFunction() and converted.getExceptionsUsePeriodicBoundaryConditions()
    assert converted.getReactionFieldDielectric() == 50.0
    assert converted.getUseDispersionCorrection() == source.getUseDispersionCorrection()
    assert converted.getForceGroup() == 3
    assert converted.getNumParticles() == source.getNumParticles()
    assert converted.getNumExceptions() == source.getNumExceptions()
    for i in range(0, source.getNumExceptions(), 97):
        assert converted.getExceptionParameters(i) == source.getExceptionParameters(i)


def test_update_parameters_in_context_changes_energy_like_openmm():
    topology, positions, system = water_box(2.0, cutoff_nm=0.9)
    narumi_system = copy.deepcopy(system)
    openmmnarumi.replaceNonbondedForces(narumi_system)
    reference = next(f for f in system.getForces() if isinstance(f, openmm.NonbondedForce))
    narumi = next(NarumiNonbondedForce.cast(f) for f in narumi_system.getForces() if NarumiNonbondedForce.isinstance(f))
    contexts = [openmm.Context(s, openmm.VerletIntegrator(0.001), openmm.Platform.getPlatformByName("Reference"))
                for s in (system, narumi_system)]
    for context in contexts:
        context.setPositions(positions)
    energies_before = [c.getState(getEnergy=True).getPotentialEnergy()._value for c in contexts]
    for force in (reference, narumi):
        force.setParticleParameters(0, -1.0, 0.32, 0.7)
        force.setParticleParameters(1, 0.5, 0.0, 0.0)
        force.setParticleParameters(2, 0.5, 0.0, 0.0)
    for force, context in zip((reference, narumi), contexts):
        force.updateParametersInContext(context)
    energies_after = [c.getState(getEnergy=True).getPotentialEnergy()._value for c in contexts]
    assert energies_after[0] != pytest.approx(energies_before[0], rel=1e-9)
    assert energies_after[1] == pytest.approx(energies_after[0], rel=1e-9)


def test_plugin_kernels_are_registered_without_environment_variables():
    assert all("Narumi" not in failure or "CUDA" in failure for failure in openmmnarumi.pluginLoadFailures)
    system = openmm.System()
    system.addParticle(1.0)
    system.addParticle(1.0)
    force = NarumiNonbondedForce()
    force.addParticle(1.0, 0.3, 0.0)
    force.addParticle(-1.0, 0.3, 0.0)
    system.addForce(force)
    energy, _ = energy_and_forces(system, [openmm.Vec3(0, 0, 0), openmm.Vec3(0.5, 0, 0)], "Reference")
    assert energy == pytest.approx(-138.93545764438198 / 0.5, rel=1e-12)  # Coulomb's law, NoCutoff
