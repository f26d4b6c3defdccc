"""The RDF engine (the compiled module openmmnarumi._rdf): CUDA when a GPU is present, else all CPU cores.

RDFEngine(numAtoms, selection1, selection2=None, rMax=1.0, bins=200, rMin=0.0, exclusionGroups=None,
backend="auto", algorithm="auto"); addFrame(positions, box), rdf(), coordinationNumber(), pairCounts(), ...
"""
from .. import _rdf
from .._units import nanometers, nanometers3, stripUnit
from .._rdf import cudaAvailable, maximumRMax

__all__ = ["RDFEngine", "cudaAvailable", "maximumRMax"]


class RDFEngine(_rdf.RDFEngine):
    __doc__ = _rdf.RDFEngine.__doc__ + """
Lengths are nm, or OpenMM Quantities (rMax, rMin, positions, box, the reference volume in nm^3).
"""

    def __init__(self, numAtoms, selection1, selection2=None, rMax=1.0, bins=200, rMin=0.0, exclusionGroups=None,
                 backend="auto", algorithm="auto", cpuThreads=0, cudaDevice=0):
        super().__init__(numAtoms, selection1, selection2, nanometers(rMax), bins, nanometers(rMin), exclusionGroups,
                         backend, algorithm, cpuThreads, cudaDevice)

    def addFrame(self, positions, box=None):
        """Adds a frame: positions (numAtoms, 3) in nm (float32 or float64 arrays are used as they are; Quantities
        are converted); box: 3 x 3 vectors in nm (OpenMM's reduced form), or None for no periodicity."""
        super().addFrame(stripUnit(positions, "nanometer"), None if box is None else stripUnit(box, "nanometer"))

    def setReferenceVolume(self, volume):
        """Volume (nm^3, or a Quantity) that normalises frames without a periodic box."""
        super().setReferenceVolume(nanometers3(volume))
