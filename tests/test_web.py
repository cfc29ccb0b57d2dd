"""The web table through its HTTP interface (no browser): whole games of several presets with every
special decision, what the browser may see, refusals, many games at once, records and replays."""

from __future__ import annotations

import argparse
import json
import os
import random
from concurrent.futures import ThreadPoolExecutor

import pytest

if not os.environ.get("CI"):  # in CI the web extra is installed: a missing one fails the import below
    pytest.importorskip("starlette")
    pytest.importorskip("httpx")

from starlette.testclient import TestClient

from hearts_env.core import Rules, load_record, replay_record
from hearts_env.core.actions import (
    CHOOSE_HOLD,
    LEAD_HEART,
    MOON_ADD,
    MOON_SUBTRACT,
    PASS_FROM_HAND,
    PASS_THROUGH,
    VOID_DEAL,
)
from hearts_env.core.cards import card_name, card_symbol, cards_of, parse_card
from hearts_env.core.deal import DONE
from hearts_env.narrate.narrator import illegal_reason
from hearts_env.obs import seat_view
from hearts_env.web import cli
from hearts_env.web.game import STYLE, GameSetup
from hearts_env.web.server import create_app


@pytest.fixture
def app(tmp_path):
    return create_app(tmp_path / "records")


BASE = "http://127.0.0.1:8000"  # the table answers requests addressed to this machine only


@pytest.fixture
def client(app):
    with TestClient(app, base_url=BASE) as c:
        yield c


def new_game(client, **form):
    r = client.post("/api/games", json={"bots": ["heuristic"], "seed": 1, **form})
    assert r.status_code == 200, r.text
    return r.json()


# ---------------------------------------------------------------------------------------------
# What the browser may see
# ---------------------------------------------------------------------------------------------


def hidden_cards(game) -> set[int]:
    """The cards the browser must not be told of now: other seats' cards the viewer has not seen
    (a spectator with hidden hands: every hand), and the kitty, which stays face down."""
    deal = game.deal
    n = deal.num_players
    if game.human is None:
        if game.show_hands:
            return set()
        return {c for p in range(n) for c in cards_of(deal.hands[p])} | set(deal.kitty_cards)
    view = seat_view(deal, game.human, game.match)
    known = {c for c, _ in view.passed} | set(view.forwarded)
    out = {c for p in range(n) if p != game.human for c in cards_of(deal.hands[p])} - known
    return out | set(deal.kitty_cards)


def check_no_leak(app, response) -> None:
    state = response.json()
    if "id" not in state:
        return
    game = app.state.store._games[state["id"]]
    text = json.dumps({k: v for k, v in state.items() if k != "id"}, ensure_ascii=False)
    for card in hidden_cards(game):
        assert f'"{card_name(card)}"' not in text, f"{card_name(card)} leaked: {text[:2000]}"
        assert card_symbol(card) not in text, f"{card_symbol(card)} leaked: {text[:2000]}"


class Player:
    """Plays the person's seat through the HTTP interface with random legal choices, checking every
    message for hidden cards, and counting the decisions met."""

    def __init__(self, app, client, seed: int = 0, prefer: dict[int, int] | None = None) -> None:
        self.app = app
        self.client = client
        self.rng = random.Random(seed)
        self.seen: dict[str, int] = {}
        self.actions: set[int] = set()
        self.prefer = prefer or {}

    def send(self, path: str, body) -> dict:
        r = self.client.post(path, json=body)
        assert r.status_code == 200, r.text
        check_no_leak(self.app, r)
        return r.json()

    def step(self, state: dict) -> dict:
        gid = state["id"]
        if state["your_turn"]:
            d = state["decision"]
            self.seen[d["kind"]] = self.seen.get(d["kind"], 0) + 1
            if d["kind"] == "menu":
                legal = [c["action"] for c in d["choices"]]
                self.actions.update(legal)
                choice = next((self.prefer[a] for a in legal if a in self.prefer), None)
                actions = [choice if choice in legal else self.rng.choice(legal)]
            elif d["kind"] == "pass":
                actions = self.rng.sample(d["legal"], d["count"])
            else:
                actions = [self.rng.choice(d["legal"])]
            return self.send(f"/api/games/{gid}/act", {"seat": state["seat"], "actions": actions})
        return self.send(f"/api/games/{gid}/advance", {"steps": 1 + self.rng.randrange(5)})

    def play(self, state: dict, limit: int = 20_000) -> dict:
        if self.app is not None:  # the first message too
            check_no_leak(self.app, self.client.get(f"/api/games/{state['id']}"))
        for _ in range(limit):
            if state["finished"]:
                return state
            state = self.step(state)
        raise AssertionError("the game did not finish")


def check_record(client, app, state) -> None:
    """The finished game's record downloads, replays to the same totals and was saved to the folder."""
    r = client.get(f"/api/games/{state['id']}/record")
    assert r.status_code == 200
    assert "attachment" in r.headers["content-disposition"]
    match = replay_record(r.json())
    assert list(match.totals) == state["totals"]
    saved = app.state.store.records_dir / state["record_file"]
    assert replay_record(load_record(saved)).totals == match.totals
    frames = client.get(f"/api/records/{state['record_file']}").json()["frames"]
    assert frames[-1]["totals"] == state["totals"]
    # a replay shows every hand: the first frame of the first deal holds the dealt hands
    first = match.history[0].deal if match.history else match.deal
    assert frames[0]["hands"] == [[card_name(c) for c in cards_of(h)] for h in first.dealt_hands]


# ---------------------------------------------------------------------------------------------
# Whole games
# ---------------------------------------------------------------------------------------------

PRESET_GAMES = [
    ("standard", {}, 4),
    ("omnibus", {"allow_pass_through": True, "pass_cycle": ["dealer_choice", "left"]}, 4),
    ("omnibus_hoyle", {}, 4),
    ("pagat_main", {"all_hearts_leader_unbroken": "leader_may_void"}, 4),
    ("five_player", {}, 5),
    ("three_player_kitty", {}, 3),
]


@pytest.mark.parametrize(("preset", "settings", "players"), PRESET_GAMES)
def test_whole_match_through_the_interface(app, client, preset, settings, players):
    state = new_game(client, rules=preset, set=settings, bots=["heuristic", "random"], seed=11, seat=1)
    assert state["num_players"] == players and state["seat"] == 1 and state["mode"] == "play"
    player = Player(app, client, seed=5)
    final = player.play(state)
    assert final["finished"] and final["winners"]
    assert len(final["history"]) >= 2
    assert final["totals"] == final["history"][-1]["totals"]
    assert {"pass", "play"} <= set(player.seen) or preset == "five_player"
    if preset == "omnibus":  # dealer's choice and the pass-through declaration, as buttons
        assert CHOOSE_HOLD in player.actions
        assert {PASS_FROM_HAND, PASS_THROUGH} <= player.actions
    check_record(client, app, final)


def scripted_moon_deal() -> dict:
    """Seat 0 holds A♣ and the hearts 3..A: it takes the first (club) trick, then holds only
    hearts before they are broken (void the deal, or lead a heart), and if it leads it takes every
    trick: the moon."""
    hands = [
        "AC 3H 4H 5H 6H 7H 8H 9H TH JH QH KH AH",
        "2C 3C 4C 5C 2D 3D 4D 5D 6D 7D 8D 9D TD",
        "6C 7C 8C 9C JD QD KD AD 2S 3S 4S 5S 6S",
        "TC JC QC KC 7S 8S 9S TS JS QS KS AS 2H",
    ]
    return {"seed": 1, "hands": [h.split() for h in hands]}


@pytest.mark.parametrize("moon", [MOON_SUBTRACT, MOON_ADD])
def test_void_the_deal_then_shoot_the_moon_and_choose(app, client, moon):
    store = app.state.store
    rules = Rules.load("pagat_main", pass_cycle=["hold"], all_hearts_leader_unbroken="leader_may_void")
    setup = GameSetup(
        rules,
        "pagat_main",
        ("", "heuristic", "heuristic", "heuristic"),
        0,
        True,
        3,
        scripted_deals=(scripted_moon_deal(), scripted_moon_deal()),
    )
    game = store.create(setup)
    player = Player(app, client, prefer={VOID_DEAL: VOID_DEAL, moon: moon})
    state = client.get(f"/api/games/{game.id}").json()
    while not state["finished"] and game.match.history == []:
        state = player.step(state)
    assert game.match.history[0].deal.cancelled  # voided: dealt again
    player.prefer = {LEAD_HEART: LEAD_HEART, moon: moon}
    final = player.play(state)
    assert {VOID_DEAL, LEAD_HEART, MOON_SUBTRACT, MOON_ADD} <= player.actions
    assert [h["label"] for h in final["history"]] == ["(void)", "Deal 1"]
    expected = [-26, 0, 0, 0] if moon == MOON_SUBTRACT else [0, 26, 26, 26]
    assert final["totals"] == expected
    assert any("shot" in line for line in final["log"])
    check_record(client, app, final)


def test_spectate_with_hidden_hands_shows_no_hand(app, client):
    state = new_game(client, spectate=True, show_hands=False, bots=["heuristic", "random"], single_deal=True)
    assert state["seat"] is None and state["hands"] == {} and state["mode"] == "spectate"
    player = Player(app, client)
    final = player.play(state)
    assert player.seen == {}  # nothing was ever asked of the spectator
    assert final["deal_scores"] is not None
    check_record(client, app, final)
    shown = new_game(client, spectate=True, show_hands=True)
    assert sorted(len(v) for v in shown["hands"].values()) == [13, 13, 13, 13]
    r = client.post(f"/api/games/{shown['id']}/act", json={"seat": 0, "actions": ["2C"]})
    assert r.status_code == 403 and "bots only" in r.json()["error"]


def test_fifty_games_at_once(app, client):
    """50 games from one client, played at the same time by 10 threads: every request of every game
    interleaved with the others'; every game completes, is saved, and replays to its totals."""
    presets = ["standard", "five_player", "three_player_kitty", "omnibus"]
    forms = [{"rules": presets[i % 4], "seed": i, "single_deal": True, "bots": ["random"]} for i in range(50)]

    def play(i: int) -> dict:
        state = new_game(client, **forms[i])
        return Player(app, client, seed=i).play(state)

    with ThreadPoolExecutor(10) as pool:
        games = list(pool.map(play, range(50)))
    assert len({g["id"] for g in games}) == 50
    assert all(g["finished"] and g["deal_scores"] is not None for g in games)
    saved = sorted(p.name for p in app.state.store.records_dir.glob("*.json"))
    assert saved == sorted(g["record_file"] for g in games)
    for g in games:
        assert list(replay_record(client.get(f"/api/games/{g['id']}/record").json()).totals) == g["totals"]


# ---------------------------------------------------------------------------------------------
# Refusals: a clear error, the game unchanged, the server alive
# ---------------------------------------------------------------------------------------------


def to_my_turn(client, state, kind="play"):
    player = Player(None, client)
    player.app = None
    for _ in range(2000):
        if state["your_turn"] and state["decision"]["kind"] == kind:
            return state
        if state["your_turn"]:
            state = client.post(
                f"/api/games/{state['id']}/act",
                json={
                    "seat": state["seat"],
                    "actions": random.Random(0).sample(state["decision"]["legal"], state["decision"].get("count", 1)),
                },
            ).json()
        else:
            state = client.post(f"/api/games/{state['id']}/advance", json={}).json()
    raise AssertionError(f"never reached a {kind} decision")


def refused(client, state, path, body, status, words):
    before = client.get(f"/api/games/{state['id']}").json()
    if isinstance(body, bytes):
        r = client.post(path, content=body, headers={"Content-Type": "application/json"})
    else:
        r = client.post(path, json=body)
    assert r.status_code == status, r.text
    error = r.json()["error"]
    for w in words:
        assert w in error, error
    after = client.get(f"/api/games/{state['id']}").json()
    assert after == before  # the game is unchanged
    return error


def test_bad_messages_are_refused(app, client):
    state = to_my_turn(client, new_game(client, seed=4), "pass")
    gid, act = state["id"], f"/api/games/{state['id']}/act"
    refused(client, state, act, b"{not json", 400, ["not valid JSON"])
    refused(client, state, act, b"[1, 2]", 400, ["JSON object"])
    refused(client, state, act, b"[" * 60_000, 400, ["nested too deeply"])  # the parser's recursion limit
    refused(client, state, act, b'{"seat": ' + b"9" * 5_000 + b"}", 400, ["not valid JSON"])  # int digit limit
    refused(client, state, act, {"seat": "0", "actions": ["2C"]}, 400, ["seat"])
    refused(client, state, act, {"seat": 0, "actions": "2C"}, 400, ["list"])
    refused(client, state, act, {"seat": 0, "actions": [True]}, 400, ["not an action"])
    refused(client, state, act, {"seat": 0, "actions": [{"card": 3}]}, 400, ["not an action"])
    refused(client, state, act, {"seat": 0, "actions": [999]}, 400, ["outside"])
    refused(client, state, act, {"seat": 0, "actions": ["ZZ"]}, 400, ["not a card"])
    refused(client, state, act, {"seat": 2, "actions": ["2C"]}, 403, ["seat 2 is not yours"])
    hand = state["hands"]["0"]
    other = next(card_name(c) for c in range(52) if card_name(c) not in hand)
    refused(client, state, act, {"seat": 0, "actions": [hand[0], hand[1], other]}, 400, ["You do not hold"])
    refused(client, state, act, {"seat": 0, "actions": [hand[0], hand[0], hand[1]]}, 400, ["same card twice"])
    refused(client, state, act, {"seat": 0, "actions": hand[:2]}, 400, ["Pass exactly 3 cards; you gave 2"])
    refused(client, state, f"/api/games/{gid}/advance", {"steps": "many"}, 400, ["steps"])
    refused(client, state, f"/api/games/{gid}/advance", {"steps": 10**9}, 400, ["steps"])
    assert client.get(f"/api/games/{gid}/record").status_code == 409  # the record shows every hand: not yet

    # an illegal card: the terminal's reason, word for word
    state = to_my_turn(client, client.get(f"/api/games/{gid}").json(), "play")
    game = app.state.store.get(gid)
    hand = state["hands"]["0"]
    illegal = [c for c in hand if c not in state["decision"]["legal"]]
    if not illegal:
        state = to_my_turn(
            client, client.post(act, json={"seat": 0, "actions": state["decision"]["legal"][:1]}).json(), "play"
        )
        illegal = [c for c in state["hands"]["0"] if c not in state["decision"]["legal"]]
    assert illegal, "pick a seed where the person holds an illegal card"
    reason = illegal_reason(game.deal, parse_card(illegal[0]), STYLE)
    assert refused(client, state, act, {"seat": 0, "actions": [illegal[0]]}, 400, []) == reason
    refused(client, state, act, {"seat": 0, "actions": state["decision"]["legal"][:2]}, 400, ["one card"])
    not_held = next(card_name(c) for c in range(52) if card_name(c) not in state["hands"]["0"])
    assert "do not hold" in refused(client, state, act, {"seat": 0, "actions": [not_held]}, 400, [])
    refused(client, state, act, {"seat": 0, "actions": [MOON_ADD]}, 400, ["Play a card"])

    # not the person's turn
    state = client.post(act, json={"seat": 0, "actions": state["decision"]["legal"][:1]}).json()
    if not state["your_turn"] and state["to_move"] is not None:
        refused(client, state, act, {"seat": 0, "actions": [state["hands"]["0"][0]]}, 409, ["not your turn"])

    # unknown games, forms and records
    for path in ("/api/games/nope", "/api/games/nope/act", "/api/games/nope/advance"):
        r = client.post(path, json={}) if path.endswith(("act", "advance")) else client.get(path)
        assert r.status_code == 404 and "Unknown game" in r.json()["error"]
    for form, words in [
        ({"rules": "nonsense"}, "unknown rules preset"),
        ({"rules": 3}, "unknown rules preset"),
        ({"players": 99}, "rules"),
        ({"players": "4"}, "players"),
        ({"set": {"no_such_option": 1}}, "rules"),
        ({"set": ["x"]}, "'set'"),
        ({"bots": ["nobody"]}, "unknown bot"),
        ({"bots": "heuristic"}, "'bots'"),
        ({"bots": ["random"] * 5}, "at most one bot per seat"),
        ({"seat": 7}, "'seat'"),
        ({"seed": -1}, "'seed'"),
        ({"spectate": "yes"}, "'spectate'"),
    ]:
        r = client.post("/api/games", json={"bots": ["heuristic"], **form})
        assert r.status_code == 400 and words in r.json()["error"], (form, r.text)
    assert client.get("/api/records/..%2F..%2Fetc%2Fpasswd").status_code == 404
    assert client.get("/api/records/missing.json").status_code == 404
    r = client.post("/api/replay", json={"format": "hearts-env/game-record", "version": 1})
    assert r.status_code == 422 and "does not replay" in r.json()["error"]
    big = b"x" * (5 * 1024 * 1024)
    assert client.post("/api/replay", content=big, headers={"Content-Type": "application/json"}).status_code == 413
    # the server is alive and the game goes on
    assert client.get(f"/api/games/{gid}").status_code == 200
    assert client.get("/").status_code == 200 and "Hearts" in client.get("/").text
    assert client.get("/static/app.js").status_code == 200


def test_bounded_and_expiring(tmp_path):
    app = create_app(None, max_games=3, idle_seconds=3600)
    with TestClient(app, base_url=BASE) as client:
        ids = [new_game(client, seed=i)["id"] for i in range(3)]
        r = client.post("/api/games", json={"seed": 9})
        assert r.status_code == 503 and "too many games" in r.json()["error"]
        app.state.store.idle_seconds = 0  # every game is now idle past the limit
        new = new_game(client, seed=10)
        assert new["id"] not in ids and len(app.state.store) == 1
        assert client.get(f"/api/games/{ids[0]}").status_code == 404
        assert new["record_file"] is None  # no records folder: nothing saved


def test_options_and_uploaded_replay(app, client, tmp_path):
    options = client.get("/api/options").json()
    # the seat menu is the roster, labelled with what each bot is and its speed; seats default to `strongest`
    from hearts_env.bots import ROSTER

    assert options["bots"] == list(ROSTER) and options["default_bot"] == "strongest"
    menu = {b["name"]: b for b in options["bot_menu"]}
    assert set(menu) == set(ROSTER)
    assert [b["name"] for b in options["bot_menu"][:5]] == ["random", "heuristic", "pimc", "net", "strongest"]
    assert menu["strongest"]["label"].startswith("strongest: ") and menu["strongest"]["label"].endswith(" ms")
    assert menu["pimc"]["ms"] > menu["net"]["ms"] > 0
    # the "advanced" field's specs: every shipped model alone, under each guard combination, as the prior
    advanced = set(options["advanced_bots"])
    assert {"ppo-standard", "guard:base=ppo-robust", "pimc:prior=ppo-robust"} <= advanced
    assert {"guard:base=ppo-mixed,penalty=25", "guard:base=ppo-tuned,margin=1,threat=0.03"} <= advanced
    assert "guard:base=ppo-mixed-tuned,margin=1,threat=0.03,wins=2,shoot=2,bonus=1,critic=1" in advanced
    assert not advanced & set(ROSTER)  # the roster's names are in the menu
    # a game with no bots named seats the default; a roster name is accepted like any spec
    default = client.post("/api/games", json={"seed": 3, "single_deal": True}).json()
    assert "strongest" in json.dumps(default)
    assert (
        client.post("/api/games", json={"bots": ["net", "pimc-net"], "seed": 3, "single_deal": True}).status_code == 200
    )
    assert {p["name"] for p in options["presets"]} >= {"standard", "omnibus", "five_player"}
    final = Player(app, client).play(new_game(client, single_deal=True))
    record = client.get(f"/api/games/{final['id']}/record").json()
    frames = client.post("/api/replay", json=record).json()
    assert frames["status"] == "one deal"
    tricks = [f for f in frames["frames"] if f["trick_end"] and f["winner"] is not None]
    assert len(tricks) == 13 and all(len(f["trick"]) == 4 for f in tricks)
    assert frames["frames"][-1]["deal_scores"] == final["deal_scores"]
    names = [r["name"] for r in client.get("/api/records").json()["records"]]
    assert final["record_file"] in names
    record["totals"] = [1, 2, 3, 4]  # tampered
    assert client.post("/api/replay", json=record).status_code == 422


def test_serve_cli_parser_and_warning(capsys, monkeypatch):
    parser = argparse.ArgumentParser(prog="hearts")
    sub = parser.add_subparsers(dest="command")
    cli.add_serve_parser(sub)
    args = parser.parse_args(["serve"])
    assert (args.host, args.port, args.open) == ("127.0.0.1", 8000, False)
    assert cli.is_local("127.0.0.1") and cli.is_local("::1") and cli.is_local("localhost")
    assert not cli.is_local("0.0.0.0") and not cli.is_local("192.168.1.4")
    ran = {}
    monkeypatch.setattr("uvicorn.run", lambda app, host, port, **kw: ran.update(host=host, port=port, app=app))
    args = parser.parse_args(["serve", "--host", "0.0.0.0", "--port", "8123", "--records", "/tmp/x"])
    assert args.func(args) == 0
    out = capsys.readouterr()
    assert "anyone who can reach port 8123 can play" in out.err and "--allow-host" in out.err
    assert "http://127.0.0.1:8123/" in out.out
    assert (ran["host"], ran["port"]) == ("0.0.0.0", 8123)
    args = parser.parse_args(["serve", "--host", "0.0.0.0", "--port", "8123", "--allow-host", "hearts.lan"])
    args.func(args)
    assert "addressed as hearts.lan" in capsys.readouterr().err
    with TestClient(ran["app"], base_url="http://hearts.lan:8123") as lan:  # the names and port it is served at
        assert lan.get("/api/options").status_code == 200
        assert lan.get("/api/options", headers={"Host": "other.lan:8123"}).status_code == 403
        assert lan.get("/api/options", headers={"Host": "127.0.0.1:8123"}).status_code == 200
        assert lan.get("/api/options", headers={"Host": "127.0.0.1:8000"}).status_code == 403
    args = parser.parse_args(["serve", "--port", "8124"])
    args.func(args)
    assert "anyone" not in capsys.readouterr().err


def test_the_seed_is_sent_only_once_it_tells_nothing(app, client):
    """The seed deals every hand of the match: the person's table gets it only once the match is over,
    a spectator's only where every hand is shown anyway. A seed the server picks is drawn from the whole
    range (from a million seeds the person's own hand would pick out the one in use)."""
    state = new_game(client, single_deal=True, seed=8)
    assert state["seed"] is None
    final = Player(app, client, seed=3).play(state)
    assert final["finished"] and final["seed"] == 8
    assert new_game(client, spectate=True, show_hands=False, single_deal=True)["seed"] is None
    assert new_game(client, spectate=True, show_hands=True, seed=5)["seed"] == 5
    drawn = [app.state.store.get(new_game(client, seed=None)["id"]).seed for _ in range(4)]
    assert max(drawn) >= 2**40 and len(set(drawn)) == 4


def test_a_finished_deal_state_shows_only_public_cards(app, client):
    final = Player(app, client, seed=3).play(new_game(client, single_deal=True, seed=8))
    game = app.state.store.get(final["id"])
    assert game.deal.phase == DONE and final["deal_over"] and final["hands"] == {"0": []}


def test_a_deal_against_the_search_and_guarded_bots(app, client):
    """The web table seats the search bot, a moon-averse guarded model and the search with a model prior,
    and a deal against them plays to its end."""
    bots = ["guard:base=ppo-standard,penalty=25", "pimc", "pimc:prior=ppo-standard"]
    state = new_game(client, single_deal=True, bots=bots)
    final = Player(app, client, seed=3).play(state)
    assert final["finished"]
