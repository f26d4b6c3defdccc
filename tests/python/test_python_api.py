"""The Python face of the plugin: units, casting, serialization, the converter, errors."""
import copy
import pickle

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


def test_every_accumulation_method_is_settable_and_only_those():
    force = NarumiNonbondedForce()
    names = {"Narumi": 0, "SingleFloat": 1, "DoubleFloat": 2, "FixedPoint64": 3, "TileSums": 7}
    for name, value in names.items():
        assert getattr(NarumiNonbondedForce, name) == value
        force.setAccumulationMethod(getattr(NarumiNonbondedForce, name))
        assert force.getAccumulationMethod() == value
    # the paper's float pairs (C-E) are the CUDA platform's diagnostics (NARUMI_DIAGNOSTICS), not the force's methods
    for name in ["TakahashiIitaka", "Nitadori", "ModifiedNitadori"]:
        assert not hasattr(NarumiNonbondedForce, name)
    for value in (4, 5, 6):
        with pytest.raises(openmm.OpenMMException, match=f"method {value};.*NARUMI_DIAGNOSTICS=accumulation="):
            force.setAccumulationMethod(value)
    with pytest.raises(openmm.OpenMMException, match="method 8"):
        force.setAccumulationMethod(8)
    assert force.getAccumulationMethod() == NarumiNonbondedForce.TileSums


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


def test_converter_sets_the_accumulation_method_of_the_forces_it_makes():
    topology, positions, system = water_box(2.0, cutoff_nm=0.8)
    before = openmm.XmlSerializer.serialize(system)
    with pytest.raises(openmm.OpenMMException, match="illegal accumulation method 5"):
        openmmnarumi.replaceNonbondedForces(system, accumulationMethod=5)
    assert openmm.XmlSerializer.serialize(system) == before
    default = copy.deepcopy(system)
    assert openmmnarumi.replaceNonbondedForces(default) == 1
    assert openmmnarumi.replaceNonbondedForces(system, accumulationMethod=NarumiNonbondedForce.TileSums) == 1
    made = [NarumiNonbondedForce.cast(f) for f in system.getForces() if NarumiNonbondedForce.isinstance(f)]
    assert [f.getAccumulationMethod() for f in made] == [NarumiNonbondedForce.TileSums]
    assert [NarumiNonbondedForce.cast(f).getAccumulationMethod() for f in default.getForces()
            if NarumiNonbondedForce.isinstance(f)] == [NarumiNonbondedForce.Narumi]


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
    assert energy == pytest.approx(-openmmnarumi.COULOMB_CONSTANT / 0.5, rel=1e-12)  # Coulomb's law, NoCutoff


def test_coulomb_constant_is_openmms_bit_for_bit():
    # OpenMM's Reference NonbondedForce: two opposite unit charges 1 nm apart, NoCutoff, have energy -ONE_4PI_EPS0.
    system = openmm.System()
    force = openmm.NonbondedForce()
    for charge in (1.0, -1.0):
        system.addParticle(1.0)
        force.addParticle(charge, 0.3, 0.0)
    system.addForce(force)
    energy, _ = energy_and_forces(system, [openmm.Vec3(0, 0, 0), openmm.Vec3(1, 0, 0)], "Reference")
    assert -energy == openmmnarumi.COULOMB_CONSTANT


# ---------------------------------------------------------------------------------------------------------------
# Drop-in for NonbondedForce scripts: each rule against what OpenMM's own NonbondedForce does


def chain_forces(particles=6):
    """A NonbondedForce and a NarumiNonbondedForce with the same particles (a chain to take bonds from)."""
    forces = openmm.NonbondedForce(), NarumiNonbondedForce()
    for force in forces:
        for i in range(particles):
            force.addParticle(0.3 - 0.1 * (i % 4), 0.3 + 0.01 * i, 0.2 + 0.05 * i)
    return forces


def exception_list(force):
    return [tuple(value if isinstance(value, int) else value._value for value in force.getExceptionParameters(i))
            for i in range(force.getNumExceptions())]


@pytest.mark.parametrize("bonds", [
    [(0, 1), (1, 2), (2, 3), (3, 4), (4, 5), (1, 5)],
    [[0, 1], [1, 2], [2, 3], [3, 4], [4, 5], [1, 5]],
    np.array([(0, 1), (1, 2), (2, 3), (3, 4), (4, 5), (1, 5)]),
    np.array([(0, 1), (1, 2), (2, 3), (3, 4), (4, 5), (1, 5)], dtype=np.int32),
], ids=["tuples", "lists", "numpy-int64", "numpy-int32"])
def test_create_exceptions_from_bonds_takes_what_nonbonded_force_takes(bonds):
    reference, narumi = chain_forces()
    reference.createExceptionsFromBonds(bonds, 0.8333, 0.5)
    narumi.createExceptionsFromBonds(bonds, 0.8333, 0.5)
    assert exception_list(narumi) == exception_list(reference)  # the same exceptions at the same indices


def test_create_exceptions_from_bonds_of_a_topology():
    topology, positions, system = water_box(1.2)
    bonds = [(a.index, b.index) for a, b in topology.bonds()]
    reference, narumi = openmm.NonbondedForce(), NarumiNonbondedForce()
    for force in (reference, narumi):
        for _ in range(topology.getNumAtoms()):
            force.addParticle(0.0, 0.3, 0.1)
        force.createExceptionsFromBonds(bonds, 0.8333, 0.5)
    assert narumi.getNumExceptions() == reference.getNumExceptions() > 0
    assert exception_list(narumi) == exception_list(reference)


def test_create_exceptions_from_bonds_refuses_non_integer_pairs_like_nonbonded_force():
    for bonds in ([(0, 1.5)], [(0, 1, 2)], [0, 1]):
        reference, narumi = chain_forces()
        with pytest.raises(TypeError):
            reference.createExceptionsFromBonds(bonds, 0.8333, 0.5)
        with pytest.raises(TypeError, match="pair of particle indices"):
            narumi.createExceptionsFromBonds(bonds, 0.8333, 0.5)
        assert narumi.getNumExceptions() == 0


def test_create_exceptions_from_bonds_refuses_an_existing_exception_like_nonbonded_force():
    reference, narumi = chain_forces()
    for force in (reference, narumi):
        force.addException(1, 2, 0.1, 0.3, 0.2)
    with pytest.raises(openmm.OpenMMException, match="already an exception for particles 1 and 2"):
        reference.createExceptionsFromBonds([(0, 1), (1, 2), (2, 3)], 0.8333, 0.5)
    with pytest.raises(openmm.OpenMMException, match="already an exception for particles 1 and 2"):
        narumi.createExceptionsFromBonds([(0, 1), (1, 2), (2, 3)], 0.8333, 0.5)
    assert exception_list(narumi) == [(1, 2, 0.1, 0.3, 0.2)]  # the user's exception stays, nothing is added


def two_particle_system(force, periodic):
    system = openmm.System()
    for _ in range(force.getNumParticles()):
        system.addParticle(1.0)
    if periodic:
        system.setDefaultPeriodicBoxVectors((3, 0, 0), (0, 3, 0), (0, 0, 3))
    system.addForce(force)
    return system


def refuses_context(force, periodic):
    try:
        openmm.Context(two_particle_system(force, periodic), openmm.VerletIntegrator(0.001),
                       openmm.Platform.getPlatformByName("Reference"))
    except openmm.OpenMMException as error:
        return str(error)
    return None


@pytest.mark.parametrize("method", [openmm.NonbondedForce.NoCutoff, openmm.NonbondedForce.CutoffNonPeriodic,
                                    openmm.NonbondedForce.CutoffPeriodic],
                         ids=["NoCutoff", "CutoffNonPeriodic", "CutoffPeriodic"])
@pytest.mark.parametrize("setup", [
    lambda f: (f.setUseSwitchingFunction(True), f.setSwitchingDistance(1.0)),     # = cutoff
    lambda f: (f.setUseSwitchingFunction(True), f.setSwitchingDistance(1.4)),     # > cutoff
    lambda f: (f.setUseSwitchingFunction(True), f.setSwitchingDistance(-0.5)),
    lambda f: (f.setUseSwitchingFunction(True), f.setSwitchingDistance(0.0)),     # allowed
    lambda f: (f.setUseSwitchingFunction(True), f.setSwitchingDistance(0.99)),    # allowed
    lambda f: (f.setUseSwitchingFunction(False), f.setSwitchingDistance(1.4)),    # allowed: switching off
    lambda f: f.setCutoffDistance(1.6),                                           # > half the box if periodic
    lambda f: f.setCutoffDistance(1.5),                                           # = half the box: allowed
    lambda f: f.addException(0, 2, 0.0, 1.0, 0.0),                                # no particle 2
    lambda f: f.addException(0, 1, 0.0, -1.0, 0.0),                              # negative sigma
    lambda f: f.addException(0, 1, 0.0, 1.0, -1.0),                               # negative epsilon
    lambda f: f.setParticleParameters(1, 0.1, -0.3, 0.2),
    lambda f: f.setParticleParameters(1, 0.1, 0.3, -0.2),
    lambda f: f.addParticle(0.0, 0.3, 0.1),                                       # more particles than the System
], ids=["switch=cutoff", "switch>cutoff", "switch<0", "switch=0", "switch<cutoff", "switching-off",
        "cutoff>half-box", "cutoff=half-box", "exception-index", "exception-sigma", "exception-epsilon",
        "particle-sigma", "particle-epsilon", "particle-count"])
def test_parameter_rules_match_nonbonded_force(method, setup):
    """Where NonbondedForce refuses a setting (when it is set or when the Context is created), so does
    NarumiNonbondedForce; where NonbondedForce accepts it, NarumiNonbondedForce does too."""
    def outcome(force):
        for _ in range(2):
            force.addParticle(0.1, 0.3, 0.2)
        force.setNonbondedMethod(method)
        force.setCutoffDistance(1.0)
        try:
            setup(force)
        except openmm.OpenMMException as error:
            return str(error)
        return refuses_context(force, method == openmm.NonbondedForce.CutoffPeriodic)
    expected, actual = outcome(openmm.NonbondedForce()), outcome(NarumiNonbondedForce())
    assert (actual is None) == (expected is None), (expected, actual)


def test_switching_distance_beyond_the_cutoff_is_refused_with_no_cutoff():
    force = small_force()
    force.setUseSwitchingFunction(True)
    force.setSwitchingDistance(1.2)
    assert "r_switch = 1.2 nm with r_cutoff = 1 nm" in refuses_context(force, False)


def contexts_with_an_exclusion():
    """OpenMM's NonbondedForce and its Narumi replacement, each in a Context, with the chain's exclusions."""
    forces = chain_forces()
    contexts = []
    positions = [openmm.Vec3(0.25 * i, 0.1 * (i % 2), 0) for i in range(6)]
    for force in forces:
        force.createExceptionsFromBonds([(i, i + 1) for i in range(5)], 0.8333, 0.5)
        context = openmm.Context(two_particle_system(force, False), openmm.VerletIntegrator(0.001),
                                 openmm.Platform.getPlatformByName("Reference"))
        context.setPositions(positions)
        contexts.append(context)
    return forces, contexts


@pytest.mark.parametrize("parameters", [(0.05, 0.3, 0.4), (0.0, 0.3, 0.4), (0.05, 0.3, 0.0)])
def test_update_parameters_refuses_an_excluded_pair_that_starts_to_interact_like_nonbonded_force(parameters):
    forces, contexts = contexts_with_an_exclusion()
    energies = [c.getState(getEnergy=True).getPotentialEnergy()._value for c in contexts]
    for force in forces:
        index = next(i for i, e in enumerate(exception_list(force)) if e[:2] == (0, 2))  # a 1-3 exclusion
        force.setExceptionParameters(index, 0, 2, *parameters)
    for force, context in zip(forces, contexts):
        with pytest.raises(openmm.OpenMMException, match="non-excluded exceptions has changed"):
            force.updateParametersInContext(context)
    # The Context still computes the parameters it had.
    assert contexts[1].getState(getEnergy=True).getPotentialEnergy()._value == pytest.approx(energies[1], rel=1e-12)
    assert energies[1] == pytest.approx(energies[0], rel=1e-9)


def test_update_parameters_lets_an_interacting_exception_become_zero_like_nonbonded_force():
    forces, contexts = contexts_with_an_exclusion()
    for force, context in zip(forces, contexts):
        index = next(i for i, e in enumerate(exception_list(force)) if e[4] != 0)  # a 1-4 pair
        p1, p2 = exception_list(force)[index][:2]
        force.setExceptionParameters(index, p1, p2, 0.0, 1.0, 0.0)
        force.updateParametersInContext(context)
    energies = [c.getState(getEnergy=True).getPotentialEnergy()._value for c in contexts]
    assert energies[1] == pytest.approx(energies[0], rel=1e-9)


def system_with_named_nonbonded_force():
    """A water box with forces [HarmonicBond?, ..., NonbondedForce "MyNB" in group 3, ..., a barostat]."""
    topology, positions, system = water_box(2.0, cutoff_nm=0.9)
    system.addForce(openmm.MonteCarloBarostat(1.0, 300.0))
    index = next(i for i, f in enumerate(system.getForces()) if isinstance(f, openmm.NonbondedForce))
    assert index < system.getNumForces() - 1
    system.getForce(index).setName("MyNB")
    system.getForce(index).setForceGroup(3)
    return system, index, positions


def test_replace_nonbonded_forces_keeps_name_index_and_force_group():
    system, index, positions = system_with_named_nonbonded_force()
    before = [(type(f).__name__, f.getName(), f.getForceGroup(), openmm.XmlSerializer.serialize(f))
              for f in system.getForces()]
    expected_energy, expected_forces = energy_and_forces(copy.deepcopy(system), positions, "Reference", group=3)
    assert openmmnarumi.replaceNonbondedForces(system) == 1
    assert system.getNumForces() == len(before)
    replaced = system.getForce(index)
    assert NarumiNonbondedForce.isinstance(replaced)
    assert (replaced.getName(), replaced.getForceGroup()) == ("MyNB", 3)
    for i, force in enumerate(system.getForces()):
        if i != index:  # every other force is where it was, unchanged (the later ones are XML copies)
            assert (type(force).__name__, force.getName(), force.getForceGroup(),
                    openmm.XmlSerializer.serialize(force)) == before[i]
    energy, forces = energy_and_forces(system, positions, "Reference", group=3)
    assert energy == pytest.approx(expected_energy, rel=1e-9)


def test_converter_gives_the_default_name_of_its_own_class():
    assert openmmnarumi.createNarumiNonbondedForce(openmm.NonbondedForce()).getName() == "NarumiNonbondedForce"


@pytest.mark.parametrize("duplicate", [copy.copy, copy.deepcopy, lambda f: pickle.loads(pickle.dumps(f))],
                         ids=["copy", "deepcopy", "pickle"])
def test_copies_are_working_and_independent(duplicate):
    force = small_force()
    force.setNonbondedMethod(NarumiNonbondedForce.CutoffNonPeriodic)
    force.addException(0, 2, 0.1, 0.3, 0.05)
    force.setName("MyNB")
    copied = duplicate(force)
    assert isinstance(copied, NarumiNonbondedForce)
    assert openmm.XmlSerializer.serialize(copied) == openmm.XmlSerializer.serialize(force)
    copied.setParticleParameters(0, -0.7, 0.3, 0.5)
    copied.setCutoffDistance(0.8)
    assert force.getParticleParameters(0)[0] == 0.5 * unit.elementary_charge
    assert force.getCutoffDistance() == 1.0 * unit.nanometer
    del force
    system = openmm.System()
    for _ in range(3):
        system.addParticle(1.0)
    system.addForce(copied)  # the copy owns its object
    energy, _ = energy_and_forces(system, [openmm.Vec3(0, 0, 0), openmm.Vec3(0.5, 0, 0), openmm.Vec3(0, 0.6, 0)],
                                  "Reference")
    assert np.isfinite(energy)


def test_copy_of_a_system_holding_the_force_works_like_openmm():
    system = openmm.System()
    for _ in range(3):
        system.addParticle(1.0)
    system.addForce(small_force())
    for duplicate in (copy.deepcopy(system), pickle.loads(pickle.dumps(system))):
        assert NarumiNonbondedForce.cast(duplicate.getForce(0)).getNumParticles() == 3


def test_deserialized_force_once_cast_can_be_added_to_a_system():
    """SWIG gives plugin forces back as openmm.Force (it can downcast only the classes OpenMM was built with):
    cast() gives the NarumiNonbondedForce, which a System takes over from either wrapper."""
    force = small_force()
    deserialized = openmm.XmlSerializer.deserialize(openmm.XmlSerializer.serialize(force))
    assert type(deserialized) is openmm.Force
    view = NarumiNonbondedForce.cast(deserialized)
    assert isinstance(view, NarumiNonbondedForce) and view.getNumParticles() == 3
    system = openmm.System()
    for _ in range(3):
        system.addParticle(1.0)
    index = system.addForce(view)
    assert not view.thisown and not deserialized.thisown  # the System owns the object now
    del view, deserialized
    assert NarumiNonbondedForce.cast(system.getForce(index)).getNumParticles() == 3
    # A force another System owns cannot be added, as with OpenMM's own forces; a copy can.
    other = openmm.System()
    for _ in range(3):
        other.addParticle(1.0)
    with pytest.raises(Exception, match="does not own"):
        other.addForce(NarumiNonbondedForce.cast(system.getForce(index)))
    other.addForce(copy.deepcopy(NarumiNonbondedForce.cast(system.getForce(index))))
    assert NarumiNonbondedForce.cast(other.getForce(0)).getNumParticles() == 3


def test_rdf_sampler_copies_and_casts_like_the_force():
    sampler = openmmnarumi.RDFSampler([0, 1], [2], 1.0, 50, 1, 0.0)
    for copied in (copy.copy(sampler), copy.deepcopy(sampler), pickle.loads(pickle.dumps(sampler))):
        assert isinstance(copied, openmmnarumi.RDFSampler)
        assert openmm.XmlSerializer.serialize(copied) == openmm.XmlSerializer.serialize(sampler)
    view = openmmnarumi.RDFSampler.cast(openmm.XmlSerializer.deserialize(openmm.XmlSerializer.serialize(sampler)))
    system = openmm.System()
    for _ in range(3):
        system.addParticle(1.0)
    system.addForce(view)
    assert openmmnarumi.RDFSampler.isinstance(system.getForce(0))


@pytest.mark.parametrize("rVdw, rMin", [(0.17, 0.35), (1.9 * unit.angstrom, 3.6 * unit.angstrom)],
                         ids=["nm", "quantities"])
def test_amber_style_parameters_match_nonbonded_force(rVdw, rMin):
    forces = openmm.NonbondedForce(), NarumiNonbondedForce()
    for force in forces:
        assert force.addParticle_usingRVdw(0.5, rVdw, 0.1) == 0
        assert force.addParticle_usingRVdw(-0.5 * unit.elementary_charge, rVdw, 0.2 * unit.kilojoule_per_mole) == 1
        assert force.addException_usingRMin(0, 1, 0.1, rMin, 0.2) == 0
    reference, narumi = forces
    for i in range(2):
        assert narumi.getParticleParameters(i) == reference.getParticleParameters(i)
    assert exception_list(narumi) == exception_list(reference)


def test_global_parameters_and_offsets_are_refused_by_the_converter_naming_them():
    force = openmm.NonbondedForce()
    force.addParticle(0.1, 0.3, 0.2)
    force.addGlobalParameter("lambda", 1.0)
    force.addParticleParameterOffset("lambda", 0, 0.1, 0.0, 0.0)
    with pytest.raises(openmm.OpenMMException, match="global parameters or parameter offsets"):
        openmmnarumi.createNarumiNonbondedForce(force)
    assert not hasattr(NarumiNonbondedForce, "addGlobalParameter")
