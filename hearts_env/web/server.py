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

Every refusal is ``{"error": "..."}`` with a 4xx status; the game is left as it was.
"""

from __future__ import annotations

import json
import re
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
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
from ..core import PRESET_DESCRIPTIONS, PRESETS, RecordError, Rules, load_record
from ..narrate.narrator import seat_names
from ..nets.store import shipped_models
from ..obs import MAX_SEATS
from .game import GameError, GameStore, parse_setup
from .replay import replay_frames

STATIC = Path(__file__).parent / "static"
MAX_BODY = 4 * 1024 * 1024  # bytes: the largest request (an uploaded record)
MAX_STEPS = 5000
RECORD_NAME = re.compile(r"^[A-Za-z0-9._-]{1,200}\.json$")


def bot_choices() -> list[str]:
    """``random``, ``heuristic``, the ``pimc`` search, every shipped model, the shipped models with
    the moon guard (``guard:base=<model>``, ``hearts_env.bots.guard``), with the moon-averse guard
    (``guard:base=<model>,penalty=25``), with the guard that trusts its base
    (``guard:base=<model>,margin=1,threat=0.03``), with the guard that also waits for the seeker
    (``guard:base=<model>,margin=1,threat=0.03,wins=2``), with that guard shooting the moon where it can
    (``...,shoot=2``), that one with a search critic at every play (``...,critic=1``), also searching while the
    bonus card is unwon (``...,bonus=1,critic=1``), and as the search's prior (``pimc:prior=<model>``)."""
    models = shipped_models()
    guards = (TRUSTING_OPTIONS, WAITING_OPTIONS, SHOOTING_OPTIONS, CRITIC_OPTIONS, BONUS_CRITIC_OPTIONS)
    suffixes = ["", f",penalty={MOON_AVERSE_PENALTY}", *(f",{options}" for options in guards)]
    return [
        "heuristic",
        "random",
        "pimc",
        *models,
        *(f"guard:base={m}{suffix}" for suffix in suffixes for m in models),
        *(f"pimc:prior={m}" for m in models),
    ]


def _error(message: str, status: int = 400) -> JSONResponse:
    return JSONResponse({"error": message}, status_code=status)


async def _body(request: Request) -> dict[str, Any]:
    raw = b""
    async for chunk in request.stream():
        raw += chunk
        if len(raw) > MAX_BODY:
            raise GameError(f"The request is too large (more than {MAX_BODY // 1024 // 1024} MiB).", 413)
    if not raw.strip():
        return {}
    try:
        data = json.loads(raw)
    except (json.JSONDecodeError, UnicodeDecodeError) as err:
        raise GameError(f"The request is not valid JSON: {err}.") from None
    except RecursionError:
        raise GameError("The request is not valid JSON: nested too deeply.") from None
    except ValueError as err:  # an integer literal past Python's digit limit
        raise GameError(f"The request is not valid JSON: {str(err)[:120]}.") from None
    if not isinstance(data, dict):
        raise GameError("The request must be a JSON object.")
    return data


def create_app(
    records_dir: str | Path | None = None, *, max_games: int = 200, idle_seconds: float = 3600.0
) -> Starlette:
    """The web table. Finished games are saved to ``records_dir`` (none: not saved) and listed for replay."""
    folder = Path(records_dir).expanduser() if records_dir is not None else None
    store = GameStore(max_games=max_games, idle_seconds=idle_seconds, records_dir=folder)
    choices = bot_choices()
    names = {str(n): {"play": seat_names(n, 0), "watch": seat_names(n, None)} for n in range(3, MAX_SEATS + 1)}
    presets = [
        {"name": p, "description": PRESET_DESCRIPTIONS[p], "num_players": Rules.load(p).num_players} for p in PRESETS
    ]

    def guarded(handler: Callable[[Request], Awaitable[Response]]) -> Callable[[Request], Awaitable[Response]]:
        async def endpoint(request: Request) -> Response:
            try:
                return await handler(request)
            except GameError as err:
                return _error(err.message, err.status)
            except RecordError as err:
                return _error(f"This game record does not replay: {err}", 422)

        return endpoint

    async def index(request: Request) -> Response:
        return FileResponse(STATIC / "index.html", headers={"Cache-Control": "no-cache"})

    async def options(request: Request) -> Response:
        return JSONResponse(
            {
                "presets": presets,
                "seat_names": names,  # the form's seat labels: the table's own naming
                "bots": choices,
                "records": _records(folder),
                "records_dir": str(folder) if folder is not None else None,
            }
        )

    # The game work (bots thinking, replays) runs in worker threads, so one busy game does not hold
    # up the others; each game has its own lock.
    def created(data: dict[str, Any]) -> dict[str, Any]:
        game = store.create(parse_setup(data, choices))
        with game.lock:
            return game.state()

    def acted(game_id: str, data: dict[str, Any]) -> dict[str, Any]:
        game = store.get(game_id)
        with game.lock:
            game.act(data.get("seat"), data.get("actions"))
            return game.state()

    def advanced(game_id: str, steps: int) -> dict[str, Any]:
        game = store.get(game_id)
        with game.lock:
            game.advance(steps)
            return game.state()

    async def new_game(request: Request) -> Response:
        return JSONResponse(await run_in_threadpool(created, await _body(request)))

    async def get_state(request: Request) -> Response:
        game = store.get(request.path_params["game_id"])
        with game.lock:
            return JSONResponse(game.state())

    async def act(request: Request) -> Response:
        store.get(request.path_params["game_id"])  # an unknown game is refused before the body is read
        data = await _body(request)
        return JSONResponse(await run_in_threadpool(acted, request.path_params["game_id"], data))

    async def advance(request: Request) -> Response:
        store.get(request.path_params["game_id"])
        data = await _body(request)
        steps = data.get("steps", 1)
        if isinstance(steps, bool) or not isinstance(steps, int) or not 1 <= steps <= MAX_STEPS:
            raise GameError(f"'steps' must be a whole number from 1 to {MAX_STEPS}.")
        return JSONResponse(await run_in_threadpool(advanced, request.path_params["game_id"], steps))

    async def record(request: Request) -> Response:
        game = store.get(request.path_params["game_id"])
        with game.lock:
            data = game.record()
            name = game.record_path.name if game.record_path else f"hearts-{game.id[:8]}.json"
        return Response(
            json.dumps(data, indent=1) + "\n",
            media_type="application/json",
            headers={"Content-Disposition": f'attachment; filename="{name}"'},
        )

    async def records(request: Request) -> Response:
        return JSONResponse({"records": _records(folder)})

    async def record_frames(request: Request) -> Response:
        name = request.path_params["name"]
        if folder is None or not RECORD_NAME.match(name) or not (folder / name).is_file():
            raise GameError(f"No game record named {name[:60]!r} in the records folder.", 404)
        return JSONResponse(await run_in_threadpool(lambda: replay_frames(load_record(folder / name))))

    async def upload(request: Request) -> Response:
        data = await _body(request)
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
    app = Starlette(routes=routes)
    app.state.store = store
    return app


def _records(folder: Path | None, limit: int = 200) -> list[dict[str, Any]]:
    if folder is None or not folder.is_dir():
        return []
    files = [p for p in folder.glob("*.json") if p.is_file() and RECORD_NAME.match(p.name)]
    files.sort(key=lambda p: p.stat().st_mtime, reverse=True)
    return [{"name": p.name, "size": p.stat().st_size} for p in files[:limit]]
