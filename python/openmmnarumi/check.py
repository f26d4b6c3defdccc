"""python -m openmmnarumi --check (narumi-check): what this installation can run, and why not.

Prints the versions of openmm-narumi and OpenMM (and whether OpenMM is the one the plugin was built against), how the
plugin was built, which OpenMM platforms exist, which of the plugin's kernels loaded, each GPU (its name, compute
capability, the code of this build it runs and the settings NarumiNonbondedForce chooses for it), whether a CUDA
Context with NarumiNonbondedForce can be created on this machine, and the analysis engines' GPU backends.  Exit status 0 when
everything this machine can run works (no GPU is not an error), 1 when something installed is broken, and 1 under
--require-cuda unless NarumiNonbondedForce runs on CUDA.
"""
import argparse
import os
import sys

from ._version import __version__

__all__ = ["main", "report"]


def _cudaContext():
    """(True, device name) if a Context with a NarumiNonbondedForce runs on CUDA, else (False, the reason)."""
    import openmm
    from .narumi import NarumiNonbondedForce
    system = openmm.System()
    force = NarumiNonbondedForce()
    force.setNonbondedMethod(NarumiNonbondedForce.NoCutoff)
    for _ in range(2):
        system.addParticle(1.0)
        force.addParticle(0.5, 0.3, 0.5)
    system.addForce(force)
    try:
        platform = openmm.Platform.getPlatformByName("CUDA")
        context = openmm.Context(system, openmm.VerletIntegrator(0.001), platform)
        context.setPositions([openmm.Vec3(0, 0, 0), openmm.Vec3(0.5, 0, 0)])
        context.getState(getEnergy=True)
        return True, platform.getPropertyValue(context, "DeviceName")
    except Exception as error:
        return False, str(error).strip().splitlines()[0]


def _gpuLines():
    """One line per CUDA device from the plugin's CUDA library: name, compute capability, which code of this build it
    runs (SASS or PTX) or why none, and the settings NarumiNonbondedForce chooses for it.  ([], True) without the
    library; the second value is False when a GPU cannot run this build."""
    import ctypes
    from . import _plugins
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), _plugins.LIBRARIES["CUDA"])
    try:
        library = ctypes.CDLL(path)
    except OSError:
        return [], True
    library.openmmNarumiDescribeCudaDevice.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_int]
    lines, allServed = [], True
    for device in range(library.openmmNarumiCudaDeviceCount()):
        text = ctypes.create_string_buffer(2048)
        if library.openmmNarumiDescribeCudaDevice(device, text, len(text)) != 0:
            allServed = False
        lines.append(f"GPU {device}: {text.value.decode(errors='replace')}")
    return lines, allServed


def report():
    """(lines, status, cudaWorks): what main() prints, its exit status without --require-cuda, and whether the CUDA
    kernels ran."""
    import openmm
    from . import _plugins, pluginLoadFailures
    from .hcp import cudaAvailable as hcpCuda
    from .potentialmap import cudaAvailable as mapCuda
    from .rdf import cudaAvailable as rdfCuda
    info = _plugins.buildInfo()
    status = 0
    lines = [f"openmm-narumi {__version__} ({os.path.dirname(os.path.abspath(__file__))})",
             f"OpenMM {openmm.__version__} ({os.path.dirname(openmm.__file__)})"
             + ("" if info is None else f"; built against OpenMM {info.OPENMM_VERSION}: "
                + ("match" if info.OPENMM_VERSION == openmm.__version__ else "MISMATCH"))]
    if info is None:
        lines.append("build: unknown (a source tree, not an installed build)")
    elif info.CUDA:
        lines.append(f"build: with CUDA {info.CUDA_VERSION} for GPU architectures {info.CUDA_ARCHITECTURES}")
    else:
        lines.append("build: CPU-only (no CUDA platform kernels, no GPU analysis backends)")
    cudaPackage = _plugins.installedVersion("openmm-cuda-13")
    lines.append(f"openmm-cuda-13: {cudaPackage or 'not installed'}")
    platforms = [openmm.Platform.getPlatform(i).getName() for i in range(openmm.Platform.getNumPlatforms())]
    lines.append(f"OpenMM platforms: {', '.join(platforms)}")
    for failure in openmm.Platform.getPluginLoadFailures():
        if "CUDA.so" in failure and "Amoeba" not in failure and "Drude" not in failure and "RPMD" not in failure:
            lines.append(f"  OpenMM's CUDA platform did not load: {_plugins.explain(failure)}")
    for platform, library in _plugins.LIBRARIES.items():
        failure = [f for f in pluginLoadFailures if f.startswith(library)]
        if failure:
            lines.append(f"NarumiNonbondedForce kernels, {platform}: NOT loaded: {failure[0][len(library) + 2:]}")
            reason = failure[0]
            if "no NVIDIA driver" not in reason and "not installed" not in reason:
                status = 1
        elif os.path.exists(os.path.join(os.path.dirname(os.path.abspath(__file__)), library)):
            names = "Reference, CPU" if platform == "Reference" else platform
            lines.append(f"NarumiNonbondedForce kernels, {names}: loaded")
        else:
            lines.append(f"NarumiNonbondedForce kernels, {platform}: not built")
    gpuLines, allServed = _gpuLines()
    lines += gpuLines
    if not allServed:
        status = 1
    cudaWorks = False
    if "CUDA" in platforms and not any(f.startswith(_plugins.LIBRARIES["CUDA"]) for f in pluginLoadFailures):
        cudaWorks, detail = _cudaContext()
        if cudaWorks:
            lines.append(f"CUDA: NarumiNonbondedForce runs on {detail}")
        else:
            lines.append(f"CUDA: a Context with NarumiNonbondedForce fails: {detail}")
            hardware = ("no CUDA-capable device", "CUDA_ERROR_NO_DEVICE", "driver version is insufficient")
            if not any(text in detail for text in hardware):
                status = 1
    else:
        lines.append("CUDA: not available on this installation or machine (see above)")
    lines.append(f"analysis GPU backends: RDF {'yes' if rdfCuda() else 'no'}, potential maps "
                 f"{'yes' if mapCuda() else 'no'}, HCP {'yes' if hcpCuda() else 'no'}")
    return lines, status, cudaWorks


def _argumentParser():
    """The command line's parser (also rendered by docs/command-lines.md)."""
    parser = argparse.ArgumentParser(prog="narumi-check", description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="report what this installation can run (the default)")
    parser.add_argument("--require-cuda", action="store_true",
                        help="exit with status 1 unless NarumiNonbondedForce runs on CUDA here")
    parser.add_argument("--version", action="version", version=f"openmm-narumi {__version__}")
    return parser


def main(argv=None):
    """The command line (argv: its arguments, default sys.argv[1:]); returns the exit status."""
    args = _argumentParser().parse_args(argv)
    lines, status, cudaWorks = report()
    print("\n".join(lines))
    if args.require_cuda and not cudaWorks:
        print("--require-cuda: NarumiNonbondedForce does not run on CUDA here", file=sys.stderr)
        status = 1
    return status
