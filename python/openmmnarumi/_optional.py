"""Optional dependencies: imported where needed, with the extra to install named when they are missing."""

__all__ = ["importMdtraj"]


def importMdtraj(what):
    """The mdtraj module; ImportError naming the extra ('openmm-narumi[trajectories]') if it is not installed."""
    try:
        import mdtraj
    except ImportError:
        raise ImportError(f"{what} needs mdtraj, which is not installed: pip install 'openmm-narumi[trajectories]' "
                          "(or pip install mdtraj==1.11.1.post2)") from None
    return mdtraj
