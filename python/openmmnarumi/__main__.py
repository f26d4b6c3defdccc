"""python -m openmmnarumi [--check] [--require-cuda] [--version]: see openmmnarumi.check."""
import sys

from .check import main

sys.exit(main())
