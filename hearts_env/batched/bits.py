"""Bit helpers for 52-bit card masks held in ``int64`` tensors.

Torch has no popcount or count-leading-zeros, so these use small lookup tables over the four 13-bit
suit fields of a mask (a suit is 13 consecutive bits because card ids are suit-major), or ``frexp`` on
``float64``, which is exact for integers below 2**53.
"""

from __future__ import annotations

import torch

SUIT_BITS = 13
SUIT_FIELD = (1 << SUIT_BITS) - 1


class BitTables:
    """Lookup tables on one device: every 13-bit suit field expanded to bits, and its popcount."""

    def __init__(self, device: torch.device) -> None:
        fields = torch.arange(1 << SUIT_BITS, dtype=torch.int64)
        ranks = torch.arange(SUIT_BITS, dtype=torch.int64)
        bits = ((fields[:, None] >> ranks) & 1).bool()
        self.device = device
        self.expand_bool = bits.to(device)  # (8192, 13) bool
        self.expand_float = bits.float().to(device)  # (8192, 13) float32
        self.expand_uint8 = bits.to(torch.uint8).to(device)  # (8192, 13) uint8
        self.popcount = bits.sum(1).to(device)  # (8192,) int64
        self.shifts = (torch.arange(4, dtype=torch.int64) * SUIT_BITS).to(device)

    def fields(self, masks: torch.Tensor, out: torch.Tensor | None = None) -> torch.Tensor:
        """``(..., 4)`` suit fields of ``(...)`` masks (into ``out`` when given). Four shifts by a scalar:
        much faster on CPU than one shift by a broadcast tensor of shift counts."""
        if out is None:
            out = torch.empty(*masks.shape, 4, dtype=torch.int64, device=masks.device)
        for suit in range(4):
            torch.bitwise_right_shift(masks, SUIT_BITS * suit, out=out[..., suit])
        return out.bitwise_and_(SUIT_FIELD)

    def to_bool(self, masks: torch.Tensor) -> torch.Tensor:
        """``(..., 52)`` bool planes of ``(...)`` masks."""
        idx = self.fields(masks).reshape(-1)
        return self.expand_bool.index_select(0, idx).view(*masks.shape, 52)

    def to_float(self, masks: torch.Tensor) -> torch.Tensor:
        """``(..., 52)`` float32 planes of ``(...)`` masks."""
        idx = self.fields(masks).reshape(-1)
        return self.expand_float.index_select(0, idx).view(*masks.shape, 52)

    def count(self, masks: torch.Tensor) -> torch.Tensor:
        """Number of cards in each mask (``int64``, the shape of ``masks``)."""
        return self.popcount.index_select(0, self.fields(masks).view(-1)).view(*masks.shape, 4).sum(-1)


def lowest_bit(masks: torch.Tensor) -> torch.Tensor:
    """Index of the lowest set bit of each nonzero mask (undefined for 0)."""
    low = masks & -masks
    return torch.frexp(low.double()).exponent.long() - 1


def highest_bit(masks: torch.Tensor) -> torch.Tensor:
    """Index of the highest set bit of each nonzero mask below 2**53 (undefined for 0)."""
    return torch.frexp(masks.double()).exponent.long() - 1


__all__ = ["BitTables", "highest_bit", "lowest_bit"]
