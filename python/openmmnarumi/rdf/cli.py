"""python3 -m openmmnarumi.rdf: g(r) of a trajectory file, written as CSV and PNG."""
import argparse
import sys

from .result import metadataPath, outputPaths
from .trajectory import computeRDFTrajectory

from .._reporting import checkOutputPath

from .._version import __version__
from .._devices import cudaDeviceArgument

__all__ = ["main"]


def _argumentParser():
    """The command line's parser (also rendered by docs/command-lines.md)."""
    parser = argparse.ArgumentParser(prog="narumi-rdf",
                                     description="g(r) of a trajectory on the GPU (or CPU): writes a CSV and a PNG.")
    parser.add_argument("trajectory", help="trajectory file (DCD, XTC, ...; read with mdtraj)")
    parser.add_argument("--top", required=True, help="topology file (PDB)")
    parser.add_argument("--sel1", required=True, help='mdtraj selection, e.g. "name O and water"')
    parser.add_argument("--sel2", help="second selection (default: the same as --sel1)")
    parser.add_argument("--r-max", type=float, default=1.0, help="largest distance, nm (default 1.0; at most half the box)")
    parser.add_argument("--r-min", type=float, default=0.0, help="smallest distance, nm (default 0)")
    parser.add_argument("--bins", type=int, default=200, help="number of bins (default 200)")
    parser.add_argument("--stride", type=int, default=1, help="use every STRIDE-th frame")
    parser.add_argument("--exclude", choices=["residue", "molecule"], help="skip pairs within one residue/molecule")
    parser.add_argument("--backend", choices=["auto", "cpu", "cuda"], default="auto",
                        help="where to count: auto (CUDA when a GPU is usable, else all CPU cores), cpu or cuda")
    parser.add_argument("--cuda-device", type=cudaDeviceArgument, default=0,
                        help="the GPU of the CUDA backend (default 0), or several as 0,1 (frames spread over them)")
    parser.add_argument("--algorithm", choices=["auto", "all-pairs", "cell-list"], default="auto",
                        help="the pair search (auto: chosen per frame); every choice counts the same pairs")
    parser.add_argument("--output", default="rdf.csv",
                        help="CSV path (r in nm); its metadata go to the same stem + .json (default rdf.csv)")
    parser.add_argument("--png", action=argparse.BooleanOptionalAction, default=True,
                        help="draw g(r) and n(r) into the same stem + .png (default: yes)")
    parser.add_argument("--no-plot", dest="png", action="store_false", help=argparse.SUPPRESS)  # before 0.2
    parser.add_argument("--quiet", action="store_true", help="no progress bar")
    parser.add_argument("--version", action="version", version=f"openmm-narumi {__version__}")
    return parser


def _parseArguments(argv):
    return _argumentParser().parse_args(argv)


def main(argv=None):
    """The command line (argv: its arguments, default sys.argv[1:]); returns the exit status."""
    args = _parseArguments(argv)
    csvPath, pngPath = outputPaths(args.output)
    try:
        checkOutputPath(csvPath, "--output")  # before the work, not after it
        result = computeRDFTrajectory(args.trajectory, args.top, args.sel1, args.sel2, rMax=args.r_max,
                                      bins=args.bins, rMin=args.r_min, exclusion=args.exclude, stride=args.stride,
                                      backend=args.backend, algorithm=args.algorithm, progress=not args.quiet,
                                      cudaDevice=args.cuda_device)
    except (ValueError, RuntimeError, OSError, ImportError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    result.writeCSV(csvPath)
    result.writeMetadata(metadataPath(csvPath))
    if args.png:
        result.plot(pngPath, title=f"{args.sel1} / {args.sel2 or args.sel1}")
    print(f"{result.frames} frames, {result.metadata['pairsPerFrame']} pairs per frame ({result.metadata['backend']}, "
          f"{result.metadata['algorithm']}): wrote {csvPath}, {metadataPath(csvPath)}" +
          (f" and {pngPath}" if args.png else ""))
    return 0
