"""replaceNonbondedForces(system, positions) on the pair-table force sets that OpenMM's GromacsTopFile, CharmmPsfFile
and AmberPrmtopFile make (NonbondedForce + CustomNonbondedForce with tables acoef, bcoef + GromacsTopFile's 1-4
CustomBondForce): the fused NarumiNonbondedForce against the forces it replaces, on the Reference and CPU platforms,
and each refusal, which must leave the System unchanged.  GromacsTopFile reads topologies written here and the Martini
bilayer of the shared data; the CHARMM and Amber sets are built as those loaders build them (no inputs are stored)."""
import copy
import math
import os

import numpy as np
import openmm
import openmm.app as app
import openmm.unit as unit
import pytest

import openmmnarumi
from openmmnarumi import NarumiNonbondedForce
from studies.gromacs_conventions import copy_for_gromacs_top_file

PLATFORMS = ["Reference", "CPU"]
# What CharmmPsfFile and AmberPrmtopFile write (GromacsTopFile's differs only in white space).
CHARMM_EXPRESSION = "(a/r6)^2-b/r6; r6=r^6;a=acoef(type1, type2);b=bcoef(type1, type2)"
AMBER_EXPRESSION = "(a/r6)^2-b/r6; r6=r^6;a=acoef(type1, type2);b=bcoef(type1, type2);"


def evaluate(system, positions, platform="Reference"):
    context = openmm.Context(system, openmm.VerletIntegrator(0.001), openmm.Platform.getPlatformByName(platform))
    context.setPositions(positions)
    state = context.getState(getEnergy=True, getForces=True)
    return (state.getPotentialEnergy().value_in_unit(unit.kilojoule_per_mole),
            state.getForces(asNumpy=True).value_in_unit(unit.kilojoule_per_mole / unit.nanometer))


def without_long_range_correction(system):
    system = copy.deepcopy(system)
    for force in system.getForces():
        if isinstance(force, openmm.CustomNonbondedForce):
            force.setUseLongRangeCorrection(False)
    return system


def relative_rms(forces, expected):
    return np.linalg.norm(forces - expected) / np.linalg.norm(expected)


def xml(system):
    return openmm.XmlSerializer.serialize(system)


def fused_copy(system, positions):
    fused = copy.deepcopy(system)
    assert openmmnarumi.replaceNonbondedForces(fused, positions) == 1
    names = [type(force).__name__ for force in fused.getForces()]
    assert "NonbondedForce" not in names and "CustomNonbondedForce" not in names, names
    assert "LennardJonesExceptions" not in [force.getName() for force in fused.getForces()]
    return fused


def assert_fusion_reproduces(system, positions):
    """The fused System gives the original's energy and forces on every platform: forces and the energy to 1e-9,
    except the long-range correction, which OpenMM integrates numerically for the table force (to about 1e-5)."""
    fused = fused_copy(system, positions)
    expected, expected_forces = evaluate(system, positions)
    long_range = expected - evaluate(without_long_range_correction(system), positions)[0]
    for platform in PLATFORMS:
        energy, forces = evaluate(fused, positions, platform)
        assert relative_rms(forces, expected_forces) < 1e-9, platform
        assert abs(energy - expected) <= 1e-9 * abs(expected) + 1e-5 * abs(long_range), (platform, energy, expected)
    return fused


# ---------------------------------------------------------------------------------------------------------------------
# GromacsTopFile: a topology written here (NBFIX through [ nonbond_params ], 1-4 [ pairs ]) and the Martini bilayer

GROMACS_TOPOLOGY = """[ defaults ]
; nbfunc comb-rule gen-pairs fudgeLJ fudgeQQ
1 {rule} no 1.0 0.5

[ atomtypes ]
{atomtypes}
{nonbond_params}
[ moleculetype ]
M 3

[ atoms ]
1 A 1 M A1 1 0.5
2 B 1 M B2 2 -0.3
3 C 1 M C3 3 0.4
4 A 1 M A4 4 -0.6
5 B 1 M B5 5 0.2

[ bonds ]
1 2 1 0.3 1000
2 3 1 0.3 1000
3 4 1 0.3 1000
4 5 1 0.3 1000

[ pairs ]
1 4 1 {pair14}
2 5 1 {pair25}

[ system ]
chains

[ molecules ]
M 27
"""

# (sigma nm, epsilon kJ/mol) of the atom types, the [ nonbond_params ] and the [ pairs ]; comb-rule 1 gets C6, C12.
ATOM_TYPES = {"A": (0.47, 5.0), "B": (0.43, 3.5), "C": (0.50, 4.2)}
NONBOND_PARAMS = {("A", "B"): (0.45, 2.0), ("B", "C"): (0.52, 4.8)}
PAIRS = {"pair14": (0.40, 1.3), "pair25": (0.44, 0.9)}


def gromacs_parameters(rule, sigma, epsilon):
    return f"{4 * epsilon * sigma ** 6:.8g} {4 * epsilon * sigma ** 12:.8g}" if rule == 1 else f"{sigma} {epsilon}"


def chain_positions(count, beads, spacing, bond, seed):
    """count chains of beads beads, one in each cell of a cubic lattice of spacing nm: (positions nm, box edge nm)."""
    rng = np.random.default_rng(seed)
    cells = math.ceil(count ** (1 / 3))
    positions = []
    for cell in list(np.ndindex(cells, cells, cells))[:count]:
        position = (np.array(cell) + 0.3 + 0.2 * rng.random(3)) * spacing
        axis = rng.normal(size=3)
        axis /= np.linalg.norm(axis)
        for _ in range(beads):
            positions.append(position)
            step = axis + 0.4 * rng.normal(size=3)
            position = position + bond * step / np.linalg.norm(step)
    return np.array(positions), cells * spacing


def gromacs_system(folder, rule, nbfix=True, cutoff=1.1, switch=None):
    atomtypes = "\n".join(f"{name} 72.0 0.000 A {gromacs_parameters(rule, *value)}" for name, value in ATOM_TYPES.items())
    nonbond_params = ("[ nonbond_params ]\n" + "\n".join(f"{a} {b} 1 {gromacs_parameters(rule, *value)}"
                                                        for (a, b), value in NONBOND_PARAMS.items()) + "\n") if nbfix else ""
    pairs = {name: gromacs_parameters(rule, *value) for name, value in PAIRS.items()}
    path = os.path.join(folder, f"rule{rule}.top")
    with open(path, "w") as out:
        out.write(GROMACS_TOPOLOGY.format(rule=rule, atomtypes=atomtypes, nonbond_params=nonbond_params, **pairs))
    positions, edge = chain_positions(27, 5, 2.0, 0.28, seed=rule)
    top = app.GromacsTopFile(path, periodicBoxVectors=np.eye(3) * edge * unit.nanometer)
    system = top.createSystem(nonbondedMethod=app.CutoffPeriodic, nonbondedCutoff=cutoff * unit.nanometer,
                              switchDistance=None if switch is None else switch * unit.nanometer)
    return system, positions


@pytest.mark.parametrize("rule", [1, 2])
@pytest.mark.parametrize("switch", [None, 0.9])
def test_gromacs_nonbond_params_and_pairs_fuse(tmp_path, rule, switch):
    """Combination rule 1 (C6, C12: the 1-4 pairs in a CustomBondForce) and 2 (sigma, epsilon: the 1-4 pairs stay
    exceptions), with and without switching; GromacsTopFile turns the long-range correction on."""
    system, positions = gromacs_system(str(tmp_path), rule, switch=switch)
    names = [force.getName() for force in system.getForces()]
    assert "LennardJonesForce" in names and ("LennardJonesExceptions" in names) == (rule == 1)
    fused = assert_fusion_reproduces(system, positions)
    force = NarumiNonbondedForce.cast(fused.getForce(0))
    assert force.getNumLennardJonesTypePairs() == 6  # the 3 types in use, each pair once
    assert force.getUseSwitchingFunction() == (switch is not None)


def test_gromacs_without_nonbond_params_is_copied_not_fused(tmp_path):
    """Without [ nonbond_params ] GromacsTopFile's Lennard-Jones force has no tables: replaceNonbondedForces converts
    the NonbondedForce alone, needs no positions, and keeps the other forces."""
    system, positions = gromacs_system(str(tmp_path), 1, nbfix=False)
    expected, expected_forces = evaluate(system, positions)
    converted = copy.deepcopy(system)
    assert openmmnarumi.replaceNonbondedForces(converted) == 1
    assert [force.getName() for force in converted.getForces()][1:3] == ["LennardJonesForce", "HarmonicBondForce"]
    energy, forces = evaluate(converted, positions)
    assert energy == pytest.approx(expected, rel=1e-9) and relative_rms(forces, expected_forces) < 1e-9


@pytest.fixture(scope="module", params=["simple_lipid", "complex_lipid"])
def martini(request, data_dir, tmp_path_factory):
    """A Martini bilayer through GromacsTopFile (copies with the [ defaults ] workaround of data/martini/README.md);
    complex_lipid has virtual sites."""
    folder = os.path.join(data_dir, "martini", request.param)
    if not os.path.isdir(folder):
        pytest.skip(f"{folder} is absent (pytest --data-dir)")
    work = str(tmp_path_factory.mktemp(request.param))
    copy_for_gromacs_top_file(folder, work)
    gro = app.GromacsGroFile(os.path.join(work, "minimized.gro"))
    top = app.GromacsTopFile(os.path.join(work, "system.top"), periodicBoxVectors=gro.getPeriodicBoxVectors())
    system = top.createSystem(nonbondedMethod=app.CutoffPeriodic, nonbondedCutoff=1.1 * unit.nanometer)
    return system, gro.getPositions()


def test_martini_bilayer_fuses(martini):
    system, positions = martini
    fused = assert_fusion_reproduces(system, positions)
    assert [force.getName() for force in fused.getForces()] == [
        "NarumiNonbondedForce", "HarmonicBondForce", "GROMOSAngleForce", "CMMotionRemover"]
    # Without the long-range correction the whole energy agrees to 1e-9 as well.
    short = without_long_range_correction(system)
    expected, _ = evaluate(short, positions)
    for platform in PLATFORMS:
        assert evaluate(fused_copy(short, positions), positions, platform)[0] == pytest.approx(expected, rel=1e-9)


def test_martini_long_range_correction_is_the_analytic_one(martini):
    """The fused force's long-range correction is the closed form of the table's C6 and C12 (averaged over the
    N(N+1)/2 pairs, as OpenMM's), to 1e-12; OpenMM's numerical one agrees to 1e-5."""
    system, positions = martini
    fused = fused_copy(system, positions)
    force = NarumiNonbondedForce.cast(fused.getForce(0))
    without = copy.deepcopy(fused)
    NarumiNonbondedForce.cast(without.getForce(0)).setUseDispersionCorrection(False)
    narumi = evaluate(fused, positions)[0] - evaluate(without, positions)[0]
    openmm_value = evaluate(system, positions)[0] - evaluate(without_long_range_correction(system), positions)[0]
    table = {}
    for index in range(force.getNumLennardJonesTypePairs()):
        type1, type2, c6, c12 = force.getLennardJonesTypePairParameters(index)
        table[type1, type2] = table[type2, type1] = (c6.value_in_unit(c6.unit), c12.value_in_unit(c12.unit))
    types = np.array([force.getParticleLennardJonesType(i) for i in range(force.getNumParticles())])
    kinds, counts = np.unique(types, return_counts=True)
    sum6 = sum12 = 0.0
    for a in range(len(kinds)):
        for b in range(a + 1):
            pairs = counts[a] * (counts[a] + 1) / 2 if a == b else counts[a] * counts[b]
            sum6 += pairs * table[kinds[a], kinds[b]][0]
            sum12 += pairs * table[kinds[a], kinds[b]][1]
    n, rc = len(types), 1.1
    volume = np.prod([vector[k].value_in_unit(unit.nanometer) for k, vector in enumerate(system.getDefaultPeriodicBoxVectors())])
    analytic = 2 * math.pi * n * n * (sum12 / (9 * rc ** 9) - sum6 / (3 * rc ** 3)) / (n * (n + 1) / 2) / volume
    assert narumi == pytest.approx(analytic, rel=1e-12)
    assert openmm_value == pytest.approx(analytic, rel=1e-5)


# ---------------------------------------------------------------------------------------------------------------------
# CharmmPsfFile's NBFIX and AmberPrmtopFile's acoef/bcoef sets, built as those loaders build them

CHARMM_TYPES = [(0.20, 0.46), (0.18, 0.30), (0.22, 0.60), (0.15, 0.20)]  # (Rmin/2 nm, epsilon kJ/mol)
CHARMM_NBFIX = {(0, 2): (0.36, 0.9), (1, 3): (0.31, 0.15)}               # (Rmin nm, epsilon kJ/mol)


def chain_system(expression, seed, table_first, switch=None, long_range=False, method="CutoffPeriodic"):
    """8 chains of 5 beads with random charges and random Lennard-Jones types: a NonbondedForce with the charges,
    epsilon 0 and the 1-2, 1-3 exclusions and 1-4 exceptions (their Lennard-Jones from the types), and a
    CustomNonbondedForce with CHARMM's tables (acoef = sqrt(eps) Rmin^6, bcoef = 2 eps Rmin^6, NBFIX overrides) that
    excludes the exception pairs.  Returns (system, positions)."""
    rng = np.random.default_rng(seed)
    positions, edge = chain_positions(8, 5, 1.6, 0.15, seed)
    count = len(positions)
    types = rng.integers(0, len(CHARMM_TYPES), count)
    charges = rng.uniform(-0.8, 0.8, count)
    system = openmm.System()
    system.setDefaultPeriodicBoxVectors(*(np.eye(3) * edge))
    numTypes = len(CHARMM_TYPES)
    acoef, bcoef = [0.0] * numTypes ** 2, [0.0] * numTypes ** 2
    for i in range(numTypes):
        for j in range(numTypes):
            rmin, epsilon = CHARMM_NBFIX.get((min(i, j), max(i, j)), (
                CHARMM_TYPES[i][0] + CHARMM_TYPES[j][0], math.sqrt(CHARMM_TYPES[i][1] * CHARMM_TYPES[j][1])))
            acoef[i + numTypes * j] = math.sqrt(epsilon) * rmin ** 6
            bcoef[i + numTypes * j] = 2 * epsilon * rmin ** 6
    nonbonded = openmm.NonbondedForce()
    table = openmm.CustomNonbondedForce(expression)
    table.addTabulatedFunction("acoef", openmm.Discrete2DFunction(numTypes, numTypes, acoef))
    table.addTabulatedFunction("bcoef", openmm.Discrete2DFunction(numTypes, numTypes, bcoef))
    table.addPerParticleParameter("type")
    for i in range(count):
        system.addParticle(12.0)
        nonbonded.addParticle(charges[i], 1.0, 0.0)
        table.addParticle([int(types[i])])
    for chain in range(0, count, 5):
        for i in range(chain, chain + 5):
            for j in range(i + 1, min(i + 4, chain + 5)):
                if j - i < 3:
                    nonbonded.addException(i, j, 0.0, 0.1, 0.0)
                else:  # a 1-4 pair: CHARMM's e14fac and the types' own (here: combined) parameters
                    a = acoef[types[i] + numTypes * types[j]]
                    b = bcoef[types[i] + numTypes * types[j]]
                    nonbonded.addException(i, j, 0.5 * charges[i] * charges[j], (a * a / b) ** (1 / 6), b * b / (4 * a * a))
                table.addExclusion(i, j)
    for force in (nonbonded, table):
        force.setNonbondedMethod(getattr(type(force), method))
        force.setCutoffDistance(1.0)
    if switch is not None:
        table.setUseSwitchingFunction(True)
        table.setSwitchingDistance(switch)
    table.setUseLongRangeCorrection(long_range)
    for force in ((table, nonbonded) if table_first else (nonbonded, table)):
        system.addForce(force)
    bonds = openmm.HarmonicBondForce()
    for chain in range(0, count, 5):
        for i in range(chain, chain + 4):
            bonds.addBond(i, i + 1, 0.15, 1000.0)
    system.addForce(bonds)
    return system, positions


def charmm_system(seed=1, **settings):
    """CharmmPsfFile's set: NonbondedForce first, switching, no long-range correction."""
    return chain_system(CHARMM_EXPRESSION, seed, table_first=False, **{"switch": 0.8, **settings})


def amber_system(seed=2, **settings):
    """AmberPrmtopFile's set: the table force before the NonbondedForce, the long-range correction on."""
    return chain_system(AMBER_EXPRESSION, seed, table_first=True, **{"long_range": True, **settings})


@pytest.mark.parametrize("method", ["CutoffPeriodic", "CutoffNonPeriodic", "NoCutoff"])
def test_charmm_nbfix_fuses(method):
    system, positions = charmm_system(method=method)
    fused = assert_fusion_reproduces(system, positions)
    force = NarumiNonbondedForce.cast(fused.getForce(0))
    assert force.getNonbondedMethod() == getattr(NarumiNonbondedForce, method)
    assert fused.getForce(1).getName() == "HarmonicBondForce"


def test_amber_tables_fuse_at_the_first_index():
    system, positions = amber_system()
    fused = assert_fusion_reproduces(system, positions)
    assert NarumiNonbondedForce.isinstance(fused.getForce(0)) and fused.getNumForces() == 2
    assert NarumiNonbondedForce.cast(fused.getForce(0)).getUseDispersionCorrection()


@pytest.mark.parametrize("form", ["quantity", "list", "numpy"])
def test_positions_as_openmm_takes_them(form):
    system, positions = charmm_system()
    given = {"quantity": positions * unit.nanometer, "list": [tuple(p) for p in positions], "numpy": positions}[form]
    assert openmmnarumi.replaceNonbondedForces(copy.deepcopy(system), given) == 1
    angstroms = [openmm.Vec3(*p) * unit.angstrom for p in 10 * positions]  # each row a Quantity
    assert openmmnarumi.replaceNonbondedForces(copy.deepcopy(system), angstroms) == 1


def test_fused_force_takes_the_accumulation_method():
    system, positions = charmm_system()
    assert openmmnarumi.replaceNonbondedForces(system, positions, accumulationMethod=NarumiNonbondedForce.TileSums) == 1
    fused = [NarumiNonbondedForce.cast(f) for f in system.getForces() if NarumiNonbondedForce.isinstance(f)]
    assert [f.getAccumulationMethod() for f in fused] == [NarumiNonbondedForce.TileSums]


# ---------------------------------------------------------------------------------------------------------------------
# Refusals: each names what differs, and the System is unchanged

def table_force(system):
    return next(f for f in system.getForces() if isinstance(f, openmm.CustomNonbondedForce))


def assert_refused(system, positions, *fragments):
    before = xml(system)
    with pytest.raises(openmm.OpenMMException) as error:
        openmmnarumi.replaceNonbondedForces(system, *positions)
    for fragment in fragments:
        assert fragment in str(error.value)
    assert xml(system) == before


def test_refuses_without_positions():
    system, _ = charmm_system()
    assert_refused(system, (), "pass positions", "replaceNonbondedForces(system, positions)")


def test_refuses_positions_of_another_system():
    system, positions = charmm_system()
    assert_refused(system, (positions[:-1],), "39 positions for a System of 40 particles")
    positions[3, 1] = np.nan
    assert_refused(system, (positions,), "position of particle 3 is not finite")


def test_refuses_a_different_cutoff():
    system, positions = charmm_system()
    table_force(system).setCutoffDistance(0.9)
    assert_refused(system, (positions,), "cutoff 0.9", "one cutoff")


def test_refuses_interaction_groups():
    system, positions = charmm_system()
    table_force(system).addInteractionGroup(range(20), range(20, 40))
    assert_refused(system, (positions,), "1 interaction groups")


def test_refuses_a_different_expression():
    system, positions = charmm_system()
    table_force(system).setEnergyFunction("2*((a/r6)^2-b/r6); r6=r^6; a=acoef(type1, type2); b=bcoef(type1, type2)")
    assert_refused(system, (positions,), "energy expression '2*((a/r6)^2-b/r6)")


def test_refuses_exclusions_that_are_not_the_exceptions():
    system, positions = charmm_system()
    table_force(system).addExclusion(0, 39)
    assert_refused(system, (positions,), "excludes particles 0 and 39, which are no exception")


def test_refuses_asymmetric_tables():
    system, positions = charmm_system()
    table = table_force(system)
    values = list(table.getTabulatedFunction(0).getFunctionParameters()[2])
    values[1] *= 1.01  # types 1, 0 but not 0, 1
    table.getTabulatedFunction(0).setFunctionParameters(4, 4, values)
    assert_refused(system, (positions,), "not symmetric for types 0 and 1")


def test_refuses_lennard_jones_in_the_nonbonded_force():
    system, positions = charmm_system()
    nonbonded = next(f for f in system.getForces() if isinstance(f, openmm.NonbondedForce))
    charge, sigma, _ = nonbonded.getParticleParameters(7)
    nonbonded.setParticleParameters(7, charge, sigma, 0.1)
    assert_refused(system, (positions,), "particle 7 epsilon 0.1")


def test_refuses_when_the_reference_check_fails():
    """Two non-excluded particles at the same place: the replaced forces' energy is not finite, so the check cannot
    pass."""
    system, positions = charmm_system()
    positions[20] = positions[0]
    assert_refused(system, (positions,), "does not reproduce the forces it would replace", "System is left unchanged")
