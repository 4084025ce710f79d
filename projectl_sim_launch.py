"""The ``projectl-sim`` script: the command line, with a Ctrl-C while it loads as one line.

Importing the package takes a moment (numpy, pyarrow, the compiled engine); a Ctrl-C then would
print a ``KeyboardInterrupt`` traceback from inside an import, before the command line's own
handling of it (``projectl_sim.cli.main``) is there, or, inside numpy's C extension, an
``ImportError`` (it turns the interrupt into one): a Ctrl-C while loading is noted, and either is
then one line. This module imports nothing heavy itself.

It also gives numpy's BLAS one thread, unless the user set a count, before numpy loads: the
command line's own numeric work is small (tables of thousands of rows, fits of a few dozen
parameters), and the BLAS thread pool cost every command 0.1-0.2 s of CPU, spinning beside a
run's workers on the same cores. The workers get one thread too (``sim.workers``).
"""

from __future__ import annotations

import os
import signal
import sys

ONE_THREAD = ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS")


def main() -> int:
    """Run ``projectl_sim.cli.main``; a Ctrl-C before it can answer is one line, exit 130."""
    for name in ONE_THREAD:
        os.environ.setdefault(name, "1")
    interrupted: list[int] = []

    def note(signum: int, frame: object) -> None:
        interrupted.append(signum)
        raise KeyboardInterrupt

    try:
        # while the package loads, a Ctrl-C is noted before it is raised: numpy's C extension
        # turns a KeyboardInterrupt inside its own imports into an ImportError. Only over
        # Python's own handler: a process started with SIGINT ignored (a background job) keeps
        # ignoring it, and whatever handler was there is put back
        previous = signal.getsignal(signal.SIGINT)
        if previous is signal.default_int_handler:
            signal.signal(signal.SIGINT, note)
        try:
            from projectl_sim.cli import main as cli_main
        except ImportError:
            if interrupted:
                raise KeyboardInterrupt from None
            raise
        finally:
            if previous is signal.default_int_handler:
                signal.signal(signal.SIGINT, previous)
        return cli_main()
    except KeyboardInterrupt:
        print("projectl-sim: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
