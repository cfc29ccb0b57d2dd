"""The two interfaces of the batched room, declared once.

- ``BatchEngine``: what every batched engine offers (``BatchedHearts``, ``MixedBatchedHearts``):
  ``B`` tables stepping together, the seat to move in each row, its legal mask and observation, the
  heuristic bot's choice, the rule set of each row (``rules_list[rules_index[row]]``; one rule set:
  ``rules_list == [rules]`` and ``rules_index`` all zeros), its random generators by checkpoint name,
  seeded deals and a checkpointable state. Code that takes an engine asks for these, never for its
  class, so a mixture of rule sets and a single one are used alike.
- ``BatchPolicy``: the one batched-policy interface: actions for chosen rows of an engine, given
  those rows' observations and masks (``act``). Rollouts, opponents in training and evaluation
  all call it; a policy that needs neither ``obs`` nor ``mask`` ignores them.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol, runtime_checkable

import torch

from ..core.rules import Rules
from .engine import StepResult


@runtime_checkable
class BatchEngine(Protocol):
    """``batch_size`` tables on one ``device``; ``step`` plays the action of each row's seat to move."""

    batch_size: int
    device: torch.device
    num_players: int
    #: the first (or only) rule set
    rules: Rules
    #: every rule set played, in the order of ``rules_index``
    rules_list: list[Rules]
    #: ``(B,)`` int64: the index into ``rules_list`` of the rule set each row plays
    rules_index: torch.Tensor

    @property
    def generators(self) -> dict[str, Any]:
        """The engine's random generators by the names a checkpoint stores them under."""
        ...

    @property
    def observation_size(self) -> int: ...

    @property
    def current_player(self) -> torch.Tensor: ...

    def legal_mask(self) -> torch.Tensor: ...

    def observe(self, out: torch.Tensor | None = None) -> torch.Tensor: ...

    def step(self, actions: torch.Tensor) -> StepResult: ...

    def heuristic_actions(self, rows: torch.Tensor | None = None) -> torch.Tensor: ...

    def load_seeded(self, rows: Sequence[int], seeds: Sequence[int]) -> None: ...

    def state_dict(self) -> dict[str, Any]: ...

    def load_state_dict(self, state: dict[str, Any]) -> None: ...


@runtime_checkable
class BatchPolicy(Protocol):
    """Actions ``(len(rows),)`` int64 for ``rows`` (an index tensor) of ``engine``; ``obs`` and
    ``mask`` are those rows' observations ``(len(rows), D)`` and legal masks ``(len(rows), 68)``."""

    name: str

    def act(
        self,
        engine: BatchEngine,
        rows: torch.Tensor,
        obs: torch.Tensor,
        mask: torch.Tensor,
        generator: torch.Generator | None = None,
    ) -> torch.Tensor: ...
