"""Loading the plugin's platform libraries into OpenMM, and saying in one line why one did not load."""
import os
import re
import warnings

from ._version import __version__

_HERE = os.path.dirname(os.path.abspath(__file__))
#: The plugin library of each OpenMM platform (the CPU platform uses the Reference library's kernels).
LIBRARIES = {"Reference": "libOpenMMNarumiReference.so", "CUDA": "libOpenMMNarumiCUDA.so"}


def buildInfo():
    """The _build_info module CMake writes into the installed package (None in a source tree)."""
    try:
        from . import _build_info
    except ImportError:
        return None
    return _build_info


def installedVersion(distribution):
    """The installed version of a PyPI distribution, or None."""
    from importlib import metadata
    try:
        return metadata.version(distribution)
    except metadata.PackageNotFoundError:
        return None


def checkOpenMMVersion():
    """ImportError, before any plugin library is loaded, if OpenMM is not the version this build was compiled for."""
    import openmm
    info = buildInfo()
    if info is not None and openmm.__version__ != info.OPENMM_VERSION:
        raise ImportError(
            f"openmm-narumi {__version__} was built against OpenMM {info.OPENMM_VERSION}, but OpenMM {openmm.__version__} "
            f"is installed ({os.path.dirname(openmm.__file__)}): pip install openmm=={info.OPENMM_VERSION}"
            f"{' openmm-cuda-13==' + info.OPENMM_VERSION if info.CUDA else ''}, or build openmm-narumi against this "
            "OpenMM")


def explain(message):
    """One line for a library that did not load: what is missing and what to do."""
    missing = re.search(r"(\S+): cannot open shared object file", message)
    missing = missing.group(1) if missing else ""
    if missing.startswith("libOpenMMCUDA.so"):
        return "OpenMM's CUDA platform is not installed (pip install openmm-cuda-13==8.6.1, or 'openmm-narumi[cuda]')"
    if missing.startswith("libcuda.so"):
        return "no NVIDIA driver on this machine (libcuda.so.1 not found): the CUDA platform needs one"
    return message.strip().splitlines()[0]


def loadPlugins():
    """Loads the plugin libraries that this build has into OpenMM; returns 'library: reason' for each that failed.

    Warns when OpenMM's own CUDA platform is there but the plugin's CUDA kernels are not: simulations would then fall
    back to the CPU without the user having asked for it."""
    import openmm
    info = buildInfo()
    failures = []
    cudaVersion = installedVersion("openmm-cuda-13")
    for platform, library in LIBRARIES.items():
        path = os.path.join(_HERE, library)
        if not os.path.exists(path):
            continue
        if platform == "CUDA" and info is not None and cudaVersion not in (None, info.OPENMM_VERSION):
            failures.append(f"{library}: openmm-cuda-13 {cudaVersion} is installed, this build needs "
                            f"{info.OPENMM_VERSION}: pip install openmm-cuda-13=={info.OPENMM_VERSION}")
            continue
        try:
            openmm.Platform.loadPluginLibrary(path)
        except Exception as error:  # a missing GPU driver must not make the package unusable on CPUs
            failures.append(f"{library}: {explain(str(error))}")
    names = {openmm.Platform.getPlatform(i).getName() for i in range(openmm.Platform.getNumPlatforms())}
    cudaFailure = [f for f in failures if f.startswith(LIBRARIES["CUDA"])]
    if "CUDA" in names and info is not None and not info.CUDA:
        warnings.warn("openmmnarumi: OpenMM's CUDA platform is available, but this openmm-narumi was built without CUDA "
                      "(no nvcc, or NARUMI_BUILD_CUDA=OFF): NarumiNonbondedForce runs on the CPU platform only",
                      RuntimeWarning, stacklevel=3)
    if "CUDA" in names and cudaFailure:
        warnings.warn(f"openmmnarumi: OpenMM's CUDA platform is available but NarumiNonbondedForce's CUDA kernels are "
                      f"not ({cudaFailure[0]}); python -m openmmnarumi --check says more", RuntimeWarning, stacklevel=3)
    return failures
