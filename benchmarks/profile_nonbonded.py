#!/usr/bin/env python3
"""A few MD steps of a TIP3P water box with NarumiNonbondedForce and with OpenMM's NonbondedForce, for a profiler.

    ncu --metrics gpu__time_duration.sum --print-summary per-kernel python3 benchmarks/profile_nonbonded.py

gives each kernel's time per launch for both forces in one report (the settings of benchmarks/nonbonded_speed.py).
"""
import argparse

import openmm
import openmm.app as app
import openmm.unit as unit

import openmmnarumi


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--atoms", type=int, default=100000)
    parser.add_argument("--steps", type=int, default=20)
    args = parser.parse_args()
    forcefield = app.ForceField("amber99sb.xml", "tip3p.xml")
    edge = (args.atoms / 3 / 33.43) ** (1 / 3)
    modeller = app.Modeller(app.Topology(), [])
    modeller.addSolvent(forcefield, boxSize=openmm.Vec3(edge, edge, edge) * unit.nanometer)
    for use_narumi in (False, True):
        system = forcefield.createSystem(modeller.topology, nonbondedMethod=app.CutoffPeriodic,
                                         nonbondedCutoff=1.0 * unit.nanometer, constraints=app.HBonds, hydrogenMass=1.5 * unit.amu)
        if use_narumi:
            openmmnarumi.replaceNonbondedForces(system)
        integrator = openmm.LangevinMiddleIntegrator(300 * unit.kelvin, 1 / unit.picosecond, 4 * unit.femtosecond)
        context = openmm.Context(system, integrator, openmm.Platform.getPlatformByName("CUDA"), {"Precision": "mixed"})
        context.setPositions(modeller.positions)
        integrator.step(args.steps)
        print("Narumi" if use_narumi else "OpenMM", context.getState(getEnergy=True).getPotentialEnergy())


if __name__ == "__main__":
    main()
