"""InterRDF: MDAnalysis' InterRDF, counted by the RDF engine on the GPU (or the CPU)."""
import numpy as np

from ..rdf import maximumRMax
from ._mdanalysis import ResultsGroup
from .base import NarumiAnalysisBase, first

__all__ = ["InterRDF"]

_SAME_ATTRIBUTE = {"residue": "resindices", "segment": "segindices", "chain": "chainIDs"}


class InterRDF(NarumiAnalysisBase):
    """Radial distribution function between two AtomGroups, as ``MDAnalysis.analysis.rdf.InterRDF``.

    The same arguments and results: g1, g2, nbins, range (Angstrom), norm ("rdf", "density" or "none"),
    exclusion_block, exclude_same ("residue", "segment" or "chain"); ``results.edges``, ``results.bins``,
    ``results.count`` and ``results.rdf``, equal to InterRDF's on the same frames to float rounding (InterRDF counts
    distances in double precision, this engine in single).  Counts are exact 64-bit integers (``results.count`` is
    int64; InterRDF's is float64), and ``results.volume_cum`` is the summed box volume (Angstrom^3).  As in InterRDF,
    an atom in both groups pairs with itself at distance 0 unless an exclusion removes that pair.

    Added: ``engine`` ("auto": CUDA when available, "cuda" or "cpu"), ``algorithm`` ("auto", "all-pairs",
    "cell-list"), ``devices`` (CUDA devices of the parts of a parallel run), triclinic boxes.  range[1] must be at
    most half the box's smallest width (the minimum-image convention), else the first frame raises ValueError.
    Parallel: ``run(backend="multiprocessing" | "dask" | DaskClusterBackend(...), n_workers=...)``; the counts
    are summed exactly, so every backend and worker count gives the same counts.
    """

    def __init__(self, g1, g2, nbins=75, range=(0.0, 15.0), norm="rdf", exclusion_block=None, exclude_same=None,
                 engine="auto", algorithm="auto", devices=None, **kwargs):
        super().__init__(g1.universe.trajectory, engine=engine, devices=devices, **kwargs)
        self.g1, self.g2 = g1, g2
        self.norm = str(norm).lower()
        if self.norm not in ("rdf", "density", "none"):
            raise ValueError(f"'{self.norm}' is an invalid norm. Use 'rdf', 'density' or 'none'.")
        if len(g1) == 0 or len(g2) == 0:
            raise ValueError(f"empty atom group: g1 has {len(g1)} atoms, g2 {len(g2)}")
        if g1.universe is not g2.universe:
            raise ValueError("g1 and g2 must belong to the same Universe")
        nbins = int(nbins)
        low, high = (float(r) for r in range)
        if nbins < 1:
            raise ValueError(f"nbins = {nbins} must be at least 1")
        if not (0.0 <= low < high and np.isfinite(high)):
            raise ValueError(f"range = {range} must satisfy 0 <= range[0] < range[1]")
        if exclude_same is not None and exclude_same not in _SAME_ATTRIBUTE:
            raise ValueError("exclude_same must be None, 'residue', 'segment' or 'chain', got " + repr(exclude_same))
        if exclude_same is not None and exclusion_block is not None:
            raise ValueError("exclude_same cannot be used with exclusion_block")
        self.rdf_settings = {"bins": nbins, "range": (low, high)}
        self._exclusion_block = exclusion_block
        self.exclude_same = exclude_same
        self._algorithm = algorithm
        # The engine reads the frame's own coordinate array (every atom, Angstrom: the engine has no length unit of
        # its own) and gathers the two groups itself, so no positions are copied or converted in Python.
        self._numAtoms = g1.universe.atoms.n_atoms
        self._selection1 = np.asarray(g1.ix, dtype=np.int32)
        sameGroups = len(g1) == len(g2) and np.array_equal(g1.ix, g2.ix)
        self._selection2 = None if sameGroups else np.asarray(g2.ix, dtype=np.int32)
        self._groups = self._exclusionGroups()
        self._selfPairs = self._countSelfPairs()

    def _exclusionGroups(self):
        """The engine's exclusion group of every atom of the Universe (pairs in one group are not counted; atoms in
        neither group are never paired), or None."""
        if self.exclude_same is not None:
            values = np.concatenate([getattr(self.g1, _SAME_ATTRIBUTE[self.exclude_same]),
                                     getattr(self.g2, _SAME_ATTRIBUTE[self.exclude_same])])
            codes = np.unique(values, return_inverse=True)[1].reshape(-1)
            groupOf = dict(zip(np.concatenate([self.g1.ix, self.g2.ix]), codes))
        elif self._exclusion_block is not None:
            blockA, blockB = (int(b) for b in self._exclusion_block)
            if blockA < 1 or blockB < 1:
                raise ValueError(f"exclusion_block = {self._exclusion_block} must be two positive sizes")
            groupOf = {}
            for blocks, group in ((np.arange(len(self.g1)) // blockA, self.g1), (np.arange(len(self.g2)) // blockB, self.g2)):
                for atom, block in zip(group.ix, blocks):
                    if groupOf.setdefault(atom, block) != block:
                        raise ValueError(f"atom {atom} is in block {groupOf[atom]} of g1 and block {block} of g2: "
                                         "exclusion_block needs an atom in both groups to be in the same block")
        else:
            return None
        groups = np.zeros(self._numAtoms, dtype=np.int32)
        atoms = np.fromiter(groupOf.keys(), dtype=np.int64, count=len(groupOf))
        groups[atoms] = np.fromiter(groupOf.values(), dtype=np.int64, count=len(groupOf))
        return groups

    def _countSelfPairs(self):
        """Ordered pairs of an atom with itself that InterRDF counts at distance 0 (none under an exclusion)."""
        if self._groups is not None:
            return 0
        size = max(self.g1.ix.max(), self.g2.ix.max()) + 1
        return int(np.dot(np.bincount(self.g1.ix, minlength=size), np.bincount(self.g2.ix, minlength=size)))

    def _createEngine(self, device):
        from ..rdf import RDFEngine
        low, high = self.rdf_settings["range"]
        return RDFEngine(self._numAtoms, self._selection1, self._selection2, rMax=high, bins=self.rdf_settings["bins"],
                         rMin=low, exclusionGroups=self._groups, backend=self._engineBackend,
                         algorithm=self._algorithm, cudaDevice=device)

    def _prepare(self):
        edges = np.histogram_bin_edges([-1], **self.rdf_settings)
        self.results.edges = edges
        self.results.bins = 0.5 * (edges[:-1] + edges[1:])
        self.results.count = np.zeros(self.rdf_settings["bins"], dtype=np.int64)
        self.results.volume_cum = 0.0

    def _single_frame(self):
        box = self._box(scale=1.0)
        if box is None and self.norm == "rdf":
            raise ValueError(f"frame {self._ts.frame} has no periodic box: norm='rdf' needs the box volume")
        if box is not None and self.rdf_settings["range"][1] > maximumRMax(box):
            # The engine makes the same check, but names the lengths in nm; these are Angstrom.
            raise ValueError(f"range[1] = {self.rdf_settings['range'][1]:g} A is more than half the box of frame "
                             f"{self._ts.frame} (min(ax, by, cz)/2 = {maximumRMax(box):g} A): the minimum image would "
                             "miss pairs")
        self._engine.addFrame(self._ts.positions, box)  # Angstrom, as range and the box
        if box is not None:
            self.results.volume_cum += self._ts.volume

    def _collectEngine(self):
        counts = np.asarray(self._engine.pairCounts(), dtype=np.int64)
        if self._selfPairs and self.rdf_settings["range"][0] == 0.0 and len(self.frames):
            counts[0] += self._selfPairs * len(self.frames)  # distance 0 lies in the first bin
        self.results.count = counts

    def _get_aggregator(self):
        return ResultsGroup(lookup={"count": ResultsGroup.ndarray_sum, "volume_cum": ResultsGroup.ndarray_sum,
                                    "edges": first, "bins": first})

    def _conclude(self):
        # InterRDF's normalisation, term for term.
        norm = self.n_frames
        if self.norm in ("rdf", "density"):
            norm = norm * 4 / 3 * np.pi * np.diff(np.power(self.results.edges, 3))
        if self.norm == "rdf":
            nA, nB = len(self.g1), len(self.g2)
            N = nA * nB
            if self._exclusion_block:
                xA, xB = self._exclusion_block
                N -= xA * xB * nA / xA
            norm = norm * N / (self.results.volume_cum / self.n_frames)
        self.results.rdf = self.results.count / norm
