"""python -m openmmnarumi.hcp: the surface potential of a PDB structure, written as CSV, PLY (and PNG)."""
import argparse
import os
import sys

import numpy as np

from .._reporting import checkOutputPath
from .._units import DEFAULT_TEMPERATURE, POTENTIAL_UNITS, unitFactor
from .engine import DEFAULT_THRESHOLDS, SurfacePotential
from .molecule import readMolecule
from .output import convertPotential, writeCSV, writePLY, writePNG
from .surface import surfacePoints

from .._version import __version__

__all__ = ["main"]


def _argumentParser():
    """The command line's parser (also rendered by docs/command-lines.md)."""
    parser = argparse.ArgumentParser(
        prog="narumi-hcp",
        description="Electrostatic surface potential (ALPB) of molecules with hierarchical charge partitioning. "
                    "Options in OpenMM's units (nm, e, K); the CSV and PLY coordinates are in Angstrom, to overlay "
                    "the PDB.")
    parser.add_argument("pdb", nargs="+", help="input PDB or PQR files (PQR: the file's charges and radii are used; "
                                               "water and monatomic ions are removed unless --keep-solvent)")
    parser.add_argument("--forcefield", nargs="+", default=["amber14-all.xml"],
                        help="OpenMM force field files for the charges of PDB input")
    parser.add_argument("--output", help="prefix of the output files (one input only; default: each input's file "
                                         "name without its extension, in the current folder)")
    parser.add_argument("--mode", choices=["hcp", "exact", "both"], default="hcp",
                        help="summation; 'both' also reports the HCP error against the exact sum")
    parser.add_argument("--backend", choices=["auto", "cuda", "cpu"], default="auto",
                        help="where to compute: auto (CUDA when a GPU is usable, else the CPU), cuda or cpu")
    parser.add_argument("--cuda-device", type=int, default=0, help="the GPU of the CUDA backend (default 0)")
    parser.add_argument("--threads", type=int, default=0, help="CPU threads (0: all)")
    parser.add_argument("--eps-in", type=float, default=1.0, help="dielectric constant inside the molecule")
    parser.add_argument("--eps-out", type=float, default=80.0, help="dielectric constant of the solvent")
    parser.add_argument("--surface", choices=["sas", "contact"], default="sas",
                        help="solvent-accessible points (radius + probe) or contact points on the atoms")
    parser.add_argument("--density", type=float, default=300.0,
                        help="surface points per nm^2 (default 300 = GEM's 3 per A^2)")
    parser.add_argument("--probe", type=float, default=0.14, help="probe radius in nm (default 0.14)")
    parser.add_argument("--thresholds", type=float, nargs=3, default=list(DEFAULT_THRESHOLDS),
                        metavar=("RESIDUE", "CHAIN", "COMPLEX"),
                        help="HCP distance thresholds in nm (default %(default)s)")
    parser.add_argument("--complexes", choices=["whole", "chains"], default="whole",
                        help="top level of the hierarchy: the whole molecule, or each chain its own complex")
    parser.add_argument("--size-method", choices=["determinant", "ellipsoid"], default="determinant",
                        help="electrostatic size A: A_det (default, as GEM) or A_ell")
    parser.add_argument("--units", choices=POTENTIAL_UNITS, default="kT/e",
                        help="units of the potentials written and printed (default kT/e)")
    parser.add_argument("--temperature", type=float, default=DEFAULT_TEMPERATURE,
                        help=f"temperature in K for --units kT/e (default {DEFAULT_TEMPERATURE:g})")
    parser.add_argument("--keep-solvent", action="store_true", help="keep water and ions")
    parser.add_argument("--color-range", type=float,
                        help="colour scale +-limit in --units (default: the 98th percentile of the absolute potential)")
    parser.add_argument("--png", action=argparse.BooleanOptionalAction, default=True,
                        help="draw PREFIX.png (default: yes)")
    parser.add_argument("--quiet", action="store_true", help="no progress bar over several inputs")
    parser.add_argument("--version", action="version", version=f"openmm-narumi {__version__}")
    return parser


def _parseArguments(argv):
    parser = _argumentParser()
    args = parser.parse_args(argv)
    # Lengths were in Angstrom before 0.2: refuse values that only make sense in Angstrom rather than misread them.
    if not 0 <= args.probe <= 0.5:
        parser.error(f"--probe {args.probe:g} nm: the probe radius is in nm (water: 0.14 nm = 1.4 A)")
    if not args.density >= 10:
        parser.error(f"--density {args.density:g} per nm^2 is too sparse: the density is per nm^2 (GEM: 300 = 3 per A^2)")
    if not all(0 < h <= 20 or h == float("inf") for h in args.thresholds):
        parser.error(f"--thresholds {' '.join(f'{h:g}' for h in args.thresholds)}: thresholds are in nm "
                     f"(default {' '.join(f'{h:g}' for h in DEFAULT_THRESHOLDS)})")
    if args.output and len(args.pdb) > 1:
        parser.error("--output names the files of one input; with several inputs each gets its own name")
    # Checked before any computation rather than when the results are written.
    if not args.temperature > 0:
        parser.error(f"--temperature {args.temperature:g}: the temperature must be positive (K)")
    try:
        unitFactor(args.units, args.temperature)
        for path in args.pdb:
            checkOutputPath(_outputPrefix(path, args) + ".csv", "--output")
    except ValueError as error:
        parser.error(str(error))
    return args


def _outputPrefix(path, args):
    """PREFIX of one input's files: --output, else the input's name without its extension (current folder)."""
    return args.output or os.path.splitext(os.path.basename(path))[0]


def _surfacePotential(path, args, prefix):
    """One structure: its summary lines and files."""
    topology, positions, charges, radii = readMolecule(path, args.forcefield, args.keep_solvent)
    surface = surfacePoints(positions, radii, args.probe, args.density, args.surface, args.threads)
    engine = SurfacePotential(positions, charges, topology, radii=radii, soluteDielectric=args.eps_in,
                              solventDielectric=args.eps_out, sizeMethod=args.size_method,
                              thresholds=args.thresholds, complexes=args.complexes, backend=args.backend,
                              threads=args.threads, cudaDevice=args.cuda_device)
    atoms, residues, chains, complexes = engine.componentCounts()
    lines = [f"{path}: {atoms} atoms, {residues} residues, {chains} chains, {complexes} complexes; total charge "
             f"{engine.totalCharge:+.3f} e; electrostatic size A = {engine.electrostaticSize:.3f} nm",
             f"{len(surface)} {args.surface} surface points ({args.density:g} per nm^2, probe {args.probe:g} nm); "
             f"backend {engine.backend}"]
    result = engine.compute(surface, mode="exact" if args.mode == "exact" else "hcp")
    values = convertPotential(result.potentials, args.units, args.temperature)
    total = float(convertPotential(result.total, args.units, args.temperature))
    lines.append(f"{result.mode}: total surface potential {total:.6g} {args.units} over {len(values)} points "
                 f"(mean {np.mean(values):.4g}, min {np.min(values):.4g}, max {np.max(values):.4g}); "
                 f"{result.seconds:.3f} s")
    if args.mode == "both":
        exact = engine.compute(surface, mode="exact")
        error = np.sqrt(np.sum((result.potentials - exact.potentials) ** 2) / np.sum(exact.potentials ** 2))
        lines.append(f"exact: total {float(convertPotential(exact.total, args.units, args.temperature)):.6g} "
                     f"{args.units}; {exact.seconds:.3f} s; HCP relative RMS error {error:.3e}")
    writeCSV(prefix + ".csv", surface.points, values, surface.normals, surface.atomIndex, args.units)
    writePLY(prefix + ".ply", surface.points, values, surface.normals, args.color_range)
    written = [prefix + ".csv", prefix + ".ply"]
    if args.png:
        writePNG(prefix + ".png", surface.points, values, args.units,
                 f"{os.path.basename(path)}: ALPB surface potential ({result.mode})", args.color_range)
        written.append(prefix + ".png")
    lines.append("wrote " + ", ".join(written))
    return lines


def main(argv=None):
    """Command line: PDB/PQR files in, PREFIX.csv, PREFIX.ply and PREFIX.png out per input, a summary on stdout."""
    from tqdm import tqdm
    args = _parseArguments(argv)
    status = 0
    inputs = tqdm(args.pdb, unit="structure", desc="HCP", disable=True if args.quiet or len(args.pdb) == 1 else None)
    for path in inputs:
        prefix = _outputPrefix(path, args)
        try:
            lines = _surfacePotential(path, args, prefix)
        except (ValueError, OSError) as error:
            inputs.write(f"error: {path}: {error}", file=sys.stderr)
            status = 2
            continue
        for line in lines:
            inputs.write(line)
    return status
