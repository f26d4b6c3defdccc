#!/usr/bin/env python3
"""Demo: a TIP3P water box simulated with NarumiNonbondedForce (reaction field, 1.0 nm cutoff).

The box is built with OpenMM's Modeller, the force field's NonbondedForce is swapped for a
NarumiNonbondedForce with one call, the system is equilibrated with a Langevin integrator and then
run in NVE (Verlet) on the fastest platform that has the plugin's kernel.  Prints ns/day and the
total-energy drift.
"""
import argparse
import time

import numpy as np
import openmm
import openmm.app as app
import openmm.unit as unit

import openmmnarumi


def build_water_box(box_nm):
    forcefield = app.ForceField("amber14/tip3p.xml")
    modeller = app.Modeller(app.Topology(), [])
    modeller.addSolvent(forcefield, boxSize=openmm.Vec3(box_nm, box_nm, box_nm) * unit.nanometer)
    system = forcefield.createSystem(modeller.topology, nonbondedMethod=app.CutoffPeriodic,
                                     nonbondedCutoff=1.0 * unit.nanometer, rigidWater=True)
    for force in system.getForces():
        if isinstance(force, openmm.NonbondedForce):
            force.setUseSwitchingFunction(True)
            force.setSwitchingDistance(0.9 * unit.nanometer)
    return modeller, system


def fastest_platform_context(system, integrator, positions):
    """The first platform, fastest first, on which a Context with the plugin's force can be created."""
    platforms = sorted((openmm.Platform.getPlatform(i) for i in range(openmm.Platform.getNumPlatforms())),
                       key=lambda p: -p.getSpeed())
    for platform in platforms:
        try:
            context = openmm.Context(system, integrator, platform)
        except openmm.OpenMMException as error:
            print(f"  {platform.getName()}: not usable ({str(error).splitlines()[0]})")
            continue
        context.setPositions(positions)
        return context
    raise RuntimeError("no OpenMM platform can run NarumiNonbondedForce")


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    # The CUDA search filters a block's neighbours atom by atom only while the cutoff + skin (1.1 nm) plus the block's
    # radius stays below 0.49 of the box, and warns when most blocks are not filtered: at 3.5 nm it still warned.
    parser.add_argument("--box", type=float, default=4.5,
                        help="edge of the cubic water box in nm (default 4.5, about 9,100 atoms)")
    parser.add_argument("--equilibration-steps", type=int, default=300)
    parser.add_argument("--steps", type=int, default=1000, help="NVE steps at 1 fs (default 1000)")
    args = parser.parse_args()

    modeller, system = build_water_box(args.box)
    replaced = openmmnarumi.replaceNonbondedForces(system)
    print(f"{modeller.topology.getNumAtoms()} atoms, {replaced} NonbondedForce replaced by NarumiNonbondedForce")

    integrator = openmm.LangevinMiddleIntegrator(300 * unit.kelvin, 5 / unit.picosecond, 1 * unit.femtosecond)
    context = fastest_platform_context(system, integrator, modeller.positions)
    print(f"platform: {context.getPlatform().getName()}")
    openmm.LocalEnergyMinimizer.minimize(context, maxIterations=200)
    context.setVelocitiesToTemperature(300 * unit.kelvin, 1)
    integrator.step(args.equilibration_steps)
    state = context.getState(getPositions=True, getVelocities=True)

    # NVE run in a fresh Context on the same platform, constraints tight so drift measures the force.
    verlet = openmm.VerletIntegrator(1 * unit.femtosecond)
    verlet.setConstraintTolerance(1e-8)
    nve = openmm.Context(system, verlet, context.getPlatform())
    nve.setPositions(state.getPositions())
    nve.setVelocities(state.getVelocities())
    nve.applyConstraints(1e-8)
    nve.applyVelocityConstraints(1e-8)
    times, energies = [], []
    interval = max(1, args.steps // 50)
    start = time.perf_counter()
    for block in range(args.steps // interval + 1):
        if block > 0:
            verlet.step(interval)
        s = nve.getState(getEnergy=True)
        times.append(s.getTime().value_in_unit(unit.picosecond))
        energies.append((s.getPotentialEnergy() + s.getKineticEnergy()).value_in_unit(unit.kilojoule_per_mole))
    elapsed = time.perf_counter() - start

    simulated_ns = (times[-1] - times[0]) / 1000
    dof = 3 * system.getNumParticles() - system.getNumConstraints() - 3
    kT = (unit.MOLAR_GAS_CONSTANT_R * 300 * unit.kelvin).value_in_unit(unit.kilojoule_per_mole)
    slope = np.polyfit(np.array(times) / 1000, energies, 1)[0]  # kJ/mol per ns
    print(f"speed: {simulated_ns / elapsed * 86400:.2f} ns/day ({args.steps} steps in {elapsed:.1f} s)")
    print(f"total energy: start {energies[0]:.3f} kJ/mol, end {energies[-1]:.3f} kJ/mol, "
          f"fluctuation (std) {np.std(energies):.3f} kJ/mol")
    print(f"energy drift: {slope:.3f} kJ/mol/ns = {slope / kT / dof:.3e} kT/ns per degree of freedom")


if __name__ == "__main__":
    main()
