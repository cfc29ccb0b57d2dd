"""The reference heuristic bot row by row, as a batched policy: the exact answer ``VectorHeuristic`` must give.

``ReferenceHeuristicPolicy`` asks ``hearts_env.bots.HeuristicBot`` (of each row's rule set) for the
action of every chosen row, from that row's observation vector and mask: the same inputs the bot gets
in the AEC environment, so its answers are the bot's by construction. It is a
``hearts_env.batched.BatchPolicy`` for any ``BatchEngine`` (one rule set or several), about ten times
slower than the engine's own ``heuristic_actions`` on CPU: a harness to check a vector form against,
or the heuristic for an engine that has no vector form of its own.
"""

from __future__ import annotations

import numpy as np
import torch

from ..batched.protocols import BatchEngine
from ..batched.state import row_index
from ..bots import HeuristicBot
from ..core.rules import Rules


class ReferenceHeuristicPolicy:
    """``HeuristicBot.act`` on each row's ``{"observation", "action_mask"}``, one bot per rule set."""

    name = "heuristic"

    def __init__(self) -> None:
        self._bots: dict[Rules, HeuristicBot] = {}

    def bot(self, rules: Rules) -> HeuristicBot:
        """The (stateless) bot of ``rules``, made once."""
        if rules not in self._bots:
            self._bots[rules] = HeuristicBot(rules)
        return self._bots[rules]

    def act(
        self,
        engine: BatchEngine,
        rows: torch.Tensor,
        obs: torch.Tensor,
        mask: torch.Tensor,
        generator: torch.Generator | None = None,
    ) -> torch.Tensor:
        """The bot's action per row; ``obs`` and ``mask`` are the rows' observations and legal masks."""
        rows = row_index(rows, engine.batch_size, engine.device)
        if obs.shape[0] != rows.numel() or mask.shape[0] != rows.numel():
            raise ValueError(
                f"{rows.numel()} rows but {obs.shape[0]} observations and {mask.shape[0]} masks: one of each per row"
            )
        which = engine.rules_index.index_select(0, rows).tolist()
        obs_np = obs.cpu().numpy()
        mask_np = mask.cpu().numpy().astype(np.int8)
        chosen = [
            self.bot(engine.rules_list[k]).act({"observation": obs_np[i], "action_mask": mask_np[i]})
            for i, k in enumerate(which)
        ]
        return torch.tensor(chosen, dtype=torch.int64, device=engine.device)

    def __call__(self, engine: BatchEngine, rows: torch.Tensor | None = None) -> torch.Tensor:
        """The bot's actions for ``rows`` of the engine (all for ``None``; indices or a boolean mask),
        from the engine's own observations and masks: ``engine.heuristic_actions(rows)`` must equal it."""
        rows = row_index(rows, engine.batch_size, engine.device)
        return self.act(engine, rows, engine.observe()[rows], engine.legal_mask()[rows])


__all__ = ["ReferenceHeuristicPolicy"]
