"""The web table's defences, through its HTTP interface: what a client can read of a live match (no
seed, no hidden card, no live record, no server path), the event loop never waiting for a game,
cross-site requests refused, model bots sharing their networks, bounded games, bodies and error
messages, a body that never arrives, and the records folder read safely."""

from __future__ import annotations

import asyncio
import gc
import json
import logging
import os
import threading
import time
import tracemalloc

import pytest

if not os.environ.get("CI"):  # in CI the web extra is installed: a missing one fails the import below
    pytest.importorskip("starlette")
    pytest.importorskip("httpx")

from starlette.testclient import TestClient
from test_web import Player, hidden_cards

from hearts_env.core.cards import card_name, card_symbol
from hearts_env.nets.forward import NumpyPolicy
from hearts_env.web.server import create_app

BASE = "http://127.0.0.1:8000"  # the served address the requests are sent to (the Host header)
ORIGIN = "http://127.0.0.1:8000"


@pytest.fixture
def app(tmp_path):
    return create_app(tmp_path / "records")


@pytest.fixture
def client(app):
    with TestClient(app, base_url=BASE) as c:
        yield c


def new_game(client, **form):
    r = client.post("/api/games", json={"bots": ["heuristic"], **form})
    assert r.status_code == 200, r.text
    return r.json()


# ---------------------------------------------------------------------------------------------
# What a client can read of a live match
# ---------------------------------------------------------------------------------------------


class Spy:
    """A client that checks every body it receives while the match ``game_id`` is live: no seed that
    deals its hands (the match's, the current deal's), no card its seat may not know, no server path."""

    def __init__(self, app, client, secret_paths: list[str]) -> None:
        self.app, self.client, self.paths = app, client, secret_paths
        self.game_id: str | None = None
        self.bodies = 0

    def game(self):
        return self.app.state.store._games[self.game_id]

    def check(self, r) -> None:
        self.bodies += 1
        text = r.text
        for path in self.paths:
            assert path not in text, f"a server path in {r.url}: {text[:300]}"
        if self.game_id is None:
            return
        game = self.game()
        if game.finished:
            return
        for secret in (str(game.seed), str(game.deal.seed)):  # drawn from 2**63: no number says them by chance
            assert secret not in text, f"the seed {secret} in {r.url}: {text[:300]}"
        body = r.json()
        if isinstance(body, dict) and body.get("id") == self.game_id:
            text = json.dumps({k: v for k, v in body.items() if k != "id"}, ensure_ascii=False)
        else:
            text = json.dumps(body, ensure_ascii=False)
        for card in hidden_cards(game):
            assert f'"{card_name(card)}"' not in text, f"{card_name(card)} in {r.url}: {text[:300]}"
            assert card_symbol(card) not in text, f"{card_symbol(card)} in {r.url}: {text[:300]}"

    def get(self, path, **kw):
        r = self.client.get(path, **kw)
        self.check(r)
        return r

    def post(self, path, **kw):
        r = self.client.post(path, **kw)
        self.check(r)
        return r

    def look_around(self) -> None:
        """Everything else a client can ask for: the options, the records and each listed record's replay,
        and the live match's record by its file name (which the client should never learn)."""
        self.get("/api/options")
        listed = self.get("/api/records").json()["records"]
        for entry in listed:
            self.get(f"/api/records/{entry['name']}")
        game = self.game()
        if game.record_path is not None and not game.finished:
            assert game.record_path.name not in {entry["name"] for entry in listed}
            assert self.get(f"/api/records/{game.record_path.name}").status_code == 404
            assert self.get(f"/api/games/{game.id}/record").status_code == 409


class SpyPlayer(Player):
    """``Player`` through a ``Spy``, looking around after every move."""

    def send(self, path: str, body) -> dict:
        r = self.client.post(path, json=body)
        assert r.status_code == 200, r.text
        self.client.look_around()
        return r.json()


@pytest.mark.parametrize("form", [{}, {"spectate": True, "show_hands": False}])
def test_a_client_reads_no_seed_and_no_hidden_card_of_a_live_match(app, client, tmp_path, form):
    """A match of several deals played as a client (the server draws the seed): every body the client
    receives (states, options, the records list, every listed replay, the live record asked for by name)
    carries neither seed nor a card the seat may not know, nor the records folder's path; once the match
    is over its record is listed and replays."""
    spy = Spy(app, client, [str(tmp_path)])
    r = spy.post("/api/games", json={"bots": ["heuristic", "random"], "set": {"game_end_threshold": 40}, **form})
    assert r.status_code == 200, r.text
    state = r.json()
    spy.game_id = state["id"]
    spy.get(f"/api/games/{state['id']}")
    spy.look_around()
    player = SpyPlayer(app, spy, seed=2)
    final = player.play(state)
    assert len(final["history"]) >= 2, "a match of one deal never saves a live record"
    assert spy.bodies > 100
    names = [entry["name"] for entry in client.get("/api/records").json()["records"]]
    assert names == [final["record_file"]]
    assert str(final["seed"]) not in final["record_file"]  # the name never carries the seed
    frames = client.get(f"/api/records/{names[0]}").json()["frames"]
    assert frames[-1]["totals"] == final["totals"]


def test_a_failed_save_does_not_name_the_server_path(tmp_path):
    blocked = tmp_path / "not-a-folder"
    blocked.write_text("a file where the records folder should be")
    app = create_app(blocked)
    with TestClient(app, base_url=BASE) as client:
        final = Player(app, client).play(new_game(client, single_deal=True, seed=3))
        assert final["record_file"] is None and final["record_error"]
        assert str(tmp_path) not in final["record_error"] and "not-a-folder" not in final["record_error"]
        assert str(tmp_path) not in client.get("/api/options").text


# ---------------------------------------------------------------------------------------------
# The event loop never waits for a game
# ---------------------------------------------------------------------------------------------


class SlowBot:
    """A bot that thinks for ``delay`` seconds before each decision."""

    def __init__(self, bot, delay: float, started: threading.Event) -> None:
        self.bot, self.delay, self.started = bot, delay, started

    def act(self, observation):
        self.started.set()
        time.sleep(self.delay)
        return self.bot.act(observation)


def timed(call):
    start = time.monotonic()
    r = call()
    return r, time.monotonic() - start


def test_a_slow_bot_holds_up_only_its_own_game(app, client):
    """While bots think through a long ``/advance`` of one game, that game's state, the options, the
    records and another game (its state and its moves) are answered at once; a second move for the busy
    game waits its turn without holding anything else up."""
    slow = new_game(client, spectate=True, seed=1)
    other = new_game(client, seed=2)
    game = app.state.store.get(slow["id"])
    started = threading.Event()
    game.bots = {seat: SlowBot(bot, 0.25, started) for seat, bot in game.bots.items()}
    results: dict[str, tuple] = {}

    def run(key, call):
        results[key] = timed(call)

    advance = threading.Thread(
        target=run, args=("advance", lambda: client.post(f"/api/games/{slow['id']}/advance", json={"steps": 12}))
    )
    advance.start()
    assert started.wait(10)
    readers = [
        threading.Thread(target=run, args=("same state", lambda: client.get(f"/api/games/{slow['id']}"))),
        threading.Thread(
            target=run,
            args=("same advance", lambda: client.post(f"/api/games/{slow['id']}/advance", json={"steps": 1})),
        ),
    ]
    for t in readers:
        t.start()
    time.sleep(0.1)  # both are waiting on the busy game now (on the old code: the event loop itself)
    quick = {
        "options": timed(lambda: client.get("/api/options")),
        "records": timed(lambda: client.get("/api/records")),
        "other state": timed(lambda: client.get(f"/api/games/{other['id']}")),
        "other advance": timed(lambda: client.post(f"/api/games/{other['id']}/advance", json={"steps": 1})),
    }
    advance.join(30)
    for t in readers:
        t.join(30)
    assert results["advance"][1] >= 1.9  # the game was busy all along (until the advance's two-second budget)
    quick["same state"] = results["same state"]
    for key, (r, seconds) in quick.items():
        assert r.status_code == 200, (key, r.text)
        assert seconds < 1.0, f"{key} took {seconds:.2f} s while another game's bot was thinking"
    assert results["same advance"][0].status_code == 200  # it waited its turn, then moved
    assert results["same advance"][0].json()["version"] > results["advance"][0].json()["version"]


# ---------------------------------------------------------------------------------------------
# Cross-site requests
# ---------------------------------------------------------------------------------------------


def test_cross_site_requests_are_refused(app, client):
    form = json.dumps({"bots": ["heuristic"], "seed": 1})
    for kind in ("text/plain", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x", None):
        headers = {"Content-Type": kind} if kind else {}
        r = client.post("/api/games", content=form, headers=headers)
        assert r.status_code == 415, (kind, r.text)
        assert "application/json" in r.json()["error"]
    r = client.post("/api/games", content=form, headers={"Content-Type": "application/json; charset=utf-8"})
    assert r.status_code == 200, r.text
    for headers, words in [
        ({"Host": "evil.example"}, "evil.example"),  # a page that rebinds its name to this machine
        ({"Host": "127.0.0.1.evil.example:8000"}, "127.0.0.1.evil.example"),
        ({"Origin": "http://evil.example"}, "evil.example"),  # another site's page
        ({"Origin": "http://127.0.0.1:9999"}, "127.0.0.1:9999"),  # another port: another site
        ({"Origin": "null"}, "null"),
    ]:
        for method, path in (("POST", "/api/games"), ("GET", "/api/options"), ("GET", "/api/records")):
            r = client.request(
                method, path, json={"bots": ["heuristic"]} if method == "POST" else None, headers=headers
            )
            assert r.status_code == 403, (headers, path, r.text)
            assert words in r.json()["error"], r.json()
    assert len(app.state.store) == 1
    r = client.post("/api/games", json={"bots": ["heuristic"]}, headers={"Origin": ORIGIN})  # the page itself
    assert r.status_code == 200, r.text
    with TestClient(app, base_url="http://localhost:8000") as local:
        assert local.get("/api/options").status_code == 200
    served = create_app(None, hosts=["hearts.lan"], port=8000)
    with TestClient(served, base_url="http://hearts.lan:8000") as lan:
        assert lan.post("/api/games", json={}, headers={"Origin": "http://hearts.lan:8000"}).status_code == 200
        assert lan.get("/api/options", headers={"Host": "hearts.lan:8001"}).status_code == 403


# ---------------------------------------------------------------------------------------------
# Memory: shared networks, bounded games
# ---------------------------------------------------------------------------------------------

MODEL_BOTS = [
    "ppo-robust",
    "guard:base=ppo-mixed-tuned,margin=1,threat=0.03,wins=2,shoot=2,bonus=1,critic=1",
    "pimc:prior=ppo-robust",
    "guard:base=ppo-robust,penalty=25",
]


def policies_of(bot) -> list[NumpyPolicy]:
    found = []
    for part in (bot, getattr(bot, "base", None), getattr(bot, "prior", None)):
        policy = getattr(part, "policy", None)
        if isinstance(policy, NumpyPolicy):
            found.append(policy)
    return found


@pytest.mark.slow
def test_model_bots_share_their_networks(tmp_path):
    """Games of model, guarded and search bots hold one copy of each network between them: a game costs
    well under a megabyte more (a network is a few megabytes)."""
    app = create_app(None)
    with TestClient(app, base_url=BASE) as client:
        first = new_game(client, spectate=True, bots=MODEL_BOTS, single_deal=True)
        gc.collect()
        tracemalloc.start()
        try:
            ids = [new_game(client, spectate=True, bots=MODEL_BOTS, seed=i)["id"] for i in range(6)]
            gc.collect()
            per_game = tracemalloc.get_traced_memory()[0] / 6
        finally:
            tracemalloc.stop()
        assert per_game < 1.5e6, f"{per_game / 1e6:.1f} MB per game"
        games = [app.state.store.get(i) for i in (first["id"], *ids)]
        by_name: dict[str, set[int]] = {}
        for game in games:
            for seat, bot in game.bots.items():
                found = policies_of(bot)
                assert found, (seat, bot)
                for policy in found:
                    by_name.setdefault(policy.card.get("name"), set()).add(id(policy))
        assert set(by_name) == {"ppo-robust", "ppo-mixed-tuned"}
        assert all(len(copies) == 1 for copies in by_name.values()), by_name
        final = Player(app, client, seed=1).play(first)  # the shared networks play
        assert final["finished"]


def test_games_are_bounded_per_client_and_in_all():
    app = create_app(None, max_games=3, max_games_per_client=2)
    with TestClient(app, base_url=BASE, client=("10.0.0.1", 1000)) as one:
        new_game(one, seed=1)
        new_game(one, seed=2)
        r = one.post("/api/games", json={"seed": 3})
        assert r.status_code == 429 and "2 games in progress" in r.json()["error"], r.text
    with TestClient(app, base_url=BASE, client=("10.0.0.2", 1000)) as two:
        first = new_game(two, seed=4, single_deal=True)
        r = two.post("/api/games", json={"seed": 5})
        assert r.status_code == 503 and "table is full" in r.json()["error"], r.text
        Player(app, two).play(first)  # a finished game makes room: it is dropped first
        new_game(two, seed=6)


# ---------------------------------------------------------------------------------------------
# Bounded bodies and error messages
# ---------------------------------------------------------------------------------------------


def test_errors_repeat_little_of_the_input(app, client):
    state = new_game(client, seed=4)
    while not state["your_turn"]:
        state = client.post(f"/api/games/{state['id']}/advance", json={}).json()
    not_held = next(card_name(c) for c in range(52) if card_name(c) not in state["hands"]["0"])
    act = f"/api/games/{state['id']}/act"
    for actions in ([not_held] * 9000, [state["hands"]["0"][0], *[not_held] * 9000]):  # under the body bound
        r = client.post(act, json={"seat": 0, "actions": actions})
        assert r.status_code == 400 and len(r.content) < 1200, (r.status_code, len(r.content), r.text[:200])
    r = client.post("/api/games", json={"bots": ["x" * 60_000]})
    assert r.status_code == 400 and len(r.content) < 1200
    r = client.post("/api/games", json={"rules": "standard", "set": {"y" * 60_000: 1}})
    assert r.status_code == 400 and len(r.content) < 1200
    big = json.dumps({"seat": 0, "actions": [not_held] * 240_000}).encode()  # 1.2 MB
    r = client.post(act, content=big, headers={"Content-Type": "application/json"})
    assert r.status_code == 413 and len(r.content) < 300, r.text[:200]
    r = client.post(act, content=b"{}", headers={"Content-Type": "application/json", "Content-Length": str(10**9)})
    assert r.status_code == 413
    assert client.get(f"/api/games/{state['id']}").json()["version"] == state["version"]  # nothing happened


# ---------------------------------------------------------------------------------------------
# A body that never arrives
# ---------------------------------------------------------------------------------------------


def asgi_post(app, path: str, messages: list[dict], timeout: float) -> list[dict]:
    """``app`` called as a server would, with a request body that arrives as ``messages`` and then never
    any more; what the app sent back."""

    async def run() -> list[dict]:
        sent: list[dict] = []
        queue = list(messages)

        async def receive() -> dict:
            if queue:
                return queue.pop(0)
            await asyncio.sleep(3600)
            raise AssertionError("unreachable")

        async def send(message: dict) -> None:
            sent.append(message)

        scope = {
            "type": "http",
            "asgi": {"version": "3.0"},
            "http_version": "1.1",
            "method": "POST",
            "scheme": "http",
            "path": path,
            "raw_path": path.encode(),
            "query_string": b"",
            "root_path": "",
            "headers": [
                (b"host", b"127.0.0.1:8000"),
                (b"content-type", b"application/json"),
                (b"content-length", b"64"),
            ],
            "client": ("127.0.0.1", 5000),
            "server": ("127.0.0.1", 8000),
        }
        await asyncio.wait_for(app(scope, receive, send), timeout)
        return sent

    return asyncio.run(run())


def test_a_body_shorter_than_its_length_times_out(tmp_path):
    app = create_app(None, body_seconds=0.3)
    part = {"type": "http.request", "body": b'{"bots": ["heur', "more_body": True}
    start = time.monotonic()
    sent = asgi_post(app, "/api/games", [part], timeout=5)
    assert time.monotonic() - start < 3
    assert sent[0]["status"] == 408
    assert (b"connection", b"close") in sent[0]["headers"]
    assert b"did not arrive" in sent[1]["body"]
    assert len(app.state.store) == 0


def test_a_client_that_leaves_mid_body_is_one_log_line(caplog):
    app = create_app(None)
    part = {"type": "http.request", "body": b'{"bots": ["heur', "more_body": True}
    with caplog.at_level(logging.INFO):
        asgi_post(app, "/api/games", [part, {"type": "http.disconnect"}], timeout=5)  # nothing is raised
    lines = [r for r in caplog.records if r.name.startswith("hearts_env")]
    assert len(lines) == 1 and lines[0].exc_info is None, [r.getMessage() for r in caplog.records]
    assert "disconnected" in lines[0].getMessage()


# ---------------------------------------------------------------------------------------------
# The records folder
# ---------------------------------------------------------------------------------------------


def test_the_records_folder_serves_regular_files_only(app, client, tmp_path):
    final = Player(app, client).play(new_game(client, single_deal=True, seed=3))
    folder = app.state.store.records_dir
    good = folder / final["record_file"]
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.json").write_text(good.read_text())
    (folder / "linked.json").symlink_to(outside / "secret.json")
    (folder / "escape.json").symlink_to(outside)
    (folder / "folder.json").mkdir()
    (folder / "broken.json").write_text("{not json")
    (folder / "empty.json").write_text(json.dumps({"format": "hearts-env/game-record", "version": 1}))
    names = {entry["name"] for entry in client.get("/api/records").json()["records"]}
    assert names == {final["record_file"], "broken.json", "empty.json"}
    for name in ("linked.json", "escape.json", "folder.json", "missing.json", "..%2Foutside%2Fsecret.json"):
        r = client.get(f"/api/records/{name}")
        assert r.status_code == 404, (name, r.text)
        assert str(tmp_path) not in r.text
    for name in ("broken.json", "empty.json"):
        r = client.get(f"/api/records/{name}")
        assert r.status_code == 422 and name in r.json()["error"], r.text
        assert str(tmp_path) not in r.text
    assert client.get(f"/api/records/{final['record_file']}").status_code == 200


@pytest.mark.slow
def test_a_short_body_over_a_real_connection(caplog):
    """Through uvicorn: a body shorter than its Content-Length is answered 408 and the connection closed; a
    client that hangs up mid-body leaves one log line and no traceback."""
    import socket

    uvicorn = pytest.importorskip("uvicorn") if not os.environ.get("CI") else __import__("uvicorn")
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    app = create_app(None, body_seconds=0.5)
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="info"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not server.started:
        assert time.monotonic() < deadline, "the server did not start"
        time.sleep(0.05)
    head = (
        f"POST /api/games HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Type: application/json\r\n"
        "Content-Length: 100\r\n\r\n"
    ).encode()
    try:
        with caplog.at_level(logging.INFO):
            with socket.create_connection(("127.0.0.1", port), timeout=5) as conn:
                conn.sendall(head + b'{"bots": ["heur')
                start = time.monotonic()
                answer = b""
                while chunk := conn.recv(4096):  # the server closes the connection after its answer
                    answer += chunk
                assert time.monotonic() - start < 3
            assert answer.startswith(b"HTTP/1.1 408") and b"did not arrive" in answer, answer
            with socket.create_connection(("127.0.0.1", port), timeout=5) as conn:
                conn.sendall(head + b'{"bots": ["heur')
                time.sleep(0.1)
            time.sleep(0.3)  # the server notices the hang-up
        assert not any(r.exc_info for r in caplog.records), [r.getMessage() for r in caplog.records]
        left = [r for r in caplog.records if "disconnected" in r.getMessage()]
        assert len(left) == 1, [r.getMessage() for r in caplog.records]
    finally:
        server.should_exit = True
        thread.join(10)


def test_one_advance_holds_its_game_for_a_bounded_time(app, client):
    """However many steps a client asks for, one ``/advance`` stops after about two seconds of bot thinking
    (the page asks again), so a few clients cannot keep the table's bot threads busy for minutes."""
    game_id = new_game(client, spectate=True, seed=4)["id"]
    game = app.state.store.get(game_id)
    calls: list[int] = []

    class CountingBot(SlowBot):
        def act(self, observation):
            calls.append(1)
            return super().act(observation)

    game.bots = {seat: CountingBot(bot, 0.4, threading.Event()) for seat, bot in game.bots.items()}
    response, seconds = timed(lambda: client.post(f"/api/games/{game_id}/advance", json={"steps": 5000}))
    assert response.status_code == 200 and seconds < 4.0
    assert 1 <= len(calls) <= 8  # 5,000 asked for: the time budget stopped it


@pytest.mark.parametrize(
    ("flags", "named"),
    [("--port 0", "--port"), ("--port 70000", "--port"), ("--max-games 0", "--max-games"),
     ("--max-games-per-client 0", "--max-games-per-client")],
)  # fmt: skip
def test_limits_that_would_refuse_every_game_are_refused_at_start(flags, named, capsys):
    from hearts_env.web.cli import main

    assert main(flags.split()) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith(f"hearts serve: {named} must be") and len(err.splitlines()) == 1


def test_two_model_folders_with_the_same_weights_keep_their_own_names(tmp_path):
    """Sharing loaded networks never swaps a bot's name: the same weights under another card are another copy."""
    import shutil

    from hearts_env.core import Rules
    from hearts_env.nets.store import SHIPPED_MODELS_DIR
    from hearts_env.web.models import SharedModels

    twin = tmp_path / "twin"
    shutil.copytree(SHIPPED_MODELS_DIR / "ppo-tuned", twin)
    card = json.loads((twin / "model.json").read_text(encoding="utf-8"))
    (twin / "model.json").write_text(json.dumps({**card, "name": "twin"}), encoding="utf-8")
    shared, rules = SharedModels(), Rules.preset("standard")
    assert shared.bot("ppo-tuned", rules, 0).name == "ppo-tuned"
    assert shared.bot(str(twin), rules, 0).name == "twin"
    assert shared.bot("ppo-tuned", rules, 1).name == "ppo-tuned"
