"""python -m openmmnarumi.hcp: the command line of openmmnarumi.hcp (see main())."""
import sys

from . import main

sys.exit(main())
