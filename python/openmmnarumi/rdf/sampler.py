"""g(r) sampled inside OpenMM's Context by the openmmnarumi.RDFSampler force, and its result as an RDFResult."""
from .._units import nanometers
from .result import RDFCounts, RDFResult, referenceVolumeInNanometers3
from .selection import bondedMolecules, exclusionGroups, selectAtoms

__all__ = ["createSampler", "samplerResult"]


def createSampler(topology, selection1, selection2=None, rMax=1.0, bins=200, samplingInterval=100, rMin=0.0,
                  exclusion=None, molecules=None):
    """An openmmnarumi.RDFSampler for the selections of a topology; add it to the System before creating the Context.

    selection1/2: atom indices, an mdtraj selection string or a query dict (see the module documentation).  rMax,
    rMin: nm (or length Quantities), over bins bins.  exclusion: None, "residue", "molecule" (molecules from the
    topology's bonds unless given) or a group per atom.  The sampler takes a frame at the start of every step whose
    step count is a multiple of samplingInterval (in time steps).
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
    referenceVolume = referenceVolumeInNanometers3(referenceVolume)
    counts = RDFCounts.fromSamplerResult(sampler.getResult(context))
    if counts.frames == 0:
        raise RuntimeError("the RDFSampler has sampled no frame yet (frames are taken at the start of each step whose "
                           "step count is a multiple of its sampling interval)")
    size1 = len(sampler.getSelection1())
    size2 = len(sampler.getSelection2()) or size1
    info = dict(backend=f"in-context RDFSampler ({context.getPlatform().getName()})",
                samplingInterval=sampler.getSamplingInterval())
    info.update(metadata)
    return RDFResult.fromCounts(counts, sampler.getRMin(), sampler.getRMax(), size1, size2,
                                referenceVolume, **info)
