"""The state of B deals as a dataclass of tensors, one row per deal.

Card sets are 52-bit masks in ``int64`` tensors (bit ``c`` = card id ``c`` of ``hearts_env.core.cards``),
per seat where they belong to a seat: ``hands[b, p]`` is seat ``p``'s hand in row ``b``. Masks were
measured faster than ``(B, N, 52)`` bool tensors on CPU (the legal-set computation works on ``(B,)``
numbers instead of ``(B, 52)`` planes; about 4x for legal set + mask on 4,096 rows) and they move less
memory on a GPU too. Special actions (52..67) are a 16-bit set in ``legal_special`` (bit ``a - 52``).

The engine never changes a tensor of a state in place: a transition returns a new ``BatchState`` that
shares the tensors it did not change, so an old state stays valid (``clone()`` is only needed to own
independent storage).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass

import torch


@dataclass
class BatchState:
    """B deals of one rule set. Shapes: ``(B,)`` unless noted; N seats, K kitty cards, P cards passed."""

    phase: torch.Tensor  # 0 dealer's choice, 1 passing, 2 playing, 3 moon choice (as hearts_env.core.deal)
    current: torch.Tensor  # the seat to move
    dealer: torch.Tensor
    cycle_pos: torch.Tensor  # position of this deal in the pass cycle (counts finished deals, as a match does)
    kind: torch.Tensor  # pass-kind code of this deal (params.HOLD, 1..7, SCATTER, SMOOSH, DEALER_CHOICE_KIND)
    deal_kind: torch.Tensor  # the kind the deal started with (DEALER_CHOICE_KIND until the dealer chooses)
    hands: torch.Tensor  # (B, N) card masks held now
    dealt: torch.Tensor  # (B, N) card masks as dealt
    kitty_cards: torch.Tensor  # (B, K) card ids of the kitty, in order (one_card_per_trick gives them out in it)
    kitty_left: torch.Tensor  # mask of kitty cards not yet given out
    kitty_mask: torch.Tensor  # mask of all kitty cards
    pass_pos: torch.Tensor  # passing: how many seats (from eldest hand) have finished passing
    pass_num: torch.Tensor  # passing: cards the seat to move has chosen so far
    declared: torch.Tensor  # bool: the seat to move has made its pass-through declaration
    through: torch.Tensor  # (B, N) bool: the seat declared pass-through
    chosen: torch.Tensor  # (B, N) masks of the cards each seat has chosen to pass
    chosen_cards: torch.Tensor  # (B, N, P) card ids chosen, by pass position (0 = eldest hand), in order; -1 unset
    passed: torch.Tensor  # (B, N) masks each seat gave away once the pass resolved
    received: torch.Tensor  # (B, N) masks each seat received once the pass resolved
    pass_target: torch.Tensor  # (B, N) seat that kept the packet of a single-target pass; -1 otherwise
    pass_rows: torch.Tensor  # (B, N, 18) per seat, once the pass resolved: cards sent to the seats 0..7 places
    # left and to the smoosh pool, then cards received from the seats 0..7 places left and from the pool
    forwarded: torch.Tensor  # (B, N) cards that travelled through each pass-through seat
    smoosh_perm: torch.Tensor  # (B, N*P) shuffle of a smoosh pool: position i receives pool[perm[i]]
    opening: torch.Tensor  # the opening card id
    leader: torch.Tensor  # leader of the current trick
    trick_number: torch.Tensor  # completed tricks
    trick_len: torch.Tensor  # cards in the current trick
    trick_cards: torch.Tensor  # (B, N) card ids of the current trick by position from the leader; -1 unset
    trick_mask: torch.Tensor  # mask of the cards of the current trick
    led_suit: torch.Tensor  # suit of the card led to the current trick (-1 before the lead)
    best_card: torch.Tensor  # highest card of the led suit so far in the trick
    best_seat: torch.Tensor  # who played it
    hearts_broken: torch.Tensor  # bool
    void_declined: torch.Tensor  # bool: the leader declined to void the deal (leader_may_void)
    won: torch.Tensor  # (B, N) masks of the cards each seat has taken (tricks and kitty)
    tricks_won: torch.Tensor  # (B, N)
    played: torch.Tensor  # (B, N) masks of the cards each seat has played
    points: torch.Tensor  # (B, N) card points of the tricks each seat has won (kitty excluded)
    trick_points: torch.Tensor  # card points in the current trick
    void: torch.Tensor  # (B, N) 4-bit sets of the suits each seat has shown void in (not following)
    totals: torch.Tensor  # (B, N) totals before this deal (read by moon_mode add_unless_shooter_loses)
    shooter: torch.Tensor  # the shooter awaiting the moon choice, else -1
    legal_cards: torch.Tensor  # legal card actions of the decision at hand (mask)
    legal_special: torch.Tensor  # legal special actions (bit a - 52)

    @property
    def batch_size(self) -> int:
        return int(self.phase.shape[0])

    @property
    def device(self) -> torch.device:
        return self.phase.device

    def replace(self, **changes: torch.Tensor) -> BatchState:
        return dataclasses.replace(self, **changes)

    def clone(self) -> BatchState:
        """A copy with its own storage."""
        return BatchState(**{f.name: getattr(self, f.name).clone() for f in dataclasses.fields(self)})

    def rows(self, index: torch.Tensor) -> BatchState:
        """The sub-batch of the rows in ``index`` (a 1-D index tensor)."""
        return BatchState(**{f.name: getattr(self, f.name).index_select(0, index) for f in dataclasses.fields(self)})

    @staticmethod
    def concat(states: Sequence[BatchState]) -> BatchState:
        """The rows of ``states`` one after another, in order."""
        return BatchState(**{name: torch.cat([getattr(s, name) for s in states]) for name in FIELD_NAMES})

    def to(self, device: torch.device | str) -> BatchState:
        return BatchState(**{f.name: getattr(self, f.name).to(device) for f in dataclasses.fields(self)})


FIELD_NAMES: tuple[str, ...] = tuple(f.name for f in dataclasses.fields(BatchState))


def row_index(rows: torch.Tensor | None, batch_size: int, device: torch.device) -> torch.Tensor:
    """``rows`` of a batch as a 1-D int64 index tensor on ``device``: every row for ``None``, the true
    rows of a ``(batch_size,)`` boolean mask, or the given indices. Every engine method that takes rows
    accepts these three forms; anything else raises ``ValueError`` naming what was wrong."""
    if rows is None:
        return torch.arange(batch_size, device=device)
    if not isinstance(rows, torch.Tensor):
        raise ValueError(f"rows must be a tensor of indices or a boolean mask, got {type(rows).__name__}")
    rows = rows.to(device)
    if rows.dtype == torch.bool:
        if rows.shape != (batch_size,):
            raise ValueError(f"a boolean rows mask must have shape ({batch_size},), got {tuple(rows.shape)}")
        return torch.nonzero(rows).flatten()
    if rows.dtype not in (torch.int64, torch.int32, torch.int16, torch.int8, torch.uint8) or rows.dim() != 1:
        raise ValueError(f"rows must be a 1-D integer or boolean tensor, got {rows.dtype} of shape {tuple(rows.shape)}")
    if rows.numel() and bool(((rows < 0) | (rows >= batch_size)).any()):
        bad = rows[(rows < 0) | (rows >= batch_size)][:5].tolist()
        raise ValueError(f"rows {bad} are outside the batch of {batch_size} rows")
    return rows.long()


__all__ = ["FIELD_NAMES", "BatchState", "row_index"]
