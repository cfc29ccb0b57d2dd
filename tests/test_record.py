"""Game records: JSON out, exact replay in, and every kind of damage refused with a reason."""

from __future__ import annotations

import copy
import json
import os
import random
import signal
from pathlib import Path

import pytest

from hearts_env import PRESETS, Match, RecordError, Rules
from hearts_env.core import load_record, record_of, replay_record, save_record
from hearts_env.core import record as record_module


def play(rules: Rules, seed: int, max_actions: int | None = None) -> Match:
    match = Match(rules, seed=seed)
    rng = random.Random(seed)
    count = 0
    while not match.is_terminal() and (max_actions is None or count < max_actions):
        match.apply_action(rng.choice(match.legal_actions()))
        count += 1
    return match


@pytest.mark.parametrize("preset", PRESETS)
def test_a_whole_match_replays_exactly(preset: str, tmp_path) -> None:
    """Every preset: save, load, replay; the replay reaches the same deals, totals and winners."""
    match = play(Rules.preset(preset), seed=11)
    path = save_record(match, tmp_path / "game.json")
    replayed = replay_record(load_record(path))
    assert replayed.over
    assert replayed.totals == match.totals
    assert replayed.winners == match.winners
    assert [s.scores for s in replayed.history] == [s.scores for s in match.history]
    assert [s.deal.actions for s in replayed.history] == [s.deal.actions for s in match.history]


def test_smoosh_deals_replay_through_the_recorded_seed() -> None:
    """The smoosh shuffle is fixed by the deal's seed, so a record of smoosh deals replays exactly."""
    rules = Rules(pass_cycle=["smoosh"], game_end_threshold=60)
    match = play(rules, seed=5)
    replayed = replay_record(json.loads(json.dumps(record_of(match))))
    for original, again in zip(match.history, replayed.history, strict=True):
        assert original.deal.received == again.deal.received


def test_an_unfinished_match_replays_to_the_same_point() -> None:
    match = play(Rules(), seed=3, max_actions=150)
    record = record_of(match)
    assert record["complete"] is False
    replayed = replay_record(record)
    assert not replayed.over
    assert replayed.deal.actions == match.deal.actions
    assert replayed.legal_actions() == match.legal_actions()


@pytest.fixture(scope="module")
def good_record() -> dict:
    return json.loads(json.dumps(record_of(play(Rules(), seed=8))))


def _tamper(record: dict, change) -> dict:
    bad = copy.deepcopy(record)
    change(bad)
    return bad


@pytest.mark.parametrize(
    ("change", "reason"),
    [
        (lambda r: r.update(format="something-else"), "not a game record"),
        (lambda r: r.update(version=99), "unsupported game record version"),
        (lambda r: r.pop("deals"), "missing field 'deals'"),
        (lambda r: r["rules"].update(num_players=9), "invalid rules"),
        (lambda r: r["deals"][0]["actions"].__setitem__(20, "ZZ"), "action 20"),
        (lambda r: r["deals"][0]["scores"].__setitem__(0, 99), "recorded scores"),
        (lambda r: r["deals"][0]["hands"][0].__setitem__(0, r["deals"][0]["hands"][1][0]), "dealt twice"),
        (lambda r: r["deals"][1].update(dealer=(r["deals"][1]["dealer"] + 1) % 4), "rotation"),
        (lambda r: r["deals"][1].update(pass_kind="hold"), "the cycle gives"),
        (lambda r: r.update(totals=[0, 0, 0, 0]), "totals"),
        (lambda r: r["deals"][-1]["actions"].append("2C"), "after the deal ended"),
        (lambda r: r.update(winners=[9]), "winners"),
    ],
)
def test_a_tampered_record_is_refused_with_the_reason(good_record: dict, change, reason: str) -> None:
    with pytest.raises(RecordError, match=reason):
        replay_record(_tamper(good_record, change))


def test_a_file_that_is_not_json_is_refused(tmp_path) -> None:
    path = tmp_path / "broken.json"
    path.write_text('{"format": "hearts-env/game-record", ', encoding="utf-8")
    with pytest.raises(RecordError, match="not JSON"):
        load_record(path)


@pytest.mark.parametrize(
    ("change", "field"),
    [
        (lambda r: r.update(winners=None), "'winners'"),
        (lambda r: r.update(winners=0), "'winners'"),
        (lambda r: r.update(winners="0"), "'winners'"),
        (lambda r: r.update(winners=[True]), "'winners'"),
        (lambda r: r.update(totals=None), "'totals'"),
        (lambda r: r.update(totals=[0, 0, "0", 0]), "'totals'"),
        (lambda r: r.update(complete="yes"), "'complete'"),
        (lambda r: r.update(version="1"), "version"),
        (lambda r: r["deals"][0].update(scores=None), "'scores'"),
        (lambda r: r["deals"][0].update(scores=[[0], 0, 0, 0]), "'scores'"),
        (lambda r: r["deals"][0].update(cancelled=None), "'cancelled'"),
        (lambda r: r["deals"][0].update(actions=[0] * 3), "'actions'"),
        (lambda r: r["deals"][0].update(actions="2C"), "'actions'"),
        (lambda r: r["deals"][0]["hands"].__setitem__(2, 7), "'hands'"),
        (lambda r: r["deals"][0]["hands"].__setitem__(2, "2C 3C"), "'hands'"),
        (lambda r: r["deals"][0]["hands"].__setitem__(2, {"2C": 1}), "'hands'"),
        (lambda r: r["deals"][0]["hands"][2].__setitem__(0, [1]), "not a card"),
        (lambda r: r["deals"][0].update(kitty=None), "'kitty'"),
    ],
)
def test_a_field_of_the_wrong_kind_is_a_record_error_naming_it(good_record: dict, change, field: str) -> None:
    """`winners` null or a number, a hand that is not a list, and the like: a ``RecordError`` naming the
    field, never a ``TypeError``."""
    with pytest.raises(RecordError, match=field):
        replay_record(_tamper(good_record, change))


def test_error_messages_of_records_stay_short(good_record: dict) -> None:
    """A huge value in a record is shown as a short prefix."""
    for change in (
        lambda r: r["deals"][0]["actions"].__setitem__(20, "Z" * 1_000_000),
        lambda r: r["deals"][0]["hands"][0].__setitem__(0, "Q" * 1_000_000),
        lambda r: r.update(totals=list(range(500_000))),
        lambda r: r.update(winners=list(range(500_000))),
        lambda r: r["deals"][1].update(pass_kind="x" * 1_000_000),
        lambda r: r.update(version="v" * 1_000_000),
    ):
        with pytest.raises(RecordError) as info:
            replay_record(_tamper(good_record, change))
        assert len(str(info.value)) < 600


def test_load_record_reads_regular_files_only(tmp_path) -> None:
    """A FIFO would block ``open`` forever, ``/dev/zero`` would be read until memory runs out, a
    directory is no record: each is refused with the reason, at once."""
    with pytest.raises(RecordError, match="not a regular file"):
        load_record(tmp_path)
    if Path("/dev/zero").exists():
        with pytest.raises(RecordError, match="not a regular file"):
            load_record("/dev/zero")
    if hasattr(os, "mkfifo") and hasattr(signal, "SIGALRM"):
        fifo = tmp_path / "game.json"
        os.mkfifo(fifo)

        def hung(signum, frame):
            raise AssertionError("load_record blocked on a FIFO")

        previous = signal.signal(signal.SIGALRM, hung)
        signal.alarm(10)
        try:
            with pytest.raises(RecordError, match="not a regular file"):
                load_record(fifo)
        finally:
            signal.alarm(0)
            signal.signal(signal.SIGALRM, previous)
    with pytest.raises(RecordError, match="cannot read game record"):
        load_record(tmp_path / "missing.json")


def test_load_record_has_a_byte_bound(tmp_path, monkeypatch, good_record: dict) -> None:
    """A record larger than ``MAX_RECORD_BYTES`` (64 MB) is refused unread, with the reason."""
    assert record_module.MAX_RECORD_BYTES == 64 << 20
    path = tmp_path / "game.json"
    path.write_text(json.dumps(good_record), encoding="utf-8")
    size = path.stat().st_size
    monkeypatch.setattr(record_module, "MAX_RECORD_BYTES", size - 1)
    with pytest.raises(RecordError, match=f"{size} bytes, more than the {size - 1}"):
        load_record(path)
    monkeypatch.setattr(record_module, "MAX_RECORD_BYTES", size)
    assert replay_record(load_record(path)).over


@pytest.mark.parametrize(
    ("content", "reason"),
    [
        (b'{"format": "caf\xe9"}', "not UTF-8"),
        (b"[" * 100_000 + b"]" * 100_000, "nested too deeply"),
        (b'{"version": ' + b"9" * 5000 + b"}", "too long to read"),
    ],
    ids=["latin-1", "deep", "5000 digits"],
)
def test_load_record_refuses_hostile_json(tmp_path, content: bytes, reason: str) -> None:
    path = tmp_path / "game.json"
    path.write_bytes(content)
    with pytest.raises(RecordError, match=reason):
        load_record(path)
