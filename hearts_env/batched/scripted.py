"""The scripted adversaries of ``hearts_env.bots.scripted`` as batched policies, for training pools.

Each is a ``hearts_env.batched.protocols.BatchPolicy`` that reads the engine's bitmask state (the
seat's hand, the cards it played, the won piles less the kitty, the current trick) and makes, row by
row, the choice the reference bot makes from the seat's observation; where the reference bot defers
to the heuristic bot, the row gets the engine's ``heuristic_actions``. Rows of a
``MixedBatchedHearts`` are asked of the part that plays them. This room may not import
``hearts_env.bots``, so the twins are checked from outside: ``tests/test_scripted.py`` plays them
beside the reference bots over random deals of several rule sets and fails at the first choice that
differs.

- ``BatchedMoonSeeker(passing="low", giveup="early", when="always", follow="highest")``: the moon
  seekers (``moon[:pass=...,giveup=...,when=...,follow=...]``).
- ``BatchedDuck``: ``duck``. ``BatchedQueenDumper``: ``queendump``. ``BatchedHighest``: ``highest``.

``BATCHED_ADVERSARIES`` maps the labels of ``hearts_env.bots.scripted.ADVERSARIES`` to factories.
"""

from __future__ import annotations

from collections.abc import Callable

import torch

from ..core.cards import AS, CLUBS, DIAMONDS, HEARTS, KS, QS, SPADES
from ..core.rules import Rules
from .batch import BatchedHearts
from .multi import MixedBatchedHearts
from .params import PASSING
from .protocols import BatchEngine, BatchPolicy
from .state import BatchState, row_index

#: High-card points of ranks J, Q, K, A and the ``when=strong`` thresholds (as the reference bot's).
HIGH_CARD_POINTS = (0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 2, 3, 4)
STRONG_POINTS_PER_13 = 15
STRONG_HEART_POINTS = 5
#: The moon seeker's options, as the reference bot's ``MOON_OPTIONS`` (the bots room is not importable here).
_MOON_OPTIONS = {
    "pass": ("low", "heuristic"),
    "giveup": ("early", "late", "never"),
    "when": ("always", "strong"),
    "follow": ("highest", "cheap"),
}

_NONE = -1


class _Tables:
    """Per-card tensors of one rule set on one device."""

    def __init__(self, part: BatchedHearts) -> None:
        rules = part.rules
        t = rules.tables
        d = part.device
        self.rules: Rules = rules
        self.kernel = part.kernel
        self.bits = part.kernel.bits
        self.suit_masks = part.kernel.suit_masks
        self.seats = part.kernel.seats
        self.n = rules.num_players
        values = list(t.card_values)
        order = {v: i for i, v in enumerate(sorted(set(values)))}
        self.cards = torch.arange(52, device=d)
        self.rank = self.cards % 13
        self.suit = torch.div(self.cards, 13, rounding_mode="floor")
        self.values = torch.tensor(values, dtype=torch.int64, device=d)
        #: the order of each card's value among the rule set's values (keys stay small)
        self.value_order = torch.tensor([order[v] for v in values], dtype=torch.int64, device=d)
        self.hcp = torch.tensor([HIGH_CARD_POINTS[c % 13] for c in range(52)], dtype=torch.int64, device=d)
        self.penalty_mask = t.penalty_mask
        self.bonus = t.bonus_card
        self.moon_on = rules.moon_enabled and t.penalty_total > 0
        self.queen_counts = values[QS] > 0


class _Row:
    """What a script reads of the rows it decides: the seat to move, its legal cards, the trick."""

    def __init__(self, s: BatchState, t: _Tables) -> None:
        self.s = s
        self.t = t
        bits = t.bits
        self.o = s.current.unsqueeze(1)
        self.hand_mask = s.hands.gather(1, self.o).squeeze(1)
        self.hand = bits.to_bool(self.hand_mask)
        self.legal = bits.to_bool(s.legal_cards)
        has_cards = s.legal_cards != 0
        self.passing = has_cards & (s.phase == PASSING)
        playing = has_cards & ~self.passing
        self.leading = playing & (s.trick_len == 0)
        led = s.led_suit.clamp(min=0)
        off_suit = (s.legal_cards & ~t.suit_masks.index_select(0, led)) != 0
        self.following = playing & (s.trick_len > 0) & ~off_suit
        self.discarding = playing & (s.trick_len > 0) & off_suit

    def pick(self, cards: torch.Tensor, key: torch.Tensor, highest: bool) -> torch.Tensor:
        """The card of ``cards`` ``(M, 52)`` with the largest (smallest) ``key`` ``(52,)`` or ``(M, 52)``;
        keys are ``... * 64 + card``, so each card's is unique. -1 for an empty set."""
        key = key.expand_as(cards)
        if highest:
            best = torch.where(cards, key, -1).amax(1)
            return torch.where(best >= 0, best % 64, _NONE)
        big = torch.iinfo(torch.int64).max
        best = torch.where(cards, key, big).amin(1)
        return torch.where(best < big, best % 64, _NONE)


class _ScriptedPolicy:
    """The frame: each row gets the script's card, or the heuristic's action where the script has no
    opinion (-1), as ``hearts_env.bots.scripted.ScriptedBot`` does."""

    name = "scripted"

    def __init__(self) -> None:
        self._tables: dict[tuple[Rules, str], _Tables] = {}

    def act(
        self,
        engine: BatchEngine,
        rows: torch.Tensor,
        obs: torch.Tensor | None = None,
        mask: torch.Tensor | None = None,
        generator: torch.Generator | None = None,
    ) -> torch.Tensor:
        """The script's action for the seat to move in each of ``rows``; ``obs``, ``mask`` and
        ``generator`` are not needed (the choice is deterministic and read from the state)."""
        rows = row_index(rows, engine.batch_size, engine.device)
        if isinstance(engine, BatchedHearts):
            return self._part(engine, rows)
        if isinstance(engine, MixedBatchedHearts):
            actions = torch.zeros(rows.numel(), dtype=torch.int64, device=engine.device)
            for i, part in enumerate(engine.parts):
                a, b = engine.bounds[i], engine.bounds[i + 1]
                mine = (rows >= a) & (rows < b)
                if bool(mine.any()):
                    actions[mine] = self._part(part, rows[mine] - a)
            return actions
        raise TypeError(f"{self.name}: needs a BatchedHearts or MixedBatchedHearts, got {type(engine).__name__}")

    def __call__(self, engine: BatchEngine) -> torch.Tensor:
        """Actions for all rows."""
        return self.act(engine, torch.arange(engine.batch_size, device=engine.device))

    def tables(self, part: BatchedHearts) -> _Tables:
        key = (part.rules, str(part.device))
        if key not in self._tables:
            self._tables[key] = _Tables(part)
        return self._tables[key]

    def _part(self, part: BatchedHearts, rows: torch.Tensor) -> torch.Tensor:
        if rows.numel() == 0:
            return torch.zeros(0, dtype=torch.int64, device=part.device)
        r = _Row(part.state.rows(rows), self.tables(part))
        action = self.choose(r)
        need = action < 0
        if bool(need.any()):
            action = action.clone()
            action[need] = part.heuristic_actions(rows[need])
        return action

    def choose(self, r: _Row) -> torch.Tensor:
        """The script's card per row, -1 for "ask the heuristic"."""
        raise NotImplementedError


def _decide(action: torch.Tensor, cond: torch.Tensor, value: torch.Tensor) -> torch.Tensor:
    return torch.where((action < 0) & cond, value, action)


class BatchedMoonSeeker(_ScriptedPolicy):
    """``hearts_env.bots.scripted.MoonSeeker`` (``moon:pass=...,giveup=...,when=...,follow=...``)."""

    def __init__(
        self, passing: str = "low", giveup: str = "early", when: str = "always", follow: str = "highest"
    ) -> None:
        super().__init__()
        chosen = {"pass": passing, "giveup": giveup, "when": when, "follow": follow}
        for key, value in chosen.items():
            if value not in _MOON_OPTIONS[key]:
                raise ValueError(f"moon seeker: bad {key}={value!r}; {key} is one of {', '.join(_MOON_OPTIONS[key])}")
        self.passing, self.giveup, self.when, self.follow = passing, giveup, when, follow
        self.name = f"moon:pass={passing},giveup={giveup},when={when},follow={follow}"

    def choose(self, r: _Row) -> torch.Tensor:
        s, t = r.s, r.t
        m = s.batch_size
        action = torch.full((m,), _NONE, dtype=torch.int64, device=s.phase.device)
        if not t.moon_on:
            return action
        full = t.bits.to_bool(r.hand_mask | s.played.gather(1, r.o).squeeze(1))
        if self.when == "strong":
            points = (full * t.hcp).sum(1)
            hearts = (full * t.hcp * (t.suit == HEARTS)).sum(1)
            strong = (points * 13 >= STRONG_POINTS_PER_13 * full.sum(1)) & (hearts >= STRONG_HEART_POINTS)
        else:
            strong = torch.ones(m, dtype=torch.bool, device=action.device)
        if self.passing == "low":
            key = (((t.values != 0).long() * 16 + t.rank) * 64 + t.cards).unsqueeze(0)
            action = _decide(action, r.passing & strong, r.pick(r.legal, key, highest=False))
        going = strong
        if self.giveup != "never":
            others = t.seats.unsqueeze(0) != r.o
            trick_piles = s.won & ~s.kitty_mask.unsqueeze(1)
            dead = (((trick_piles & t.penalty_mask) != 0) & others).any(1)
            lost = s.tricks_won.gather(1, r.o).squeeze(1) != s.trick_number
            if self.giveup == "early" or t.rules.moon_requires_all_tricks:
                dead = dead | lost
            if t.rules.moon_requires_bonus_card and t.bonus >= 0:
                dead = dead | ((((trick_piles >> t.bonus) & 1) == 1) & others).any(1)
            going = going & ~dead
        lead_key = (t.rank * 64 + t.cards).unsqueeze(0)
        action = _decide(action, r.leading & going, r.pick(r.legal, lead_key, highest=True))
        above = r.legal & (t.cards > s.best_card.unsqueeze(1))
        beat = r.pick(above, t.cards, highest=True)
        if self.follow == "cheap":
            last = s.trick_len == t.rules.num_players - 1
            beat = torch.where(last, r.pick(above, t.cards, highest=False), beat)
        follow = torch.where(above.any(1), beat, r.pick(r.legal, t.cards, highest=False))
        action = _decide(action, r.following & going, follow)
        order = (t.values > 0).long() * 2 + (t.values < 0).long()
        discard_key = ((order * 16 + t.rank) * 64 + t.cards).unsqueeze(0)
        return _decide(action, r.discarding & going, r.pick(r.legal, discard_key, highest=False))


class BatchedDuck(_ScriptedPolicy):
    """``hearts_env.bots.scripted.DuckBot`` (``duck``)."""

    name = "duck"

    def choose(self, r: _Row) -> torch.Tensor:
        s, t = r.s, r.t
        action = torch.full((s.batch_size,), _NONE, dtype=torch.int64, device=s.phase.device)
        action = _decide(action, r.leading, r.pick(r.legal, (t.rank * 64 + t.cards).unsqueeze(0), highest=False))
        below = r.legal & (t.cards < s.best_card.unsqueeze(1))
        follow = torch.where(
            below.any(1), r.pick(below, t.cards, highest=True), r.pick(r.legal, t.cards, highest=False)
        )
        action = _decide(action, r.following, follow)
        key = ((((t.values > 0).long() * 64 + t.value_order) * 16 + t.rank) * 64 + t.cards).unsqueeze(0)
        return _decide(action, r.discarding, r.pick(r.legal, key, highest=True))


class BatchedQueenDumper(_ScriptedPolicy):
    """``hearts_env.bots.scripted.QueenDumper`` (``queendump``)."""

    name = "queendump"

    def choose(self, r: _Row) -> torch.Tensor:
        s, t = r.s, r.t
        m = s.batch_size
        action = torch.full((m,), _NONE, dtype=torch.int64, device=s.phase.device)
        if not t.queen_counts:
            return action
        # the shorter of clubs and diamonds held (clubs on a tie), -1 when neither
        lengths = r.hand.view(m, 4, 13).sum(2)
        clubs, diamonds = lengths[:, CLUBS], lengths[:, DIAMONDS]
        short = torch.where(
            (clubs > 0) & ((clubs <= diamonds) | (diamonds == 0)), CLUBS, torch.where(diamonds > 0, DIAMONDS, -1)
        )
        in_short = t.suit.unsqueeze(0) == short.unsqueeze(1)
        spade_honour = ((t.cards == AS) | (t.cards == KS)).unsqueeze(0)
        hearts = (t.suit == HEARTS).unsqueeze(0)
        priority = torch.where(hearts, 100 + t.rank, t.rank).expand(m, 52)
        priority = torch.where(in_short, 200 + t.rank, priority)
        priority = torch.where(spade_honour, 300 + t.rank, priority)
        priority = torch.where((t.cards == QS).unsqueeze(0), -1, priority)
        action = _decide(action, r.passing, r.pick(r.legal, (priority + 1) * 64 + t.cards, highest=True))
        # leading
        holds_queen = r.hand[:, QS]
        side = r.legal & in_short
        action = _decide(action, r.leading & holds_queen, r.pick(side, t.cards, highest=False))
        played = s.played.sum(1)
        queen_out = ((played >> QS) & 1) == 0
        no_top = ~(r.hand[:, KS] | r.hand[:, AS])
        low_spades = r.legal & (t.suit == SPADES) & (t.cards < QS)
        cond = r.leading & ~holds_queen & queen_out & no_top
        action = _decide(action, cond, r.pick(low_spades, t.cards, highest=False))
        # following: drop the queen under a higher spade; void: the queen, then the highest heart
        queen = torch.full_like(action, QS)
        action = _decide(action, r.following & r.legal[:, QS] & (s.best_card > QS), queen)
        action = _decide(action, r.discarding & r.legal[:, QS], queen)
        heart_points = r.legal & hearts & (t.values > 0)
        key = (t.value_order * 64 + t.cards).unsqueeze(0)
        return _decide(action, r.discarding, r.pick(heart_points, key, highest=True))


class BatchedHighest(_ScriptedPolicy):
    """``hearts_env.bots.scripted.HighestBot`` (``highest``): the highest legal card."""

    name = "highest"

    def choose(self, r: _Row) -> torch.Tensor:
        return r.pick(r.legal, r.t.cards, highest=True)


#: The suite's labels (``hearts_env.bots.scripted.ADVERSARIES``) -> batched policy factories.
BATCHED_ADVERSARIES: dict[str, Callable[[], BatchPolicy]] = {
    "moon": BatchedMoonSeeker,
    "moon-heuristic-pass": lambda: BatchedMoonSeeker(passing="heuristic"),
    "moon-stubborn": lambda: BatchedMoonSeeker(giveup="never"),
    "moon-late": lambda: BatchedMoonSeeker(giveup="late"),
    "moon-selective": lambda: BatchedMoonSeeker(when="strong"),
    "moon-cheap": lambda: BatchedMoonSeeker(giveup="late", follow="cheap"),
    "duck": BatchedDuck,
    "queendump": BatchedQueenDumper,
    "highest": BatchedHighest,
}

__all__ = [
    "BATCHED_ADVERSARIES",
    "BatchedDuck",
    "BatchedHighest",
    "BatchedMoonSeeker",
    "BatchedQueenDumper",
]
