"""How far OpenMM 8.6.1's own GROMACS route (app.GromacsTopFile) is from GROMACS on the Martini 2 bilayers of
data/martini, per energy term and in forces, and which convention causes each part of the gap.

The OpenMM route: a temporary copy of the input folder with the one-line `[ defaults ]` workaround (`1 1` becomes
`1 1 no 1.0 1.0`, which GromacsTopFile needs and GROMACS reads as the same), GromacsTopFile(...).createSystem(
CutoffPeriodic, rcoulomb) with its defaults, and the two mdp settings that createSystem has no argument for set by
hand: the charges divided by sqrt(epsilon_r) and the reaction-field dielectric 1e30 for epsilon_rf = 0 (infinity).
Energies and forces on OpenMM's Reference platform (double precision).

The gap is taken apart with the NumPy direct sum of tests/support/gromacs_direct_sum.py, started from OpenMM's
conventions (checked against OpenMM's own energies and forces) and corrected one cause at a time, cumulatively:
  (c4) FLEXIBLE, which GromacsTopFile predefines: CHOL's constraints become k = 1e6 bonds (the Bond term);
  (c1) the angle 1-3 pairs that GromacsTopFile excludes (its [ nonbond_params ] path) and grompp does not;
  (c2) the constraint pairs that grompp excludes and GromacsTopFile does not (once FLEXIBLE is off);
  (c3) the long-range dispersion correction that GromacsTopFile turns on (DispCorr = no in the mdp);
  (b)  GROMACS's potential shift of every LJ pair;
  (a)  GROMACS's reaction field of the excluded pairs and the self term.
The residual after all of them is gmx_d against the corrected sum.

    python3 -m studies.gromacs_conventions --data-dir ../shared/data
"""
import argparse
import copy
import os
import re
import tempfile

import numpy as np
import openmm
import openmm.app as app
import openmm.unit as unit

from benchmarks.reporting import write_report
from tests.support import gromacs
from tests.support.gromacs_direct_sum import minimum_image, nonbonded_terms, spread_virtual_site_forces

TERMS = ("Bond", "G96Angle", "LJ (SR)", "Coulomb (SR)", "Potential")
OPENMM_TERMS = {"HarmonicBondForce": "Bond", "GROMOSAngleForce": "G96Angle", "LennardJonesForce": "LJ (SR)",
                "LennardJonesExceptions": "LJ (SR)", "NonbondedForce": "Coulomb (SR)"}


def copy_for_gromacs_top_file(folder, work):
    """Copy the .top, .itp and .gro files of `folder` into `work` with the [ defaults ] workaround: OpenMM's
    GromacsTopFile rejects Martini's two-field `1 1` line, which becomes GROMACS's defaults `1 1 no 1.0 1.0`."""
    for name in os.listdir(folder):
        if name.endswith((".top", ".itp", ".gro")):
            with open(os.path.join(folder, name)) as source:
                text = source.read()
            text = re.sub(r"(\[\s*defaults\s*\][^\n]*\n(?:\s*;[^\n]*\n)*)\s*1\s+1\s*\n", r"\g<1>1 1 no 1.0 1.0\n", text)
            with open(os.path.join(work, name), "w") as out:
                out.write(text)


def openmm_route(folder, work, model, flexible=True):
    """The System and positions of GromacsTopFile's route for a copy of `folder` in `work`."""
    copy_for_gromacs_top_file(folder, work)
    top = next(name for name in os.listdir(work) if name.endswith(".top"))
    if not flexible:
        with open(os.path.join(work, "undef.top"), "w") as out:
            out.write("#undef FLEXIBLE\n" + open(os.path.join(work, top)).read())
        top = "undef.top"
    gro = app.GromacsGroFile(os.path.join(work, next(n for n in os.listdir(work) if n.endswith(".gro"))))
    system = app.GromacsTopFile(os.path.join(work, top), periodicBoxVectors=gro.getPeriodicBoxVectors()).createSystem(
        nonbondedMethod=app.CutoffPeriodic, nonbondedCutoff=model.rcoulomb * unit.nanometer)
    nonbonded = next(f for f in system.getForces() if isinstance(f, openmm.NonbondedForce))
    nonbonded.setReactionFieldDielectric(1e30 if np.isinf(model.epsilon_rf) else model.epsilon_rf)
    for i in range(nonbonded.getNumParticles()):
        charge, sigma, epsilon = nonbonded.getParticleParameters(i)
        nonbonded.setParticleParameters(i, charge / np.sqrt(model.epsilon_r), sigma, epsilon)
    return system, gro.getPositions(asNumpy=True).value_in_unit(unit.nanometer)


def openmm_evaluation(system, positions):
    """Energies per GROMACS term, total forces, nonbonded forces and the LJ long-range correction."""
    system = copy.deepcopy(system)
    for force in system.getForces():
        force.setForceGroup({"Bond": 1, "G96Angle": 2, "LJ (SR)": 3, "Coulomb (SR)": 4}.get(
            OPENMM_TERMS.get(force.getName()), 0))
    context = openmm.Context(system, openmm.VerletIntegrator(0.001), openmm.Platform.getPlatformByName("Reference"))
    context.setPositions(positions)

    def state(groups):
        got = context.getState(getEnergy=True, getForces=True, groups=groups)
        return (got.getPotentialEnergy().value_in_unit(unit.kilojoule_per_mole),
                got.getForces(asNumpy=True).value_in_unit(unit.kilojoule_per_mole / unit.nanometer))

    energies = {term: state({group})[0] for group, term in enumerate(TERMS[:4], start=1)}
    energies["Potential"], forces = state({0, 1, 2, 3, 4})
    _, nonbonded_forces = state({3, 4})
    # OpenMM adds a virtual site's force to its constructing particles but leaves it on the site too; GROMACS zeroes it.
    virtual = [i for i in range(system.getNumParticles()) if system.isVirtualSite(i)]
    forces[virtual] = nonbonded_forces[virtual] = 0.0
    lj = next(f for f in system.getForces() if f.getName() == "LennardJonesForce")
    lj.setUseLongRangeCorrection(False)
    context.reinitialize(preserveState=True)
    long_range_correction = energies["LJ (SR)"] - state({3})[0]
    return energies, forces, nonbonded_forces, long_range_correction


def openmm_exclusions(system):
    nonbonded = next(f for f in system.getForces() if isinstance(f, openmm.NonbondedForce))
    pairs = []
    for k in range(nonbonded.getNumExceptions()):
        i, j, charge_product, _, epsilon = nonbonded.getExceptionParameters(k)
        if charge_product.value_in_unit(unit.elementary_charge ** 2) or epsilon.value_in_unit(unit.kilojoule_per_mole):
            raise ValueError(f"exception {i}-{j} is a 1-4 pair, which this study does not handle")
        pairs.append((min(i, j), max(i, j)))
    return set(pairs)


def relative_rms(actual, expected):
    return float(np.sqrt(np.sum((actual - expected) ** 2) / np.sum(expected ** 2)))


def study(folder, lines, results):
    name = os.path.basename(folder)
    run = gromacs.rerun(folder)
    model, positions, box = run.model, run.positions, run.box
    with tempfile.TemporaryDirectory() as flexible_work, tempfile.TemporaryDirectory() as rigid_work:
        flexible_system, gro_positions = openmm_route(folder, flexible_work, model, flexible=True)
        rigid_system, _ = openmm_route(folder, rigid_work, model, flexible=False)
    # mdrun's .trr has the atoms put into the box; OpenMM's bonds need the gro's whole molecules.
    if np.abs(minimum_image(gro_positions - positions, box)).max() > 1e-12:
        raise RuntimeError("the gro positions differ from those of gmx_d's rerun")
    omm, omm_forces, omm_nonbonded_forces, lrc = openmm_evaluation(flexible_system, gro_positions)
    rigid, rigid_forces, rigid_nonbonded_forces, _ = openmm_evaluation(rigid_system, gro_positions)
    bonded_forces = {"flexible": omm_forces - omm_nonbonded_forces, "rigid": rigid_forces - rigid_nonbonded_forces}

    gmx_excluded = {tuple(p) for p in model.exclusions}
    omm_excluded = openmm_exclusions(flexible_system)
    rigid_excluded = openmm_exclusions(rigid_system)
    only_openmm = rigid_excluded - gmx_excluded
    angle_ends = {tuple(sorted(p)) for p in model.interactions["G96ANGLES"][0][:, [0, 2]]}
    constraint_pairs = {tuple(sorted(p)) for p in model.interactions.get("CONSTR", (np.zeros((0, 2), int),))[0]}

    def direct(exclusions, shift, reaction_field, with_lrc):
        terms = nonbonded_terms(positions, box, model.charges, model.lj_types, model.c6, model.c12,
                                np.array(sorted(exclusions)).reshape(-1, 2), model.rvdw, model.rcoulomb,
                                model.epsilon_r, model.epsilon_rf, coulombtype=model.settings["coulombtype"],
                                vdw_modifier="Potential-shift" if shift else "None",
                                excluded_pair_reaction_field=reaction_field, self_term=reaction_field)
        return terms.lj + (lrc if with_lrc else 0.0), terms.coulomb, terms.forces

    def spread(forces):
        return spread_virtual_site_forces(forces, positions, box, model.virtual_sites)

    # The direct sum with OpenMM's conventions must reproduce OpenMM before it can take the gap apart.
    start_lj, start_coulomb, start_forces = direct(omm_excluded, False, False, True)
    check = {"LJ (SR)": start_lj - omm["LJ (SR)"], "Coulomb (SR)": start_coulomb - omm["Coulomb (SR)"],
             "nonbonded forces (rel. RMS)": relative_rms(spread(start_forces), omm_nonbonded_forces)}
    steps = [("(c4) FLEXIBLE off", "rigid", rigid_excluded, False, False, True),
             ("(c1) angle pairs not excluded", "rigid", rigid_excluded & gmx_excluded, False, False, True),
             ("(c2) constraint pairs excluded", "rigid", gmx_excluded, False, False, True),
             ("(c3) no dispersion correction", "rigid", gmx_excluded, False, False, False),
             ("(b) LJ potential shift", "rigid", gmx_excluded, True, False, False),
             ("(a) excluded-pair RF + self term", "rigid", gmx_excluded, True, True, False)]
    gmx_terms = {term: run.energies.get(term, 0.0) for term in TERMS}
    current = dict(omm)
    table = [("OpenMM route", dict(current), relative_rms(omm_forces, run.forces),
              float(np.abs(omm_forces - run.forces)[~model.is_virtual_site].max()))]
    for label, bonded, exclusions, shift, reaction_field, with_lrc in steps:
        lj, coulomb, forces = direct(exclusions, shift, reaction_field, with_lrc)
        current = {"Bond": rigid["Bond"] if bonded == "rigid" else omm["Bond"], "G96Angle": omm["G96Angle"],
                   "LJ (SR)": lj - start_lj + omm["LJ (SR)"], "Coulomb (SR)": coulomb - start_coulomb + omm["Coulomb (SR)"]}
        current["Potential"] = sum(current[t] for t in TERMS[:4])
        total = bonded_forces[bonded] + spread(forces)
        table.append((label, current, relative_rms(total, run.forces),
                      float(np.abs(total - run.forces)[~model.is_virtual_site].max())))

    lines += [f"### {name} ({len(positions)} beads)", "",
              f"Exclusions: grompp {len(gmx_excluded)}, GromacsTopFile {len(omm_excluded)}; excluded by "
              f"GromacsTopFile only {len(only_openmm)} ({len(only_openmm & angle_ends)} of them angle 1-3 pairs), "
              f"by grompp only {len(gmx_excluded - omm_excluded)} (with FLEXIBLE off: {len(gmx_excluded - rigid_excluded)}; "
              f"{len(constraint_pairs)} constraint pairs, {len(constraint_pairs - rigid_excluded)} of them not "
              f"excluded by GromacsTopFile). Dispersion correction in OpenMM: {lrc:.3f} kJ/mol.", "",
              "Direct sum with OpenMM's conventions minus OpenMM: " + ", ".join(f"{k} {v:.3g}" for k, v in check.items()),
              "", "| energy (kJ/mol) | gmx_d | " + " | ".join(row[0] for row in table) + " |",
              "| --- | ---: | " + " | ".join("---:" for _ in table) + " |"]
    for term in TERMS:
        lines.append(f"| {term} | {gmx_terms[term]:.4f} | " + " | ".join(f"{row[1][term]:.4f}" for row in table) + " |")
    lines.append("| forces: rel. RMS vs gmx_d | | " + " | ".join(f"{row[2]:.2e}" for row in table) + " |")
    lines.append("| forces: max abs diff (kJ/mol/nm) | | " + " | ".join(f"{row[3]:.3g}" for row in table) + " |")
    lines.append("")
    gaps = {term: {row[0]: row[1][term] - gmx_terms[term] for row in table} for term in TERMS}
    lines += ["Gap to gmx_d after each cumulative correction (kJ/mol): " + "; ".join(
        f"{term}: " + ", ".join(f"{v:+.4g}" for v in gaps[term].values()) for term in ("LJ (SR)", "Coulomb (SR)")), ""]

    # What a topology that relies on nrexcl alone for its constraint pairs would get from GromacsTopFile.
    lj_missing, _, forces_missing = direct(gmx_excluded - constraint_pairs, True, True, False)
    lj_full, _, forces_full = direct(gmx_excluded, True, True, False)
    if constraint_pairs:
        lines += [f"Counterfactual: without their [ exclusions ] entries the {len(constraint_pairs)} constraint "
                  f"pairs would add {lj_missing - lj_full:.1f} kJ/mol of LJ and forces up to "
                  f"{np.abs(forces_missing - forces_full).max():.3g} kJ/mol/nm.", ""]
    results[name] = {"gmx_d": gmx_terms, "rows": [{"state": r[0], "energies": r[1], "force_relative_rms": r[2],
                                                   "force_max_abs_diff": r[3]} for r in table],
                     "direct_sum_minus_openmm": check, "long_range_correction": lrc,
                     "exclusions": {"gromacs": len(gmx_excluded), "openmm": len(omm_excluded),
                                    "openmm_only": len(only_openmm), "openmm_only_angle_pairs": len(only_openmm & angle_ends),
                                    "gromacs_only_flexible_off": len(gmx_excluded - rigid_excluded)}}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data-dir", default=os.path.join(os.path.dirname(__file__), "..", "..", "shared", "data"))
    parser.add_argument("--systems", nargs="+", default=["simple_lipid", "complex_lipid"])
    parser.add_argument("--markdown", default="gromacs_conventions.md")
    parser.add_argument("--json", default="gromacs_conventions.json")
    args = parser.parse_args()
    if not gromacs.gmx_available():
        raise SystemExit(f"{gromacs.GMX} is not installed (scripts/setup.sh installs the Debian package gromacs)")
    lines = [f"## OpenMM {openmm.__version__} GromacsTopFile against GROMACS (gmx_d) on Martini 2 bilayers", ""]
    results = {}
    for system in args.systems:
        study(os.path.join(args.data_dir, "martini", system), lines, results)
    write_report(lines, args.markdown, args.json, results)


if __name__ == "__main__":
    main()
