#!/usr/bin/env python3
"""Compare reaction-field energies of TIP3P water in triclinic boxes: OpenMM's NonbondedForce on the
Reference and CPU platforms, NarumiNonbondedForce (Reference), and a NumPy direct sum over true minimum
images.  Prints a Markdown table (kJ/mol, dispersion correction off).  Run from the repository root:
    python3 -m studies.triclinic_reference_check
"""
import copy

import numpy as np
import openmm
import openmm.unit as unit

import openmmnarumi
from tests.python.conftest import energy_and_forces, is_narumi, isolate_in_group, nonbonded_force, water_box
from tests.python.direct_sum import reaction_field_direct_sum

CASES = [("dodecahedron", 3.0, 0.9), ("dodecahedron", 4.0, 0.9), ("dodecahedron", 4.0, 1.0),
         ("octahedron", 3.0, 0.9), ("octahedron", 4.0, 0.9), ("octahedron", 4.0, 1.0)]

print("| box | edge (nm) | cutoff (nm) | atoms | OpenMM Reference | OpenMM CPU | NarumiNonbondedForce | NumPy direct sum |")
print("| --- | --- | --- | --- | --- | --- | --- | --- |")
for shape, edge, cutoff in CASES:
    topology, positions, system = water_box(edge, box_shape=shape, cutoff_nm=cutoff)
    force = nonbonded_force(system)
    force.setUseDispersionCorrection(False)
    isolate_in_group(system, lambda f: isinstance(f, openmm.NonbondedForce))
    narumi = copy.deepcopy(system)
    openmmnarumi.replaceNonbondedForces(narumi)
    isolate_in_group(narumi, is_narumi)
    box = np.array([v.value_in_unit(unit.nanometer) for v in system.getDefaultPeriodicBoxVectors()])
    parameters = np.array([[x._value for x in force.getParticleParameters(i)] for i in range(force.getNumParticles())])
    exceptions = [tuple(x if isinstance(x, int) else x._value for x in force.getExceptionParameters(i))
                  for i in range(force.getNumExceptions())]
    direct, _ = reaction_field_direct_sum(positions.value_in_unit(unit.nanometer), box, *parameters.T, exceptions, cutoff)
    values = [energy_and_forces(system, positions, "Reference", group=1)[0],
              energy_and_forces(system, positions, "CPU", group=1)[0],
              energy_and_forces(narumi, positions, "Reference", group=1)[0], direct]
    print(f"| {shape} | {edge} | {cutoff} | {system.getNumParticles()} | " + " | ".join(f"{v:.6f}" for v in values) + " |",
          flush=True)
