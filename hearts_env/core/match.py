"""A whole match (RULES.md §3.6): deals in sequence with cumulative scores, exact-score resets,
instant win, the end threshold, ties, dealer rotation and the pass cycle.

``Match`` exposes the same decision interface as ``Deal`` (``current_player``, ``legal_actions``,
``apply_action``, ``is_terminal``); when a deal ends the next one is dealt at once, so there is
always a seat to move until the match is over. Finished deals are kept in ``history``.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from .deal import Deal
from .errors import InvalidDealError, brief
from .rules import Rules
from .scoring import apply_resets

#: Guard against a match that never ends (e.g. a threshold no score can reach with ties replayed).
MAX_DEALS = 10_000


@dataclass(frozen=True)
class DealSummary:
    """What a finished deal contributed to the match."""

    deal: Deal
    number: int  # counted deals so far (cancelled deals do not count, RULES.md §10)
    scores: tuple[int, ...]
    totals: tuple[int, ...]  # after this deal, resets applied
    resets: tuple[tuple[int, int, int], ...]  # (seat, total before reset, after)


class Match:
    """A match of Hearts under ``rules``; ``seed`` fixes the first dealer, every deal and every smoosh.

    ``first_dealer`` overrides the rules' first dealer, and ``scripted_deals`` (mappings with
    ``seed``, ``hands`` and optionally ``kitty``) are dealt, in order, before any random deal: that is
    how a game record is replayed and how a test scripts a whole match."""

    def __init__(
        self,
        rules: Rules | None = None,
        *,
        seed: int | None = None,
        first_dealer: int | None = None,
        scripted_deals: Sequence[Mapping[str, Any]] = (),
    ) -> None:
        rules = rules if rules is not None else Rules()
        self.rules = rules
        self.num_players = rules.num_players
        self.seed = seed
        self.rng = random.Random(seed)
        n = rules.num_players
        self.dealer = self.rng.randrange(n) if rules.first_dealer == "random" else int(rules.first_dealer)
        if first_dealer is not None:
            if isinstance(first_dealer, bool) or not isinstance(first_dealer, int) or not 0 <= first_dealer < n:
                raise InvalidDealError(f"first_dealer must be a seat 0..{n - 1}, got {brief(first_dealer)}")
            self.dealer = first_dealer
        self._script = list(scripted_deals)
        self.deals_dealt = 0  # deals dealt so far, cancelled ones included
        self.totals = [0] * n
        self.cycle_position = 0
        self.deals_counted = 0
        self.history: list[DealSummary] = []
        self.winners: tuple[int, ...] = ()
        self.over = False
        self.end_reason = ""
        self.deal = self._new_deal()
        if self.deal.is_terminal():  # cancelled as dealt (void_deal with no decision to make)
            self._finish_deal()

    # ---- the decision interface, delegated to the deal in progress
    @property
    def current_player(self) -> int:
        return -1 if self.over else self.deal.current_player

    def legal_actions(self) -> list[int]:
        return [] if self.over else self.deal.legal_actions()

    def legal_mask(self) -> int:
        return 0 if self.over else self.deal.legal_mask()

    def is_terminal(self) -> bool:
        return self.over

    def apply_action(self, action: int) -> None:
        if self.over:
            self.deal.apply_action(action)  # raises: the deal is over
        self.deal.apply_action(action)
        if self.deal.is_terminal():
            self._finish_deal()

    # ---- deal sequencing
    def _new_deal(self) -> Deal:
        script = self._script.pop(0) if self._script else {}
        seed = script.get("seed")
        deal_seed = self.rng.getrandbits(63) if seed is None else seed
        kind = self.rules.pass_kind_for_deal(self.cycle_position)
        self.deals_dealt += 1
        return Deal(
            self.rules,
            seed=deal_seed,
            hands=script.get("hands"),
            kitty=script.get("kitty"),
            dealer=self.dealer,
            pass_kind=kind,
            totals=self.totals,
        )

    def _finish_deal(self) -> None:
        # A new deal can be over the moment it is dealt (``void_deal``: an all-hearts eldest hand
        # leading a hold deal); it is finished here too, so there is always a seat to move.
        while self._finish_one_deal():
            self.deal = self._new_deal()
            if not self.deal.is_terminal():
                return

    def _finish_one_deal(self) -> bool:
        """Account for the finished ``self.deal``; whether the match goes on to another deal."""
        deal = self.deal
        rules = self.rules
        n = self.num_players
        if deal.cancelled:
            # the same dealer redeals (RULES.md §3.4); the cycle advances only if the rules say so
            if rules.void_deal_advances_pass_cycle:
                self.cycle_position += 1
            self.history.append(DealSummary(deal, self.deals_counted, deal.scores, tuple(self.totals), ()))
        else:
            self.deals_counted += 1
            raw = [t + s for t, s in zip(self.totals, deal.scores, strict=True)]
            after = apply_resets(raw, rules)
            resets = tuple((p, raw[p], after[p]) for p in range(n) if raw[p] != after[p])
            self.totals = after
            self.history.append(DealSummary(deal, self.deals_counted, deal.scores, tuple(after), resets))
            self.cycle_position += 1
            step = 1 if rules.dealer_rotation == "clockwise" else -1
            self.dealer = (self.dealer + step) % n
            if self._check_end():
                return False
        if len(self.history) >= MAX_DEALS:
            self._end(tuple(p for p in range(n) if self.totals[p] == min(self.totals)), "deal limit reached")
            return False
        return True

    def _check_end(self) -> bool:
        rules = self.rules
        totals = self.totals
        iw = rules.instant_win
        if iw is not None:
            due = self.deals_counted == iw.at_deal if iw.mode == "at_deal_exactly" else self.deals_counted >= iw.at_deal
            hit = tuple(p for p, t in enumerate(totals) if t == iw.score)
            if due and hit:
                self._end(hit, f"instant win: exactly {iw.score} after deal {self.deals_counted}")
                return True
        threshold = rules.game_end_threshold
        lowest = min(totals)
        leaders = tuple(p for p, t in enumerate(totals) if t == lowest)
        if threshold is None:  # a one-deal game (OpenSpiel's convention)
            self._end(leaders, "single deal")
            return True
        if max(totals) >= threshold:
            if len(leaders) > 1 and rules.tie_for_lowest == "play_another_deal":
                return False
            self._end(leaders, f"a total reached {threshold}")
            return True
        return False

    def _end(self, winners: tuple[int, ...], reason: str) -> None:
        self.over = True
        self.winners = winners
        self.end_reason = reason
