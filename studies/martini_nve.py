"""Energy conservation of the Martini 2 bilayer at 20 fs: NarumiNonbondedForce on the CUDA platform beside GROMACS.

    python3 -m studies.martini_nve --engine narumi  [--data-dir ../shared/data] [--ns 1] [--precision mixed]
    python3 -m studies.martini_nve --engine gromacs [--data-dir ../shared/data] [--ns 1] [--gmx gmx]

The DPPC/DIPC/CHOL bilayer of DATA/martini/complex_lipid (11,011 beads, its .mdp's reaction field and shifted
Lennard-Jones, cholesterol's constraints), velocities drawn at 310 K, then --ns of constant-energy dynamics at 20 fs
with energies every 1 ps.  'narumi': openmmnarumi.gromacs.GromacsInputs' System with OpenMM's VerletIntegrator
(constraints to 1e-8), no thermostat or centre-of-mass motion remover.  'gromacs': the same inputs through
`gmx grompp` and `gmx mdrun` (integrator md, tcoupl and pcoupl off, its own pair-list buffer from the .mdp's
verlet-buffer-tolerance), the total ("Total-Energy") read with `gmx energy`.  Both report the drift as the slope of a
least-squares line through the total energy, in kJ/mol per ns and per bead, and the RMS of the total energy about it.
"""
import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile

import numpy as np

from tests.support.gromacs import write_mdp

STEP_PS = 0.02
RECORD_PS = 1.0


def drift_report(engine, times_ps, totals, beads, detail):
    slope, intercept = np.polyfit(times_ps, totals, 1)
    residual = totals - (slope * times_ps + intercept)
    drift = slope * 1000 / beads
    print(f"{engine}: {len(totals)} energies over {times_ps[-1] - times_ps[0]:.0f} ps, {beads} beads ({detail}): drift "
          f"{drift:+.3e} kJ/mol/ns per bead ({slope * 1000:+.2f} kJ/mol/ns in all), RMS about the line "
          f"{np.sqrt(np.mean(residual**2)):.3f} kJ/mol, total at start {totals[0]:.1f} kJ/mol")
    return drift


def run_narumi(folder, ns, precision):
    import openmm
    from openmm import unit
    from openmmnarumi.gromacs import GromacsInputs
    inputs = GromacsInputs(os.path.join(folder, "system.top"), os.path.join(folder, "minimized.gro"),
                           os.path.join(folder, "martini_md.mdp"))
    integrator = openmm.VerletIntegrator(STEP_PS * unit.picosecond)
    integrator.setConstraintTolerance(1e-8)
    context = openmm.Context(inputs.system, integrator, openmm.Platform.getPlatformByName("CUDA"), {"Precision": precision})
    context.setPeriodicBoxVectors(*inputs.boxVectors)
    context.setPositions(inputs.positions)
    context.computeVirtualSites()
    context.applyConstraints(1e-8)
    context.setVelocitiesToTemperature(310 * unit.kelvin, 1)
    context.applyVelocityConstraints(1e-8)
    steps_per_record = int(round(RECORD_PS / STEP_PS))
    times, totals = [], []
    for record in range(int(round(ns * 1000 / RECORD_PS)) + 1):
        if record:
            integrator.step(steps_per_record)
        state = context.getState(getEnergy=True)
        total = (state.getPotentialEnergy() + state.getKineticEnergy()).value_in_unit(unit.kilojoule_per_mole)
        if not np.isfinite(total):
            raise SystemExit(f"narumi: the total energy became {total} at {record * RECORD_PS} ps")
        times.append(record * RECORD_PS)
        totals.append(total)
    return drift_report("narumi", np.array(times), np.array(totals), inputs.system.getNumParticles(),
                        f"CUDA {precision} precision, VerletIntegrator")


def run_gromacs(folder, ns, gmx):
    work = tempfile.mkdtemp(prefix="martini_nve_")
    for name in os.listdir(folder):
        if name.endswith((".top", ".itp", ".gro")):
            shutil.copy(os.path.join(folder, name), work)
    # GROMACS's defaults for what the run does not set; the thermostat, barostat and output of the source mdp off.
    write_mdp(os.path.join(folder, "martini_md.mdp"), os.path.join(work, "nve.mdp"), {
        "integrator": "md", "dt": STEP_PS, "nsteps": int(round(ns * 1000 / STEP_PS)), "tcoupl": "no", "pcoupl": "no",
        "gen-vel": "yes", "gen-temp": 310, "gen-seed": 1, "nstcalcenergy": 10, "nstenergy": int(round(RECORD_PS / STEP_PS)),
        "nstxout": 0, "nstvout": 0, "nstfout": 0, "nstxtcout": 0, "nstlog": 5000, "comm-mode": "none"})
    run = lambda *command, stdin=None: subprocess.run(command, cwd=work, input=stdin, capture_output=True, text=True, check=True)
    run(gmx, "grompp", "-f", "nve.mdp", "-c", "minimized.gro", "-p", "system.top", "-o", "nve.tpr", "-maxwarn", "2")
    run(gmx, "mdrun", "-s", "nve.tpr", "-deffnm", "nve", "-nt", str(os.cpu_count() or 1))
    run(gmx, "energy", "-f", "nve.edr", "-o", "nve.xvg", stdin="Total-Energy\n\n")
    data = np.loadtxt([line for line in open(os.path.join(work, "nve.xvg")) if not line.startswith(("#", "@"))])
    beads = int(open(os.path.join(work, "minimized.gro")).readlines()[1])
    version = run(gmx, "--version").stdout
    version = re.search(r"GROMACS version:\s*(\S+)", version).group(1) if "GROMACS version" in version else "?"
    return drift_report("gromacs", data[:, 0], data[:, 1], beads, f"GROMACS {version} ({gmx}), md integrator, CPU")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--engine", choices=("narumi", "gromacs"), required=True)
    parser.add_argument("--data-dir", default=os.path.join(os.path.dirname(__file__), "..", "..", "shared", "data"))
    parser.add_argument("--ns", type=float, default=1.0)
    parser.add_argument("--precision", default="mixed", choices=("single", "mixed", "double"))
    parser.add_argument("--gmx", default="gmx")
    args = parser.parse_args()
    folder = os.path.join(args.data_dir, "martini", "complex_lipid")
    if not os.path.exists(os.path.join(folder, "system.top")):
        print(f"no Martini data in {folder}: nothing to run")
        return 0
    if args.engine == "narumi":
        run_narumi(folder, args.ns, args.precision)
    else:
        run_gromacs(folder, args.ns, args.gmx)
    return 0


if __name__ == "__main__":
    sys.exit(main())
