"""python3 -m openmmnarumi.potentialmap: the map of a PDB structure or the time average of a trajectory."""
import argparse
import os
import sys

from .._reporting import checkOutputPath
from .._units import DEFAULT_TEMPERATURE, unitFactor
from .result import mapFormat
from .structure import DEFAULT_FORCEFIELD, potentialMapFromStructure, potentialMapFromTrajectory

from .._version import __version__
from .._devices import cudaDeviceArgument

__all__ = ["main"]


def _argumentParser():
    """The command line's parser (also rendered by docs/command-lines.md)."""
    parser = argparse.ArgumentParser(prog="narumi-map",
                                     description="Electrostatic potential map of a PDB structure or the time average of a trajectory "
                                                 "(OpenDX + PNG slice).")
    parser.add_argument("pdb", help="structure (PDB with force-field charges, or PQR with its own); with --trajectory, "
                                    "its topology (PDB)")
    parser.add_argument("--trajectory", help="trajectory file read with mdtraj (DCD, XTC, ...), atoms as in the PDB")
    parser.add_argument("--forcefield", nargs="+", default=list(DEFAULT_FORCEFIELD),
                        help="OpenMM force field XML files for the charges (default: amber14-all.xml amber14/tip3p.xml)")
    parser.add_argument("--spacing", type=float, default=0.05, help="lattice spacing in nm (default 0.05)")
    parser.add_argument("--method", choices=["cutoff", "direct", "msm"], default="cutoff",
                        help="cutoff (default), direct (every atom) or msm (the direct sum by multilevel summation)")
    parser.add_argument("--msm-accuracy", type=float, default=1e-3,
                        help="bound on the relative RMS error of --method msm at points 0.15 nm or more from "
                             "every atom (default 1e-3; finest 3e-5, or 1e-3 with --msm-order 3)")
    parser.add_argument("--msm-order", type=int, choices=[3, 5], default=5,
                        help="interpolation of --method msm: 5 quintic (default) or 3 cubic")
    parser.add_argument("--cutoff", type=float, default=1.2, help="cutoff in nm for --method cutoff (default 1.2)")
    parser.add_argument("--margin", type=float, default=0.5,
                        help="margin around the atoms in nm for non-periodic maps (default 0.5)")
    parser.add_argument("--no-periodic", action="store_true", help="ignore the box even if the input has one")
    parser.add_argument("--stride", type=int, default=1, help="use every n-th trajectory frame")
    parser.add_argument("--accumulation", choices=["compensated", "narumi", "float"], default="compensated",
                        help="how the CUDA backend sums each point's terms (docs/potentialmap.md); the CPU sums in "
                             "double")
    parser.add_argument("--backend", choices=["auto", "cuda", "cpu"], default="auto",
                        help="where to compute: auto (CUDA when a GPU is usable, else the CPU), cuda or cpu")
    parser.add_argument("--cuda-device", type=cudaDeviceArgument, default=0,
                        help="the GPU of the CUDA backend (default 0), or several as 0,1 (the map cut into slabs over them)")
    parser.add_argument("--units", default="kT/e", help="kT/e (default), V, mV, kJ/mol/e, kcal/mol/e or e/A")
    parser.add_argument("--temperature", type=float, default=DEFAULT_TEMPERATURE,
                        help=f"temperature in K for kT/e (default {DEFAULT_TEMPERATURE:g})")
    parser.add_argument("--output", default="potential.dx",
                        help="map file to write: OpenDX (.dx) or MRC (.mrc, .map); coordinates in Angstrom, as VMD "
                             "reads them (default potential.dx)")
    parser.add_argument("--png", nargs="?", const=True, default=True,
                        help="write a PNG slice: the output's stem + .png, or the path given (default: yes)")
    parser.add_argument("--no-png", dest="png", action="store_false", help="write no PNG slice")
    parser.add_argument("--quiet", action="store_true", help="no progress bar over trajectory frames")
    parser.add_argument("--version", action="version", version=f"openmm-narumi {__version__}")
    parser.add_argument("--slice-axis", choices=["x", "y", "z"], default="z",
                        help="the axis normal to the PNG's plane, which passes through the map's middle (default z)")
    return parser


def _parseArguments(argv):
    return _argumentParser().parse_args(argv)


def main(argv=None):
    """The command line (argv: its arguments, default sys.argv[1:]); returns the exit status."""
    args = _parseArguments(argv)
    periodic = False if args.no_periodic else None
    try:
        unitFactor(args.units, args.temperature)
        mapFormat(args.output)  # before the work, not after it
        checkOutputPath(args.output, "--output")
        if args.trajectory:
            result = potentialMapFromTrajectory(args.trajectory, args.pdb, args.forcefield, args.spacing, args.method,
                                                args.cutoff, None, args.margin, periodic, args.stride, args.accumulation,
                                                args.backend, progress=not args.quiet, cudaDevice=args.cuda_device,
                                                msmAccuracy=args.msm_accuracy, msmOrder=args.msm_order)
        else:
            result = potentialMapFromStructure(args.pdb, args.forcefield, args.spacing, args.method, args.cutoff, None,
                                               args.margin, periodic, args.accumulation, args.backend,
                                               cudaDevice=args.cuda_device, msmAccuracy=args.msm_accuracy,
                                               msmOrder=args.msm_order)
    except (ValueError, RuntimeError, OSError, ImportError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    result.write(args.output, args.units, args.temperature)
    png = os.path.splitext(args.output)[0] + ".png" if args.png is True else (None if args.png in (False, "none") else args.png)
    if png:
        result.writeSlicePNG(png, axis=args.slice_axis, units=args.units, temperature=args.temperature)
    values = result.inUnits(args.units, args.temperature)
    print(f"{args.output}: {result.shape[0]} x {result.shape[1]} x {result.shape[2]} points at "
          f"{', '.join(f'{s:g}' for s in result.spacing)} nm, {result.frames} frame(s), {args.units} from "
          f"{values.min():.4g} to {values.max():.4g}" + (f"; {png}" if png else ""))
    return 0
