"""Batched policies: one action per row for a ``BatchedHearts`` (or any ``(B, A)`` legal mask).

- ``UniformRandomPolicy``: uniform over the legal actions of each row, one random number per row,
  drawn from a ``torch.Generator`` (works from the engine's legal bit sets, without the ``(B, 68)``
  mask); ``sample_uniform(mask, generator)`` does the same from any boolean mask.
- ``ModulePolicy``: any ``torch.nn.Module`` mapping observations ``(B, D)`` to logits ``(B, 68)``;
  illegal actions are masked out, then the action is sampled (or the arg-max taken).

Every policy is a callable ``policy(engine) -> (B,) int64`` on the engine's device, so a rollout loop
is ``engine.step(policy(engine))``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import torch

if TYPE_CHECKING:
    from .batch import BatchedHearts

_FIELD_BASES = (0, 13, 26, 39, 52, 65)  # first action id of each 13-bit field (4 suits, 16 special bits)


def _select_table(device: torch.device) -> torch.Tensor:
    """``table[f, k]``: the position of the k-th set bit of the 13-bit field ``f`` (-1 if none)."""
    table = torch.full((1 << 13, 13), -1, dtype=torch.int64)
    fields = torch.arange(1 << 13)
    bits = ((fields[:, None] >> torch.arange(13)) & 1).bool()
    rank = bits.long().cumsum(1) - 1  # rank of each set bit
    rows, cols = torch.nonzero(bits, as_tuple=True)
    table[rows, rank[rows, cols]] = cols
    return table.to(device)


class UniformRandomPolicy:
    """Uniformly random legal actions, seeded by a ``torch.Generator`` on the engine's device."""

    def __init__(self, device: torch.device | str = "cpu", seed: int | None = None) -> None:
        self.device = torch.empty(0, device=device).device
        self.generator = torch.Generator(device=self.device)
        if seed is None:
            self.generator.seed()
        else:
            self.generator.manual_seed(int(seed))
        self.select = _select_table(self.device)
        self.bases = torch.tensor(_FIELD_BASES, dtype=torch.int64, device=self.device)
        from .bits import BitTables

        self.bits = BitTables(self.device)

    def __call__(self, engine: BatchedHearts) -> torch.Tensor:
        state = engine.state
        cards = self.bits.fields(state.legal_cards)  # (B, 4)
        special = state.legal_special.unsqueeze(1)
        fields = torch.cat([cards, special & 0x1FFF, special >> 13], 1)  # (B, 6)
        counts = self.bits.popcount.index_select(0, fields.view(-1)).view_as(fields)
        cumulative = counts.cumsum(1)
        total = cumulative[:, -1]
        u = torch.rand(total.shape, generator=self.generator, device=self.device)
        r = torch.minimum((u * total).long(), total - 1)
        which = (cumulative <= r.unsqueeze(1)).sum(1, keepdim=True)  # the field holding the r-th legal action
        before = (cumulative - counts).gather(1, which)
        k = r.unsqueeze(1) - before
        field = fields.gather(1, which)
        position = self.select.view(-1).index_select(0, (field * 13 + k).view(-1))
        return self.bases.index_select(0, which.view(-1)) + position


def sample_uniform(mask: torch.Tensor, generator: torch.Generator | None = None) -> torch.Tensor:
    """A uniformly random allowed index per row of a ``(B, A)`` boolean mask (every row must allow one)."""
    counts = mask.sum(1)
    u = torch.rand(counts.shape, generator=generator, device=mask.device)
    r = torch.minimum((u * counts).long(), counts - 1)
    cumulative = mask.long().cumsum(1)
    return (cumulative <= r.unsqueeze(1)).sum(1)


class ModulePolicy:
    """A ``torch.nn.Module`` from observations ``(B, D)`` to logits ``(B, 68)``, restricted to the legal
    actions: sampled from the masked softmax (``sample=True``) or the best legal action."""

    def __init__(self, module: torch.nn.Module, *, sample: bool = True, generator: torch.Generator | None = None):
        self.module = module
        self.sample = sample
        self.generator = generator

    @torch.no_grad()
    def __call__(self, engine: BatchedHearts) -> torch.Tensor:
        mask = engine.legal_mask()
        logits = self.module(engine.observe())
        logits = logits.masked_fill(~mask, float("-inf"))
        if not self.sample:
            return logits.argmax(1)
        probs = torch.softmax(logits.float(), 1)
        return torch.multinomial(probs, 1, generator=self.generator).squeeze(1)


__all__ = ["ModulePolicy", "UniformRandomPolicy", "sample_uniform"]
