"""Electrostatic surface potential with hierarchical charge partitioning (HCP), on the GPU or the CPU.

The potential at points on (or outside) a molecule's surface from its atomic charges, in the analytic linearized
Poisson-Boltzmann (ALPB) model, salt-free (Sigalov, Fenley & Onufriev, J Chem Phys 124, 124902 (2006); Fenley,
Gordon & Onufriev, J Chem Phys 129, 075101 (2008); eq. (1) of Daga, Feng & Scogland)::

    phi = k_e / (eps_out (1 + alpha beta)) * sum_i q_i [(1 + alpha) / d_i - alpha (1 - beta) / r]

with alpha = 0.580127, beta = eps_in / eps_out, d_i the distance from atom i to the point, r = A + p (A: the
molecule's electrostatic size, p: the point's distance outside the molecular surface) and k_e OpenMM's Coulomb
constant (openmmnarumi.COULOMB_CONSTANT).  The sum is exact, or uses hierarchical charge partitioning (Anandakrishnan & Onufriev, J Comput Chem
31, 691 (2010)): components of the molecule (residues, chains, complexes, taken from the OpenMM Topology) at or
beyond a distance threshold of their level (1, 7 and 15 nm by default) are replaced by two point charges (their
negative and their positive charge, each at its centre of charge) that keep their total charge and dipole.

Units: the Python API takes and returns OpenMM's units, positions in nm, charges in e, potentials in kJ/mol/e
(``convertPotential`` gives kcal/mol/e or kT/e, at DEFAULT_TEMPERATURE = 300 K unless told); eps_in and eps_out are
SurfacePotential's soluteDielectric and solventDielectric, as in OpenMM's ForceField.createSystem.  The command line
(``python -m openmmnarumi.hcp``) takes the same units (lengths in nm); only the coordinates of the files it writes
(CSV, PLY, PNG axes) are in Angstrom, so that they overlay the PDB.
The names of the Python API: docs/python-api.md.

Modules: molecule (PDB input, radii, hierarchy, electrostatic size), surface (surface points), engine
(SurfacePotential), output (units, CSV/PLY/PNG files), cli.
"""
from .._deprecation import deprecatedAlias
from .._system import chargesFromSystem
from .._units import DEFAULT_TEMPERATURE, KJ_PER_KCAL, MOLAR_GAS_CONSTANT
from .cli import main
from .engine import (ALPB_ALPHA, DEFAULT_THRESHOLDS, SurfacePotential, SurfacePotentialResult,
                     cudaAvailable)
from .molecule import (BONDI_RADII, DEFAULT_RADIUS, assemble_copies, assembleCopies, atomic_radii, atomicRadii,
                       component_indices, componentIndices, electrostatic_size, electrostaticSize, prepare_molecule,
                       prepareMolecule, readMolecule)
from .output import (UNITS, convert_potential, convertPotential, write_csv, write_ply, write_png, writeCSV, writePLY,
                     writePNG)
from .surface import SurfacePointSet, surface_points, surfacePoints

__all__ = ["SurfacePotential", "SurfacePotentialResult", "SurfacePointSet", "surfacePoints", "electrostaticSize",
           "atomicRadii", "componentIndices", "chargesFromSystem", "prepareMolecule", "readMolecule",
           "convertPotential",
           "writeCSV", "writePLY", "writePNG", "cudaAvailable", "assembleCopies", "main",
           "ALPB_ALPHA", "DEFAULT_THRESHOLDS", "DEFAULT_TEMPERATURE", "BONDI_RADII",
           "DEFAULT_RADIUS", "UNITS"]

charges_from_system = deprecatedAlias(chargesFromSystem, "charges_from_system")
cuda_available = deprecatedAlias(cudaAvailable, "cuda_available")
