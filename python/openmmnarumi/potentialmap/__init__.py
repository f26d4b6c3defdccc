"""Electrostatic potential maps: direct and cutoff summation on the GPU (or CPU), time-averaged maps from simulations.

Units: positions and lengths in nm (OpenMM's), charges in e.  Maps are computed in kJ/mol/e::

    V(p) = COULOMB_CONSTANT * sum_i q_i s(|p - r_i|) / |p - r_i|   (openmmnarumi.COULOMB_CONSTANT: OpenMM's 1/(4 pi eps0)),

with s = 1 for method 'direct' (every atom as given, no periodic images) and s(r) = (1 - r^2/rc^2)^2 inside the cutoff
rc for method 'cutoff' (Rodrigues et al. 2008; periodic images by the minimum-image convention when a box is given).
A pair closer than COINCIDENCE_RADIUS (0.001 nm) is left out, so a lattice point on an atom holds the potential of
all the other atoms.  Files are written in kT/e at DEFAULT_TEMPERATURE (300 K) by default (``units=`` takes 'kT/e',
'V', 'mV', 'kJ/mol/e', 'kcal/mol/e' or 'e/A', the unit of the papers' error table); OpenDX and MRC coordinates are
in Angstrom, as VMD, PyMOL and ChimeraX expect.  See docs/potentialmap.md; the names of the Python API:
docs/python-api.md.  The command line::

    python3 -m openmmnarumi.potentialmap structure.pdb [--trajectory traj.dcd] --output map.dx --png map.png

Modules: engine (the engine, lattices, computePotentialMap), result (PotentialMap and its files), reporter,
structure (maps of PDB files and trajectories), cli.
"""
from .._system import chargesFromSystem
from .._units import DEFAULT_TEMPERATURE, FARADAY, MOLAR_GAS_CONSTANT, unitFactor
from .cli import main
from .engine import COINCIDENCE_RADIUS, computePotentialMap, cudaAvailable, makeLattice
from .reporter import PotentialMapReporter
from .result import PotentialMap
from .structure import potentialMapFromStructure, potentialMapFromTrajectory

__all__ = ["PotentialMap", "PotentialMapReporter", "computePotentialMap", "potentialMapFromStructure",
           "potentialMapFromTrajectory", "makeLattice", "chargesFromSystem", "unitFactor", "cudaAvailable",
           "COINCIDENCE_RADIUS", "DEFAULT_TEMPERATURE", "main"]
