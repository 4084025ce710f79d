"""The web seat's page: the viewer's page of the game so far, with the seat's panel and script.

The board is the replay viewer's own drawing (``view.page_html``: its script and style,
unchanged), opened at the last step. While the game runs its data is ``seat_data``: the
viewer's data built from the person's view of each step, so the page holds nothing their seat
may not see; once the game is over, ``view.view_data`` of the whole record. The seat's script
(``seat.js``) then makes the person's options clickable on it: a puzzle in a row to take it, a
cell of one of the person's puzzles to place the chosen piece (turned and flipped in the panel)
there. Every other option is a button of the panel. After each action the page loads again,
showing the bots' answers in the viewer's action list.
"""

from __future__ import annotations

import html
import json
from importlib import resources
from typing import Any

from projectl_sim.engine.record import seconds_of, state_json
from projectl_sim.engine.state import GameState
from projectl_sim.expansions.finesse import credits
from projectl_sim.view import page_html, view_data
from projectl_sim.view.steps import catalogue_json, delta, events, tile_json

# what a page shows of a card or a number its seat may not see
UNSEEN = "?"


def _asset(name: str) -> str:
    return resources.files("projectl_sim.web").joinpath(name).read_text(encoding="utf-8")


def _json_block(element_id: str, value: Any) -> str:
    # "</" would end the script element early: JSON allows the escaped form "<\/"
    blob = json.dumps(value, separators=(",", ":")).replace("</", "<\\/")
    return f'<script id="{element_id}" type="application/json">{blob}</script>\n'


RECORD_LINK = '<a id="seat-record" href="/record" download>the record</a>\n'
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
<!--record-->
<button id="seat-leave">leave</button></div>
<div id="seat-hint-box"></div>
</div>
</section>
"""  # <!--record--> is the record's link once the game is over (it holds the deal)


def seen_json(view: GameState) -> dict[str, Any]:
    """Return ``state_json`` of a seat's view, what it hides said as hidden: the other seats'
    face-down victory piles (and Endless noted cards) as one "?" a card, their points "?"
    (both shown as they are when the rules make victory points known)."""
    out = state_json(view)
    if not view.rules.known_victory_points:
        for q, row in enumerate(out["players"]):
            if q != view.viewer:
                row["score"] = UNSEEN
                row["completed"] = [UNSEEN] * len(row["completed"])
                if "noted" in row:
                    row["noted"] = [UNSEEN] * len(row["noted"])
    return out


def _face_up_tiles(view: GameState) -> dict[str, Any]:
    """Return the Finesse tiles a view's row shows face up, to explain them ({} without)."""
    fin = credits(view)
    if fin is None:
        return {}
    out = {}
    for tid in fin.row_ids():
        if tid is None:
            continue
        out[tid] = tile_json(next(t for t in fin.tileset.tiles if t.id == tid))
    return out


def seat_data(session: Any, seat: int) -> dict[str, Any]:
    """Return the viewer's data (``view.view_data``'s shape) of the game so far as ``seat``
    sees it: each step's state is the seat's view (``GameState.view``), so the page holds no
    deck order, no other seat's face-down pile or points (unless known), no face-down Finesse
    tile, and not the seed (which deals the decks again)."""
    record = session.record()
    raw_actions = record.get("actions", [])
    views = [step.state.view(seat) for step in session.steps]
    states = [seen_json(v) for v in views]
    steps: list[dict[str, Any]] = []
    for k, step in enumerate(session.steps[1:], start=1):
        said = events(states[k - 1], states[k])
        for q, (b, a) in enumerate(
            zip(states[k - 1]["players"], states[k]["players"], strict=True)
        ):
            gained = len(a["completed"]) - len(b["completed"])
            if a["completed"][-1:] == [UNSEEN] and gained > 0:
                said.insert(0, f"seat {q} completes {gained} puzzle{'s' * (gained > 1)}")
        row: dict[str, Any] = {
            "player": step.seat,
            "text": views[k].describe(step.action),
            "events": said,
        }
        seconds = seconds_of(raw_actions[k - 1]) if k - 1 < len(raw_actions) else None
        if seconds is not None:
            row["seconds"] = seconds
        steps.append(row)
    rules = session.rules
    game = {
        "players": rules.players,
        "variant": rules.variant,
        "difficulty": rules.difficulty if rules.solo else None,
        "expansions": sorted(rules.expansions),
        "endless": rules.endless_white_deck,
        "seed": None,
        "seats": list(session.names),
        "first_player": session.state.first_player,
        "result": None,
        "rules": rules.to_json(),
    }
    return {
        "format": "projectl-view/1",
        "game": game,
        "catalogue": catalogue_json(rules.catalogue),
        "tiles": _face_up_tiles(views[0]),
        "steps": steps,
        "states": [states[0]] + [delta(states[i - 1], states[i]) for i in range(1, len(states))],
    }


def seat_page(session: Any, token: str) -> str:
    """Return the page of ``session``'s game now, for the page holding ``token``.

    While the game runs, the page is drawn from what the person's seat may see (``seat_data``;
    the win chances from it too, ``Session.chances``) and offers no link to the record (it
    holds the deal); once the game is over, the viewer's page of the whole record, as
    ``projectl-sim view`` shows it."""
    if session.over:
        record = session.record()
        data = view_data(record, session.rules.catalogue, session.rules.finesse_tiles)
    else:
        data = seat_data(session, session.viewer)
    data["chances"] = session.chances()  # the viewer's graph, its cursor at the last step
    page = page_html(data)
    panel = PANEL.replace("<!--record-->\n", RECORD_LINK if session.over else "")
    seat = {
        "token": token,
        "humans": sorted(session.humans),
        "step": len(data["steps"]),
        "choices": session.choices(),
    }
    to_last = f'<script>history.replaceState(null, "", "#{seat["step"]}");</script>\n'
    parts = {
        "</head>": f"<style>\n{_asset('seat.css')}</style>\n</head>",
        "</header>\n": "</header>\n" + panel,
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
