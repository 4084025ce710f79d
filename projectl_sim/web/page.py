"""The web seat's page: the viewer's page of the game so far, with the seat's panel and script.

The board is the replay viewer's own drawing (``view.page_html`` of ``view.view_data``: its
script and style, unchanged), opened at the last step; the seat's script (``seat.js``) then
makes the person's options clickable on it: a puzzle in a row to take it, a cell of one of the
person's puzzles to place the chosen piece (turned and flipped in the panel) there. Every other
option is a button of the panel. After each action the page loads again, showing the bots'
answers in the viewer's action list.
"""

from __future__ import annotations

import html
import json
from importlib import resources
from typing import Any

from projectl_sim.view import page_html, view_data


def _asset(name: str) -> str:
    return resources.files("projectl_sim.web").joinpath(name).read_text(encoding="utf-8")


def _json_block(element_id: str, value: Any) -> str:
    # "</" would end the script element early: JSON allows the escaped form "<\/"
    blob = json.dumps(value, separators=(",", ":")).replace("</", "<\\/")
    return f'<script id="{element_id}" type="application/json">{blob}</script>\n'


PANEL = """<section id="seat" aria-label="your seat">
<div id="seat-status"></div>
<div id="seat-message" role="alert" aria-live="assertive"></div>
<div id="seat-tools">
<div id="seat-pieces" class="seat-row"></div>
<div class="seat-row"><button id="seat-rotate" title="turn the piece (R)">turn &#x21bb;</button>
<button id="seat-flip" title="flip the piece (F)">flip &#x21c4;</button>
<label id="seat-insert-box"><input type="checkbox" id="seat-insert"> as an Insert</label>
<span id="seat-multi"></span></div>
<div id="seat-buttons"></div>
<div class="seat-row"><button id="seat-undo">undo</button>
<button id="seat-hint">hint</button>
<button id="seat-position" title="write the position now to a file a study reads">
save position</button>
<a id="seat-record" href="/record" download>the record</a>
<button id="seat-leave">leave</button></div>
<div id="seat-hint-box"></div>
</div>
</section>
"""


def seat_page(session: Any, token: str) -> str:
    """Return the page of ``session``'s game now, for the page holding ``token``."""
    record = session.record()
    data = view_data(record, session.rules.catalogue, session.rules.finesse_tiles)
    data["chances"] = session.chances()  # the viewer's graph, its cursor at the last step
    page = page_html(data)
    seat = {
        "token": token,
        "humans": sorted(session.humans),
        "step": len(data["steps"]),
        "choices": session.choices(),
    }
    to_last = f'<script>history.replaceState(null, "", "#{seat["step"]}");</script>\n'
    parts = {
        "</head>": f"<style>\n{_asset('seat.css')}</style>\n</head>",
        "</header>\n": "</header>\n" + PANEL,
        # the viewer opens the step the address names: the last, where the game is
        "<body>\n": "<body>\n" + to_last,
        "</body>": _json_block("seat-data", seat)
        + f"<script>\n{_asset('seat.js')}</script>\n</body>",
    }
    for marker, replacement in parts.items():
        if page.count(marker) != 1:  # the viewer's page changed shape: say so, not half a page
            raise RuntimeError(f"the viewer's page has no single {marker!r} to extend")
        page = page.replace(marker, replacement)
    return page.replace("<title>", "<title>Your seat: ", 1).replace(
        "<h1>", f"<h1>{html.escape('Your seat')} \u00b7 ", 1
    )
