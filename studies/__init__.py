"""Accuracy and method studies, run as modules from the repository root: python3 -m studies.NAME --help."""
