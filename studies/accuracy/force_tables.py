#!/usr/bin/env python3
"""The compact tables of docs/accuracy.md section 1 from a force_accuracy.py JSON file:

    python3 -m studies.accuracy.force_tables docs/accuracy/force_accuracy.json

Per system: one row per GPU method with eq. 10 error / eq. 11 offset in single, mixed and double precision and the
relative energy differences; then, for System 1, the emulation's on-the-fly and afterwards columns.
"""
import argparse
import json


def gpu_table(rows):
    methods = [r["what"] for r in rows if r["precision"] in ("single", "mixed", "double")]
    lines = ["| method | exclusion | single: err / offset | mixed: err / offset | double: err / offset | "
             "energy rel. diff. (single / mixed / double) |", "| --- | --- | --- | --- | --- | --- |"]
    for what in dict.fromkeys(methods):
        by_precision = {r["precision"]: r for r in rows if r["what"] == what}
        cells = [f"{by_precision[p]['error']:.2e} / {by_precision[p]['offset']:.1e}" if p in by_precision else "-"
                 for p in ("single", "mixed", "double")]
        energies = " / ".join(f"{by_precision[p]['energy_rel']:.1e}" if p in by_precision else "-"
                              for p in ("single", "mixed", "double"))
        mode = next(iter(by_precision.values()))["mode"]
        lines.append(f"| {what} | {mode} | {' | '.join(cells)} | {energies} |")
    return lines


def emulation_table(rows):
    lines = ["| method | on the fly: err / offset | afterwards: err / offset |", "| --- | --- | --- |"]
    for what in dict.fromkeys(r["what"] for r in rows):
        by_mode = {r["mode"]: r for r in rows if r["what"] == what}
        cells = [f"{by_mode[m]['error']:.2e} / {by_mode[m]['offset']:.1e}" if m in by_mode else "-"
                 for m in ("on the fly", "afterwards")]
        lines.append(f"| {what.replace('emulation ', '')} | {' | '.join(cells)} |")
    return lines


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("json")
    args = parser.parse_args()
    with open(args.json) as f:
        results = json.load(f)["results"]
    out = []
    for system in dict.fromkeys(r["system"] for r in results):
        rows = [r for r in results if r["system"] == system]
        oracle = next(r for r in rows if r["what"].startswith("G: all double (oracle)"))
        out += [f"**{system}** ({oracle['atoms']} atoms; oracle offset {oracle['offset']:.1e})", ""]
        out += gpu_table([r for r in rows if not r["what"].startswith(("emulation", "G: all double (oracle)"))])
        emulated = [r for r in rows if r["what"].startswith("emulation")]
        if emulated:
            out += ["", "NumPy float32 **emulation** (not the kernel; atom-index summation order):", ""]
            out += emulation_table(emulated)
        out.append("")
    print("\n".join(out))


if __name__ == "__main__":
    main()
