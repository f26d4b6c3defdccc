"""Speed measurements, run as modules from the repository root: python3 -m benchmarks.NAME --help."""
