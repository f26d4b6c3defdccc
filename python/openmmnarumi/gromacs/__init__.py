"""GROMACS inputs (.top with its includes, .gro, .mdp) as an OpenMM System with a NarumiNonbondedForce that computes
what GROMACS computes: `GromacsInputs`.  What is read, built and refused: docs/gromacs.md."""
from ._inputs import GromacsInputs
from ._mdp import MdpSettings
from ._system import FORCE_GROUPS

__all__ = ["GromacsInputs", "MdpSettings", "FORCE_GROUPS"]
