"""python -m openmmnarumi.hcp: the surface potential of a PDB structure, written as CSV, PLY (and PNG)."""
import argparse
import os

import numpy as np

from .._units import DEFAULT_TEMPERATURE
from .engine import DEFAULT_THRESHOLDS, SurfacePotential
from .molecule import atomicRadii, prepareMolecule
from .output import UNITS, convertPotential, writeCSV, writePLY, writePNG
from .surface import surfacePoints

__all__ = ["main"]


def _parseArguments(argv):
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
    parser.add_argument("--temperature", type=float, default=DEFAULT_TEMPERATURE,
                        help=f"for --units kT/e (K; default {DEFAULT_TEMPERATURE:g})")
    parser.add_argument("--keep-solvent", action="store_true", help="keep water and ions")
    parser.add_argument("--color-range", type=float, help="colour scale +-limit in --units (default: 98th percentile of |phi|)")
    parser.add_argument("--png", action="store_true", help="also draw PREFIX.png")
    return parser.parse_args(argv)


def main(argv=None):
    """Command line: PDB in, PREFIX.csv and PREFIX.ply (and PREFIX.png) out, a summary on stdout."""
    args = _parseArguments(argv)
    prefix = args.output or os.path.splitext(os.path.basename(args.pdb))[0]
    topology, positions, charges = prepareMolecule(args.pdb, args.forcefield, args.keep_solvent)
    radii = atomicRadii(topology)
    surface = surfacePoints(positions, radii, args.probe / 10.0, args.density * 100.0, args.surface, args.threads)
    engine = SurfacePotential(positions, charges, topology, radii=radii, soluteDielectric=args.eps_in,
                              solventDielectric=args.eps_out, sizeMethod=args.size_method,
                              thresholds=[h / 10.0 for h in args.thresholds], complexes=args.complexes,
                              backend=args.backend, threads=args.threads)
    atoms, residues, chains, complexes = engine.componentCounts()
    print(f"{args.pdb}: {atoms} atoms, {residues} residues, {chains} chains, {complexes} complexes; "
          f"total charge {engine.totalCharge:+.3f} e; electrostatic size A = {10 * engine.electrostaticSize:.2f} A")
    print(f"{len(surface)} {args.surface} surface points ({args.density} per A^2, probe {args.probe} A); backend {engine.backend}")
    result = engine.compute(surface, mode="exact" if args.mode == "exact" else "hcp")
    values = convertPotential(result.potentials, args.units, args.temperature)
    total = float(convertPotential(result.total, args.units, args.temperature))
    print(f"{result.mode}: total surface potential {total:.6g} {args.units} over {len(values)} points "
          f"(mean {np.mean(values):.4g}, min {np.min(values):.4g}, max {np.max(values):.4g}); {result.seconds:.3f} s")
    if args.mode == "both":
        exact = engine.compute(surface, mode="exact")
        error = np.sqrt(np.sum((result.potentials - exact.potentials) ** 2) / np.sum(exact.potentials ** 2))
        print(f"exact: total {float(convertPotential(exact.total, args.units, args.temperature)):.6g} {args.units}; "
              f"{exact.seconds:.3f} s; HCP relative RMS error {error:.3e}")
    writeCSV(prefix + ".csv", surface.points, values, surface.normals, surface.atomIndex, args.units)
    writePLY(prefix + ".ply", surface.points, values, surface.normals, args.color_range)
    written = [prefix + ".csv", prefix + ".ply"]
    if args.png:
        writePNG(prefix + ".png", surface.points, values, args.units,
                 f"{os.path.basename(args.pdb)}: ALPB surface potential ({result.mode})", args.color_range)
        written.append(prefix + ".png")
    print("wrote " + ", ".join(written))
    return 0
