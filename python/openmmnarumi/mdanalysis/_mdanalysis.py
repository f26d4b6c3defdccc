"""The MDAnalysis import, with the extra to install named when it is missing."""
try:
    import MDAnalysis  # noqa: F401
    from MDAnalysis.analysis.backends import BackendBase, BackendMultiprocessing
    from MDAnalysis.analysis.base import AnalysisBase
    from MDAnalysis.analysis.results import ResultsGroup
    from MDAnalysis.lib.mdamath import triclinic_vectors
except ImportError:
    raise ImportError("openmmnarumi.mdanalysis needs MDAnalysis (>= 2.8), which is not installed: "
                      "pip install 'openmm-narumi[mdanalysis]' (or pip install MDAnalysis==2.9.0)") from None

__all__ = ["AnalysisBase", "BackendBase", "BackendMultiprocessing", "ResultsGroup", "triclinic_vectors"]
