"""Surface potentials in the units and files people read: kJ/mol/e, kcal/mol/e or kT/e; CSV, PLY and PNG, with
coordinates in Angstrom so that the files overlay the PDB."""
import csv

import numpy as np

from .. import _units
from .._deprecation import deprecatedAlias, renamedKeywords
from .._units import DEFAULT_TEMPERATURE, POTENTIAL_UNITS

__all__ = ["UNITS", "convertPotential", "writeCSV", "writePLY", "writePNG"]

#: The units of openmmnarumi.hcp's files: those of every engine (openmmnarumi._units.POTENTIAL_UNITS).
UNITS = POTENTIAL_UNITS


@renamedKeywords(unit="units")
def convertPotential(values, units="kJ/mol/e", temperature=DEFAULT_TEMPERATURE):
    """Potentials in kJ/mol/e converted to units: "kJ/mol/e", "kcal/mol/e", "kT/e" (at temperature, K), "V", "mV"
    or "e/A" (see openmmnarumi._units.unitFactor)."""
    return _units.convertPotential(values, units, temperature)


def _divergingColors(values, limit):
    """Red (negative) - white - blue (positive), the APBS/PyMOL convention, as 0-255 RGB."""
    t = np.clip(np.asarray(values) / limit, -1.0, 1.0) if limit > 0 else np.zeros(len(values))
    white = np.array([255.0, 255.0, 255.0])
    red, blue = np.array([200.0, 30.0, 30.0]), np.array([30.0, 60.0, 200.0])
    weight = np.abs(t)[:, None]
    colors = np.where((t < 0)[:, None], white + (red - white) * weight, white + (blue - white) * weight)
    return np.rint(colors).astype(np.uint8)


def _colorLimit(values, limit):
    return float(limit) if limit else float(np.percentile(np.abs(values), 98)) or 1.0


@renamedKeywords(points_nm="points", atom_index="atomIndex", unit="units")
def writeCSV(path, points, potentials, normals=None, atomIndex=None, units="kJ/mol/e"):
    """One row per point: x, y, z (A; points in nm), normal, atom index, potential (in units)."""
    with open(path, "w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(["x_A", "y_A", "z_A", "nx", "ny", "nz", "atom_index", f"potential_{units}"])
        normals = np.zeros_like(points) if normals is None else normals
        atomIndex = np.full(len(points), -1) if atomIndex is None else atomIndex
        for x, n, a, v in zip(np.asarray(points) * 10.0, normals, atomIndex, potentials):
            writer.writerow([f"{x[0]:.4f}", f"{x[1]:.4f}", f"{x[2]:.4f}", f"{n[0]:.4f}", f"{n[1]:.4f}", f"{n[2]:.4f}",
                             int(a), f"{v:.6g}"])


@renamedKeywords(points_nm="points", color_limit="colorLimit")
def writePLY(path, points, potentials, normals=None, colorLimit=None):
    """ASCII PLY point cloud (A; points in nm) with normals, red-white-blue colours and a scalar property "potential"
    (MeshLab, ParaView, CloudCompare colour by either)."""
    points = np.asarray(points) * 10.0
    colors = _divergingColors(potentials, _colorLimit(potentials, colorLimit))
    normals = np.zeros_like(points) if normals is None else np.asarray(normals)
    with open(path, "w") as handle:
        handle.write("ply\nformat ascii 1.0\ncomment openmm-narumi HCP surface potential, coordinates in Angstrom\n")
        handle.write(f"element vertex {len(points)}\n")
        for name in ("x", "y", "z", "nx", "ny", "nz"):
            handle.write(f"property float {name}\n")
        handle.write("property uchar red\nproperty uchar green\nproperty uchar blue\nproperty float potential\n")
        handle.write("end_header\n")
        for x, n, c, v in zip(points, normals, colors, potentials):
            handle.write(f"{x[0]:.4f} {x[1]:.4f} {x[2]:.4f} {n[0]:.4f} {n[1]:.4f} {n[2]:.4f} {c[0]} {c[1]} {c[2]} {v:.6g}\n")


@renamedKeywords(points_nm="points", unit="units", color_limit="colorLimit", max_points="maxPoints")
def writePNG(path, points, potentials, units="kJ/mol/e", title="", colorLimit=None, maxPoints=200000):
    """Two views (front and back) of the points (nm) coloured by potential."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    points = np.asarray(points) * 10.0
    values = np.asarray(potentials)
    if len(points) > maxPoints:  # keep the picture quick to draw
        keep = np.random.default_rng(0).choice(len(points), maxPoints, replace=False)
        points, values = points[keep], values[keep]
    limit = _colorLimit(values, colorLimit)
    figure = plt.figure(figsize=(11, 5.2))
    for k, azimuth in enumerate((-60, 120)):
        axes = figure.add_subplot(1, 2, k + 1, projection="3d")
        artist = axes.scatter(points[:, 0], points[:, 1], points[:, 2], c=values, cmap="bwr_r", vmin=-limit, vmax=limit,
                              s=1.5, linewidths=0, depthshade=True)
        axes.view_init(elev=20, azim=azimuth)
        axes.set_xlabel("x (A)")
        axes.set_ylabel("y (A)")
        axes.set_zlabel("z (A)")
        axes.set_box_aspect(np.ptp(points, axis=0) + 1e-9)
    figure.colorbar(artist, ax=figure.axes, shrink=0.7, label=f"potential ({units})")
    figure.suptitle(title)
    figure.savefig(path, dpi=120)
    plt.close(figure)


convert_potential = deprecatedAlias(convertPotential, "convert_potential")
write_csv = deprecatedAlias(writeCSV, "write_csv")
write_ply = deprecatedAlias(writePLY, "write_ply")
write_png = deprecatedAlias(writePNG, "write_png")
