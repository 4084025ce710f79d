"""The web seat's server: the standard library's ``http.server``, on the loopback interface only.

Why the standard library (and not Starlette, aiohttp or Flask): the page is for one person on
their own machine, with a handful of routes (the page, an action, undo, a hint, leave) answered
one at a time under a lock, no streaming and no websockets; ``http.server`` is maintained with
Python itself, and a seat that needs no extra install works wherever the package does. What it
lacks for the open network is not needed here, and what a page on the loopback still needs is
done below: the server binds 127.0.0.1 (or another loopback address) and refuses any other; a
request naming another host (``Host``: a DNS-rebinding page) is refused; every change is a
POST carrying the page's token (a random string only the served page holds), which another
site's script can neither read nor send without a preflight this server never grants.

Routes: ``GET /`` the page (the game so far as the person's seat sees it, the seat's panel
and script: ``web.page``); ``GET /choices`` the person's options as JSON; ``GET /record`` the
record, once the game is over (it holds the deal, so not while the game runs); ``POST /act``
an action in its record form; ``POST /undo``; ``POST /hint``; ``POST /position`` writes the
position now; ``POST /leave`` stops the server. A refused
request gets a status and one line in ``error``.
"""

from __future__ import annotations

import errno
import ipaddress
import json
import secrets
import socket
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from projectl_sim.errors import ProjectLError, UsageError
from projectl_sim.web.page import seat_page
from projectl_sim.web.session import Session

LOOPBACK_NAMES = ("localhost",)
MAX_BODY = 1 << 20  # an action is a few hundred bytes


def loopback_host(host: str) -> str:
    """Return ``host`` if it is a loopback address or ``localhost``; raise ``UsageError``."""
    if host in LOOPBACK_NAMES:
        return "127.0.0.1"
    try:
        if ipaddress.ip_address(host).is_loopback:
            return host
    except ValueError:
        pass
    raise UsageError(
        f"--host {host}: the web seat serves on the loopback interface only (127.0.0.1, ::1 or "
        "localhost): it is a page for the person at this machine"
    )


class SeatServer(ThreadingHTTPServer):
    """The HTTP server of one ``Session`` (its lock makes the requests take turns); bound
    first, so a port in use is said before any game is dealt, then given its ``session``."""

    daemon_threads = True
    session: Session

    def __init__(self, host: str, port: int) -> None:
        self.lock = threading.Lock()
        self.token = secrets.token_urlsafe(16)
        self.left = threading.Event()
        if ":" in host:
            self.address_family = socket.AF_INET6
        try:
            super().__init__((host, port), _Handler)
        except OSError as exc:
            if exc.errno == errno.EADDRINUSE:
                raise UsageError(
                    f"--port {port}: the port is in use on {host} (another server, or another "
                    "game's page): choose another with --port, or --port 0 for any free one"
                ) from None
            raise UsageError(f"--port {port}: cannot serve on {host}: {exc.strerror}") from None

    @property
    def url(self) -> str:
        host, port = self.server_address[:2]
        shown = f"[{host}]" if ":" in str(host) else host
        return f"http://{shown}:{port}/"

    def hosts(self) -> set[str]:
        """Return the ``Host`` header values a request to this server may carry."""
        port = self.server_address[1]
        host = str(self.server_address[0])
        names = {host, "localhost", "127.0.0.1"} | ({f"[{host}]"} if ":" in host else set())
        return {f"{n}:{port}" for n in names}


class _Handler(BaseHTTPRequestHandler):
    server: SeatServer
    protocol_version = "HTTP/1.0"

    def log_message(self, format: str, *args: Any) -> None:
        pass  # the terminal stays for the command's own lines

    # -- answers -------------------------------------------------------------------------------
    def _send(self, status: int, body: bytes, kind: str) -> None:
        self.send_response(status)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Cache-Control", "no-store")
        self.send_header("X-Content-Type-Options", "nosniff")
        self.end_headers()
        self.wfile.write(body)

    def _json(self, status: int, value: Any) -> None:
        self._send(status, json.dumps(value).encode(), "application/json")

    def _refuse(self, status: int, message: str) -> None:
        self._json(status, {"error": message})

    def _host_ok(self) -> bool:
        if self.headers.get("Host", "") in self.server.hosts():
            return True
        self._refuse(403, "this page is served to the loopback address only")
        return False

    # -- routes ----------------------------------------------------------------------------------
    def do_GET(self) -> None:  # http.server's names
        if not self._host_ok():
            return
        srv = self.server
        with srv.lock:
            if self.path in ("/", "/index.html") or self.path.startswith("/?"):
                html = seat_page(srv.session, srv.token)
                self._send(200, html.encode(), "text/html; charset=utf-8")
            elif self.path == "/choices":
                self._json(200, srv.session.choices())
            elif self.path == "/favicon.ico":
                self._send(204, b"", "image/x-icon")  # none: the browser asks for it anyway
            elif self.path == "/record":
                if not srv.session.over:  # the record holds the deal: the decks' order
                    self._refuse(409, "the record is served once the game is over")
                else:
                    self._json(200, srv.session.record())
            else:
                self._refuse(404, f"no page {self.path}")

    def do_POST(self) -> None:
        if not self._host_ok():
            return
        srv = self.server
        if self.headers.get("X-Seat-Token") != srv.token:
            self._refuse(403, "this request does not come from the game's page (no token)")
            return
        try:
            length = int(self.headers.get("Content-Length") or 0)
        except ValueError:
            length = -1
        if not 0 <= length <= MAX_BODY:
            self._refuse(400, "a request body of 0 to 1 MB is expected")
            return
        raw = self.rfile.read(length)
        try:
            body = json.loads(raw) if raw else {}
        except (ValueError, RecursionError):
            self._refuse(400, "the request body is not JSON")
            return
        with srv.lock:
            try:
                if self.path == "/act":
                    if not isinstance(body, dict) or "action" not in body:
                        raise UsageError('expected {"action": an action in its record form}')
                    self._json(200, {"done": srv.session.act(body["action"])})
                elif self.path == "/undo":
                    self._json(200, {"done": srv.session.undo()})
                elif self.path == "/position":
                    self._json(200, {"done": str(srv.session.save_position())})
                elif self.path == "/hint":
                    self._json(200, srv.session.hint())
                elif self.path == "/leave":
                    self._json(200, {"done": "left"})
                    srv.left.set()
                    threading.Thread(target=srv.shutdown, daemon=True).start()
                else:
                    self._refuse(404, f"no action {self.path}")
            except ProjectLError as exc:
                self._refuse(400, str(exc))
