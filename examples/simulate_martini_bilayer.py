"""A Martini 2 lipid bilayer loaded from its GROMACS inputs (.top, .gro, .mdp) and simulated with Langevin dynamics
while RDFReporter accumulates the phosphate-phosphate (PO4-PO4) and water-water (W-W) g(r); then the electrostatic
potential of the last frame: an x-z slice through the bilayer and the profile along the bilayer normal z.

    python3 examples/simulate_martini_bilayer.py [--data-dir ../shared/data] [--system complex_lipid]
        [--steps 5000] [--step-fs 20] [--interval 50] [--spacing 0.1] [--platform CPU] [--output-dir martini_bilayer]

The map is the full Coulomb potential of the periodic cell (Ewald's, by multilevel summation) divided by Martini's
epsilon_r (15): the potential in the uniformly screening medium that Martini's electrostatics assume, not the
reaction-field potential truncated at the cutoff that the force computes.
"""
import argparse
import os
import sys

import numpy as np
import openmm
import openmm.app as app
import openmm.unit as unit

from openmmnarumi import RDFReporter, computePotentialMap
from openmmnarumi.gromacs import GromacsInputs

DEFAULT_DATA_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "shared", "data")
TEMPERATURE = 310 * unit.kelvin
MILLIVOLT_PER_KJ_MOL_E = 1e6 / 96485.33212  # 1 kJ/mol/e = 1000/F V


def parseArguments(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data-dir", default=DEFAULT_DATA_DIR,
                        help="folder holding martini/<system>/ (default ../shared/data beside the repository)")
    parser.add_argument("--system", default="complex_lipid", help="folder of data-dir/martini (default complex_lipid)")
    parser.add_argument("--steps", type=int, default=5000)
    parser.add_argument("--step-fs", type=float, default=20.0, help="time step in fs (default 20)")
    parser.add_argument("--interval", type=int, default=50, help="steps between RDF frames (default 50)")
    parser.add_argument("--spacing", type=float, default=0.1, help="potential map spacing in nm (default 0.1)")
    parser.add_argument("--platform",
                        help="OpenMM platform (default: the fastest that runs the plugin: CUDA, else CPU)")
    parser.add_argument("--output-dir", default="martini_bilayer")
    args = parser.parse_args(argv)
    if args.steps < 1 or args.interval < 1 or args.step_fs <= 0 or args.spacing <= 0:
        parser.error(f"--steps {args.steps}, --interval {args.interval}, --step-fs {args.step_fs} and --spacing "
                     f"{args.spacing} must be positive")
    return args


def loadBilayer(folder):
    """GromacsInputs of a Martini folder; the System must have no thermostat or barostat, the integrator's job."""
    inputs = GromacsInputs(os.path.join(folder, "system.top"), os.path.join(folder, "minimized.gro"),
                           os.path.join(folder, "martini_md.mdp"))
    coupling = [type(f).__name__ for f in inputs.system.getForces()
                if isinstance(f, (openmm.AndersenThermostat, openmm.MonteCarloBarostat, openmm.CMMotionRemover))]
    if coupling:
        raise RuntimeError(f"the loaded System already holds {coupling}; this example adds its own Langevin thermostat")
    return inputs


def potentialProfile(potential, positions, topology, names=("PO4", "W")):
    """(z, potential averaged over x and y in mV, {bead name: number density along z in 1/nm^3})."""
    z = potential.coordinates(2)
    mean = potential.values.mean(axis=(0, 1)) * MILLIVOLT_PER_KJ_MOL_E
    dz = potential.spacing[2]
    area = potential.values.shape[0] * potential.spacing[0] * potential.values.shape[1] * potential.spacing[1]
    edges = np.append(z - dz / 2, z[-1] + dz / 2)
    atomNames = np.array([atom.name for atom in topology.atoms()])
    densities = {}
    for name in names:
        # Into the lattice's periodic range [-dz/2, Lz - dz/2): the box's z repeats every Lz = nz dz.
        heights = np.mod(positions[atomNames == name, 2] + dz / 2, edges[-1] - edges[0]) - dz / 2
        densities[name] = np.histogram(heights, bins=edges)[0] / (area * dz)
    return z, mean, densities


def plotProfile(path, z, mean, densities, title):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    figure, ax = plt.subplots(figsize=(6, 3.6), dpi=100)
    ax.plot(z, mean, color="black", label="potential")
    ax.set_xlabel("z (nm)")
    ax.set_ylabel("potential averaged over x, y (mV)")
    density = ax.twinx()
    for (name, values), colour in zip(densities.items(), ("tab:orange", "tab:blue")):
        density.plot(z, values, color=colour, alpha=0.6, label=f"{name} beads")
    density.set_ylabel("beads / nm$^3$")
    lines = ax.get_legend_handles_labels()[0] + density.get_legend_handles_labels()[0]
    ax.legend(lines, [line.get_label() for line in lines], loc="upper right", fontsize="small")
    ax.set_title(title, fontsize="medium")
    figure.tight_layout()
    figure.savefig(path)
    plt.close(figure)


def main(argv=None):
    args = parseArguments(argv)
    folder = os.path.join(args.data_dir, "martini", args.system)
    if not os.path.isfile(os.path.join(folder, "system.top")):
        print(f"skipped: {folder} has no system.top (give --data-dir)")
        return None
    os.makedirs(args.output_dir, exist_ok=True)

    def output(name):
        return os.path.join(args.output_dir, name)

    inputs = loadBilayer(folder)
    integrator = openmm.LangevinMiddleIntegrator(TEMPERATURE, 1 / unit.picosecond, args.step_fs * unit.femtoseconds)
    # Without a platform OpenMM takes the fastest one whose kernels the System needs: CUDA where the plugin has it.
    platform = [openmm.Platform.getPlatformByName(args.platform)] if args.platform else []
    simulation = app.Simulation(inputs.topology, inputs.system, integrator, *platform)
    simulation.context.setPositions(inputs.positions)
    simulation.context.setVelocitiesToTemperature(TEMPERATURE)
    print(f"{args.system}: {inputs.system.getNumParticles()} beads, {simulation.context.getPlatform().getName()} "
          f"platform, {args.steps} steps of {args.step_fs:g} fs")

    simulation.reporters.append(app.StateDataReporter(
        sys.stdout, max(1, args.steps // 10), step=True, potentialEnergy=True, temperature=True, speed=True))
    with RDFReporter(output("rdf_po4.csv"), args.interval, {"name": "PO4"}, rMax=2.0, bins=200) as po4, \
            RDFReporter(output("rdf_w.csv"), args.interval, {"name": "W"}, rMax=1.5, bins=150) as water:
        simulation.reporters.extend([po4, water])
        simulation.step(args.steps)
    state = simulation.context.getState(getPositions=True, getEnergy=True, enforcePeriodicBox=True)
    positions = state.getPositions(asNumpy=True).value_in_unit(unit.nanometer)
    box = state.getPeriodicBoxVectors(asNumpy=True).value_in_unit(unit.nanometer)

    force = inputs.nonbondedForce
    charges = [force.getParticleParameters(i)[0].value_in_unit(unit.elementary_charge)
               for i in range(force.getNumParticles())]
    # Ewald's potential of the periodic cell in vacuum, then Martini's uniform screening.
    potential = computePotentialMap(positions, charges, spacing=args.spacing, boxVectors=box, method="msm")
    potential.values /= force.getCoulombDielectric()
    potential.writeSlicePNG(output("potential_xz.png"), axis="y", units="mV",
                            title=f"{args.system}: y = {potential.coordinates(1)[potential.shape[1] // 2]:.2f} nm, "
                                  f"Coulomb / {force.getCoulombDielectric():g}")
    z, mean, densities = potentialProfile(potential, positions, inputs.topology)
    np.savetxt(output("potential_profile.csv"), np.column_stack([z, mean, *densities.values()]), delimiter=",",
               header="z_nm,potential_mV," + ",".join(f"{name}_per_nm3" for name in densities), comments="")
    plotProfile(output("potential_profile.png"), z, mean, densities,
                f"{args.system}, last frame: Ewald potential / {force.getCoulombDielectric():g}")

    results = {"po4": po4.result(), "water": water.result(), "positions": positions, "box": box,
               "potential": potential, "profile": (z, mean, densities), "topology": inputs.topology}
    for name, result in (("PO4-PO4", results["po4"]), ("W-W", results["water"])):
        peak = result.r[result.g.argmax()]
        print(f"{name}: {result.frames} frames, highest peak g = {result.g.max():.2f} at {peak:.3f} nm")
    print(f"potential along z: {mean.min():.1f} to {mean.max():.1f} mV; wrote {args.output_dir}/rdf_po4.csv/.png, "
          f"rdf_w.csv/.png, potential_xz.png, potential_profile.csv/.png")
    return results


if __name__ == "__main__":
    main()
