"""The ``projectl-sim`` script: the command line, with a Ctrl-C while it loads as one line.

Importing the package takes a moment (numpy, pyarrow, the compiled engine); a Ctrl-C then would
print a ``KeyboardInterrupt`` traceback from inside an import, before the command line's own
handling of it (``projectl_sim.cli.main``) is there. This module imports nothing heavy itself.
"""

from __future__ import annotations

import sys


def main() -> int:
    """Run ``projectl_sim.cli.main``; a Ctrl-C before it can answer is one line, exit 130."""
    try:
        from projectl_sim.cli import main as cli_main

        return cli_main()
    except KeyboardInterrupt:
        print("projectl-sim: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
