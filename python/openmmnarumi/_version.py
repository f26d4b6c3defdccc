"""The version of openmm-narumi: the one place it is written (pyproject.toml and CMakeLists.txt read this line)."""
__version__ = "0.3.0"
