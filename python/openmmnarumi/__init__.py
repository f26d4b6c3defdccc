"""openmm-narumi: a cutoff nonbonded force for OpenMM with Narumi accumulation on GPUs.

Importing this package loads the plugin's kernels into OpenMM (no environment variable needed)::

    import openmmnarumi
    openmmnarumi.replaceNonbondedForces(system)   # switch an existing cutoff/reaction-field System over

The analysis packages: openmmnarumi.rdf, openmmnarumi.potentialmap, openmmnarumi.hcp.  The Python API follows
OpenMM's naming (CapWords classes, camelCase functions, methods and keyword arguments): docs/python-api.md.
"""
import os as _os

import openmm as _openmm

from .narumi import NarumiNonbondedForce, RDFSampler, createNarumiNonbondedForce, replaceNonbondedForces
from . import hcp, potentialmap, rdf  # the analysis packages: docs/hcp.md, docs/potentialmap.md, docs/rdf.md
from .potentialmap import PotentialMap, PotentialMapReporter, computePotentialMap
from .rdf import RDFEngine, RDFReporter, computeRDFTrajectory
from .rdf import compute_rdf_trajectory  # deprecated alias of computeRDFTrajectory, for one release

__version__ = "0.1.0"
__all__ = ["NarumiNonbondedForce", "createNarumiNonbondedForce", "replaceNonbondedForces", "pluginLoadFailures",
           "RDFEngine", "RDFReporter", "RDFSampler", "computeRDFTrajectory", "rdf", "hcp", "potentialmap",
           "PotentialMap", "PotentialMapReporter", "computePotentialMap"]

#: Messages of the plugin libraries that could not be loaded (the CUDA one on a machine without a GPU driver).
pluginLoadFailures = []


def _loadPlugins():
    here = _os.path.dirname(_os.path.abspath(__file__))
    for name in ("libOpenMMNarumiReference.so", "libOpenMMNarumiCUDA.so"):
        path = _os.path.join(here, name)
        if not _os.path.exists(path):
            continue
        try:
            _openmm.Platform.loadPluginLibrary(path)
        except Exception as error:  # a missing GPU driver must not make the package unusable on CPUs
            pluginLoadFailures.append(f"{name}: {error}")


_loadPlugins()
