"""Multilevel summation prototypes and presets (README.md here): python3 -m studies.msm.NAME."""
