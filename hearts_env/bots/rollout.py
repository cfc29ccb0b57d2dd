"""The heuristic bot's play on a ``Deal``'s bitmasks: a rollout policy that plays like the opponents.

PIMC is only as good as its model of the other seats: a rollout that mispredicts the heuristic
bot's replies scores each candidate in the wrong game. ``HeuristicRollout`` makes exactly the
decisions ``HeuristicBot`` makes (same rules of thumb, same float arithmetic in the same order,
same tie-breaks) but reads them off the engine's state, without building or decoding an
observation vector, so a rollout is faithful to heuristic opponents and cheap.

What a seat's heuristic reads, and where it comes from here (all of it the seat's own knowledge in
the world: its hand, every card played, the won piles, the current trick):

- the unseen cards: every other seat's hand and the kitty;
- the points taken: the won piles less the kitty cards (the observation's ``won_by`` holds tricks only);
- voids shown by failing to follow: not in a sampled world's play history (the belief sampler
  summarises past tricks without their voids), so the caller passes them in (``voids``: per seat a
  4-bit mask of suits, from the view) and ``play_out`` adds every void a rollout shows.

The passing phase and the dealer's or pass-through choices (only reached when the search itself
starts before the pass) go to ``HeuristicBot`` on the seat's encoded observation: rare and exact.
``tests/test_search.py`` checks that every play decision agrees with ``HeuristicBot``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from ..core.actions import MOON_ADD, MOON_SUBTRACT, VOID_DEAL
from ..core.cards import AS, HEARTS, KS, NUM_CARDS, NUM_RANKS, QS, SPADES, SUIT_MASKS
from ..core.deal import DONE, MOON_CHOICE, PLAYING, Deal, mask_to_actions
from ..core.rules import Rules
from ..obs import encode
from .heuristic import HeuristicBot

_CARD_BITS = (1 << NUM_CARDS) - 1
_QS_BIT = 1 << QS
_AK_SPADES = (1 << AS) | (1 << KS)
_QKA_SPADES = _QS_BIT | _AK_SPADES
_SPADE_MASK = SUIT_MASKS[SPADES]
_BELOW_QS_SPADES = _SPADE_MASK & ((1 << QS) - 1)
_SUIT = tuple(c // NUM_RANKS for c in range(NUM_CARDS))
_RANK = tuple(c % NUM_RANKS for c in range(NUM_CARDS))
_SUIT_MASK_OF = tuple(SUIT_MASKS[c // NUM_RANKS] for c in range(NUM_CARDS))
_LOWER_IN_SUIT = tuple(SUIT_MASKS[c // NUM_RANKS] & ((1 << c) - 1) for c in range(NUM_CARDS))
_HIGHER_IN_SUIT = tuple(SUIT_MASKS[c // NUM_RANKS] & ~((2 << c) - 1) for c in range(NUM_CARDS))


def _top(mask: int) -> int:
    """The highest card id of ``mask`` (within one suit: the highest rank)."""
    return mask.bit_length() - 1


def _bottom(mask: int) -> int:
    """The lowest card id of ``mask``."""
    return (mask & -mask).bit_length() - 1


class HeuristicRollout:
    """``HeuristicBot``'s decisions on a ``Deal`` (see the module docstring). ``play(deal, cards, voids)``
    chooses among the legal cards ``cards`` (a mask with two or more cards) of the seat to move;
    ``play_out(deal, voids)`` plays the deal to its end."""

    trusted = True  # only ever returns actions of the deal's legal set
    #: Where set, ``play_out`` stops at the end of the first trick after which this returns true (the deal
    #: left unfinished): a screen that only asks whether something can still happen stops once it cannot.
    stop: Callable[[Deal], bool] | None = None

    def __init__(self, rules: Rules, match_episode: bool = False) -> None:
        t = rules.tables
        self.rules = rules
        self.match_episode = match_episode
        self.values = t.card_values
        self.bonus = t.bonus_card
        self.bonus_bit = 1 << t.bonus_card if t.bonus_card >= 0 else 0
        self.bonus_suit = _SUIT[t.bonus_card] if t.bonus_card >= 0 else -1
        self.penalty_total = max(t.penalty_total, 1)
        self.queen_counts = self.values[QS] > 0
        self.moon_matters = rules.moon_enabled and rules.moon_mode != "cancel_deal" and t.penalty_total > 0
        self.all_tricks = rules.moon_requires_all_tricks
        self.num_tricks = t.num_tricks
        self.n = rules.num_players
        self.positive_mask = t.penalty_mask
        groups: dict[int, int] = {}
        for c in t.deck:
            if self.values[c] > 0:
                groups[self.values[c]] = groups.get(self.values[c], 0) | 1 << c
        self.point_groups = tuple(groups.items())
        self.moon_bar = 0.6 * self.penalty_total
        self.late_bar = 0.4 * self.penalty_total
        self.heart_exposure = (self.n - 1) * 1.5
        self.bot = HeuristicBot(rules)

    # ------------------------------------------------------------------ helpers
    def _points(self, mask: int) -> int:
        """The positive points of the cards in ``mask``."""
        total = 0
        for value, group in self.point_groups:
            if mask & group:
                total += value * (mask & group).bit_count()
        return total

    def _holder(self, deal: Deal) -> tuple[int, int]:
        """The one seat holding every point taken so far and those points, or ``(-1, 0)`` (nobody has
        taken any, or several have). Changes only when a trick completes."""
        kitty = deal.kitty
        positive = self.positive_mask
        holder = -1
        for p, pile in enumerate(deal.won):
            if pile & ~kitty & positive:
                if holder >= 0:
                    return -1, 0
                holder = p
        return (holder, self._points(deal.won[holder] & ~kitty)) if holder >= 0 else (-1, 0)

    def _moon_threat(self, deal: Deal, me: int, holder: int, total: int) -> int | None:
        """``HeuristicBot._moon_threat`` on the deal: the one seat holding every point taken (``holder``,
        with ``total`` points), when that looks like a moon attempt."""
        if holder < 0 or holder == me:
            return None
        if self.all_tricks and deal.tricks_won[holder] != deal.trick_number:
            return None
        in_trick = self._points(deal.trick_mask)
        if total + in_trick * 0.5 >= self.moon_bar or (
            deal.trick_number >= self.num_tricks // 2 and total >= self.late_bar
        ):
            return holder
        return None

    def _keep_danger(self, card: int, hand: int, unseen: int) -> float:
        """``HeuristicBot._keep_danger``: how likely ``card`` is to win a trick later."""
        lower = (unseen & _LOWER_IN_SUIT[card]).bit_count()
        higher = (unseen & _HIGHER_IN_SUIT[card]).bit_count()
        length = (hand & _SUIT_MASK_OF[card]).bit_count()
        danger = _RANK[card] + 1.5 * lower / (1 + higher)
        if self.bonus_bit and _SUIT[card] == self.bonus_suit and card > self.bonus and unseen & self.bonus_bit:
            danger -= 6.0
        return danger - 0.3 * length

    # ------------------------------------------------------------------ plays
    def play(self, deal: Deal, cards: int, voids: Sequence[int]) -> int:
        """The heuristic bot's card among ``cards`` for the seat to move; ``voids[p]``: the suits seat
        ``p`` has shown void in (bit ``s`` for suit ``s``)."""
        everyone = 0
        for h in deal.hands:
            everyone |= h
        holder, total = self._holder(deal) if self.moon_matters else (-1, 0)
        return self._choose(deal, cards, voids, everyone, holder, total)

    def _choose(self, deal: Deal, cards: int, voids: Sequence[int], everyone: int, holder: int, total: int) -> int:
        """``play`` with the cards still in hands (``everyone``) and the points holder given."""
        me = deal.current_player
        hand = deal.hands[me]
        unseen = (everyone ^ hand) | deal.kitty
        shooter = self._moon_threat(deal, me, holder, total) if holder >= 0 else None
        trick = deal.trick
        if not trick:
            return self._lead(deal, cards, hand, unseen, shooter, voids, me)
        led_mask = SUIT_MASKS[_SUIT[trick[0]]]
        if not cards & ~led_mask:
            return self._follow(deal, cards, unseen, shooter, led_mask)
        return self._discard(deal, cards, hand, unseen, shooter, led_mask)

    def _follow(self, deal: Deal, cards: int, unseen: int, shooter: int | None, led_mask: int) -> int:
        values = self.values
        trick = deal.trick
        trick_mask = deal.trick_mask
        winning = _top(trick_mask & led_mask)
        winner = deal.played_by[winning]
        after = self.n - len(trick) - 1
        trick_value = 0
        trick_penalty = 0
        for c in trick:
            v = values[c]
            trick_value += v
            if v > 0:
                trick_penalty += v
        below = cards & ((1 << winning) - 1)
        above = cards & ~((1 << winning) - 1)
        queen_out = self.queen_counts and unseen & _QS_BIT

        if shooter is not None and winner == shooter and above and (trick_penalty > 0 or after == 0):
            non_queen = above & ~_QS_BIT or above
            return _top(non_queen) if after else _bottom(non_queen)

        if self.queen_counts and cards & _QS_BIT and winning in (AS, KS) and winner != shooter:
            return QS

        bonus_bit = self.bonus_bit
        if bonus_bit and above and trick_penalty == 0:
            in_trick = trick_mask & bonus_bit
            if in_trick or (unseen & bonus_bit and led_mask & bonus_bit):
                safe = above & ~_QS_BIT
                if safe and (in_trick or after == 0 or _top(safe) > _top(unseen & led_mask)):
                    return _top(safe)

        if below:
            if after == 0 and trick_value <= 0 and above:
                safe = above & ~_QS_BIT
                if safe:
                    high = _top(safe)
                    if _RANK[high] >= 8 or (queen_out and high in (AS, KS)):
                        return high
            return _top(below)

        if after == 0:
            return _top(cards & ~_QS_BIT or cards)
        if deal.trick_number == 0 and trick_penalty == 0 and led_mask != SUIT_MASKS[HEARTS]:
            return _top(cards & ~(_QS_BIT | (_AK_SPADES if queen_out else 0)) or cards)
        return _bottom(cards)

    def _discard(self, deal: Deal, cards: int, hand: int, unseen: int, shooter: int | None, led_mask: int) -> int:
        values = self.values
        winning = _top(deal.trick_mask & led_mask)
        winner = deal.played_by[winning]
        queen_out = self.queen_counts and unseen & _QS_BIT
        if shooter is not None:
            if winner == shooter or shooter not in deal.trick_seats:
                safe = cards & ~self.positive_mask & ~self.bonus_bit or cards
                best, best_danger = -1, -1e300
                for c in mask_to_actions(safe):
                    d = self._keep_danger(c, hand, unseen)
                    if d >= best_danger:
                        best, best_danger = c, d
                return best
            penalties = cards & self.positive_mask
            if penalties:
                best, best_key = -1, (-1, -1)
                for c in mask_to_actions(penalties):
                    key = (values[c], _RANK[c])
                    if key > best_key:
                        best, best_key = c, key
                return best
        best, best_priority = -1, -1e300
        for c in mask_to_actions(cards):
            value = values[c]
            if value < 0:
                priority = -100.0
            elif self.queen_counts and c == QS:
                priority = 100.0 + value
            elif queen_out and c in (AS, KS):
                priority = 80.0 + _RANK[c]
            else:
                priority = self._keep_danger(c, hand, unseen) + (value * 3.0 if value > 0 else 0.0)
            if priority >= best_priority:
                best, best_priority = c, priority
        return best

    def _lead(
        self, deal: Deal, cards: int, hand: int, unseen: int, shooter: int | None, voids: Sequence[int], me: int
    ) -> int:
        values = self.values
        queen_counts = self.queen_counts
        queen_out = queen_counts and unseen & _QS_BIT
        if queen_out and not hand & _QKA_SPADES:
            low_spades = cards & _BELOW_QS_SPADES
            if low_spades:
                return _top(low_spades)
        shown = 0
        for p in range(self.n):
            if p != me:
                shown |= voids[p]
        bonus = self.bonus
        bonus_live = bonus >= 0 and unseen & self.bonus_bit
        queen_cost = 13.0 * (1.0 if not unseen & _AK_SPADES else 0.6)
        best, best_cost = -1, float("inf")
        for card in mask_to_actions(cards):
            suit = _SUIT[card]
            higher = (unseen & _HIGHER_IN_SUIT[card]).bit_count()
            lower = (unseen & _LOWER_IN_SUIT[card]).bit_count()
            win_risk = 1.0 if higher == 0 else 1.0 / (1.0 + 1.5 * higher)
            void = shown >> suit & 1
            if void:
                win_risk = max(win_risk, 0.35)
            exposure = 1.0
            if void:
                exposure += 6.0
            if suit == HEARTS:
                exposure += self.heart_exposure
            value = values[card]
            cost = win_risk * exposure + max(value, 0) * (win_risk + 0.2)
            if queen_counts and card == QS:
                cost += queen_cost
            elif queen_out and card in (AS, KS):
                cost += 8.0
            elif queen_counts and suit == SPADES and hand & _QS_BIT:
                cost += 2.0
            if card == bonus:
                cost += -12.0 if higher == 0 else 3.0
            elif bonus_live and suit == self.bonus_suit and card > bonus:
                cost -= 1.0 if higher == 0 else 0.0
            if shooter is not None and value > 0:
                cost += 2.0
            cost += 0.05 * _RANK[card] - 0.02 * lower
            if cost < best_cost:
                best, best_cost = card, cost
        return best

    # ------------------------------------------------------------------ other decisions
    def decide(self, deal: Deal, voids: Sequence[int]) -> int:
        """The heuristic bot's action for the seat to move, in any phase."""
        legal = deal.legal_mask()
        if deal.phase == PLAYING:
            cards = legal & _CARD_BITS
            if cards:
                return cards.bit_length() - 1 if cards & (cards - 1) == 0 else self.play(deal, cards, voids)
            return VOID_DEAL if legal >> VOID_DEAL & 1 else mask_to_actions(legal)[0]
        if deal.phase == MOON_CHOICE:
            return self._moon_choice(deal, legal)
        actions = mask_to_actions(legal)  # passing, the pass-through declaration, the dealer's choice
        if len(actions) == 1:
            return actions[0]
        mask = np.zeros(68, np.int8)
        mask[actions] = 1
        return int(self.bot.act({"observation": encode(deal, deal.current_player), "action_mask": mask}))

    def _moon_choice(self, deal: Deal, legal: int) -> int:
        """``HeuristicBot._moon_choice`` on the deal's match totals (seen from the shooter)."""
        if not self.match_episode or not legal >> MOON_ADD & 1:
            return MOON_SUBTRACT if legal >> MOON_SUBTRACT & 1 else mask_to_actions(legal)[0]
        me = deal.current_player
        n = self.n
        totals = [deal.totals_before[(me + r) % n] for r in range(n)]
        value = self.rules.tables.moon_value
        threshold = self.rules.game_end_threshold
        added = [t + (0 if r == 0 else value) for r, t in enumerate(totals)]
        if threshold is not None and max(added) >= threshold:
            return MOON_ADD if added[0] < min(added[1:]) else MOON_SUBTRACT
        return MOON_ADD if totals[0] < min(totals[1:]) else MOON_SUBTRACT

    # ------------------------------------------------------------------ the rollout
    def play_out(self, deal: Deal, voids: list[int]) -> Deal:
        """Play ``deal`` to its end (in place) as four heuristic bots would and return it; ``voids`` (per
        seat, the suits shown void so far) is updated as the rollout shows more. Card plays go through
        the engine's trick step (``Deal._play``, the state change ``apply_action`` makes after its
        legality check; every card chosen here is legal), everything else through ``apply_action``."""
        moon = self.moon_matters
        stop = self.stop
        holder, total, holder_trick = -1, 0, -1
        everyone = -1
        while deal.phase != DONE:
            if deal.phase != PLAYING:
                deal.apply_action(self.decide(deal, voids))
                everyone = -1
                continue
            legal = deal._play_legal()
            cards = legal & _CARD_BITS
            if not cards:
                deal.apply_action(VOID_DEAL if legal >> VOID_DEAL & 1 else mask_to_actions(legal)[0])
                continue
            trick = deal.trick
            if cards & (cards - 1) == 0:
                card = cards.bit_length() - 1
            else:
                if everyone < 0:
                    everyone = 0
                    for h in deal.hands:
                        everyone |= h
                if moon and holder_trick != deal.trick_number:
                    holder, total = self._holder(deal)
                    holder_trick = deal.trick_number
                card = self._choose(deal, cards, voids, everyone, holder, total)
            if trick and not deal._led_mask >> card & 1:
                voids[deal.current_player] |= 1 << _SUIT[trick[0]]
            if everyone >= 0:
                everyone ^= 1 << card
            deal._legal = None
            deal.actions.append(card)
            deal._play(card)
            if stop is not None and not deal.trick and stop(deal):
                break
        return deal


def view_voids(void_in: Sequence[Sequence[int]]) -> list[int]:
    """A view's ``void_in`` (per relative seat, the suits shown void) as per-seat suit bitmasks."""
    return [sum(1 << s for s in set(row)) for row in void_in]


__all__ = ["HeuristicRollout", "view_voids"]
