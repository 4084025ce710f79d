"""The replay viewer: a game record as one self-contained HTML page that steps through the game.

``view_data`` replays a record with the engine and keeps every state (``steps``); ``page_html``
and ``write_view`` make the page (``page``). ``projectl-sim view RECORD`` is the command.
"""

from projectl_sim.view.page import page_html, title_of, write_view
from projectl_sim.view.steps import catalogue_json, view_data

__all__ = ["catalogue_json", "page_html", "title_of", "view_data", "write_view"]
