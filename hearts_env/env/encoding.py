"""The observation encoding: the single definition of what a seat sees.

``ENCODING_VERSION = 1``. One flat ``float32`` vector of ``OBSERVATION_SIZE`` (2,577) entries, the
same size for every rule set and every number of players: per-seat segments are padded to
``MAX_SEATS = 8`` seats, so one network can play any preset with any N. The vector is
**seat-relative**: the observing seat is always seat 0 of its own view, seat ``r`` is the seat
``r`` places to its left (clockwise, the direction of play), and rows ``N..7`` of a per-seat
segment are always zero (``live_columns(N)`` lists every other entry). Cards are indexed by card id
(``suit * 13 + rank``, suits ♣ ♦ ♠ ♥, ranks 2..A; see ``hearts_env.core.cards``).

It holds everything the seat may know and nothing else. What it never shows: another seat's hand;
another seat's chosen pass cards or pass-through declaration before the pass resolves; who passed
what to whom between other seats; the source of smoosh cards; the packet a pass-through seat
forwards unless ``pass_through_visible``; the kitty's cards (face down: only how many each seat
took). Everything else a seat has seen at the table (every card played and by whom, every trick
and its winner) is shown.

Segments, in order (``r`` = relative seat, ``c`` = card id, ``i`` = position in the trick):

| segment | size | range | meaning |
|---|---|---|---|
| `hand` | 52 | 0/1 | cards in my hand (cards chosen to pass stay here until the pass resolves) |
| `played_by` | 8×52 | 0/1 | row r: cards seat r has played this deal (current trick included) |
| `won_by` | 8×52 | 0/1 | row r: cards of the tricks seat r has won (kitty cards excluded) |
| `trick` | 8×52 | 0/1 | row i: the i-th card played to the current trick (one-hot) |
| `trick_leader` | 8 | 0/1 | the seat that leads (led) the current trick; zero outside the playing phase |
| `to_move` | 8 | 0/1 | the seat to move; zero once the deal (match) is over |
| `dealer` | 8 | 0/1 | the dealer |
| `passed_to` | 9×52 | 0/1 | rows 0..7: cards I pass (chosen so far) / passed to seat r; row 8: into the smoosh pool |
| `received_from` | 9×52 | 0/1 | rows 0..7: cards I received from seat r; row 8: from the smoosh pool (source unknown) |
| `forwarded` | 52 | 0/1 | cards that went through my seat as a pass-through seat (if `pass_through_visible`) |
| `pass_through` | 8 | 0/1 | seats that declared pass-through (mine at once, the others' once the pass resolves) |
| `kitty_taken` | 8 | 0..1 | kitty cards seat r has taken, as a fraction of the kitty |
| `tricks_won` | 8 | 0..1 | tricks seat r has won / tricks per deal |
| `points_taken` | 8 | -4..4 | card points in seat r's won tricks / the deal's penalty total (clipped) |
| `void_in` | 8×4 | 0/1 | row r: the suits (♣ ♦ ♠ ♥) seat r has shown void in by not following suit |
| `phase` | 5 | 0/1 | one-hot: dealer_choice, passing, playing, moon_choice, done |
| `pass_kind` | 10 | 0/1 | this deal's pass: one-hot offset 1..7 (left = 1), hold, scatter, smoosh; 0 until known |
| `dealer_choice` | 1 | 0/1 | this deal's pass kind is (or will be) the dealer's choice |
| `trick_number` | 1 | 0..1 | tricks completed / tricks per deal |
| `hearts_broken` | 1 | 0/1 | a heart (or a hearts-breaking ♠Q) has been played |
| `queen_played` | 1 | 0/1 | ♠Q has been played |
| `lead_heart_declared` | 1 | 0/1 | the all-hearts leader declined to void the deal and will lead a heart |
| `totals` | 8 | -10..10 | match totals / 100 (clipped): before this deal; after the last one once the match is over |
| `deal_number` | 1 | 0..10 | counted deals completed in the match / 10 (clipped) |
| `match_episode` | 1 | 0/1 | 1 in match episodes, 0 in single-deal episodes |
| `seats` | 8 | 0/1 | 1 for the seats in play (r < N) |
| `num_players` | 6 | 0/1 | one-hot N = 3..8 |
| `deck` | 52 | 0/1 | cards in play (not removed from the deck) |
| `card_points` | 52 | -8..8 | points of each card / 13 (clipped) |
| `rules` | 53 | -10..10 | the other rule options that change play or scoring (``RULE_FEATURES``) |

The ``rules`` segment, one entry each (flags are 0/1; enums are one-hot blocks):

| entries | meaning |
|---|---|
| `hand_size` | cards per hand / 17 |
| `kitty_size` | kitty cards / 4 |
| `kitty_taker:*` (3) | first_trick_winner, first_penalty_taker, one_card_per_trick |
| `pass_count` | pass_count / 17 |
| `passing_enabled`, `allow_pass_through`, `pass_through_visible`, `void_deal_advances_pass_cycle` | flags |
| `first_lead:*` (3) | opening_card_must_be_led, opening_card_holder_any_club, eldest_any_card |
| `hearts_must_be_broken`, `queen_breaks_hearts`, `queen_and_hearts_only_may_lead_heart` | flags |
| `no_points_on_first_trick`, `first_trick_fallback_heart_before_queen`, `queen_must_be_played_when_safe` | flags |
| `all_hearts_leader_unbroken:*` (3) | lead_heart, void_deal, leader_may_void |
| `moon_enabled`, `moon_requires_all_tricks`, `moon_requires_bonus_card`, `moon_tie_counts_as_first` | flags |
| `moon_value` | moon value / penalty total |
| `moon_mode:*` (5) | subtract_from_shooter, add_to_others, shooter_choice, add_unless_shooter_loses, cancel_deal |
| `sun_enabled`, `sun_value` | flag; sun value / penalty total |
| `no_tricks_adjustment`, `no_tricks_adjustment_on_moon` | adjustment / penalty total; flag |
| `penalty_total` | the deal's penalty total / 26 |
| `game_end_threshold`, `single_deal_game` | threshold / 100 (0 when none); 1 when there is no threshold |
| `tie_play_another_deal`, `dealer_counterclockwise` | flags |
| `instant_win`, `instant_win_score`, `instant_win_at_deal`, `instant_win_or_after` | flag, score/100, deal/10, flag |
| `reset_from_k`, `reset_to_k` (k = 0..3) | the first four exact-score resets, / 100 |

Scaled values are clipped to the segment's range, so a value far outside ordinary play (a total of
5,000) saturates; ``decode_observation`` then returns the clipped value. The pass cycle itself is
not encoded (only this deal's kind). The action mask is not part of the vector: it travels next
to it in the observation dict.

Three functions define and check the encoding:

- ``seat_view(deal, seat, match=None)`` reads the engine and keeps what ``seat`` may know: a
  ``SeatView`` (seat-relative, structured). This is the visibility rule, written once.
- ``encode_view(view, rules)`` turns a ``SeatView`` into the vector (the reference encoder).
- ``decode_observation(vector, rules)`` turns a vector back into a ``SeatView``.

``ObservationEncoder`` produces the same vectors incrementally, a few numpy writes per action, for
the environment's hot loop; the tests check it against ``encode_view(seat_view(...))`` at every
step over random play.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ..core.actions import LEAD_HEART, PASS_THROUGH
from ..core.cards import NUM_CARDS, QS
from ..core.deal import DONE, MOON_CHOICE, PASSING, PHASE_NAMES, PLAYING, Deal
from ..core.match import Match
from ..core.rules import (
    ALL_HEARTS_LEADER_UNBROKEN,
    FIRST_LEADS,
    KITTY_TAKERS,
    MOON_MODES,
    Rules,
    canonical_pass_kind,
    pass_offset,
)

ENCODING_VERSION = 1
MAX_SEATS = 8
POOL = MAX_SEATS  # row of ``passed_to`` / ``received_from`` for the smoosh pool
PASS_KIND_SLOTS = ("offset:1", "offset:2", "offset:3", "offset:4", "offset:5", "offset:6", "offset:7")
PASS_KIND_SLOTS += ("hold", "scatter", "smoosh")

# The rules segment, entry by entry.
RULE_FEATURES: tuple[str, ...] = (
    "hand_size",
    "kitty_size",
    *(f"kitty_taker:{k}" for k in KITTY_TAKERS),
    "pass_count",
    "passing_enabled",
    "allow_pass_through",
    "pass_through_visible",
    "void_deal_advances_pass_cycle",
    *(f"first_lead:{k}" for k in FIRST_LEADS),
    "hearts_must_be_broken",
    "queen_breaks_hearts",
    "queen_and_hearts_only_may_lead_heart",
    "no_points_on_first_trick",
    "first_trick_fallback_heart_before_queen",
    "queen_must_be_played_when_safe",
    *(f"all_hearts_leader_unbroken:{k}" for k in ALL_HEARTS_LEADER_UNBROKEN),
    "moon_enabled",
    "moon_requires_all_tricks",
    "moon_requires_bonus_card",
    "moon_tie_counts_as_first",
    "moon_value",
    *(f"moon_mode:{k}" for k in MOON_MODES),
    "sun_enabled",
    "sun_value",
    "no_tricks_adjustment",
    "no_tricks_adjustment_on_moon",
    "penalty_total",
    "game_end_threshold",
    "single_deal_game",
    "tie_play_another_deal",
    "dealer_counterclockwise",
    "instant_win",
    "instant_win_score",
    "instant_win_at_deal",
    "instant_win_or_after",
    *(f"reset_{side}_{k}" for k in range(4) for side in ("from", "to")),
)


@dataclass(frozen=True)
class Segment:
    """One named block of the vector: ``rows × width`` entries in ``[low, high]``."""

    name: str
    rows: int
    width: int
    low: float
    high: float
    meaning: str

    @property
    def size(self) -> int:
        return self.rows * self.width


SEGMENTS: tuple[Segment, ...] = (
    Segment("hand", 1, 52, 0, 1, "cards in my hand"),
    Segment("played_by", 8, 52, 0, 1, "cards each seat has played this deal"),
    Segment("won_by", 8, 52, 0, 1, "cards of the tricks each seat has won"),
    Segment("trick", 8, 52, 0, 1, "the current trick, one row per position"),
    Segment("trick_leader", 1, 8, 0, 1, "leader of the current trick"),
    Segment("to_move", 1, 8, 0, 1, "the seat to move"),
    Segment("dealer", 1, 8, 0, 1, "the dealer"),
    Segment("passed_to", 9, 52, 0, 1, "cards I pass/passed, by target seat; row 8 smoosh pool"),
    Segment("received_from", 9, 52, 0, 1, "cards I received, by source seat; row 8 smoosh pool"),
    Segment("forwarded", 1, 52, 0, 1, "cards forwarded through my seat (pass_through_visible)"),
    Segment("pass_through", 1, 8, 0, 1, "seats that declared pass-through"),
    Segment("kitty_taken", 1, 8, 0, 1, "kitty cards taken per seat / kitty size"),
    Segment("tricks_won", 1, 8, 0, 1, "tricks won per seat / tricks per deal"),
    Segment("points_taken", 1, 8, -4, 4, "card points won per seat / penalty total"),
    Segment("void_in", 8, 4, 0, 1, "suits each seat has shown void in"),
    Segment("phase", 1, 5, 0, 1, "one-hot phase"),
    Segment("pass_kind", 1, 10, 0, 1, "one-hot pass kind: offset 1..7, hold, scatter, smoosh"),
    Segment("dealer_choice", 1, 1, 0, 1, "this deal's pass kind is the dealer's choice"),
    Segment("trick_number", 1, 1, 0, 1, "tricks completed / tricks per deal"),
    Segment("hearts_broken", 1, 1, 0, 1, "hearts are broken"),
    Segment("queen_played", 1, 1, 0, 1, "QS has been played"),
    Segment("lead_heart_declared", 1, 1, 0, 1, "the all-hearts leader will lead a heart"),
    Segment("totals", 1, 8, -10, 10, "match totals / 100"),
    Segment("deal_number", 1, 1, 0, 10, "counted deals completed / 10"),
    Segment("match_episode", 1, 1, 0, 1, "1 in match episodes"),
    Segment("seats", 1, 8, 0, 1, "seats in play"),
    Segment("num_players", 1, 6, 0, 1, "one-hot N = 3..8"),
    Segment("deck", 1, 52, 0, 1, "cards in play"),
    Segment("card_points", 1, 52, -8, 8, "card points / 13"),
    Segment("rules", 1, len(RULE_FEATURES), -10, 10, "rule options (RULE_FEATURES)"),
)

OFFSETS: dict[str, int] = {}
_pos = 0
for _seg in SEGMENTS:
    OFFSETS[_seg.name] = _pos
    _pos += _seg.size
OBSERVATION_SIZE: int = _pos
del _pos, _seg

#: Everything from here on depends only on the rule set and the match (never on the deal).
DEAL_SEGMENTS_END = OFFSETS["totals"]

_HAND = OFFSETS["hand"]
_PLAYED = OFFSETS["played_by"]
_WON = OFFSETS["won_by"]
_TRICK = OFFSETS["trick"]
_LEADER = OFFSETS["trick_leader"]
_TO_MOVE = OFFSETS["to_move"]
_DEALER = OFFSETS["dealer"]
_PASSED = OFFSETS["passed_to"]
_RECEIVED = OFFSETS["received_from"]
_FORWARDED = OFFSETS["forwarded"]
_THROUGH = OFFSETS["pass_through"]
_KITTY = OFFSETS["kitty_taken"]
_TRICKS = OFFSETS["tricks_won"]
_POINTS = OFFSETS["points_taken"]
_VOID = OFFSETS["void_in"]
_PHASE = OFFSETS["phase"]
_KIND = OFFSETS["pass_kind"]
_DCHOICE = OFFSETS["dealer_choice"]
_TNUM = OFFSETS["trick_number"]
_HBROKEN = OFFSETS["hearts_broken"]
_QPLAYED = OFFSETS["queen_played"]
_LEADHEART = OFFSETS["lead_heart_declared"]
_TOTALS = OFFSETS["totals"]
_DEALNO = OFFSETS["deal_number"]
_MATCH = OFFSETS["match_episode"]
_RULES_START = OFFSETS["seats"]


def observation_bounds() -> tuple[np.ndarray, np.ndarray]:
    """Per-entry ``low`` and ``high`` of the observation ``Box``."""
    low = np.empty(OBSERVATION_SIZE, np.float32)
    high = np.empty(OBSERVATION_SIZE, np.float32)
    for seg in SEGMENTS:
        start = OFFSETS[seg.name]
        low[start : start + seg.size] = seg.low
        high[start : start + seg.size] = seg.high
    return low, high


#: Segments with one row per relative seat (or trick position, or pass target/source): rows ``N..7``
#: are always zero (``passed_to``'s and ``received_from``'s row 8, the smoosh pool, is not a seat).
SEAT_ROW_SEGMENTS = ("played_by", "won_by", "trick", "passed_to", "received_from", "void_in")
#: Segments with one entry per relative seat: entries ``N..7`` are always zero.
SEAT_ENTRY_SEGMENTS = (
    "trick_leader",
    "to_move",
    "dealer",
    "pass_through",
    "kitty_taken",
    "tricks_won",
    "points_taken",
    "totals",
    "seats",
)


@functools.lru_cache(maxsize=8)
def live_columns(num_players: int) -> np.ndarray:
    """Indices (sorted ``int64``) of the entries that can be nonzero with ``num_players`` seats: all
    but the padded seats ``N..7`` of the per-seat segments, which are zero in every observation of
    every rule set with N players (1,092 of the 2,577 entries for N = 4). A network's first layer
    can skip the others exactly: they add nothing and their weights get no gradient."""
    if not 3 <= num_players <= MAX_SEATS:
        raise ValueError(f"num_players must be 3..{MAX_SEATS}, got {num_players}")
    live = np.ones(OBSERVATION_SIZE, bool)
    for seg in SEGMENTS:
        start = OFFSETS[seg.name]
        if seg.name in SEAT_ROW_SEGMENTS:
            live[start + num_players * seg.width : start + MAX_SEATS * seg.width] = False
        elif seg.name in SEAT_ENTRY_SEGMENTS:
            live[start + num_players : start + seg.width] = False
    result = np.flatnonzero(live)
    result.flags.writeable = False
    return result


def segment(vector: np.ndarray, name: str) -> np.ndarray:
    """The named segment of an observation vector, shaped ``(rows, width)`` (a view)."""
    seg = next(s for s in SEGMENTS if s.name == name)
    start = OFFSETS[name]
    return vector[..., start : start + seg.size].reshape(*vector.shape[:-1], seg.rows, seg.width)


# ---------------------------------------------------------------------------------------------
# The structured view
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class SeatView:
    """What one seat knows, seat-relative (``0`` is the observer, ``r`` the seat r places left).

    Card collections are sorted tuples of card ids; per-seat tuples have ``num_players`` entries.
    ``passed``/``received`` pair each card with the relative seat it went to / came from, or
    ``None`` for the smoosh pool. ``trick`` lists the current trick's cards in play order; the
    card at position ``i`` was played by seat ``(trick_leader + i) % num_players``.
    """

    num_players: int
    hand: tuple[int, ...]
    played_by: tuple[tuple[int, ...], ...]
    won_by: tuple[tuple[int, ...], ...]
    trick: tuple[int, ...]
    trick_leader: int | None
    to_move: int | None
    dealer: int
    passed: tuple[tuple[int, int | None], ...]
    received: tuple[tuple[int, int | None], ...]
    forwarded: tuple[int, ...]
    pass_through: tuple[bool, ...]
    kitty_taken: tuple[int, ...]
    tricks_won: tuple[int, ...]
    points_taken: tuple[int, ...]
    void_in: tuple[tuple[int, ...], ...]
    phase: str
    pass_kind: str | None
    dealer_choice: bool
    trick_number: int
    hearts_broken: bool
    queen_played: bool
    lead_heart_declared: bool
    totals: tuple[int, ...]
    deal_number: int
    match_episode: bool

    # ---- conveniences for bots and user interfaces
    def seat_of_trick_position(self, i: int) -> int:
        """The relative seat that played (or will play) position ``i`` of the current trick."""
        assert self.trick_leader is not None
        return (self.trick_leader + i) % self.num_players

    @property
    def trick_seats(self) -> tuple[int, ...]:
        """The relative seats that played the current trick's cards, in play order."""
        return tuple(self.seat_of_trick_position(i) for i in range(len(self.trick)))

    @property
    def played(self) -> frozenset[int]:
        """Every card played so far this deal."""
        return frozenset(c for row in self.played_by for c in row)


def seat_view(deal: Deal, seat: int, match: Match | None = None) -> SeatView:
    """What ``seat`` may know of ``deal`` (and of ``match`` in match episodes): the visibility rule."""
    rules = deal.rules
    n = deal.num_players
    values = rules.tables.card_values

    def rel(p: int) -> int:
        return (p - seat) % n

    phase = deal.phase
    resolved = phase in (PLAYING, MOON_CHOICE, DONE)  # the pass (if any) has resolved
    played_by: list[list[int]] = [[] for _ in range(n)]
    for p, card in deal.play_order:
        played_by[rel(p)].append(card)
    won_by: list[list[int]] = [[] for _ in range(n)]
    points = [0] * n
    for t, winner in enumerate(deal.trick_winners):
        for _, card in deal.play_order[t * n : (t + 1) * n]:
            won_by[rel(winner)].append(card)
            points[rel(winner)] += values[card]
    void_in: list[set[int]] = [set() for _ in range(n)]
    order = deal.play_order
    for start in range(0, len(order), n):
        led = order[start][1] // 13
        for p, card in order[start + 1 : start + n]:
            if card // 13 != led:
                void_in[rel(p)].add(led)
    kitty = [0] * n
    for taker in deal.kitty_taken_by:
        if taker >= 0:
            kitty[rel(taker)] += 1

    passed: list[tuple[int, int | None]] = []
    received: list[tuple[int, int | None]] = []
    forwarded: list[int] = []
    if resolved:
        passed = [(c, None if dst < 0 else rel(dst)) for c, dst in deal.passed[seat]]
        received = [(c, None if src < 0 else rel(src)) for c, src in deal.received[seat]]
        offset = pass_offset(deal.pass_kind, n) if deal.pass_kind else None
        if rules.pass_through_visible and offset is not None and deal.pass_through[seat]:
            for p in range(n):
                for card, dst in deal.passed[p]:
                    q = (p + offset) % n
                    while q != dst:
                        if q == seat:
                            forwarded.append(card)
                        q = (q + offset) % n
    elif phase == PASSING and deal.pass_kind is not None:
        passed = [(c, _intended_target(deal, i)) for i, c in enumerate(deal.chosen[seat])]
    through = [deal.pass_through[p] if (resolved or p == seat) else False for p in range(n)]

    totals = match.totals if match is not None else deal.totals_before
    return SeatView(
        num_players=n,
        hand=tuple(_cards(deal.hands[seat])),
        played_by=tuple(tuple(sorted(row)) for row in played_by),
        won_by=tuple(tuple(sorted(row)) for row in won_by),
        trick=tuple(deal.trick),
        trick_leader=rel(deal.leader) if phase == PLAYING else None,
        to_move=rel(deal.current_player) if deal.current_player >= 0 else None,
        dealer=rel(deal.dealer),
        passed=tuple(sorted(passed)),
        received=tuple(sorted(received, key=lambda x: (x[0], -1 if x[1] is None else x[1]))),
        forwarded=tuple(sorted(forwarded)),
        pass_through=tuple(through[(seat + r) % n] for r in range(n)),
        kitty_taken=tuple(kitty),
        tricks_won=tuple(deal.tricks_won[(seat + r) % n] for r in range(n)),
        points_taken=tuple(points),
        void_in=tuple(tuple(sorted(row)) for row in void_in),
        phase=PHASE_NAMES[phase],
        pass_kind=deal.pass_kind,
        dealer_choice=deal.cycle_kind == "dealer_choice",
        trick_number=deal.trick_number,
        hearts_broken=deal.hearts_broken,
        queen_played=deal.queen_played,
        lead_heart_declared=deal.void_declined,
        totals=tuple(totals[(seat + r) % n] for r in range(n)),
        deal_number=match.deals_counted if match is not None else 0,
        match_episode=match is not None,
    )


def _intended_target(deal: Deal, index: int) -> int | None:
    """The relative seat the ``index``-th chosen card is meant for, before the pass resolves."""
    kind = deal.pass_kind
    n = deal.num_players
    if kind == "smoosh":
        return None
    if kind == "scatter":
        share = deal.rules.pass_count // (n - 1)
        return 1 + index // share
    offset = pass_offset(kind, n) if kind else None
    assert offset is not None
    return offset


def _cards(mask: int) -> list[int]:
    return [c for c in range(NUM_CARDS) if mask >> c & 1]


def _bits52(mask: int) -> np.ndarray:
    return np.unpackbits(np.frombuffer(mask.to_bytes(7, "little"), np.uint8), count=NUM_CARDS, bitorder="little")


def _clip(x: float, low: float, high: float) -> float:
    return low if x < low else high if x > high else x


# ---------------------------------------------------------------------------------------------
# The rule-set part (constant for a rule set)
# ---------------------------------------------------------------------------------------------


@functools.lru_cache(maxsize=256)
def rules_block(rules: Rules, match_episode: bool = False) -> np.ndarray:
    """The vector's ``match_episode`` flag and rule segments for ``rules`` (read-only)."""
    t = rules.tables
    n = rules.num_players
    out = np.zeros(OBSERVATION_SIZE - _MATCH, np.float32)
    base = -_MATCH

    def put(offset: int, value: float) -> None:
        out[base + offset] = value

    put(_MATCH, float(match_episode))
    for r in range(n):
        put(OFFSETS["seats"] + r, 1.0)
    put(OFFSETS["num_players"] + n - 3, 1.0)
    for c in t.deck:
        put(OFFSETS["deck"] + c, 1.0)
    for c in range(NUM_CARDS):
        put(OFFSETS["card_points"] + c, _clip(t.card_values[c] / 13, -8, 8))
    feats = rule_features(rules)
    start = OFFSETS["rules"]
    for i, name in enumerate(RULE_FEATURES):
        put(start + i, _clip(feats.get(name, 0.0), -10, 10))
    out.setflags(write=False)
    return out


def rule_features(rules: Rules) -> dict[str, float]:
    """The non-zero entries of the ``rules`` segment, by ``RULE_FEATURES`` name (unclipped)."""
    t = rules.tables
    total = max(t.penalty_total, 1)
    f: dict[str, float] = {
        "hand_size": t.hand_size / 17,
        "kitty_size": t.kitty_size / 4,
        f"kitty_taker:{rules.kitty_taker}": float(t.kitty_size > 0),
        "pass_count": rules.pass_count / 17 if rules.passing_enabled else 0.0,
        "passing_enabled": float(rules.passing_enabled),
        "allow_pass_through": float(rules.allow_pass_through),
        "pass_through_visible": float(rules.pass_through_visible),
        "void_deal_advances_pass_cycle": float(rules.void_deal_advances_pass_cycle),
        f"first_lead:{rules.first_lead}": 1.0,
        "hearts_must_be_broken": float(rules.hearts_must_be_broken),
        "queen_breaks_hearts": float(rules.queen_breaks_hearts),
        "queen_and_hearts_only_may_lead_heart": float(rules.queen_and_hearts_only_may_lead_heart),
        "no_points_on_first_trick": float(rules.no_points_on_first_trick),
        "first_trick_fallback_heart_before_queen": float(rules.first_trick_points_fallback == "heart_before_queen"),
        "queen_must_be_played_when_safe": float(rules.queen_must_be_played_when_safe),
        f"all_hearts_leader_unbroken:{rules.all_hearts_leader_unbroken}": 1.0,
        "moon_enabled": float(rules.moon_enabled),
        "moon_requires_all_tricks": float(rules.moon_requires_all_tricks),
        "moon_requires_bonus_card": float(rules.moon_requires_bonus_card),
        "moon_tie_counts_as_first": float(rules.moon_conditional_tie_counts_as_first),
        "moon_value": t.moon_value / total,
        f"moon_mode:{rules.moon_mode}": 1.0,
        "sun_enabled": float(rules.sun_enabled),
        "sun_value": rules.sun_value / total,
        "no_tricks_adjustment": rules.no_tricks_adjustment / total,
        "no_tricks_adjustment_on_moon": float(rules.no_tricks_adjustment_on_moon),
        "penalty_total": t.penalty_total / 26,
        "game_end_threshold": (rules.game_end_threshold or 0) / 100,
        "single_deal_game": float(rules.game_end_threshold is None),
        "tie_play_another_deal": float(rules.tie_for_lowest == "play_another_deal"),
        "dealer_counterclockwise": float(rules.dealer_rotation == "counterclockwise"),
    }
    if t.kitty_size == 0:
        f.pop(f"kitty_taker:{rules.kitty_taker}")
    iw = rules.instant_win
    if iw is not None:
        f["instant_win"] = 1.0
        f["instant_win_score"] = iw.score / 100
        f["instant_win_at_deal"] = iw.at_deal / 10
        f["instant_win_or_after"] = float(iw.mode == "at_or_after_deal")
    for k, (old, new) in enumerate(rules.exact_score_resets[:4]):
        f[f"reset_from_{k}"] = old / 100
        f[f"reset_to_{k}"] = new / 100
    return {k: v for k, v in f.items() if v}


# ---------------------------------------------------------------------------------------------
# Reference encoder and decoder
# ---------------------------------------------------------------------------------------------


def encode_view(view: SeatView, rules: Rules) -> np.ndarray:
    """The observation vector of ``view`` under ``rules`` (the reference encoder)."""
    n = view.num_players
    if n != rules.num_players:
        raise ValueError(f"the view has {n} seats but the rules {rules.num_players}")
    t = rules.tables
    total = max(t.penalty_total, 1)
    v = np.zeros(OBSERVATION_SIZE, np.float32)
    v[_HAND + np.asarray(view.hand, np.intp)] = 1
    for r in range(n):
        for c in view.played_by[r]:
            v[_PLAYED + r * 52 + c] = 1
        for c in view.won_by[r]:
            v[_WON + r * 52 + c] = 1
    for i, c in enumerate(view.trick):
        v[_TRICK + i * 52 + c] = 1
    if view.trick_leader is not None:
        v[_LEADER + view.trick_leader] = 1
    if view.to_move is not None:
        v[_TO_MOVE + view.to_move] = 1
    v[_DEALER + view.dealer] = 1
    for c, r in view.passed:
        v[_PASSED + (POOL if r is None else r) * 52 + c] = 1
    for c, r in view.received:
        v[_RECEIVED + (POOL if r is None else r) * 52 + c] = 1
    for c in view.forwarded:
        v[_FORWARDED + c] = 1
    for r in range(n):
        v[_THROUGH + r] = float(view.pass_through[r])
        v[_KITTY + r] = view.kitty_taken[r] / t.kitty_size if t.kitty_size else 0.0
        v[_TRICKS + r] = view.tricks_won[r] / t.num_tricks
        v[_POINTS + r] = _clip(view.points_taken[r] / total, -4, 4)
        v[_TOTALS + r] = _clip(view.totals[r] / 100, -10, 10)
        for suit in view.void_in[r]:
            v[_VOID + r * 4 + suit] = 1
    v[_PHASE + PHASE_NAMES.index(view.phase)] = 1
    if view.pass_kind is not None:
        v[_KIND + _kind_slot(view.pass_kind, n)] = 1
    v[_DCHOICE] = float(view.dealer_choice)
    v[_TNUM] = view.trick_number / t.num_tricks
    v[_HBROKEN] = float(view.hearts_broken)
    v[_QPLAYED] = float(view.queen_played)
    v[_LEADHEART] = float(view.lead_heart_declared)
    v[_DEALNO] = _clip(view.deal_number / 10, 0, 10)
    v[_MATCH:] = rules_block(rules, view.match_episode)
    return v


def _kind_slot(kind: str, n: int) -> int:
    offset = pass_offset(kind, n)
    if offset is not None:
        return offset - 1
    return PASS_KIND_SLOTS.index(kind)


def decode_observation(vector: np.ndarray | Sequence[float], rules: Rules | str | Path) -> SeatView:
    """The ``SeatView`` an observation vector encodes (the inverse of ``encode_view``).

    ``rules``: a ``Rules``, a preset name or a rule file path (``Rules.load``). Raises
    ``ValueError`` when the vector's size or its rule segments do not match ``rules``.
    Points and totals beyond the clipping range come back clipped.
    """
    if not isinstance(rules, Rules):
        rules = Rules.load(rules)
    v = np.asarray(vector, dtype=np.float32)
    if v.shape != (OBSERVATION_SIZE,):
        raise ValueError(f"an observation has shape ({OBSERVATION_SIZE},), got {v.shape}")
    n = rules.num_players
    block = rules_block(rules, bool(v[_MATCH] > 0.5))
    if not np.array_equal(v[_MATCH:], block):
        raise ValueError("the observation was encoded under other rules than the ones given")
    t = rules.tables
    total = max(t.penalty_total, 1)
    # One pass over the non-zero entries of the card blocks, bucketed by row.
    card_rows: dict[int, list[int]] = {}
    for start, stop in ((_HAND, _LEADER), (_PASSED, _THROUGH)):  # 52-wide rows from ``start``
        for index in np.flatnonzero(v[start:stop]).tolist():
            card_rows.setdefault(start + index // 52 * 52, []).append(index % 52)

    def rows(offset: int, count: int) -> tuple[tuple[int, ...], ...]:
        return tuple(tuple(card_rows.get(offset + r * 52, ())) for r in range(count))

    # The scalar entries as Python floats: the three seat one-hots before ``passed_to``, and
    # everything from ``pass_through`` on (read as ``x[offset - base]``).
    head = v[_LEADER:_PASSED].tolist()
    x = v[_THROUGH:_MATCH].tolist()
    base = _THROUGH

    def onehot(offset: int, size: int) -> int | None:
        values, start = (head, _LEADER) if offset < _PASSED else (x, base)
        for k in range(size):
            if values[offset - start + k] > 0.5:
                return k
        return None

    def per_seat(offset: int, scale: float) -> tuple[int, ...]:
        return tuple(round(x[offset - base + r] * scale) for r in range(n))

    trick = tuple(row[0] for row in rows(_TRICK, n) if row)
    passed = [(c, None if r == POOL else r) for r, row in enumerate(rows(_PASSED, 9)) for c in row]
    received = [(c, None if r == POOL else r) for r, row in enumerate(rows(_RECEIVED, 9)) for c in row]
    kind_slot = onehot(_KIND, len(PASS_KIND_SLOTS))
    kind = None
    if kind_slot is not None:
        kind = PASS_KIND_SLOTS[kind_slot]
        if kind.startswith("offset:"):
            kind = canonical_pass_kind(kind, n)
    dealer = onehot(_DEALER, MAX_SEATS)
    phase = onehot(_PHASE, len(PHASE_NAMES))
    if dealer is None or phase is None:
        raise ValueError("not an observation: it has no dealer or no phase")
    return SeatView(
        num_players=n,
        hand=rows(_HAND, 1)[0],
        played_by=rows(_PLAYED, n),
        won_by=rows(_WON, n),
        trick=trick,
        trick_leader=onehot(_LEADER, MAX_SEATS),
        to_move=onehot(_TO_MOVE, MAX_SEATS),
        dealer=dealer,
        passed=tuple(sorted(passed)),
        received=tuple(sorted(received, key=lambda x: (x[0], -1 if x[1] is None else x[1]))),
        forwarded=rows(_FORWARDED, 1)[0],
        pass_through=tuple(x[_THROUGH - base + r] > 0.5 for r in range(n)),
        kitty_taken=per_seat(_KITTY, t.kitty_size),
        tricks_won=per_seat(_TRICKS, t.num_tricks),
        points_taken=per_seat(_POINTS, total),
        void_in=tuple(tuple(s for s in range(4) if x[_VOID - base + 4 * r + s] > 0.5) for r in range(n)),
        phase=PHASE_NAMES[phase],
        pass_kind=kind,
        dealer_choice=x[_DCHOICE - base] > 0.5,
        trick_number=round(x[_TNUM - base] * t.num_tricks),
        hearts_broken=x[_HBROKEN - base] > 0.5,
        queen_played=x[_QPLAYED - base] > 0.5,
        lead_heart_declared=x[_LEADHEART - base] > 0.5,
        totals=per_seat(_TOTALS, 100),
        deal_number=round(x[_DEALNO - base] * 10),
        match_episode=bool(v[_MATCH] > 0.5),
    )


def encode(deal: Deal, seat: int, match: Match | None = None) -> np.ndarray:
    """``encode_view(seat_view(deal, seat, match), rules)``: the reference observation of ``seat``."""
    return encode_view(seat_view(deal, seat, match), deal.rules)


# ---------------------------------------------------------------------------------------------
# The incremental encoder used by the environment
# ---------------------------------------------------------------------------------------------


@functools.lru_cache(maxsize=8)
def _index_tables(n: int) -> tuple[list[list[list[np.ndarray]]], np.ndarray, np.ndarray, np.ndarray]:
    """Flat buffer indices over all N views: ``play[s][i][c]`` are the entries a card ``c`` played
    by seat ``s`` at trick position ``i`` sets in ``played_by`` and ``trick``; ``rel[s, v]`` is
    ``v * SIZE + (s - v) % n`` (seat s's entry in view v) and ``rows[s, v]`` ``v * SIZE + 52 * ((s - v) % n)``
    (the start of seat s's card row in view v); ``voids[s, v]`` the start of seat s's ``void_in`` row."""
    d = OBSERVATION_SIZE
    views = np.arange(n)
    rel = np.array([[v * d + (s - v) % n for v in range(n)] for s in range(n)], dtype=np.intp)
    card_rows = np.array([[v * d + 52 * ((s - v) % n) for v in range(n)] for s in range(n)], dtype=np.intp)
    void_rows = np.array([[v * d + _VOID + 4 * ((s - v) % n) for v in range(n)] for s in range(n)], dtype=np.intp)
    play = []
    for s in range(n):
        per_pos = []
        base = np.concatenate([views * d + _PLAYED + ((s - views) % n) * 52, views * d])
        for i in range(n):
            rows = base.copy()
            rows[n:] += _TRICK + i * 52
            per_pos.append([rows + c for c in range(NUM_CARDS)])
        play.append(per_pos)
    return play, rel, card_rows, void_rows


class ObservationEncoder:
    """Every seat's observation vector of one deal (or match), kept up to date action by action.

    Call ``start(deal)`` when a deal begins and ``update(deal, seat, action, phase)`` after each
    ``apply_action`` (``phase`` is the phase before the action); ``observation(seat)`` returns a
    fresh copy of that seat's vector. The result always equals ``encode(deal, seat, match)``.
    """

    def __init__(self, rules: Rules, match_episode: bool = False) -> None:
        n = rules.num_players
        t = rules.tables
        self.rules = rules
        self.num_players = n
        self.match_episode = match_episode
        self.buffer = np.zeros((n, OBSERVATION_SIZE), np.float32)
        self._flat = self.buffer.reshape(-1)
        self.buffer[:, _MATCH:] = rules_block(rules, match_episode)
        self._play, self._rel, self._rows, self._voids = _index_tables(n)
        # precomputed per-seat index arrays for the trick-completion writes
        self._won_idx = [[self._rows[w] + (_WON + c) for c in range(NUM_CARDS)] for w in range(n)]
        self._tricks_idx = [self._rel[w] + _TRICKS for w in range(n)]
        self._points_idx = [self._rel[w] + _POINTS for w in range(n)]
        self._leader_idx = [self._rel[w] + _LEADER for w in range(n)]
        self._void_idx = [[self._voids[s] + suit for suit in range(4)] for s in range(n)]
        self._values = t.card_values
        self._num_tricks = t.num_tricks
        self._kitty_size = t.kitty_size
        self._total = max(t.penalty_total, 1)
        self._points = [0] * n
        self._deal: Deal | None = None

    # ---- whole-state writes (a deal starts, a pass resolves, the phase changes)
    def start(self, deal: Deal, match: Match | None = None) -> None:
        """Write every seat's vector for a deal that has just been dealt."""
        n = self.num_players
        buf = self.buffer
        self._deal = deal
        buf[:, :DEAL_SEGMENTS_END] = 0.0
        for v in range(n):
            buf[v, _HAND : _HAND + 52] = _bits52(deal.hands[v])
        self._set_rel(_DEALER, deal.dealer, 1.0)
        if deal.cycle_kind == "dealer_choice":
            buf[:, _DCHOICE] = 1.0
        totals = match.totals if match is not None else deal.totals_before
        for v in range(n):
            for r in range(n):
                buf[v, _TOTALS + r] = _clip(totals[(v + r) % n] / 100, -10, 10)
        buf[:, _DEALNO] = _clip(match.deals_counted / 10, 0, 10) if match is not None else 0.0
        self._points = [0] * n
        self._phase = -1
        self._trick_number = 0
        self._hearts_broken = False
        self._queen_played = False
        self._lead_heart = False
        self._kind: str | None = None
        self._sync_phase(deal, PASSING)

    def finish_match(self, match: Match) -> None:
        """Show the final totals once the match is over (the last deal's phase is ``done``)."""
        n = self.num_players
        for v in range(n):
            for r in range(n):
                self.buffer[v, _TOTALS + r] = _clip(match.totals[(v + r) % n] / 100, -10, 10)
        self.buffer[:, _DEALNO] = _clip(match.deals_counted / 10, 0, 10)

    def _set_rel(self, offset: int, seat: int, value: float) -> None:
        """In every view, the entry ``offset + (seat - view) % n`` gets ``value``."""
        self._flat[self._rel[seat] + offset] = value

    def _sync_phase(self, deal: Deal, phase_before: int) -> None:
        """The phase has changed: phase, pass kind, pass results, leader."""
        buf = self.buffer
        phase = deal.phase
        if deal.pass_kind != self._kind:
            self._kind = deal.pass_kind
            buf[:, _KIND : _KIND + 10] = 0.0
            if deal.pass_kind is not None:
                buf[:, _KIND + _kind_slot(deal.pass_kind, self.num_players)] = 1.0
        if phase_before == PASSING and phase != PASSING and deal.pass_kind not in (None, "hold"):
            self._write_pass_results(deal)
        buf[:, _PHASE : _PHASE + 5] = 0.0
        buf[:, _PHASE + phase] = 1.0
        buf[:, _LEADER : _LEADER + 8] = 0.0
        if phase == PLAYING:
            self._set_rel(_LEADER, deal.leader, 1.0)
        self._phase = phase

    def _write_pass_results(self, deal: Deal) -> None:
        n = self.num_players
        buf = self.buffer
        offset = pass_offset(deal.pass_kind, n) if deal.pass_kind else None
        through_any = any(deal.pass_through)
        for v in range(n):
            row = buf[v]
            row[_HAND : _HAND + 52] = _bits52(deal.hands[v])
            row[_PASSED : _PASSED + 9 * 52] = 0.0
            for c, dst in deal.passed[v]:
                row[_PASSED + (POOL if dst < 0 else (dst - v) % n) * 52 + c] = 1.0
            for c, src in deal.received[v]:
                row[_RECEIVED + (POOL if src < 0 else (src - v) % n) * 52 + c] = 1.0
            if through_any:
                for r in range(n):
                    row[_THROUGH + r] = float(deal.pass_through[(v + r) % n])
        if through_any and self.rules.pass_through_visible and offset is not None:
            for p in range(n):
                for card, dst in deal.passed[p]:
                    q = (p + offset) % n
                    while q != dst:
                        buf[q, _FORWARDED + card] = 1.0
                        q = (q + offset) % n

    # ---- one action
    def update(self, deal: Deal, seat: int, action: int, phase_before: int) -> None:
        """Record ``action`` by ``seat``, already applied to ``deal``, taken in ``phase_before``."""
        if phase_before == PLAYING and action < NUM_CARDS:
            self._play_card(deal, seat, action)
            if deal.phase != PLAYING:
                self._sync_phase(deal, phase_before)
            return
        if phase_before == PASSING and deal.phase == PASSING:
            if action < NUM_CARDS:
                index = len(deal.chosen[seat]) - 1
                target = _intended_target(deal, index)
                row = POOL if target is None else target
                self.buffer[seat, _PASSED + row * 52 + action] = 1.0
            elif action == PASS_THROUGH:
                self.buffer[seat, _THROUGH] = 1.0
        elif action == LEAD_HEART:
            self._lead_heart = True
            self.buffer[:, _LEADHEART] = 1.0
        if deal.phase != self._phase:
            self._sync_phase(deal, phase_before)

    def _play_card(self, deal: Deal, seat: int, card: int) -> None:
        flat = self._flat
        n = self.num_players
        completed = deal.trick_number != self._trick_number
        pos = n - 1 if completed else len(deal.trick) - 1
        flat[self._play[seat][pos][card]] = 1.0
        if pos:
            led = deal.play_order[-1 - pos][1] // 13
            if card // 13 != led:
                flat[self._void_idx[seat][led]] = 1.0
        flat[seat * OBSERVATION_SIZE + _HAND + card] = 0.0
        buf = self.buffer
        if deal.hearts_broken != self._hearts_broken:
            self._hearts_broken = deal.hearts_broken
            buf[:, _HBROKEN] = 1.0
        if card == QS:
            self._queen_played = True
            buf[:, _QPLAYED] = 1.0
        if not completed:
            return
        # the trick is complete: winner, won cards, counts, next leader
        self._trick_number = deal.trick_number
        winner = deal.trick_winners[-1]
        cards = [c for _, c in deal.play_order[-n:]]
        won_idx = self._won_idx[winner]
        for c in cards:
            flat[won_idx[c]] = 1.0
        values = self._values
        self._points[winner] += (
            values[cards[0]] + values[cards[1]] + values[cards[2]] + sum(values[c] for c in cards[3:])
        )
        flat[self._tricks_idx[winner]] = deal.tricks_won[winner] / self._num_tricks
        flat[self._points_idx[winner]] = _clip(self._points[winner] / self._total, -4, 4)
        buf[:, _TRICK : _LEADER + MAX_SEATS] = 0.0  # the trick rows and the leader (adjacent)
        buf[:, _TNUM] = deal.trick_number / self._num_tricks
        if self._lead_heart:
            self._lead_heart = False
            buf[:, _LEADHEART] = 0.0
        if self._kitty_size:
            counts = [0] * n
            for taker in deal.kitty_taken_by:
                if taker >= 0:
                    counts[taker] += 1
            for p in range(n):
                if counts[p]:
                    self._set_rel(_KITTY, p, counts[p] / self._kitty_size)
        if deal.phase == PLAYING:
            flat[self._leader_idx[deal.leader]] = 1.0

    def observation(self, seat: int, current_player: int) -> np.ndarray:
        """A fresh copy of ``seat``'s vector, with ``to_move`` filled in."""
        vec = self.buffer[seat].copy()
        if current_player >= 0:
            vec[_TO_MOVE + (current_player - seat) % self.num_players] = 1.0
        return vec


__all__ = [
    "ENCODING_VERSION",
    "MAX_SEATS",
    "OBSERVATION_SIZE",
    "OFFSETS",
    "RULE_FEATURES",
    "SEGMENTS",
    "ObservationEncoder",
    "SeatView",
    "decode_observation",
    "encode",
    "encode_view",
    "live_columns",
    "observation_bounds",
    "rule_features",
    "rules_block",
    "seat_view",
    "segment",
]
