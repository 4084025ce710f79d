"""A seat in the browser: ``projectl-sim play --web`` serves a page where a person plays bots.

``session`` plays the game (the person's actions checked by the engine, the bots' turns, undo
by replaying the record, the record written as it grows), ``page`` draws it with the replay
viewer's page and adds the seat's panel and script (``seat.js``, ``seat.css``), ``server``
serves it on the loopback interface (the standard library's ``http.server``; why: there),
``hint`` asks the ``value`` bot what it would play.
"""

from projectl_sim.web.server import SeatServer, loopback_host
from projectl_sim.web.session import Session

__all__ = ["SeatServer", "Session", "loopback_host"]
