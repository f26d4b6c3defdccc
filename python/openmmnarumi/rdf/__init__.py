"""Radial distribution functions on the GPU while OpenMM simulates, and for existing trajectories.

* :class:`RDFReporter` -- an OpenMM reporter: ``simulation.reporters.append(RDFReporter("rdf.csv", 100, ...))``
  keeps ``rdf.csv`` (r, g(r), n(r), counts), ``rdf.json`` and a state file up to date during the run and draws
  ``rdf.png`` at the end (docs/reporters.md).
* :func:`computeRDFTrajectory` -- the same for a trajectory file read with mdtraj (DCD, XTC, ...), with a progress
  bar; ``python3 -m openmmnarumi.rdf TRAJ --top PDB --sel1 ... --r-max ...`` on the command line.
* :class:`RDFEngine` -- the engine itself (``openmmnarumi._rdf``): CUDA when a GPU is present, else all CPU cores.
* :func:`createSampler` and :func:`samplerResult` -- g(r) sampled inside OpenMM's Context by the
  ``openmmnarumi.RDFSampler`` force (no position download, no synchronisation: the way to sample often on a fast
  GPU simulation)::

      sampler = openmmnarumi.rdf.createSampler(topology, {"resname": "HOH", "name": "O"}, rMax=1.2, samplingInterval=100)
      system.addForce(sampler)          # before the Simulation/Context is created
      ...
      simulation.step(100000)
      result = openmmnarumi.rdf.samplerResult(sampler, simulation.context)   # an RDFResult
      result.writeCSV("rdf.csv"); result.writeMetadata("rdf.json"); result.plot("rdf.png")

Selections are atom indices, an mdtraj selection string (``"name O and resname HOH"``; needs mdtraj), or a dict
matched against an OpenMM Topology: ``{"resname": "HOH", "name": "O"}``, ``{"element": "O"}`` (values may be lists).
Units: nm.  Normalisation and limits: docs/rdf.md; the names of the Python API: docs/python-api.md.

Modules: engine (RDFEngine), selection, result (RDFResult and its files), reporter, sampler, trajectory, cli.
"""
from .cli import main
from .engine import RDFEngine, cudaAvailable, maximumRMax
from .reporter import RDFReporter
from .result import RDFCounts, RDFResult
from .sampler import createSampler, samplerResult
from .selection import exclusion_groups, exclusionGroups, select_atoms, selectAtoms
from .trajectory import compute_rdf_trajectory, computeRDFTrajectory

__all__ = ["RDFEngine", "RDFReporter", "RDFResult", "RDFCounts", "computeRDFTrajectory", "selectAtoms", "exclusionGroups",
           "cudaAvailable", "maximumRMax", "createSampler", "samplerResult", "main"]
