"""A TIP3P water box simulated with OpenMM while RDFReporter accumulates the O-O and O-H radial distribution
functions (on the GPU when there is one).  Writes rdf_oo.csv/.png and rdf_oh.csv/.png.

    python3 examples/rdf_water_box.py [--edge 3.0] [--steps 5000] [--interval 100] [--platform CUDA]
"""
import argparse

import openmm
import openmm.app as app
import openmm.unit as unit

from openmmnarumi import RDFReporter


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--edge", type=float, default=3.0, help="box edge, nm")
    parser.add_argument("--steps", type=int, default=5000)
    parser.add_argument("--interval", type=int, default=100, help="steps between RDF frames")
    parser.add_argument("--platform", help="OpenMM platform (default: OpenMM's fastest)")
    args = parser.parse_args()

    forcefield = app.ForceField("amber14/tip3p.xml")
    modeller = app.Modeller(app.Topology(), [])
    modeller.addSolvent(forcefield, boxSize=openmm.Vec3(args.edge, args.edge, args.edge) * unit.nanometer)
    system = forcefield.createSystem(modeller.topology, nonbondedMethod=app.PME, nonbondedCutoff=1.0 * unit.nanometer)
    integrator = openmm.LangevinMiddleIntegrator(300 * unit.kelvin, 1 / unit.picosecond, 0.002 * unit.picoseconds)
    platform = [openmm.Platform.getPlatformByName(args.platform)] if args.platform else []
    simulation = app.Simulation(modeller.topology, system, integrator, *platform)
    simulation.context.setPositions(modeller.positions)
    simulation.minimizeEnergy()
    simulation.context.setVelocitiesToTemperature(300 * unit.kelvin)
    simulation.step(1000)  # equilibrate a little before sampling

    r_max = min(1.2, 0.5 * args.edge) * unit.nanometer
    oxygen, hydrogen = {"resname": "HOH", "element": "O"}, {"resname": "HOH", "element": "H"}
    with RDFReporter("rdf_oo.csv", args.interval, oxygen, rMax=r_max, bins=240) as oo, \
            RDFReporter("rdf_oh.csv", args.interval, oxygen, hydrogen, rMax=r_max, bins=240, exclusion="residue") as oh:
        simulation.reporters.extend([oo, oh])
        simulation.step(args.steps)
    result = oo.result()
    peak = result.r[result.g.argmax()]
    print(f"{simulation.context.getPlatform().getName()} platform, RDF on {oo.engine.backend} "
          f"({oo.engine.lastAlgorithm}), {result.frames} frames: first O-O peak g = {result.g.max():.2f} at "
          f"{peak:.3f} nm; wrote rdf_oo.csv/.png and rdf_oh.csv/.png")


if __name__ == "__main__":
    main()
