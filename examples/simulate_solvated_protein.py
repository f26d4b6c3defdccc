#!/usr/bin/env python3
"""A solvated protein (DHFR, 23,558 atoms) simulated with NarumiNonbondedForce on the fastest platform.

amber99sb + tip3p, CutoffPeriodic 1.0 nm reaction field, HBonds, hydrogen mass 1.5 amu, LangevinMiddleIntegrator
at 300 K with 4 fs steps.  Prints potential energy and temperature as it goes and exits with an error if the
simulation becomes unstable (NaN, or a temperature outside 250-350 K after the first report).
"""
import argparse
import os
import sys
import time

import openmm
import openmm.app as app
import openmm.unit as unit

import openmmnarumi


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data-dir", default=os.path.join(os.path.dirname(__file__), "..", "..", "shared", "data"))
    parser.add_argument("--steps", type=int, default=5000)
    parser.add_argument("--report-interval", type=int, default=500)
    parser.add_argument("--platform", help="default: the fastest that runs the force")
    args = parser.parse_args()
    path = os.path.join(args.data_dir, "5dfr_solv-cube_equil.pdb")
    if not os.path.exists(path):
        sys.exit(f"{path} not found (use --data-dir)")

    pdb = app.PDBFile(path)
    forcefield = app.ForceField("amber99sb.xml", "tip3p.xml")
    system = forcefield.createSystem(pdb.topology, nonbondedMethod=app.CutoffPeriodic, nonbondedCutoff=1.0 * unit.nanometer,
                                     constraints=app.HBonds, hydrogenMass=1.5 * unit.amu)
    openmmnarumi.replaceNonbondedForces(system)
    integrator = openmm.LangevinMiddleIntegrator(300 * unit.kelvin, 1 / unit.picosecond, 4 * unit.femtosecond)
    names = [args.platform] if args.platform else sorted(
        (openmm.Platform.getPlatform(i).getName() for i in range(openmm.Platform.getNumPlatforms())),
        key=lambda n: -openmm.Platform.getPlatformByName(n).getSpeed())
    for name in names:
        try:
            simulation = app.Simulation(pdb.topology, system, integrator, openmm.Platform.getPlatformByName(name))
            break
        except openmm.OpenMMException as error:
            print(f"{name}: not usable ({str(error).splitlines()[0]})")
    else:
        sys.exit("no platform runs NarumiNonbondedForce")
    print(f"{system.getNumParticles()} atoms on the {simulation.context.getPlatform().getName()} platform")
    simulation.context.setPositions(pdb.positions)
    simulation.minimizeEnergy(maxIterations=200)
    simulation.context.setVelocitiesToTemperature(300 * unit.kelvin, 1)
    dof = 3 * system.getNumParticles() - system.getNumConstraints() - 3
    start = time.perf_counter()
    for done in range(args.report_interval, args.steps + 1, args.report_interval):
        simulation.step(args.report_interval)
        state = simulation.context.getState(getEnergy=True)
        potential = state.getPotentialEnergy().value_in_unit(unit.kilojoule_per_mole)
        temperature = (2 * state.getKineticEnergy() / (dof * unit.MOLAR_GAS_CONSTANT_R)).value_in_unit(unit.kelvin)
        print(f"step {done:7d}  potential {potential:14.2f} kJ/mol  temperature {temperature:6.1f} K", flush=True)
        # The first report still sees the minimized structure warming up (kinetic energy flows into the potential).
        if potential != potential or (done > args.report_interval and not 250 < temperature < 350):
            sys.exit(f"unstable at step {done}: potential {potential} kJ/mol, temperature {temperature:.1f} K")
    elapsed = time.perf_counter() - start
    print(f"{args.steps} steps stable; {args.steps * 4e-6 / elapsed * 86400:.1f} ns/day including reporting")


if __name__ == "__main__":
    main()
