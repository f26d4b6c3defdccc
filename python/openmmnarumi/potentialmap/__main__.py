"""python3 -m openmmnarumi.potentialmap: the command line of openmmnarumi.potentialmap (see cli.main())."""
import sys

from .cli import main

sys.exit(main())
