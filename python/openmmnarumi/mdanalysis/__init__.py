"""Trajectory analysis in the MDAnalysis ecosystem, computed by this project's GPU engines.

Real :class:`MDAnalysis.analysis.base.AnalysisBase` subclasses (MDAnalysis is an optional extra:
``pip install 'openmm-narumi[mdanalysis]'``), so they read every format MDAnalysis reads and follow its
conventions: Angstrom, snake_case keywords, ``run(start, stop, step, frames, verbose)``, results in ``.results``.

- :class:`InterRDF`: ``MDAnalysis.analysis.rdf.InterRDF``'s interface and results, counted by the RDF engine (64-bit
  counts, triclinic boxes).
- :class:`PotentialMapAnalysis`: the time-averaged electrostatic potential map (direct or cutoff summation).
- :class:`SurfacePotentialAnalysis`: the HCP surface potential of a molecule per frame.

Each is parallel over frames with MDAnalysis' own machinery: ``run(backend="multiprocessing" | "dask",
n_workers=...)``, or ``run(backend=DaskClusterBackend(client_or_address))`` for a ``dask.distributed`` cluster.
Part k of the frames runs on CUDA device ``devices[k % len(devices)]`` (default: every device the worker sees),
so the workers of a multi-GPU host use different GPUs.  See docs/mdanalysis.md.
"""
from .backends import DaskClusterBackend
from .rdf import InterRDF
from .potentialmap import PotentialMapAnalysis
from .surface import SurfacePotentialAnalysis

__all__ = ["InterRDF", "PotentialMapAnalysis", "SurfacePotentialAnalysis", "DaskClusterBackend"]
