"""Requests from the table's own page only (``ServedHere``, an ASGI middleware).

Another site's page in the person's browser can send requests to the table: a form or ``text/plain``
POST needs no permission from the server, and a name that the other site points at this machine
(DNS rebinding) makes its page same-origin with the table. So every request must be addressed to a
name the server is served at (``Host``), a request a page sends must come from the table's own page
(``Origin``), and a POST must be ``application/json`` (which a page can send to another site only
with the server's consent, never given here). A refusal is ``{"error": ...}`` with the reason.
"""

from __future__ import annotations

from collections.abc import Iterable
from urllib.parse import urlsplit

from starlette.datastructures import Headers
from starlette.responses import JSONResponse
from starlette.types import ASGIApp, Receive, Scope, Send

#: The names of this machine that every table answers to.
LOCAL_NAMES = ("127.0.0.1", "localhost", "::1")


def split_host(value: str) -> tuple[str, int | None] | None:
    """``("name", port)`` of a ``Host`` header (``[::1]:8000`` is ``("::1", 8000)``); ``None`` if malformed."""
    value = value.strip().lower()
    if value.startswith("["):
        name, bracket, rest = value[1:].partition("]")
        if not bracket:
            return None
    else:
        name, colon, port = value.partition(":")
        rest = colon + port
    if not rest:
        return name, None
    if rest[0] != ":" or not rest[1:].isdigit() or len(rest) > 6:
        return None
    return name, int(rest[1:])


class ServedHere:
    """Refuse (403) requests addressed to another name or port than the table's (``names`` besides
    ``LOCAL_NAMES``; any port when ``port`` is ``None``) or sent by another site's page, and (415) POSTs
    whose body is not declared ``application/json``."""

    def __init__(self, app: ASGIApp, names: Iterable[str] = (), port: int | None = None) -> None:
        self.app = app
        self.names = {n.strip("[]").lower() for n in (*LOCAL_NAMES, *names)}
        self.port = port

    def refusal(self, method: str, headers: Headers) -> tuple[str, int] | None:
        """Why a request with these ``headers`` is refused, and the status; ``None``: it is not."""
        host = headers.get("host", "")
        split = split_host(host)
        if split is None or split[0] not in self.names:
            shown = host[:80] or "no Host header"
            return (
                f"This table answers requests addressed to {', '.join(sorted(self.names))}, not to {shown!r}: "
                "start hearts serve with --allow-host NAME to serve it under another name.",
                403,
            )
        if self.port is not None and (split[1] or 80) != self.port:
            return f"This table is served on port {self.port}, not {split[1] or 80} ({host[:80]!r}).", 403
        origin = headers.get("origin")
        if origin is not None:
            parts = urlsplit(origin[:200])
            if parts.scheme not in ("http", "https") or parts.netloc.lower() != host.strip().lower():
                return f"Requests from another site's page are refused (Origin {origin[:80]!r}).", 403
        if method == "POST":
            kind = headers.get("content-type", "").partition(";")[0].strip().lower()
            if kind != "application/json":
                shown = kind[:60] or "none"
                return f"A POST body must be application/json (Content-Type: {shown}).", 415
        return None

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            refused = self.refusal(scope["method"], Headers(scope=scope))
            if refused is not None:
                message, status = refused
                await JSONResponse({"error": message}, status_code=status)(scope, receive, send)
                return
        await self.app(scope, receive, send)
