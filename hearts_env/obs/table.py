"""The seated table: one game (a ``Deal``, or a ``Match`` and its current deal) with every seat's
observation kept up to date. The one place that pairs the engine with the incremental encoder; the
environments, tournaments, the reference vector engine and the play sessions all sit at one.

Call ``start(game)``, then ``apply(action)`` for each decision. ``apply`` returns ``True`` when the
action finished the deal in progress; in a match that is not over, ``next_deal()`` then seats the
next deal (callers that report a deal's end do so in between).
"""

from __future__ import annotations

import numpy as np

from ..core.actions import NUM_ACTIONS, mask_array
from ..core.deal import DONE, Deal
from ..core.match import Match
from ..core.rules import Rules
from .encoder import ObservationEncoder
from .spec import OFFSETS

_TO_MOVE = OFFSETS["to_move"]  # the to_move entry of the seat to move itself, in its own view
_ZERO_MASK = np.zeros(NUM_ACTIONS, np.int8)


class SeatedTable:
    """A game and its observations: ``observation(seat)`` is exactly what the AEC env gives ``seat``."""

    def __init__(self, rules: Rules, match_episode: bool = False) -> None:
        self.rules = rules
        self.match_episode = match_episode
        self.encoder = ObservationEncoder(rules, match_episode=match_episode)
        self.deal: Deal | None = None
        self.match: Match | None = None

    def start(self, game: Deal | Match) -> None:
        """Seat ``game``: a deal, or a match (its current deal is the one played)."""
        if isinstance(game, Match):
            self.match, self.deal = game, game.deal
        else:
            self.match, self.deal = None, game
        self.encoder.start(self.deal, self.match)

    def next_deal(self) -> None:
        """Seat the match's next deal (after ``apply`` returned ``True`` and the match goes on)."""
        assert self.match is not None and not self.match.over, "next_deal() needs a match that goes on"
        self.deal = self.match.deal
        self.encoder.start(self.deal, self.match)

    def finish(self) -> None:
        """Show the final totals (a match that is over): no seat is to move any more."""
        if self.match is not None:
            self.encoder.finish_match(self.match)

    @property
    def current_player(self) -> int:
        assert self.deal is not None, "start() first"
        return self.deal.current_player

    def vector(self, seat: int) -> np.ndarray:
        """A fresh copy of ``seat``'s observation vector."""
        deal = self.deal
        assert deal is not None, "start() first"
        current = deal.current_player
        if seat == current:  # the common case, inlined: ``encoder.observation(seat, current)``
            vector = self.encoder.buffer[seat].copy()
            vector[_TO_MOVE] = 1.0
            return vector
        return self.encoder.observation(seat, current)

    def observation(self, seat: int) -> dict[str, np.ndarray]:
        """``{"observation", "action_mask"}`` of ``seat``: the mask is all zeros unless it is to move."""
        deal = self.deal
        assert deal is not None, "start() first"
        current = deal.current_player
        if seat == current:  # the hot path of every env step and tournament decision, inlined
            vector = self.encoder.buffer[seat].copy()
            vector[_TO_MOVE] = 1.0
            return {"observation": vector, "action_mask": mask_array(deal.legal_mask())}
        return {"observation": self.encoder.observation(seat, current), "action_mask": _ZERO_MASK.copy()}

    def apply(self, action: int) -> bool:
        """Play ``action`` for the seat to move (the engine checks it); ``True`` when the deal ended."""
        deal = self.deal
        assert deal is not None, "start() first"
        seat, phase = deal.current_player, deal.phase
        game = self.match if self.match is not None else deal
        game.apply_action(action)
        self.encoder.update(deal, seat, action, phase)
        return deal.phase == DONE
