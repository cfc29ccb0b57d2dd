"""The heuristic bot (``hearts_env.bots.HeuristicBot``) as tensor operations over rows of a batch.

``VectorHeuristic(kernel)(state, rows)`` returns, for the seat to move in each of ``rows``, the action
the reference bot takes: the bot's rules of thumb over all the rows at once (float64 arithmetic in the
reference's order, the reference's tie-breaks), about ten times faster than asking the bot row by row
on CPU, and it runs on the state's device. Engines offer it as ``engine.heuristic_actions(rows)``;
``heuristic_actions(engine, rows)`` is the same call as a function.

This room may not import ``hearts_env.bots``, so the twin is checked from outside: the differential
tests (``tests/test_batched_heuristic.py``, through ``hearts_env.testing``) compare it with the
reference bot over random play of many rule sets, and a golden file of the reference bot's decisions
(``tests/data/heuristic_golden.npz``, made by ``hearts_env.testing.golden``) is replayed through both,
so a change of the bot's behaviour that is not mirrored here fails a test.
"""

from __future__ import annotations

import torch

from ..core.actions import (
    CHOOSE_HOLD,
    CHOOSE_OFFSET_BASE,
    MOON_SUBTRACT,
    PASS_FROM_HAND,
    PASS_THROUGH,
    VOID_DEAL,
)
from ..core.cards import AS, CLUBS, DIAMONDS, HEARTS, KS, QS, SPADES
from .bits import lowest_bit as lowest_card
from .engine import HeartsKernel
from .params import PASSING
from .protocols import BatchEngine
from .state import BatchState


class VectorHeuristic:
    """The heuristic bot as tensor operations over rows: the same decisions as ``HeuristicBot`` (same
    float64 arithmetic in the same order, same tie-breaks), computed from the state the observation
    shows (the seat's hand and passes, every card played and by whom, the won piles less the kitty,
    the current trick, voids shown). Built once per kernel (its tables are the rule set's); called with
    any state of that kernel."""

    def __init__(self, kernel: HeartsKernel) -> None:
        p = kernel.params
        rules = p.rules
        t = rules.tables
        d = kernel.device
        self.kernel = kernel
        self.device = d
        self.n = p.num_players
        self.pass_count = rules.pass_count
        values = list(t.card_values)
        self.values_list = values
        f64 = torch.float64
        cards = torch.arange(52, device=d)
        self.cards = cards
        self.rank = cards % 13
        self.suit = torch.div(cards, 13, rounding_mode="floor")
        self.values = torch.tensor(values, dtype=torch.int64, device=d)
        self.values_f = self.values.to(f64)
        self.rank_f = self.rank.to(f64)
        self.deck = t.deck_mask
        self.bonus = t.bonus_card
        self.penalty_total = max(t.penalty_total, 1)
        self.queen_counts = values[QS] > 0
        self.moon_matters = rules.moon_enabled and rules.moon_mode != "cancel_deal" and t.penalty_total > 0
        self.num_tricks = t.num_tricks
        self.requires_all_tricks = rules.moon_requires_all_tricks
        groups: dict[int, int] = {}
        for card in t.deck:
            if values[card]:
                groups[values[card]] = groups.get(values[card], 0) | 1 << card
        self.groups = sorted(groups.items())
        self.bits = kernel.bits
        self.suit_masks = kernel.suit_masks

    # ------------------------------------------------------------------ helpers
    def _f64(self, value: float) -> torch.Tensor:
        """A float64 scalar tensor (``torch.where`` on two Python floats would compute in float32)."""
        return torch.tensor(value, dtype=torch.float64, device=self.device)

    def _sum_values(self, masks: torch.Tensor, positive: bool) -> torch.Tensor:
        total = torch.zeros_like(masks)
        for value, mask in self.groups:
            if value > 0 or not positive:
                total = total + value * self.bits.count(masks & mask)
        return total

    def _max_card(self, cards: torch.Tensor) -> torch.Tensor:
        """Highest card id in each row's set (``(M, 52)`` bool), -1 for an empty set."""
        return torch.where(cards, self.cards, -1).amax(1)

    def _min_card(self, cards: torch.Tensor) -> torch.Tensor:
        return torch.where(cards, self.cards, 99).amin(1)

    def _argmax_key(self, cards: torch.Tensor, key: torch.Tensor, ties_high: bool) -> torch.Tensor:
        """The card of ``cards`` with the largest ``key``; ties to the highest card (``max`` over
        ``(key, card)``) or to the lowest (``max`` over ``key`` alone, in ascending order)."""
        best = torch.where(cards, key, float("-inf")).amax(1, keepdim=True)
        tied = cards & (key == best)
        return self._max_card(tied) if ties_high else self._min_card(tied)

    def _unseen_counts(self, unseen: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """Per card: unseen cards of its suit below it and above it (``(M, 52)`` int64)."""
        m = unseen.shape[0]
        planes = unseen.view(m, 4, 13).long()
        inclusive = planes.cumsum(2)
        lower = (inclusive - planes).view(m, 52)
        higher = (planes.sum(2, keepdim=True) - inclusive).view(m, 52)
        return lower, higher

    def _pass_danger(self, hand: torch.Tensor) -> torch.Tensor:
        """``HeuristicBot._pass_danger`` of every card against each row's hand (``(M, 52)`` float64)."""
        rank, suit, v = self.rank, self.suit, self.values
        rank_f = self.rank_f
        low_spades = (hand & (suit == SPADES) & (rank < 10)).sum(1, keepdim=True)
        guarded = low_spades >= 3
        danger = torch.where(
            v > 0,
            (rank - 6).clamp(min=0).to(torch.float64) * 1.6 + self.values_f * 0.4,
            (rank - 7).clamp(min=0).to(torch.float64) * 1.0,
        )
        if self.bonus >= 0:
            danger = torch.where((suit == self.bonus // 13) & (self.cards > self.bonus), danger - 6.0, danger)
        danger = danger.expand(hand.shape[0], 52)
        if self.queen_counts:
            has_queen = hand[:, QS : QS + 1]
            spade_honour = (self.cards == AS) | (self.cards == KS)
            with_queen = torch.where(guarded, 2.0, 16.0 + rank_f - 11)
            without_queen = torch.where(low_spades >= 4, 3.0, 14.0 + rank_f - 11)
            danger = torch.where(spade_honour, torch.where(has_queen, with_queen, without_queen), danger)
            queen = torch.where(guarded, self._f64(-3.0), self._f64(20.0 + self.values_list[QS] / 13))
            danger = torch.where(self.cards == QS, queen, danger)
        return torch.where(v < 0, -20.0, danger)

    def _harmless(self, hand: torch.Tensor) -> torch.Tensor:
        danger = torch.where(hand, self._pass_danger(hand), float("-inf"))
        top = danger.sort(1, descending=True).values
        total = torch.zeros(hand.shape[0], dtype=torch.float64, device=self.device)
        for i in range(self.pass_count):
            total = total + top[:, i]
        return total < 6.0

    # ------------------------------------------------------------------ the decision
    def __call__(self, state: BatchState, rows: torch.Tensor) -> torch.Tensor:
        """The bot's action ``(len(rows),)`` int64 for the seat to move in each of ``rows`` (a 1-D index
        tensor) of ``state``."""
        if rows.numel() == 0:
            return torch.zeros(0, dtype=torch.int64, device=self.device)
        s = state.rows(rows)
        n = self.n
        m = s.batch_size
        o = s.current.unsqueeze(1)
        bits = self.bits
        legal = bits.to_bool(s.legal_cards)  # (M, 52)
        hand_mask = s.hands.gather(1, o).squeeze(1)
        hand = bits.to_bool(hand_mask)
        special = s.legal_special
        action = torch.full((m,), -1, dtype=torch.int64, device=self.device)

        def decide(cond: torch.Tensor, value: torch.Tensor | int) -> None:
            nonlocal action
            action = torch.where((action < 0) & cond, value, action)

        # special decisions (no card is legal)
        def has(a: int) -> torch.Tensor:
            return ((special >> (a - 52)) & 1) == 1

        no_cards = s.legal_cards == 0
        if bool(no_cards.any()):
            harmless = self._harmless(hand)
            decide(no_cards & has(VOID_DEAL), VOID_DEAL)
            decide(no_cards & has(MOON_SUBTRACT), MOON_SUBTRACT)  # deal episodes: subtract
            decide(no_cards & has(PASS_FROM_HAND), torch.where(harmless, PASS_THROUGH, PASS_FROM_HAND))
            decide(no_cards & has(CHOOSE_HOLD) & harmless, CHOOSE_HOLD)
            decide(no_cards & has(CHOOSE_OFFSET_BASE + 1), CHOOSE_OFFSET_BASE + 1)
            decide(no_cards & has(CHOOSE_OFFSET_BASE + n - 1), CHOOSE_OFFSET_BASE + n - 1)
            lowest = ((special & -special).double().frexp().exponent.long() - 1) + 52
            decide(no_cards, lowest)
        passing = ~no_cards & (s.phase == PASSING)
        if bool(passing.any()):
            decide(passing, self._pass_card(s, hand, legal))
        playing = ~no_cards & ~passing
        if bool(playing.any()):
            decide(playing, self._play(s, hand, hand_mask, legal))
        single = bits.count(s.legal_cards) + bits.count(special) == 1
        only = torch.where(s.legal_cards != 0, lowest_card(s.legal_cards), lowest_card(special) + 52)
        return torch.where(single, only, action)

    def _pass_card(self, s: BatchState, hand: torch.Tensor, legal: torch.Tensor) -> torch.Tensor:
        m = s.batch_size
        danger = self._pass_danger(hand)
        must = (hand & (danger >= 14.0)).sum(1)
        room = self.pass_count - must
        adjusted = danger
        best_len = torch.full((m,), 99, dtype=torch.int64, device=self.device)
        best_suit = torch.full((m,), -1, dtype=torch.int64, device=self.device)
        for suit in (CLUBS, DIAMONDS):
            in_suit = hand & (self.suit == suit)
            length = in_suit.sum(1)
            ok = (length > 0) & (length <= room) & ~(in_suit & (self.values < 0)).any(1) & (length < best_len)
            best_len = torch.where(ok, length, best_len)
            best_suit = torch.where(ok, suit, best_suit)
        adjusted = torch.where(hand & (self.suit == best_suit.unsqueeze(1)), danger + 12.0, danger)
        # sorted(hand, key=(-danger, -rank, card)): stable sorts from the last key to the first
        order = torch.argsort(-self.rank.expand(m, 52), dim=1, stable=True)
        key = torch.where(hand, -adjusted, float("inf")).gather(1, order)
        order = order.gather(1, torch.argsort(key, dim=1, stable=True))
        wanted = order[:, : self.pass_count]
        chosen = s.chosen.gather(1, s.current.unsqueeze(1))
        fresh = ((chosen >> wanted) & 1) == 0
        fresh = fresh & legal.gather(1, wanted)
        first = torch.where(fresh.any(1), wanted.gather(1, fresh.long().argmax(1, keepdim=True)).squeeze(1), -1)
        # fallback: max(legal, key=(danger, rank))
        best = torch.where(legal, danger, float("-inf")).amax(1, keepdim=True)
        tied = legal & (danger == best)
        top_rank = torch.where(tied, self.rank, -1).amax(1, keepdim=True)
        fallback = self._min_card(tied & (self.rank == top_rank))
        return torch.where(first >= 0, first, fallback)

    def _play(self, s: BatchState, hand: torch.Tensor, hand_mask: torch.Tensor, legal: torch.Tensor) -> torch.Tensor:
        n = self.n
        m = s.batch_size
        bits = self.bits
        o = s.current
        played_all = s.played.sum(1)  # disjoint masks
        unseen_mask = self.deck & ~hand_mask & ~played_all
        unseen = bits.to_bool(unseen_mask)
        lower, higher = self._unseen_counts(unseen)
        queen_out = (unseen[:, QS] if self.queen_counts else torch.zeros_like(o, dtype=torch.bool)).unsqueeze(1)
        shooter = self._moon_threat(s)
        has_shooter = shooter >= 0
        leading = s.trick_len == 0
        led = s.led_suit.clamp(min=0)
        winning = s.best_card
        winner = (s.best_seat - o) % n
        after = n - s.trick_len - 1
        off_suit = (s.legal_cards & ~self.suit_masks.gather(0, led)) != 0
        following = ~leading & ~off_suit
        discarding = ~leading & off_suit
        action = torch.full((m,), -1, dtype=torch.int64, device=self.device)
        if bool(following.any()) or bool(discarding.any()):
            trick_value = self._sum_values(s.trick_mask, positive=False)
            trick_penalty = self._sum_values(s.trick_mask, positive=True)
        if bool(following.any()):
            follow = self._follow(
                s, legal, unseen, queen_out, shooter, winning, winner, after, led, trick_value, trick_penalty
            )
            action = torch.where(following, follow, action)
        if bool(discarding.any()):
            keep = self._keep_danger(hand, unseen, lower, higher)
            discard = self._discard(s, legal, queen_out, shooter, winner, keep)
            action = torch.where(discarding, discard, action)
        if bool(leading.any()):
            lead = self._lead(s, hand, legal, unseen, lower, higher, queen_out, has_shooter)
            action = torch.where(leading, lead, action)
        return action

    def _moon_threat(self, s: BatchState) -> torch.Tensor:
        """The relative seat of a likely moon shooter, else -1 (``HeuristicBot._moon_threat``)."""
        m = s.batch_size
        none = torch.full((m,), -1, dtype=torch.int64, device=self.device)
        if not self.moon_matters:
            return none
        won = s.won & ~s.kitty_mask.unsqueeze(1)
        taken = self._sum_values(won, positive=True)  # (M, N) by absolute seat
        in_trick = self._sum_values(s.trick_mask, positive=True)
        total = taken.sum(1)
        holders = taken > 0
        shooter_abs = holders.long().argmax(1)
        rel = (shooter_abs - s.current) % self.n
        valid = (holders.sum(1) == 1) & (rel != 0)
        if self.requires_all_tricks:
            valid = valid & (s.tricks_won.gather(1, shooter_abs.unsqueeze(1)).squeeze(1) == s.trick_number)
        strong = total.double() + in_trick.double() * 0.5 >= 0.6 * self.penalty_total
        late = (s.trick_number >= self.num_tricks // 2) & (total.double() >= 0.4 * self.penalty_total)
        return torch.where(valid & (strong | late), rel, none)

    def _follow(
        self,
        s: BatchState,
        legal: torch.Tensor,
        unseen: torch.Tensor,
        queen_out: torch.Tensor,
        shooter: torch.Tensor,
        winning: torch.Tensor,
        winner: torch.Tensor,
        after: torch.Tensor,
        led: torch.Tensor,
        trick_value: torch.Tensor,
        trick_penalty: torch.Tensor,
    ) -> torch.Tensor:
        """Following suit (``HeuristicBot._follow``)."""
        cards = self.cards
        m = s.batch_size
        action = torch.full((m,), -1, dtype=torch.int64, device=self.device)

        def decide(cond: torch.Tensor, value: torch.Tensor | int) -> None:
            nonlocal action
            action = torch.where((action < 0) & cond, value, action)

        above = legal & (cards > winning.unsqueeze(1))
        below = legal & (cards < winning.unsqueeze(1))
        any_above = above.any(1)
        not_queen = cards != QS
        # moon defence
        non_queen = above & not_queen
        non_queen = torch.where(non_queen.any(1, keepdim=True), non_queen, above)
        cond = (shooter >= 0) & (winner == shooter) & any_above & ((trick_penalty > 0) | (after == 0))
        decide(cond, torch.where(after != 0, self._max_card(non_queen), self._min_card(non_queen)))
        # drop the queen under a higher spade
        if self.queen_counts:
            cond = legal[:, QS] & ((winning == AS) | (winning == KS)) & (winner != shooter)
            decide(cond, QS)
        safe = above & not_queen
        any_safe = safe.any(1)
        top_safe = self._max_card(safe)
        if self.bonus >= 0:
            in_trick = ((s.trick_mask >> self.bonus) & 1) == 1
            live = in_trick | (unseen[:, self.bonus] & (led == self.bonus // 13))
            unseen_led = unseen & (self.suit == led.unsqueeze(1))
            cond = live & any_above & (trick_penalty == 0) & any_safe
            cond = cond & (in_trick | (after == 0) | (top_safe > self._max_card(unseen_led)))
            decide(cond, top_safe)
        any_below = below.any(1)
        honour = (top_safe == AS) | (top_safe == KS)
        cond = any_below & (after == 0) & (trick_value <= 0) & any_above & any_safe
        cond = cond & ((top_safe % 13 >= 8) | (queen_out.squeeze(1) & honour))
        decide(cond, top_safe)
        decide(any_below, self._max_card(below))
        non_queen = legal & not_queen
        non_queen = torch.where(non_queen.any(1, keepdim=True), non_queen, legal)
        decide(after == 0, self._max_card(non_queen))
        spade_honour = (cards == AS) | (cards == KS)
        early = legal & not_queen & ~(queen_out & spade_honour)
        early = torch.where(early.any(1, keepdim=True), early, legal)
        decide((s.trick_number == 0) & (trick_penalty == 0) & (led != HEARTS), self._max_card(early))
        decide(torch.ones_like(any_above), self._min_card(legal))
        return action

    def _keep_danger(
        self, hand: torch.Tensor, unseen: torch.Tensor, lower: torch.Tensor, higher: torch.Tensor
    ) -> torch.Tensor:
        m = hand.shape[0]
        length = hand.view(m, 4, 13).sum(2, keepdim=True).expand(m, 4, 13).reshape(m, 52)
        danger = self.rank_f + 1.5 * lower.double() / (1 + higher).double()
        if self.bonus >= 0:
            live = unseen[:, self.bonus : self.bonus + 1]
            near = (self.suit == self.bonus // 13) & (self.cards > self.bonus)
            danger = torch.where(near & live, danger - 6.0, danger)
        return danger - 0.3 * length.double()

    def _discard(
        self,
        s: BatchState,
        legal: torch.Tensor,
        queen_out: torch.Tensor,
        shooter: torch.Tensor,
        winner: torch.Tensor,
        keep: torch.Tensor,
    ) -> torch.Tensor:
        n = self.n
        m = s.batch_size
        v = self.values
        action = torch.full((m,), -1, dtype=torch.int64, device=self.device)
        has_shooter = shooter >= 0
        # the shooter's position in the trick's order; it is still to play when that is not yet reached
        position = (shooter - (s.leader - s.current)) % n
        to_play = position >= s.trick_len
        cond = has_shooter & ((winner == shooter) | to_play)
        safe = legal & (v <= 0) & (self.cards != self.bonus)
        safe = torch.where(safe.any(1, keepdim=True), safe, legal)
        action = torch.where(cond, self._argmax_key(safe, keep, ties_high=True), action)
        penalties = legal & (v > 0)
        key = self.values_f * 16 + self.rank_f  # (value, rank) lexicographic: ranks are below 16
        cond = has_shooter & penalties.any(1) & (action < 0)
        action = torch.where(cond, self._argmax_key(penalties, key.expand(m, 52), ties_high=False), action)
        priority = keep + torch.where(v > 0, self.values_f * 3.0, 0.0)
        if self.queen_counts:
            honour = (self.cards == AS) | (self.cards == KS)
            priority = torch.where(queen_out & honour, 80.0 + self.rank_f, priority)
            priority = torch.where(self.cards == QS, 100.0 + self.values_list[QS], priority)
        priority = torch.where(v < 0, -100.0, priority)
        return torch.where(action < 0, self._argmax_key(legal, priority, ties_high=True), action)

    def _lead(
        self,
        s: BatchState,
        hand: torch.Tensor,
        legal: torch.Tensor,
        unseen: torch.Tensor,
        lower: torch.Tensor,
        higher: torch.Tensor,
        queen_out: torch.Tensor,
        has_shooter: torch.Tensor,
    ) -> torch.Tensor:
        n = self.n
        cards, suit, v = self.cards, self.suit, self.values
        action = torch.full((s.batch_size,), -1, dtype=torch.int64, device=self.device)
        if self.queen_counts:
            honours = hand[:, QS] | hand[:, KS] | hand[:, AS]
            low_spades = legal & (suit == SPADES) & (cards < QS)
            cond = queen_out.squeeze(1) & ~honours & low_spades.any(1)
            action = torch.where(cond, self._max_card(low_spades), action)
        others = (self.kernel.seats != s.current.unsqueeze(1)).long()
        voids = torch.stack([(s.void & (1 << k)).mul(others).sum(1) != 0 for k in range(4)], 1)  # (M, 4)
        void_suit = voids.gather(1, suit.expand(s.batch_size, 52))
        higher_f = higher.double()
        win_risk = torch.where(higher == 0, 1.0, 1.0 / (1.0 + 1.5 * higher_f))
        win_risk = torch.where(void_suit, torch.clamp(win_risk, min=0.35), win_risk)
        exposure = torch.where(void_suit, self._f64(1.0 + 6.0), self._f64(1.0))
        exposure = torch.where(suit == HEARTS, exposure + (n - 1) * 1.5, exposure)
        cost = win_risk * exposure + v.clamp(min=0).double() * (win_risk + 0.2)
        if self.queen_counts:
            no_honour_out = ~(unseen[:, AS] | unseen[:, KS]).unsqueeze(1)
            queen_cost = torch.where(no_honour_out, self._f64(13.0 * 1.0), self._f64(13.0 * 0.6))
            honour = (cards == AS) | (cards == KS)
            spade_with_queen = (suit == SPADES) & hand[:, QS : QS + 1]
            extra = torch.where(spade_with_queen, self._f64(2.0), self._f64(0.0))
            extra = torch.where(queen_out & honour, 8.0, extra)
            extra = torch.where(cards == QS, queen_cost, extra)
            cost = torch.where((cards == QS) | (queen_out & honour) | spade_with_queen, cost + extra, cost)
        if self.bonus >= 0:
            bonus_cost = torch.where(higher == 0, self._f64(-12.0), self._f64(3.0))
            near = (suit == self.bonus // 13) & (cards > self.bonus) & unseen[:, self.bonus : self.bonus + 1]
            cost = torch.where(near, cost - torch.where(higher == 0, self._f64(1.0), self._f64(0.0)), cost)
            cost = torch.where(cards == self.bonus, cost + bonus_cost, cost)
        cost = torch.where(has_shooter.unsqueeze(1) & (v > 0), cost + 2.0, cost)
        cost = cost + (0.05 * self.rank_f - 0.02 * lower.double())
        best = torch.where(legal, cost, float("inf")).amin(1, keepdim=True)
        cheapest = self._min_card(legal & (cost == best))
        return torch.where(action >= 0, action, cheapest)


def heuristic_actions(engine: BatchEngine, rows: torch.Tensor | None = None) -> torch.Tensor:
    """The reference heuristic bot's action for the seat to move in each of ``rows`` of ``engine`` (all
    rows for ``None``; an index tensor or a boolean mask): ``engine.heuristic_actions(rows)``, a
    ``(len(rows),)`` int64 tensor on the engine's device."""
    return engine.heuristic_actions(rows)


__all__ = ["VectorHeuristic", "heuristic_actions"]
