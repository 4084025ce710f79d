"""Play the documentation's pages and write what their commands print into them.

``python tools/refresh_docs.py [PAGE ...]`` plays the pages (by default getting-started and
every tutorial and how-to, then redraws the pictures of docs/img that no page's command makes)
as ``docs_play`` tells, draws the pictures of each page from what its commands print
(``make_images.py``), and rewrites each shown output and each data table with what the page
gives now. ``--check`` writes nothing and prints the differences (exit 1 when a page or picture
is stale).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

import docs_play
import make_images


def _children_cpu() -> float:
    """Return the CPU seconds of the processes this one started and waited for."""
    import resource

    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    return used.ru_utime + used.ru_stime


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("pages", nargs="*", type=Path, help="pages to play (default: all)")
    parser.add_argument("--check", action="store_true", help="write nothing; exit 1 if stale")
    args = parser.parse_args(argv)
    pages = [p.resolve() for p in args.pages] or docs_play.PAGES
    stale_pages = 0
    for page in pages:
        if not page.exists():
            print(f"refresh_docs: {page}: no such page", file=sys.stderr)
            return 2
        start, cpu = time.monotonic(), _children_cpu()
        with tempfile.TemporaryDirectory(prefix="docs-") as tmp:
            drawing = make_images.Drawing(page, Path(tmp), draw=not args.check)
            try:
                played = docs_play.play(page, Path(tmp), after_block=drawing.after_block)
            except (AssertionError, LookupError, ValueError) as e:
                # a command that failed, an output selector that no longer matches
                print(f"refresh_docs: {page.relative_to(docs_play.ROOT)}: {e}", file=sys.stderr)
                return 2
        stale_pages += drawing.report(args.check) > 0
        text = page.read_text()
        new = docs_play.data_tables(docs_play.refreshed(text, played))
        diff = docs_play.stale(text, new) + docs_play.stale_tables(text)
        name = page.relative_to(docs_play.ROOT)
        took = f"{time.monotonic() - start:.0f} s, {_children_cpu() - cpu:.0f} s of CPU"
        if diff:
            stale_pages += 1
            if args.check:
                print("\n".join(diff))
        if new != text and not args.check:
            page.write_text(new)
            print(f"{name}: rewritten ({took})")
        else:
            print(f"{name}: {'stale' if diff else 'current'} ({took})")
    if not args.pages:
        stale_pages += make_images.draw_standalone([], args.check) > 0
    return 1 if args.check and stale_pages else 0


if __name__ == "__main__":
    sys.exit(main())
