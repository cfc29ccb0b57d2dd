"""The reference encoder and decoder: ``encode_view``, ``encode`` and ``decode_observation``.

Slow and plain on purpose: the incremental encoder and the batched engine are checked against it."""

from collections.abc import Sequence
from pathlib import Path

import numpy as np

from ..core.deal import PHASE_NAMES, Deal
from ..core.match import Match
from ..core.rules import (
    Rules,
    canonical_pass_kind,
)
from .spec import (
    _DCHOICE,
    _DEALER,
    _DEALNO,
    _FORWARDED,
    _HAND,
    _HBROKEN,
    _KIND,
    _KITTY,
    _LEADER,
    _LEADHEART,
    _MATCH,
    _PASSED,
    _PHASE,
    _PLAYED,
    _POINTS,
    _QPLAYED,
    _RECEIVED,
    _THROUGH,
    _TNUM,
    _TO_MOVE,
    _TOTALS,
    _TRICK,
    _TRICKS,
    _VOID,
    _WON,
    MAX_SEATS,
    OBSERVATION_SIZE,
    PASS_KIND_SLOTS,
    POOL,
    clip,
    kind_slot,
    rules_block,
)
from .view import SeatView, seat_view

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
    for c, dst in view.passed:
        v[_PASSED + (POOL if dst is None else dst) * 52 + c] = 1
    for c, src in view.received:
        v[_RECEIVED + (POOL if src is None else src) * 52 + c] = 1
    for c in view.forwarded:
        v[_FORWARDED + c] = 1
    for r in range(n):
        v[_THROUGH + r] = float(view.pass_through[r])
        v[_KITTY + r] = view.kitty_taken[r] / t.kitty_size if t.kitty_size else 0.0
        v[_TRICKS + r] = view.tricks_won[r] / t.num_tricks
        v[_POINTS + r] = clip(view.points_taken[r] / total, -4, 4)
        v[_TOTALS + r] = clip(view.totals[r] / 100, -10, 10)
        for suit in view.void_in[r]:
            v[_VOID + r * 4 + suit] = 1
    v[_PHASE + PHASE_NAMES.index(view.phase)] = 1
    if view.pass_kind is not None:
        v[_KIND + kind_slot(view.pass_kind, n)] = 1
    v[_DCHOICE] = float(view.dealer_choice)
    v[_TNUM] = view.trick_number / t.num_tricks
    v[_HBROKEN] = float(view.hearts_broken)
    v[_QPLAYED] = float(view.queen_played)
    v[_LEADHEART] = float(view.lead_heart_declared)
    v[_DEALNO] = clip(view.deal_number / 10, 0, 10)
    v[_MATCH:] = rules_block(rules, view.match_episode)
    return v


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
