"""The rule set: every option of RULES.md §3 as one frozen, validated, hashable object.

``Rules()`` is the standard 4-player game; ``Rules.preset("omnibus", num_players=5)`` starts from
a named preset of RULES.md §5 and overrides options; ``Rules.from_file(path)`` reads a TOML rule
file (``configs/rules/*.toml``). Every invalid combination (RULES.md §6) raises ``RulesError``
naming the option and the reason, at construction time, so a bad rule set never reaches play.
"""

from __future__ import annotations

import dataclasses
import functools
import re
import sys
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Any, TypeGuard

from .cards import (
    CARD_NAMES,
    CLUBS,
    HEARTS,
    NUM_CARDS,
    NUM_RANKS,
    QS,
    SUIT_NAMES,
    card_id,
    cards_of,
    mask_of,
    parse_card,
)
from .errors import RulesError, brief
from .files import read_text_file
from .presets import preset_options

# Enumerated option values, in one place.
DEAL_REMAINDERS = ("remove_cards", "kitty")
KITTY_TAKERS = ("first_trick_winner", "first_penalty_taker", "one_card_per_trick")
DEALER_ROTATIONS = ("clockwise", "counterclockwise")
FIRST_LEADS = ("opening_card_must_be_led", "opening_card_holder_any_club", "eldest_any_card")
ALL_HEARTS_LEADER_UNBROKEN = ("lead_heart", "void_deal", "leader_may_void")
FIRST_TRICK_POINTS_FALLBACKS = ("any_card", "heart_before_queen")
MOON_MODES = (
    "subtract_from_shooter",
    "add_to_others",
    "shooter_choice",
    "add_unless_shooter_loses",
    "cancel_deal",
)
TIE_FOR_LOWEST = ("shared", "play_another_deal")
INSTANT_WIN_MODES = ("at_deal_exactly", "at_or_after_deal")
PASS_TOKENS = ("left", "right", "across", "left2", "right2", "hold", "scatter", "smoosh", "dealer_choice")

#: Every whole-number option lies within this (the batched engine keeps scores in 64-bit integers).
MAX_MAGNITUDE = 10**9
#: A rule file is plain text of a few kilobytes; anything past this is refused unread.
MAX_RULE_FILE_BYTES = 1 << 20

AUTO_REMOVED_CARDS = {
    3: ("2D",),
    4: (),
    5: ("2C", "2D"),
    6: ("2C", "2D", "3C", "3D"),
    7: ("2C", "2D", "3C"),
    8: ("2C", "2D", "3C", "3D"),
}


def default_pass_cycle(num_players: int) -> tuple[str, ...]:
    """RULES.md §3.3's default cycle: across only exists for an even number of players."""
    if num_players % 2 == 0:
        return ("left", "right", "across", "hold")
    return ("left", "right", "hold")


def pass_offset(kind: str, num_players: int) -> int | None:
    """The seat offset of a single-target pass kind, or ``None`` for hold/scatter/smoosh/dealer_choice."""
    n = num_players
    if kind == "left":
        return 1
    if kind == "right":
        return n - 1
    if kind == "across":
        return n // 2
    if kind == "left2":
        return 2
    if kind == "right2":
        return n - 2
    if kind.startswith("offset:"):
        return int(kind.split(":", 1)[1])
    return None


def canonical_pass_kind(kind: str, num_players: int) -> str:
    """One spelling per distinct pass: ``offset:1`` is ``left``, ``offset:2`` with 4 players ``across``."""
    k = pass_offset(kind, num_players)
    if k is None:
        return kind
    n = num_players
    if k == 1:
        return "left"
    if k == n - 1:
        return "right"
    if n % 2 == 0 and k == n // 2:
        return "across"
    if n >= 5 and k == 2:
        return "left2"
    if n >= 5 and k == n - 2:
        return "right2"
    return f"offset:{k}"


@dataclass(frozen=True)
class InstantWin:
    """A player whose total is exactly ``score`` after deal ``at_deal`` wins at once (RULES.md §3.6)."""

    score: int = 69
    at_deal: int = 5
    mode: str = "at_deal_exactly"


_MISSING = object()


@dataclass(frozen=True)
class Rules:
    """Every option of RULES.md §3, with its default. Field names are the option names of RULES.md."""

    # §3.1 players, deck and the uneven deal
    num_players: int = 4
    deal_remainder: str = "remove_cards"
    removed_cards: str | tuple[str, ...] = "auto"
    kitty_taker: str = "first_trick_winner"
    # §3.2 deal and dealer
    first_dealer: str | int = "random"
    dealer_rotation: str = "clockwise"
    # §3.3 passing
    passing_enabled: bool = True
    pass_count: int = 3
    pass_cycle: str | tuple[str, ...] = "auto"
    allow_pass_through: bool = False
    pass_through_visible: bool = False
    void_deal_advances_pass_cycle: bool = False
    # §3.4 play
    first_lead: str = "opening_card_must_be_led"
    hearts_must_be_broken: bool = True
    queen_breaks_hearts: bool = False
    queen_and_hearts_only_may_lead_heart: bool = False
    all_hearts_leader_unbroken: str = "lead_heart"
    no_points_on_first_trick: bool = False
    first_trick_points_fallback: str = "any_card"
    queen_must_be_played_when_safe: bool = False
    # §3.5 scoring one deal
    heart_points: int = 1
    heart_ace_points: int = 1
    queen_of_spades_points: int = 13
    bonus_card: str = "none"
    bonus_card_points: int = -10
    per_card_points: tuple[tuple[str, int | str], ...] = ()
    moon_enabled: bool = True
    moon_requires_all_tricks: bool = False
    moon_requires_bonus_card: bool = False
    moon_value: int | str = "total"
    moon_mode: str = "subtract_from_shooter"
    moon_conditional_tie_counts_as_first: bool = False
    sun_enabled: bool = False
    sun_value: int = 52
    no_tricks_adjustment: int = 0
    no_tricks_adjustment_on_moon: bool = False
    # §3.6 cumulative score, end of game
    exact_score_resets: tuple[tuple[int, int], ...] = ()
    instant_win: InstantWin | None = None
    game_end_threshold: int | None = 100
    tie_for_lowest: str = "shared"

    def __post_init__(self) -> None:
        # Accept the friendly forms (lists, dicts) and store hashable ones.
        norm = object.__setattr__
        if isinstance(self.removed_cards, list):
            norm(self, "removed_cards", tuple(self.removed_cards))
        if isinstance(self.pass_cycle, list):
            norm(self, "pass_cycle", tuple(self.pass_cycle))
        if isinstance(self.per_card_points, Mapping | list | tuple):
            items = self.per_card_points.items() if isinstance(self.per_card_points, Mapping) else self.per_card_points
            # the order of entries never matters (suits apply before cards), so store them sorted
            try:
                pairs = tuple(sorted((str(k), v) for k, v in items))
            except (TypeError, ValueError, RecursionError):
                raise RulesError("per_card_points", "must be a table of card or suit to points") from None
            norm(self, "per_card_points", pairs)
        norm(self, "exact_score_resets", _reset_pairs(self.exact_score_resets))
        if isinstance(self.instant_win, Mapping):
            unknown = set(self.instant_win) - {"score", "at_deal", "mode"}
            if unknown:
                raise RulesError(
                    "instant_win", f"unknown keys {brief(sorted(unknown, key=str))}; expected score, at_deal, mode"
                )
            norm(self, "instant_win", InstantWin(**self.instant_win))
        if isinstance(self.removed_cards, tuple):
            norm(self, "removed_cards", tuple(_canonical_card("removed_cards", c) for c in self.removed_cards))
        if isinstance(self.bonus_card, str) and self.bonus_card != "none":
            norm(self, "bonus_card", _canonical_card("bonus_card", self.bonus_card))
        _validate(self)
        _check_hashable(self)

    # ---- construction -------------------------------------------------------------------
    @classmethod
    def preset(cls, name: str, **overrides: Any) -> Rules:
        """The named preset of RULES.md §5, with ``overrides`` applied (option names as keywords).

        A preset whose pass cycle is the §3.3 default for its player count follows the new count's
        default when only ``num_players`` is overridden (``across`` exists only for an even N)."""
        options = preset_options(name)
        n = overrides.get("num_players")
        if isinstance(n, int) and not isinstance(n, bool) and "pass_cycle" not in overrides:
            cycle = options.get("pass_cycle", "auto")
            if cycle != "auto" and tuple(cycle) == default_pass_cycle(options.get("num_players", 4)):
                options["pass_cycle"] = list(default_pass_cycle(n))
        options.update(overrides)
        return cls.from_dict(options)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Rules:
        """Build from a plain mapping (as read from TOML/JSON). ``preset`` names a base preset."""
        if not isinstance(data, Mapping):
            raise RulesError(None, f"a rule set is a table of options, got {brief(data)}")
        data = dict(data)
        known = {f.name for f in dataclasses.fields(cls) if f.init}
        unknown = sorted(set(data) - known - {"preset"}, key=str)
        if unknown:
            raise RulesError(unknown[0], f"unknown option; known options are: {', '.join(sorted(known))}")
        base = data.pop("preset", None)
        if base is not None:  # as ``preset``: its default pass cycle follows an overridden num_players
            if not isinstance(base, str):
                raise RulesError("preset", f"must be the name of a preset, such as 'standard'; got {brief(base)}")
            return cls.preset(base, **data)
        for key in ("game_end_threshold", "instant_win"):
            value = data.get(key, _MISSING)
            if isinstance(value, str) and value == "none":
                data[key] = None
        return cls(**data)

    @classmethod
    def from_toml(cls, text: str) -> Rules:
        _check_key_depth(text)
        try:
            data = tomllib.loads(text)
        except tomllib.TOMLDecodeError as err:
            raise RulesError(None, f"not a valid TOML rule file: {brief(str(err), 200)}") from None
        except RecursionError:
            raise RulesError(None, "not a valid rule file: arrays or tables nested too deeply") from None
        except ValueError:  # a whole number too long for Python to read
            raise _long_number_error(text) from None
        return cls.from_dict(data)

    @classmethod
    def from_file(cls, path: str | Path) -> Rules:
        path = Path(path)
        text = read_text_file(path, "rule file", MAX_RULE_FILE_BYTES, lambda message: RulesError(None, message))
        try:
            return cls.from_toml(text)
        except RulesError as err:
            raise RulesError(err.option, f"{err.reason} (in {path})") from None

    @classmethod
    def load(cls, spec: Rules | str | Path | Mapping[str, Any] | None = None, **overrides: Any) -> Rules:
        """The one rules loader every front end uses: a ``Rules``, a preset name, a rule file path, or
        a mapping of options (``None``: standard), with option ``overrides`` on top.

        As with ``Rules.preset``, a rule set whose pass cycle is the default for its player count
        follows the new count's default when only ``num_players`` changes. Raises ``RulesError``."""
        if spec is None:
            base = cls()
        elif isinstance(spec, Mapping):
            base = cls.from_dict(spec)
        elif isinstance(spec, Rules):
            base = spec
        else:
            text = str(spec)
            if text.endswith(".toml") or _is_file(text):
                base = cls.from_file(text)
            elif not overrides:
                return cls.preset(text)
            else:
                return cls.preset(text, **overrides)
        if not overrides:
            return base
        data = base.to_dict()
        n = overrides.get("num_players")
        cycle = data.get("pass_cycle")
        follows_default = isinstance(cycle, list | tuple) and tuple(cycle) == default_pass_cycle(base.num_players)
        if isinstance(n, int) and "pass_cycle" not in overrides and follows_default:
            data["pass_cycle"] = list(default_pass_cycle(n))
        data.update(overrides)
        return cls.from_dict(data)

    def replace(self, **overrides: Any) -> Rules:
        return Rules.from_dict({**self.to_dict(), **overrides})

    # ---- serialisation ------------------------------------------------------------------
    def to_dict(self) -> dict[str, Any]:
        """Plain data (lists, dicts, ``None``) that ``from_dict`` turns back into an equal ``Rules``."""
        out: dict[str, Any] = {}
        for f in dataclasses.fields(self):
            if not f.init:
                continue
            value = getattr(self, f.name)
            if f.name in ("removed_cards", "pass_cycle") and isinstance(value, tuple):
                value = list(value)
            elif f.name == "per_card_points":
                value = dict(value)
            elif f.name == "exact_score_resets":
                value = {str(k): v for k, v in value}
            elif f.name == "instant_win" and value is not None:
                value = dataclasses.asdict(value)
            out[f.name] = value
        return out

    def to_toml(self) -> str:
        """A complete rule file: every option written out, so the file means the same forever."""
        scalars, tables = [], []
        for key, value in self.to_dict().items():
            if isinstance(value, dict):
                if key == "instant_win" or value:
                    body = "\n".join(f"{_toml_key(k)} = {_toml_value(v)}" for k, v in value.items())
                    tables.append(f"[{key}]\n{body}\n" if body else f"[{key}]\n")
                continue
            if value is None:
                value = "none"
            scalars.append(f"{key} = {_toml_value(value)}")
        return "\n".join(scalars) + "\n" + ("\n" + "\n".join(tables) if tables else "")

    # ---- derived tables (computed once per rule set) -----------------------------------
    @cached_property
    def tables(self) -> RuleTables:
        return RuleTables(self)

    def pass_kind_for_deal(self, cycle_position: int) -> str:
        """The pass kind at position ``cycle_position`` of the cycle (``hold`` when passing is off)."""
        cycle = self.tables.pass_cycle
        return cycle[cycle_position % len(cycle)]


_FIELD_NAMES = frozenset(f.name for f in dataclasses.fields(Rules))
_dataclass_init = Rules.__init__


@functools.wraps(_dataclass_init)
def _checked_init(self: Rules, *args: Any, **kwargs: Any) -> None:
    """Rules(...) with an unknown keyword raises ``RulesError`` naming it, like every other bad option."""
    unknown = sorted(set(kwargs) - _FIELD_NAMES)
    if unknown:
        raise RulesError(unknown[0], f"unknown option; known options are: {', '.join(sorted(_FIELD_NAMES))}")
    _dataclass_init(self, *args, **kwargs)


Rules.__init__ = _checked_init  # type: ignore[method-assign]


def removed_card_names(rules: Rules) -> tuple[str, ...]:
    """The cards taken out before dealing (RULES.md §3.1): ``removed_cards`` (or its ``auto`` table)
    with ``remove_cards``; none at all with ``kitty``, whatever ``removed_cards`` says."""
    if rules.deal_remainder == "kitty":
        return ()
    removed = rules.removed_cards
    return AUTO_REMOVED_CARDS[rules.num_players] if isinstance(removed, str) else removed


class RuleTables:
    """Numbers the engine reads on every move, derived once from a ``Rules``."""

    def __init__(self, rules: Rules):
        n = rules.num_players
        self.num_players = n
        self.next_seat = tuple((p + 1) % n for p in range(n))  # clockwise
        self.removed_mask = mask_of(parse_card(c) for c in removed_card_names(rules))
        self.deck_mask = ((1 << NUM_CARDS) - 1) & ~self.removed_mask
        self.deck = cards_of(self.deck_mask)
        self.deck_bits = tuple(1 << c for c in self.deck)
        self.hand_size = len(self.deck) // n
        self.kitty_size = len(self.deck) - self.hand_size * n
        self.num_tricks = self.hand_size
        self.card_values = card_values(rules)
        self.penalty_mask = mask_of(c for c in self.deck if self.card_values[c] > 0)
        # the cards that score (and those that score below zero), so scoring a deal reads only the
        # scoring cards each seat won
        self.scoring_mask = mask_of(c for c in self.deck if self.card_values[c])
        self.negative_mask = mask_of(c for c in self.deck if self.card_values[c] < 0)
        self.penalty_total = sum(self.card_values[c] for c in self.deck if self.card_values[c] > 0)
        self.bonus_card = -1 if rules.bonus_card == "none" else parse_card(rules.bonus_card)
        self.moon_value = self.penalty_total if rules.moon_value == "total" else int(rules.moon_value)
        if not rules.passing_enabled:
            self.pass_cycle: tuple[str, ...] = ("hold",)
        else:
            cycle = default_pass_cycle(n) if rules.pass_cycle == "auto" else rules.pass_cycle
            self.pass_cycle = tuple(canonical_pass_kind(k, n) for k in cycle)
        self.dealer_choice_kinds = dealer_choice_kinds(rules)
        self.lowest_club = min((c for c in self.deck if c // NUM_RANKS == CLUBS), default=-1)
        self.resets = dict(rules.exact_score_resets)


def dealer_choice_kinds(rules: Rules) -> tuple[str, ...]:
    """Every pass kind a dealer may announce: each distinct seat offset, hold, scatter (where the
    pass count divides evenly) and smoosh."""
    n = rules.num_players
    kinds = [canonical_pass_kind(f"offset:{k}", n) for k in range(1, n)]
    kinds.append("hold")
    if rules.pass_count % (n - 1) == 0:
        kinds.append("scatter")
    kinds.append("smoosh")
    return tuple(kinds)


def card_values(rules: Rules) -> tuple[int, ...]:
    """Points of each card id. The shorthands come first, then ``per_card_points`` overrides them:
    suit-wide entries (``hearts = "face_value"``) before single cards (``AH = 14``)."""
    values = [0] * NUM_CARDS
    for rank in range(NUM_RANKS):
        values[card_id(rank, HEARTS)] = rules.heart_points
    values[card_id(12, HEARTS)] = rules.heart_ace_points
    values[QS] = rules.queen_of_spades_points
    if rules.bonus_card != "none":
        values[parse_card(rules.bonus_card)] = rules.bonus_card_points
    entries = dict(rules.per_card_points)
    for key, value in entries.items():
        if key in SUIT_NAMES:
            suit = SUIT_NAMES.index(key)
            for rank in range(NUM_RANKS):
                values[card_id(rank, suit)] = rank + 2 if value == "face_value" else int(value)
    for key, value in entries.items():
        if key not in SUIT_NAMES:
            card = parse_card(key)
            values[card] = card % NUM_RANKS + 2 if value == "face_value" else int(value)
    return tuple(values)


# ---- validation (RULES.md §6) ----------------------------------------------------------------


def _is_file(text: str) -> bool:
    try:
        return Path(text).is_file()
    except (OSError, ValueError):  # a name too long for the file system, or with a NUL byte
        return False


_RESETS_FORM = "must be a table of score = new score, such as {100 = 50}"


def _as_int_key(key: Any) -> int:
    """A score of ``exact_score_resets`` (TOML table keys are strings: ``"100"``)."""
    if isinstance(key, int) and not isinstance(key, bool):
        return key
    if isinstance(key, str) and re.fullmatch(r"\s*[+-]?\d{1,18}\s*", key):
        return int(key)
    raise RulesError("exact_score_resets", f"the score {brief(key)} is not a whole number")


def _reset_pairs(value: Any) -> Any:
    """``exact_score_resets`` as stored: sorted ``(score, new score)`` pairs, from a table or from
    pairs; anything else is refused, so a ``Rules`` always hashes."""
    if isinstance(value, Mapping):
        items = list(value.items())
    elif isinstance(value, list | tuple):
        if not all(isinstance(item, list | tuple) and len(item) == 2 for item in value):
            raise RulesError("exact_score_resets", f"{_RESETS_FORM}; got {brief(value)}")
        items = [tuple(item) for item in value]
    else:
        raise RulesError("exact_score_resets", f"{_RESETS_FORM}; got {brief(value)}")
    pairs = [(_as_int_key(k), v) for k, v in items]
    scores = [k for k, _ in pairs]
    if len(set(scores)) != len(scores):
        raise RulesError("exact_score_resets", f"gives a score twice: {brief(sorted(scores))}")
    return tuple(sorted(pairs, key=lambda pair: pair[0]))


def _check_hashable(rules: Rules) -> None:
    """A validated ``Rules`` is a dictionary key (environments cache per rule set): every field hashes."""
    for f in dataclasses.fields(rules):
        value = getattr(rules, f.name)
        try:
            hash(value)
        except TypeError:
            raise RulesError(f.name, f"has a value of the wrong kind: {brief(value)}") from None


#: The most parts a dotted key of a rule file may have (every option is one or two: ``instant_win.score``).
MAX_KEY_PARTS = 64


def _check_key_depth(text: str) -> None:
    """Refuse a dotted key of more than ``MAX_KEY_PARTS`` parts before ``tomllib`` reads it: its time
    and memory grow with the square of a key's length (a 200 KB key takes gigabytes). A key is on one
    line, before its ``=``; dots inside a quoted key count too, which only makes the bound stricter."""
    for number, line in enumerate(text.splitlines(), 1):
        key, equals, _ = line.partition("=")
        if equals and key.count(".") >= MAX_KEY_PARTS:
            raise RulesError(None, f"not a valid rule file: the key on line {number} has over {MAX_KEY_PARTS} parts")


def _long_number_error(text: str) -> RulesError:
    """The error for a rule file whose whole number is too long to read: the option on its line."""
    found = re.search(rf"\d{{{max(sys.get_int_max_str_digits(), 1)},}}", text)
    option = None
    if found:
        line_start = text.rfind("\n", 0, found.start()) + 1
        key = re.match(r"\s*([A-Za-z0-9_\-]+)\s*=", text[line_start : found.start()])
        option = key.group(1) if key else None
    reason = f"a number in the rule file is too long to read; whole numbers lie within +-{MAX_MAGNITUDE}"
    return RulesError(option, reason)


def _canonical_card(option: str, text: Any) -> str:
    if not isinstance(text, str):
        raise RulesError(option, f"{brief(text)} is not a card name such as 2C or TD")
    try:
        return CARD_NAMES[parse_card(text)]
    except ValueError as err:
        raise RulesError(option, brief(str(err), 200)) from None


def _is_whole(value: Any) -> TypeGuard[int]:
    return isinstance(value, int) and not isinstance(value, bool)


def _check_magnitude(name: str, value: int, what: str = "") -> None:
    if not -MAX_MAGNITUDE <= value <= MAX_MAGNITUDE:
        raise RulesError(name, f"{what}{brief(value)} is out of range; whole numbers lie within +-{MAX_MAGNITUDE}")


def _check_type(rules: Rules, name: str, kinds: tuple[type, ...], what: str) -> None:
    value = getattr(rules, name)
    ok = isinstance(value, kinds) and not (isinstance(value, bool) and bool not in kinds)
    if not ok:
        raise RulesError(name, f"must be {what}, got {brief(value)}")
    if int in kinds:
        _check_magnitude(name, value)


def _check_choice(rules: Rules, name: str, choices: tuple[str, ...]) -> None:
    value = getattr(rules, name)
    if not isinstance(value, str) or value not in choices:
        raise RulesError(name, f"{brief(value)} is not one of {', '.join(choices)}")


def check_pass_kind(rules: Rules, kind: Any) -> None:
    """Raise ``RulesError`` unless ``kind`` is a pass kind these rules can play."""
    n = rules.num_players
    option = "pass_cycle"
    if not isinstance(kind, str):
        raise RulesError(option, f"{brief(kind)} is not a pass kind")
    if kind.startswith("offset:"):
        digits = kind.split(":", 1)[1]
        if not re.fullmatch(r"[+-]?\d{1,3}", digits):
            raise RulesError(option, f"{brief(kind)}: the offset must be a whole number, as in offset:2")
        k = int(digits)
        if not 1 <= k <= n - 1:
            raise RulesError(option, f"{brief(kind)} must point at another seat: offset 1..{n - 1} for {n} players")
        return
    if kind not in PASS_TOKENS:
        raise RulesError(option, f"{brief(kind)} is not a pass kind; use {', '.join(PASS_TOKENS)} or offset:k")
    if kind == "across" and n % 2:
        raise RulesError(option, f"'across' needs an even number of players, not {n}")
    if kind in ("left2", "right2") and n < 5:
        raise RulesError(option, f"{kind!r} needs at least 5 players (with {n} it is another kind), not {n}")
    if kind == "scatter" and rules.pass_count % (n - 1):
        raise RulesError(
            option,
            f"'scatter' needs pass_count divisible by {n - 1} (one share per opponent); "
            f"pass_count is {rules.pass_count}",
        )


def _validate(r: Rules) -> None:
    for name in (
        "passing_enabled",
        "allow_pass_through",
        "pass_through_visible",
        "void_deal_advances_pass_cycle",
        "hearts_must_be_broken",
        "queen_breaks_hearts",
        "queen_and_hearts_only_may_lead_heart",
        "no_points_on_first_trick",
        "queen_must_be_played_when_safe",
        "moon_enabled",
        "moon_requires_all_tricks",
        "moon_requires_bonus_card",
        "moon_conditional_tie_counts_as_first",
        "sun_enabled",
        "no_tricks_adjustment_on_moon",
    ):
        _check_type(r, name, (bool,), "true or false")
    for name in (
        "num_players",
        "pass_count",
        "heart_points",
        "heart_ace_points",
        "queen_of_spades_points",
        "bonus_card_points",
        "sun_value",
        "no_tricks_adjustment",
    ):
        _check_type(r, name, (int,), "a whole number")
    for name, choices in (
        ("deal_remainder", DEAL_REMAINDERS),
        ("kitty_taker", KITTY_TAKERS),
        ("dealer_rotation", DEALER_ROTATIONS),
        ("first_lead", FIRST_LEADS),
        ("all_hearts_leader_unbroken", ALL_HEARTS_LEADER_UNBROKEN),
        ("first_trick_points_fallback", FIRST_TRICK_POINTS_FALLBACKS),
        ("moon_mode", MOON_MODES),
        ("tie_for_lowest", TIE_FOR_LOWEST),
    ):
        _check_choice(r, name, choices)

    n = r.num_players
    if not 3 <= n <= 8:
        raise RulesError("num_players", f"must be 3..8, got {n}")

    dealer = r.first_dealer
    if not ((isinstance(dealer, str) and dealer == "random") or (_is_whole(dealer) and 0 <= dealer < n)):
        raise RulesError("first_dealer", f"must be 'random' or a seat 0..{n - 1}, got {brief(dealer)}")

    # Bonus card and card values.
    bonus = r.bonus_card
    if not isinstance(bonus, str):
        raise RulesError("bonus_card", f"must be 'none' or a card such as JD, got {brief(bonus)}")
    if r.moon_requires_bonus_card and bonus == "none":
        raise RulesError(
            "moon_requires_bonus_card", "is on, but bonus_card is 'none': there is no bonus card to require"
        )
    if bonus != "none" and (parse_card(bonus) == QS or parse_card(bonus) // NUM_RANKS == HEARTS):
        raise RulesError("bonus_card", f"{bonus} is already a penalty card; choose a card outside hearts and QS")
    if not isinstance(r.per_card_points, tuple):
        raise RulesError(
            "per_card_points", f"must be a table of card or suit to points, got {brief(r.per_card_points)}"
        )
    for key, value in r.per_card_points:
        if key not in SUIT_NAMES:
            try:
                parse_card(key)
            except (ValueError, AttributeError):
                raise RulesError(
                    "per_card_points", f"{brief(key)} is neither a card (AH) nor a suit ({', '.join(SUIT_NAMES)})"
                ) from None
        if isinstance(value, str) and value == "face_value":
            continue
        if not _is_whole(value):
            raise RulesError("per_card_points", f"{brief(key)}: {brief(value)} must be a whole number or 'face_value'")
        _check_magnitude("per_card_points", value, f"{key}: ")

    # Deck and removal (§3.1: the list is checked in either mode, but only remove_cards removes it).
    removed = r.removed_cards
    if not (isinstance(removed, str) and removed == "auto"):
        if not isinstance(removed, tuple):
            raise RulesError("removed_cards", f"must be 'auto' or a list of cards, got {brief(removed)}")
        if len(set(removed)) != len(removed):
            raise RulesError("removed_cards", f"lists a card twice: {brief(list(removed))}")
        for name in removed:
            card = parse_card(name)
            if card // NUM_RANKS == HEARTS or card == QS:
                raise RulesError("removed_cards", f"{name} may not be removed: hearts and QS are never removed")
            if bonus != "none" and card == parse_card(bonus):
                raise RulesError("removed_cards", f"{name} is the bonus card and may not be removed")
        remaining = NUM_CARDS - len(removed)
        if r.deal_remainder == "remove_cards" and remaining % n:
            raise RulesError(
                "removed_cards",
                f"{remaining} cards remain after removing {len(removed)}, which {n} players cannot share evenly "
                f"(remove {remaining % n} more, or use deal_remainder = 'kitty')",
            )
    elif r.deal_remainder == "remove_cards" and bonus in AUTO_REMOVED_CARDS[n]:
        raise RulesError(
            "removed_cards",
            f"'auto' removes {', '.join(AUTO_REMOVED_CARDS[n])} for {n} players, which includes the bonus card "
            f"{bonus}; the bonus card is never removed, so list removed_cards explicitly",
        )
    removed_names = removed_card_names(r)
    values = card_values(r)
    for name in removed_names:  # §3.1: cards that score (hearts, QS, the bonus card, per_card_points) stay
        if values[parse_card(name)]:
            how = "" if removed != "auto" else f"'auto' removes {', '.join(removed_names)} for {n} players, and "
            raise RulesError(
                "removed_cards",
                f"{how}{name} scores {values[parse_card(name)]} (per_card_points); a card that scores is never "
                "removed" + (", so list removed_cards explicitly" if how else ""),
            )
    removed_count = len(removed_names)
    hand_size = (NUM_CARDS - removed_count) // n
    # §3.1: the first trick opens with the lowest club a player holds, so some player must hold one
    # (a kitty, at most 5 cards, never holds all 13: it comes only with nothing removed)
    clubs_left = NUM_RANKS - sum(parse_card(name) // NUM_RANKS == CLUBS for name in removed_names)
    if r.first_lead != "eldest_any_card" and not clubs_left:
        raise RulesError(
            "removed_cards",
            f"leaves no clubs: the first trick opens with the lowest club a player holds "
            f"(first_lead = {r.first_lead!r}), so a player must hold one",
        )

    # Passing.
    if r.passing_enabled:
        if r.pass_count < 1:
            raise RulesError("pass_count", f"must be at least 1 when passing is enabled, got {r.pass_count}")
        if r.pass_count > hand_size:
            raise RulesError(
                "pass_count", f"{r.pass_count} is more than the {hand_size} cards each of {n} players holds"
            )
    cycle = r.pass_cycle
    if not (isinstance(cycle, str) and cycle == "auto"):
        if not isinstance(cycle, tuple) or not cycle:
            raise RulesError("pass_cycle", f"must be 'auto' or a non-empty list of pass kinds, got {brief(cycle)}")
        for kind in cycle:
            check_pass_kind(r, kind)

    # Scoring.
    moon = r.moon_value
    if not (isinstance(moon, str) and moon == "total"):
        if not _is_whole(moon):
            raise RulesError("moon_value", f"must be 'total' or a whole number, got {brief(moon)}")
        _check_magnitude("moon_value", moon)
    for reset_from, reset_to in r.exact_score_resets:
        if not _is_whole(reset_to):
            raise RulesError(
                "exact_score_resets", f"{reset_from} -> {brief(reset_to)}: the new score must be a whole number"
            )
        _check_magnitude("exact_score_resets", reset_from, "the score ")
        _check_magnitude("exact_score_resets", reset_to, f"{reset_from} -> ")
    iw = r.instant_win
    if iw is not None:
        if not isinstance(iw, InstantWin):
            raise RulesError("instant_win", f"must be a table with score, at_deal and mode, or none; got {brief(iw)}")
        if not _is_whole(iw.score):
            raise RulesError("instant_win", f"score must be a whole number, got {brief(iw.score)}")
        _check_magnitude("instant_win", iw.score, "score ")
        if not _is_whole(iw.at_deal) or iw.at_deal < 1:
            raise RulesError("instant_win", f"at_deal must be a deal number >= 1, got {brief(iw.at_deal)}")
        _check_magnitude("instant_win", iw.at_deal, "at_deal ")
        if not isinstance(iw.mode, str) or iw.mode not in INSTANT_WIN_MODES:
            raise RulesError("instant_win", f"mode {brief(iw.mode)} is not one of {', '.join(INSTANT_WIN_MODES)}")
    thr = r.game_end_threshold
    if thr is not None and (not _is_whole(thr) or thr <= 0):
        raise RulesError("game_end_threshold", f"must be a positive whole number or none, got {brief(thr)}")
    if thr is not None:
        _check_magnitude("game_end_threshold", thr)


# ---- TOML writing (the standard library reads TOML but does not write it) -------------------


def _toml_key(key: str) -> str:
    return key if key.replace("_", "").isalnum() and not key.isdigit() else f'"{key}"'


def _toml_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, str):
        return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'
    if isinstance(value, list | tuple):
        return "[" + ", ".join(_toml_value(v) for v in value) + "]"
    raise TypeError(f"cannot write {value!r} to TOML")


__all__ = [
    "InstantWin",
    "RuleTables",
    "Rules",
    "RulesError",
    "canonical_pass_kind",
    "default_pass_cycle",
    "pass_offset",
]
