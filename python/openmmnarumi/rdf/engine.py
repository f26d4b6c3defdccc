"""The RDF engine (the compiled module openmmnarumi._rdf): CUDA when a GPU is present, else all CPU cores.

RDFEngine(numAtoms, selection1, selection2=None, rMax=1.0, bins=200, rMin=0.0, exclusionGroups=None,
backend="auto", algorithm="auto"); addFrame(positions, box), rdf(), coordinationNumber(), pairCounts(), ...
"""
from .._rdf import RDFEngine, cudaAvailable, maximumRMax

__all__ = ["RDFEngine", "cudaAvailable", "maximumRMax"]
