"""python -m openmmnarumi.hcp: the command line of openmmnarumi.hcp (see cli.main())."""
import sys

from .cli import main

sys.exit(main())
