"""openmm-narumi: a cutoff nonbonded force for OpenMM with Narumi accumulation on GPUs.

Importing this package loads the plugin's kernels into OpenMM (no environment variable needed)::

    import openmmnarumi
    openmmnarumi.replaceNonbondedForces(system)   # switch an existing cutoff/reaction-field System over
    openmmnarumi.replaceNonbondedForces(system, positions)   # also fuses GromacsTopFile/CHARMM/Amber NBFIX tables

The analysis packages: openmmnarumi.rdf, openmmnarumi.potentialmap, openmmnarumi.hcp; GROMACS inputs:
openmmnarumi.gromacs.  The Python API follows
OpenMM's naming (CapWords classes, camelCase functions, methods and keyword arguments): docs/python-api.md.
``python -m openmmnarumi --check`` (or ``narumi-check``) says which platforms and kernels loaded, and why not.
"""
from ._version import __version__
from ._plugins import checkOpenMMVersion as _checkOpenMMVersion, loadPlugins as _loadPlugins

_checkOpenMMVersion()  # before any of the plugin's libraries is loaded: another OpenMM's ABI could crash them

from ._units import COULOMB_CONSTANT  # noqa: E402  OpenMM's 1/(4 pi eps0) in kJ nm/(mol e^2)
from .narumi import NarumiNonbondedForce, RDFSampler, createNarumiNonbondedForce, replaceNonbondedForces  # noqa: E402
from . import hcp, potentialmap, rdf  # noqa: E402  the analysis packages: docs/hcp.md, docs/potentialmap.md, docs/rdf.md
from . import gromacs  # noqa: E402  GROMACS inputs as a System: docs/gromacs.md
from .potentialmap import PotentialMap, PotentialMapReporter, computePotentialMap  # noqa: E402
from .rdf import RDFEngine, RDFReporter, computeRDFTrajectory  # noqa: E402
from .rdf import compute_rdf_trajectory  # noqa: E402,F401  deprecated alias of computeRDFTrajectory, for one release

__all__ = ["COULOMB_CONSTANT", "NarumiNonbondedForce", "createNarumiNonbondedForce", "replaceNonbondedForces", "pluginLoadFailures",
           "RDFEngine", "RDFReporter", "RDFSampler", "computeRDFTrajectory", "rdf", "hcp", "potentialmap", "gromacs",
           "PotentialMap", "PotentialMapReporter", "computePotentialMap"]

#: Messages of the plugin libraries that could not be loaded (the CUDA one on a machine without a GPU driver).
pluginLoadFailures = _loadPlugins()
