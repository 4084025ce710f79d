"""Draw the documentation's pictures (docs/img) from the commands the pages show.

Each picture is declared once in ``IMAGES``: the page whose commands produce its data, the
command after which the data is read (the page is played up to it, as ``docs_play`` plays
it), what is drawn (``data``: a small text table, the picture's data) and how it is drawn
(``draw``). ``python tools/make_images.py`` redraws every picture and writes the digest of the
data each was drawn from to ``docs/img/digests.json``; ``--check`` recomputes the data and
exits 1 when a picture was drawn from other data than the commands now give. The test of the
documentation compares the digests while it plays the pages (pixels are not compared: a new
matplotlib may move them, the data may not change unseen).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import shlex
import sys
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import docs_play

sys.path.pop(0)

ROOT = docs_play.ROOT
IMG = ROOT / "docs" / "img"
DIGESTS = IMG / "digests.json"


@dataclass(frozen=True)
class Image:
    name: str  # the file in docs/img
    page: str  # the page, under docs/, whose play produces the data ("": none, see after)
    # the command (as the page shows it) after which the data is read; with no page, the
    # commands run in a new folder to make the data
    after: str
    # the picture's data, read in the played folder or from what the command printed
    data: Callable[[Path, list[str]], str]
    draw: Callable[[Path, Path], None]  # (played folder, picture) -> writes the picture


def _seat_table(cwd: Path):
    from projectl_sim import analysis as pa

    run = pa.load_run(cwd / "results" / "ghost-balance")
    return pa.seat_advantage(run.seats, by=["players", "expansions"])


def _seat_data(cwd: Path, printed: list[str]) -> str:
    return _seat_table(cwd).to_csv(index=False, float_format="%.6g")


def _seat_draw(cwd: Path, path: Path) -> None:
    from projectl_sim.analysis import plots

    plots.save(plots.plot_seat_advantage(_seat_table(cwd)), path)


def _check_data(cwd: Path, printed: list[str]) -> str:
    # the check the picture draws, as printed (its last line names the picture's file)
    return "\n".join(line for line in printed if not line.startswith("picture:"))


def _check_draw(cwd: Path, path: Path) -> None:
    import shutil

    shutil.copyfile(cwd / "n01.png", path)


def _tune_data(cwd: Path, printed: list[str]) -> str:
    out = cwd / "results" / "tune-deck"
    return (out / "trials.csv").read_text() + (out / "confirmed.csv").read_text()


def _tune_draw(cwd: Path, path: Path) -> None:
    import shutil

    shutil.copyfile(cwd / "results" / "tune-deck" / "tune.png", path)


def _atlas_data(cwd: Path, printed: list[str]) -> str:
    return (cwd / "atlas" / "puzzles.csv").read_text()


def _atlas_draw(cwd: Path, path: Path) -> None:
    import shutil

    shutil.copyfile(cwd / "atlas" / "puzzles.png", path)


def _viewer_record(cwd: Path) -> dict:
    record = json.loads((cwd / "game.json").read_text())
    for action in record["actions"]:
        action.pop("seconds", None)  # the decision times vary; the game does not
    return record


def _viewer_data(cwd: Path, printed: list[str]) -> str:
    return json.dumps(_viewer_record(cwd), sort_keys=True)


def _viewer_draw(cwd: Path, path: Path) -> None:
    """Screenshot the viewer at the first Insert that completes a puzzle (headless Chromium)."""
    from projectl_sim.view.steps import view_data

    record = _viewer_record(cwd)
    steps = view_data(record)["steps"]
    at = next(
        i
        for i, (raw, step) in enumerate(zip(record["actions"], steps, strict=False))
        if raw["type"] == "insert" and any("completes" in e for e in step["events"])
    )
    _screenshot(f"file://{cwd / 'game.html'}#{at + 1}", path, 1100)


def _screenshot(url: str, path: Path, height: int) -> None:
    """Screenshot ``url`` 1280 pixels wide in headless Chromium, saved in 256 colours."""
    import subprocess

    from PIL import Image as Picture

    subprocess.run(
        [
            "chromium",
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--hide-scrollbars",
            f"--screenshot={path}",
            f"--window-size=1280,{height}",
            url,
        ],
        check=True,
        capture_output=True,
    )
    # a page of flat colours: 256 of them keep it sharp at a third of the size
    Picture.open(path).convert("RGB").quantize(256).save(path, optimize=True)


# the skill ladder's results file: an hour of CPU, so kept under docs/data (which-players.md)
LADDER_DATA = ROOT / "docs" / "data" / "ladder.csv"


def _ladder_data(cwd: Path, printed: list[str]) -> str:
    return (cwd / "ladder.csv").read_text()


def _ladder_draw(cwd: Path, path: Path) -> None:
    """Draw the chart ``projectl-sim ladder`` draws, from its results file."""
    import pandas as pd

    from projectl_sim.analysis import plots
    from projectl_sim.experiments.ladder import plot_ladder_cost

    plots.save(plot_ladder_cost(pd.read_csv(cwd / "ladder.csv")), path, dpi=110)


def _board_data(cwd: Path, printed: list[str]) -> str:
    return (cwd / "game7.chances.csv").read_text()


def _board_draw(cwd: Path, path: Path) -> None:
    """Screenshot the analysis board's page at the game's worst turn (headless Chromium)."""
    import re

    page = (cwd / "game7.board.html").read_text()
    blob = re.search(r'<script id="game" type="application/json">(.*?)</script>', page, re.S)
    assert blob is not None
    turning = json.loads(blob.group(1).replace("<\\/", "</"))["chances"]["turning"]
    _screenshot(f"file://{cwd / 'game7.board.html'}#{turning[0] if turning else 0}", path, 1000)


# a picture drawn from no page's command: the commands that make its data, run in a new folder
_VIEWER_GAME = (
    "projectl-sim play --seed 7 --players 3 --expansions ghost+ambassador+finesse+phoenix "
    "--bots greedy,greedy:preset=rush_black,random --record game.json "
    "&& projectl-sim view game.json -o game.html"
)


def _web_seat_data(cwd: Path, printed: list[str]) -> str:
    return "\n".join(printed)


def _web_seat_draw(cwd: Path, path: Path) -> None:
    """Play the web seat's scene in headless Chromium and screenshot it (web_seat_image.py)."""
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    import web_seat_image

    sys.path.pop(0)
    web_seat_image.play_and_draw(path)


IMAGES = (
    Image(
        "seat_advantage.png",
        "tutorials/designer.md",
        "projectl-sim run --bots greedy --players 2,3,4 --expansions none,ghost --games 200 "
        "--seed 1 --out results/ghost-balance --quiet",
        _seat_data,
        _seat_draw,
    ),
    Image(
        "puzzle_check.png",
        "how-to/designer-loop.md",
        "projectl-sim puzzle check n01.toml",
        _check_data,
        _check_draw,
    ),
    Image(
        "tune.png",
        "how-to/designer-loop.md",
        "projectl-sim tune --objective seat_advantage --param black_deck_2p=10..16 --budget 200 "
        "--games-per-trial 25 --bots greedy,greedy --seed 2026 --confirm 2 --confirm-games 100 "
        "--out results/tune-deck --quiet",
        _tune_data,
        _tune_draw,
    ),
    Image("puzzles.png", "", "projectl-sim puzzles --out atlas", _atlas_data, _atlas_draw),
    Image("viewer.png", "", _VIEWER_GAME, _viewer_data, _viewer_draw),
    Image(
        "web_seat.png",
        "",
        f"python {ROOT / 'tools' / 'web_seat_image.py'} --data",
        _web_seat_data,
        _web_seat_draw,
    ),
    # from a data file, not a command: copied into the folder, drawn as the ladder draws it
    Image(
        "ladder.png",
        "",
        f"cp {shlex.quote(str(LADDER_DATA))} ladder.csv",
        _ladder_data,
        _ladder_draw,
    ),
    Image(
        "board.png",
        "how-to/find-where-a-game-was-decided.md",
        "projectl-sim analyse game7.json",
        _board_data,
        _board_draw,
    ),
)


def digest(data: str) -> str:
    """Return the digest of a picture's data."""
    return hashlib.sha256(data.encode()).hexdigest()[:16]


def stored() -> dict[str, str]:
    """Return the digests the pictures were drawn from."""
    return json.loads(DIGESTS.read_text()) if DIGESTS.exists() else {}


def standalone(image: Image, cwd: Path) -> str:
    """Run the commands of a picture drawn from no page in ``cwd``; return its data."""
    import subprocess

    proc = subprocess.run(
        ["bash", "-c", image.after],
        cwd=cwd,
        env=docs_play.reader_env(),
        capture_output=True,
        text=True,
        check=False,
    )
    if proc.returncode:
        raise RuntimeError(f"{image.after}: exit {proc.returncode}\n{proc.stderr[-2000:]}")
    return image.data(cwd, proc.stdout.splitlines())


def for_page(page: Path) -> list[Image]:
    """Return the pictures drawn from a page's commands."""
    name = str(page.relative_to(ROOT / "docs"))
    return [i for i in IMAGES if i.page == name]


class Drawing:
    """The pictures of one page, drawn (or only their data read) while the page is played:
    pass ``after_block`` to ``docs_play.play``."""

    def __init__(self, page: Path, cwd: Path, draw: bool) -> None:
        self.images, self.cwd, self.draw = for_page(page), cwd, draw
        self.digests: dict[str, str] = {}

    def after_block(self, block: docs_play.Block, outputs: list[list[str]]) -> bool:
        for image in self.images:
            for c, printed in zip(block.commands, outputs, strict=True):
                if c.text == image.after:
                    self.digests[image.name] = digest(image.data(self.cwd, printed))
                    if self.draw:
                        image.draw(self.cwd, IMG / image.name)
        return False

    def report(self, check: bool) -> int:
        """Store the digests (unless ``check``), print each picture's state; return how many
        were stale, or raise when the page no longer runs a picture's command."""
        return _report(
            {i.name: self.digests.get(i.name) for i in self.images},
            {i.name: i.after for i in self.images},
            check,
        )


def _report(found: dict[str, str | None], commands: dict[str, str], check: bool) -> int:
    digests, stale = stored(), 0
    for name, new in found.items():
        if new is None:
            raise LookupError(f"make_images: no page runs {commands[name]!r} any more")
        current = digests.get(name) == new
        stale += not current
        digests[name] = new
        print(f"{name}: {'current' if current else 'stale'}{'' if check else ', drawn'}")
    if not check:
        DIGESTS.write_text(json.dumps(digests, indent=1, sort_keys=True) + "\n")
    return stale


def draw_standalone(names: list[str], check: bool) -> int:
    """Draw the pictures no page's commands make (all, or those named); return how many were
    stale."""
    found, commands = {}, {}
    for image in IMAGES:
        if image.page or (names and image.name not in names):
            continue
        with tempfile.TemporaryDirectory(prefix="img-") as tmp:
            found[image.name] = digest(standalone(image, Path(tmp)))
            commands[image.name] = image.after
            if not check:
                image.draw(Path(tmp), IMG / image.name)
    return _report(found, commands, check)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("names", nargs="*", help="pictures to draw (default: all)")
    parser.add_argument("--check", action="store_true", help="draw nothing; exit 1 if stale")
    args = parser.parse_args(argv)
    chosen = [i for i in IMAGES if not args.names or i.name in args.names]
    stale = (
        draw_standalone([i.name for i in chosen], args.check)
        if any(not i.page for i in chosen)
        else 0
    )
    for page in sorted({i.page for i in chosen if i.page}):
        with tempfile.TemporaryDirectory(prefix="img-") as tmp:
            drawing = Drawing(ROOT / "docs" / page, Path(tmp), draw=not args.check)
            wanted = {i.name for i in chosen if i.page == page}
            drawing.images = [i for i in drawing.images if i.name in wanted]

            def far_enough(block, outputs, drawing=drawing) -> bool:
                drawing.after_block(block, outputs)
                return len(drawing.digests) == len(drawing.images)

            docs_play.play(ROOT / "docs" / page, Path(tmp), after_block=far_enough)
        stale += drawing.report(args.check)
    return 1 if args.check and stale else 0


if __name__ == "__main__":
    sys.exit(main())
