"""python3 -m openmmnarumi.rdf: the command line of openmmnarumi.rdf (see cli.main())."""
import sys

from .cli import main

sys.exit(main())
