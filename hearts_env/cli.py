"""The ``hearts`` command: play against the bots, run tournaments, train, export, rules, replay.

Subcommands (each has ``--help``):

- ``hearts play``: a person plays one seat against bots in the terminal (``PlaySession``).
- ``hearts tournament``: bots against bots over duplicate deals (``training.evaluate.main``).
- ``hearts train`` / ``hearts export``: thin front-ends to ``training.ppo.main`` / ``training.export.main``.
- ``hearts rules``: list the presets, ``show`` one, ``check`` a rule file.
- ``hearts replay RECORD``: step through a saved game record trick by trick, every hand shown.
- ``hearts selfplay``: random players play a whole match (a smoke test of an install).

Game records of ``hearts play`` go to ``--record PATH``, else to ``$HEARTS_GAMES_DIR``, else to
``$XDG_DATA_HOME/hearts-env/games/`` (``~/.local/share/hearts-env/games/`` by default): a per-user
data directory, so playing never litters the working directory.

The helpers ``load_rules_option`` (preset or file plus ``--players`` / ``--set`` overrides) and
``make_player`` (bot spec, including a model directory) are shared with ``training.evaluate``.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import os
import random
import secrets
import sys
import time
import tomllib
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .core import PRESET_DESCRIPTIONS, PRESETS, Deal, HeartsError, Match, Rules, RulesError
from .core.actions import (
    CHOOSE_HOLD,
    CHOOSE_OFFSET_BASE,
    CHOOSE_SCATTER,
    CHOOSE_SMOOSH,
    LEAD_HEART,
    MOON_ADD,
    MOON_SUBTRACT,
    NUM_ACTIONS,
    PASS_FROM_HAND,
    PASS_THROUGH,
    VOID_DEAL,
    action_pass_kind,
)
from .core.cards import (
    HEARTS,
    HIGHER_THAN_QUEEN_MASK,
    NUM_CARDS,
    QS,
    QS_BIT,
    RANK_LETTERS,
    SPADES,
    SUIT_MASKS,
    SUIT_NAMES,
    SUIT_SYMBOLS,
    card_name,
    card_symbol,
    cards_of,
    parse_card,
)
from .core.deal import DEALER_CHOICE, DONE, MOON_CHOICE, PASSING, PLAYING
from .core.match import DealSummary
from .core.record import load_record, replay_record, save_record
from .core.rules import default_pass_cycle, pass_offset

if TYPE_CHECKING:  # numpy is imported only when a game is played, so `hearts rules` starts fast
    import numpy as np

#: The model ``hearts play`` uses for the opponents when it exists and fits the rules.
SHIPPED_MODEL = Path("models") / "ppo-standard"


# =============================================================================================
# Shared helpers: rules from options, bots from specs
# =============================================================================================


def parse_setting(text: str) -> tuple[str, Any]:
    """``option=value`` of ``--set``: the value read as TOML (``3``, ``true``, ``["left", "hold"]``),
    else taken as a plain string (``moon_mode=add_to_others``)."""
    key, sep, raw = text.partition("=")
    key = key.strip()
    if not sep or not key:
        raise argparse.ArgumentTypeError(f"--set expects option=value, got {text!r}")
    raw = raw.strip()
    try:
        value = tomllib.loads(f"v = {raw}")["v"]
    except tomllib.TOMLDecodeError:
        value = raw
    return key, value


def load_rules_option(spec: str | Path | None, overrides: Mapping[str, Any] | None = None) -> Rules:
    """A preset name or rule file, with option overrides (``--players``, ``--set``).

    As with ``Rules.preset``, a rule set whose pass cycle is the default for its player count
    follows the new count's default when only ``num_players`` changes. Raises ``RulesError``."""
    overrides = dict(overrides or {})
    text = str(spec) if spec is not None else "standard"
    is_file = text.endswith(".toml") or Path(text).is_file()
    if not overrides:
        return Rules.load(text)
    if not is_file:
        return Rules.preset(text, **overrides)
    base = Rules.from_file(text)
    data = base.to_dict()
    n = overrides.get("num_players")
    cycle = data.get("pass_cycle")
    follows_default = isinstance(cycle, list) and tuple(cycle) == default_pass_cycle(base.num_players)
    if isinstance(n, int) and "pass_cycle" not in overrides and follows_default:
        data["pass_cycle"] = list(default_pass_cycle(n))
    data.update(overrides)
    return Rules.from_dict(data)


def rules_overrides(players: int | None, settings: Sequence[tuple[str, Any]] | None) -> dict[str, Any]:
    out: dict[str, Any] = dict(settings or ())
    if players is not None:
        out["num_players"] = players
    return out


def describe_rules(spec: str | Path | None, overrides: Mapping[str, Any]) -> str:
    """A short label such as ``omnibus (num_players=5)``."""
    name = Path(str(spec)).name if spec is not None else "standard"
    if overrides:
        name += " (" + ", ".join(f"{k}={v}" for k, v in overrides.items()) + ")"
    return name


def make_player(spec: Any, rules: Rules, seed: int | None = None) -> Any:
    """A bot for ``spec``: ``random``, ``heuristic``, a model directory (played with numpy through
    ``hearts_env.policy.load_bot``), or an object that already has ``act``."""
    from .bots import make_bot

    return make_bot(spec, rules, seed)


def spec_label(spec: Any) -> str:
    """How a bot spec is named in tables: ``heuristic``, a model directory's name, a bot's ``name``."""
    if isinstance(spec, str | Path):
        text = str(spec).rstrip("/")
        return Path(text).name if ("/" in text or os.sep in text or Path(text).exists()) else text
    return str(getattr(spec, "name", type(spec).__name__))


def default_opponent(rules: Rules) -> str:
    """The shipped model's path when it exists and plays these rules, else ``heuristic``."""
    from .policy import ModelError, find_model, load_policy

    path = find_model(SHIPPED_MODEL)  # from the current directory, else next to the package
    if path is None:
        return "heuristic"
    try:
        load_policy(path, rules)
    except (ModelError, OSError, ValueError):
        return "heuristic"
    return str(path.resolve())


# =============================================================================================
# Text: cards, colours, names
# =============================================================================================


class Style:
    """Cards and emphasis as terminal text: suit symbols when the output can encode them, ANSI
    colour only when wanted (a terminal, no ``--no-color``, no ``NO_COLOR``)."""

    def __init__(self, colour: bool, symbols: bool = True) -> None:
        self.colour = colour
        self.symbols = symbols

    @staticmethod
    def detect(stream: Any, no_color: bool) -> Style:
        encoding = getattr(stream, "encoding", None) or "ascii"
        try:
            "♣♦♠♥─═→".encode(encoding)
            symbols = True
        except (UnicodeEncodeError, LookupError):
            symbols = False
        isatty = getattr(stream, "isatty", lambda: False)()
        colour = (
            isatty and not no_color and "NO_COLOR" not in os.environ and os.environ.get("TERM", "") not in ("dumb", "")
        )
        return Style(colour, symbols)

    def _sgr(self, text: str, code: str) -> str:
        return f"\x1b[{code}m{text}\x1b[0m" if self.colour and text else text

    def card(self, card: int, width: int = 0, dim: bool = False) -> str:
        text = card_symbol(card) if self.symbols else card_name(card)
        text = text.ljust(width)
        if not self.colour:
            return text
        code = "31" if card // 13 in (1, HEARTS) else ""
        if dim:
            code = "2;" + code if code else "2"
        return self._sgr(text, code) if code else text

    def cards(self, cards: Sequence[int]) -> str:
        return " ".join(self.card(c) for c in sorted(cards)) if cards else "-"

    def suit(self, suit: int) -> str:
        text = SUIT_SYMBOLS[suit] if self.symbols else "CDSH"[suit]
        return self._sgr(text, "31") if suit in (1, HEARTS) else text

    def bold(self, text: str) -> str:
        return self._sgr(text, "1")

    def head(self, text: str) -> str:
        return self._sgr(text, "1;36")

    def note(self, text: str) -> str:
        return self._sgr(text, "1;33")

    def error(self, text: str) -> str:
        return self._sgr(text, "31")

    @property
    def rule(self) -> str:
        return "─" if self.symbols else "-"

    @property
    def double(self) -> str:
        return "═" if self.symbols else "="

    @property
    def arrow(self) -> str:
        return "→" if self.symbols else "->"

    def suit_line(self, mask: int) -> str:
        """A hand as ``♣ 2 5 K  ♦ 4 Q  ♠ -  ♥ 3 A`` (one token per suit, ranks ascending)."""
        parts = []
        for suit in range(4):
            ranks = [RANK_LETTERS[c % 13] for c in cards_of(mask & SUIT_MASKS[suit])]
            ranks = ["10" if r == "T" else r for r in ranks]
            parts.append(f"{self.suit(suit)} {' '.join(ranks) if ranks else '-'}")
        return "   ".join(parts)


def seat_names(num_players: int, human: int | None) -> list[str]:
    """``You`` and compass points for 4 players (West on your left); ``P1``.. otherwise; ``Seat k``
    for every seat when nobody is the viewer (replays)."""
    if human is None:
        return [f"Seat {p}" for p in range(num_players)]
    names = []
    for p in range(num_players):
        r = (p - human) % num_players
        if r == 0:
            names.append("You")
        elif num_players == 4:
            names.append(("West", "North", "East")[r - 1])
        else:
            names.append(f"P{r}")
    return names


def kind_text(kind: str | None) -> str:
    if kind is None:
        return "pass to be chosen by the dealer"
    if kind == "hold":
        return "hold (no pass)"
    return f"pass {kind}"


def trick_points(deal: Deal, cards: Sequence[int]) -> int:
    values = deal.rules.tables.card_values
    return sum(values[c] for c in cards)


def points_taken(deal: Deal, kitty: bool = True) -> list[int]:
    """Card points each seat has taken; ``kitty=False`` counts only the tricks (the kitty is face
    down, so a player's screen must not reveal what it held)."""
    values = deal.rules.tables.card_values
    if kitty:
        return [sum(values[c] for c in cards_of(won)) for won in deal.won]
    n = deal.num_players
    out = [0] * n
    for t, winner in enumerate(deal.trick_winners):
        out[winner] += sum(values[c] for _, c in deal.play_order[t * n : (t + 1) * n])
    return out


def forwarded_through(deal: Deal, seat: int) -> dict[tuple[int, int], list[int]]:
    """The cards a resolved directional pass carried through ``seat`` (a pass-through seat), by
    ``(from, to)`` seat: what the observation's ``forwarded`` segment shows when
    ``pass_through_visible`` is on."""
    offset = pass_offset(deal.pass_kind, deal.num_players) if deal.pass_kind else None
    out: dict[tuple[int, int], list[int]] = {}
    if offset is None or not deal.pass_through[seat]:
        return out
    n = deal.num_players
    for src in range(n):
        for card, dst in deal.passed[src]:
            q = (src + offset) % n
            while q != dst and q != src:
                if q == seat:
                    out.setdefault((src, dst), []).append(card)
                q = (q + offset) % n
    return out


# =============================================================================================
# Narration: what happened at the table, shared by ``play`` (one seat's view) and ``replay``
# =============================================================================================


class Narrator:
    """Turns engine events into lines of text. ``viewer`` is the seat whose secrets may be shown
    (its own passes); ``None`` shows everything (replays)."""

    def __init__(self, rules: Rules, names: Sequence[str], style: Style, viewer: int | None) -> None:
        self.rules = rules
        self.names = list(names)
        self.style = style
        self.viewer = viewer
        self.width = max(len(x) for x in names)
        self._broken = False
        self._kitty_seen = set()
        #: whether a completed trick's lines end with the next trick's header (a replay pauses first)
        self.inline_trick_headers = True

    def name(self, seat: int) -> str:
        return self.names[seat]

    def verb(self, seat: int, third_person: str) -> str:
        """``takes`` for another seat, ``take`` for the person (``You``)."""
        if self.names[seat] != "You":
            return third_person
        return third_person[:-2] if third_person.endswith(("sses", "shes")) else third_person[:-1]

    def act(self, seat: int, third_person: str) -> str:
        return f"{self.name(seat)} {self.verb(seat, third_person)}"

    def deal_header(self, deal: Deal, number: int, totals: Sequence[int] | None) -> list[str]:
        """The deal's opening lines; also resets what the narrator remembers of the deal."""
        self._broken = deal.hearts_broken
        self._kitty_seen: set[int] = set()
        s = self.style
        n = deal.num_players
        parts = [f"Deal {number}", f"dealer {self.name(deal.dealer)}"]
        if deal.cycle_kind == "dealer_choice":
            parts.append(f"dealer's choice of pass ({self.act(deal.dealer, 'chooses')})")
        else:
            parts.append(self.pass_description(deal))
        line = f"{s.double * 3} {' · '.join(parts)} {s.double * 3}"
        out = ["", s.head(line)]
        if totals is not None and any(totals):
            out.append("Totals: " + " · ".join(f"{self.name(p)} {totals[p]}" for p in range(n)))
        return out

    def pass_description(self, deal: Deal) -> str:
        kind = deal.pass_kind if deal.pass_kind is not None else deal.cycle_kind
        if kind == "hold":
            return "hold (no pass)"
        k = self.rules.pass_count
        n = deal.num_players
        viewer = self.viewer
        if kind == "scatter":
            share = k // (n - 1)
            return f"pass scatter ({share} card{'s' if share > 1 else ''} to each other seat)"
        if kind == "smoosh":
            return f"pass smoosh ({k} cards each into a shuffled pool)"
        offset = pass_offset(kind, n)
        if viewer is not None and offset is not None:
            return f"pass {kind} ({k} cards to {self.name((viewer + offset) % n)})"
        return f"pass {kind} ({k} cards)"

    def pass_prompt(self, deal: Deal, seat: int, count: int) -> str:
        kind = deal.pass_kind
        n = deal.num_players
        cards = f"{count} card{'s' if count != 1 else ''}"
        if kind == "scatter":
            share = self.rules.pass_count // (n - 1)
            targets = ", ".join(f"{share} to {self.name((seat + i) % n)}" for i in range(1, n))
            return f"Pass {cards} ({targets}, in that order)> "
        if kind == "smoosh":
            return f"Pass {cards} into the pool> "
        offset = pass_offset(kind, n) if kind else None
        target = self.name((seat + offset) % n) if offset is not None else "?"
        return f"Pass {cards} to {target}> "

    def trick_header(self, deal: Deal) -> str:
        s = self.style
        t = deal.rules.tables
        pts = points_taken(deal, kitty=self.viewer is None)
        status = "hearts broken" if deal.hearts_broken else "hearts not broken"
        points = " · ".join(f"{self.name(p)} {pts[p]}" for p in range(deal.num_players))
        return s.bold(
            f"{s.rule * 2} Trick {deal.trick_number + 1} of {t.num_tricks} {s.rule * 2} {status} · points: {points}"
        )

    def after_action(self, deal: Deal, seat: int, action: int, phase_before: int) -> list[str]:
        """The lines describing ``action`` by ``seat``, already applied to ``deal``."""
        s = self.style
        out: list[str] = []
        n = deal.num_players
        if phase_before == DEALER_CHOICE:
            kind = action_pass_kind(action, n)
            out.append(f"{self.act(seat, 'chooses')}: {kind_text(kind)}.")
            out.append(f"  This deal: {self.pass_description(deal)}.")
        elif phase_before == PASSING:
            if action >= NUM_CARDS and (self.viewer is None or seat == self.viewer):
                who = self.name(seat)
                out.append(
                    f"{who} will pass through (forward the cards passed to {'you' if who == 'You' else 'them'})."
                    if action == PASS_THROUGH
                    else f"{who} will pass from {'your' if who == 'You' else 'their'} own hand."
                )
            if deal.phase != PASSING:
                out += self.pass_results(deal)
        elif phase_before == PLAYING:
            if action == VOID_DEAL:
                out.append(s.note(f"{self.act(seat, 'holds')} only hearts and {self.verb(seat, 'voids')} the deal."))
            elif action == LEAD_HEART:
                out.append(f"{self.act(seat, 'holds')} only hearts and will lead a heart.")
            else:
                out += self.card_played(deal, seat, action)
        elif phase_before == MOON_CHOICE:
            moon = deal.rules.tables.moon_value
            what = f"-{moon} for themself" if action == MOON_SUBTRACT else f"+{moon} to everyone else"
            what = what.replace("themself", "yourself") if self.name(seat) == "You" else what
            out.append(s.note(f"{self.act(seat, 'chooses')} {what}."))
        if phase_before in (DEALER_CHOICE, PASSING) and deal.phase == PLAYING:
            out.append(self.trick_header(deal))
        return out

    def pass_results(self, deal: Deal) -> list[str]:
        s = self.style
        n = deal.num_players
        out = []
        if deal.pass_kind in (None, "hold"):
            return out
        seats = range(n) if self.viewer is None else [self.viewer]
        for p in seats:
            who = self.name(p)
            if deal.pass_through[p]:
                out.append(f"{who} passed through.")
                if self.viewer is not None and self.rules.pass_through_visible:
                    for (src, dst), cards in forwarded_through(deal, p).items():
                        verb = "forward" if who == "You" else "forwards"
                        out.append(f"{who} {verb} {s.cards(cards)} from {self.name(src)} to {self.name(dst)}.")
            groups: dict[int, list[int]] = {}
            for card, dst in deal.passed[p]:
                groups.setdefault(dst, []).append(card)
            for dst, cards in groups.items():
                target = "the pool" if dst < 0 else self.name(dst)
                out.append(f"{who} {'pass' if who == 'You' else 'passes'} {s.cards(cards)} to {target}.")
            if self.viewer is not None:
                got: dict[int, list[int]] = {}
                for card, src in deal.received[p]:
                    got.setdefault(src, []).append(card)
                for src, cards in got.items():
                    source = "the pool" if src < 0 else self.name(src)
                    out.append(f"{who} receive {s.cards(cards)} from {source}.")
        if self.viewer is not None:
            through = [self.name(p) for p in range(n) if deal.pass_through[p] and p != self.viewer]
            if through:
                out.append(f"Passed through: {', '.join(through)}.")
        return out

    def card_played(self, deal: Deal, seat: int, card: int) -> list[str]:
        s = self.style
        line = f"  {self.name(seat):<{self.width}}  {s.card(card)}"
        if deal.hearts_broken and not self._broken:
            self._broken = True
            line += "   (hearts are broken)"
        if deal.trick or not deal.trick_winners or deal.play_order[-1] != (seat, card):
            return [line]
        # the trick just completed
        n = deal.num_players
        cards = [c for _, c in deal.play_order[-n:]]
        winner = deal.trick_winners[-1]
        points = trick_points(deal, cards)
        extra = ""
        kitty = [i for i, w in enumerate(deal.kitty_taken_by) if w >= 0 and i not in self._kitty_seen]
        if kitty:
            self._kitty_seen.update(kitty)
            if self.viewer is None:
                extra = f", and the kitty {s.cards([deal.kitty_cards[i] for i in kitty])}"
            else:
                extra = f", and {len(kitty)} kitty card{'s' if len(kitty) > 1 else ''} face down"
        pts = f"{points} point{'s' if points != 1 else ''}"
        lines = [line, f"  {s.arrow} {s.bold(self.name(winner))} {self.verb(winner, 'takes')} the trick ({pts}){extra}"]
        if deal.phase == PLAYING and self.inline_trick_headers:
            lines.append(self.trick_header(deal))
        return lines

    def deal_end(self, deal: Deal, summary: DealSummary | None) -> list[str]:
        s = self.style
        n = deal.num_players
        t = deal.rules.tables
        out: list[str] = []
        if deal.cancelled:
            out.append(s.note(f"The deal is void ({self.name(deal.leader)} held only hearts): it is dealt again."))
            return out
        result = deal.result
        assert result is not None
        if result.shooter is not None:
            who = self.name(result.shooter)
            what = "the sun (every trick)" if result.shot == "sun" else "the moon"
            value = deal.rules.sun_value if result.shot == "sun" else t.moon_value
            how = {
                "subtract": f"-{value} for {who}",
                "add": f"+{value} to everyone else",
                "cancel": "the deal scores nothing",
            }.get(result.moon_applied or "", "")
            out.append(s.note(f"{who} shot {what}! ({how})"))
        if t.bonus_card >= 0:
            taker = next((p for p in range(n) if deal.won[p] >> t.bonus_card & 1), None)
            if taker is not None:
                value = t.card_values[t.bonus_card]
                out.append(s.note(f"{self.name(taker)} took the bonus card {s.card(t.bonus_card)} ({value:+d})."))
        out.append("Deal scores: " + " · ".join(f"{self.name(p)} {result.scores[p]:+d}" for p in range(n)))
        if summary is not None:
            for p, before, after in summary.resets:
                out.append(s.note(f"{self.name(p)}'s total hits {before} exactly and resets to {after}."))
        return out

    def score_table(self, history: Sequence[DealSummary], totals: Sequence[int]) -> list[str]:
        n = len(totals)
        w = max(6, self.width)
        head = f"{'':<10}" + "".join(f"{self.name(p):>{w + 1}}" for p in range(n))
        out = [self.style.bold(head)]
        for summary in history:
            label = f"Deal {summary.number}" if not summary.deal.cancelled else "(void)"
            mark = " *" if summary.resets else ""
            out.append(f"{label:<10}" + "".join(f"{x:>{w + 1}}" for x in summary.scores) + mark)
        out.append(self.style.bold(f"{'Total':<10}" + "".join(f"{x:>{w + 1}}" for x in totals)))
        if any(summary.resets for summary in history):
            out.append("* an exact-score reset changed a total after this deal")
        return out


# =============================================================================================
# hearts play
# =============================================================================================


class QuitGame(Exception):
    """The player typed ``q``."""


HELP_TEXT = """\
How to answer:
  a card         QS, qs, Q♠, 10h, TH ... (rank then suit; T or 10 for ten)
  a number       the number shown next to a card (only legal cards are numbered)
  passing        all the cards at once: QS KS AH, or 1 5 9
  menus          the number of a choice
  ?              this help
  q              quit (the game record is saved)
Hearts: follow suit if you can; the highest card of the suit led takes the trick. Every heart
costs points, the Q♠ 13; the lowest total wins. Take every point card to shoot the moon."""


def _mask_array(legal: int) -> np.ndarray:
    """The AEC env's ``int8`` action mask of a legal-action bitmask."""
    import numpy as np

    return np.array([legal >> a & 1 for a in range(NUM_ACTIONS)], dtype=np.int8)


class PlaySession:
    """One person against bots. I/O goes through ``read_line(prompt)`` (raises ``EOFError`` at the
    end of input) and ``write(text)``, so tests can drive it without a terminal."""

    def __init__(
        self,
        rules: Rules,
        human: int,
        bots: Mapping[int, Any],
        *,
        seed: int,
        single_deal: bool = False,
        style: Style | None = None,
        read_line: Callable[[str], str] | None = None,
        write: Callable[[str], None] | None = None,
        record_path: Path | None = None,
        labels: Mapping[int, str] | None = None,
        rules_label: str = "",
    ) -> None:
        from .env.encoding import ObservationEncoder

        self.rules = rules
        self.human = human
        self.bots = dict(bots)
        self.seed = seed
        self.single_deal = single_deal
        self.style = style or Style(False, True)
        self.read_line = read_line or _read_line
        self.write = write or (lambda text: print(text, flush=True))
        self.record_path = record_path
        self.labels = dict(labels or {})
        self.rules_label = rules_label
        n = rules.num_players
        self.names = seat_names(n, human)
        self.narrator = Narrator(rules, self.names, self.style, human)
        self.match = Match(rules, seed=seed)
        self.encoder = ObservationEncoder(rules, match_episode=True)
        self.saved: Path | None = None
        self.save_failed = False

    # ---- output
    def say(self, *lines: str) -> None:
        for line in lines:
            self.write(line)

    def save(self) -> Path | None:
        """Write the game record; ``None`` with ``--no-save``, or when writing failed (said on screen,
        and ``save_failed`` set)."""
        if self.record_path is None:
            return None
        try:
            self.saved = save_record(self.match, self.record_path, single_deal=self.single_deal)
        except OSError as err:
            self.save_failed = True
            self.say(self.style.error(f"Could not save the game record to {self.record_path}: {err.strerror or err}"))
            return None
        self.save_failed = False
        return self.saved

    # ---- the game
    def run(self) -> None:
        s = self.style
        n = self.rules.num_players
        threshold = self.rules.game_end_threshold
        mode = "one deal" if self.single_deal or threshold is None else f"a match to {threshold}"
        self.say(s.head(f"Hearts · {self.rules_label or 'custom rules'} · {n} players · {mode} · seed {self.seed}"))
        label = {p: self.labels.get(p) or spec_label(bot) for p, bot in self.bots.items()}
        others = ", ".join(f"{self.names[p]}: {label[p]}" for p in range(n) if p != self.human)
        left = self.names[(self.human + 1) % n]
        self.say(f"You play seat {self.human}; {others}. Play runs clockwise ({left} is on your left).")
        self.say("Type ? for help, q to quit.")
        while True:
            self.play_deal()
            self.save()
            if self.single_deal or self.match.over:
                break
            answer = self.read_line("Press Enter for the next deal (q to quit)> ").strip().lower()
            if answer in ("q", "quit", "exit"):
                raise QuitGame
        if self.match.over and not self.single_deal:
            winners = ", ".join(self.names[p] for p in self.match.winners)
            verb = "win" if winners == "You" else "wins" if len(self.match.winners) == 1 else "share the win"
            self.say(
                "",
                s.note(
                    f"Match over after {self.match.deals_counted} deals: {winners} {verb} ({self.match.end_reason})."
                ),
            )

    def observation(self, seat: int) -> dict[str, np.ndarray]:
        """Exactly what the AEC env gives ``seat`` when it is to move: its own view, nothing more."""
        deal = self.match.deal
        return {"observation": self.encoder.observation(seat, seat), "action_mask": _mask_array(deal.legal_mask())}

    def play_deal(self) -> None:
        match = self.match
        deal = match.deal
        history_before = len(match.history)
        self.encoder.start(deal, match)
        self.say(*self.narrator.deal_header(deal, match.deals_counted + 1, match.totals))
        if deal.phase == PLAYING:
            self.say(self.narrator.trick_header(deal))
        while deal.phase != DONE:
            seat = deal.current_player
            phase = deal.phase
            if seat == self.human:
                action = self.ask(deal)
            else:
                action = self.bots[seat].act(self.observation(seat))
                if type(action) is not int:
                    action = int(action)
            match.apply_action(action)
            self.encoder.update(deal, seat, action, phase)
            lines = self.narrator.after_action(deal, seat, action, phase)
            if lines:
                self.say(*lines)
        new = match.history[history_before:]
        summary = new[0] if new else None
        self.say("", *self.narrator.deal_end(deal, summary))
        for extra in new[1:]:  # deals cancelled as they were dealt
            self.say(*self.narrator.deal_end(extra.deal, extra))
        if not deal.cancelled:
            self.say("", *self.narrator.score_table([h for h in match.history if not h.deal.cancelled], match.totals))

    # ---- the person's decisions
    def ask(self, deal: Deal) -> int:
        legal = deal.legal_actions()
        if legal[0] >= NUM_CARDS:
            return self.ask_menu(deal, legal)
        if deal.phase == PASSING:
            return self.ask_pass(deal, legal)
        return self.ask_play(deal, legal)

    def show_hand(self, deal: Deal, numbered: Sequence[int], title: str) -> None:
        s = self.style
        hand = cards_of(deal.hands[self.human])
        number = {c: i + 1 for i, c in enumerate(numbered)}
        lines = [title]
        for suit in range(4):
            cells = []
            for c in hand:
                if c // 13 != suit:
                    continue
                if c in number:
                    cells.append(f"{s.bold(str(number[c]).rjust(2))}:{s.card(c, 3)}")
                else:
                    cells.append(f"   {s.card(c, 3, dim=True)}")
            lines.append((f"  {s.suit(suit)}  " + (" ".join(cells) if cells else "  -")).rstrip())
        self.say(*lines)

    def prompt(self, text: str) -> str:
        """One line of input; ``?`` shows the help and asks again, ``q`` quits."""
        while True:
            line = self.read_line(text).strip()
            low = line.lower()
            if low in ("q", "quit", "exit"):
                raise QuitGame
            if low in ("?", "h", "help"):
                self.say(HELP_TEXT)
                continue
            if not line:
                self.say("Type a card (like QS or 10h), a number from the list, ? for help or q to quit.")
                continue
            return line

    def refuse(self, reason: str, choices: str) -> None:
        self.say(self.style.error(reason) + f" Legal: {choices}")

    def read_card(self, token: str, numbered: Sequence[int]) -> int:
        """A card from ``QS``/``Q♠``/``10h`` or a number of the shown list; ``ValueError`` says why not."""
        if token.isdigit():
            k = int(token)
            if not 1 <= k <= len(numbered):
                raise ValueError(f"There is no card numbered {k}: the numbers go from 1 to {len(numbered)}.")
            return numbered[k - 1]
        try:
            return parse_card(token)
        except ValueError:
            raise ValueError(
                f"{token!r} is not a card: write it like QS, qs, Q♠, 10h or TH, or give its number."
            ) from None

    def ask_pass(self, deal: Deal, legal: list[int]) -> int:
        s = self.style
        seat = self.human
        count = self.rules.pass_count - len(deal.chosen[seat])
        self.show_hand(deal, legal, "Your hand (choose the cards to pass):")
        choices = "any " + (f"{count} cards of your hand" if count > 1 else "card of your hand")
        while True:
            line = self.prompt(self.narrator.pass_prompt(deal, seat, count))
            tokens = line.replace(",", " ").split()
            try:
                cards = [self.read_card(t, legal) for t in tokens]
            except ValueError as err:
                self.refuse(str(err), choices)
                continue
            held = deal.hands[seat]
            missing = [c for c in cards if not held >> c & 1]
            if missing:
                self.refuse(f"You do not hold {s.cards(missing)}.", choices)
                continue
            if len(set(cards)) != len(cards):
                self.refuse("You named the same card twice.", choices)
                continue
            if len(cards) != count:
                self.refuse(f"Pass exactly {count} card{'s' if count != 1 else ''}; you gave {len(cards)}.", choices)
                continue
            # all but the last are applied here; the caller applies the last one
            for card in cards[:-1]:
                self.match.apply_action(card)
                self.encoder.update(deal, seat, card, PASSING)
            return cards[-1]

    def ask_play(self, deal: Deal, legal: list[int]) -> int:
        s = self.style
        self.show_hand(deal, legal, "Your hand (legal cards are numbered):")
        choices = " ".join(f"{i + 1}:{s.card(c)}" for i, c in enumerate(legal))
        while True:
            line = self.prompt("Your play> ")
            tokens = line.replace(",", " ").split()
            if len(tokens) != 1:
                self.refuse("Play one card at a time.", choices)
                continue
            try:
                card = self.read_card(tokens[0], legal)
            except ValueError as err:
                self.refuse(str(err), choices)
                continue
            if card in legal:
                return card
            self.refuse(illegal_reason(deal, card, s), choices)

    def ask_menu(self, deal: Deal, legal: list[int]) -> int:
        s = self.style
        items = [menu_text(deal, a) for a in legal]
        self.say(s.bold(menu_title(deal, legal)))
        if deal.phase == MOON_CHOICE:
            totals = self.match.totals
            self.say(
                "Totals before this deal: " + " · ".join(f"{self.names[p]} {totals[p]}" for p in range(len(totals)))
            )
        if legal[0] in (PASS_FROM_HAND, VOID_DEAL) or deal.phase == DEALER_CHOICE:
            self.show_hand(deal, [], "Your hand:")
        for i, text in enumerate(items, 1):
            self.say(f"  {i}) {text}")
        choices = " ".join(f"{i}" for i in range(1, len(items) + 1))
        while True:
            line = self.prompt(f"Choose 1-{len(items)}> ")
            if line.isdigit() and 1 <= int(line) <= len(items):
                return legal[int(line) - 1]
            self.refuse(f"{line!r} is not one of the choices.", choices)


def menu_title(deal: Deal, legal: list[int]) -> str:
    if deal.phase == DEALER_CHOICE:
        return "You are the dealer: choose this deal's pass."
    if legal[0] in (PASS_FROM_HAND, PASS_THROUGH):
        return "Pass from your hand, or pass through (forward the cards passed to you)?"
    if legal[0] in (VOID_DEAL, LEAD_HEART):
        return "You lead and hold only hearts before hearts are broken."
    return "You shot the moon! Choose how it scores."


def menu_text(deal: Deal, action: int) -> str:
    n = deal.num_players
    moon = deal.rules.tables.moon_value
    if action == PASS_FROM_HAND:
        return "pass cards from your hand"
    if action == PASS_THROUGH:
        return "pass through: forward the cards you are passed"
    if CHOOSE_OFFSET_BASE < action < CHOOSE_HOLD:
        return f"pass {action_pass_kind(action, n)} ({action - CHOOSE_OFFSET_BASE} seat(s) to the left)"
    if action == CHOOSE_HOLD:
        return "hold: no pass"
    if action == CHOOSE_SCATTER:
        return "scatter: cards to every other seat"
    if action == CHOOSE_SMOOSH:
        return "smoosh: everyone's cards into a shuffled pool"
    if action == VOID_DEAL:
        return "void the deal (it is dealt again)"
    if action == LEAD_HEART:
        return "keep the deal and lead a heart"
    if action == MOON_SUBTRACT:
        return f"-{moon} for yourself"
    if action == MOON_ADD:
        return f"+{moon} to everyone else"
    return str(action)


def illegal_reason(deal: Deal, card: int, style: Style) -> str:
    """Why ``card`` may not be played now, in the words of the rule that forbids it."""
    rules = deal.rules
    seat = deal.current_player
    hand = deal.hands[seat]
    name = style.card(card)
    if not hand >> card & 1:
        return f"You do not hold {name}."
    first = deal.trick_number == 0
    values = rules.tables.card_values
    if deal.trick:
        led = deal.trick[0] // 13
        if hand & SUIT_MASKS[led] and card // 13 != led:
            return f"You must follow suit: {SUIT_NAMES[led]} were led and you hold {SUIT_NAMES[led]}."
        if rules.queen_must_be_played_when_safe and hand & QS_BIT and card != QS:
            if led == SPADES and deal.trick_mask & HIGHER_THAN_QUEEN_MASK:
                return f"You must play the {style.card(QS)}: a higher spade is already in the trick."
            if not hand & SUIT_MASKS[led]:
                return f"You must discard the {style.card(QS)} when you cannot follow suit."
        if first and rules.no_points_on_first_trick and values[card] > 0:
            return "No points on the first trick: discard a card that scores nothing."
        return f"{name} may not be played now."
    if first and rules.first_lead == "opening_card_must_be_led":
        return f"The first trick must be led with the {style.card(deal.opening_card)}."
    if first and rules.first_lead == "opening_card_holder_any_club":
        return "The first trick must be led with a club."
    if first and rules.no_points_on_first_trick and values[card] > 0:
        return "No points on the first trick: lead a card that scores nothing."
    if card // 13 == HEARTS and rules.hearts_must_be_broken and not deal.hearts_broken:
        return "Hearts are not broken yet: lead another suit."
    return f"{name} may not be led now."


def _read_line(prompt: str) -> str:
    if sys.stdin.isatty() and sys.stdout.isatty():
        return input(prompt)  # line editing and history when ``readline`` is loaded (``hearts play`` loads it)
    sys.stdout.write(prompt)
    sys.stdout.flush()
    line = sys.stdin.readline()
    if not line:
        raise EOFError
    return line


def default_record_dir() -> Path:
    env = os.environ.get("HEARTS_GAMES_DIR")
    if env:
        return Path(env).expanduser()
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base).expanduser() / "hearts-env" / "games"


def record_path_problem(path: Path) -> str | None:
    """Why a game record cannot be written to ``path`` (checked before the game starts), or ``None``.
    Creates the directory the record goes to, as saving would."""
    if path.is_dir():
        return "it is a directory; give a file name, such as " + str(path / "game.json")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except OSError as err:
        return f"cannot create the directory {path.parent}: {err.strerror or err}"
    probe = path.with_name(path.name + ".tmp")  # the file saving writes first
    try:
        existed = probe.exists()
        with open(probe, "a", encoding="utf-8"):
            pass
        if not existed:
            probe.unlink()
    except OSError as err:
        return f"cannot write there: {err.strerror or err}"
    return None


def new_record_path(seed: int) -> Path:
    base = default_record_dir()
    stamp = time.strftime("%Y%m%d-%H%M%S")
    path = base / f"game-{stamp}-seed{seed}.json"
    k = 1
    while path.exists():
        k += 1
        path = base / f"game-{stamp}-seed{seed}-{k}.json"
    return path


def _cmd_play(args: argparse.Namespace) -> int:
    overrides = rules_overrides(args.players, args.set)
    rules = load_rules_option(args.rules, overrides)
    n = rules.num_players
    if not 0 <= args.seat < n:
        print(f"hearts play: --seat must be a seat 0..{n - 1}", file=sys.stderr)
        return 2
    seed = args.seed if args.seed is not None else secrets.randbelow(10**6)
    specs = [x for item in (args.opponents or []) for x in item.replace(",", " ").split()]
    seats = [(args.seat + k) % n for k in range(1, n)]  # the opponents, from the person's left
    if not specs:
        specs = [default_opponent(rules)]
    if len(specs) > n - 1:
        print(
            f"hearts play: --opponents: {len(specs)} bots for the {n - 1} other seats: give at most one per seat",
            file=sys.stderr,
        )
        return 2
    from .bots import lineup_of

    specs = lineup_of(specs, n - 1)  # as hearts tournament: the last bot fills the remaining seats
    rng = random.Random(seed)
    bots: dict[int, Any] = {}
    labels: dict[int, str] = {}
    for seat, spec in zip(seats, specs, strict=True):
        try:
            bots[seat] = make_player(spec, rules, rng.getrandbits(32))
        except (ValueError, NotImplementedError, HeartsError, OSError) as err:
            print(f"hearts play: opponent {spec!r}: {err}", file=sys.stderr)
            return 2
        labels[seat] = spec_label(spec)
    record = None if args.no_save else (Path(args.record) if args.record else new_record_path(seed))
    if record is not None:
        problem = record_path_problem(record)
        if problem:
            print(
                f"hearts play: cannot save the game record to {record}: {problem} (or play with --no-save)",
                file=sys.stderr,
            )
            return 2
    if sys.stdin.isatty():
        with contextlib.suppress(ImportError):  # not on every platform
            import readline  # noqa: F401  (arrow keys and history at the prompts)
    style = Style.detect(sys.stdout, args.no_color)
    session = PlaySession(
        rules,
        args.seat,
        bots,
        seed=seed,
        single_deal=args.deal,
        style=style,
        record_path=record,
        labels=labels,
        rules_label=describe_rules(args.rules, overrides),
    )
    code = 0
    ending = ""
    try:
        session.run()
    except QuitGame:
        ending = "You quit."
    except EOFError:
        ending = "End of input."
    except KeyboardInterrupt:
        ending = "Interrupted."
        code = 130
    except BaseException:
        session.save()  # whatever went wrong, the game so far is kept
        raise
    saved = session.save()
    if saved:
        where = f"Game record saved to {saved}"
    elif session.save_failed:
        where = f"The game record could not be saved to {record}."
        code = code or 1
    else:
        where = "The game was not saved (--no-save)."
    print(f"\n{ending + ' ' if ending else ''}{where}", flush=True)
    if saved:
        print(f"Replay it with: hearts replay {saved}", flush=True)
    return code


# =============================================================================================
# hearts replay
# =============================================================================================


def _cmd_replay(args: argparse.Namespace) -> int:
    record = load_record(args.record)
    match = replay_record(record)
    rules = match.rules
    n = rules.num_players
    style = Style.detect(sys.stdout, args.no_color)
    names = seat_names(n, None)
    narrator = Narrator(rules, names, style, None)
    narrator.inline_trick_headers = False
    deals = [summary.deal for summary in match.history]
    summaries: list[DealSummary | None] = list(match.history)
    if not match.over and match.deal.actions:
        deals.append(match.deal)
        summaries.append(None)
    interactive = not args.all and sys.stdin.isatty() and sys.stdout.isatty()
    if match.over:
        status = "match complete"
    elif record.get("single_deal") is True:  # written by hearts play --deal
        status = "one-deal game, " + ("unfinished" if match.deal.actions or not match.history else "complete")
    else:
        status = "match unfinished"
    print(style.head(f"Game record {args.record} · {n} players · {len(deals)} deal(s) played · {status}"))

    def pause() -> bool:
        """Wait for Enter; False when the person asks for the rest at once (``a``) or input ends."""
        nonlocal interactive
        if not interactive:
            return True
        try:
            answer = input("[Enter: next trick · a: show the rest · q: quit] ").strip().lower()
        except EOFError:
            interactive = False
            return True
        if answer == "q":
            return False
        if answer == "a":
            interactive = False
        return True

    counted = 0
    for played, summary in zip(deals, summaries, strict=True):
        deal = Deal(
            rules,
            seed=played.seed,
            hands=[cards_of(h) for h in played.dealt_hands],
            kitty=played.kitty_cards,
            dealer=played.dealer,
            pass_kind=played.cycle_kind,
            totals=played.totals_before,
        )
        number = counted + 1
        print("\n".join(narrator.deal_header(deal, number, played.totals_before)))
        print("Dealt hands:")
        for p in range(n):
            print(f"  {names[p]:<7} {style.suit_line(deal.hands[p])}")
        if deal.kitty_cards:
            print(f"  Kitty    {style.cards(deal.kitty_cards)}")
        if deal.phase == PLAYING:
            print(narrator.trick_header(deal))
            _print_hands(deal, names, style)
        for action in played.actions:
            seat = deal.current_player
            phase = deal.phase
            tricks = deal.trick_number
            deal.apply_action(action)
            for line in narrator.after_action(deal, seat, action, phase):
                print(line)
            if phase in (DEALER_CHOICE, PASSING) and deal.phase == PLAYING:
                _print_hands(deal, names, style)
            elif deal.trick_number != tricks and deal.phase == PLAYING:
                if not pause():
                    return 0
                print(narrator.trick_header(deal))
                _print_hands(deal, names, style)
        if deal.is_terminal():
            print("\n".join(["", *narrator.deal_end(deal, summary)]))
            if not deal.cancelled:
                counted += 1
                if summary is not None:
                    print(f"Totals: {' · '.join(f'{names[p]} {summary.totals[p]}' for p in range(n))}")
            if not pause():
                return 0
        else:
            print(style.note("(the record ends here, in the middle of this deal)"))
    if match.over:
        winners = ", ".join(names[p] for p in match.winners)
        print(style.note(f"\nMatch over: {winners} ({match.end_reason}). Final totals: {list(match.totals)}"))
    return 0


def _print_hands(deal: Deal, names: Sequence[str], style: Style) -> None:
    for p in range(deal.num_players):
        print(f"     {names[p]:<7} {style.suit_line(deal.hands[p])}")


# =============================================================================================
# hearts rules / selfplay / front-ends
# =============================================================================================


def _cmd_rules(args: argparse.Namespace) -> int:
    if args.action == "list":
        width = max(map(len, PRESET_DESCRIPTIONS))
        for name, text in PRESET_DESCRIPTIONS.items():
            print(f"{name:<{width}}  {text}")
        print("\n`hearts rules show NAME` prints every option; `hearts rules check FILE` validates a rule file.")
        return 0
    if args.target is None:
        print(
            f"hearts rules {args.action}: name a {'preset or rule file' if args.action == 'show' else 'rule file'}",
            file=sys.stderr,
        )
        return 2
    if args.action == "show":
        rules = Rules.load(args.target)
        if args.target in PRESETS:
            print(f"# {args.target}: {PRESET_DESCRIPTIONS[args.target]}")
        print(rules.to_toml(), end="")
        return 0
    if Path(args.target).is_dir():
        print(f"hearts rules check: {args.target}: is a directory, not a rule file", file=sys.stderr)
        return 2
    if not Path(args.target).is_file():
        print(f"hearts rules check: {args.target}: no such file", file=sys.stderr)
        return 2
    rules = Rules.from_file(args.target)
    t = rules.tables
    print(
        f"{args.target}: valid ({rules.num_players} players, {t.hand_size} cards each"
        f"{f', kitty of {t.kitty_size}' if t.kitty_size else ''}, pass cycle {' '.join(t.pass_cycle)}, "
        f"{t.penalty_total} penalty points per deal)"
    )
    return 0


def _cmd_selfplay(args: argparse.Namespace) -> int:
    rules = load_rules_option(args.rules, rules_overrides(args.players, args.set))
    rng = random.Random(args.seed)
    match = Match(rules, seed=args.seed)
    while not match.is_terminal():
        match.apply_action(rng.choice(match.legal_actions()))
    for summary in match.history:
        tag = " (cancelled)" if summary.deal.cancelled else ""
        kind = summary.deal.pass_kind
        print(f"deal {summary.number:>2} {kind:<8} scores {list(summary.scores)} totals {list(summary.totals)}{tag}")
    print(f"winners: {', '.join(f'seat {p}' for p in match.winners)} ({match.end_reason})")
    return 0


#: Subcommands handed whole to a ``main(argv)`` elsewhere: (module, what it needs).
FRONT_ENDS = {
    "tournament": ("training.evaluate", "numpy"),
    "train": ("training.ppo", "the training extra: pip install -e '.[train]'"),
    "export": ("training.export", "the training extra: pip install -e '.[train]'"),
}


def run_front_end(command: str, argv: Sequence[str]) -> int:
    """``hearts train ARGS`` is ``training.ppo.main(ARGS)`` (likewise export, tournament)."""
    module_name, needs = FRONT_ENDS[command]
    try:
        module = importlib.import_module(module_name)
        entry = module.main
    except (ImportError, AttributeError) as err:
        print(
            f"hearts {command}: {module_name} is not available ({type(err).__name__}: {err}).\n"
            f"It needs {needs}, and a checkout that contains {module_name.replace('.', '/')}.py.",
            file=sys.stderr,
        )
        return 3
    if command == "tournament":
        result = entry(list(argv), prog="hearts tournament")
    else:
        result = entry(list(argv))
    return int(result or 0)


def add_rules_options(parser: argparse.ArgumentParser) -> None:
    """``--rules``, ``--players`` and ``--set``: how every subcommand that takes rules reads them."""
    parser.add_argument("--rules", default="standard", help="a preset name (see `hearts rules`) or a rule file (.toml)")
    parser.add_argument("--players", type=int, help="number of players (3..8): overrides num_players")
    parser.add_argument(
        "--set",
        action="append",
        type=parse_setting,
        metavar="OPTION=VALUE",
        help="override any rule option, e.g. --set moon_mode=add_to_others --set game_end_threshold=50 (repeatable)",
    )


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="hearts",
        description="Hearts: play against the bots, run bot tournaments, train and export policies.",
        epilog="Start with: hearts play",
    )
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    play = sub.add_parser(
        "play",
        help="play against the bots in the terminal",
        description="Play one seat against bots. Cards are typed as QS, qs, Q♠, 10h or TH, or by number; ? for help.",
        epilog="Game records are saved under $HEARTS_GAMES_DIR, else $XDG_DATA_HOME/hearts-env/games "
        "(~/.local/share/hearts-env/games), unless --record PATH or --no-save.",
    )
    add_rules_options(play)
    play.add_argument(
        "--opponents",
        nargs="+",
        metavar="BOT",
        help="random, heuristic or a model directory, one per opponent starting on your left; the last fills the "
        "remaining seats (default: the shipped model models/ppo-standard where it fits the rules, else heuristic)",
    )
    play.add_argument("--seed", type=int, help="fixes the deals and the bots (default: random, printed at the start)")
    play.add_argument("--deal", action="store_true", help="play a single deal instead of a whole match")
    play.add_argument("--seat", type=int, default=0, help="your seat number (default 0)")
    play.add_argument("--no-color", action="store_true", help="plain text, no colours (also: NO_COLOR=1)")
    play.add_argument("--no-save", action="store_true", help="do not save a game record")
    play.add_argument("--record", metavar="PATH", help="where to save the game record (JSON)")
    play.set_defaults(func=_cmd_play)

    sub.add_parser(
        "tournament",
        help="bots against bots over duplicate deals, with 95%% intervals (hearts tournament --help)",
        add_help=False,
    )
    sub.add_parser("train", help="train a PPO policy (training/ppo.py; hearts train --help)", add_help=False)
    sub.add_parser("export", help="export a trained policy to models/<name> (training/export.py)", add_help=False)

    rules = sub.add_parser(
        "rules",
        help="list presets, show a rule set, or check a rule file",
        description="hearts rules: list the presets; hearts rules show NAME; hearts rules check FILE.",
    )
    rules.add_argument("action", nargs="?", default="list", choices=["list", "show", "check"])
    rules.add_argument("target", nargs="?", help="preset name or rule file (show), rule file (check)")
    rules.set_defaults(func=_cmd_rules)

    replay = sub.add_parser(
        "replay",
        help="step through a saved game record trick by trick, every hand shown",
        description="Replays a game record through the engine (checking it), trick by trick with all hands shown. "
        "Pauses after each trick on a terminal; prints everything at once with --all or without a terminal.",
    )
    replay.add_argument("record", help="a game record (JSON) written by hearts play or save_record")
    replay.add_argument("--all", action="store_true", help="print the whole game without pausing")
    replay.add_argument("--no-color", action="store_true", help="plain text, no colours")
    replay.set_defaults(func=_cmd_replay)

    selfplay = sub.add_parser("selfplay", help="random players play a whole match; print the scores")
    add_rules_options(selfplay)
    selfplay.add_argument("--seed", type=int, default=0)
    selfplay.set_defaults(func=_cmd_selfplay)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """The ``hearts`` command. Output into a pipe closed early (``hearts tournament ... | head``) ends
    quietly with status 1, as Python's documentation recommends, without a traceback."""
    try:
        code = _main(argv)
        sys.stdout.flush()  # inside the try: a closed pipe shows up here at the latest
        return code
    except BrokenPipeError:
        try:  # nothing more can reach the reader: send the rest (and the flush at exit) to devnull
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, sys.stdout.fileno())
        except (OSError, ValueError):  # no real file descriptor (stdout replaced, as in tests)
            pass
        return 1


def _main(argv: Sequence[str] | None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv and argv[0] in FRONT_ENDS:
        return run_front_end(argv[0], argv[1:])
    args = build_parser().parse_args(argv)
    try:
        return args.func(args)
    except RulesError as err:
        option = f" (option {err.option})" if err.option else ""
        print(f"hearts: invalid rules{option}: {err}", file=sys.stderr)
        return 2
    except HeartsError as err:
        print(f"hearts: {err}", file=sys.stderr)
        return 2


__all__ = [
    "Narrator",
    "PlaySession",
    "Style",
    "build_parser",
    "default_opponent",
    "default_record_dir",
    "illegal_reason",
    "load_rules_option",
    "main",
    "make_player",
    "parse_setting",
    "seat_names",
    "spec_label",
]
