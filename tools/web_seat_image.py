"""The web seat's picture of the documentation (docs/img/web_seat.png), from a real game.

The game of ``projectl-sim play --web --seed 7 --bots human,greedy`` is served in-process
(``projectl_sim.web``, on a port the system chooses) and played in headless Chromium by clicks,
as a person would: the first white puzzle of the row that the person's pieces can start is
taken by clicking it, a hint is asked, a piece is chosen and the pointer rests on a cell of the
new puzzle, so the picture shows the highlighted placement, the hint and the panel.

``make_images.py`` draws it (``python tools/make_images.py web_seat.png``) as its other
pictures: the data drawn is the record at that moment (decision times left out) and the hint,
which ``python tools/web_seat_image.py --data`` prints from the same game played without a
browser (the session is the same; the drawing checks the browser's game gave that data).

Needs Debian's ``chromium`` and ``chromium-driver`` and selenium (the ``test`` extra) to draw,
and Pillow (matplotlib's) to keep the picture small.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import tempfile
import threading
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
IMG = ROOT / "docs" / "img"
NAME = "web_seat.png"
SEED = 7
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", "--no-first-run"]


def _session(folder: Path) -> Any:
    import projectl_sim.cli.human  # noqa: F401  (registers the human seat)
    from bots import make_bot
    from projectl_sim import Rules
    from projectl_sim.web import Session

    bots = [make_bot("human"), make_bot("greedy")]
    return Session(Rules(players=2), bots, SEED, [0], folder / "seat.json")


def _record(session: Any) -> dict[str, Any]:
    record = session.record()
    for action in record["actions"]:
        action.pop("seconds", None)  # the decision times vary; the game does not
    return record


def _first_white_take(session: Any) -> str:
    """Return the first white puzzle of the row one of the person's pieces can go into."""
    cat = session.rules.catalogue
    view = session.state.view(0)
    t = view.tables
    for card in view.rows[0]:
        if any(view.supply[0][piece] for piece, _ in t.fit_groups(card, t.recess[card])):
            return str(cat.puzzles[card].id)
    raise LookupError("no white puzzle of the row fits the starting pieces")


def scene_data() -> str:
    """Return the picture's data: the same game and hint, played without a browser."""
    with tempfile.TemporaryDirectory(prefix="seat-") as tmp:
        session = _session(Path(tmp))
        card = _first_white_take(session)
        session.act({"type": "take", "puzzle": card})
        return json.dumps({"record": _record(session), "hint": session.hint()}, sort_keys=True)


def play_and_draw(path: Path) -> None:
    """Play the scene in the browser and write the picture to ``path``."""
    from selenium import webdriver
    from selenium.common.exceptions import WebDriverException
    from selenium.webdriver.chrome.service import Service
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.support.ui import WebDriverWait

    from projectl_sim.web import SeatServer

    with tempfile.TemporaryDirectory(prefix="seat-") as tmp:
        server = SeatServer("127.0.0.1", 0)
        server.session = session = _session(Path(tmp))
        threading.Thread(target=server.serve_forever, daemon=True).start()
        options = webdriver.ChromeOptions()
        options.binary_location = shutil.which("chromium") or "chromium"
        for flag in [*FLAGS, f"--user-data-dir={tmp}/profile", "--window-size=1280,1350"]:
            options.add_argument(flag)
        service = Service(shutil.which("chromedriver") or "chromedriver")
        driver = webdriver.Chrome(service=service, options=options)
        try:
            driver.get(server.url)
            card = _first_white_take(session)
            driver.execute_script("window.seatMark = true")
            driver.find_element("css selector", f'.table .card[data-puzzle="{card}"]').click()
            WebDriverWait(driver, 30, ignored_exceptions=(WebDriverException,)).until(
                lambda d: d.execute_script("return !window.seatMark && window.seatReady === true")
            )
            driver.find_element("id", "seat-hint").click()
            WebDriverWait(driver, 30).until(
                lambda d: "value would play" in d.find_element("id", "seat-hint-box").text
            )
            choices = session.choices()
            option = choices["places"][card][-1]
            driver.find_element(
                "css selector", f'#seat-pieces button[data-piece="{option["piece"]}"]'
            ).click()
            r, c = min(tuple(x) for x in option["cells"])
            cell = driver.find_element(
                "css selector",
                f'.players .panel.player[data-seat="0"] .card[data-puzzle="{card}"] '
                f'.seat-cell[data-r="{r}"][data-c="{c}"]',
            )
            ActionChains(driver).move_to_element(cell).perform()
            if _record(session) != json.loads(scene_data())["record"]:
                raise RuntimeError("the game in the browser is not the game of --data")
            driver.save_screenshot(str(path))
            from PIL import Image as Picture

            # a page of flat colours: 256 of them keep it sharp at a third of the size
            Picture.open(path).convert("RGB").quantize(256).save(path, optimize=True)
        finally:
            driver.quit()
            server.shutdown()
            server.server_close()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", action="store_true", help="print the picture's data")
    parser.add_argument("--out", type=Path, default=IMG / NAME, help="where to draw it")
    args = parser.parse_args(argv)
    if args.data:
        print(scene_data())
    else:
        play_and_draw(args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
