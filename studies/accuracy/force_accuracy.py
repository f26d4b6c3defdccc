#!/usr/bin/env python3
"""Force accuracy (eq. 10) and force offset (eq. 11) of every accumulation method: Narumi et al. 2008, Figs. 10-11.

For each system (accuracylib: system1-lj, system1-full, system2, production) and the same positions:
  oracle (method G)   OpenMM's NonbondedForce on the Reference platform (double); for System 2 with more than 8192
                      particles the plugin's double-precision kernel on the CPU platform (equal to Reference to 2e-15)
  GPU                 NarumiNonbondedForce with each accumulation method of Table 1 (A SingleFloat, B DoubleFloat,
                      C TakahashiIitaka, D Nitadori, E ModifiedNitadori, F Narumi) and FixedPoint64, exclude
                      afterwards (the kernel's only mode), in each --precisions mode (C-E through the CUDA
                      platform's diagnostics, NARUMI_DIAGNOSTICS=accumulation=NAME); and
                      OpenMM's own NonbondedForce (exclusions on the fly, 64-bit fixed point) in each mode
  emulation           (System 1 only, --emulate) NumPy float32 per-atom sums of A-F and FixedPoint64 with exclude
                      on the fly and afterwards, plus the float64 twin of the oracle
Writes a JSON file and a Markdown table.  --platform CPU runs the pipeline without a GPU (then 'precision' is moot).
"""
import argparse
import datetime
import os
import sys
import time

from benchmarks.reporting import gpu_names, write_report  # the benchmarks' and studies' one report writer
from studies.accuracy import accuracylib as L


def oracle(key, system, positions):
    if key == "system2" and system.getNumParticles() > 8192 and "CPU" in L.platform_names():
        forces, energy = L.forces_on(L.narumi_version(system, "Narumi"), positions, "CPU")
        return forces, energy, "NarumiNonbondedForce, CPU platform (double kernel)"
    forces, energy = L.forces_on(system, positions, "Reference")
    return forces, energy, "NonbondedForce, Reference platform"


def build(name, data_dir, system2_n):
    if name == "system1-lj":
        return L.system1(data_dir, lj_only=True)
    if name == "system1-full":
        return L.system1(data_dir, lj_only=False)
    if name == "system2":
        return L.system2(system2_n)
    if name == "production":
        return L.production(data_dir)
    raise ValueError(name)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data-dir", default=os.path.join(os.path.dirname(__file__), "..", "..", "..", "shared", "data"))
    parser.add_argument("--systems", nargs="*", default=["system1-lj", "system1-full", "system2", "production"])
    parser.add_argument("--system2-n", type=int, default=65536)
    parser.add_argument("--platform", default="CUDA")
    parser.add_argument("--precisions", nargs="*", default=["single", "mixed", "double"])
    parser.add_argument("--emulate", action="store_true", help="run the float32 emulation on System 1")
    parser.add_argument("--json", default="force_accuracy.json")
    parser.add_argument("--markdown", default="force_accuracy.md")
    args = parser.parse_args()
    if args.platform not in L.platform_names():
        sys.exit(f"no {args.platform} platform; plugin load failures: {L.openmmnarumi.pluginLoadFailures}")
    precisions = args.precisions if args.platform in ("CUDA", "OpenCL") else ["(double kernel)"]
    results = []
    for key in args.systems:
        if key != "system2" and not os.path.exists(os.path.join(args.data_dir, "5dfr_minimized.pdb")):
            print(f"{key}: skipped, no data in {args.data_dir}")
            continue
        t0 = time.perf_counter()
        name, positions, system = build(key, args.data_dir, args.system2_n)
        ref, ref_energy, oracle_name = oracle(key, system, positions)
        print(f"== {name}: {len(positions)} atoms; oracle {oracle_name} ({time.perf_counter() - t0:.1f} s), "
              f"oracle offset {L.force_offset(ref):.3e}", flush=True)

        def record(what, mode, precision, forces, energy):
            row = dict(system=name, key=key, atoms=len(positions), what=what, mode=mode, precision=precision,
                       error=L.force_error(forces, ref), offset=L.force_offset(forces),
                       energy=energy, energy_rel=None if energy is None else abs(energy - ref_energy) / abs(ref_energy))
            results.append(row)
            print(f"  {what:40s} {mode:11s} {precision:16s} err {row['error']:.3e}  offset {row['offset']:.3e}"
                  + ("" if energy is None else f"  dE/E {row['energy_rel']:.2e}"), flush=True)

        record("G: all double (oracle)", "-", "double", ref, ref_energy)
        for precision in precisions:
            for m, accumulation in L.METHODS.items():
                forces, energy = L.forces_on(L.narumi_version(system, accumulation), positions, args.platform, precision,
                                             L.accumulation_diagnostics(accumulation))
                record(L.LABELS[m], "afterwards", precision, forces, energy)
            forces, energy = L.forces_on(system, positions, args.platform, precision)
            record(f"OpenMM NonbondedForce ({args.platform})", "on the fly", precision, forces, energy)
        if args.emulate and key.startswith("system1"):
            t1 = time.perf_counter()
            emulated = L.emulate(system, positions)
            print(f"  (emulation {time.perf_counter() - t1:.1f} s)")
            for (m, mode), forces in emulated.items():
                label = "G: all double" if m == "G" else L.LABELS[m]
                record("emulation " + label, mode, "float32 pairs" if m != "G" else "float64 pairs", forces, None)
        print(f"  ({time.perf_counter() - t0:.1f} s)", flush=True)

    meta = dict(command="python3 -m studies.accuracy.force_accuracy " + " ".join(sys.argv[1:]),
                date=datetime.date.today().isoformat(), platform=args.platform,
                gpu=gpu_names() or None, openmm=L.openmm.__version__)
    lines = [f"`{meta['command']}` on {meta['gpu'] or args.platform}, OpenMM {meta['openmm']}, {meta['date']}", ""]
    for key in dict.fromkeys(r["system"] for r in results):
        lines += [f"**{key}** ({next(r['atoms'] for r in results if r['system'] == key)} atoms)", "",
                  "| method | exclusion | precision | eq. 10 error | eq. 11 offset | rel. energy diff. |",
                  "| --- | --- | --- | --- | --- | --- |"]
        for r in results:
            if r["system"] == key:
                e = "" if r["energy_rel"] is None else f"{r['energy_rel']:.1e}"
                lines.append(f"| {r['what']} | {r['mode']} | {r['precision']} | {r['error']:.2e} | {r['offset']:.2e} | {e} |")
        lines.append("")
    write_report(lines, args.markdown, args.json, dict(meta=meta, results=results))


if __name__ == "__main__":
    main()
