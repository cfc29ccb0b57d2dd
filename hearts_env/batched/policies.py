"""Batched policies: ``hearts_env.batched.protocols.BatchPolicy`` implementations for any ``BatchEngine``.

- ``UniformRandomPolicy``: uniform over the legal actions of each row, one random number per row,
  drawn from a ``torch.Generator``; ``sample_uniform(mask, generator)`` does the same from any boolean
  mask.
- ``ModulePolicy``: any ``torch.nn.Module`` mapping observations ``(B, D)`` to logits ``(B, 68)``;
  illegal actions are masked out, then the action is sampled (or the arg-max taken).
- ``HeuristicPolicy``: the heuristic bot (``engine.heuristic_actions``).

Each acts for chosen rows given their observations and masks (``act(engine, rows, obs, mask,
generator=None)``), as rollouts, training opponents and evaluation call them. Each is also a callable
``policy(engine) -> (B,) int64`` for all rows, so a rollout loop can be ``engine.step(policy(engine))``;
the uniform policy then works from the engine's legal bit sets, without building the ``(B, 68)`` mask.
"""

from __future__ import annotations

import torch

from .batch import BatchedHearts
from .bits import BitTables
from .multi import MixedBatchedHearts
from .protocols import BatchEngine

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


def sample_uniform(mask: torch.Tensor, generator: torch.Generator | None = None) -> torch.Tensor:
    """A uniformly random allowed index per row of a ``(B, A)`` boolean mask (every row must allow one)."""
    counts = mask.sum(1)
    u = torch.rand(counts.shape, generator=generator, device=mask.device)
    r = torch.minimum((u * counts).long(), counts - 1)
    cumulative = mask.long().cumsum(1)
    return (cumulative <= r.unsqueeze(1)).sum(1)


def _all_rows(engine: BatchEngine) -> torch.Tensor:
    return torch.arange(engine.batch_size, device=engine.device)


class UniformRandomPolicy:
    """Uniformly random legal actions, seeded by a ``torch.Generator`` on the engine's device. ``act``
    and ``policy(engine)`` draw the same actions from the same generator state (the r-th legal action
    for the same uniform number ``u`` per row)."""

    name = "random"

    def __init__(self, device: torch.device | str = "cpu", seed: int | None = None) -> None:
        self.device = torch.empty(0, device=device).device
        self.generator = torch.Generator(device=self.device)
        if seed is None:
            self.generator.seed()
        else:
            self.generator.manual_seed(int(seed))
        self.select = _select_table(self.device)
        self.bases = torch.tensor(_FIELD_BASES, dtype=torch.int64, device=self.device)
        self.bits = BitTables(self.device)

    def act(
        self,
        engine: BatchEngine,
        rows: torch.Tensor,
        obs: torch.Tensor,
        mask: torch.Tensor,
        generator: torch.Generator | None = None,
    ) -> torch.Tensor:
        """A uniformly random legal action per row of ``mask`` (``generator``, else the policy's own)."""
        return sample_uniform(mask, self.generator if generator is None else generator)

    def __call__(self, engine: BatchedHearts | MixedBatchedHearts) -> torch.Tensor:
        """Actions for all rows, from the engine's legal bit sets (``legal_sets``): no mask is built."""
        legal_cards, legal_special = engine.legal_sets()
        cards = self.bits.fields(legal_cards)  # (B, 4)
        special = legal_special.unsqueeze(1)
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


class ModulePolicy:
    """A ``torch.nn.Module`` from observations ``(B, D)`` to logits ``(B, 68)``, restricted to the legal
    actions: sampled from the masked softmax (``sample=True``) or the best legal action."""

    def __init__(
        self,
        module: torch.nn.Module,
        *,
        sample: bool = True,
        generator: torch.Generator | None = None,
        name: str = "module",
    ) -> None:
        self.module = module
        self.sample = sample
        self.generator = generator
        self.name = name

    @torch.no_grad()
    def act(
        self,
        engine: BatchEngine,
        rows: torch.Tensor,
        obs: torch.Tensor,
        mask: torch.Tensor,
        generator: torch.Generator | None = None,
    ) -> torch.Tensor:
        """The module's choice per row of ``obs`` among the legal actions of ``mask`` (sampled with
        ``generator``, else the policy's own)."""
        logits = self.module(obs).masked_fill(~mask, float("-inf"))
        if not self.sample:
            return logits.argmax(1)
        probs = torch.softmax(logits.float(), 1)
        return torch.multinomial(probs, 1, generator=self.generator if generator is None else generator).squeeze(1)

    def __call__(self, engine: BatchEngine) -> torch.Tensor:
        """Actions for all rows from the engine's observations and masks."""
        return self.act(engine, _all_rows(engine), engine.observe(), engine.legal_mask())


class HeuristicPolicy:
    """The heuristic bot (``hearts_env.bots.HeuristicBot``'s choices, computed by the engine's
    ``heuristic_actions``): it needs neither ``obs`` nor ``mask``, nor random numbers."""

    name = "heuristic"

    def act(
        self,
        engine: BatchEngine,
        rows: torch.Tensor,
        obs: torch.Tensor,
        mask: torch.Tensor,
        generator: torch.Generator | None = None,
    ) -> torch.Tensor:
        """The bot's action for the seat to move in each of ``rows``."""
        return engine.heuristic_actions(rows)

    def __call__(self, engine: BatchEngine) -> torch.Tensor:
        """The bot's actions for all rows."""
        return engine.heuristic_actions(None)


__all__ = ["HeuristicPolicy", "ModulePolicy", "UniformRandomPolicy", "sample_uniform"]
