"""PotentialMap: a map's values on its lattice, unit conversion, and its files (OpenDX or MRC, a PNG slice)."""
import os

import numpy as np

from .._units import DEFAULT_TEMPERATURE, stripUnit, unitFactor

__all__ = ["PotentialMap", "MAP_FORMATS", "mapFormat"]

#: File name extensions of the map formats (write() picks the format from them).
MAP_FORMATS = {".dx": "OpenDX", ".mrc": "MRC", ".map": "MRC"}


def mapFormat(path):
    """The format of a map file from its extension; ValueError naming the path for any other."""
    extension = os.path.splitext(os.fspath(path))[1].lower()
    if extension not in MAP_FORMATS:
        raise ValueError(f"map file {os.fspath(path)!r}: the extension must be one of {sorted(MAP_FORMATS)} (OpenDX or MRC)")
    return MAP_FORMATS[extension]


class PotentialMap:
    """A potential map: ``values[ix, iy, iz]`` in kJ/mol/e at ``origin + (ix, iy, iz) * spacing`` (nm); frames: how
    many frames the values average; method ("cutoff", "direct" or "msm") and cutoff (nm, or None) as computed."""

    def __init__(self, values, origin, spacing, frames=1, method="cutoff", cutoff=None):
        self.values = np.asarray(values, dtype=np.float64)
        self.origin = np.asarray(origin, dtype=np.float64)
        self.spacing = np.asarray(spacing, dtype=np.float64)
        self.frames = frames
        self.method = method
        self.cutoff = cutoff

    @classmethod
    def _fromEngineArray(cls, array, engine, **kwargs):
        # The engine stores x fastest (shape (nz, ny, nx)); the transposed view indexes [ix, iy, iz].
        return cls(np.ascontiguousarray(np.asarray(array, dtype=np.float64).transpose(2, 1, 0)),
                   engine.origin, engine.spacing, **kwargs)

    @property
    def shape(self):
        """(nx, ny, nz): lattice points along x, y and z."""
        return self.values.shape

    def inUnits(self, units="kT/e", temperature=DEFAULT_TEMPERATURE):
        """The values converted from kJ/mol/e into units (see unitFactor; temperature in K, for kT/e)."""
        return self.values * unitFactor(units, temperature)

    def coordinates(self, axis):
        """Coordinates (nm) of the lattice points along axis 0, 1 or 2."""
        return self.origin[axis] + self.spacing[axis] * np.arange(self.values.shape[axis])

    def write(self, path, units="kT/e", temperature=DEFAULT_TEMPERATURE):
        """Writes OpenDX (.dx) or MRC (.mrc, .map), as the extension says: values in units (temperature in K, for
        kT/e), coordinates in Angstrom."""
        if mapFormat(path) == "MRC":
            self.writeMRC(path, units, temperature)
        else:
            self.writeDX(path, units, temperature)

    def writeMRC(self, path, units="kT/e", temperature=DEFAULT_TEMPERATURE):
        """Writes MRC2014 (ChimeraX, VMD, PyMOL; by the mrcfile library): float32 values in ``units`` (temperature in
        K, for kT/e), voxel size and origin in Angstrom, x the fastest axis; the method and units in the header's
        labels."""
        import mrcfile
        values = self.inUnits(units, temperature).astype(np.float32)
        with mrcfile.new(os.fspath(path), overwrite=True) as mrc:
            mrc.set_data(np.ascontiguousarray(values.transpose(2, 1, 0)))  # (z, y, x): columns along x
            mrc.voxel_size = tuple(10.0 * self.spacing)
            mrc.header.origin = tuple(10.0 * self.origin)
            mrc.update_header_stats()
            note = f" at {float(stripUnit(temperature, 'kelvin')):g} K" if units == "kT/e" else ""
            mrc.header.label[0] = f"openmm-narumi potential map ({self.method}, {self.frames} frame(s))"[:80].encode()
            mrc.header.label[1] = f"values in {units}{note}; lengths in Angstrom"[:80].encode()
            mrc.header.nlabl = 2

    def writeDX(self, path, units="kT/e", temperature=DEFAULT_TEMPERATURE):
        """Writes OpenDX (VMD, PyMOL, ChimeraX, APBS's layout): coordinates in Angstrom, values in ``units``
        (temperature in K, for kT/e)."""
        values = self.inUnits(units, temperature)
        nx, ny, nz = values.shape
        origin = 10.0 * self.origin
        delta = 10.0 * self.spacing
        with open(path, "w") as dx:
            dx.write(f"# Electrostatic potential map from openmm-narumi ({self.method}"
                     f"{'' if self.cutoff is None else f', cutoff {self.cutoff:g} nm'}, {self.frames} frame(s))\n")
            note = f" at {float(stripUnit(temperature, 'kelvin')):g} K" if units == "kT/e" else ""
            dx.write(f"# values in {units}{note}; coordinates in Angstrom\n")
            dx.write(f"object 1 class gridpositions counts {nx} {ny} {nz}\n")
            dx.write("origin {:.8e} {:.8e} {:.8e}\n".format(*origin))
            dx.write(f"delta {delta[0]:.8e} 0 0\ndelta 0 {delta[1]:.8e} 0\ndelta 0 0 {delta[2]:.8e}\n")
            dx.write(f"object 2 class gridconnections counts {nx} {ny} {nz}\n")
            dx.write(f"object 3 class array type double rank 0 items {values.size} data follows\n")
            flat = values.ravel(order="C")  # z fastest, as OpenDX wants
            whole = flat.size - flat.size % 3
            np.savetxt(dx, flat[:whole].reshape(-1, 3), fmt="%.7e")
            if whole < flat.size:
                dx.write(" ".join(f"{v:.7e}" for v in flat[whole:]) + "\n")
            dx.write('attribute "dep" string "positions"\n')
            dx.write('object "regular positions regular connections" class field\n')
            dx.write('component "positions" value 1\ncomponent "connections" value 2\ncomponent "data" value 3\n')

    def writeSlicePNG(self, path, axis="z", index=None, units="kT/e", temperature=DEFAULT_TEMPERATURE, limit=None,
                      title=None):
        """A PNG of one lattice plane (axis "x", "y" or "z"; index: the plane, the middle one by default), coloured red
        (negative) to blue (positive) in units (temperature in K, for kT/e) up to +-limit (default: the 99th
        percentile of the absolute values), axes in nm."""
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        axes = {"x": 0, "y": 1, "z": 2}
        if axis not in axes:
            raise ValueError(f"axis must be 'x', 'y' or 'z', got {axis!r}")
        a = axes[axis]
        index = self.values.shape[a] // 2 if index is None else index
        if not 0 <= index < self.values.shape[a]:
            raise ValueError(f"slice index {index} is outside 0..{self.values.shape[a] - 1}")
        plane = np.take(self.inUnits(units, temperature), index, axis=a)
        u, v = [d for d in range(3) if d != a]
        limit = limit if limit is not None else float(np.percentile(np.abs(plane), 99)) or 1.0
        figure, ax = plt.subplots(figsize=(6, 5), dpi=120)
        extent = [self.coordinates(u)[0], self.coordinates(u)[-1], self.coordinates(v)[0], self.coordinates(v)[-1]]
        image = ax.imshow(plane.T, origin="lower", extent=extent, cmap="RdBu", vmin=-limit, vmax=limit, aspect="equal")
        ax.set_xlabel(f"{'xyz'[u]} (nm)")
        ax.set_ylabel(f"{'xyz'[v]} (nm)")
        ax.set_title(title or f"{axis} = {self.coordinates(a)[index]:.3f} nm")
        figure.colorbar(image, ax=ax, label=f"potential ({units})")
        figure.tight_layout()
        figure.savefig(path)
        plt.close(figure)
