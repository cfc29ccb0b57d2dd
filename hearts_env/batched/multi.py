"""Several rule sets in one batch: ``MixedBatchedHearts`` puts one ``BatchedHearts`` per rule set side by
side, rows ``[0, B_1)`` playing the first rule set, the next ``B_2`` rows the second, and so on.

The observation encoding has a fixed size for every rule set and carries the rule options, so one
network can read every row; this class gives such a network (and a trainer) the interface of a single
engine (``hearts_env.batched.protocols.BatchEngine``): ``observe`` ``(B, D)``, ``legal_mask`` ``(B, 68)``,
``current_player``, ``step`` and a ``StepResult`` over all rows, ``heuristic_actions``. Every part
keeps its own generator, so the mixture is as reproducible as its parts. All rule sets must have the
same number of players (seat-indexed results stay ``(B, N)``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import torch

from ..core.rules import Rules
from .batch import BatchedHearts
from .engine import StepResult
from .state import row_index


class MixedBatchedHearts:
    """``batch_size`` rows split as evenly as possible between ``rules`` (preset names, rule files or
    ``Rules``), each part a ``BatchedHearts`` seeded from ``seed``."""

    def __init__(
        self,
        rules: Sequence[Rules | str],
        batch_size: int,
        *,
        device: torch.device | str = "cpu",
        seed: int | None = None,
    ) -> None:
        loaded = [Rules.load(r) for r in rules]
        if not loaded:
            raise ValueError("MixedBatchedHearts needs at least one rule set")
        counts = {r.num_players for r in loaded}
        if len(counts) != 1:
            raise ValueError(f"all rule sets must have the same number of players, got {sorted(counts)}")
        if batch_size < len(loaded):
            raise ValueError(f"batch_size {batch_size} is smaller than the number of rule sets ({len(loaded)})")
        sizes = [batch_size // len(loaded) + (i < batch_size % len(loaded)) for i in range(len(loaded))]
        self.parts = [
            BatchedHearts(r, batch_size=size, device=device, seed=None if seed is None else seed + 7919 * i)
            for i, (r, size) in enumerate(zip(loaded, sizes, strict=True))
        ]
        self.rules_list = loaded
        self.rules = loaded[0]
        self.batch_size = batch_size
        self.num_players = loaded[0].num_players
        self.device = self.parts[0].device
        self.bounds = [0]
        for size in sizes:
            self.bounds.append(self.bounds[-1] + size)
        #: ``(B,)`` the index of the rule set each row plays
        self.rules_index = torch.cat(
            [torch.full((size,), i, dtype=torch.int64, device=self.device) for i, size in enumerate(sizes)]
        )

    # ---- the single-engine interface
    @property
    def observation_size(self) -> int:
        return self.parts[0].observation_size

    @property
    def generators(self) -> dict[str, torch.Generator]:
        """Each part's generator, by the names checkpoints store them under."""
        return {f"engine{i}": part.generator for i, part in enumerate(self.parts)}

    @property
    def current_player(self) -> torch.Tensor:
        return torch.cat([part.current_player for part in self.parts])

    def legal_mask(self) -> torch.Tensor:
        return torch.cat([part.legal_mask() for part in self.parts])

    def legal_sets(self) -> tuple[torch.Tensor, torch.Tensor]:
        """``BatchedHearts.legal_sets`` over all rows."""
        sets = [part.legal_sets() for part in self.parts]
        return torch.cat([cards for cards, _ in sets]), torch.cat([special for _, special in sets])

    def observe(self, out: torch.Tensor | None = None) -> torch.Tensor:
        if out is None:
            out = torch.empty(self.batch_size, self.observation_size, device=self.device)
        for part, a, b in self._spans():
            part.observe(out=out[a:b])
        return out

    def step(self, actions: torch.Tensor) -> StepResult:
        results = [part.step(actions[a:b]) for part, a, b in self._spans()]
        return StepResult(
            rewards=torch.cat([r.rewards for r in results]),
            done=torch.cat([r.done for r in results]),
            scores=torch.cat([r.scores for r in results]),
            cancelled=torch.cat([r.cancelled for r in results]),
        )

    def heuristic_actions(self, rows: torch.Tensor | None = None) -> torch.Tensor:
        """The heuristic bot's actions for ``rows`` (indices or a boolean mask; ``None``: all), each row
        asked of the part that plays it."""
        if rows is None:
            return torch.cat([part.heuristic_actions(None) for part in self.parts])
        rows = row_index(rows, self.batch_size, self.device)
        actions = torch.zeros(rows.numel(), dtype=torch.int64, device=self.device)
        for part, a, b in self._spans():
            mine = (rows >= a) & (rows < b)
            if bool(mine.any()):
                actions[mine] = part.heuristic_actions(rows[mine] - a)
        return actions

    def load_seeded(self, rows: Sequence[int], seeds: Sequence[int]) -> None:
        """``BatchedHearts.load_seeded`` row by row of the part each row belongs to."""
        for part, a, b in self._spans():
            mine = [(r - a, s) for r, s in zip(rows, seeds, strict=True) if a <= r < b]
            if mine:
                part.load_seeded([r for r, _ in mine], [s for _, s in mine])

    def state_dict(self) -> dict[str, Any]:
        return {f"part{i}": part.state_dict() for i, part in enumerate(self.parts)}

    def load_state_dict(self, state: dict[str, Any]) -> None:
        for i, part in enumerate(self.parts):
            part.load_state_dict(state[f"part{i}"])

    def _spans(self) -> list[tuple[BatchedHearts, int, int]]:
        return [(part, self.bounds[i], self.bounds[i + 1]) for i, part in enumerate(self.parts)]


__all__ = ["MixedBatchedHearts"]
