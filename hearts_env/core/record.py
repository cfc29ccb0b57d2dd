"""Game records: a match's deals, hands, passes, plays and scores as JSON, replayable exactly.

A record stores, per deal, the dealer, the pass kind of the cycle, the deal's seed (which fixes
the smoosh shuffle), the dealt hands and kitty, and every action by name. ``replay_record``
rebuilds the match through the engine and checks every score and total against the record; a
malformed or tampered record raises ``RecordError`` with the reason and nothing half-replayed is
returned.

    save_record(match, "game.json")
    match = replay_record(load_record("game.json"))
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from .actions import action_name, parse_action
from .cards import card_name, cards_of
from .deal import check_hands
from .errors import HeartsError, RecordError, brief
from .files import read_text_file
from .match import Match
from .rules import Rules

FORMAT = "hearts-env/game-record"
VERSION = 1
#: The largest record ``load_record`` reads (a 10,000-deal match is a few megabytes).
MAX_RECORD_BYTES = 64 << 20


def record_of(match: Match, single_deal: bool = False) -> dict[str, Any]:
    """The record of ``match`` so far (a match in progress gives ``complete: false``). With
    ``single_deal`` (a one-deal game, ``hearts play --deal``) it holds that deal only, not the next
    one already dealt, and says ``"single_deal": true``, so a replay knows the game is finished."""
    deals = [summary.deal for summary in match.history]
    if not match.over and not (single_deal and match.history and not match.deal.actions):
        deals.append(match.deal)
    extra = {"single_deal": True} if single_deal else {}
    return {
        "format": FORMAT,
        "version": VERSION,
        "rules": match.rules.to_dict(),
        "seed": match.seed,
        "deals": [
            {
                "dealer": deal.dealer,
                "pass_kind": deal.cycle_kind,
                "seed": deal.seed,
                "hands": [[card_name(c) for c in cards_of(h)] for h in deal.dealt_hands],
                "kitty": [card_name(c) for c in deal.kitty_cards],
                "actions": [action_name(a) for a in deal.actions],
                "scores": list(deal.result.scores) if deal.result is not None else None,
                "cancelled": deal.cancelled,
            }
            for deal in deals
        ],
        "totals": list(match.totals),
        "complete": match.over,
        "winners": list(match.winners),
        **extra,
    }


def save_record(match: Match, path: str | Path, single_deal: bool = False) -> Path:
    """Write the record of ``match`` as JSON (atomically: a partial file never replaces a good one)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps(record_of(match, single_deal), indent=1) + "\n", encoding="utf-8")
    tmp.replace(path)
    return path


def load_record(path: str | Path) -> dict[str, Any]:
    """The record in the JSON file ``path``: a regular file of at most ``MAX_RECORD_BYTES``; a FIFO,
    a device, a bigger file or bytes that are not UTF-8 JSON raise ``RecordError`` with the reason."""
    text = read_text_file(path, "game record", MAX_RECORD_BYTES, RecordError)
    try:
        data = json.loads(text)
    except json.JSONDecodeError as err:
        raise RecordError(f"{path} is not JSON: {brief(str(err), 200)}") from None
    except RecursionError:
        raise RecordError(f"{path} is not a game record: arrays or objects nested too deeply") from None
    except ValueError:  # a whole number too long for Python to read
        raise RecordError(f"{path} is not a game record: a number in it is too long to read") from None
    if not isinstance(data, dict):
        raise RecordError(f"{path} is not a game record (expected a JSON object)")
    return data


def _field(data: dict[str, Any], key: str, kind: type, where: str) -> Any:
    if key not in data:
        raise RecordError(f"{where}: missing field {key!r}")
    value = data[key]
    if not isinstance(value, kind) or (isinstance(value, bool) and kind is not bool):
        raise RecordError(f"{where}: field {key!r} has the wrong type ({type(value).__name__})")
    return value


def _list_of(value: list[Any], kind: type, key: str, where: str) -> list[Any]:
    """``value`` (a list field), checked to hold only ``kind`` (never a bool for a whole number)."""
    for i, item in enumerate(value):
        if not isinstance(item, kind) or (isinstance(item, bool) and kind is not bool):
            raise RecordError(f"{where}: field {key!r}, entry {i}, has the wrong type ({type(item).__name__})")
    return value


def replay_record(record: dict[str, Any]) -> Match:
    """Replay a record through the engine and return the resulting match; raise ``RecordError`` if the
    record is malformed or any deal, score or total differs from what the engine produces."""
    if not isinstance(record, dict) or record.get("format") != FORMAT:
        raise RecordError(f"not a game record: the 'format' field must be {FORMAT!r}")
    version = record.get("version")
    if not isinstance(version, int) or isinstance(version, bool) or version != VERSION:
        raise RecordError(f"unsupported game record version {brief(version)} (this engine reads {VERSION})")
    try:
        rules = Rules.from_dict(_field(record, "rules", dict, "record"))
    except HeartsError as err:
        raise RecordError(f"record: invalid rules: {err}") from None
    deals = _field(record, "deals", list, "record")
    if not deals:
        raise RecordError("record: no deals")
    script = []
    for i, entry in enumerate(deals):
        where = f"deal {i}"
        if not isinstance(entry, dict):
            raise RecordError(f"{where}: expected an object")
        seed = entry.get("seed")
        if seed is not None and (isinstance(seed, bool) or not isinstance(seed, int)):
            raise RecordError(f"{where}: seed must be a whole number or null")
        hands, kitty = _field(entry, "hands", list, where), _field(entry, "kitty", list, where)
        _list_of(hands, list, "hands", where)
        try:
            check_hands(rules, hands, kitty)
        except HeartsError as err:
            raise RecordError(f"{where}: invalid deal: {err}") from None
        script.append({"seed": seed, "hands": hands, "kitty": kitty})
    try:
        match = Match(rules, seed=0, first_dealer=_field(deals[0], "dealer", int, "deal 0"), scripted_deals=script)
    except HeartsError as err:
        raise RecordError(f"deal 0: {err}") from None
    for i, entry in enumerate(deals):
        where = f"deal {i}"
        if match.over or match.deals_dealt != i + 1:
            raise RecordError(f"{where}: the match was already over, or this deal never came, after deal {i - 1}")
        deal = match.deal
        if _field(entry, "dealer", int, where) != deal.dealer:
            raise RecordError(f"{where}: dealer {brief(entry['dealer'])} but the rotation gives seat {deal.dealer}")
        if _field(entry, "pass_kind", str, where) != deal.cycle_kind:
            raise RecordError(f"{where}: pass kind {brief(entry['pass_kind'])} but the cycle gives {deal.cycle_kind!r}")
        actions = _list_of(_field(entry, "actions", list, where), str, "actions", where)
        for j, name in enumerate(actions):
            if deal.is_terminal():
                raise RecordError(f"{where}: action {j} ({brief(name)}) comes after the deal ended")
            try:
                match.apply_action(parse_action(name))
            except (HeartsError, ValueError) as err:
                raise RecordError(f"{where}, action {j} ({brief(name)}): {brief(str(err), 300)}") from None
        if not deal.is_terminal():
            if i != len(deals) - 1:
                raise RecordError(f"{where}: the deal is unfinished but more deals follow")
            if entry.get("scores") is not None:
                raise RecordError(f"{where}: scores are recorded but the deal is unfinished")
            continue
        scores = _list_of(_field(entry, "scores", list, where), int, "scores", where)
        if scores != list(deal.scores):
            raise RecordError(f"{where}: recorded scores {brief(scores)} but the play gives {list(deal.scores)}")
        if _optional(entry, "cancelled", bool, False, where) != deal.cancelled:
            raise RecordError(f"{where}: 'cancelled' does not match the play")
    totals = _list_of(_field(record, "totals", list, "record"), int, "totals", "record")
    if totals != list(match.totals):
        raise RecordError(f"record: totals {brief(totals)} but the play gives {list(match.totals)}")
    if _optional(record, "complete", bool, False, "record") != match.over:
        raise RecordError("record: 'complete' does not match the play")
    winners = _list_of(_optional(record, "winners", list, [], "record"), int, "winners", "record")
    if match.over and winners != list(match.winners):
        raise RecordError(f"record: winners {brief(winners)} but the play gives {list(match.winners)}")
    return match


def _optional(data: dict[str, Any], key: str, kind: type, default: Any, where: str) -> Any:
    """A field that may be left out (``default``); present, it must be of ``kind``."""
    return _field(data, key, kind, where) if key in data else default


def default_record_dir() -> Path:
    """Where the front ends keep game records: ``$HEARTS_GAMES_DIR``, else
    ``$XDG_DATA_HOME/hearts-env/games`` (``~/.local/share/hearts-env/games``): a per-user data
    directory, so playing never litters the working directory."""
    env = os.environ.get("HEARTS_GAMES_DIR")
    if env:
        return Path(env).expanduser()
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base).expanduser() / "hearts-env" / "games"
