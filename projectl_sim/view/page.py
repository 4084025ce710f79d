"""The replay viewer's page: one self-contained HTML file, its style, script and data inline.

The page needs no server and no network: open it from disk. Its script (``viewer.js``) and
style (``viewer.css``) live beside this module and are copied into the page; the game is a
JSON block (``view_data``) that the script reads when the page loads.
"""

from __future__ import annotations

import html
import json
from importlib import resources
from pathlib import Path
from typing import Any

from projectl_sim.catalogue import Catalogue
from projectl_sim.view.steps import view_data


def _asset(name: str) -> str:
    return resources.files("projectl_sim.view").joinpath(name).read_text(encoding="utf-8")


def title_of(data: dict[str, Any]) -> str:
    """Return the page's title: the variant, the players and the seed."""
    game = data["game"]
    if game["variant"] == "solo":
        who = f"solo ({game['difficulty']}) against the mastermind"
    else:
        who = f"{game['players']} players" + (
            ", Line Clear" if game["variant"] == "line_clear" else ""
        )
    extras = [*game["expansions"], *(["endless white deck"] if game["endless"] else [])]
    seed = f", seed {game['seed']}" if game["seed"] is not None else ""
    return f"Project L: {who}" + (f", {' + '.join(extras)}" if extras else "") + seed


def page_html(data: dict[str, Any]) -> str:
    """Return the viewer page of ``view_data``'s data."""
    # "</" would end the script element early: JSON allows the escaped form "<\/"
    blob = json.dumps(data, separators=(",", ":")).replace("</", "<\\/")
    title = html.escape(title_of(data))
    # the analysis board's win chances: a graph whose cursor follows the slider, and a link
    # saving the step shown as a position file
    chances = data.get("chances")
    graph = ""
    if chances is not None:
        save = '<a id="save-position" download="position.json">save this position</a>'
        graph = (
            '<section id="chances" aria-label="win chances"><h2>Win chances</h2>'
            '<p class="source"></p><svg id="chance-graph" role="img"></svg>'
            f'<p class="legend"></p>{save if "record" in chances else ""}</section>\n'
        )
    return (
        "<!DOCTYPE html>\n"
        '<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        f"<title>{title}</title>\n<style>\n{_asset('viewer.css')}</style>\n</head>\n"
        f'<body>\n<header><h1>{title}</h1><p id="seats"></p></header>\n'
        '<nav id="controls" aria-label="steps">\n'
        '<button id="first" title="the setup (Home)">|&#x25C0;</button>'
        '<button id="prev-turn" title="previous turn (Page Up, Shift+Left)">'
        "&#x25C0;&#x25C0;</button>"
        '<button id="prev" title="previous action (Left)">&#x25C0;</button>'
        '<button id="play" title="play or pause (Space)">play</button>'
        '<button id="next" title="next action (Right)">&#x25B6;</button>'
        '<button id="next-turn" title="next turn (Page Down, Shift+Right)">'
        "&#x25B6;&#x25B6;</button>"
        '<button id="last" title="the end (End)">&#x25B6;|</button>\n'
        '<input id="slider" type="range" min="0" value="0" aria-label="step">\n'
        '<span id="counter"></span>\n</nav>\n'
        '<section id="caption" aria-live="polite"></section>\n'
        f"{graph}"
        '<div id="main"><div id="board"></div><aside id="log"><h2>Actions</h2>'
        '<ol id="actions"></ol></aside></div>\n'
        f'<script id="game" type="application/json">{blob}</script>\n'
        f"<script>\n{_asset('viewer.js')}</script>\n</body>\n</html>\n"
    )


def write_view(
    record: dict[str, Any],
    path: str | Path,
    catalogue: Catalogue | None = None,
    finesse_tiles: Any = None,
    chances: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """Replay a record and write its viewer page to ``path``; return the page's data.

    ``chances`` (the analysis board's, ``board.winprob.view_chances``) adds the win-chance graph
    under the caption, its cursor at the slider's step: ``{"source": text, "seats": [chances of
    each step, one list per seat], "turning": [steps], "turn_ends": [steps]}``; with
    ``"record"`` (the record, no result) a link saves the step shown as a position file
    (``projectl-position/1``, ``board.position``).
    """
    data = view_data(record, catalogue, finesse_tiles)
    if chances is not None:
        data["chances"] = chances
    Path(path).write_text(page_html(data), encoding="utf-8")
    return data
