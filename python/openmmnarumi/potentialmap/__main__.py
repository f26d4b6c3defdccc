"""python3 -m openmmnarumi.potentialmap: the command line of openmmnarumi.potentialmap (see main())."""
import sys

from . import main

sys.exit(main())
