"""Accuracy of Narumi accumulation against OpenMM (docs/accuracy.md): python3 -m studies.accuracy.NAME --help."""
