"""RDFCounts (what g(r) is normalised from) and RDFResult: g(r), n(r) and the pair counts, and their files (CSV with
a JSON sidecar, PNG)."""
import json
import os
from dataclasses import dataclass, field

import numpy as np

from .._deprecation import deprecatedAlias
from .._units import nanometers3

__all__ = ["RDFCounts", "RDFResult"]


@dataclass
class RDFCounts:
    """Ordered-pair counts per bin and the frames' bookkeeping behind them.  Two runs' counts add (``a + b``), which
    is how a reporter continues an earlier run (append=True).  lastStep: the step of the last frame, -1 if unknown."""
    counts: np.ndarray         #: ordered-pair counts per bin (uint64), summed over frames
    frames: int = 0            #: frames counted
    framesWithoutBox: int = 0  #: of them, frames without a periodic box (normalised by a reference volume)
    sumInverseVolume: float = 0.0  #: sum over the frames with a box of 1/V, nm^-3
    pairsPerFrame: int = 0     #: ordered pairs per frame that g(r) is normalised by
    lastStep: int = -1         #: the step of the last frame, -1 if unknown

    @classmethod
    def empty(cls, bins):
        """No frames yet: zero counts in bins bins."""
        return cls(counts=np.zeros(int(bins), dtype=np.uint64))

    @classmethod
    def fromSamplerResult(cls, raw):
        """From an RDFSampler's or AttachedRDFSampler's getResult()."""
        return cls(counts=np.array(raw.pairCounts, dtype=np.uint64), frames=int(raw.numFrames),
                   framesWithoutBox=int(raw.framesWithoutBox), sumInverseVolume=float(raw.sumInverseVolume),
                   pairsPerFrame=int(raw.numPairsPerFrame), lastStep=int(raw.lastSampledStep))

    def __add__(self, other):
        if len(self.counts) != len(other.counts):
            raise ValueError(f"cannot add counts of {len(self.counts)} and {len(other.counts)} bins")
        pairs = {self.pairsPerFrame, other.pairsPerFrame} - {0}
        if len(pairs) > 1:
            raise ValueError(f"cannot add counts of {self.pairsPerFrame} and {other.pairsPerFrame} pairs per frame")
        return RDFCounts(counts=self.counts + other.counts, frames=self.frames + other.frames,
                         framesWithoutBox=self.framesWithoutBox + other.framesWithoutBox,
                         sumInverseVolume=self.sumInverseVolume + other.sumInverseVolume,
                         pairsPerFrame=max(self.pairsPerFrame, other.pairsPerFrame),
                         lastStep=max(self.lastStep, other.lastStep))


@dataclass
class RDFResult:
    """g(r) and n(r) at the bin centres r (nm), the ordered-pair counts behind them, and the frames used."""
    r: np.ndarray       #: bin centres, nm
    g: np.ndarray       #: g(r) at r (dimensionless)
    n: np.ndarray       #: n(r): mean number of selection-2 atoms within each bin's upper edge of a selection-1 atom
    counts: np.ndarray  #: ordered-pair counts per bin, summed over frames
    edges: np.ndarray   #: the bins+1 bin edges, nm
    frames: int         #: frames counted
    metadata: dict = field(default_factory=dict)  #: what the JSON sidecar holds beside (units, selections, backend)

    @classmethod
    def fromEngine(cls, engine, **metadata):
        """The result of an RDFEngine so far; metadata (keyword arguments) goes into the JSON sidecar."""
        metadata.update(selection1Size=engine.selection1Size, selection2Size=engine.selection2Size,
                        pairsPerFrame=engine.numPairsPerFrame, backend=engine.backend, algorithm=engine.lastAlgorithm)
        return cls(r=engine.binCenters(), g=engine.rdf(), n=engine.coordinationNumber(), counts=engine.pairCounts(),
                   edges=engine.binEdges(), frames=engine.numFrames, metadata=metadata)

    @classmethod
    def fromCounts(cls, counts, rMin, rMax, size1, size2, referenceVolume=None, **metadata):
        """g(r) and n(r) from RDFCounts with RDFEngine's normalisation (docs/rdf.md), evaluated in the same order, so
        that a sampler and an engine that saw the same frames give the same numbers.  size2 = size1 for one
        selection; referenceVolume (nm^3) normalises frames without a periodic box."""
        if counts.frames == 0:
            raise RuntimeError("no frame has been sampled yet")
        bins = len(counts.counts)
        width = (rMax - rMin) / bins
        edges = rMin + np.arange(bins + 1, dtype=np.float64) * width
        edges[bins] = rMax
        centers = 0.5 * (edges[:-1] + edges[1:])
        if counts.framesWithoutBox > 0 and referenceVolume is None:
            raise ValueError(f"{counts.framesWithoutBox} frames had no periodic box: pass referenceVolume to normalise "
                             "g(r)")
        referenceVolume = referenceVolumeInNanometers3(referenceVolume)
        sumInverseVolume = counts.sumInverseVolume + (
            counts.framesWithoutBox / referenceVolume if counts.framesWithoutBox else 0.0)
        if counts.pairsPerFrame <= 0:
            raise ValueError(f"g(r) is undefined: there are no atom pairs to normalise by (selection sizes {size1} "
                             f"and {size2})")
        shells = 4.0 / 3.0 * np.pi * (edges[1:] * edges[1:] * edges[1:] - edges[:-1] * edges[:-1] * edges[:-1])
        g = counts.counts.astype(np.float64) / (float(counts.pairsPerFrame) * sumInverseVolume * shells)
        n = np.cumsum(counts.counts).astype(np.float64) / (float(counts.frames) * size1)
        info = dict(selection1Size=int(size1), selection2Size=int(size2), pairsPerFrame=int(counts.pairsPerFrame),
                    rMin=float(rMin), rMax=float(rMax), bins=int(bins))
        if counts.lastStep >= 0:
            info["lastStep"] = int(counts.lastStep)
        info.update(metadata)
        return cls(r=centers, g=g, n=n, counts=counts.counts.copy(), edges=edges, frames=int(counts.frames),
                   metadata=info)

    def writeCSV(self, path):
        """Columns r_nm, g, n, pair_count under one header line (pandas.read_csv(path), numpy.loadtxt(path,
        delimiter=",", skiprows=1)); the metadata goes to writeMetadata's JSON sidecar."""
        with open(path, "w") as out:
            out.write("r_nm,g,n,pair_count\n")
            for values in zip(self.r, self.g, self.n, self.counts):
                out.write(f"{values[0]:.6f},{values[1]:.9g},{values[2]:.9g},{int(values[3]):d}\n")

    def metadataDict(self):
        """What writeMetadata writes: frames, units, selection sizes, range, backend, ..."""
        info = {"description": "radial distribution function (openmm-narumi)", "frames": int(self.frames),
                "units": {"r_nm": "nm", "g": "1", "n": "atoms", "pair_count": "ordered pairs, summed over frames"}}
        info.update({key: _jsonValue(value) for key, value in self.metadata.items()})
        return info

    def writeMetadata(self, path):
        """The JSON sidecar of the CSV (metadataPath(csvPath))."""
        with open(path, "w") as out:
            json.dump(self.metadataDict(), out, indent=1)
            out.write("\n")

    def plot(self, path, title=None):
        """g(r) with n(r) on a second axis, written with matplotlib's Agg backend."""
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        figure, axis = plt.subplots(figsize=(6, 4), dpi=120)
        axis.plot(self.r, self.g, color="tab:blue")
        axis.axhline(1.0, color="0.7", linewidth=0.8)
        axis.set_xlabel("r (nm)")
        axis.set_ylabel("g(r)", color="tab:blue")
        twin = axis.twinx()
        twin.plot(self.r, self.n, color="tab:orange", linestyle="--")
        twin.set_ylabel("n(r)", color="tab:orange")
        axis.set_title(title or f"RDF over {self.frames} frames")
        figure.tight_layout()
        figure.savefig(path, format="png")
        plt.close(figure)

    from_engine = classmethod(deprecatedAlias(fromEngine.__func__, "from_engine"))
    write_csv = deprecatedAlias(writeCSV, "write_csv")


def _jsonValue(value):
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, np.ndarray):
        return value.tolist()
    if isinstance(value, (str, int, float, bool, type(None), list, dict)):
        return value
    return str(value)


def referenceVolumeInNanometers3(volume):
    """None, or a reference volume (nm^3, or a volume Quantity) as a float: ValueError naming it unless it is positive
    and finite (RDFEngine.setReferenceVolume's rule)."""
    if volume is None:
        return None
    value = nanometers3(volume)
    if not (np.isfinite(value) and value > 0):
        raise ValueError(f"referenceVolume = {value} nm^3 must be positive and finite")
    return value


def outputPaths(file):
    """(CSV path, PNG path) for a file name: .csv added if it has no extension, the PNG with the same stem."""
    stem, extension = os.path.splitext(file)
    return (file if extension else file + ".csv"), stem + ".png"


def metadataPath(csvPath):
    """The JSON sidecar of a CSV: 'rdf.csv' -> 'rdf.json'."""
    return os.path.splitext(os.fspath(csvPath))[0] + ".json"
