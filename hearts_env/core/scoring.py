"""Scoring one deal (RULES.md §3.5) and the cumulative-score steps of §3.6.

Pure functions over won-card masks and trick counts, so the engine, the batched engine's tests
and any analysis code score a deal the same way.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from .rules import Rules

SUBTRACT, ADD = "subtract", "add"


@dataclass(frozen=True)
class DealScore:
    """The outcome of one deal's scoring pipeline."""

    scores: tuple[int, ...]
    raw: tuple[int, ...]  # card points taken, before moon and adjustments
    shooter: int | None = None
    shot: str | None = None  # "moon" or "sun"
    moon_applied: str | None = None  # "subtract", "add" or "cancel"


def card_points(mask: int, values: Sequence[int]) -> int:
    """The points of the cards in ``mask`` (``values``: each card id's points), one set bit at a time."""
    points = 0
    while mask:
        low = mask & -mask
        points += values[low.bit_length() - 1]
        mask ^= low
    return points


def find_shooter(rules: Rules, won: Sequence[int], tricks: Sequence[int]) -> tuple[int | None, str | None]:
    """Steps 2–3: who shot the sun (every trick) or the moon (every penalty card), if anyone."""
    t = rules.tables
    if rules.sun_enabled:
        for p, count in enumerate(tricks):
            if count == t.num_tricks:
                return p, "sun"
    penalty = t.penalty_mask
    if rules.moon_enabled and penalty:
        for p, mask in enumerate(won):
            if mask & penalty != penalty:
                continue
            if rules.moon_requires_all_tricks and tricks[p] != t.num_tricks:
                continue
            if rules.moon_requires_bonus_card and not (mask >> t.bonus_card) & 1:
                continue
            return p, "moon"
    return None, None


def apply_resets(totals: Sequence[int], rules: Rules) -> list[int]:
    """§3.6: exact-score resets, applied once (never chained)."""
    resets = rules.tables.resets
    return [resets.get(total, total) for total in totals]


def is_first(totals: Sequence[int], seat: int, tie_counts: bool) -> bool:
    """Whether ``seat`` holds first place: strictly lowest, or tied lowest when ``tie_counts``."""
    others = [t for p, t in enumerate(totals) if p != seat]
    return totals[seat] <= min(others) if tie_counts else totals[seat] < min(others)


def score_deal(
    rules: Rules,
    won: Sequence[int],
    tricks: Sequence[int],
    totals_before: Sequence[int] | None = None,
    moon_choice: str | None = None,
) -> DealScore:
    """Steps 1–6 of the per-deal pipeline. ``moon_choice`` ("subtract"/"add") is the shooter's
    decision under ``shooter_choice``; ``totals_before`` feeds ``add_unless_shooter_loses``."""
    t = rules.tables
    n = len(won)
    values = t.card_values
    scoring = t.scoring_mask
    raw = [card_points(mask & scoring, values) for mask in won]
    shooter, shot = find_shooter(rules, won, tricks)
    if shooter is None:
        scores = list(raw)
        if rules.no_tricks_adjustment:
            scores = [s + (rules.no_tricks_adjustment if tricks[p] == 0 else 0) for p, s in enumerate(scores)]
        return DealScore(tuple(scores), tuple(raw), None, None, None)

    mode = rules.moon_mode
    # cancel_deal (RULES.md §3.5, clarified): no penalty points and no moon bonus; the rest of step 4
    # (the bonus card) and step 5 still apply, as if the moon were worth nothing.
    value = 0 if mode == "cancel_deal" else rules.sun_value if shot == "sun" else t.moon_value
    # Step 4: penalty points vanish; what is left is bonus (non-positive) points.
    base = [card_points(mask & t.negative_mask, values) for mask in won]
    if shot == "sun" or rules.moon_requires_bonus_card:
        base[shooter] = 0  # the shooter's deal score is exactly the moon/sun amount
    # Step 5 on a moon deal: the no-trick adjustment, when the rules apply it there.
    adjust = [0] * n
    if rules.no_tricks_adjustment and rules.no_tricks_adjustment_on_moon:
        adjust = [rules.no_tricks_adjustment if tricks[p] == 0 else 0 for p in range(n)]
    subtract = [b + a - (value if p == shooter else 0) for p, (b, a) in enumerate(zip(base, adjust, strict=True))]
    add = [b + a + (0 if p == shooter else value) for p, (b, a) in enumerate(zip(base, adjust, strict=True))]
    if mode == "cancel_deal":
        return DealScore(tuple(subtract), tuple(raw), shooter, shot, "cancel")
    if mode == "subtract_from_shooter":
        applied = SUBTRACT
    elif mode == "add_to_others":
        applied = ADD
    elif mode == "shooter_choice":
        if moon_choice not in (SUBTRACT, ADD):
            raise ValueError("shooter_choice scoring needs moon_choice 'subtract' or 'add'")
        applied = moon_choice
    else:  # add_unless_shooter_loses (RULES.md §3.5 note A): on the totals the whole deal would give
        applied = SUBTRACT if add_would_lose(rules, totals_before, add, shooter) else ADD
    scores = subtract if applied == SUBTRACT else add
    return DealScore(tuple(scores), tuple(raw), shooter, shot, applied)


def add_would_lose(rules: Rules, totals_before: Sequence[int] | None, add: Sequence[int], shooter: int) -> bool:
    """``add_unless_shooter_loses`` (RULES.md §3.5 note A): whether adding, ``add`` being the deal's
    scores under ``add_to_others`` with step 5 applied, would take a total (after the exact-score
    resets) to ``game_end_threshold`` while the shooter is not first."""
    threshold = rules.game_end_threshold
    if threshold is None:
        return False
    before = list(totals_before) if totals_before is not None else [0] * len(add)
    after = apply_resets([b + a for b, a in zip(before, add, strict=True)], rules)
    return max(after) >= threshold and not is_first(after, shooter, rules.moon_conditional_tie_counts_as_first)


def worst_deal_score(rules: Rules) -> int:
    """An upper bound on the points one seat can score in a deal (the moon's or sun's value added
    to the others, or every penalty card, plus a positive no-trick adjustment)."""
    t = rules.tables
    worst = max(t.penalty_total, t.moon_value, rules.sun_value if rules.sun_enabled else 0)
    return worst + max(0, rules.no_tricks_adjustment)


def most_points_to_come(rules: Rules, episode: str = "deal", total: int = 0) -> int:
    """An upper bound on the deal points one seat can still score in an episode that has not ended,
    counting the deal in progress: ``total`` is the seat's match total before that deal.

    A deal episode (or a match without ``game_end_threshold``, which is one deal) is one deal:
    ``worst_deal_score``. A match ends after the first deal that takes a total to the threshold, so a
    seat enters its last deal with at most ``threshold - 1`` and leaves it with at most
    ``threshold - 1 + worst_deal_score``; the points still to come are that minus ``total`` (more
    when ``total`` is below zero, after a moon shot or a bonus card). The bound used is
    ``threshold + worst_deal_score - min(total, 0)``, one point more than that, plus, for rules
    that can prolong a match, the points each exact-score reset that lowers a total gives back
    (counted once each) and one more deal if tied leaders replay (``tie_for_lowest``)."""
    worst = worst_deal_score(rules)
    threshold = rules.game_end_threshold
    if episode != "match" or threshold is None:
        return worst
    points = threshold + worst - min(total, 0)
    points += sum(old - new for old, new in rules.exact_score_resets if new < old)
    if rules.tie_for_lowest == "play_another_deal":
        points += worst
    return points
