"""Martini 2 bilayers on one GPU: NarumiNonbondedForce with Martini's Lennard-Jones table against the OpenMM routes.

    python3 -m benchmarks.martini_speed [--data-dir ../shared/data] [--systems complex 200k 1m] [--seconds 5]
                                        [--rounds 1] [--platform CUDA]

The DPPC/DIPC/CHOL bilayer of ../shared/data/martini/complex_lipid (11,011 beads), and the same tiled 3 x 6
(198,198 beads, '200k') and 9 x 12 (1,189,188 beads, '1m') by that folder's tile.py into a temporary folder, are
loaded with openmmnarumi.gromacs.GromacsInputs (its .mdp: reaction field, epsilon_r 15, epsilon_rf infinity, cutoff
1.1 nm, Lennard-Jones from [ nonbond_params ] with GROMACS's potential shift; cholesterol's constraints kept).  Whole
MD steps (LangevinMiddleIntegrator, 310 K, 1/ps, --step-fs 20 fs), one process, one GPU, routes in turn:

  narumi-table      the loaded System: NarumiNonbondedForce with Martini's type table (GROMACS's energies)
  openmm-exact      OpenMM's fastest route to the same energies: a NonbondedForce for the reaction field (charges
                    divided by sqrt(epsilon_r)), a CustomNonbondedForce with the C6/C12 tables and the shift, a
                    periodic CustomBondForce with the reaction-field terms of the excluded pairs (GROMACS's self term,
                    a constant, is left out: it moves no atom)
  openmm-native     the native floor: one NonbondedForce with a per-type Lorentz-Berthelot stand-in (each type's own
                    sigma and epsilon from its diagonal entry; not Martini's physics, no shift)
  narumi-particle   NarumiNonbondedForce with that stand-in per particle (the table's cost against per-particle)
  no-nonbonded      the loaded System without its nonbonded force (bonded terms, constraints, virtual sites and the
                    integrator): the speed that no nonbonded force can beat

Before timing, the energies of narumi-table and openmm-exact (plus the self term) at the first frame must agree to
1e-5 relative on the platform used, or the script stops.  Ratios: narumi-table against each OpenMM route, and against
narumi-particle; no-nonbonded against openmm-exact, the most that any nonbonded force could gain on the exact route.
--rounds N keeps every route's Context of a system and times them in turn N times (each --seconds), so that a slow
spell of the GPU falls on all routes alike; the table gives each route's median (min-max in brackets) and the output every round.
--settings S... adds, for each NARUMI_DIAGNOSTICS value S (e.g. list-skin=0.2), the narumi-table route with its
Context made under S, timed in turn with the others, and the ratio of narumi-table to it; --setting-routes R... times
those routes under each S instead (narumi-table and narumi-particle: also their ratio under S).
"""
import argparse
import datetime
import math
import os
import statistics
import subprocess
import sys
import tempfile
import time

import openmm
from openmm import unit

from benchmarks.diagnostics import narumi_diagnostics, refusal
from benchmarks.reporting import gpu_names, write_report

SIZES = {"complex": None, "200k": (3, 6), "1m": (9, 12)}
ROUTES = ("narumi-table", "openmm-exact", "openmm-native", "narumi-particle", "no-nonbonded")


def plain(*values):
    """Numbers in OpenMM's units (nm, e, kJ/mol) from what the force getters return (Quantities or numbers)."""
    stripped = [v.value_in_unit_system(unit.md_unit_system) if unit.is_quantity(v) else v for v in values]
    return stripped if len(stripped) > 1 else stripped[0]


def has_data(data_dir):
    """Whether data_dir holds the Martini bilayer that every size is made from."""
    return os.path.exists(os.path.join(data_dir, "martini", "complex_lipid", "system.top"))


def load(data_dir, size, work):
    """GromacsInputs of complex_lipid, tiled for '200k' and '1m' into work."""
    from openmmnarumi.gromacs import GromacsInputs
    folder = os.path.join(data_dir, "martini", "complex_lipid")
    if SIZES[size]:
        tiled = os.path.join(work, size)
        subprocess.run([sys.executable, os.path.join(data_dir, "martini", "tile.py"), folder, *map(str, SIZES[size]), tiled],
                       check=True, capture_output=True)
        folder = tiled
    return GromacsInputs(os.path.join(folder, "system.top"), os.path.join(folder, "minimized.gro"),
                         os.path.join(folder, "martini_md.mdp"))


def type_table(narumi):
    """Each particle's dense table row and the (C6, C12) of every listed pair of rows; every typed pair must be listed."""
    rows, row_of = {}, []
    for i in range(narumi.getNumParticles()):
        t = narumi.getParticleLennardJonesType(i)
        if t < 0:
            raise SystemExit(f"particle {i} has no Lennard-Jones type: not a Martini table system")
        row_of.append(rows.setdefault(t, len(rows)))
    n = len(rows)
    c6, c12 = [None] * (n * n), [None] * (n * n)
    for k in range(narumi.getNumLennardJonesTypePairs()):
        t1, t2, a, b = plain(*narumi.getLennardJonesTypePairParameters(k))
        if t1 in rows and t2 in rows:
            for index in (rows[t1] + n * rows[t2], rows[t2] + n * rows[t1]):
                c6[index], c12[index] = a, b
    if None in c6:
        raise SystemExit("a pair of types in use has no [ nonbond_params ] entry: the OpenMM routes here need a full table")
    return row_of, n, c6, c12


def reaction_field(narumi):
    """k f = 138.9.../eps_r, k_rf and c_rf of GROMACS's reaction field (epsilon_rf infinity only)."""
    if not math.isinf(narumi.getReactionFieldDielectric()):
        raise SystemExit("the OpenMM routes here reproduce GROMACS's reaction field for epsilon_rf = infinity only")
    rc = plain(narumi.getCutoffDistance())
    krf = 1 / (2 * rc**3)
    return 138.935457644382 / narumi.getCoulombDielectric(), krf, 1 / rc + krf * rc * rc


def native_nonbonded(narumi, stand_in):
    """A NonbondedForce: reaction field (epsilon_rf -> infinity) with charges / sqrt(eps_r), and stand_in(i) as LJ."""
    epsR = narumi.getCoulombDielectric()
    force = openmm.NonbondedForce()
    force.setNonbondedMethod(openmm.NonbondedForce.CutoffPeriodic)
    force.setCutoffDistance(plain(narumi.getCutoffDistance()))
    force.setReactionFieldDielectric(1e30)
    force.setUseDispersionCorrection(False)
    for i in range(narumi.getNumParticles()):
        charge = plain(narumi.getParticleParameters(i)[0])
        force.addParticle(charge / math.sqrt(epsR), *stand_in(i))
    for k in range(narumi.getNumExceptions()):
        i, j, chargeProd, sigma, epsilon = plain(*narumi.getExceptionParameters(k))
        force.addException(i, j, chargeProd / epsR, sigma, epsilon)
    return force


def diagonal_stand_in(narumi, row_of, n, c6, c12):
    """Each particle's (sigma, epsilon) from its type's own entry (a per-type Lorentz-Berthelot stand-in)."""
    def stand_in(i):
        a, b = c6[row_of[i] * (n + 1)], c12[row_of[i] * (n + 1)]
        return ((b / a)**(1 / 6), a * a / (4 * b)) if a > 0 and b > 0 else (0.3, 0.0)
    return stand_in


def exact_openmm_forces(narumi, row_of, n, c6, c12):
    """OpenMM's forces that give GROMACS's nonbonded energy less its self term; and that self term."""
    f, krf, crf = reaction_field(narumi)
    rc = plain(narumi.getCutoffDistance())
    coulomb = native_nonbonded(narumi, lambda i: (1.0, 0.0))
    lj = openmm.CustomNonbondedForce(f"c12(t1, t2)*(ir6*ir6 - {rc**-12!r}) - c6(t1, t2)*(ir6 - {rc**-6!r}); ir6 = 1/r^6")
    lj.addTabulatedFunction("c6", openmm.Discrete2DFunction(n, n, c6))
    lj.addTabulatedFunction("c12", openmm.Discrete2DFunction(n, n, c12))
    lj.addPerParticleParameter("t")
    for row in row_of:
        lj.addParticle([row])
    lj.setNonbondedMethod(openmm.CustomNonbondedForce.CutoffPeriodic)
    lj.setCutoffDistance(rc)
    excluded = openmm.CustomBondForce(f"{f!r}*q1q2*({krf!r}*r^2 - {crf!r})*step({rc!r} - r)")
    excluded.addPerBondParameter("q1q2")
    excluded.setUsesPeriodicBoundaryConditions(True)
    charges = [plain(narumi.getParticleParameters(i)[0]) for i in range(narumi.getNumParticles())]
    for k in range(narumi.getNumExceptions()):
        i, j = plain(*narumi.getExceptionParameters(k)[:2])
        lj.addExclusion(i, j)
        if charges[i] * charges[j] != 0:
            excluded.addBond(i, j, [charges[i] * charges[j]])
    return [coulomb, lj, excluded], -0.5 * f * crf * sum(q * q for q in charges)


def route_system(inputs, route, table):
    """The loaded System with its NarumiNonbondedForce replaced as the route says; and the energy it leaves out."""
    from openmmnarumi import NarumiNonbondedForce
    system = openmm.XmlSerializer.clone(inputs.system)
    index = next(k for k in range(system.getNumForces()) if NarumiNonbondedForce.isinstance(system.getForce(k)))
    narumi = NarumiNonbondedForce.cast(system.getForce(index))
    stand_in = diagonal_stand_in(narumi, *table)
    if route == "narumi-table":
        return system, 0.0
    if route == "narumi-particle":
        for i in range(narumi.getNumParticles()):
            narumi.setParticleParameters(i, narumi.getParticleParameters(i)[0], *stand_in(i))
            narumi.setParticleLennardJonesType(i, -1)
        return system, 0.0
    group = narumi.getForceGroup()
    if route == "no-nonbonded":
        system.removeForce(index)
        return system, 0.0
    if route == "openmm-exact":
        forces, left_out = exact_openmm_forces(narumi, *table)
    else:
        forces, left_out = [native_nonbonded(narumi, stand_in)], 0.0
    system.removeForce(index)
    for force in forces:
        force.setForceGroup(group)
        system.addForce(force)
    return system, left_out


def make_context(system, inputs, platform, precision, step_fs, seed):
    """precision: the GPU platforms' Precision property, None on the others."""
    integrator = openmm.LangevinMiddleIntegrator(310 * unit.kelvin, 1 / unit.picosecond, step_fs * unit.femtosecond)
    integrator.setRandomNumberSeed(seed)
    properties = {"Precision": precision} if precision else {}
    context = openmm.Context(system, integrator, openmm.Platform.getPlatformByName(platform), properties)
    context.setPeriodicBoxVectors(*inputs.boxVectors)
    context.setPositions(inputs.positions)
    context.setVelocitiesToTemperature(310 * unit.kelvin, seed)
    return context, integrator


def ns_per_day(context, integrator, seconds):
    """Steps for about `seconds`, timed to completion (getState waits for the GPU)."""
    context.getState(getEnergy=True)
    steps, start, chunk = 0, time.perf_counter(), 100
    while time.perf_counter() - start < seconds:
        integrator.step(chunk)
        steps += chunk
        energy = context.getState(getEnergy=True).getPotentialEnergy().value_in_unit(unit.kilojoule_per_mole)
        if not math.isfinite(energy):
            raise SystemExit(f"the energy became {energy} after {steps} timed steps")
    elapsed = time.perf_counter() - start
    return steps * integrator.getStepSize().value_in_unit(unit.nanosecond) / elapsed * 86400


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data-dir", default=os.path.join(os.path.dirname(__file__), "..", "..", "shared", "data"))
    parser.add_argument("--systems", nargs="*", choices=list(SIZES), default=list(SIZES))
    parser.add_argument("--routes", nargs="*", choices=ROUTES, default=list(ROUTES))
    parser.add_argument("--platform", default="CUDA", help="OpenMM platform (default CUDA; CPU checks the script here)")
    parser.add_argument("--precision", default="mixed", choices=("single", "mixed", "double"))
    parser.add_argument("--step-fs", type=float, default=20.0)
    parser.add_argument("--seconds", type=float, default=5.0, help="timed seconds per route (default 5)")
    parser.add_argument("--warmup", type=int, default=200, help="steps before timing (default 200)")
    parser.add_argument("--rounds", type=int, default=1,
                        help="times each route's Context in turn this many times; the table gives medians (default 1)")
    parser.add_argument("--settings", nargs="*", default=[],
                        help="NARUMI_DIAGNOSTICS values, each timed as one more narumi-table route (CUDA)")
    parser.add_argument("--setting-routes", nargs="+", default=["narumi-table"], choices=("narumi-table", "narumi-particle"),
                        help="the routes timed under each of --settings (default narumi-table)")
    parser.add_argument("--markdown")
    parser.add_argument("--json")
    args = parser.parse_args()
    if args.rounds < 1 or args.seconds <= 0 or args.warmup < 0:
        parser.error(f"--rounds {args.rounds}, --seconds {args.seconds}, --warmup {args.warmup}: rounds and seconds "
                     "must be positive, warmup not negative")
    if args.settings and args.platform != "CUDA":
        parser.error("--settings are NARUMI_DIAGNOSTICS values, which only the CUDA platform reads")
    if not has_data(args.data_dir):
        print(f"no Martini data in {args.data_dir}/martini: nothing to measure")
        return 0
    import openmmnarumi  # noqa: F401  (loads the plugins)
    for setting in args.settings:
        if (message := refusal(setting)) is not None:
            parser.error(f"--settings {setting}: {message}")
    # (column, route, NARUMI_DIAGNOSTICS) of each timed Context
    columns = [(route, route, None) for route in args.routes] + [(f"{route} [{setting}]", route, setting)
                                                                 for setting in args.settings for route in args.setting_routes]
    both = "narumi-particle" in args.setting_routes and "narumi-table" in args.setting_routes
    started = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    command = "python3 -m benchmarks.martini_speed " + " ".join(sys.argv[1:])
    precision = args.precision if args.platform in ("CUDA", "OpenCL") else None
    device = gpu_names() if precision else f"the {args.platform} platform"
    lines = [f"`{command}` on {device or 'no GPU'}, OpenMM {openmm.__version__}, "
             f"{precision + ' precision, ' if precision else ''}"
             f"{args.step_fs:g} fs, {started}" + (f", medians of {args.rounds} rounds in turn, min-max in brackets" if args.rounds > 1 else "") + ":", "",
             "| system | beads | " + " | ".join(f"{column} (ns/day)" for column, _, _ in columns) +
             " | table / exact | table / native | table / particle | no-nonbonded / exact |" +
             "".join(f" table / [{setting}] |" + (f" [{setting}] table / particle |" if both else "") for setting in args.settings),
             "| --- | --- | " + " | ".join("---" for _ in columns) + " | --- | --- | --- | --- |" +
             " --- |" * (len(args.settings) * (2 if both else 1))]
    measurements = []
    with tempfile.TemporaryDirectory() as work:
        for size in args.systems:
            inputs = load(args.data_dir, size, work)
            table = type_table(inputs.nonbondedForce)
            speeds, energies, rounds, contexts = {}, {}, {column: [] for column, _, _ in columns}, {}
            for column, route, setting in columns:
                system, left_out = route_system(inputs, route, table)
                with narumi_diagnostics(setting):
                    context, integrator = make_context(system, inputs, args.platform, precision, args.step_fs, seed=7)
                energies[column] = context.getState(getEnergy=True).getPotentialEnergy().value_in_unit(unit.kilojoule_per_mole) + left_out
                print(f"{size} {column}: first-frame energy {energies[column]:.6f} kJ/mol", flush=True)
                integrator.step(args.warmup)
                contexts[column] = (context, integrator)
            if "narumi-table" in energies and "openmm-exact" in energies:
                difference = abs(energies["narumi-table"] - energies["openmm-exact"]) / abs(energies["openmm-exact"])
                print(f"{size}: narumi-table and openmm-exact energies differ by {difference:.2e} relative", flush=True)
                if difference > 1e-5:
                    raise SystemExit(f"{size}: the routes do not compute the same energy ({difference:.2e} relative)")
            for round_number in range(args.rounds):
                for column, _, _ in columns:
                    rounds[column].append(ns_per_day(*contexts[column], args.seconds))
                    print(f"{size} {column} round {round_number + 1}: {rounds[column][-1]:.1f} ns/day", flush=True)
            speeds = {route: statistics.median(values) for route, values in rounds.items()}
            del contexts
            ratio = lambda other, route="narumi-table": (f"{speeds[route] / speeds[other]:.2f}"
                                                         if route in speeds and other in speeds else "-")
            lines.append(f"| {size} | {inputs.system.getNumParticles():,} | " +
                         " | ".join(f"{speeds[column]:.1f}" + (f" ({min(rounds[column]):.1f}-{max(rounds[column]):.1f})"
                                                               if args.rounds > 1 else "") for column, _, _ in columns) +
                         f" | {ratio('openmm-exact')} | {ratio('openmm-native')} | {ratio('narumi-particle')} |"
                         f" {ratio('openmm-exact', 'no-nonbonded')} |" +
                         "".join(f" {ratio(f'narumi-table [{setting}]')} |" +
                                 (f" {ratio(f'narumi-particle [{setting}]', f'narumi-table [{setting}]')} |" if both else "")
                                 for setting in args.settings))
            measurements.append({"system": size, "beads": inputs.system.getNumParticles(), "ns_per_day": speeds,
                                 "ns_per_day_rounds": rounds, "first_frame_energy": energies})
    write_report(lines, args.markdown, args.json, {"command": command, "gpu": device, "date": started,
                                                  "rounds": args.rounds,
                                                  "precision": precision, "step_fs": args.step_fs, "rows": measurements})
    return 0


if __name__ == "__main__":
    sys.exit(main())
