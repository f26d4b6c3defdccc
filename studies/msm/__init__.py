"""Multilevel summation prototypes and the error model (README.md here): python3 -m studies.msm.NAME."""
