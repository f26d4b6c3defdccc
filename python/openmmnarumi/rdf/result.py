"""RDFResult: g(r), n(r) and the pair counts, and their files (CSV, PNG)."""
import os
from dataclasses import dataclass, field

import numpy as np

from .._deprecation import deprecatedAlias

__all__ = ["RDFResult"]


@dataclass
class RDFResult:
    """g(r) and n(r) at the bin centres r (nm), the ordered-pair counts behind them, and the frames used."""
    r: np.ndarray
    g: np.ndarray
    n: np.ndarray
    counts: np.ndarray
    edges: np.ndarray
    frames: int
    metadata: dict = field(default_factory=dict)

    @classmethod
    def fromEngine(cls, engine, **metadata):
        """The result of an RDFEngine so far; metadata (keyword arguments) goes into the CSV's comment lines."""
        metadata.update(selection1Size=engine.selection1Size, selection2Size=engine.selection2Size,
                        pairsPerFrame=engine.numPairsPerFrame, backend=engine.backend, algorithm=engine.lastAlgorithm)
        return cls(r=engine.binCenters(), g=engine.rdf(), n=engine.coordinationNumber(), counts=engine.pairCounts(),
                   edges=engine.binEdges(), frames=engine.numFrames, metadata=metadata)

    def writeCSV(self, path):
        """Comment lines with the metadata, then columns r_nm, g, n, pair_count."""
        with open(path, "w") as out:
            out.write("# radial distribution function (openmm-narumi)\n")
            out.write(f"# frames: {self.frames}\n")
            for key, value in self.metadata.items():
                out.write(f"# {key}: {value}\n")
            out.write("r_nm,g,n,pair_count\n")
            for values in zip(self.r, self.g, self.n, self.counts):
                out.write(f"{values[0]:.6f},{values[1]:.9g},{values[2]:.9g},{values[3]:d}\n")

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
        figure.savefig(path)
        plt.close(figure)

    from_engine = classmethod(deprecatedAlias(fromEngine.__func__, "from_engine"))
    write_csv = deprecatedAlias(writeCSV, "write_csv")


def outputPaths(file):
    """(CSV path, PNG path) for a file name: .csv added if it has no extension, the PNG with the same stem."""
    stem, extension = os.path.splitext(file)
    return (file if extension else file + ".csv"), stem + ".png"
