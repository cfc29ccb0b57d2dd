"""The web table's HTTP interface: ``create_app()`` returns a Starlette app (plain JSON over HTTP).

    GET  /                          the page (static/index.html; static/ holds its CSS and JS)
    GET  /api/options               rule presets, bots, records in the records folder
    POST /api/games                 a new game: {"rules", "players", "set", "bots", "seat", "spectate",
                                    "show_hands", "single_deal", "seed"}  -> the game's state
    GET  /api/games/{id}            the state the browser may see
    POST /api/games/{id}/act        {"seat": s, "actions": ["QS"] or [66] or the cards to pass}
    POST /api/games/{id}/advance    {"steps": k}: up to k bot decisions (or the next deal)
    GET  /api/games/{id}/record     the finished game's record (the format of ``hearts play``)
    GET  /api/records               the records folder's game records, newest first
    GET  /api/records/{name}        one of them as replay frames
    POST /api/replay                an uploaded record as replay frames

Every refusal is ``{"error": "..."}`` with a 4xx status (a reason of at most ``MAX_ERROR``
characters, never a path of the server); the game is left as it was. What a client can read of a
match in progress is what its seat may know: the records of such matches are neither listed nor
served, and record names carry no seed. Requests come from the table's own page only
(``origin.ServedHere``); bodies are bounded (413) and must arrive within ``BODY_SECONDS`` (408).
A game's bots think in a worker thread while the game's ``turn`` is held; reading a game takes
neither, so a thinking bot holds up nothing but its own game's next move.
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Awaitable, Callable, Iterable
from pathlib import Path
from typing import Any, TypeVar

import anyio.to_thread
from anyio import CapacityLimiter
from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.middleware import Middleware
from starlette.requests import ClientDisconnect, Request
from starlette.responses import FileResponse, JSONResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from ..bots import (
    BONUS_CRITIC_OPTIONS,
    CRITIC_OPTIONS,
    MOON_AVERSE_PENALTY,
    SHOOTING_OPTIONS,
    TRUSTING_OPTIONS,
    WAITING_OPTIONS,
)
from ..bots.roster import DEFAULT_BOT, ROSTER, figures
from ..core import PRESET_DESCRIPTIONS, PRESETS, RecordError, Rules
from ..narrate.narrator import seat_names
from ..nets.store import shipped_models
from ..obs import MAX_SEATS
from .game import GameError, GameStore, WebGame, parse_setup
from .models import SharedModels
from .origin import ServedHere
from .records import list_records, read_record
from .replay import replay_frames

STATIC = Path(__file__).parent / "static"
MAX_UPLOAD = 4 * 1024 * 1024  # bytes: an uploaded record
MAX_FORM = 64 * 1024  # bytes: any other request
BODY_SECONDS = 10.0  # a request's body arrives within this, or the request is refused (408)
MAX_STEPS = 5000
MAX_ERROR = 400  # characters of an error message: it never repeats much of the request
GAME_THREADS = 32  # games whose bots think at once (one thread each); the others' moves wait their turn
LOG = logging.getLogger("hearts_env.web")
T = TypeVar("T")


def bot_choices() -> list[str]:
    """Every bot a game may seat: the roster's names (``hearts_env.bots.roster``), then the specs of the "advanced"
    field: ``random``, ``heuristic``, ``pimc``, every shipped model, alone, under each shipped guard combination
    (``hearts_env.bots.guard``: the plain guard, moon-averse ``penalty=25``, ``TRUSTING_OPTIONS``,
    ``WAITING_OPTIONS``, ``SHOOTING_OPTIONS``, ``CRITIC_OPTIONS``, ``BONUS_CRITIC_OPTIONS``) and as the search's
    prior (``pimc:prior=<model>``). Only these: a spec from a client never names a path or an unbounded budget."""
    models = shipped_models()
    guards = (TRUSTING_OPTIONS, WAITING_OPTIONS, SHOOTING_OPTIONS, CRITIC_OPTIONS, BONUS_CRITIC_OPTIONS)
    suffixes = ["", f",penalty={MOON_AVERSE_PENALTY}", *(f",{options}" for options in guards)]
    specs = [
        "heuristic",
        "random",
        "pimc",
        *models,
        *(f"guard:base={m}{suffix}" for suffix in suffixes for m in models),
        *(f"pimc:prior={m}" for m in models),
    ]
    return list(dict.fromkeys([*ROSTER, *specs]))


def bot_menu() -> list[dict[str, Any]]:
    """The seat menu: one entry per roster name, the main names first, each labelled with what it is and its
    milliseconds per decision (the model cards' figure on the standard rules)."""
    menu = []
    for name, entry in sorted(ROSTER.items(), key=lambda item: not item[1].main):
        ms = figures(name, "standard").ms_per_decision
        speed = "" if ms is None else f", {ms:.2g} ms" if ms < 10 else f", {ms:.0f} ms"
        menu.append({"name": name, "label": f"{name}: {entry.what}{speed}", "main": entry.main, "ms": ms})
    return menu


class Disconnected(Exception):
    """The client left before its request body arrived."""


def _error(message: str, status: int = 400, *, close: bool = False) -> JSONResponse:
    if len(message) > MAX_ERROR:
        message = message[: MAX_ERROR - 1] + "…"
    return JSONResponse({"error": message}, status_code=status, headers={"Connection": "close"} if close else None)


async def _body(request: Request, limit: int, seconds: float) -> dict[str, Any]:
    """The request's JSON object: at most ``limit`` bytes (413), all of it within ``seconds`` (408)."""
    too_large = GameError(f"The request is too large (more than {limit // 1024} KiB).", 413)
    declared = request.headers.get("content-length")
    if declared is not None and (not declared.isdigit() or int(declared) > limit):
        raise too_large
    chunks: list[bytes] = []
    size = 0
    try:
        async with asyncio.timeout(seconds):
            async for chunk in request.stream():
                size += len(chunk)
                if size > limit:
                    raise too_large
                chunks.append(chunk)
    except TimeoutError:
        raise GameError(f"The request body did not arrive within {seconds:g} s.", 408) from None
    except ClientDisconnect:
        raise Disconnected from None
    raw = b"".join(chunks)
    if not raw.strip():
        return {}
    try:
        data = json.loads(raw)
    except (json.JSONDecodeError, UnicodeDecodeError) as err:
        raise GameError(f"The request is not valid JSON: {str(err)[:120]}.") from None
    except RecursionError:
        raise GameError("The request is not valid JSON: nested too deeply.") from None
    except ValueError as err:  # an integer literal past Python's digit limit
        raise GameError(f"The request is not valid JSON: {str(err)[:120]}.") from None
    if not isinstance(data, dict):
        raise GameError("The request must be a JSON object.")
    return data


def create_app(
    records_dir: str | Path | None = None,
    *,
    max_games: int = 200,
    max_games_per_client: int = 20,
    idle_seconds: float = 3600.0,
    hosts: Iterable[str] = (),
    port: int | None = None,
    body_seconds: float = BODY_SECONDS,
) -> Starlette:
    """The web table. Finished games are saved to ``records_dir`` (none: not saved) and listed for replay.
    It answers requests addressed to this machine's loopback names and ``hosts`` (on ``port``; ``None``:
    any), at most ``max_games`` games in all and ``max_games_per_client`` in progress per client address."""
    folder = Path(records_dir).expanduser() if records_dir is not None else None
    models = SharedModels()
    store = GameStore(
        max_games=max_games,
        idle_seconds=idle_seconds,
        records_dir=folder,
        max_per_client=max_games_per_client,
        make=models.bot,
    )
    choices = bot_choices()
    menu = bot_menu()
    names = {str(n): {"play": seat_names(n, 0), "watch": seat_names(n, None)} for n in range(3, MAX_SEATS + 1)}
    presets = [
        {"name": p, "description": PRESET_DESCRIPTIONS[p], "num_players": Rules.load(p).num_players} for p in PRESETS
    ]
    game_threads = CapacityLimiter(GAME_THREADS)

    def guarded(handler: Callable[[Request], Awaitable[Response]]) -> Callable[[Request], Awaitable[Response]]:
        async def endpoint(request: Request) -> Response:
            try:
                return await handler(request)
            except GameError as err:
                if err.status == 408:
                    LOG.warning("hearts serve: %s %s: %s", request.method, request.url.path, err.message)
                return _error(err.message, err.status, close=err.status in (408, 413))
            except RecordError as err:
                return _error(f"This game record does not replay: {err}", 422)
            except Disconnected:
                LOG.warning(
                    "hearts serve: %s %s: the client disconnected before its request body arrived",
                    request.method,
                    request.url.path,
                )
                return Response(status_code=400)

        return endpoint

    async def in_turn(game: WebGame, work: Callable[[], T]) -> T:
        """``work`` on ``game`` in a worker thread, after the requests before it for the same game: the wait
        is on the event loop (it holds no thread), the thinking in the thread."""
        async with game.turn:
            return await anyio.to_thread.run_sync(work, limiter=game_threads)

    def body(request: Request, limit: int = MAX_FORM) -> Awaitable[dict[str, Any]]:
        return _body(request, limit, body_seconds)

    async def index(request: Request) -> Response:
        return FileResponse(STATIC / "index.html", headers={"Cache-Control": "no-cache"})

    async def options(request: Request) -> Response:
        listed = await run_in_threadpool(list_records, folder, store.live_records)
        return JSONResponse(
            {
                "presets": presets,
                "seat_names": names,  # the form's seat labels: the table's own naming
                "bots": list(ROSTER),  # the curated menu, by name
                "bot_menu": menu,
                "advanced_bots": [c for c in choices if c not in ROSTER],  # the "advanced" field's specs
                "default_bot": DEFAULT_BOT,
                "records": listed,
            }
        )

    async def new_game(request: Request) -> Response:
        data = await body(request)
        owner = request.client.host if request.client is not None else ""

        def create() -> WebGame:
            return store.create(parse_setup(data, choices), owner)

        game = await anyio.to_thread.run_sync(create, limiter=game_threads)
        return JSONResponse(game.snapshot)

    async def get_state(request: Request) -> Response:
        return JSONResponse(store.get(request.path_params["game_id"]).snapshot)

    async def act(request: Request) -> Response:
        game = store.get(request.path_params["game_id"])  # an unknown game is refused before the body is read
        data = await body(request)
        return JSONResponse(
            await in_turn(game, lambda: game.run(lambda: game.act(data.get("seat"), data.get("actions"))))
        )

    async def advance(request: Request) -> Response:
        game = store.get(request.path_params["game_id"])
        data = await body(request)
        steps = data.get("steps", 1)
        if isinstance(steps, bool) or not isinstance(steps, int) or not 1 <= steps <= MAX_STEPS:
            raise GameError(f"'steps' must be a whole number from 1 to {MAX_STEPS}.")
        return JSONResponse(await in_turn(game, lambda: game.run(lambda: game.advance(steps))))

    async def record(request: Request) -> Response:
        game = store.get(request.path_params["game_id"])
        data = await in_turn(game, game.record)
        name = game.record_path.name if game.record_path else f"hearts-{game.id[:8]}.json"
        return Response(
            json.dumps(data, indent=1) + "\n",
            media_type="application/json",
            headers={"Content-Disposition": f'attachment; filename="{name}"'},
        )

    async def records(request: Request) -> Response:
        return JSONResponse({"records": await run_in_threadpool(list_records, folder, store.live_records)})

    async def record_frames(request: Request) -> Response:
        name = request.path_params["name"]

        def frames() -> dict[str, Any]:
            record = read_record(folder, name, store.live_records)
            try:
                return replay_frames(record)
            except RecordError as err:
                raise GameError(f"The game record {name} does not replay: {err}", 422) from None

        return JSONResponse(await run_in_threadpool(frames))

    async def upload(request: Request) -> Response:
        data = await body(request, MAX_UPLOAD)
        return JSONResponse(await run_in_threadpool(replay_frames, data))

    routes = [
        Route("/", index),
        Route("/api/options", guarded(options)),
        Route("/api/games", guarded(new_game), methods=["POST"]),
        Route("/api/games/{game_id}", guarded(get_state)),
        Route("/api/games/{game_id}/act", guarded(act), methods=["POST"]),
        Route("/api/games/{game_id}/advance", guarded(advance), methods=["POST"]),
        Route("/api/games/{game_id}/record", guarded(record)),
        Route("/api/records", guarded(records)),
        Route("/api/records/{name}", guarded(record_frames)),
        Route("/api/replay", guarded(upload), methods=["POST"]),
        Mount("/static", StaticFiles(directory=STATIC), name="static"),
    ]
    app = Starlette(routes=routes, middleware=[Middleware(ServedHere, names=hosts, port=port)])
    app.state.store = store
    app.state.models = models
    return app
