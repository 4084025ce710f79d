"""``python -m projectl_sim``: the same as the ``projectl-sim`` command."""

import sys

from projectl_sim.cli import main

sys.exit(main())
