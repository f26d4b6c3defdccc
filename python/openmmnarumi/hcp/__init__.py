"""Electrostatic surface potential with hierarchical charge partitioning (HCP), on the GPU or the CPU.

The potential at points on (or outside) a molecule's surface from its atomic charges, in the analytic linearized
Poisson-Boltzmann (ALPB) model, salt-free (Sigalov, Fenley & Onufriev, J Chem Phys 124, 124902 (2006); Fenley,
Gordon & Onufriev, J Chem Phys 129, 075101 (2008); eq. (1) of Daga, Feng & Scogland)::

    phi = k_e / (eps_out (1 + alpha beta)) * sum_i q_i [(1 + alpha) / d_i - alpha (1 - beta) / r]

with alpha = 0.580127, beta = eps_in / eps_out, d_i the distance from atom i to the point, r = A + p (A: the
molecule's electrostatic size, p: the point's distance outside the molecular surface) and k_e OpenMM's Coulomb
constant.  The sum is exact, or uses hierarchical charge partitioning (Anandakrishnan & Onufriev, J Comput Chem
31, 691 (2010)): components of the molecule (residues, chains, complexes, taken from the OpenMM Topology) at or
beyond a distance threshold of their level (10 A, 70 A, 150 A by default) are replaced by two point charges (their
negative and their positive charge, each at its centre of charge) that keep their total charge and dipole.

Units: the Python API takes and returns OpenMM's units, positions in nm, charges in e, potentials in kJ/mol/e
(``convert_potential`` gives kcal/mol/e or kT/e).  The command line (``python -m openmmnarumi.hcp``) takes lengths
in Angstrom, as the papers and the PDB do, and writes coordinates in Angstrom so that its files overlay the PDB.
"""
import argparse
import csv
import dataclasses
import os
import time

import numpy as np

from .. import _hcp

__all__ = ["SurfacePotential", "SurfacePotentialResult", "SurfacePointSet", "surface_points", "electrostatic_size",
           "atomic_radii", "component_indices", "charges_from_system", "prepare_molecule", "convert_potential",
           "write_csv", "write_ply", "write_png", "cuda_available", "assemble_copies", "main"]

#: ALPB constant alpha (Sigalov, Fenley & Onufriev 2006).
ALPB_ALPHA = _hcp.ALPB_ALPHA
#: OpenMM's Coulomb constant in kJ nm / (mol e^2).
COULOMB_CONSTANT = _hcp.COULOMB_CONSTANT
#: Default HCP thresholds (nm) for residues, chains and complexes: 10 A and 70 A as Daga et al. used, and the
#: AmberTools (sff/hcp.c) default of 150 A for the top level, which Daga et al. do not state.
DEFAULT_THRESHOLDS = (1.0, 7.0, 15.0)
KJ_PER_KCAL = 4.184
MOLAR_GAS_CONSTANT = 8.314462618e-3  # kJ/(mol K)
UNITS = ("kJ/mol/e", "kcal/mol/e", "kT/e")

#: Bondi's van der Waals radii (J Phys Chem 68, 441 (1964)) in nm, for the surface and the electrostatic size;
#: other elements get 0.15 nm, the default atom size of Sigalov's elsize.
BONDI_RADII = {"H": 0.120, "C": 0.170, "N": 0.155, "O": 0.152, "F": 0.147, "P": 0.180, "S": 0.180, "Cl": 0.175,
               "Br": 0.185, "I": 0.198, "Se": 0.190, "Na": 0.227, "K": 0.275, "Mg": 0.173}
DEFAULT_RADIUS = 0.150
_ION_RESIDUES = {"NA", "CL", "K", "NA+", "CL-", "K+", "SOD", "CLA", "POT"}


def cuda_available():
    """True when the CUDA backend was built and a CUDA device is usable."""
    return _hcp.cuda_device_count() > 0


def _nanometers(values):
    """An (N, 3) float64 array in nm from a numpy array (taken as nm), a Quantity or a list of Vec3."""
    try:
        import openmm.unit as unit
        if unit.is_quantity(values):
            values = values.value_in_unit(unit.nanometer)
    except ImportError:  # pragma: no cover - openmm is a dependency
        pass
    array = np.asarray([[v[0], v[1], v[2]] for v in values] if isinstance(values, list) else values, dtype=np.float64)
    if array.ndim != 2 or array.shape[1] != 3:
        raise ValueError(f"positions/points must have shape (N, 3), got {array.shape}")
    return np.ascontiguousarray(array)


def atomic_radii(topology):
    """Bondi radii (nm) of the topology's atoms, by element."""
    return np.array([BONDI_RADII.get(atom.element.symbol if atom.element is not None else "", DEFAULT_RADIUS)
                     for atom in topology.atoms()], dtype=np.float64)


def component_indices(topology, complexes=None):
    """The hierarchy as index arrays: (residue_of_atom, chain_of_residue, complex_of_chain).

    complexes: None or "whole" puts every chain in one complex (the whole molecule); "chains" makes each chain its
    own complex; otherwise a sequence giving the complex number of each chain.
    """
    residue_of_atom = np.array([atom.residue.index for atom in topology.atoms()], dtype=np.int32)
    chain_of_residue = np.array([residue.chain.index for residue in topology.residues()], dtype=np.int32)
    num_chains = topology.getNumChains()
    if complexes is None or (isinstance(complexes, str) and complexes == "whole"):
        complex_of_chain = np.zeros(num_chains, dtype=np.int32)
    elif isinstance(complexes, str) and complexes == "chains":
        complex_of_chain = np.arange(num_chains, dtype=np.int32)
    elif isinstance(complexes, str):
        raise ValueError(f"complexes must be 'whole', 'chains' or one complex number per chain, got {complexes!r}")
    else:
        complex_of_chain = np.asarray(complexes, dtype=np.int32)
        if complex_of_chain.shape != (num_chains,):
            raise ValueError(f"complexes needs one complex number per chain ({num_chains}), got {complex_of_chain.shape}")
    return residue_of_atom, chain_of_residue, complex_of_chain


def charges_from_system(system):
    """Atomic charges (e) from the System's NonbondedForce (or NarumiNonbondedForce)."""
    import openmm
    import openmm.unit as unit
    for force in system.getForces():
        if isinstance(force, openmm.NonbondedForce):
            return np.array([force.getParticleParameters(i)[0].value_in_unit(unit.elementary_charge)
                             for i in range(force.getNumParticles())], dtype=np.float64)
    try:
        from ..narumi import NarumiNonbondedForce
        for force in system.getForces():
            if NarumiNonbondedForce.isinstance(force):
                narumi = NarumiNonbondedForce.cast(force)
                return np.array([narumi.getParticleParameters(i)[0] for i in range(narumi.getNumParticles())],
                                dtype=np.float64)
    except (ImportError, AttributeError):
        pass
    raise ValueError("no charges: the System has no NonbondedForce to take atomic charges from")


def electrostatic_size(positions, radii, method="determinant"):
    """The electrostatic size A (nm) of Sigalov et al.: "determinant" (A_det, elsize's and GEM's default) or
    "ellipsoid" (A_ell, the exact value for the effective ellipsoid)."""
    axes, size_det, size_ell = _hcp.effective_ellipsoid(_nanometers(positions), np.asarray(radii, dtype=np.float64))
    if method == "determinant":
        return size_det
    if method == "ellipsoid":
        return size_ell
    raise ValueError(f"method must be 'determinant' or 'ellipsoid', got {method!r}")


@dataclasses.dataclass
class SurfacePointSet:
    """Points (P, 3) in nm, outward unit normals, the atom each point belongs to, and the points' distance
    outside the molecular surface (nm): the probe radius for solvent-accessible points, 0 for contact points."""
    points: np.ndarray
    normals: np.ndarray
    atom_index: np.ndarray
    offset: float

    def __len__(self):
        return len(self.points)


def surface_points(positions, radii, probe_radius=0.14, density=300.0, kind="sas", threads=0):
    """Shrake-Rupley surface points: ``kind="sas"`` the solvent-accessible surface (atom radius + probe), ``kind=
    "contact"`` the same points moved back onto the atoms (the contact part of the molecular surface).  density
    in points per nm^2 (300 = 3 per A^2, GEM's default)."""
    points, normals, atoms, offset = _hcp.surface_points(_nanometers(positions), np.asarray(radii, dtype=np.float64),
                                                         float(probe_radius), float(density), kind, int(threads))
    return SurfacePointSet(points, normals, atoms, offset)


def convert_potential(values, unit="kJ/mol/e", temperature=298.15):
    """Potentials in kJ/mol/e converted to "kJ/mol/e", "kcal/mol/e" or "kT/e" (at the temperature, K)."""
    if unit == "kJ/mol/e":
        return values
    if unit == "kcal/mol/e":
        return np.asarray(values) / KJ_PER_KCAL
    if unit == "kT/e":
        if not temperature > 0:
            raise ValueError(f"temperature must be > 0 K, got {temperature}")
        return np.asarray(values) / (MOLAR_GAS_CONSTANT * temperature)
    raise ValueError(f"unit must be one of {UNITS}, got {unit!r}")


@dataclasses.dataclass
class SurfacePotentialResult:
    """Potentials (kJ/mol/e) at the points, their sum (the total surface potential), how they were computed."""
    potentials: np.ndarray
    total: float
    mode: str
    backend: str
    seconds: float          #: wall time of the call
    device_milliseconds: float  #: CUDA backend: kernels and reductions alone (CUDA events); -1 on the CPU


class SurfacePotential:
    """ALPB potential of a molecule at surface points, exact or with HCP, on the CUDA or the CPU backend.

    positions: (N, 3) nm (array, Quantity or list of Vec3); charges: N charges in e; topology: the OpenMM Topology
    whose residues and chains define the hierarchy (or give ``hierarchy=(residue_of_atom, chain_of_residue,
    complex_of_chain)``); radii: atomic radii in nm for the electrostatic size (default: Bondi radii of the
    topology's elements); electrostatic_size: A in nm (default: computed with ``size_method``); thresholds: the HCP
    distances (nm) for residues, chains and complexes (``float("inf")`` turns a level off); complexes: see
    ``component_indices``; backend: "auto" (CUDA if available, else CPU), "cuda" or "cpu"; threads: CPU threads
    (0: all).
    """

    def __init__(self, positions, charges, topology=None, *, hierarchy=None, radii=None, eps_in=1.0, eps_out=80.0,
                 electrostatic_size=None, size_method="determinant", thresholds=DEFAULT_THRESHOLDS, complexes=None,
                 backend="auto", threads=0, device=0):
        positions = _nanometers(positions)
        charges = np.ascontiguousarray(charges, dtype=np.float64)
        if charges.ndim != 1 or charges.size == 0:
            raise ValueError("no charges: give one charge (e) per atom")
        if charges.shape[0] != positions.shape[0]:
            raise ValueError(f"{charges.shape[0]} charges for {positions.shape[0]} positions")
        if hierarchy is None:
            if topology is None:
                raise ValueError("give the topology (or hierarchy=(residue_of_atom, chain_of_residue, complex_of_chain))")
            hierarchy = component_indices(topology, complexes)
        if electrostatic_size is None:
            if radii is None:
                if topology is None:
                    raise ValueError("give radii (nm) or electrostatic_size (nm) when there is no topology")
                radii = atomic_radii(topology)
            electrostatic_size = globals()["electrostatic_size"](positions, radii, size_method)
        thresholds = tuple(float(h) for h in thresholds)
        if len(thresholds) != 3:
            raise ValueError(f"thresholds needs 3 distances (residue, chain, complex), got {len(thresholds)}")
        self._size = float(electrostatic_size)
        self.thresholds = thresholds
        self.eps_in, self.eps_out = float(eps_in), float(eps_out)
        residue_of_atom, chain_of_residue, complex_of_chain = hierarchy
        self._engine = _hcp.SurfacePotentialEngine(
            positions, charges, np.asarray(residue_of_atom, dtype=np.int32), np.asarray(chain_of_residue, dtype=np.int32),
            np.asarray(complex_of_chain, dtype=np.int32), self.eps_in, self.eps_out, self._size, *thresholds,
            backend=backend, threads=int(threads), device=int(device))

    @property
    def backend(self):
        """"cuda" or "cpu"."""
        return self._engine.backend

    @property
    def electrostatic_size(self):
        """A (nm)."""
        return self._size

    @property
    def total_charge(self):
        return self._engine.total_charge

    def component_counts(self):
        """(atoms, residues, chains, complexes)."""
        return self._engine.component_counts()

    def approximate_charges(self, level):
        """For level "residue", "chain" or "complex": geometric centres (K, 3), the negative and positive
        approximate charges (K, 4: x, y, z in nm, q in e) and the original atom indices of each component."""
        return self._engine.approximate_charges(level)

    def set_positions(self, positions):
        """New coordinates for the same atoms (e.g. the next frame); A is kept."""
        self._engine.set_positions(_nanometers(positions))

    def compute(self, points, offsets=0.0, mode="hcp"):
        """Potentials (kJ/mol/e) at points (P, 3) in nm.  offsets: the points' distance outside the molecular
        surface in nm (one value or one per point; a SurfacePointSet's ``offset``); mode: "hcp" or "exact"."""
        if isinstance(points, SurfacePointSet):
            offsets = points.offset
            points = points.points
        points = _nanometers(points)
        offsets = np.atleast_1d(np.asarray(offsets, dtype=np.float64))
        start = time.perf_counter()
        potentials, total, device_ms = self._engine.compute(points, offsets, mode)
        return SurfacePotentialResult(potentials, total, mode, self.backend, time.perf_counter() - start, device_ms)


def prepare_molecule(pdb_path, forcefield_files=("amber14-all.xml",), keep_solvent=False, ph=7.0):
    """Reads a PDB file and returns (topology, positions in nm as an array, charges in e) with charges from the
    OpenMM force field; water and monatomic ions are removed unless keep_solvent, and missing hydrogens are added
    (Modeller.addHydrogens) when the force field cannot match the residues as they are."""
    import openmm.app as app
    import openmm.unit as unit
    pdb = app.PDBFile(pdb_path)
    modeller = app.Modeller(pdb.topology, pdb.positions)
    if not keep_solvent:
        modeller.deleteWater()
        ions = [r for r in modeller.topology.residues() if r.name.upper() in _ION_RESIDUES and len(list(r.atoms())) == 1]
        if ions:
            modeller.delete(ions)
    if modeller.topology.getNumAtoms() == 0:
        raise ValueError(f"{pdb_path}: no atoms left (only solvent?)")
    forcefield = app.ForceField(*forcefield_files)
    try:
        system = forcefield.createSystem(modeller.topology)
    except ValueError:  # usually missing hydrogens: let Modeller add them, then try again
        modeller.addHydrogens(forcefield, pH=ph)
        system = forcefield.createSystem(modeller.topology)
    positions = np.asarray(modeller.positions.value_in_unit(unit.nanometer), dtype=np.float64)
    return modeller.topology, positions, charges_from_system(system)


def assemble_copies(topology, positions, transforms):
    """An assembly of rigid copies of a molecule, one chain per copy (for tests and benchmarks, and to build
    large test structures): transforms is a sequence of (3x3 rotation, translation in nm).  Returns
    (topology, positions in nm); the copies' charges are the molecule's, repeated (``np.tile``)."""
    import openmm.app as app
    positions = _nanometers(positions)
    assembly = app.Topology()
    blocks = []
    for rotation, translation in transforms:
        for chain in topology.chains():
            new_chain = assembly.addChain()
            for residue in chain.residues():
                new_residue = assembly.addResidue(residue.name, new_chain, residue.id)
                for atom in residue.atoms():
                    assembly.addAtom(atom.name, atom.element, new_residue)
        blocks.append(positions @ np.asarray(rotation, dtype=np.float64).T + np.asarray(translation, dtype=np.float64))
    return assembly, np.concatenate(blocks)


def _diverging_colors(values, limit):
    """Red (negative) - white - blue (positive), the APBS/PyMOL convention, as 0-255 RGB."""
    t = np.clip(np.asarray(values) / limit, -1.0, 1.0) if limit > 0 else np.zeros(len(values))
    white = np.array([255.0, 255.0, 255.0])
    red, blue = np.array([200.0, 30.0, 30.0]), np.array([30.0, 60.0, 200.0])
    weight = np.abs(t)[:, None]
    colors = np.where((t < 0)[:, None], white + (red - white) * weight, white + (blue - white) * weight)
    return np.rint(colors).astype(np.uint8)


def _color_limit(values, limit):
    return float(limit) if limit else float(np.percentile(np.abs(values), 98)) or 1.0


def write_csv(path, points_nm, potentials, normals=None, atom_index=None, unit="kJ/mol/e"):
    """One row per point: x, y, z (A), normal, atom index, potential (in unit)."""
    with open(path, "w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(["x_A", "y_A", "z_A", "nx", "ny", "nz", "atom_index", f"potential_{unit}"])
        normals = np.zeros_like(points_nm) if normals is None else normals
        atom_index = np.full(len(points_nm), -1) if atom_index is None else atom_index
        for x, n, a, v in zip(np.asarray(points_nm) * 10.0, normals, atom_index, potentials):
            writer.writerow([f"{x[0]:.4f}", f"{x[1]:.4f}", f"{x[2]:.4f}", f"{n[0]:.4f}", f"{n[1]:.4f}", f"{n[2]:.4f}",
                             int(a), f"{v:.6g}"])


def write_ply(path, points_nm, potentials, normals=None, color_limit=None):
    """ASCII PLY point cloud (A) with normals, red-white-blue colours and a scalar property "potential"
    (MeshLab, ParaView, CloudCompare colour by either)."""
    points = np.asarray(points_nm) * 10.0
    colors = _diverging_colors(potentials, _color_limit(potentials, color_limit))
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


def write_png(path, points_nm, potentials, unit="kJ/mol/e", title="", color_limit=None, max_points=200000):
    """Two views (front and back) of the points coloured by potential."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    points = np.asarray(points_nm) * 10.0
    values = np.asarray(potentials)
    if len(points) > max_points:  # keep the picture quick to draw
        keep = np.random.default_rng(0).choice(len(points), max_points, replace=False)
        points, values = points[keep], values[keep]
    limit = _color_limit(values, color_limit)
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
    figure.colorbar(artist, ax=figure.axes, shrink=0.7, label=f"potential ({unit})")
    figure.suptitle(title)
    figure.savefig(path, dpi=120)
    plt.close(figure)


def _parse_arguments(argv):
    parser = argparse.ArgumentParser(
        prog="python -m openmmnarumi.hcp",
        description="Electrostatic surface potential (ALPB) of a molecule with hierarchical charge partitioning. "
                    "Lengths in Angstrom; output coordinates in Angstrom.")
    parser.add_argument("pdb", help="input PDB file (water and monatomic ions are removed unless --keep-solvent)")
    parser.add_argument("--forcefield", nargs="+", default=["amber14-all.xml"], help="OpenMM force field files for the charges")
    parser.add_argument("--output", help="prefix of the output files (default: the PDB file name without .pdb, in the current folder)")
    parser.add_argument("--mode", choices=["hcp", "exact", "both"], default="hcp",
                        help="summation; 'both' also reports the HCP error against the exact sum")
    parser.add_argument("--backend", choices=["auto", "cuda", "cpu"], default="auto")
    parser.add_argument("--threads", type=int, default=0, help="CPU threads (0: all)")
    parser.add_argument("--eps-in", type=float, default=1.0, help="dielectric constant inside the molecule")
    parser.add_argument("--eps-out", type=float, default=80.0, help="dielectric constant of the solvent")
    parser.add_argument("--surface", choices=["sas", "contact"], default="sas",
                        help="solvent-accessible points (radius + probe) or contact points on the atoms")
    parser.add_argument("--density", type=float, default=3.0, help="surface points per A^2 (GEM's default 3)")
    parser.add_argument("--probe", type=float, default=1.4, help="probe radius (A)")
    parser.add_argument("--thresholds", type=float, nargs=3, default=[10.0 * h for h in DEFAULT_THRESHOLDS],
                        metavar=("RESIDUE", "CHAIN", "COMPLEX"), help="HCP distance thresholds (A)")
    parser.add_argument("--complexes", choices=["whole", "chains"], default="whole",
                        help="top level of the hierarchy: the whole molecule, or each chain its own complex")
    parser.add_argument("--size-method", choices=["determinant", "ellipsoid"], default="determinant",
                        help="electrostatic size A: A_det (default, as GEM) or A_ell")
    parser.add_argument("--units", choices=UNITS, default="kJ/mol/e")
    parser.add_argument("--temperature", type=float, default=298.15, help="for --units kT/e (K)")
    parser.add_argument("--keep-solvent", action="store_true", help="keep water and ions")
    parser.add_argument("--color-range", type=float, help="colour scale +-limit in --units (default: 98th percentile of |phi|)")
    parser.add_argument("--png", action="store_true", help="also draw PREFIX.png")
    return parser.parse_args(argv)


def main(argv=None):
    """Command line: PDB in, PREFIX.csv and PREFIX.ply (and PREFIX.png) out, a summary on stdout."""
    args = _parse_arguments(argv)
    prefix = args.output or os.path.splitext(os.path.basename(args.pdb))[0]
    topology, positions, charges = prepare_molecule(args.pdb, args.forcefield, args.keep_solvent)
    radii = atomic_radii(topology)
    surface = surface_points(positions, radii, args.probe / 10.0, args.density * 100.0, args.surface, args.threads)
    engine = SurfacePotential(positions, charges, topology, radii=radii, eps_in=args.eps_in, eps_out=args.eps_out,
                              size_method=args.size_method, thresholds=[h / 10.0 for h in args.thresholds],
                              complexes=args.complexes, backend=args.backend, threads=args.threads)
    atoms, residues, chains, complexes = engine.component_counts()
    print(f"{args.pdb}: {atoms} atoms, {residues} residues, {chains} chains, {complexes} complexes; "
          f"total charge {engine.total_charge:+.3f} e; electrostatic size A = {10 * engine.electrostatic_size:.2f} A")
    print(f"{len(surface)} {args.surface} surface points ({args.density} per A^2, probe {args.probe} A); backend {engine.backend}")
    result = engine.compute(surface, mode="exact" if args.mode == "exact" else "hcp")
    values = convert_potential(result.potentials, args.units, args.temperature)
    total = float(convert_potential(result.total, args.units, args.temperature))
    print(f"{result.mode}: total surface potential {total:.6g} {args.units} over {len(values)} points "
          f"(mean {np.mean(values):.4g}, min {np.min(values):.4g}, max {np.max(values):.4g}); {result.seconds:.3f} s")
    if args.mode == "both":
        exact = engine.compute(surface, mode="exact")
        error = np.sqrt(np.sum((result.potentials - exact.potentials) ** 2) / np.sum(exact.potentials ** 2))
        print(f"exact: total {float(convert_potential(exact.total, args.units, args.temperature)):.6g} {args.units}; "
              f"{exact.seconds:.3f} s; HCP relative RMS error {error:.3e}")
    write_csv(prefix + ".csv", surface.points, values, surface.normals, surface.atom_index, args.units)
    write_ply(prefix + ".ply", surface.points, values, surface.normals, args.color_range)
    written = [prefix + ".csv", prefix + ".ply"]
    if args.png:
        write_png(prefix + ".png", surface.points, values, args.units,
                  f"{os.path.basename(args.pdb)}: ALPB surface potential ({result.mode})", args.color_range)
        written.append(prefix + ".png")
    print("wrote " + ", ".join(written))
    return 0

