"""The opponents of the learner in training and its evaluations, each a
``hearts_env.batched.protocols.BatchPolicy``: actions for chosen rows of an engine, given those rows'
observations and masks.

- ``RandomOpponent``: uniformly random legal actions (the masked softmax of zero logits).
- ``NetworkOpponent``: a frozen snapshot of the network, sampling from its masked policy.
- the rule-based bot is ``hearts_env.batched.HeuristicPolicy`` (the engine's ``heuristic_actions``).

The random and snapshot opponents sample with the rollout's generator (``generator``), so a seeded
run draws the same actions however the rows are split between opponents.
"""

from __future__ import annotations

from typing import Any

import torch

from hearts_env.batched.protocols import BatchEngine

from .network import build_network, sample_actions


class RandomOpponent:
    """Uniformly random legal actions, drawn with ``generator``."""

    name = "random"

    def act(
        self,
        engine: BatchEngine,
        rows: torch.Tensor,
        obs: torch.Tensor,
        mask: torch.Tensor,
        generator: torch.Generator | None = None,
    ) -> torch.Tensor:
        """A random legal action per row of ``mask``."""
        return sample_actions(torch.zeros(mask.shape, device=mask.device), mask, generator)


class NetworkOpponent:
    """A frozen copy of the network (a past snapshot), sampling from its masked policy."""

    def __init__(self, network: torch.nn.Module, name: str, weights: dict[str, torch.Tensor] | None = None) -> None:
        self.network = network
        self.name = name
        self.weights = weights  # the snapshot it was built from: the pool rebuilds it only when this changes

    @classmethod
    def frozen(
        cls, config: dict[str, Any], weights: dict[str, torch.Tensor], device: torch.device, i: int, num_players: int
    ) -> NetworkOpponent:
        """Snapshot ``i`` of the pool: a network of ``config`` holding ``weights``, in eval mode."""
        net = build_network(config, num_players).to(device)
        net.load_state_dict(weights)
        return cls(net.eval(), f"snapshot{i}", weights)

    @torch.no_grad()
    def act(
        self,
        engine: BatchEngine,
        rows: torch.Tensor,
        obs: torch.Tensor,
        mask: torch.Tensor,
        generator: torch.Generator | None = None,
    ) -> torch.Tensor:
        """A sample of the snapshot's masked policy per row (``obs``: the inputs the network reads)."""
        logits, _ = self.network(obs)
        return sample_actions(logits, mask, generator)
