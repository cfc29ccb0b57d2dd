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
and its winner) is shown. One thing the order of decisions tells: passing goes seat by seat, each
seat's pass-through declaration and then its cards (RULES.md §10), so whose turn it is (``to_move``,
and the AEC env's ``agent_selection``) shows whether an earlier seat declared ``through``: it chose no
cards. The ``pass_through`` segment itself shows the others' declarations only once the pass resolves.

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
from dataclasses import dataclass

import numpy as np

from ..core.cards import NUM_CARDS
from ..core.rules import (
    ALL_HEARTS_LEADER_UNBROKEN,
    FIRST_LEADS,
    KITTY_TAKERS,
    MOON_MODES,
    Rules,
    pass_offset,
)

ENCODING_VERSION = 1
MAX_SEATS = 8
POOL = MAX_SEATS  # row of ``passed_to`` / ``received_from`` for the smoosh pool
PASS_KIND_SLOTS: tuple[str, ...] = (*(f"offset:{k}" for k in range(1, 8)), "hold", "scatter", "smoosh")

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


def clip(x: float, low: float, high: float) -> float:
    return low if x < low else high if x > high else x


def bits52(mask: int) -> np.ndarray:
    return np.unpackbits(np.frombuffer(mask.to_bytes(7, "little"), np.uint8), count=NUM_CARDS, bitorder="little")


def kind_slot(kind: str, n: int) -> int:
    offset = pass_offset(kind, n)
    if offset is not None:
        return offset - 1
    return PASS_KIND_SLOTS.index(kind)


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
        put(OFFSETS["card_points"] + c, clip(t.card_values[c] / 13, -8, 8))
    feats = rule_features(rules)
    start = OFFSETS["rules"]
    for i, name in enumerate(RULE_FEATURES):
        put(start + i, clip(feats.get(name, 0.0), -10, 10))
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
