#!/usr/bin/env python3
"""Speed of each accumulation method of NarumiNonbondedForce's kernel (Narumi et al. 2008, Fig. 12), in one process.

Every variant gets its own Context on the same platform; one force evaluation = one getState(getForces=True)
(each computes the forces once; the download of N forces is small next to the pair work).  The variants are timed
in --rounds interleaved rounds of about --seconds each, so a clock or thermal drift hits all of them alike; the
table gives the median rate and the spread (min-max) of the rounds, and the ratio of medians to method A.
  system2     System 2 (65,536 LJ particles, NoCutoff): pairwise interactions per second, N^2 per evaluation
              (counted as the paper counts them: its kernel computes every pair from both sides; this kernel has
              computed each pair once since 2026-11-23, so the rate counts each computed pair twice)
  production  the DHFR water box (nonbonded force only, 1.0 nm RF): force evaluations per second
  md          the DHFR box as a full MD system (amber99sb, HBonds + rigid water, VerletIntegrator 2 fs): ns/day
"""
import argparse
import datetime
import os
import sys
import time

import numpy as np
import openmm
import openmm.unit as unit

from benchmarks.diagnostics import narumi_diagnostics  # the benchmarks' and studies' one setter of NARUMI_DIAGNOSTICS
from benchmarks.reporting import gpu_names, write_report  # the benchmarks' and studies' one report writer
from studies.accuracy import accuracylib as L


# F is the paper's float + int32 pair; the CUDA platform holds Narumi's sums in doubles where doubles add at half the
# float rate (the same bits), timed as a variant of its own.
F_IN_DOUBLES = "F, the same sums held in doubles (sums-in-double=on)"


def variants(system):
    """(label, System, the NARUMI_DIAGNOSTICS of its Context) of every timed variant."""
    out = [(L.LABELS[m], L.narumi_version(system, acc), ",".join(filter(None, ["sums-in-double=off", L.accumulation_diagnostics(acc)])))
           for m, acc in L.METHODS.items()]
    out.append((F_IN_DOUBLES, L.narumi_version(system, L.METHODS["F"]), "sums-in-double=on"))
    out.append(("OpenMM NonbondedForce", system, None))
    return out


def make_context(system, positions, platform, precision, step_fs=None, diagnostics=None):
    props = {"Precision": precision} if platform in ("CUDA", "OpenCL") else {}
    integrator = openmm.VerletIntegrator((step_fs or 1.0) * unit.femtosecond)
    with narumi_diagnostics(diagnostics):
        context = openmm.Context(system, integrator, openmm.Platform.getPlatformByName(platform), props)
    context.setPositions(positions)
    return context, integrator


def timed_rounds(items, run_one, seconds, rounds):
    """items: {label: callable doing one unit of work}; returns {label: [units per second per round]}."""
    per_round = {}
    for label, work in items.items():  # warm-up and calibration
        work()
        start, n = time.perf_counter(), 0
        while time.perf_counter() - start < 0.2:
            work()
            n += 1
        per_round[label] = max(1, int(n / (time.perf_counter() - start) * seconds))
    rates = {label: [] for label in items}
    for _ in range(rounds):
        for label, work in items.items():
            start = time.perf_counter()
            run_one(work, per_round[label])
            rates[label].append(per_round[label] / (time.perf_counter() - start))
    return rates


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data-dir", default=os.path.join(os.path.dirname(__file__), "..", "..", "..", "shared", "data"))
    parser.add_argument("--cases", nargs="*", default=["system2", "production", "md"])
    parser.add_argument("--system2-n", type=int, default=65536)
    parser.add_argument("--platform", default="CUDA")
    parser.add_argument("--precision", default="single")
    parser.add_argument("--seconds", type=float, default=0.6)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--json", default="speed.json")
    parser.add_argument("--markdown", default="speed.md")
    args = parser.parse_args()
    have_data = os.path.exists(os.path.join(args.data_dir, "5dfr_solv-cube_equil.pdb"))
    results = []
    for case in args.cases:
        if case != "system2" and not have_data:
            print(f"{case}: skipped, no data in {args.data_dir}")
            continue
        if case == "md":
            import openmm.app as app
            pdb = app.PDBFile(os.path.join(args.data_dir, "5dfr_solv-cube_equil.pdb"))
            system = app.ForceField("amber99sb.xml", "tip3p.xml").createSystem(
                pdb.topology, nonbondedMethod=app.CutoffPeriodic, nonbondedCutoff=1.0 * unit.nanometer,
                constraints=app.HBonds)
            name, positions, n = "DHFR MD (Verlet 2 fs)", pdb.positions, system.getNumParticles()
        else:
            name, xyz, system = L.system2(args.system2_n) if case == "system2" else L.production(args.data_dir)
            positions, n = xyz * unit.nanometer, len(xyz)
        items, keep = {}, []
        for label, sys_, diagnostics in variants(system):
            context, integrator = make_context(sys_, positions, args.platform, args.precision,
                                               2.0 if case == "md" else None, diagnostics)
            keep.append((context, integrator))
            if case == "md":
                openmm.LocalEnergyMinimizer.minimize(context, 10.0, 50)
                context.setVelocitiesToTemperature(300 * unit.kelvin, 1)
                items[label] = (lambda c=context, i=integrator: (i.step(10), c.getState(getEnergy=True)))
            else:
                items[label] = (lambda c=context: c.getState(getForces=True))

        if case == "md":
            def run_one(work, k):
                integrator = None
                for c, i in keep:
                    if work.__defaults__[0] is c:
                        integrator = i
                integrator.step(10 * k)
                work.__defaults__[0].getState(getEnergy=True)
        else:
            def run_one(work, k):
                for _ in range(k):
                    work()
        rates = timed_rounds(items, run_one, args.seconds, args.rounds)
        scale, unit_name = {"system2": (float(n) * n, "pair interactions/s"),
                            "production": (1.0, "force evaluations/s"),
                            "md": (10 * 2e-6 * 86400, "ns/day")}[case]
        base = np.median(rates[L.LABELS["A"]]) * scale
        for label, r in rates.items():
            r = np.array(r) * scale
            row = dict(case=case, system=name, atoms=n, variant=label, unit=unit_name, median=float(np.median(r)),
                       min=float(r.min()), max=float(r.max()), ratio_to_A=float(np.median(r) / base))
            results.append(row)
            print(f"{name:28s} {label:38s} {row['median']:.4g} {unit_name} ({row['min']:.4g}-{row['max']:.4g}), "
                  f"ratio to A {row['ratio_to_A']:.3f}", flush=True)
        del keep, items

    meta = dict(command="python3 -m studies.accuracy.speed " + " ".join(sys.argv[1:]), date=datetime.date.today().isoformat(),
                gpu=gpu_names() or None, platform=args.platform, precision=args.precision, openmm=openmm.__version__)
    lines = [f"`{meta['command']}` on {meta['gpu'] or args.platform}, {args.precision} precision, OpenMM "
             f"{meta['openmm']}, {meta['date']} (median of {args.rounds} interleaved rounds, min-max in brackets)", "",
             "| case | atoms | variant | rate | ratio to A |", "| --- | --- | --- | --- | --- |"]
    lines += [f"| {r['system']} | {r['atoms']} | {r['variant']} | {r['median']:.4g} ({r['min']:.4g}-{r['max']:.4g}) "
              f"{r['unit']} | {r['ratio_to_A']:.3f} |" for r in results]
    write_report(lines, args.markdown, args.json, dict(meta=meta, results=results))


if __name__ == "__main__":
    main()
