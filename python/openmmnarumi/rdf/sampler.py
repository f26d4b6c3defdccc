"""g(r) sampled inside OpenMM's Context by the openmmnarumi.RDFSampler force, and its result as an RDFResult."""
import numpy as np

from .._units import nanometers
from .result import RDFResult
from .selection import bondedMolecules, exclusionGroups, selectAtoms

__all__ = ["createSampler", "samplerResult"]


def createSampler(topology, selection1, selection2=None, rMax=1.0, bins=200, samplingInterval=100, rMin=0.0,
                  exclusion=None, molecules=None):
    """An openmmnarumi.RDFSampler for the selections of a topology; add it to the System before creating the Context.

    selection1/2: atom indices, an mdtraj selection string or a query dict (see the module documentation).
    exclusion: None, "residue", "molecule" (molecules from the topology's bonds unless given) or a group per atom.
    The sampler takes a frame at the start of every step whose step count is a multiple of samplingInterval.
    """
    from ..narumi import RDFSampler
    indices1 = selectAtoms(topology, selection1)
    indices2 = [] if selection2 is None else selectAtoms(topology, selection2)
    if len(indices1) == 0:
        raise ValueError(f"selection1 {selection1!r} matched no atoms")
    if selection2 is not None and len(indices2) == 0:
        raise ValueError(f"selection2 {selection2!r} matched no atoms")
    if exclusion == "molecule" and molecules is None and topology is not None and not hasattr(topology, "to_openmm"):
        molecules = bondedMolecules(topology)
    groups = exclusionGroups(topology, exclusion, molecules)
    sampler = RDFSampler(indices1, indices2, nanometers(rMax), int(bins), int(samplingInterval), nanometers(rMin))
    if groups is not None:
        sampler.setExclusionGroups([int(g) for g in groups])
    return sampler


def samplerResult(sampler, context, referenceVolume=None, **metadata):
    """What an RDFSampler has sampled in context, as an RDFResult (g(r), n(r), counts; writeCSV, plot).

    The normalisation is RDFEngine's (docs/rdf.md), evaluated in the same order, so a sampler and an engine that saw
    the same frames give the same numbers.  referenceVolume (nm^3) normalises frames without a periodic box.
    """
    raw = sampler.getResult(context)
    frames = int(raw.numFrames)
    if frames == 0:
        raise RuntimeError("the RDFSampler has sampled no frame yet (frames are taken at the start of each step whose "
                           "step count is a multiple of its sampling interval)")
    counts = np.array(raw.pairCounts, dtype=np.uint64)
    rMin, rMax, bins = sampler.getRMin(), sampler.getRMax(), sampler.getNumBins()
    width = (rMax - rMin) / bins
    edges = rMin + np.arange(bins + 1, dtype=np.float64) * width
    edges[bins] = rMax
    centers = 0.5 * (edges[:-1] + edges[1:])
    numPairs = int(raw.numPairsPerFrame)
    size1 = len(sampler.getSelection1())
    size2 = len(sampler.getSelection2()) or size1
    withoutBox = int(raw.framesWithoutBox)
    if withoutBox > 0 and referenceVolume is None:
        raise ValueError(f"{withoutBox} frames had no periodic box: pass referenceVolume to normalise g(r)")
    sumInverseVolume = raw.sumInverseVolume + (withoutBox / nanometers(referenceVolume) if withoutBox else 0.0)
    if numPairs <= 0:
        raise ValueError(f"g(r) is undefined: there are no atom pairs to normalise by (selection sizes {size1} and {size2})")
    shells = 4.0 / 3.0 * np.pi * (edges[1:] * edges[1:] * edges[1:] - edges[:-1] * edges[:-1] * edges[:-1])
    g = counts.astype(np.float64) / (float(numPairs) * sumInverseVolume * shells)
    n = np.cumsum(counts).astype(np.float64) / (float(frames) * size1)
    platform = context.getPlatform().getName()
    info = dict(selection1Size=size1, selection2Size=size2, pairsPerFrame=numPairs,
                backend=f"in-context RDFSampler ({platform})", samplingInterval=sampler.getSamplingInterval(),
                lastSampledStep=int(raw.lastSampledStep), rMin=rMin, rMax=rMax, bins=bins)
    info.update(metadata)
    return RDFResult(r=centers, g=g, n=n, counts=counts, edges=edges, frames=frames, metadata=info)
