"""python3 -m openmmnarumi.rdf: the command line of openmmnarumi.rdf (see main())."""
import sys

from . import main

sys.exit(main())
