"""The batched engine's transitions: pure functions of (state, actions) over B deals of one rule set.

``HeartsKernel`` holds the parameters (``BatchedParams``) and constant tables on a device; it keeps no
state. Its methods take a ``BatchState`` and return a new one (the input is never modified):

- ``initial(batch_size, generator)``: B fresh deals;
- ``transition(state, actions, generator)``: one decision in every row, with automatic reset of the
  deals that end, returning the new state and a ``StepResult`` (rewards, done flags, final scores);
- ``legal_mask(state)``: ``(B, 68)`` bool, exactly ``hearts_env.Deal.legal_mask`` of each row;
- ``load(...)`` / ``export(...)``: explicit deals in and out, for tests and replay.

Every step follows RULES.md: §3.4.1's legal-move algorithm (computed on 52-bit masks), §3.3's passes
(single target with pass-through, scatter, smoosh, dealer's choice), §3.1's kitty, §3.5's scoring
pipeline, and §10's decision order. Rows move independently (a row may pass while another plays);
work that only some rows need (resolving a pass, scoring, dealing) runs on those rows alone.

Deal sequence: a finished deal is followed in its row by the next deal a match would play: the dealer
moves on (``dealer_rotation``) and the pass cycle advances, except after a cancelled deal (the same
dealer redeals; the cycle advances only with ``void_deal_advances_pass_cycle``). Each deal is scored
alone, as ``hearts_env.Deal`` scores it: the totals before it are zero unless loaded with ``load``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import torch

from ..core.actions import (
    LEAD_HEART,
    MOON_ADD,
    MOON_SUBTRACT,
    NUM_ACTIONS,
    PASS_FROM_HAND,
    PASS_THROUGH,
    VOID_DEAL,
    action_name,
)
from ..core.cards import (
    CLUBS,
    HEARTS_MASK,
    HIGHER_THAN_QUEEN_MASK,
    NUM_CARDS,
    QS,
    QS_BIT,
    SPADES,
    SUIT_MASKS,
    card_name,
    cards_of,
)
from ..core.deal import PHASE_NAMES, check_deal_pass_kind, deal_card_id, mask_to_actions
from ..core.errors import IllegalActionError, InvalidDealError
from .bits import BitTables, lowest_bit
from .params import (
    DEALER_CHOICE,
    DEALER_CHOICE_KIND,
    HOLD,
    MOON_CHOICE,
    NOT_POINTS_MASK,
    PASSING,
    PLAYING,
    SCATTER,
    SMOOSH,
    SPECIAL_BASE,
    BatchedParams,
    kind_code,
    kind_name,
)
from .state import FIELD_NAMES, BatchState

CLUB_MASK = SUIT_MASKS[CLUBS]
NOT_HEARTS = ((1 << NUM_CARDS) - 1) & ~HEARTS_MASK
VOID_CHOICE_BITS = (1 << (VOID_DEAL - SPECIAL_BASE)) | (1 << (LEAD_HEART - SPECIAL_BASE))
DECLARE_BITS = (1 << (PASS_FROM_HAND - SPECIAL_BASE)) | (1 << (PASS_THROUGH - SPECIAL_BASE))
MOON_BITS = (1 << (MOON_SUBTRACT - SPECIAL_BASE)) | (1 << (MOON_ADD - SPECIAL_BASE))


def _split_actions(rows: torch.Tensor | None, a: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """Card actions and special actions among ``rows`` (``None``: every row)."""
    is_card = a < NUM_CARDS
    if rows is None:
        return is_card, ~is_card
    return rows & is_card, rows & ~is_card


class BatchedActionError(IllegalActionError):
    """Actions the batch cannot take: illegal under the mask, out of range, or not a ``(B,)`` integer
    tensor on the engine's device. ``rows`` and ``actions`` name the offending batch rows and actions
    (empty for a malformed tensor). The state is unchanged."""

    def __init__(self, message: str, rows: Sequence[int] = (), actions: Sequence[int] = ()) -> None:
        self.rows = list(rows)
        self.actions = list(actions)
        super().__init__(message, self.actions[0] if self.actions else -1, [])


@dataclass(frozen=True)
class StepResult:
    """What one transition reports, per row (B rows, N seats).

    ``rewards`` is minus the deal points of each seat in the rows whose deal ended at this step
    (zero elsewhere); ``done`` flags those rows (their state already holds the next deal);
    ``scores`` the deal points (``hearts_env.Deal.scores``) of the deals that ended, and
    ``cancelled`` the ended deals that were voided (scores all zero).
    """

    rewards: torch.Tensor  # (B, N) float32
    done: torch.Tensor  # (B,) bool
    scores: torch.Tensor  # (B, N) int64
    cancelled: torch.Tensor  # (B,) bool


class HeartsKernel:
    """Stateless transition functions for one rule set on one device (see the module docstring)."""

    def __init__(self, params: BatchedParams, device: torch.device | str = "cpu") -> None:
        self.params = params
        self.device = device = torch.empty(0, device=device).device  # with its index: cuda -> cuda:0
        p = params
        n = p.num_players
        self.n = n
        self.bits = BitTables(device)

        def tensor(values: Any) -> torch.Tensor:
            return torch.tensor(values, dtype=torch.int64, device=device)

        self.seats = tensor(list(range(n)))
        self.suit_masks = tensor(list(SUIT_MASKS))
        self.values = tensor(list(p.card_values))
        groups: dict[int, int] = {}
        for card in p.deck:
            if p.card_values[card]:
                groups[p.card_values[card]] = groups.get(p.card_values[card], 0) | 1 << card
        self.value_groups = sorted(groups.items())
        self.deck_ids = tensor(list(p.deck))
        self.cycle = tensor(list(p.pass_cycle))
        self.pool_index = tensor(list(range(n * p.pass_count)))
        self.rotation = tensor([[(q + r) % n for r in range(n)] for q in range(n)])
        self.scatter_share = p.pass_count // (n - 1) if p.pass_count % (n - 1) == 0 else 0

    # ------------------------------------------------------------------ construction
    def blank(self, batch_size: int) -> BatchState:
        """B rows of zeros in the right shapes (not a playable state: ``initial`` deals into it)."""
        p, n, d = self.params, self.n, self.device
        b = batch_size

        def z(*shape: int, fill: int = 0, dtype: torch.dtype = torch.int64) -> torch.Tensor:
            return torch.full((b, *shape), fill, dtype=dtype, device=d)

        return BatchState(
            phase=z(),
            current=z(),
            dealer=z(),
            cycle_pos=z(),
            kind=z(),
            deal_kind=z(),
            hands=z(n),
            dealt=z(n),
            kitty_cards=z(p.kitty_size),
            kitty_left=z(),
            kitty_mask=z(),
            pass_pos=z(),
            pass_num=z(),
            declared=z(dtype=torch.bool),
            through=z(n, dtype=torch.bool),
            chosen=z(n),
            chosen_cards=z(n, p.pass_count, fill=-1),
            passed=z(n),
            received=z(n),
            pass_target=z(n, fill=-1),
            pass_rows=z(n, 18),
            forwarded=z(n),
            smoosh_perm=z(p.smoosh_size) + self.pool_index,
            opening=z(),
            leader=z(),
            trick_number=z(),
            trick_len=z(),
            trick_cards=z(n, fill=-1),
            trick_mask=z(),
            led_suit=z(fill=-1),
            best_card=z(fill=-1),
            best_seat=z(fill=-1),
            hearts_broken=z(dtype=torch.bool),
            void_declined=z(dtype=torch.bool),
            won=z(n),
            tricks_won=z(n),
            played=z(n),
            points=z(n),
            trick_points=z(),
            void=z(n),
            totals=z(n),
            shooter=z(fill=-1),
            legal_cards=z(),
            legal_special=z(),
        )

    def initial(self, batch_size: int, generator: torch.Generator) -> BatchState:
        """B fresh deals: the first deal of a match in every row (dealer per ``first_dealer``)."""
        if batch_size < 1:
            raise ValueError(f"batch_size must be at least 1, got {batch_size}")
        s = self.blank(batch_size)
        if self.params.first_dealer < 0:
            dealer = torch.randint(0, self.n, (batch_size,), generator=generator, device=self.device)
        else:
            dealer = torch.full_like(s.dealer, self.params.first_dealer)
        s = s.replace(dealer=dealer)
        s = self._deal_rows(s, generator)
        return self._with_legal(s)

    # ------------------------------------------------------------------ queries
    def legal_mask(self, state: BatchState) -> torch.Tensor:
        """``(B, 68)`` bool: the legal actions of the seat to move in each row."""
        b = state.batch_size
        fields = torch.empty(b, 6, dtype=torch.int64, device=self.device)
        self.bits.fields(state.legal_cards, out=fields[:, :4])
        torch.bitwise_and(state.legal_special, 0x1FFF, out=fields[:, 4])
        torch.bitwise_right_shift(state.legal_special, 13, out=fields[:, 5])
        # six 13-bit fields: the 52 cards, then the 16 special actions (and 10 unused bits)
        return self.bits.expand_bool.index_select(0, fields.view(-1)).view(b, 78)[:, :NUM_ACTIONS].contiguous()

    # ------------------------------------------------------------------ validation
    def validate(self, state: BatchState, actions: torch.Tensor) -> torch.Tensor:
        """``actions`` as int64 if every row's action is legal, else ``BatchedActionError``."""
        b = state.batch_size
        if not isinstance(actions, torch.Tensor):
            raise BatchedActionError(f"actions must be a torch.Tensor of shape ({b},), got {type(actions).__name__}")
        if actions.shape != (b,):
            raise BatchedActionError(f"actions must have shape ({b},) (one per row), got {tuple(actions.shape)}")
        if actions.device != state.device:
            raise BatchedActionError(f"actions are on {actions.device}, the engine on {state.device}")
        if actions.dtype == torch.bool or actions.is_floating_point() or actions.is_complex():
            raise BatchedActionError(f"actions must be an integer tensor, got {actions.dtype}")
        a = actions.long()
        ac = a.clamp(0, NUM_ACTIONS - 1)
        card_ok = (state.legal_cards >> ac.clamp(max=NUM_CARDS - 1)) & 1
        special_ok = (state.legal_special >> (ac - SPECIAL_BASE).clamp(min=0)) & 1
        ok = torch.where(ac < NUM_CARDS, card_ok, special_ok).bool() & (ac == a)
        if not bool(ok.all()):
            self._reject(state, a, ok)
        return a

    def _reject(self, state: BatchState, a: torch.Tensor, ok: torch.Tensor) -> None:

        rows = torch.nonzero(~ok).flatten().tolist()
        acts = a[rows].tolist()
        details = []
        for row, act in list(zip(rows, acts, strict=True))[:5]:
            legal = self.row_legal_int(state, row)
            names = " ".join(action_name(x) for x in mask_to_actions(legal))
            what = action_name(act) if 0 <= act < NUM_ACTIONS else "out of range 0..67"
            phase = PHASE_NAMES[int(state.phase[row])]
            seat = int(state.current[row])
            details.append(f"row {row}: action {act} ({what}) for seat {seat} ({phase}); legal: {names}")
        more = f" (and {len(rows) - 5} more rows)" if len(rows) > 5 else ""
        raise BatchedActionError(
            f"illegal actions in {len(rows)} rows {rows[:20]}{'...' if len(rows) > 20 else ''} "
            f"(actions {acts[:20]}{'...' if len(acts) > 20 else ''}):\n  " + "\n  ".join(details) + more,
            rows,
            acts,
        )

    def row_legal_int(self, state: BatchState, row: int) -> int:
        """The legal set of one row as a Python int over action ids (as ``Deal.legal_mask``)."""
        return int(state.legal_cards[row]) | int(state.legal_special[row]) << SPECIAL_BASE

    # ------------------------------------------------------------------ the transition
    def transition(
        self, state: BatchState, actions: torch.Tensor, generator: torch.Generator
    ) -> tuple[BatchState, StepResult]:
        """Apply one action per row; deals that end are scored and replaced by the next deal."""
        a = self.validate(state, actions)
        n = self.n
        s = state
        counts = torch.bincount(s.phase, minlength=4).tolist()
        b = s.batch_size
        event = None  # rows needing work beyond the common path

        def add_event(flag: torch.Tensor) -> None:
            nonlocal event
            event = flag if event is None else event | flag

        cancel = None  # rows whose deal is voided by this step
        if counts[PLAYING]:
            s, end_play, void_now = self._play(s, a, all_rows=counts[PLAYING] == b)
            add_event(end_play)
            if void_now is not None:
                add_event(void_now)
                cancel = void_now
        if counts[PASSING]:
            s, pass_done = self._pass(s, a, all_rows=counts[PASSING] == b)
            add_event(pass_done)
        if counts[DEALER_CHOICE]:
            add_event(state.phase == DEALER_CHOICE)
        if counts[MOON_CHOICE]:
            add_event(state.phase == MOON_CHOICE)

        done = torch.zeros(b, dtype=torch.bool, device=self.device)
        scores = torch.zeros(b, n, dtype=torch.int64, device=self.device)
        cancelled = done
        if event is not None:
            idx = torch.nonzero(event).flatten()
            if idx.numel():
                sub = s.rows(idx)
                sub_cancel = (
                    cancel.index_select(0, idx) if cancel is not None else torch.zeros_like(idx, dtype=torch.bool)
                )
                sub, sub_done, sub_scores, sub_cancelled = self._events(
                    sub, a.index_select(0, idx), state.phase.index_select(0, idx), sub_cancel, generator
                )
                s = self._put_rows(s, idx, sub)
                done = done.index_put((idx,), sub_done)
                scores = scores.index_put((idx,), sub_scores)
                cancelled = cancelled.index_put((idx,), sub_cancelled)
        s = self._with_legal(s)
        rewards = (-scores).float()
        return s, StepResult(rewards=rewards, done=done, scores=scores, cancelled=cancelled)

    # ------------------------------------------------------------------ playing a card
    def _play(
        self, s: BatchState, a: torch.Tensor, all_rows: bool
    ) -> tuple[BatchState, torch.Tensor, torch.Tensor | None]:
        """Card plays (and the leader's void decisions) in the rows that are playing. Completes tricks
        and starts the next one; returns the rows whose play just ended and those voided now."""
        p, n = self.params, self.n
        playing = None if all_rows else s.phase == PLAYING
        void_now = None
        card_act = playing
        if p.can_leader_void:
            card_act, special = _split_actions(playing, a)
            void_now = special & (a == VOID_DEAL)
            lead_heart = special & (a == LEAD_HEART)
        card = a.clamp(max=NUM_CARDS - 1)
        bit = 1 << card
        if card_act is not None:
            bit = torch.where(card_act, bit, 0)
        cur = s.current
        at_cur = self.seats == cur.unsqueeze(1)
        bit_at_cur = torch.where(at_cur, bit.unsqueeze(1), 0)
        hands = s.hands ^ bit_at_cur
        played = s.played | bit_at_cur
        pos = s.trick_len
        put = self.seats == pos.unsqueeze(1)
        if card_act is not None:
            put = put & card_act.unsqueeze(1)
        trick_cards = torch.where(put, card.unsqueeze(1), s.trick_cards)
        trick_mask = s.trick_mask | bit
        suit = torch.div(card, 13, rounding_mode="floor")
        first = pos == 0
        if card_act is not None:
            first = first & card_act
        led_suit = torch.where(first, suit, s.led_suit)
        follows = suit == led_suit
        better = first | (follows & (card > s.best_card))
        if card_act is not None:
            better = better & card_act
        best_card = torch.where(better, card, s.best_card)
        best_seat = torch.where(better, cur, s.best_seat)
        breaks = (bit & HEARTS_MASK) != 0
        if p.queen_breaks:
            breaks = breaks | (bit == QS_BIT)
        hearts_broken = s.hearts_broken | breaks
        shows_void = ~follows
        card_points = self.values.gather(0, card)
        if card_act is None:
            trick_len = pos + 1
            current = (cur + 1) % n
        else:
            trick_len = pos + card_act.long()
            current = torch.where(card_act, (cur + 1) % n, cur)
            shows_void = shows_void & card_act
            card_points = torch.where(card_act, card_points, 0)
        void = s.void | torch.where(at_cur & shows_void.unsqueeze(1), (1 << led_suit.clamp(min=0)).unsqueeze(1), 0)
        s = s.replace(
            hands=hands,
            played=played,
            trick_cards=trick_cards,
            trick_mask=trick_mask,
            led_suit=led_suit,
            best_card=best_card,
            best_seat=best_seat,
            hearts_broken=hearts_broken,
            trick_len=trick_len,
            current=current,
            void=void,
            trick_points=s.trick_points + card_points,
        )
        if p.can_leader_void:
            s = s.replace(void_declined=s.void_declined | lead_heart)
        complete = trick_len == n
        no_end = torch.zeros_like(complete)
        if not bool(complete.any()):
            return s, no_end, void_now
        s, end_play, voided = self._complete_tricks(s, complete)
        if voided is not None:
            void_now = voided if void_now is None else void_now | voided
        return s, end_play, void_now

    def _complete_tricks(
        self, s: BatchState, complete: torch.Tensor
    ) -> tuple[BatchState, torch.Tensor, torch.Tensor | None]:
        """The rows in ``complete`` have a full trick: its winner takes it (and kitty cards), leads next."""
        p = self.params
        winner = s.best_seat
        at_winner = (self.seats == winner.unsqueeze(1)) & complete.unsqueeze(1)
        take = s.trick_mask
        kitty_left = s.kitty_left
        if p.kitty_size:
            give = self._kitty_give(s, complete)
            take = take | give
            kitty_left = kitty_left & ~give
        won = s.won | torch.where(at_winner, take.unsqueeze(1), 0)
        tricks_won = s.tricks_won + at_winner.long()
        points = s.points + torch.where(at_winner, s.trick_points.unsqueeze(1), 0)
        trick_number = s.trick_number + complete.long()
        end_play = complete & (trick_number == p.num_tricks)
        s = s.replace(won=won, tricks_won=tricks_won, points=points, trick_number=trick_number, kitty_left=kitty_left)
        s, voided = self._begin_trick(s, complete, winner)
        if voided is not None:
            voided = voided & ~end_play
        return s, end_play, voided

    def _kitty_give(self, s: BatchState, complete: torch.Tensor) -> torch.Tensor:
        """Kitty cards handed to the winner of each completed trick (RULES.md §3.1 ``kitty_taker``)."""
        p = self.params
        taker = p.rules.kitty_taker
        left = s.kitty_left
        last = s.trick_number == p.num_tricks - 1
        if taker == "first_trick_winner":
            give = left
        elif taker == "first_penalty_taker":  # the first trick holding a heart or QS (RULES.md §3.1)
            give = torch.where(((s.trick_mask & (HEARTS_MASK | QS_BIT)) != 0) | last, left, 0)
        else:  # one_card_per_trick
            k = p.kitty_size
            t = s.trick_number.clamp(max=k - 1)
            nth = 1 << s.kitty_cards.gather(1, t.unsqueeze(1)).squeeze(1)
            give = torch.where(last, left, torch.where(s.trick_number < k, nth & left, 0))
        return torch.where(complete, give, 0)

    def _begin_trick(
        self, s: BatchState, rows: torch.Tensor, leader: torch.Tensor
    ) -> tuple[BatchState, torch.Tensor | None]:
        """Start a trick led by ``leader`` in ``rows``; with ``void_deal``, flag the rows it cancels."""
        p = self.params
        r = rows.unsqueeze(1)
        s = s.replace(
            leader=torch.where(rows, leader, s.leader),
            current=torch.where(rows, leader, s.current),
            trick_len=torch.where(rows, 0, s.trick_len),
            trick_mask=torch.where(rows, 0, s.trick_mask),
            trick_cards=torch.where(r, -1, s.trick_cards),
            led_suit=torch.where(rows, -1, s.led_suit),
            best_card=torch.where(rows, -1, s.best_card),
            best_seat=torch.where(rows, -1, s.best_seat),
            trick_points=torch.where(rows, 0, s.trick_points),
            void_declined=s.void_declined & ~rows,
        )
        if not p.can_auto_void:
            return s, None
        hand = s.hands.gather(1, leader.clamp(min=0).unsqueeze(1)).squeeze(1)
        first = s.trick_number == 0
        candidates = self._lead_candidates(hand, first)
        voided = rows & ~s.hearts_broken & ((candidates & NOT_HEARTS) == 0)
        if p.first_lead != "eldest_any_card":
            voided = voided & ~first
        return s, voided

    def _lead_candidates(self, hand: torch.Tensor, first: torch.Tensor) -> torch.Tensor:
        """C of RULES.md §3.4.1: the hand, less point cards on the first trick where that rule holds."""
        if not self.params.no_points_first:
            return hand
        safe = hand & NOT_POINTS_MASK
        return torch.where(first & (safe != 0), safe, hand)

    # ------------------------------------------------------------------ passing a card
    def _pass(self, s: BatchState, a: torch.Tensor, all_rows: bool) -> tuple[BatchState, torch.Tensor]:
        """Pass choices (cards and pass-through declarations) in the rows that are passing; returns the
        rows whose last seat has just finished (their pass resolves with the other events)."""
        p, n = self.params, self.n
        passing = None if all_rows else s.phase == PASSING
        card_pass = passing
        through_now = None
        if p.can_declare:
            card_pass, decl = _split_actions(passing, a)
            through_now = decl & (a == PASS_THROUGH)
        card = a.clamp(max=NUM_CARDS - 1)
        bit = 1 << card
        if card_pass is not None:
            bit = torch.where(card_pass, bit, 0)
        at_cur = self.seats == s.current.unsqueeze(1)
        chosen = s.chosen | torch.where(at_cur, bit.unsqueeze(1), 0)
        flat = s.pass_pos * p.pass_count + s.pass_num
        put = self.pool_index == flat.unsqueeze(1)
        if card_pass is not None:
            put = put & card_pass.unsqueeze(1)
        chosen_cards = torch.where(put, card.unsqueeze(1), s.chosen_cards.reshape(s.batch_size, -1))
        chosen_cards = chosen_cards.view_as(s.chosen_cards)
        step = torch.ones_like(s.pass_num) if card_pass is None else card_pass.long()
        pass_num = s.pass_num + step
        seat_done = pass_num == p.pass_count
        declared = s.declared
        through = s.through
        if through_now is not None:
            declared = declared | decl
            through = through | (at_cur & through_now.unsqueeze(1))
            seat_done = seat_done | through_now
        pass_pos = s.pass_pos + seat_done.long()
        eldest = (s.dealer + 1) % n
        s = s.replace(
            chosen=chosen,
            chosen_cards=chosen_cards,
            pass_num=torch.where(seat_done, 0, pass_num),
            pass_pos=pass_pos,
            declared=declared & ~seat_done,
            through=through,
            current=torch.where(seat_done, (eldest + pass_pos) % n, s.current),
        )
        return s, seat_done & (pass_pos == n)

    # ------------------------------------------------------------------ events (a sub-batch of rows)
    def _events(
        self,
        s: BatchState,
        a: torch.Tensor,
        phase_before: torch.Tensor,
        cancel: torch.Tensor,
        generator: torch.Generator,
    ) -> tuple[BatchState, torch.Tensor, torch.Tensor, torch.Tensor]:
        """Everything beyond a card or pass choice, for the rows of ``s`` (a sub-batch): resolving a
        pass, the dealer's choice, the end of play, the moon choice, scoring, and dealing anew."""
        p = self.params
        m = s.batch_size
        fin = torch.zeros(m, dtype=torch.bool, device=self.device)
        choice = torch.full((m,), -1, dtype=torch.int64, device=self.device)
        # a pass completes: cards move, play starts
        pass_done = (phase_before == PASSING) & (s.pass_pos == self.n)
        if bool(pass_done.any()):
            s = self._resolve_pass(s, pass_done)
            s, voided = self._begin_play(s, pass_done)
            if voided is not None:
                cancel = cancel | voided
        # the dealer announces the pass kind
        chooses = phase_before == DEALER_CHOICE
        if bool(chooses.any()):
            code = torch.where(a <= 60, a - 53, torch.where(a == 61, HOLD, torch.where(a == 62, SCATTER, SMOOSH)))
            s = s.replace(kind=torch.where(chooses, code, s.kind))
            s, voided = self._begin_passing(s, chooses)
            if voided is not None:
                cancel = cancel | voided
        # the last trick is over: the moon choice, or the score
        end_play = (s.phase == PLAYING) & (s.trick_number == p.num_tricks)
        if bool(end_play.any()):
            shooter = self._find_shooter(s.won, s.tricks_won)
            if p.can_moon_choice:
                asks = end_play & (shooter >= 0)
                s = s.replace(
                    phase=torch.where(asks, MOON_CHOICE, s.phase),
                    current=torch.where(asks, shooter, s.current),
                    shooter=torch.where(asks, shooter, s.shooter),
                )
                fin = fin | (end_play & ~asks)
            else:
                fin = fin | end_play
        moon = phase_before == MOON_CHOICE
        if p.can_moon_choice and bool(moon.any()):
            choice = torch.where(moon, (a == MOON_ADD).long(), choice)
            fin = fin | moon
        fin = fin | cancel
        scores = self._score(s, cancel, choice)
        scores = torch.where(fin.unsqueeze(1), scores, 0)
        if bool(fin.any()):
            idx = torch.nonzero(fin).flatten()
            sub = self._next_deal(s.rows(idx), cancel.index_select(0, idx), generator)
            s = self._put_rows(s, idx, sub)
        return s, fin, scores, cancel & fin

    def _begin_passing(self, s: BatchState, rows: torch.Tensor) -> tuple[BatchState, torch.Tensor | None]:
        """Rows whose pass kind is known start passing (or, on a hold deal, playing)."""
        n = self.n
        hold = rows & (s.kind == HOLD)
        passes = rows & ~hold
        eldest = (s.dealer + 1) % n
        s = s.replace(
            phase=torch.where(passes, PASSING, s.phase),
            current=torch.where(passes, eldest, s.current),
            pass_pos=torch.where(rows, 0, s.pass_pos),
            pass_num=torch.where(rows, 0, s.pass_num),
            declared=s.declared & ~rows,
        )
        return self._begin_play(s, hold)

    def _begin_play(self, s: BatchState, rows: torch.Tensor) -> tuple[BatchState, torch.Tensor | None]:
        """Rows start the first trick: the opening-card holder (or eldest hand) leads."""
        p, n = self.params, self.n
        if p.first_lead == "eldest_any_card":
            leader = (s.dealer + 1) % n
        else:
            leader = ((s.hands >> s.opening.unsqueeze(1)) & 1).argmax(1)
        s = s.replace(phase=torch.where(rows, PLAYING, s.phase))
        return self._begin_trick(s, rows, leader)

    def _resolve_pass(self, s: BatchState, rows: torch.Tensor) -> BatchState:
        """Move the chosen cards of ``rows`` (RULES.md §3.3 and §10's conventions)."""
        p, n = self.params, self.n
        m = s.batch_size
        kind = s.kind
        chosen = s.chosen
        zeros = torch.zeros_like(chosen)
        received = zeros
        seats = self.seats.unsqueeze(0).expand(m, n)
        # single-target passes, packets travelling past pass-through seats
        single = rows & (kind >= 1) & (kind < n)
        k = kind.clamp(1, n - 1).unsqueeze(1)
        recv_from = torch.zeros(m, n * n, dtype=torch.int64, device=self.device)
        forwarded = torch.zeros_like(chosen)
        if p.can_declare:
            target = seats
            steps = torch.full_like(seats, n)
            for j in range(n - 1, 0, -1):
                candidate = (seats + j * k) % n
                keeps = ~s.through.gather(1, candidate)
                target = torch.where(keeps, candidate, target)
                steps = torch.where(keeps, j, steps)
            if p.rules.pass_through_visible:
                for j in range(1, n):
                    via = (seats + j * k) % n
                    forwarded = forwarded.scatter_add(1, via, torch.where(steps > j, chosen, 0))
                forwarded = torch.where(single.unsqueeze(1), forwarded, 0)
        else:
            target = (seats + k) % n
        received = torch.where(single.unsqueeze(1), zeros.scatter_add(1, target, chosen), received)
        single_from = recv_from.scatter_add(1, target * n + seats, chosen)
        recv_from = torch.where(single.unsqueeze(1), single_from, recv_from)
        pass_target = torch.where(single.unsqueeze(1) & ~s.through, target, -1)
        eldest = (s.dealer + 1) % n
        if self.scatter_share:
            scatter = rows & (kind == SCATTER)
            seat_at = (eldest.unsqueeze(1) + self.seats) % n  # (m, n) seat of each pass position
            shares = torch.div(self.pool_index[: p.pass_count], self.scatter_share, rounding_mode="floor")
            dest = ((seat_at.unsqueeze(2) + 1 + shares) % n).view(m, -1)  # (m, n * P)
            bits = (1 << s.chosen_cards.clamp(min=0)).view(m, -1)
            got = zeros.scatter_add(1, dest, bits)
            received = torch.where(scatter.unsqueeze(1), got, received)
            source = seat_at.unsqueeze(2).expand(m, n, p.pass_count).reshape(m, -1)
            scatter_from = torch.zeros_like(recv_from).scatter_add(1, dest * n + source, bits)
            recv_from = torch.where(scatter.unsqueeze(1), scatter_from, recv_from)
        smoosh = rows & (kind == SMOOSH)
        pool = s.chosen_cards.view(m, -1)
        shuffled = pool.gather(1, s.smoosh_perm)
        dest = (eldest.unsqueeze(1) + self.pool_index % n) % n
        got = zeros.scatter_add(1, dest, 1 << shuffled.clamp(min=0))
        received = torch.where(smoosh.unsqueeze(1), got, received)
        r = rows.unsqueeze(1)
        return s.replace(
            hands=torch.where(r, (s.hands & ~chosen) | received, s.hands),
            passed=torch.where(r, chosen, s.passed),
            received=torch.where(r, received, s.received),
            pass_target=torch.where(r, pass_target, s.pass_target),
            pass_rows=torch.where(
                r.unsqueeze(2), self._pass_rows(recv_from.view(m, n, n), chosen, received, smoosh), s.pass_rows
            ),
            forwarded=torch.where(r, forwarded, s.forwarded),
        )

    def _pass_rows(
        self, recv_from: torch.Tensor, chosen: torch.Tensor, received: torch.Tensor, smoosh: torch.Tensor
    ) -> torch.Tensor:
        """Per seat, the resolved pass as it sees it (``BatchState.pass_rows``): ``recv_from[b, q, p]``
        holds the cards seat q received from seat p (single-target and scatter passes)."""
        n = self.n
        m = recv_from.shape[0]
        rot = self.rotation.unsqueeze(0).expand(m, n, n)  # rot[q, r] = (q + r) % n
        received_rel = recv_from.gather(2, rot)  # [q, r]: from the seat r places left of q
        sent_rel = recv_from.transpose(1, 2).gather(2, rot)  # [q, r]: to the seat r places left of q
        pad = recv_from.new_zeros(m, n, 8 - n)
        sm = smoosh.view(m, 1, 1)
        sent_pool = torch.where(sm, chosen.unsqueeze(2), 0)
        received_pool = torch.where(sm, received.unsqueeze(2), 0)
        return torch.cat([sent_rel, pad, sent_pool, received_rel, pad, received_pool], 2)

    def _find_shooter(self, won: torch.Tensor, tricks: torch.Tensor) -> torch.Tensor:
        """RULES.md §3.5 steps 2-3: the seat that shot the sun or the moon, else -1 (per row)."""
        p = self.params
        m = won.shape[0]
        shooter = torch.full((m,), -1, dtype=torch.int64, device=self.device)
        if p.moon_enabled and p.penalty_mask:
            moon = (won & p.penalty_mask) == p.penalty_mask
            if p.moon_requires_all_tricks:
                moon = moon & (tricks == p.num_tricks)
            if p.moon_requires_bonus_card:
                moon = moon & (((won >> p.bonus_card) & 1) == 1)
            shooter = torch.where(moon.any(1), moon.long().argmax(1), shooter)
        if p.sun_enabled:
            sun = tricks == p.num_tricks
            shooter = torch.where(sun.any(1), sun.long().argmax(1), shooter)
        return shooter

    def _score(self, s: BatchState, cancel: torch.Tensor, choice: torch.Tensor) -> torch.Tensor:
        """Deal points per seat (RULES.md §3.5 pipeline); ``choice`` 0/1 is the shooter's subtract/add."""
        p = self.params
        won, tricks = s.won, s.tricks_won
        raw = self._card_sum(won)
        no_tricks = (tricks == 0).long() * p.no_tricks_adjustment
        scores = raw + no_tricks
        if p.moon_enabled or p.sun_enabled:
            shooter = self._find_shooter(won, tricks)
            shot = shooter >= 0
            is_shooter = self.seats == shooter.unsqueeze(1)
            sun = torch.zeros_like(shot)
            if p.sun_enabled:
                sun = (tricks == p.num_tricks).any(1)
            # cancel_deal: no penalty points, no moon bonus; the bonus card and step 5 still apply
            cancel_moon = p.moon_mode == "cancel_deal"
            value = torch.where(sun, 0 if cancel_moon else p.sun_value, 0 if cancel_moon else p.moon_value)
            base = self._card_sum(won, negative=True)
            flat = sun | p.moon_requires_bonus_card
            base = torch.where(is_shooter & flat.unsqueeze(1), 0, base)
            if p.no_tricks_adjustment and p.no_tricks_adjustment_on_moon:
                base = base + no_tricks  # step 5 on a moon deal, before add_unless_shooter_loses looks
            subtract = base - torch.where(is_shooter, value.unsqueeze(1), 0)
            add = base + torch.where(is_shooter, 0, value.unsqueeze(1))
            mode = p.moon_mode
            if mode in ("subtract_from_shooter", "cancel_deal"):
                use_subtract = torch.ones_like(shot)
            elif mode == "add_to_others":
                use_subtract = torch.zeros_like(shot)
            elif mode == "shooter_choice":
                use_subtract = choice == 0
            else:  # add_unless_shooter_loses (RULES.md §3.5 note A): on the totals the whole deal gives
                use_subtract = self._add_would_lose(s.totals + add, is_shooter)
            moon_scores = torch.where(use_subtract.unsqueeze(1), subtract, add)
            scores = torch.where(shot.unsqueeze(1), moon_scores, scores)
        return torch.where(cancel.unsqueeze(1), 0, scores)

    def _card_sum(self, won: torch.Tensor, negative: bool = False) -> torch.Tensor:
        """Card points of each mask in ``won`` (only the negative values with ``negative``): a popcount
        per distinct card value."""
        total = torch.zeros_like(won)
        for value, mask in self.value_groups:
            if value < 0 or not negative:
                total = total + value * self.bits.count(won & mask)
        return total

    def _add_would_lose(self, after: torch.Tensor, is_shooter: torch.Tensor) -> torch.Tensor:
        """``add_unless_shooter_loses``: adding ends the game (after resets) and the shooter is not first."""
        p = self.params
        if p.game_end_threshold is None:
            return torch.zeros(after.shape[0], dtype=torch.bool, device=self.device)
        reset = after
        for key, value in p.resets:
            reset = torch.where(after == key, value, reset)
        reaches_end = (reset >= p.game_end_threshold).any(1)
        mine = torch.where(is_shooter, reset, 0).sum(1)
        others = torch.where(is_shooter, torch.iinfo(torch.int64).max, reset).amin(1)
        first = mine <= others if p.tie_counts_as_first else mine < others
        return reaches_end & ~first

    # ------------------------------------------------------------------ dealing
    def _next_deal(self, s: BatchState, cancelled: torch.Tensor, generator: torch.Generator) -> BatchState:
        """The rows of ``s`` (a sub-batch) finished a deal: deal the next one (RULES.md §3.2, §3.4)."""
        p, n = self.params, self.n
        advance = torch.ones_like(cancelled) if p.void_advances_cycle else ~cancelled
        s = s.replace(
            cycle_pos=s.cycle_pos + advance.long(),
            dealer=torch.where(cancelled, s.dealer, (s.dealer + p.dealer_step) % n),
            totals=torch.zeros_like(s.totals),
        )
        return self._deal_rows(s, generator)

    def _deal_rows(self, s: BatchState, generator: torch.Generator) -> BatchState:
        """Deal and start a deal in every row of ``s``; a deal cancelled before any decision (``void_deal``
        with the first leader holding only hearts) is followed at once by the next one."""
        s = self._deal_and_start(s, generator)
        voided = s.phase < 0
        if not bool(voided.any()):
            return s
        idx = torch.nonzero(voided).flatten()
        sub = self._next_deal(s.rows(idx), torch.ones_like(idx, dtype=torch.bool), generator)
        return self._put_rows(s, idx, sub)

    def _deal_and_start(self, s: BatchState, generator: torch.Generator) -> BatchState:
        """Shuffle and deal every row of ``s``, choose its pass kind from the cycle, start the deal.
        Rows cancelled before any decision come back with phase -1."""
        p, n = self.params, self.n
        m = s.batch_size
        size = p.hand_size
        order = torch.rand(m, len(p.deck), generator=generator, device=self.device).argsort(1)
        cards = self.deck_ids[order]
        bits = 1 << cards[:, : size * n]
        hands = bits.view(m, size, n).sum(1)
        kitty_cards = cards[:, size * n :]
        kind = self.cycle[s.cycle_pos % len(p.pass_cycle)]
        perm = s.smoosh_perm
        if p.smoosh_reachable:
            perm = torch.rand(m, p.smoosh_size, generator=generator, device=self.device).argsort(1)
        s = s.replace(hands=hands, dealt=hands, kitty_cards=kitty_cards, kind=kind, deal_kind=kind, smoosh_perm=perm)
        return self._start_deal(s)

    def _start_deal(self, s: BatchState) -> BatchState:
        """Reset every per-deal field of ``s`` from its hands, kitty, dealer and kind, and start the deal
        (the dealer's choice, the passing, or play). Rows cancelled at once come back with phase -1."""
        p = self.params
        m = s.batch_size
        d = self.device
        kitty_left = torch.zeros(m, dtype=torch.int64, device=d)
        if p.kitty_size:
            kitty_left = (1 << s.kitty_cards).sum(1)
            rest = p.deck_mask & ~kitty_left
            clubs = rest & CLUB_MASK
            opening = lowest_bit(torch.where(clubs != 0, clubs, rest))
        else:
            opening = torch.full((m,), p.lowest_club, dtype=torch.int64, device=d)
        blank = self.blank(m)
        s = blank.replace(
            dealer=s.dealer,
            cycle_pos=s.cycle_pos,
            kind=s.kind,
            deal_kind=s.deal_kind,
            hands=s.hands,
            dealt=s.dealt,
            kitty_cards=s.kitty_cards,
            kitty_left=kitty_left,
            kitty_mask=kitty_left,
            smoosh_perm=s.smoosh_perm,
            totals=s.totals,
            opening=opening,
        )
        chooses = s.kind == DEALER_CHOICE_KIND
        s = s.replace(phase=torch.where(chooses, DEALER_CHOICE, PASSING), current=s.dealer)
        s, voided = self._begin_passing(s, ~chooses)
        if voided is not None:
            s = s.replace(phase=torch.where(voided, -1, s.phase))
        return s

    # ------------------------------------------------------------------ legal sets
    def _with_legal(self, s: BatchState) -> BatchState:
        """``s`` with the legal set of the decision at hand in every row (RULES.md §3.4.1 and §10)."""
        p, n = self.params, self.n
        b = s.batch_size
        counts = torch.bincount(s.phase, minlength=4).tolist()
        hand = s.hands.gather(1, s.current.unsqueeze(1)).squeeze(1)
        cards = None
        special = None

        def merge(phase: int, c: torch.Tensor, sp: torch.Tensor | None) -> None:
            nonlocal cards, special
            if counts[phase] == b:
                cards, special = c, sp
                return
            sel = s.phase == phase
            cards = torch.where(sel, c, cards if cards is not None else 0)
            if sp is not None or special is not None:
                special = torch.where(sel, sp if sp is not None else 0, special if special is not None else 0)

        if counts[PLAYING]:
            merge(PLAYING, *self._play_legal(s, hand))
        if counts[PASSING]:
            c = hand & ~s.chosen.gather(1, s.current.unsqueeze(1)).squeeze(1)
            sp = None
            if p.can_declare:
                asks = ~s.declared & (s.kind >= 1) & (s.kind < n)
                c = torch.where(asks, 0, c)
                sp = torch.where(asks, DECLARE_BITS, 0)
            merge(PASSING, c, sp)
        if counts[DEALER_CHOICE]:
            merge(DEALER_CHOICE, torch.zeros_like(hand), torch.full_like(hand, p.dealer_choice_special))
        if counts[MOON_CHOICE]:
            merge(MOON_CHOICE, torch.zeros_like(hand), torch.full_like(hand, MOON_BITS))
        assert cards is not None
        if special is None:
            special = torch.zeros_like(cards)
        return s.replace(legal_cards=cards, legal_special=special)

    def _play_legal(self, s: BatchState, hand: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor | None]:
        """RULES.md §3.4.1 for the seat to move, on masks."""
        p = self.params
        first = s.trick_number == 0
        leading = s.trick_len == 0
        # following
        led = self.suit_masks.gather(0, s.led_suit.clamp(min=0))
        follow = hand & led
        has_follow = follow != 0
        rest = hand
        if p.no_points_first:
            safe = hand & NOT_POINTS_MASK
            fallback = hand
            if p.heart_before_queen:
                hearts = hand & HEARTS_MASK
                fallback = torch.where(hearts != 0, hearts, hand)
            rest = torch.where(first, torch.where(safe != 0, safe, fallback), hand)
        follow_legal = torch.where(has_follow, follow, rest)
        if p.queen_safe:
            has_queen = ((hand >> QS) & 1) == 1
            above = (s.trick_mask & HIGHER_THAN_QUEEN_MASK) != 0
            forced = has_follow & has_queen & (s.led_suit == SPADES) & above
            forced = forced | (~has_follow & (((rest >> QS) & 1) == 1))
            follow_legal = torch.where(forced, QS_BIT, follow_legal)
        # leading
        candidates = self._lead_candidates(hand, first)
        lead_legal = candidates
        special = None
        if p.must_break:
            unbroken = ~s.hearts_broken
            non_hearts = candidates & NOT_HEARTS
            allowed = non_hearts
            if p.queen_hearts_may_lead_heart:
                allowed = torch.where((hand & NOT_HEARTS) == QS_BIT, candidates, non_hearts)
            lead_legal = torch.where(unbroken & (non_hearts != 0), allowed, candidates)
            if p.can_leader_void:
                asks = leading & unbroken & (non_hearts == 0) & ~s.void_declined
                if p.first_lead != "eldest_any_card":
                    asks = asks & ~first
                special = torch.where(asks, VOID_CHOICE_BITS, 0)
                lead_legal = torch.where(asks, 0, lead_legal)
        if p.first_lead == "opening_card_must_be_led":
            lead_legal = torch.where(first, 1 << s.opening, lead_legal)
        elif p.first_lead == "opening_card_holder_any_club":
            lead_legal = torch.where(first, hand & CLUB_MASK, lead_legal)
        return torch.where(leading, lead_legal, follow_legal), special

    # ------------------------------------------------------------------ sub-batches
    def _put_rows(self, s: BatchState, idx: torch.Tensor, sub: BatchState) -> BatchState:
        """``s`` with the rows ``idx`` replaced by ``sub`` (a new state; ``s`` is not modified)."""
        changes = {}
        for name in FIELD_NAMES:
            changes[name] = getattr(s, name).index_put((idx,), getattr(sub, name))
        return s.replace(**changes)

    # ------------------------------------------------------------------ explicit deals
    def load(
        self,
        state: BatchState,
        rows: Sequence[int],
        hands: Sequence[Sequence[Sequence[int | str]]],
        *,
        kitty: Sequence[Sequence[int | str] | None] | None = None,
        dealer: int | Sequence[int] = 0,
        pass_kind: str | Sequence[str | None] | None = None,
        smoosh_perm: Sequence[Sequence[int] | None] | None = None,
        totals: Sequence[Sequence[int] | None] | None = None,
        cycle_pos: int | Sequence[int] = 0,
        generator: torch.Generator | None = None,
    ) -> BatchState:
        """``state`` with the given deals at the start in ``rows``, as ``hearts_env.Deal(rules, hands=...,
        kitty=..., dealer=..., pass_kind=..., totals=...)`` would start them.

        Per row: ``hands`` (N lists of cards, ids or names), ``kitty`` (the undealt cards in the order
        ``one_card_per_trick`` gives them out; default: ascending), ``dealer``, ``pass_kind`` (a RULES.md
        pass token; default: the kind at ``cycle_pos`` of the cycle), ``smoosh_perm`` (the shuffle of a
        smoosh pool: seat position ``i`` from eldest hand, dealt one at a time, receives
        ``pool[perm[i]]``; ``hearts_env.batched.reference.smoosh_perm_of(deal)`` reads the one a reference
        deal will use; default: drawn from ``generator``) and ``totals`` (read by
        ``add_unless_shooter_loses``; default zeros). Raises ``InvalidDealError`` for an invalid deal,
        or one that would be cancelled before any decision.
        """

        p, n = self.params, self.n
        rules = p.rules
        t = rules.tables
        rows = [int(r) for r in rows]
        count = len(rows)
        b = state.batch_size
        if len(set(rows)) != count or any(not 0 <= r < b for r in rows):
            raise InvalidDealError(f"rows must be distinct batch indices 0..{b - 1}, got {rows}")
        if len(hands) != count:
            raise InvalidDealError(f"{len(hands)} deals given for {count} rows")

        def per_row(value: Any, name: str) -> list[Any]:
            if value is None or isinstance(value, int | str):
                return [value] * count
            value = list(value)
            if len(value) != count:
                raise InvalidDealError(f"{name}: {len(value)} entries for {count} rows")
            return value

        kitties = per_row(kitty, "kitty") if kitty is not None else [None] * count
        dealers = per_row(dealer, "dealer")
        kinds = per_row(pass_kind, "pass_kind")
        perms = per_row(smoosh_perm, "smoosh_perm") if smoosh_perm is not None else [None] * count
        tots = per_row(totals, "totals") if totals is not None else [None] * count
        positions = per_row(cycle_pos, "cycle_pos")

        card_id = deal_card_id

        hand_rows, kitty_rows, perm_rows, total_rows, kind_rows = [], [], [], [], []
        size = p.smoosh_size
        for i, row in enumerate(rows):
            where = f"row {row}"
            deal_hands = hands[i]
            if len(deal_hands) != n:
                raise InvalidDealError(f"{where}: {len(deal_hands)} hands given for {n} players")
            seen: dict[int, int] = {}
            masks = []
            for seat, hand in enumerate(deal_hands):
                ids = [card_id(c) for c in hand]
                if len(ids) != p.hand_size:
                    raise InvalidDealError(
                        f"{where}: seat {seat} holds {len(ids)} cards; each hand must hold {p.hand_size}"
                    )
                mask = 0
                for c in ids:
                    if c in seen:
                        raise InvalidDealError(f"{where}: {card_name(c)} is dealt twice (seats {seen[c]} and {seat})")
                    if t.removed_mask >> c & 1:
                        raise InvalidDealError(f"{where}: {card_name(c)} is removed from the deck by these rules")
                    seen[c] = seat
                    mask |= 1 << c
                masks.append(mask)
            rest = [c for c in p.deck if c not in seen]
            if kitties[i] is None:
                kitty_ids = rest
            else:
                kitty_ids = [card_id(c) for c in kitties[i] or ()]
                if sorted(kitty_ids) != rest:
                    raise InvalidDealError(
                        f"{where}: the kitty must be exactly the undealt cards "
                        f"{' '.join(card_name(c) for c in rest)}, got {' '.join(card_name(c) for c in kitty_ids)}"
                    )
            if len(kitty_ids) != p.kitty_size:
                raise InvalidDealError(
                    f"{where}: {len(kitty_ids)} cards undealt; these rules have a kitty of {p.kitty_size}"
                )
            d = dealers[i]
            if isinstance(d, bool) or not isinstance(d, int) or not 0 <= d < n:
                raise InvalidDealError(f"{where}: dealer must be a seat 0..{n - 1}, got {d!r}")
            pos = positions[i]
            kind = kinds[i] if kinds[i] is not None else rules.pass_kind_for_deal(int(pos))
            check_deal_pass_kind(rules, kind)
            perm = perms[i]
            if perm is None:
                device = generator.device if generator is not None else "cpu"
                perm = torch.rand(size, generator=generator, device=device).argsort().tolist()
            perm = [int(x) for x in perm]
            if sorted(perm) != list(range(size)):
                raise InvalidDealError(f"{where}: smoosh_perm must be a permutation of 0..{size - 1}, got {perm}")
            given_total = tots[i]
            total: list[Any] = list(given_total) if given_total is not None else [0] * n
            if len(total) != n:
                raise InvalidDealError(f"{where}: totals must have {n} entries, got {len(total)}")
            hand_rows.append(masks)
            kitty_rows.append(kitty_ids)
            perm_rows.append(perm)
            total_rows.append([int(x) for x in total])
            kind_rows.append(kind_code(kind, n))

        def tensor(values: Any) -> torch.Tensor:
            return torch.tensor(values, dtype=torch.int64, device=self.device)

        sub = state.rows(tensor(rows))
        sub = sub.replace(
            hands=tensor(hand_rows).view(count, n),
            dealt=tensor(hand_rows).view(count, n),
            kitty_cards=tensor(kitty_rows).view(count, p.kitty_size),
            dealer=tensor(dealers),
            cycle_pos=tensor(positions),
            kind=tensor(kind_rows),
            deal_kind=tensor(kind_rows),
            smoosh_perm=tensor(perm_rows).view(count, size),
            totals=tensor(total_rows).view(count, n),
        )
        sub = self._start_deal(sub)
        voided = torch.nonzero(sub.phase < 0).flatten().tolist()
        if voided:
            raise InvalidDealError(
                f"rows {[rows[i] for i in voided]}: the deal is cancelled before any decision "
                "(all_hearts_leader_unbroken = void_deal, the first leader holds only hearts)"
            )
        sub = self._with_legal(sub)
        return self._with_legal(self._put_rows(state, tensor(rows), sub))

    def export(self, state: BatchState, row: int) -> dict[str, Any]:
        """The deal in ``row`` as keyword arguments of ``hearts_env.Deal`` (hands as dealt, kitty in
        order, dealer, pass kind and totals) plus ``smoosh_perm`` and ``cycle_pos`` (see ``load``)."""
        n = self.n

        return {
            "hands": [cards_of(int(h)) for h in state.dealt[row].tolist()],
            "kitty": [int(c) for c in state.kitty_cards[row].tolist()],
            "dealer": int(state.dealer[row]),
            "pass_kind": kind_name(int(state.deal_kind[row]), n),
            "totals": [int(x) for x in state.totals[row].tolist()],
            "smoosh_perm": [int(x) for x in state.smoosh_perm[row].tolist()],
            "cycle_pos": int(state.cycle_pos[row]),
        }


__all__ = ["BatchedActionError", "HeartsKernel", "StepResult"]
