"""GROMACS as the oracle for GROMACS-convention force fields (Martini 2 lipid bilayers of data/martini): fresh
`gmx_d` reruns reproduce the stored references, and the independent NumPy direct sum reproduces gmx_d's LJ (SR),
Coulomb (SR) and nonbonded forces, also where an mdp setting changes a convention."""
import json
import os

import numpy as np
import pytest

from tests.support.gromacs_direct_sum import gromacs_nonbonded

SYSTEMS = ["simple_lipid", "complex_lipid"]
TERMS = ("LJ (SR)", "Coulomb (SR)")


def relative_rms(actual, expected):
    return float(np.sqrt(np.sum((actual - expected) ** 2) / np.sum(expected ** 2)))


@pytest.mark.parametrize("system", SYSTEMS)
def test_rerun_reproduces_stored_reference(martini_rerun, system):
    folder, run = martini_rerun(system)
    with open(os.path.join(folder, "reference_energies.json")) as source:
        reference = json.load(source)
    for term, value in reference["energies"].items():
        assert run.energies[term] == pytest.approx(value, rel=1e-6), term
    assert {k: run.settings[k] for k in reference["tpr_nonbonded_settings"]} == reference["tpr_nonbonded_settings"]
    assert relative_rms(run.forces, np.load(os.path.join(folder, "reference_forces.npy"))) < 1e-10


@pytest.mark.parametrize("system", SYSTEMS)
def test_direct_sum_matches_gmx(martini_rerun, system):
    _, run = martini_rerun(system)
    terms = gromacs_nonbonded(run.model, run.positions, run.box)
    assert terms.lj == pytest.approx(run.energies["LJ (SR)"], rel=1e-8)
    assert terms.coulomb == pytest.approx(run.energies["Coulomb (SR)"], rel=1e-8)
    # Both spread the virtual sites' forces onto their constructing beads: every atom is compared.
    assert relative_rms(terms.forces, run.nonbonded_forces) < 1e-9
    assert not np.any(run.nonbonded_forces[run.model.is_virtual_site])


@pytest.mark.parametrize("system", SYSTEMS)
def test_grompp_excludes_bonds_and_constraints_but_not_angles(martini_rerun, system):
    _, run = martini_rerun(system)
    excluded = {tuple(p) for p in run.model.exclusions}
    chemical = {tuple(sorted(p)) for kind in ("BONDS", "CONSTR") if kind in run.model.interactions
                for p in run.model.interactions[kind][0]}
    angle_ends = {tuple(sorted(p)) for p in run.model.interactions["G96ANGLES"][0][:, [0, 2]]}
    assert chemical <= excluded  # nrexcl = 1: the 1-2 pairs, bonds and constraints alike
    assert not angle_ends & excluded
    if system == "simple_lipid":  # no [ exclusions ] sections
        assert excluded == chemical


# Each mdp change moves the convention of one term; "Coulomb-modifier None" is ignored by GROMACS's reaction field
# (c_rf is always subtracted), which the direct sum must reproduce too.
VARIANTS = [({"vdw-modifier": "None"}, "LJ (SR)"), ({"epsilon-rf": "80"}, "Coulomb (SR)"),
            ({"coulombtype": "Cut-off"}, "Coulomb (SR)"),
            ({"coulombtype": "Cut-off", "coulomb-modifier": "None"}, "Coulomb (SR)"),
            ({"coulomb-modifier": "None"}, None)]


@pytest.mark.parametrize("overrides,changed", VARIANTS, ids=[",".join(f"{k}={v}" for k, v in o.items())
                                                              for o, _ in VARIANTS])
def test_direct_sum_follows_mdp_conventions(martini_rerun, overrides, changed):
    _, default = martini_rerun("simple_lipid")
    _, run = martini_rerun("simple_lipid", **overrides)
    for key, value in overrides.items():
        assert run.settings[key] == value
    terms = gromacs_nonbonded(run.model, run.positions, run.box)
    assert terms.lj == pytest.approx(run.energies["LJ (SR)"], rel=1e-8)
    assert terms.coulomb == pytest.approx(run.energies["Coulomb (SR)"], rel=1e-8)
    assert relative_rms(terms.forces, run.nonbonded_forces) < 1e-9
    for term in TERMS:
        moved = abs(run.energies[term] - default.energies[term]) > 1e-6 * abs(default.energies[term])
        assert moved == (term == changed), term
