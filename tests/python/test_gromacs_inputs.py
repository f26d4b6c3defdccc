"""openmmnarumi.gromacs.GromacsInputs against GROMACS itself: the Martini 2 bilayers of data/martini (the stored
gmx_d references and fresh gmx_d reruns) and a small generated topology with the terms the bilayers lack (restricted
bending, combined bending-torsion, virtual_sitesn, [ pairs ], combination rules 2 and 3, ...), term by term, forces and
exclusions (those of grompp's run input file, tests/support/gromacs.py); the preprocessor, the .mdp reader and every
refusal."""
import json
import os
import shutil
import subprocess
import sys

import numpy as np
import openmm
import openmm.unit as unit
import pytest

from conftest import relative_rms
from openmmnarumi.gromacs import FORCE_GROUPS, GromacsInputs, MdpSettings
from tests.support import gromacs

NONBONDED = "LJ (SR) + Coulomb (SR)"
# mdrun evaluates the 1-4 interactions from cubic-spline tables: LJ-14 agrees to about 1e-8, the others to 1e-12.
TABULATED = {"LJ-14", "Coulomb-14"}
TABULATED_TOLERANCE = 1e-7


def context(inputs, platform="Reference"):
    """A Context of the inputs' System at the .gro positions, virtual sites where the file puts them (as mdrun -rerun
    leaves them)."""
    result = openmm.Context(inputs.system, openmm.VerletIntegrator(0.001),
                            openmm.Platform.getPlatformByName(platform))
    result.setPositions(inputs.positions)
    return result


def energy(ctx, groups=-1):
    return ctx.getState(getEnergy=True, groups=groups).getPotentialEnergy().value_in_unit(unit.kilojoule_per_mole)


def forces(ctx):
    return ctx.getState(getForces=True).getForces(asNumpy=True).value_in_unit(unit.kilojoule_per_mole / unit.nanometer)


def term_energies(inputs, ctx):
    """{GROMACS energy term: energy} of every force group, LJ (SR) and Coulomb (SR) apart (LJ with the charges set to
    zero), and Potential."""
    terms = {term: energy(ctx, {group}) for term, group in inputs.forceGroups.items()}
    force = inputs.nonbondedForce
    charges = [force.getParticleParameters(i)[0] for i in range(force.getNumParticles())]
    for i in range(force.getNumParticles()):
        force.setParticleParameters(i, 0.0, *force.getParticleParameters(i)[1:])
    force.updateParametersInContext(ctx)
    terms["LJ (SR)"] = energy(ctx, {inputs.forceGroups[NONBONDED]})
    for i, charge in enumerate(charges):
        force.setParticleParameters(i, charge, *force.getParticleParameters(i)[1:])
    force.updateParametersInContext(ctx)
    terms["Coulomb (SR)"] = terms.pop(NONBONDED) - terms["LJ (SR)"]
    terms["Potential"] = energy(ctx)
    return terms


def is_virtual_site(inputs):
    return np.array([inputs.system.isVirtualSite(i) for i in range(inputs.system.getNumParticles())])


def exclusions(inputs):
    force = inputs.nonbondedForce
    pairs = set()
    for k in range(force.getNumExceptions()):
        i, j, charge_product, _, epsilon = force.getExceptionParameters(k)
        assert charge_product.value_in_unit(unit.elementary_charge ** 2) == 0 and epsilon._value == 0
        pairs.add((min(i, j), max(i, j)))
    return pairs


def assert_matches_rerun(inputs, run, energy_tolerance=1e-9, force_tolerance=1e-8):
    """Every term of the loaded System against the rerun's term of that name, the total, the forces on the atoms
    (mdrun writes zeros on virtual sites, whose forces it has spread onto their constructing atoms, as OpenMM has)
    and the exclusions against those of the run input file."""
    ctx = context(inputs)
    terms = term_energies(inputs, ctx)
    for term, value in terms.items():
        tolerance = TABULATED_TOLERANCE if term in TABULATED else energy_tolerance
        assert value == pytest.approx(run.energies[term], rel=tolerance, abs=1e-9), term
    names = list(run.energies)
    potential_terms = names[:names.index("Potential")]  # the .edr lists the terms of Potential first
    assert all(term in terms or run.energies[term] == 0 for term in potential_terms), potential_terms
    atoms = ~is_virtual_site(inputs)
    assert relative_rms(forces(ctx)[atoms], run.forces[atoms]) < force_tolerance
    assert exclusions(inputs) == {tuple(pair) for pair in run.model.exclusions}
    return terms


def load(folder, top="system.top", gro=None, mdp=None, **options):
    gro = gro or next(name for name in sorted(os.listdir(folder)) if name.endswith(".gro"))
    mdp = mdp or next(name for name in sorted(os.listdir(folder)) if name.endswith(".mdp"))
    return GromacsInputs(os.path.join(folder, top), os.path.join(folder, gro), os.path.join(folder, mdp), **options)


# ---------------------------------------------------------------------------------------------------------------------
# The Martini bilayers


@pytest.fixture(scope="module")
def martini_folder(data_dir):
    def folder(system):
        path = os.path.join(data_dir, "martini", system)
        if not os.path.isdir(path):
            pytest.skip(f"{path} is absent (pytest --data-dir)")
        return path
    return folder


@pytest.mark.parametrize("system", ["simple_lipid", "complex_lipid"])
def test_martini_bilayer_matches_stored_gmx_references(martini_folder, system):
    """Bond, G96Angle, LJ (SR), Coulomb (SR) and Potential against reference_energies.json (6 decimals) and the forces
    against reference_forces.npy (double precision), on the atoms."""
    folder = martini_folder(system)
    inputs = load(folder, mdp="martini_md.mdp", gro="minimized.gro")
    with open(os.path.join(folder, "reference_energies.json")) as stored:
        reference = json.load(stored)["energies"]
    ctx = context(inputs)
    terms = term_energies(inputs, ctx)
    assert set(terms) == set(reference)
    for term, value in reference.items():
        assert terms[term] == pytest.approx(value, rel=1e-8, abs=1e-6), term
    atoms = ~is_virtual_site(inputs)
    reference_forces = np.load(os.path.join(folder, "reference_forces.npy"))
    assert np.all(reference_forces[~atoms] == 0)  # mdrun has spread the virtual sites' forces
    assert relative_rms(forces(ctx)[atoms], reference_forces[atoms]) < 1e-9
    assert inputs.system.getNumParticles() == len(reference_forces)


@pytest.mark.parametrize("system", ["simple_lipid", "complex_lipid"])
def test_martini_bilayer_matches_gmx_rerun(martini_rerun, martini_folder, system):
    """Each term, the forces and grompp's exclusions (complex_lipid: constraints of function 1 and the CHOL
    [ exclusions ]) against a fresh gmx_d rerun."""
    folder, run = martini_rerun(system)
    inputs = load(folder, mdp="martini_md.mdp", gro="minimized.gro")
    assert_matches_rerun(inputs, run)
    if system == "complex_lipid":
        assert inputs.system.getNumConstraints() == 3 * 148  # CHOL's constraint triangle, not FLEXIBLE's bonds
        assert sum(inputs.system.isVirtualSite(i) for i in range(inputs.system.getNumParticles())) == 592


def test_martini_bilayer_on_the_cpu_platform(martini_folder):
    folder = martini_folder("complex_lipid")
    inputs = load(folder, mdp="martini_md.mdp", gro="minimized.gro")
    with open(os.path.join(folder, "reference_energies.json")) as stored:
        reference = json.load(stored)["energies"]
    assert energy(context(inputs, "CPU")) == pytest.approx(reference["Potential"], rel=1e-9)


@pytest.mark.parametrize("precision", ["single", "mixed"])
@pytest.mark.parametrize("system", ["simple_lipid", "complex_lipid"])
def test_martini_bilayer_on_cuda_has_openmm_cudas_grade(martini_rerun, martini_folder, system, precision):
    """The CUDA platform's forces on the loaded bilayer against gmx_d's, within 2x the error of OpenMM's own CUDA
    platform on the same positions with OpenMM's GROMACS-exact route (NonbondedForce + CustomNonbondedForce table +
    CustomBondForce of the excluded pairs, benchmarks/martini_speed.py); the energy within 1e-5 of GROMACS's."""
    if "CUDA" not in [openmm.Platform.getPlatform(i).getName() for i in range(openmm.Platform.getNumPlatforms())]:
        pytest.skip("no CUDA platform")
    from benchmarks.martini_speed import route_system, type_table
    folder, run = martini_rerun(system)
    inputs = load(folder, mdp="martini_md.mdp", gro="minimized.gro")
    atoms = ~is_virtual_site(inputs)
    exact, left_out = route_system(inputs, "openmm-exact", type_table(inputs.nonbondedForce))
    errors, energies = {}, {}
    for name, system_under_test in (("narumi", inputs.system), ("openmm", exact)):
        ctx = openmm.Context(system_under_test, openmm.VerletIntegrator(0.001), openmm.Platform.getPlatformByName("CUDA"),
                             {"Precision": precision})
        ctx.setPositions(inputs.positions)
        errors[name] = relative_rms(forces(ctx)[atoms], run.forces[atoms])
        energies[name] = energy(ctx)
    print(f"{system}, {precision}: relative RMS force error against gmx_d {errors['narumi']:.3e} (OpenMM's exact route "
          f"on CUDA {errors['openmm']:.3e})")
    assert errors["narumi"] <= 2 * errors["openmm"]
    assert energies["narumi"] == pytest.approx(run.energies["Potential"], rel=1e-5)
    assert energies["openmm"] + left_out == pytest.approx(run.energies["Potential"], rel=1e-5)


def test_define_in_the_mdp_reaches_the_topology(martini_folder, tmp_path):
    """`define = -DFLEXIBLE` in the .mdp (or defines={"FLEXIBLE": ""}) turns CHOL's constraints into stiff bonds, as
    grompp does: the Bond term then agrees with gmx_d's for that .mdp."""
    gromacs.skip_unless_available()
    folder = martini_folder("complex_lipid")
    run = gromacs.rerun(folder, {"define": "-DFLEXIBLE"}, mdp="martini_md.mdp", maxwarn=2)  # stiff bonds warn
    gromacs.write_mdp(os.path.join(folder, "martini_md.mdp"), tmp_path / "flexible.mdp", {"define": "-DFLEXIBLE"})
    inputs = GromacsInputs(os.path.join(folder, "system.top"), os.path.join(folder, "minimized.gro"),
                           tmp_path / "flexible.mdp")
    by_argument = load(folder, mdp="martini_md.mdp", gro="minimized.gro", defines={"FLEXIBLE": ""})
    for flexible in (inputs, by_argument):
        assert flexible.system.getNumConstraints() == 0
        bond = energy(context(flexible), {flexible.forceGroups["Bond"]})
        assert bond == pytest.approx(run.energies["Bond"], rel=1e-9)
    rigid = load(folder, mdp="martini_md.mdp", gro="minimized.gro")
    assert run.energies["Bond"] - energy(context(rigid), {rigid.forceGroups["Bond"]}) > 30


# ---------------------------------------------------------------------------------------------------------------------
# A generated topology with the terms the bilayers lack

SYNTHETIC_TOPOLOGY = """[ defaults ]
; nbfunc comb-rule gen-pairs fudgeLJ fudgeQQ
1 {rule} yes 0.5 0.8333

[ atomtypes ]
CA 12.0 0.000 A 0.34 0.36
CB 14.0 0.000 A 0.32 0.70
HX  1.0 0.000 A 0.25 0.10
VS  0.0 0.000 V 0.0 0.0

[ nonbond_params ]
CA CB 1 0.33 0.5

[ pairtypes ]
CA HX 1 0.28 0.2

[ moleculetype ]
M 3

[ atoms ]
 1 CA 1 MOL C1  1  0.30
 2 CB 1 MOL C2  2 -0.40
 3 CA 1 MOL C3  3  0.20
 4 CB 1 MOL C4  4 -0.10
 5 HX 1 MOL H5  5  0.25
 6 CA 1 MOL C6  6 -0.25
 7 VS 2 MOL V7  7  0.10 0.0
 8 VS 2 MOL V8  8 -0.10 0.0
 9 VS 2 MOL V9  9  0.05 0.0
10 VS 2 MOL V10 10 -0.05 0.0
11 VS 2 MOL V11 11  0.15 0.0
12 HX 2 MOL V12 12 -0.15 0.0

[ bonds ]
; harmonic, G96, harmonic potential (no exclusion), connection (exclusion, no energy)
1 2 1 0.30 3000
2 3 2 0.31 9000
3 4 1 0.29 2500
4 5 6 0.35 1500
5 6 5

[ constraints ]
; function 1 excludes, function 2 does not
1 6 1 0.30
4 6 2 0.45

[ pairs ]
; generated from the nonbonded table (with [ nonbond_params ]) times fudgeLJ, from [ pairtypes ], and given
1 4 1
2 5 1
1 5 1
3 6 1 0.2 0.4

[ angles ]
1 2 3 1 115.0 80.0
2 3 4 2 125.0 30.0
3 4 5 10 110.0 40.0

[ dihedrals ]
1 2 3 4 1 30.0 5.0 2
2 3 4 5 9 0.0 3.0 1
2 3 4 5 9 60.0 1.5 3
1 2 3 4 11 2.0 3.0 -2.0 1.5 0.7 -0.4
3 4 5 6 3 1.0 2.0 -1.5 0.5 0.3 -0.2
2 1 3 4 2 10.0 50.0
1 3 4 2 4 180.0 4.0 2

[ virtual_sitesn ]
; centre of geometry of four atoms, centre of mass of four, weighted average of two
7 1 1 2 3 4
8 2 2 3 4 6
9 3 1 0.3 5 0.7

[ virtual_sites2 ]
10 1 6 1 0.3

[ virtual_sites3 ]
11 2 3 4 1 0.3 0.25
12 3 4 5 4 0.2 0.3 1.5

[ exclusions ]
7 8
11 1 2

[ system ]
synthetic

[ molecules ]
M 64
"""

SYNTHETIC_MDP = """integrator = md
nsteps = 0
cutoff-scheme = Verlet
coulombtype = reaction-field
rcoulomb = 1.1
epsilon_r = 2.5
epsilon_rf = 0
vdw_type = cutoff
rvdw = 1.1
"""

SYNTHETIC_TERMS = {"Bond", "G96Bond", "Harmonic Pot.", "Angle", "G96Angle", "Restr. Angles", "Proper Dih.",
                   "Per. Imp. Dih.", "Improper Dih.", "Ryckaert-Bell.", "CBT Dih.", "LJ-14", "Coulomb-14"}
MASSES = np.array([12.0, 14.0, 12.0, 14.0, 1.0, 12.0])


def construct_virtual_sites(x):
    """The six virtual sites of the molecule from its atoms x (6, 3), by the formulas of the GROMACS manual."""
    rij, rik = x[3] - x[2], x[4] - x[2]
    return np.array([x[0:4].mean(0),
                     (MASSES[[1, 2, 3, 5], None] * x[[1, 2, 3, 5]]).sum(0) / MASSES[[1, 2, 3, 5]].sum(),
                     0.3 * x[0] + 0.7 * x[4],
                     0.7 * x[0] + 0.3 * x[5],
                     0.45 * x[1] + 0.3 * x[2] + 0.25 * x[3],
                     x[2] + 0.2 * rij + 0.3 * rik + 1.5 * np.cross(rij, rik)])


def synthetic_molecule(rng):
    """A bent chain of five atoms 0.3 nm apart (bond angles 90-135 degrees), a sixth atom 0.3 nm from the first."""
    x, direction = [np.zeros(3)], None
    for _ in range(4):
        while True:
            step = rng.normal(size=3)
            step /= np.linalg.norm(step)
            if direction is None or 0.0 < np.dot(step, direction) < 0.7:
                break
        x.append(x[-1] + 0.3 * step)
        direction = step
    step = rng.normal(size=3)
    x.append(x[0] + 0.3 * step / np.linalg.norm(step))
    x = np.array(x)
    return np.vstack([x, construct_virtual_sites(x)])


def write_synthetic(folder, rule=2, mdp=SYNTHETIC_MDP, seed=7):
    """64 molecules, one per 1.8 nm cell of a 7.2 nm box."""
    rng = np.random.default_rng(seed)
    lines, atom = ["synthetic", str(64 * 12)], 0
    for molecule, cell in enumerate(np.ndindex(4, 4, 4)):
        for k, position in enumerate(synthetic_molecule(rng) + (np.array(cell) + 0.3 + 0.2 * rng.random(3)) * 1.8):
            atom += 1
            lines.append("%5d%-5s%5s%5d%8.3f%8.3f%8.3f" % (molecule + 1, "MOL", f"A{k + 1}", atom, *position))
    lines.append("%10.5f%10.5f%10.5f" % (7.2, 7.2, 7.2))
    for name, text in (("system.top", SYNTHETIC_TOPOLOGY.format(rule=rule)), ("run.mdp", mdp),
                       ("conf.gro", "\n".join(lines) + "\n")):
        with open(os.path.join(folder, name), "w") as out:
            out.write(text)
    return str(folder)


SYNTHETIC_CASES = {
    "rule2-reaction-field": (2, SYNTHETIC_MDP),
    "rule3-plain-cutoff": (3, SYNTHETIC_MDP.replace("coulombtype = reaction-field", "coulombtype = Cut-off")),
    "rule2-eps_rf-78-unshifted": (2, SYNTHETIC_MDP.replace("epsilon_rf = 0", "epsilon_rf = 78\nvdw-modifier = None")),
}


def test_reruns_are_stored_and_read_back_without_gromacs(tmp_path, monkeypatch):
    """NARUMI_GROMACS_CACHE: a rerun made with gmx_d is read back where gmx_d is absent, the same to the bit; a
    changed input is not found there, and the error says so."""
    if shutil.which(gromacs.GMX) is None:
        pytest.skip(f"{gromacs.GMX} is not installed")
    folder = tmp_path / "inputs"
    folder.mkdir()
    write_synthetic(str(folder))
    monkeypatch.setenv(gromacs.CACHE_VARIABLE, str(tmp_path / "cache"))
    made = gromacs.rerun(str(folder))
    monkeypatch.setattr(gromacs.shutil, "which", lambda name: None)
    assert gromacs.gmx_available()
    again = gromacs.rerun(str(folder))
    assert again.energies == made.energies
    assert np.array_equal(again.forces, made.forces) and np.array_equal(again.model.exclusions, made.model.exclusions)
    with open(folder / "run.mdp", "a") as mdp:
        mdp.write("epsilon-r = 2\n")
    with pytest.raises(FileNotFoundError, match="holds no rerun"):
        gromacs.rerun(str(folder))


@pytest.fixture(scope="module", params=list(SYNTHETIC_CASES))
def synthetic(request, tmp_path_factory):
    gromacs.skip_unless_available()
    rule, mdp = SYNTHETIC_CASES[request.param]
    folder = write_synthetic(tmp_path_factory.mktemp(request.param), rule, mdp)
    return folder, gromacs.rerun(folder)


def test_synthetic_topology_matches_gmx_rerun(synthetic):
    """Every term GROMACS reports, forces and exclusions."""
    folder, run = synthetic
    inputs = load(folder)
    assert set(inputs.forceGroups) == SYNTHETIC_TERMS | {NONBONDED}
    assert_matches_rerun(inputs, run)


def test_each_term_is_in_its_own_force_group(synthetic):
    folder, _ = synthetic
    inputs = load(folder)
    groups = [force.getForceGroup() for force in inputs.system.getForces()]
    assert sorted(groups) == sorted(inputs.forceGroups.values()) and len(set(groups)) == len(groups)
    assert all(FORCE_GROUPS[term] == group for term, group in inputs.forceGroups.items())


def test_virtual_sites_are_built_as_gromacs_builds_them(synthetic):
    """OpenMM's construction of each site from the .gro's atoms is the GROMACS manual's."""
    folder, _ = synthetic
    inputs = load(folder)
    ctx = context(inputs)
    ctx.computeVirtualSites()
    built = ctx.getState(getPositions=True).getPositions(asNumpy=True).value_in_unit(unit.nanometer).reshape(64, 12, 3)
    given = np.array(inputs.positions.value_in_unit(unit.nanometer)).reshape(64, 12, 3)
    expected = np.array([construct_virtual_sites(molecule[:6]) for molecule in given])
    assert np.abs(built[:, 6:] - expected).max() < 1e-12
    assert np.abs(built[:, :6] - given[:, :6]).max() == 0
    assert np.abs(given[:, 6:] - expected).max() > 1e-5  # the rounded .gro sites differ: the check can fail


def test_constraints_are_kept_as_constraints(synthetic):
    folder, _ = synthetic
    system = load(folder).system
    assert system.getNumConstraints() == 2 * 64
    assert [system.getConstraintParameters(k)[:2] for k in range(2)] == [[0, 5], [3, 5]]
    assert system.getParticleMass(6).value_in_unit(unit.dalton) == 0 and system.isVirtualSite(6)


WATER_TOPOLOGY = """[ defaults ]
1 2 no 1.0 1.0

[ atomtypes ]
OW 15.9994 0.000 A 0.315 0.63
HW  1.008  0.000 A 0.0   0.0

[ moleculetype ]
SOL 2

[ atoms ]
1 OW 1 SOL OW  1 -0.834
2 HW 1 SOL HW1 1  0.417
3 HW 1 SOL HW2 1  0.417

[ settles ]
1 1 0.09572 0.15139
{exclusions}
[ system ]
water

[ molecules ]
SOL 27
"""


@pytest.mark.parametrize("listed", [True, False], ids=["with-exclusions", "settles-alone"])
def test_settles_are_three_constraints_and_exclude_nothing(tmp_path, listed):
    """A settle is the three constraints of a rigid water; grompp generates no exclusions from it (water topologies
    list theirs), so without [ exclusions ] the atoms of a water interact."""
    gromacs.skip_unless_available()
    rng = np.random.default_rng(3)
    lines = ["water", "81"]
    for molecule, cell in enumerate(np.ndindex(3, 3, 3)):
        oxygen = (np.array(cell) + 0.5) * 1.0 + 0.1 * rng.random(3)
        half = np.radians(104.52) / 2
        for k, position in enumerate([oxygen, oxygen + 0.09572 * np.array([np.sin(half), np.cos(half), 0]),
                                      oxygen + 0.09572 * np.array([-np.sin(half), np.cos(half), 0])]):
            lines.append("%5d%-5s%5s%5d%8.3f%8.3f%8.3f" % (molecule + 1, "SOL", "OW HW1 HW2".split()[k],
                                                           3 * molecule + k + 1, *position))
    lines.append("%10.5f%10.5f%10.5f" % (3.0, 3.0, 3.0))
    listing = "[ exclusions ]\n1 2 3\n2 1 3\n3 1 2\n" if listed else ""
    write(tmp_path / "system.top", WATER_TOPOLOGY.format(exclusions=listing))
    write(tmp_path / "conf.gro", "\n".join(lines) + "\n")
    write(tmp_path / "run.mdp", SYNTHETIC_MDP)
    run = gromacs.rerun(str(tmp_path))
    inputs = load(str(tmp_path))
    assert_matches_rerun(inputs, run)
    assert len(exclusions(inputs)) == (3 * 27 if listed else 0)
    system = inputs.system
    assert system.getNumConstraints() == 3 * 27 and inputs.topology.getNumBonds() == 2 * 27
    assert [system.getConstraintParameters(k)[2].value_in_unit(unit.nanometer) for k in range(3)] == \
        [0.09572, 0.09572, 0.15139]


# ---------------------------------------------------------------------------------------------------------------------
# Preprocessor and .mdp reader


def write(path, text):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


MINIMAL_TOPOLOGY = """[ defaults ]
1 1
[ atomtypes ]
W 72.0 0.000 A 0.0 0.0
[ nonbond_params ]
W W 1 0.21558 0.0023238
{molecule}
[ system ]
test
[ molecules ]
{molecules}
"""
WATER = """[ moleculetype ]
W 1
[ atoms ]
1 W 1 W W 1 0
"""


def minimal_inputs(tmp_path, molecule=WATER, molecules="W 2", mdp=SYNTHETIC_MDP, natoms=2, extra=None, **options):
    gro = "test\n%d\n" % natoms + "".join("%5d%-5s%5s%5d%8.3f%8.3f%8.3f\n" % (i + 1, "W", "W", i + 1, 1 + i, 1, 1)
                                          for i in range(natoms)) + "   4.00000   4.00000   4.00000\n"
    top = write(tmp_path / "system.top", MINIMAL_TOPOLOGY.format(molecule=molecule, molecules=molecules))
    for name, text in (extra or {}).items():
        write(tmp_path / name, text)
    return GromacsInputs(top, write(tmp_path / "conf.gro", gro), write(tmp_path / "run.mdp", mdp), **options)


def test_preprocessor_conditions_defines_and_include_search(tmp_path, monkeypatch):
    """Nested #ifdef/#ifndef/#else, #define with a value substituted in the text, #undef, and includes found in the
    including file's folder, then includeDirs, then $GMXLIB."""
    molecule = """#include "local.itp"
#include "from_dirs.itp"
#include "from_gmxlib.itp"
"""
    extra = {"local.itp": """#define CHARGE 0.5
[ moleculetype ]
A 1
[ atoms ]
#ifdef POSITIVE
#ifndef NEVER
1 W 1 A A 1 CHARGE
#else
1 W 1 A A 1 9
#endif
#else
1 W 1 A A 1 -CHARGE
#endif
#undef CHARGE
""", "dirs/from_dirs.itp": WATER.replace("W 1\n[", "B 1\n["), "lib/from_gmxlib.itp": WATER.replace("W 1\n[", "C 1\n[")}
    monkeypatch.setenv("GMXLIB", str(tmp_path / "lib"))
    for defines, charge in ((None, -0.5), ({"POSITIVE": ""}, 0.5)):
        inputs = minimal_inputs(tmp_path, molecule, "A 1\nB 1\nC 1", natoms=3, extra=extra,
                                includeDirs=[tmp_path / "dirs"], defines=defines)
        assert inputs.nonbondedForce.getParticleParameters(0)[0].value_in_unit(unit.elementary_charge) == charge
        assert [chain.id for chain in inputs.topology.chains()] == ["A", "B", "C"]


def test_mdp_keys_are_read_as_gromacs_reads_them(tmp_path):
    path = write(tmp_path / "run.mdp", "Epsilon_R = 15 ; a comment\nVDW_TYPE=cut-off\n; rvdw = 2\n"
                                       "define = -DPOSRES -DVALUE=3\n")
    mdp = MdpSettings(path)
    assert mdp["epsilon-r"] == mdp["epsilon_r"] == "15"
    assert mdp["vdwtype"] == "cut-off"
    assert mdp["rvdw"] == "1"  # GROMACS's default
    assert mdp.explicit == {"epsilon-r": "15", "vdw-type": "cut-off", "define": "-DPOSRES -DVALUE=3"}
    assert mdp.defines() == {"POSRES": "", "VALUE": "3"}


# ---------------------------------------------------------------------------------------------------------------------
# Refusals: each names what it refuses


@pytest.mark.parametrize("setting, message", [
    ("coulombtype = PME", "coulombtype = PME is not supported"),
    ("vdw-modifier = Force-switch", "vdw-modifier = Force-switch is not supported"),
    ("DispCorr = EnerPres", "dispcorr = EnerPres is not supported"),
    ("rvdw = 1.2", "rvdw = 1.2 is not supported: rvdw must equal rcoulomb"),
    ("constraints = h-bonds", "constraints = h-bonds is not supported"),
    ("vdwtype = switch", "vdw-type = switch is not supported"),
    ("epsilon_rf = -1", "epsilon-rf = -1 is not supported"),
    ("free-energy = yes", "free-energy = yes is not supported"),
    ("pbc = xy", "pbc = xy is not supported"),
    ("rcoulomb = x", "rcoulomb = 'x' is not a number"),
])
def test_unsupported_mdp_settings_are_refused(tmp_path, setting, message):
    key = setting.split("=")[0].strip().lower().replace("_", "-").replace("vdwtype", "vdw-type")
    mdp = "\n".join(line for line in SYNTHETIC_MDP.splitlines()
                    if line.split("=")[0].strip().lower().replace("_", "-").replace("vdwtype", "vdw-type") != key)
    with pytest.raises(ValueError, match=message.replace("(", r"\(").replace(".", r"\.")):
        minimal_inputs(tmp_path, mdp=mdp + "\n" + setting + "\n")


@pytest.mark.parametrize("molecule, message", [
    (WATER + "[ cmap ]\n1 1 1 1 1 1\n", r"the section \[ cmap \] is not supported"),
    (WATER + "[ position_restraints ]\n1 1 1000 1000 1000\n",
     r"the section \[ position_restraints \] is not supported"),
    ("[ moleculetype ]\nW 1\n[ atoms ]\n1 W 1 W W 1 0\n2 W 1 W W 1 0\n[ angles ]\n1 2 1 5 100 10 0.3 100\n",
     r"\[ angles \] function 5 is not supported"),
    ("[ moleculetype ]\nW 1\n[ atoms ]\n1 W 1 W W 1 0\n2 W 1 W W 1 0\n[ bonds ]\n1 2 3 0.3 100 10\n",
     r"\[ bonds \] function 3 is not supported"),
    ("[ moleculetype ]\nW 1\n[ atoms ]\n1 W 1 W W 1 0\n2 W 1 W W 1 0\n[ bonds ]\n1 2 1\n",
     r"\[ bonds \] function 1 without parameters: parameters from the type tables"),
    ("[ moleculetype ]\nW 1\n[ atoms ]\n1 X 1 W W 1 0\n", r"atom type 'X' is not in \[ atomtypes \]"),
    ("[ moleculetype ]\nW 1\n[ atoms ]\n1 W 1 W W 1 0\n2 W 1 W W 1 0\n[ bonds ]\n1 3 1 0.3 100\n",
     r"atom 3 in \[ bonds \] of W, which has 2 atoms"),
    ('#include "missing.itp"\n' + WATER, r"#include 'missing.itp' not found in"),
    ("#if 1\n" + WATER + "#endif\n", r"the preprocessor directive '#if' is not supported"),
    ("[ moleculetype ]\nW 1\n[ atoms ]\n1 W 1 W W 1 0\n2 W 1 W W 1 0\n[ virtual_sites2 ]\n2 1 1 1 0.5\n"
     "[ bonds ]\n1 2 1 0.3 100\n", r"\[ bonds \] between virtual sites and their constructing atoms only \(1 2\)"),
    ("#ifdef A\n" + WATER, r"#ifdef or #ifndef without #endif"),
])
def test_unsupported_topology_is_refused_naming_the_place(tmp_path, molecule, message):
    with pytest.raises(ValueError, match=message) as error:
        minimal_inputs(tmp_path, molecule, "W 1" if "2 W 1" in molecule else "W 2")
    assert "system.top:" in str(error.value)


def test_mismatched_gro_is_refused(tmp_path):
    with pytest.raises(ValueError, match="conf.gro has 3 atoms, the topology .*system.top 2"):
        minimal_inputs(tmp_path, natoms=3)


def test_missing_file_is_refused(tmp_path):
    with pytest.raises(FileNotFoundError, match="nothing.top"):
        GromacsInputs(tmp_path / "nothing.top", tmp_path / "a.gro", tmp_path / "a.mdp")


def test_minimal_topology_loads(tmp_path):
    """The two-field Martini [ defaults ] line takes GROMACS's defaults; one LJ type pair from [ nonbond_params ]."""
    inputs = minimal_inputs(tmp_path)
    force = inputs.nonbondedForce
    assert force.getNumLennardJonesTypePairs() == 1
    type1, type2, c6, c12 = force.getLennardJonesTypePairParameters(0)
    assert (type1, type2, c6._value, c12._value) == (0, 0, 0.21558, 0.0023238)
    assert inputs.mdp["epsilon_r"] == "2.5" and force.getCoulombDielectric() == 2.5
    assert np.isinf(force.getReactionFieldDielectric())
    assert force.getReactionFieldConvention() == force.GromacsReactionField
    assert force.getLennardJonesModifier() == force.LennardJonesPotentialShift
    assert force.getCutoffDistance().value_in_unit(unit.nanometer) == 1.1


def test_tiled_bilayer_matches_gmx_rerun(martini_folder, tmp_path):
    """complex_lipid tiled 3 x 6 (198,198 beads, data/martini/tile.py) on the CPU platform: every term against gmx_d."""
    gromacs.skip_unless_available()
    source = martini_folder("complex_lipid")
    folder = tmp_path / "complex_lipid_200k"
    subprocess.run([sys.executable, os.path.join(os.path.dirname(source), "tile.py"), source, "3", "6", str(folder)],
                   check=True, capture_output=True)
    run = gromacs.rerun(str(folder))
    inputs = load(str(folder), gro="minimized.gro")
    assert inputs.system.getNumParticles() == 198198
    ctx = context(inputs, "CPU")
    for term, group in inputs.forceGroups.items():
        expected = run.energies["LJ (SR)"] + run.energies["Coulomb (SR)"] if term == NONBONDED else run.energies[term]
        assert energy(ctx, {group}) == pytest.approx(expected, rel=1e-9), term
    atoms = ~is_virtual_site(inputs)
    assert relative_rms(forces(ctx)[atoms], run.forces[atoms]) < 1e-9
