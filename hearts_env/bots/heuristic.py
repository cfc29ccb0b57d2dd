"""The heuristic bot: a rule-based Hearts player, the yardstick trained policies must beat.

It sees only what its seat may know: the observation dict, decoded with ``decode_observation``
(never the engine). It plays every rule set; the action mask takes care of legality (forced
queens, no points on the first trick, hearts breaking), and the bot's choices read the rule set's
card values, so bonus cards, spot hearts and a worthless ♠Q change its play.

Passing: passes the dangerous spades (♠Q, and ♠A/♠K while the ♠Q is out) unless they are guarded
by three or more low spades, the high hearts, and the cards of a short club or diamond suit to
void it; keeps the bonus card and the cards that can win it.

Playing:

- following suit: ducks with the highest card that still loses the trick; drops the ♠Q under the
  ♠K/♠A; when it cannot duck, plays its highest card as the last seat (never the ♠Q) and its
  lowest otherwise; as the last seat of a trick without points it takes the trick with its highest
  card when that sheds a dangerous card; goes for a trick holding the bonus card.
- void in the led suit: dumps the ♠Q, then the ♠A/♠K while the ♠Q is out, then high hearts (by
  their points), then its most dangerous high card, keeping the bonus card.
- leading: flushes the ♠Q by leading spades when it holds none of ♠Q/♠K/♠A; otherwise leads the
  card least likely to win a trick with points (low cards in suits with many unseen higher cards,
  away from suits an opponent has shown void in); cashes the bonus card when it is the top card left.
- moon defence: when one opponent holds every point taken so far (and all the tricks, where the
  moon needs them) and has taken a good share, it stops feeding that seat points, beats it when it
  is winning a trick with points, and dumps points on any other winner to break the moon.
- decisions: voids an all-hearts deal when it may; takes the better moon option (subtract in deal
  episodes; in a match, whichever keeps it winning); holds/passes through with a harmless hand.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from ..core.actions import (
    CHOOSE_HOLD,
    CHOOSE_OFFSET_BASE,
    MOON_ADD,
    MOON_SUBTRACT,
    PASS_FROM_HAND,
    PASS_THROUGH,
    VOID_DEAL,
)
from ..core.cards import AS, CLUBS, DIAMONDS, HEARTS, KS, NUM_CARDS, QS, SPADES
from ..core.rules import Rules
from ..obs import SeatView, decode_observation


def _suit(card: int) -> int:
    return card // 13


def _rank(card: int) -> int:
    return card % 13


class HeuristicBot:
    """A strong rule-based player for ``rules``; deterministic (``seed`` is accepted and unused)."""

    def __init__(self, rules: Rules, seed: int | None = None) -> None:
        t = rules.tables
        self.rules = rules
        self.num_players = rules.num_players
        self.values = t.card_values
        self.deck = frozenset(t.deck)
        self.bonus = t.bonus_card
        self.penalty_total = max(t.penalty_total, 1)
        self.queen_counts = self.values[QS] > 0
        self.moon_matters = rules.moon_enabled and rules.moon_mode != "cancel_deal" and t.penalty_total > 0
        self.num_tricks = t.num_tricks

    def reset(self, seed: int | None = None) -> None:
        """Nothing to reset: the bot keeps no state between decisions."""

    # ------------------------------------------------------------------ entry point
    def act(self, observation: Mapping[str, np.ndarray]) -> int:
        legal = np.flatnonzero(observation["action_mask"]).tolist()
        if not legal:
            raise ValueError("no legal action: this observation is not for the seat to move")
        if len(legal) == 1:
            return int(legal[0])
        view = decode_observation(observation["observation"], self.rules)
        # The kind of decision shows in the mask (special actions never share it with cards).
        if legal[0] >= NUM_CARDS:
            if VOID_DEAL in legal:
                return VOID_DEAL
            if MOON_SUBTRACT in legal:
                return self._moon_choice(view, legal)
            if PASS_FROM_HAND in legal:
                return PASS_THROUGH if self._hand_is_harmless(view) else PASS_FROM_HAND
            return self._dealer_choice(view, legal)
        if view.phase == "passing":
            return self._pass_card(view, legal)
        return self._play(view, legal)

    # ------------------------------------------------------------------ passing
    def _pass_danger(self, card: int, hand: frozenset[int]) -> float:
        """How much ``card`` hurts in ``hand`` (higher: pass it first)."""
        values = self.values
        suit, rank = _suit(card), _rank(card)
        value = values[card]
        if value < 0:
            return -20.0  # the bonus card: keep it
        low_spades = sum(1 for c in hand if _suit(c) == SPADES and _rank(c) < 10)
        guarded = low_spades >= 3
        if self.queen_counts and card == QS:
            return -3.0 if guarded else 20.0 + value / 13  # a guarded queen is a weapon: keep it
        if self.queen_counts and card in (AS, KS):
            if QS in hand:
                return 2.0 if guarded else 16.0 + rank - 11
            return 3.0 if low_spades >= 4 else 14.0 + rank - 11
        danger = 0.0
        if value > 0:
            danger = max(0, rank - 6) * 1.6 + value * 0.4
        else:
            danger = max(0, rank - 7) * 1.0
        if self.bonus >= 0 and suit == _suit(self.bonus) and card > self.bonus:
            danger -= 6.0  # keeps the cards that can win the bonus card
        return danger

    def _pass_set(self, hand: frozenset[int], count: int) -> list[int]:
        danger = {c: self._pass_danger(c, hand) for c in hand}
        # Void the shortest side suit that the remaining slots can empty.
        must = [c for c in hand if danger[c] >= 14.0]
        room = count - len(must)
        best_suit = None
        for suit in (CLUBS, DIAMONDS):
            cards = [c for c in hand if _suit(c) == suit]
            if not cards or len(cards) > room or any(self.values[c] < 0 for c in cards):
                continue
            if best_suit is None or len(cards) < best_suit[0]:
                best_suit = (len(cards), suit)
        if best_suit is not None:
            for c in hand:
                if _suit(c) == best_suit[1]:
                    danger[c] += 12.0
        return sorted(hand, key=lambda c: (-danger[c], -_rank(c), c))[:count]

    def _pass_card(self, view: SeatView, legal: list[int]) -> int:
        hand = frozenset(view.hand)
        wanted = self._pass_set(hand, self.rules.pass_count)
        chosen = {c for c, _ in view.passed}
        for card in wanted:
            if card in legal and card not in chosen:
                return card
        return max(legal, key=lambda c: (self._pass_danger(c, hand), _rank(c)))

    def _hand_is_harmless(self, view: SeatView) -> bool:
        hand = frozenset(view.hand)
        top = sorted((self._pass_danger(c, hand) for c in hand), reverse=True)[: self.rules.pass_count]
        return sum(top) < 6.0

    def _dealer_choice(self, view: SeatView, legal: list[int]) -> int:
        if CHOOSE_HOLD in legal and self._hand_is_harmless(view):
            return CHOOSE_HOLD
        for action in (CHOOSE_OFFSET_BASE + 1, CHOOSE_OFFSET_BASE + self.num_players - 1):
            if action in legal:
                return action
        return legal[0]

    # ------------------------------------------------------------------ moon choice
    def _moon_choice(self, view: SeatView, legal: list[int]) -> int:
        if not view.match_episode or MOON_ADD not in legal:
            return MOON_SUBTRACT if MOON_SUBTRACT in legal else legal[0]
        totals = list(view.totals)
        value = self.rules.tables.moon_value
        threshold = self.rules.game_end_threshold
        added = [t + (0 if r == 0 else value) for r, t in enumerate(totals)]
        if threshold is not None and max(added) >= threshold:
            return MOON_ADD if added[0] < min(added[1:]) else MOON_SUBTRACT
        return MOON_ADD if totals[0] < min(totals[1:]) else MOON_SUBTRACT

    # ------------------------------------------------------------------ playing
    def _play(self, view: SeatView, legal: list[int]) -> int:
        cards = [c for c in legal if c < NUM_CARDS]
        hand = frozenset(view.hand)
        played = view.played
        unseen = self.deck - hand - played
        shooter = self._moon_threat(view)
        if not view.trick:
            return self._lead(view, cards, hand, unseen, shooter)
        led = _suit(view.trick[0])
        if _suit(cards[0]) == led and all(_suit(c) == led for c in cards):
            return self._follow(view, cards, hand, unseen, shooter)
        return self._discard(view, cards, hand, unseen, shooter)

    def _moon_threat(self, view: SeatView) -> int | None:
        """The opponent who holds every point taken so far, when that looks like a moon attempt."""
        if not self.moon_matters:
            return None
        values = self.values
        taken = [sum(values[c] for c in row if values[c] > 0) for row in view.won_by]
        in_trick = sum(values[c] for c in view.trick if values[c] > 0)
        total = sum(taken)
        holders = [r for r, pts in enumerate(taken) if pts > 0]
        if len(holders) != 1 or holders[0] == 0:
            return None
        shooter = holders[0]
        if self.rules.moon_requires_all_tricks and view.tricks_won[shooter] != view.trick_number:
            return None
        # The queen alone is no moon attempt; the queen and a few hearts, or steady points late, are.
        if total + in_trick * 0.5 >= 0.6 * self.penalty_total or (
            view.trick_number >= self.num_tricks // 2 and total >= 0.4 * self.penalty_total
        ):
            return shooter
        return None

    def _trick_state(self, view: SeatView) -> tuple[int, int, int, int]:
        """(led suit, winning card, winning relative seat, seats still to play after me)."""
        led = _suit(view.trick[0])
        winning = max(c for c in view.trick if _suit(c) == led)
        winner = view.seat_of_trick_position(view.trick.index(winning))
        after = view.num_players - len(view.trick) - 1
        return led, winning, winner, after

    def _follow(
        self, view: SeatView, cards: list[int], hand: frozenset[int], unseen: frozenset[int], shooter: int | None
    ) -> int:
        values = self.values
        led, winning, winner, after = self._trick_state(view)
        trick_value = sum(values[c] for c in view.trick)
        trick_penalty = sum(values[c] for c in view.trick if values[c] > 0)
        below = [c for c in cards if c < winning]
        above = [c for c in cards if c > winning]
        queen_out = self.queen_counts and QS in unseen

        # Moon defence: the shooter is winning a trick with points: beat it if we can.
        if shooter is not None and winner == shooter and above and (trick_penalty > 0 or after == 0):
            non_queen = [c for c in above if c != QS] or above
            return max(non_queen) if after else min(non_queen)

        # Drop the queen under a higher spade.
        if self.queen_counts and QS in cards and winning in (AS, KS) and winner != shooter:
            return QS

        # Win a trick holding the bonus card (or one that can still attract it) when it carries no points.
        bonus_live = self.bonus >= 0 and (
            self.bonus in view.trick or (self.bonus in unseen and led == _suit(self.bonus))
        )
        if bonus_live and above and trick_penalty == 0:
            safe = [c for c in above if c != QS]
            if safe and (
                self.bonus in view.trick or after == 0 or max(safe) > max(unseen & self._suit_cards(led), default=-1)
            ):
                return max(safe)

        if below:
            # Take a pointless trick as the last seat, shedding a dangerous high card.
            if after == 0 and trick_value <= 0 and above:
                safe = [c for c in above if c != QS]
                if safe and (_rank(max(safe)) >= 8 or (queen_out and max(safe) in (AS, KS))):
                    return max(safe)
            return max(below)

        # Every card we hold wins for now.
        if after == 0:
            non_queen = [c for c in cards if c != QS] or cards
            return max(non_queen)
        if view.trick_number == 0 and trick_penalty == 0 and led != HEARTS:
            non_queen = [c for c in cards if c != QS and not (queen_out and c in (AS, KS))] or cards
            return max(non_queen)
        return min(cards)

    def _suit_cards(self, suit: int) -> frozenset[int]:
        return frozenset(c for c in self.deck if _suit(c) == suit)

    def _discard(
        self, view: SeatView, cards: list[int], hand: frozenset[int], unseen: frozenset[int], shooter: int | None
    ) -> int:
        values = self.values
        _, _, winner, _ = self._trick_state(view)
        queen_out = self.queen_counts and QS in unseen
        penalties = [c for c in cards if values[c] > 0]
        if shooter is not None:
            shooter_to_play = shooter not in view.trick_seats
            if winner == shooter or shooter_to_play:
                safe = [c for c in cards if values[c] <= 0 and c != self.bonus] or cards
                return max(safe, key=lambda c: (self._keep_danger(c, hand, unseen, queen_out), c))
            if penalties:
                return max(penalties, key=lambda c: (values[c], _rank(c)))
        return max(cards, key=lambda c: (self._discard_priority(c, hand, unseen, queen_out), c))

    def _discard_priority(self, card: int, hand: frozenset[int], unseen: frozenset[int], queen_out: bool) -> float:
        value = self.values[card]
        if value < 0:
            return -100.0
        if self.queen_counts and card == QS:
            return 100.0 + value
        if queen_out and card in (AS, KS):
            return 80.0 + _rank(card)
        return self._keep_danger(card, hand, unseen, queen_out) + (value * 3.0 if value > 0 else 0.0)

    def _keep_danger(self, card: int, hand: frozenset[int], unseen: frozenset[int], queen_out: bool) -> float:
        """How likely ``card`` is to win a trick later (and so to collect points)."""
        suit = _suit(card)
        lower_unseen = sum(1 for c in unseen if _suit(c) == suit and c < card)
        higher_unseen = sum(1 for c in unseen if _suit(c) == suit and c > card)
        length = sum(1 for c in hand if _suit(c) == suit)
        danger = _rank(card) + 1.5 * lower_unseen / (1 + higher_unseen)
        if self.bonus >= 0 and suit == _suit(self.bonus) and card > self.bonus and self.bonus in unseen:
            danger -= 6.0
        return danger - 0.3 * length

    def _lead(
        self, view: SeatView, cards: list[int], hand: frozenset[int], unseen: frozenset[int], shooter: int | None
    ) -> int:
        values = self.values
        n = view.num_players
        queen_out = self.queen_counts and QS in unseen
        # Flush the queen: lead spades below the queen while holding none of Q, K, A.
        if queen_out and not hand & {QS, KS, AS}:
            low_spades = [c for c in cards if _suit(c) == SPADES and c < QS]
            if low_spades:
                return max(low_spades)
        voids = {s for r in range(1, n) for s in view.void_in[r]}
        best, best_cost = cards[0], float("inf")
        for card in cards:
            suit = _suit(card)
            higher = sum(1 for c in unseen if _suit(c) == suit and c > card)
            lower = sum(1 for c in unseen if _suit(c) == suit and c < card)
            win_risk = 1.0 if higher == 0 else 1.0 / (1.0 + 1.5 * higher)
            if suit in voids:
                win_risk = max(win_risk, 0.35)
            exposure = 1.0
            if suit in voids:
                exposure += 6.0
            if suit == HEARTS:
                exposure += (n - 1) * 1.5
            cost = win_risk * exposure + max(values[card], 0) * (win_risk + 0.2)
            if self.queen_counts and card == QS:
                cost += 13.0 * (1.0 if not ({AS, KS} & unseen) else 0.6)
            elif queen_out and card in (AS, KS):
                cost += 8.0
            elif self.queen_counts and suit == SPADES and QS in hand:
                cost += 2.0  # let others lead spades so the queen can drop under the king or ace
            if card == self.bonus:
                cost += -12.0 if higher == 0 else 3.0
            elif self.bonus >= 0 and self.bonus in unseen and suit == _suit(self.bonus) and card > self.bonus:
                cost -= 1.0 if higher == 0 else 0.0
            if shooter is not None and values[card] > 0:
                cost += 2.0
            cost += 0.05 * _rank(card) - 0.02 * lower
            if cost < best_cost:
                best, best_cost = card, cost
        return best


__all__ = ["HeuristicBot"]
