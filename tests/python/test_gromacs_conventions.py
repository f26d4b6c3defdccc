"""NarumiNonbondedForce with GROMACS's conventions (Lennard-Jones type table, potential shift, epsilon_r, epsilon_rf =
infinity, GROMACS's reaction field) against GROMACS itself: gmx_d reruns of the Martini 2 bilayers of data/martini and
of a small generated topology with [ pairs ], the force built from the nonbonded model that gmx_d dumps
(tests/support/gromacs.py).  Also the NBFIX semantics (types overriding Lorentz-Berthelot for listed pairs only)
against a NumPy direct sum, and the Python face of these settings."""
import copy
import os
import pickle

import numpy as np
import openmm
import openmm.unit as unit
import pytest

from openmmnarumi import NarumiNonbondedForce
from conftest import relative_rms
from tests.support import gromacs
from tests.support.gromacs_direct_sum import ONE_4PI_EPS0, minimum_image, spread_virtual_site_forces

PLATFORMS = ["Reference", "CPU"]
GROUPS = {"LJ": 1, "Coulomb": 2}


def narumi_from_model(model, coulomb=True, lennard_jones=True, convention=NarumiNonbondedForce.GromacsReactionField):
    """A NarumiNonbondedForce with GROMACS's nonbonded model: its charges (or none), LJ types and the full C6/C12 table
    (or none), grompp's exclusions, the 1-4 pairs of [ pairs ] (LJ14: fudgeQQ q_i q_j and the pair's C6/C12) and the
    inputrec's cut-off, dielectric constants and modifiers.  Exceptions use periodic images: mdrun's frame has the
    atoms put into the box."""
    settings = model.settings
    if model.rvdw != model.rcoulomb or settings["vdw-type"] != "Cut-off" or settings["DispCorr"] != "No":
        raise NotImplementedError(f"rvdw {model.rvdw}, rcoulomb {model.rcoulomb}, vdw-type {settings['vdw-type']}, "
                                  f"DispCorr {settings['DispCorr']}")
    force = NarumiNonbondedForce()
    force.setNonbondedMethod(NarumiNonbondedForce.CutoffPeriodic)
    force.setCutoffDistance(model.rcoulomb)
    force.setUseDispersionCorrection(False)
    force.setExceptionsUsePeriodicBoundaryConditions(True)
    force.setCoulombDielectric(model.epsilon_r)
    if settings["coulombtype"] == "Reaction-Field":
        force.setReactionFieldDielectric(model.epsilon_rf)  # inf for the mdp's 0
    elif settings["coulombtype"] == "Cut-off" and settings["coulomb-modifier"] == "Potential-shift":
        force.setReactionFieldDielectric(model.epsilon_r)  # k_rf = 0, c_rf = 1/rc: GROMACS's plain cut-off
    else:
        raise NotImplementedError(f"coulombtype {settings['coulombtype']} with {settings['coulomb-modifier']}")
    force.setReactionFieldConvention(convention)
    if settings["vdw-modifier"] == "Potential-shift":
        force.setLennardJonesModifier(NarumiNonbondedForce.LennardJonesPotentialShift)
    if not coulomb:
        force.setElectrostaticsMethod(NarumiNonbondedForce.NoCoulomb)
        force.setReactionFieldConvention(NarumiNonbondedForce.OpenMMReactionField)
    for i, charge in enumerate(model.charges):
        force.addParticle(charge if coulomb else 0.0, 0.0, 0.0)
        if lennard_jones:
            force.setParticleLennardJonesType(i, int(model.lj_types[i]))
    if lennard_jones:
        for a in range(len(model.c6)):
            for b in range(a, len(model.c6)):
                force.addLennardJonesTypePair_usingC6C12(a, b, model.c6[a, b], model.c12[a, b])
    for i, j in model.exclusions:
        force.addException(int(i), int(j), 0.0, 1.0, 0.0)
    if "LJ14" in model.interactions:
        atoms, params = model.interactions["LJ14"]
        for (i, j), (c6, c12, *_) in zip(atoms, params):
            sigma, epsilon = (c12 / c6) ** (1 / 6), c6 * c6 / (4 * c12)
            force.addException(int(i), int(j), model.fudge_qq * model.charges[i] * model.charges[j] if coulomb else 0.0,
                               sigma if lennard_jones else 1.0, epsilon if lennard_jones else 0.0, True)
    return force


def context_of(forces, positions, box, platform):
    """A Context of a System of the given forces and len(positions) particles of mass 1 (the virtual sites too: they
    stay where the frame puts them, as in mdrun's rerun)."""
    system = openmm.System()
    for _ in positions:
        system.addParticle(1.0)
    system.setDefaultPeriodicBoxVectors(*[openmm.Vec3(*row) for row in box])
    for force in forces:
        system.addForce(force)
    context = openmm.Context(system, openmm.VerletIntegrator(0.001), openmm.Platform.getPlatformByName(platform))
    context.setPositions(positions)
    return context


def energy_and_forces(context, groups=-1):
    """Energy (kJ/mol) and forces (kJ/mol/nm) of the given force groups."""
    state = context.getState(getEnergy=True, getForces=True, groups=groups)
    return (state.getPotentialEnergy().value_in_unit(unit.kilojoule_per_mole),
            state.getForces(asNumpy=True).value_in_unit(unit.kilojoule_per_mole / unit.nanometer))


def evaluate(forces, positions, box, platform):
    return energy_and_forces(context_of(forces, positions, box, platform))


def lj_and_coulomb(run, platform, **options):
    """(LJ energy, Coulomb energy, nonbonded forces with the virtual sites' forces spread as mdrun spreads them) of
    two forces built from the rerun's model, one for each term, in force groups of their own."""
    lj = narumi_from_model(run.model, coulomb=False, **options)
    coulomb = narumi_from_model(run.model, lennard_jones=False, **options)
    lj.setForceGroup(GROUPS["LJ"])
    coulomb.setForceGroup(GROUPS["Coulomb"])
    context = context_of([lj, coulomb], run.positions, run.box, platform)
    lj_energy, _ = energy_and_forces(context, {GROUPS["LJ"]})
    coulomb_energy, _ = energy_and_forces(context, {GROUPS["Coulomb"]})
    _, forces = energy_and_forces(context)
    return lj_energy, coulomb_energy, spread_virtual_site_forces(forces, run.positions, run.box, run.model.virtual_sites)


# ---------------------------------------------------------------------------------------------------------------------
# The Martini bilayers against gmx_d


@pytest.mark.parametrize("platform", PLATFORMS)
@pytest.mark.parametrize("system", ["simple_lipid", "complex_lipid"])
def test_martini_bilayer_matches_gmx(martini_rerun, system, platform):
    _, run = martini_rerun(system)
    assert run.settings["epsilon-r"] == "15" and np.isinf(run.model.epsilon_rf)
    lj, coulomb, forces = lj_and_coulomb(run, platform)
    assert lj == pytest.approx(run.energies["LJ (SR)"], rel=1e-9)
    assert coulomb == pytest.approx(run.energies["Coulomb (SR)"], rel=1e-9)
    assert relative_rms(forces, run.nonbonded_forces) < 1e-9
    # One force with both terms gives their sum.
    both, _ = evaluate([narumi_from_model(run.model)], run.positions, run.box, platform)
    assert both == pytest.approx(run.energies["LJ (SR)"] + run.energies["Coulomb (SR)"], rel=1e-9)


def test_martini_bilayer_needs_each_convention(martini_rerun):
    """What each GROMACS setting is worth on simple_lipid (kJ/mol), so that the test above can fail: OpenMM's reaction
    field, no potential shift or no type table each move a term far beyond its tolerance."""
    _, run = martini_rerun("simple_lipid")
    lj, coulomb, _ = lj_and_coulomb(run, "Reference", convention=NarumiNonbondedForce.OpenMMReactionField)
    assert lj == pytest.approx(run.energies["LJ (SR)"], rel=1e-9)
    assert abs(coulomb - run.energies["Coulomb (SR)"]) > 50  # the excluded pairs' reaction field and the self term
    _, run_unshifted = martini_rerun("simple_lipid", **{"vdw-modifier": "None"})
    unshifted, _, _ = lj_and_coulomb(run_unshifted, "Reference")
    assert unshifted == pytest.approx(run_unshifted.energies["LJ (SR)"], rel=1e-9)
    assert abs(unshifted - run.energies["LJ (SR)"]) > 1000


def test_plain_cutoff_coulomb_is_reaction_field_with_eps_rf_equal_to_eps_r(martini_rerun):
    """GROMACS's coulombtype = Cut-off (with its default potential shift) is its reaction field with k_rf = 0 and
    c_rf = 1/rc: here setReactionFieldDielectric(eps_r), excluded pairs and self term included."""
    _, run = martini_rerun("simple_lipid", coulombtype="Cut-off")
    lj, coulomb, forces = lj_and_coulomb(run, "Reference")
    assert coulomb == pytest.approx(run.energies["Coulomb (SR)"], rel=1e-9)
    assert lj == pytest.approx(run.energies["LJ (SR)"], rel=1e-9)
    assert relative_rms(forces, run.nonbonded_forces) < 1e-9


# ---------------------------------------------------------------------------------------------------------------------
# [ pairs ]: 1-4 exceptions against gmx_d

PAIRS_TOPOLOGY = """[ defaults ]
; nbfunc comb-rule gen-pairs fudgeLJ fudgeQQ
1 1 no 1.0 0.5

[ atomtypes ]
A 72.0 0.000 A 0.0 0.0
B 72.0 0.000 A 0.0 0.0

[ nonbond_params ]
A A 1 0.21558 0.0023238
A B 1 0.15 0.0016
B B 1 0.10 0.0010

[ moleculetype ]
M 3

[ atoms ]
1 A 1 M A1 1 0.5
2 B 1 M B2 2 -0.3
3 A 1 M A3 3 0.4
4 B 1 M B4 4 -0.6
5 A 1 M A5 5 0.2

[ bonds ]
; force constant 0: the only bonded forces are those of [ pairs ]
1 2 1 0.3 0
2 3 1 0.3 0
3 4 1 0.3 0
4 5 1 0.3 0

[ pairs ]
1 4 1 0.12 0.0013
2 5 1 0.09 0.0011

[ system ]
1-4 pairs

[ molecules ]
M 27
"""

PAIRS_MDP = """integrator = md
nsteps = 0
cutoff-scheme = Verlet
coulombtype = reaction-field
rcoulomb = 1.1
epsilon_r = 15
epsilon_rf = 0
vdw_type = cutoff
rvdw = 1.1
pbc = xyz
"""


def write_pairs_system(folder, seed=5):
    """27 charged 5-bead chains (nrexcl = 3: 1-2, 1-3 and 1-4 pairs excluded; 1-4 pairs in [ pairs ] with fudgeQQ 0.5)
    in a 6 nm box, one chain per 2 nm cell, so that every 1-4 pair is within the cut-off."""
    rng = np.random.default_rng(seed)
    lines, atom = ["1-4 pairs", "135"], 0
    for cell in np.ndindex(3, 3, 3):
        position = (np.array(cell) + 0.2 + 0.1 * rng.random(3)) * 2.0
        axis = rng.normal(size=3)
        axis /= np.linalg.norm(axis)
        for bead in range(5):
            atom += 1
            lines.append("%5d%-5s%5s%5d%8.3f%8.3f%8.3f" % ((atom - 1) // 5 + 1, "M", f"A{bead + 1}", atom, *position))
            step = axis + 0.4 * rng.normal(size=3)
            position = position + 0.28 * step / np.linalg.norm(step)
    lines.append("%10.5f%10.5f%10.5f" % (6.0, 6.0, 6.0))
    for name, text in (("system.top", PAIRS_TOPOLOGY), ("run.mdp", PAIRS_MDP), ("conf.gro", "\n".join(lines) + "\n")):
        with open(os.path.join(folder, name), "w") as out:
            out.write(text)


@pytest.fixture(scope="module")
def pairs_rerun(tmp_path_factory):
    gromacs.skip_unless_available()
    folder = str(tmp_path_factory.mktemp("pairs"))
    write_pairs_system(folder)
    return gromacs.rerun(folder)


@pytest.mark.parametrize("platform", PLATFORMS)
def test_one_four_pairs_match_gmx(pairs_rerun, platform):
    """A GROMACS 1-4 pair is an excluded pair with its own plain Coulomb (fudgeQQ q_i q_j / (4 pi eps0 eps_r r)) and
    LJ (no shift, no cut-off): as an exception here, it also gets the excluded pairs' reaction field from the full
    charges, as gmx_d computes it (Coulomb-14 is divided by epsilon_r too)."""
    run = pairs_rerun
    atoms, _ = run.model.interactions["LJ14"]
    excluded = {tuple(p) for p in run.model.exclusions}
    assert len(atoms) == 54 and all(tuple(sorted(p)) in excluded for p in atoms)
    lj, coulomb, _ = lj_and_coulomb(run, platform)
    assert lj == pytest.approx(run.energies["LJ (SR)"] + run.energies["LJ-14"], rel=1e-9)
    assert coulomb == pytest.approx(run.energies["Coulomb (SR)"] + run.energies["Coulomb-14"], rel=1e-9)
    # The bonds have no force constant: mdrun's total force is the nonbonded and 1-4 one.  GROMACS tabulates the 1-4
    # interactions (cubic splines), whose forces are good to about 3e-9.
    _, forces = evaluate([narumi_from_model(run.model)], run.positions, run.box, platform)
    assert run.energies["Bond"] == 0
    assert relative_rms(forces, run.forces) < 2e-8


def test_one_four_pairs_get_the_reaction_field_of_their_charges(pairs_rerun):
    """The excluded-pair term of the 1-4 pairs alone, from the full (not fudged) charges, is what separates OpenMM's
    convention from gmx_d's Coulomb (SR) once the self term is counted."""
    run = pairs_rerun
    _, coulomb_openmm, _ = lj_and_coulomb(run, "Reference", convention=NarumiNonbondedForce.OpenMMReactionField)
    rc, f, q = run.model.rcoulomb, ONE_4PI_EPS0 / run.model.epsilon_r, run.model.charges
    k_rf, c_rf = 1 / (2 * rc ** 3), 3 / (2 * rc)
    i, j = run.model.exclusions.T
    r2 = np.sum(minimum_image(run.positions[j] - run.positions[i], run.box) ** 2, axis=1)
    within = r2 < rc * rc
    excluded_terms = np.sum(f * q[i] * q[j] * (k_rf * r2 - c_rf) * within) - f * c_rf / 2 * np.sum(q ** 2)
    gmx = run.energies["Coulomb (SR)"] + run.energies["Coulomb-14"]
    assert abs(coulomb_openmm - gmx) > 10
    assert coulomb_openmm + excluded_terms == pytest.approx(gmx, rel=1e-9)


# ---------------------------------------------------------------------------------------------------------------------
# NBFIX semantics against a NumPy direct sum


def lennard_jones_fluid(seed=3, n=400, edge=3.5):
    """Particles on a jittered lattice with four (sigma, epsilon) classes; classes 0-2 typed 10, 11, 12, class 3 untyped,
    and the pairs (10, 10), (10, 11) with C6 = 0, (12, 11) listed, (12, 12) and (10, 12) not."""
    rng = np.random.default_rng(seed)
    per_side = int(np.ceil(n ** (1 / 3)))
    grid = np.stack(np.meshgrid(*[np.arange(per_side)] * 3, indexing="ij"), -1).reshape(-1, 3)[:n]
    positions = (grid + 0.5 + 0.15 * rng.uniform(-1, 1, (n, 3))) * edge / per_side
    classes = rng.integers(0, 4, n)
    sigma = np.array([0.30, 0.34, 0.38, 0.42])[classes]
    epsilon = np.array([0.6, 0.9, 0.4, 1.2])[classes]
    types = np.array([10, 11, 12, -1])[classes]
    table = {(10, 10): (0.0035, 3.5e-6), (10, 11): (0.0, 6e-6), (11, 12): (0.006, 8e-6)}
    return positions, np.eye(3) * edge, sigma, epsilon, types, table


def nbfix_direct_sum(positions, box, sigma, epsilon, types, table, cutoff, shift):
    """Energy and forces of every pair within the cut-off (minimum image): the listed entry of two typed particles'
    types, else Lorentz-Berthelot; each pair's value at the cut-off subtracted when shift."""
    n = len(positions)
    i, j = np.triu_indices(n, 1)
    delta = minimum_image(positions[j] - positions[i], box)
    r2 = np.sum(delta ** 2, axis=1)
    keep = r2 < cutoff * cutoff
    i, j, delta, r2 = i[keep], j[keep], delta[keep], r2[keep]
    s, e = 0.5 * (sigma[i] + sigma[j]), np.sqrt(epsilon[i] * epsilon[j])
    c6, c12 = 4 * e * s ** 6, 4 * e * s ** 12
    for (a, b), (entry6, entry12) in table.items():
        listed = ((types[i] == a) & (types[j] == b)) | ((types[i] == b) & (types[j] == a))
        c6, c12 = np.where(listed, entry6, c6), np.where(listed, entry12, c12)
    energy = np.sum(c12 / r2 ** 6 - c6 / r2 ** 3 - (c12 / cutoff ** 12 - c6 / cutoff ** 6 if shift else 0.0))
    dE_dr_over_r = (-12 * c12 / r2 ** 6 + 6 * c6 / r2 ** 3) / r2
    forces = np.zeros((n, 3))
    for d in range(3):  # the force on i is dE/dr / r * (x_j - x_i)
        forces[:, d] += np.bincount(i, dE_dr_over_r * delta[:, d], n) - np.bincount(j, dE_dr_over_r * delta[:, d], n)
    return energy, forces


@pytest.mark.parametrize("platform", PLATFORMS)
@pytest.mark.parametrize("shift", [False, True])
def test_type_table_has_nbfix_semantics(platform, shift):
    positions, box, sigma, epsilon, types, table = lennard_jones_fluid()
    force = NarumiNonbondedForce()
    force.setNonbondedMethod(NarumiNonbondedForce.CutoffPeriodic)
    force.setCutoffDistance(1.1)
    force.setUseDispersionCorrection(False)
    if shift:
        force.setLennardJonesModifier(NarumiNonbondedForce.LennardJonesPotentialShift)
    for k in range(len(positions)):
        force.addParticle(0.0, sigma[k], epsilon[k])
        force.setParticleLennardJonesType(k, int(types[k]))
    for (a, b), (c6, c12) in table.items():
        force.addLennardJonesTypePair_usingC6C12(b, a, c6, c12)  # either order
    energy, forces = evaluate([force], positions, box, platform)
    expected_energy, expected_forces = nbfix_direct_sum(positions, box, sigma, epsilon, types, table, 1.1, shift)
    assert energy == pytest.approx(expected_energy, rel=1e-11)
    assert relative_rms(forces, expected_forces) < 1e-11
    # The table matters: without it the energy is another one.
    lorentz_berthelot, _ = nbfix_direct_sum(positions, box, sigma, epsilon, types, {}, 1.1, shift)
    assert abs(lorentz_berthelot - expected_energy) > 1.0


# ---------------------------------------------------------------------------------------------------------------------
# The Python face of the settings


def test_conventions_default_to_openmms_and_are_named_enums():
    force = NarumiNonbondedForce()
    assert force.getCoulombDielectric() == 1.0
    assert force.getLennardJonesModifier() == NarumiNonbondedForce.NoLennardJonesModifier == 0
    assert NarumiNonbondedForce.LennardJonesPotentialShift == 1
    assert force.getReactionFieldConvention() == NarumiNonbondedForce.OpenMMReactionField == 0
    assert NarumiNonbondedForce.GromacsReactionField == 1
    assert force.getNumLennardJonesTypePairs() == 0
    force.addParticle(0.0, 0.3, 0.5)
    assert force.getParticleLennardJonesType(0) == -1


def test_type_pairs_take_and_give_quantities():
    force = NarumiNonbondedForce()
    force.addLennardJonesTypePair(0, 1, 3 * unit.angstrom, 0.5 * unit.kilocalorie_per_mole)
    force.addLennardJonesTypePair_usingC6C12(2, 1, 2e-3 * unit.kilojoule_per_mole * unit.nanometer ** 6,
                                             4e-6 * unit.kilojoule_per_mole * unit.nanometer ** 12)
    type1, type2, c6, c12 = force.getLennardJonesTypePairParameters(0)
    assert (type1, type2) == (0, 1)
    epsilon = 0.5 * 4.184
    assert c6.value_in_unit(unit.kilojoule_per_mole * unit.nanometer ** 6) == pytest.approx(4 * epsilon * 0.3 ** 6, rel=1e-14)
    assert c12.value_in_unit(unit.kilojoule_per_mole * unit.nanometer ** 12) == pytest.approx(4 * epsilon * 0.3 ** 12,
                                                                                              rel=1e-14)
    type1, type2, c6, c12 = force.getLennardJonesTypePairParameters(1)
    assert (type1, type2, c6._value, c12._value) == (2, 1, 2e-3, 4e-6)
    force.setLennardJonesTypePairParameters(1, 2, 3, 0.0, 1e-6)
    assert force.getLennardJonesTypePairParameters(1)[:2] == [2, 3]


def test_copies_and_pickles_keep_the_conventions():
    force = NarumiNonbondedForce()
    force.setReactionFieldDielectric(float("inf"))
    force.setCoulombDielectric(15)
    force.setLennardJonesModifier(NarumiNonbondedForce.LennardJonesPotentialShift)
    force.setReactionFieldConvention(NarumiNonbondedForce.GromacsReactionField)
    force.addParticle(0.1, 0.3, 0.5)
    force.addParticle(-0.1, 0.3, 0.5)
    force.setParticleLennardJonesType(1, 7)
    force.addLennardJonesTypePair_usingC6C12(7, 7, 0.0, 1e-6)
    for other in (copy.deepcopy(force), pickle.loads(pickle.dumps(force))):
        assert np.isinf(other.getReactionFieldDielectric())
        assert other.getCoulombDielectric() == 15
        assert other.getLennardJonesModifier() == NarumiNonbondedForce.LennardJonesPotentialShift
        assert other.getReactionFieldConvention() == NarumiNonbondedForce.GromacsReactionField
        assert [other.getParticleLennardJonesType(i) for i in range(2)] == [-1, 7]
        assert other.getLennardJonesTypePairParameters(0)[:2] == [7, 7]


def test_bad_settings_raise_naming_the_value():
    force = NarumiNonbondedForce()
    force.addParticle(0.0, 0.3, 0.5)
    with pytest.raises(openmm.OpenMMException, match="pass infinity"):
        force.setReactionFieldDielectric(0)
    with pytest.raises(openmm.OpenMMException, match="Coulomb dielectric must be positive, got -2"):
        force.setCoulombDielectric(-2)
    with pytest.raises(openmm.OpenMMException, match="got -3"):
        force.setParticleLennardJonesType(0, -3)
    with pytest.raises(openmm.OpenMMException, match="C12 cannot be negative, got -1"):
        force.addLennardJonesTypePair_usingC6C12(0, 0, 0.0, -1.0)
    force.addLennardJonesTypePair_usingC6C12(0, 1, 0.0, 1e-6)
    with pytest.raises(openmm.OpenMMException, match="already a Lennard-Jones type pair entry for types 1 and 0"):
        force.addLennardJonesTypePair_usingC6C12(1, 0, 0.0, 2e-6)
    assert force.addLennardJonesTypePair_usingC6C12(1, 0, 0.0, 2e-6, True) == 0
    with pytest.raises(openmm.OpenMMException, match="Lennard-Jones modifier 5"):
        force.setLennardJonesModifier(5)
