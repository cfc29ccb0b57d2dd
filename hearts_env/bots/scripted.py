"""Scripted adversaries: simple, exploitative players that probe what a model has not learned to defend.

The exploitability suite puts each of them at a table of three copies of the model under
test and compares with the same adversary against three heuristic bots. Each is a ``Bot`` that reads
only its seat's observation (``decode_observation``), plays every rule set, and takes the heuristic
bot's choice (``HeuristicBot``) for every decision it has no opinion on (the special decisions:
pass-through, dealer's choice, voiding the deal, the moon choice; and whatever its script leaves
open). All are deterministic and stateless: a choice depends on the observation alone, so the batched
twins (``hearts_env.batched.scripted``) can make the same choices from the engine's bitmasks.

Specs for ``make_bot`` and labels for the suite (``ADVERSARIES``, label -> spec):

- ``moon[:key=value,...]``: a moon seeker. While it is *going for the moon* it leads its highest card
  (by rank, ties to the higher card id), follows with its highest card when that beats the trick's
  winning card and with its lowest card when nothing can, and when void discards its lowest
  point-free card (never a penalty card onto another seat's trick). Otherwise it plays as the
  heuristic bot. Keys (defaults first):

  - ``pass=low|heuristic``: ``low`` passes its lowest cards by rank, keeping the cards that score
    (hearts, the ♠Q, the bonus card) to the last; ``heuristic`` passes as the heuristic bot does.
  - ``giveup=early|late|never``: when it stops going for the moon. ``early`` as soon as another
    seat wins a trick; ``late`` only once the moon is impossible from what it sees (another seat
    took a penalty card in a trick, or won a trick where the moon needs every trick, or won the bonus
    card where the moon needs it); ``never``: it keeps going to the end of the deal.
  - ``when=always|strong``: ``strong`` only tries (and only passes low) when its hand looks
    moon-worthy: high-card points (J 1, Q 2, K 3, A 4) at least 15 per 13 cards, and at least 5 of
    them in hearts. The hand is the one dealt while passing and the one after the pass while playing
    (its hand plus the cards it has played).

  - ``follow=highest|cheap``: ``cheap`` follows with its lowest card that beats the trick's winning
    card when it plays last to the trick (no one can overtake it), keeping its high cards and winning
    with middling ones; elsewhere it follows as ``highest`` does. It probes defences that watch for a
    seeker winning with high cards (``guard:...,wins=K``).

  Where the rules have no moon (``moon_enabled`` off, or no penalty points) every seeker is the
  heuristic bot.
- ``duck``: ducks everything: follows with its highest card that still loses the trick, its lowest
  card when it cannot; leads its lowest card; when void dumps its highest-valued penalty card (then
  its highest card, keeping the bonus card). Passes as the heuristic bot.
- ``queendump``: plays to hand the ♠Q to someone else at the first chance. Passing, it keeps the ♠Q,
  passes the ♠A and ♠K (they would catch a queen it flushes), then the cards of its shortest side
  suit (clubs or diamonds, to void it early and dump on the next lead of it), then its highest
  hearts. Playing, when void it dumps the ♠Q, else its highest-valued heart; following spades it
  drops the ♠Q under a ♠K/♠A; leading, it flushes the queen with its lowest spade while the ♠Q is
  out and it holds none of the top spades, and with the ♠Q in hand leads the lowest card of its
  shortest side suit to void it. Anything else is the heuristic bot's choice. Where the ♠Q scores
  nothing it is the heuristic bot.
- ``highest``: an early probe: always the highest legal card (by card id).

A bad spec raises ``ValueError`` naming the bad key or value and the allowed ones.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

from ..core.cards import AS, CLUBS, DIAMONDS, HEARTS, KS, NUM_CARDS, QS, SPADES
from ..core.rules import Rules
from ..obs import SeatView, decode_observation
from .heuristic import HeuristicBot

#: The suite's adversaries: label -> ``make_bot`` spec.
ADVERSARIES: dict[str, str] = {
    "moon": "moon",
    "moon-heuristic-pass": "moon:pass=heuristic",
    "moon-stubborn": "moon:giveup=never",
    "moon-late": "moon:giveup=late",
    "moon-selective": "moon:when=strong",
    "moon-cheap": "moon:giveup=late,follow=cheap",
    "duck": "duck",
    "queendump": "queendump",
    "highest": "highest",
}

#: The bare names of the scripted specs (``make_bot`` dispatches on these).
SCRIPTED_SPECS = ("moon", "duck", "queendump", "highest")

#: The moon seeker's options: key -> allowed values, the default first.
MOON_OPTIONS: dict[str, tuple[str, ...]] = {
    "pass": ("low", "heuristic"),
    "giveup": ("early", "late", "never"),
    "when": ("always", "strong"),
    "follow": ("highest", "cheap"),
}

#: High-card points of ranks J, Q, K, A (rank index 9..12) for ``when=strong``.
HIGH_CARD_POINTS = (0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 2, 3, 4)
#: ``when=strong``: high-card points needed per 13 cards, and in hearts.
STRONG_POINTS_PER_13 = 15
STRONG_HEART_POINTS = 5


def _suit(card: int) -> int:
    return card // 13


def _rank(card: int) -> int:
    return card % 13


@dataclass(frozen=True)
class MoonOptions:
    """A moon seeker's options (``MOON_OPTIONS``)."""

    passing: str = "low"
    giveup: str = "early"
    when: str = "always"
    follow: str = "highest"


def parse_moon_spec(spec: str) -> MoonOptions:
    """The options of ``moon`` / ``moon:key=value,...``; ``ValueError`` names a bad key or value."""
    name, _, tail = spec.partition(":")
    if name != "moon":
        raise ValueError(f"not a moon seeker spec: {spec!r}")
    chosen: dict[str, str] = {}
    for item in tail.split(",") if tail else []:
        key, eq, value = (part.strip() for part in item.partition("="))
        if key not in MOON_OPTIONS:
            raise ValueError(f"moon seeker: unknown key {key!r} in {spec!r}; keys are {', '.join(MOON_OPTIONS)}")
        if not eq:
            raise ValueError(f"moon seeker: key {key!r} needs a value ({key}={'|'.join(MOON_OPTIONS[key])})")
        if key in chosen:
            raise ValueError(f"moon seeker: key {key!r} given twice in {spec!r}")
        if value not in MOON_OPTIONS[key]:
            raise ValueError(
                f"moon seeker: bad value {value!r} for {key!r}; {key} is one of {', '.join(MOON_OPTIONS[key])}"
            )
        chosen[key] = value
    return MoonOptions(
        passing=chosen.get("pass", "low"),
        giveup=chosen.get("giveup", "early"),
        when=chosen.get("when", "always"),
        follow=chosen.get("follow", "highest"),
    )


class ScriptedBot:
    """The shared frame: forced moves, special decisions and anything the script leaves open go to the
    heuristic bot; subclasses give ``_pass`` and ``_play`` (returning ``None`` for "no opinion")."""

    name = "scripted"

    def __init__(self, rules: Rules, seed: int | None = None) -> None:
        self.rules = rules
        self.heuristic = HeuristicBot(rules, seed)
        t = rules.tables
        self.values = t.card_values

    def reset(self, seed: int | None = None) -> None:
        """Nothing to reset: scripted bots keep no state between decisions."""

    def act(self, observation: Mapping[str, np.ndarray]) -> int:
        legal = np.flatnonzero(observation["action_mask"]).tolist()
        if not legal:
            raise ValueError("no legal action: this observation is not for the seat to move")
        if len(legal) == 1:
            return int(legal[0])
        if legal[0] >= NUM_CARDS:  # a special decision
            return self.heuristic.act(observation)
        view = decode_observation(observation["observation"], self.rules)
        choice = self._pass(view, legal) if view.phase == "passing" else self._play(view, legal)
        return self.heuristic.act(observation) if choice is None else choice

    def _pass(self, view: SeatView, legal: list[int]) -> int | None:
        return None

    def _play(self, view: SeatView, legal: list[int]) -> int | None:
        return None

    @staticmethod
    def _winning(view: SeatView) -> int:
        """The card winning the current trick so far (the highest of the led suit)."""
        led = _suit(view.trick[0])
        return max(c for c in view.trick if _suit(c) == led)

    @staticmethod
    def _following(view: SeatView, legal: list[int]) -> bool:
        return all(_suit(c) == _suit(view.trick[0]) for c in legal)


class MoonSeeker(ScriptedBot):
    """Goes for the moon (module doc, ``moon:pass=...,giveup=...,when=...,follow=...``)."""

    def __init__(self, rules: Rules, seed: int | None = None, options: MoonOptions | None = None) -> None:
        super().__init__(rules, seed)
        self.options = options or MoonOptions()
        t = rules.tables
        self.moon_on = rules.moon_enabled and t.penalty_total > 0
        self.bonus = t.bonus_card
        o = self.options
        self.name = f"moon:pass={o.passing},giveup={o.giveup},when={o.when},follow={o.follow}"

    def moon_worthy(self, cards: set[int]) -> bool:
        """Whether ``cards`` look moon-worthy (``when=strong``)."""
        if self.options.when == "always":
            return True
        points = sum(HIGH_CARD_POINTS[_rank(c)] for c in cards)
        hearts = sum(HIGH_CARD_POINTS[_rank(c)] for c in cards if _suit(c) == HEARTS)
        return points * 13 >= STRONG_POINTS_PER_13 * len(cards) and hearts >= STRONG_HEART_POINTS

    def _pass(self, view: SeatView, legal: list[int]) -> int | None:
        if not self.moon_on or self.options.passing == "heuristic" or not self.moon_worthy(set(view.hand)):
            return None
        values = self.values
        return min(legal, key=lambda c: (values[c] != 0, _rank(c), c))

    def going_for_it(self, view: SeatView) -> bool:
        """Whether it still goes for the moon, from what the seat sees."""
        if not self.moon_on or not self.moon_worthy(set(view.hand) | set(view.played_by[0])):
            return False
        if self.options.giveup == "never":
            return True
        rules, values = self.rules, self.values
        others = view.won_by[1:]
        lost_a_trick = view.tricks_won[0] != view.trick_number
        if any(values[c] > 0 for row in others for c in row):
            return False
        if lost_a_trick and (self.options.giveup == "early" or rules.moon_requires_all_tricks):
            return False
        return not (rules.moon_requires_bonus_card and any(self.bonus in row for row in others))

    def _play(self, view: SeatView, legal: list[int]) -> int | None:
        if not self.going_for_it(view):
            return None
        if not view.trick:
            return max(legal, key=lambda c: (_rank(c), c))
        if self._following(view, legal):
            winning = self._winning(view)
            above = [c for c in legal if c > winning]
            if not above:
                return min(legal)
            last = len(view.trick) == self.rules.num_players - 1
            return min(above) if last and self.options.follow == "cheap" else max(above)
        values = self.values
        return min(legal, key=lambda c: (values[c] > 0, values[c] < 0, _rank(c), c))


class DuckBot(ScriptedBot):
    """Ducks everything (module doc, ``duck``)."""

    name = "duck"

    def _play(self, view: SeatView, legal: list[int]) -> int | None:
        if not view.trick:
            return min(legal, key=lambda c: (_rank(c), c))
        if self._following(view, legal):
            below = [c for c in legal if c < self._winning(view)]
            return max(below) if below else min(legal)
        values = self.values
        return max(legal, key=lambda c: (values[c] > 0, values[c], _rank(c), c))


class QueenDumper(ScriptedBot):
    """Gets rid of the ♠Q at the first chance (module doc, ``queendump``)."""

    name = "queendump"

    def __init__(self, rules: Rules, seed: int | None = None) -> None:
        super().__init__(rules, seed)
        self.queen_counts = self.values[QS] > 0

    @staticmethod
    def _shortest_side_suit(hand: set[int]) -> int | None:
        """The shorter of clubs and diamonds that ``hand`` holds (clubs on a tie), else ``None``."""
        lengths = [(sum(1 for c in hand if _suit(c) == s), s) for s in (CLUBS, DIAMONDS)]
        held = [item for item in lengths if item[0] > 0]
        return min(held)[1] if held else None

    def _pass(self, view: SeatView, legal: list[int]) -> int | None:
        if not self.queen_counts:
            return None
        short = self._shortest_side_suit(set(view.hand))

        def priority(card: int) -> int:
            if card == QS:
                return -1
            if card in (AS, KS):
                return 300 + _rank(card)
            if _suit(card) == short:
                return 200 + _rank(card)
            if _suit(card) == HEARTS:
                return 100 + _rank(card)
            return _rank(card)

        return max(legal, key=lambda c: (priority(c), c))

    def _play(self, view: SeatView, legal: list[int]) -> int | None:
        if not self.queen_counts:
            return None
        values = self.values
        if not view.trick:
            hand = set(view.hand)
            if QS in hand:
                short = self._shortest_side_suit(hand)
                side = [c for c in legal if _suit(c) == short]
                return min(side) if side else None
            queen_out = QS not in view.played
            low_spades = [c for c in legal if _suit(c) == SPADES and c < QS]
            if queen_out and not hand & {KS, AS} and low_spades:
                return min(low_spades)
            return None
        if self._following(view, legal):
            if QS in legal and self._winning(view) > QS:
                return QS
            return None
        if QS in legal:
            return QS
        hearts = [c for c in legal if _suit(c) == HEARTS and values[c] > 0]
        return max(hearts, key=lambda c: (values[c], c)) if hearts else None


class HighestBot(ScriptedBot):
    """Always the highest legal card (``highest``); special decisions are the heuristic bot's."""

    name = "highest"

    def _pass(self, view: SeatView, legal: list[int]) -> int | None:
        return max(legal)

    def _play(self, view: SeatView, legal: list[int]) -> int | None:
        return max(legal)


def scripted_bot(spec: str, rules: Rules, seed: int | None = None) -> ScriptedBot:
    """The scripted bot ``spec`` names (``moon[:...]``, ``duck``, ``queendump``, ``highest``)."""
    name, colon, tail = spec.partition(":")
    if name == "moon":
        return MoonSeeker(rules, seed, parse_moon_spec(spec))
    simple: dict[str, type[ScriptedBot]] = {"duck": DuckBot, "queendump": QueenDumper, "highest": HighestBot}
    if name not in simple:
        raise ValueError(f"unknown scripted bot {spec!r}; use one of {', '.join(SCRIPTED_SPECS)}")
    if colon:
        raise ValueError(f"the {name!r} bot takes no options, got {tail!r}")
    return simple[name](rules, seed)


__all__ = [
    "ADVERSARIES",
    "MOON_OPTIONS",
    "SCRIPTED_SPECS",
    "DuckBot",
    "HighestBot",
    "MoonOptions",
    "MoonSeeker",
    "QueenDumper",
    "ScriptedBot",
    "parse_moon_spec",
    "scripted_bot",
]
