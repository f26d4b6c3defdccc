#!/usr/bin/env python3
"""Energy drift of the NVE runs written by nve.py: a straight-line fit of total energy against time per run.

    python3 -m studies.accuracy.analyze_nve RUN_DIR... [--earlier SUMMARY.json...] [--markdown drift.md]
        [--json drift.json] [--png drift.png]

Drift in kT/ns/dof = slope (kJ/mol/ns) / (k_B 300 K * dof).  Per group (force, precision, step) the table gives
each run's drift, length and ns/day, and the mean and standard deviation over the seeds.  The first --skip-ps of
each run are left out of the fit (default 0: the total energy of an NVE run is conserved from its first step).
--earlier adds the runs of earlier --json summaries (their drifts and lengths; their CSVs need not be at hand), so
that runs made at different times are pooled; the plot shows only the runs whose CSVs are given.
Below the table, for each step, Narumi (F) against OpenMM mixed: the difference of the means, its standard error
and Welch's t.
"""
import argparse
import glob
import json
import os

import numpy as np

from benchmarks.reporting import write_report  # the benchmarks' and studies' one report writer

KT300 = 0.00831446261815324 * 300.0
NAMES = {"narumi": "NarumiNonbondedForce, Narumi (F)", "narumi-single": "NarumiNonbondedForce, SingleFloat (A)",
         "openmm": "OpenMM NonbondedForce"}


def drift(csv_path, dof, skip_ps=0.0):
    data = np.loadtxt(csv_path, delimiter=",", skiprows=1, ndmin=2)
    t, e = data[:, 0], data[:, 3]
    keep = t >= skip_ps
    t, e = t[keep], e[keep]
    if len(t) < 3:
        return None
    slope, intercept = np.polyfit(t * 1e-3, e, 1)  # kJ/mol per ns
    residual = e - (slope * t * 1e-3 + intercept)
    return dict(drift=slope / (KT300 * dof), slope_kj_per_ns=slope, fluctuation=float(residual.std()),
                fit_ns=float((t[-1] - t[0]) * 1e-3), t=t, e=e)


def compare(groups, first=("narumi", "mixed"), second=("openmm", "mixed")):
    """Per step: mean drift of `first` minus that of `second`, with its standard error and Welch's t."""
    out = []
    for dt in sorted({k[2] for k in groups}):
        a, b = groups.get(first + (dt,)), groups.get(second + (dt,))
        if not a or not b or len(a) < 2 or len(b) < 2:
            continue
        x, y = np.array([r["drift"] for r in a]), np.array([r["drift"] for r in b])
        se = float(np.sqrt(x.var(ddof=1) / len(x) + y.var(ddof=1) / len(y)))
        diff = float(x.mean() - y.mean())
        out.append(f"{dt:g} fs: {NAMES[first[0]]} {first[1]} minus {NAMES[second[0]]} {second[1]}: "
                   f"{diff:+.2e} +- {se:.2e} kT/ns/dof (standard error; Welch t = {diff / se:+.2f}; "
                   f"{len(x)} and {len(y)} runs; relative {diff / y.mean():+.1%})")
    return out


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("dirs", nargs="*")
    parser.add_argument("--earlier", nargs="*", default=[], help="summaries written by --json of earlier analyses")
    parser.add_argument("--skip-ps", type=float, default=0.0)
    parser.add_argument("--markdown")
    parser.add_argument("--json")
    parser.add_argument("--png")
    args = parser.parse_args()
    runs = []
    for d in args.dirs:
        for path in sorted(glob.glob(os.path.join(d, "*.json"))):
            with open(path) as f:
                meta = json.load(f)
            csv = path[:-5] + ".csv"
            if "force" not in meta or not os.path.exists(csv):
                continue
            fit = drift(csv, meta["dof"], args.skip_ps)
            if fit:
                runs.append(dict(meta, name=os.path.basename(path[:-5]), **fit))
    groups = {}
    for r in runs:
        groups.setdefault((r["force"], r["precision"], r["dt_fs"]), []).append(r)
    for path in args.earlier:
        with open(path) as f:
            for g in json.load(f):
                seeds = g.get("seeds") or [None] * len(g["drifts"])
                speeds = g.get("ns_per_day") or [None] * len(g["drifts"])
                flucts = g.get("fluctuations") or [None] * len(g["drifts"])
                for d, length, status, seed, speed, fluct in zip(g["drifts"], g["lengths_ns"], g["status"], seeds, speeds,
                                                                 flucts):
                    groups.setdefault((g["force"], g["precision"], g["dt_fs"]), []).append(
                        dict(drift=d, length_ns=length, status=status, seed=seed, ns_per_day=speed, fluctuation=fluct))
    lines = ["| force | precision | step (fs) | seeds | length per run (ns) | drift per run (kT/ns/dof) | mean +- sd "
             "(kT/ns/dof) | energy fluctuation (kJ/mol) | ns/day (this call) |",
             "| --- | --- | --- | --- | --- | --- | --- | --- | --- |"]
    summary = []
    for key in sorted(groups):
        g = sorted(groups[key], key=lambda r: (r["seed"] is None, r["seed"] or 0))
        d = np.array([r["drift"] for r in g])
        sd = f"{d.std(ddof=1):.1e}" if len(d) > 1 else "n/a"
        lengths = ", ".join("%.3f" % r["length_ns"] for r in g)
        drifts = ", ".join("%+.1e" % x for x in d)
        flucts = ", ".join("%.2f" % r["fluctuation"] if r.get("fluctuation") is not None else "-" for r in g)
        speeds = ", ".join("%.0f" % r["ns_per_day"] if r.get("ns_per_day") else "-" for r in g)
        seeds = ",".join(str(r["seed"]) if r["seed"] is not None else "?" for r in g)
        lines.append(f"| {NAMES[key[0]]} | {key[1]} | {key[2]:g} | {seeds} | {lengths} | {drifts} | "
                     f"{d.mean():+.1e} +- {sd} | {flucts} | {speeds} |")
        summary.append(dict(force=key[0], precision=key[1], dt_fs=key[2], drifts=d.tolist(), mean=float(d.mean()),
                            sd=float(d.std(ddof=1)) if len(d) > 1 else None,
                            lengths_ns=[r["length_ns"] for r in g], status=[r["status"] for r in g],
                            seeds=[r["seed"] for r in g], ns_per_day=[r.get("ns_per_day") for r in g],
                            fluctuations=[r.get("fluctuation") for r in g]))
    lines += [""] + compare(groups)
    write_report(lines, args.markdown, args.json, summary)
    if args.png and runs:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        steps = sorted({r["dt_fs"] for r in runs})
        fig, axes = plt.subplots(1, len(steps), figsize=(6.5 * len(steps), 4.2), squeeze=False)
        colors = {("narumi", "mixed"): "C0", ("narumi", "single"): "C5", ("narumi", "double"): "C6",
                  ("narumi-single", "mixed"): "C3", ("openmm", "single"): "C1", ("openmm", "mixed"): "C2",
                  ("openmm", "double"): "C4"}
        for ax, dt in zip(axes[0], steps):
            seen = set()
            for r in sorted(runs, key=lambda r: (r["force"], r["precision"], r["seed"])):
                if r["dt_fs"] != dt:
                    continue
                key = (r["force"], r["precision"])
                label = None if key in seen else f"{NAMES[r['force']]}, {r['precision']}"
                seen.add(key)
                ax.plot(r["t"] * 1e-3, (r["e"] - r["e"][0]) / (KT300 * r["dof"]), lw=0.7,
                        color=colors.get(key, "k"), label=label)
            ax.set_xlabel("time (ns)")
            ax.set_ylabel("E_total(t) - E_total(0)  (kT/dof)")
            ax.set_title(f"DHFR water box, NVE, {dt:g} fs")
            ax.legend(fontsize=7)
        fig.tight_layout()
        fig.savefig(args.png, dpi=80)


if __name__ == "__main__":
    main()
