"""The incremental encoder: every seat's observation of one deal or match, kept up to date action
by action (always equal to ``hearts_env.obs.reference.encode``)."""

import functools
from typing import Any

import numpy as np

from ..core.actions import LEAD_HEART, PASS_THROUGH
from ..core.cards import NUM_CARDS, QS
from ..core.deal import PASSING, PLAYING, Deal
from ..core.match import Match
from ..core.rules import (
    Rules,
    pass_offset,
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
    DEAL_SEGMENTS_END,
    MAX_SEATS,
    OBSERVATION_SIZE,
    POOL,
    bits52,
    clip,
    kind_slot,
    rules_block,
)
from .view import intended_target

# ---------------------------------------------------------------------------------------------
# The incremental encoder used by the environment
# ---------------------------------------------------------------------------------------------


@functools.lru_cache(maxsize=8)
def _index_tables(
    n: int,
) -> tuple[tuple[tuple[tuple[np.ndarray, ...], ...], ...], np.ndarray, np.ndarray, np.ndarray]:
    """Flat buffer indices over all N views: ``play[s][i][c]`` are the entries a card ``c`` played
    by seat ``s`` at trick position ``i`` sets in ``played_by`` and ``trick``; ``rel[s, v]`` is
    ``v * SIZE + (s - v) % n`` (seat s's entry in view v) and ``rows[s, v]`` ``v * SIZE + 52 * ((s - v) % n)``
    (the start of seat s's card row in view v); ``voids[s, v]`` the start of seat s's ``void_in`` row.
    Shared by every encoder of ``n`` seats, so read-only (tuples and non-writeable arrays)."""
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
            per_pos.append(tuple(_frozen(rows + c) for c in range(NUM_CARDS)))
        play.append(tuple(per_pos))
    return tuple(play), _frozen(rel), _frozen(card_rows), _frozen(void_rows)


def _frozen(array: np.ndarray) -> np.ndarray:
    array.flags.writeable = False
    return array


#: The encoder's attributes ``_derive`` rebuilds (left out of copies and pickles).
_DERIVED = frozenset(
    {"_flat", "_play", "_rel", "_rows", "_voids", "_won_idx", "_tricks_idx", "_points_idx", "_leader_idx", "_void_idx"}
)


class ObservationEncoder:
    """Every seat's observation vector of one deal (or match), kept up to date action by action.

    Call ``start(deal)`` when a deal begins and ``update(deal, seat, action, phase)`` after each
    ``apply_action`` (``phase`` is the phase before the action); ``observation(seat)`` returns a
    fresh copy of that seat's vector. The result always equals ``encode(deal, seat, match)``.
    A copy or a pickle (``copy.deepcopy``, ``pickle``) is an encoder of its own that goes on
    updating its own buffer.
    """

    def __init__(self, rules: Rules, match_episode: bool = False) -> None:
        n = rules.num_players
        t = rules.tables
        self.rules = rules
        self.num_players = n
        self.match_episode = match_episode
        self.buffer = np.zeros((n, OBSERVATION_SIZE), np.float32)
        self.buffer[:, _MATCH:] = rules_block(rules, match_episode)
        self._derive()
        self._values = t.card_values
        self._num_tricks = t.num_tricks
        self._kitty_size = t.kitty_size
        self._total = max(t.penalty_total, 1)
        self._points = [0] * n
        self._deal: Deal | None = None

    def _derive(self) -> None:
        """The view of the buffer and the index tables: derived from ``buffer`` and ``num_players``,
        so never copied or pickled (a copied ``_flat`` would be an array of its own, and the copy's
        updates would miss its observations); ``__setstate__`` rebuilds them."""
        n = self.num_players
        self._flat = self.buffer.reshape(-1)
        self._play, self._rel, self._rows, self._voids = _index_tables(n)
        # precomputed per-seat index arrays for the trick-completion writes
        self._won_idx = [[self._rows[w] + (_WON + c) for c in range(NUM_CARDS)] for w in range(n)]
        self._tricks_idx = [self._rel[w] + _TRICKS for w in range(n)]
        self._points_idx = [self._rel[w] + _POINTS for w in range(n)]
        self._leader_idx = [self._rel[w] + _LEADER for w in range(n)]
        self._void_idx = [[self._voids[s] + suit for suit in range(4)] for s in range(n)]

    def __getstate__(self) -> dict[str, Any]:
        return {k: v for k, v in self.__dict__.items() if k not in _DERIVED}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self._derive()

    # ---- whole-state writes (a deal starts, a pass resolves, the phase changes)
    def start(self, deal: Deal, match: Match | None = None) -> None:
        """Write every seat's vector for a deal that has just been dealt."""
        n = self.num_players
        buf = self.buffer
        self._deal = deal
        buf[:, :DEAL_SEGMENTS_END] = 0.0
        for v in range(n):
            buf[v, _HAND : _HAND + 52] = bits52(deal.hands[v])
        self._set_rel(_DEALER, deal.dealer, 1.0)
        if deal.cycle_kind == "dealer_choice":
            buf[:, _DCHOICE] = 1.0
        totals = match.totals if match is not None else deal.totals_before
        for v in range(n):
            for r in range(n):
                buf[v, _TOTALS + r] = clip(totals[(v + r) % n] / 100, -10, 10)
        buf[:, _DEALNO] = clip(match.deals_counted / 10, 0, 10) if match is not None else 0.0
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
                self.buffer[v, _TOTALS + r] = clip(match.totals[(v + r) % n] / 100, -10, 10)
        self.buffer[:, _DEALNO] = clip(match.deals_counted / 10, 0, 10)

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
                buf[:, _KIND + kind_slot(deal.pass_kind, self.num_players)] = 1.0
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
            row[_HAND : _HAND + 52] = bits52(deal.hands[v])
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
                target = intended_target(deal, index)
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
        flat[self._points_idx[winner]] = clip(self._points[winner] / self._total, -4, 4)
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
