"""Many tables of the reference engine stepped together, behind the batched engine's interface.

On a small CPU the reference engine with its incremental observation encoder (a few numpy writes
per action) produces observations faster than the torch batched engine does at the batch sizes
PPO uses, so training on CPU can use this instead (``--engine reference``). It offers what training
reads from a ``hearts_env.batched.protocols.BatchEngine``: ``observe``, ``legal_mask``,
``current_player``, ``step`` (returning rewards, done flags and scores per row), the heuristic bot's
choices, seeded deals, its generators and a state that a checkpoint can hold (each table's deal seed
and the actions taken so far, replayed on resume).

Each table is a ``hearts_env.obs.SeatedTable``; deals are ``hearts_env.tournament.deal_for_seed``
deals, i.e. exactly what ``env.reset(seed=s)`` deals.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import torch

from hearts_env.bots.heuristic import HeuristicBot
from hearts_env.core.actions import mask_array
from hearts_env.core.deal import Deal
from hearts_env.core.rules import Rules
from hearts_env.obs import OBSERVATION_SIZE, SeatedTable
from hearts_env.tournament import deal_for_seed


@dataclass(frozen=True)
class VecStep:
    """One step's outcome per row: ``rewards`` (B, N) minus deal points where a deal ended."""

    rewards: torch.Tensor
    done: torch.Tensor
    scores: torch.Tensor
    cancelled: torch.Tensor


class ReferenceVecHearts:
    """``batch_size`` independent tables of ``rules``, each playing deal after deal."""

    def __init__(self, rules: Rules | str, batch_size: int, *, seed: int = 0, device: str | torch.device = "cpu"):
        self.rules = Rules.load(rules)
        self.rules_list = [self.rules]
        self.batch_size = batch_size
        self.num_players = self.rules.num_players
        self.device = torch.device(device)
        self.rules_index = torch.zeros(batch_size, dtype=torch.int64, device=self.device)
        self.generator = np.random.default_rng(seed)
        self.observation_size = OBSERVATION_SIZE
        self.tables = [SeatedTable(self.rules) for _ in range(batch_size)]
        self.seeds = [0] * batch_size
        self._bot: HeuristicBot | None = None
        for row in range(batch_size):
            self._new_deal(row)

    @property
    def generators(self) -> dict[str, Any]:
        """The random generator of new deals' seeds, by the name checkpoints store it under."""
        return {"engine": self.generator}

    @property
    def deals(self) -> list[Deal]:
        """Each table's deal in progress."""
        return [table.deal for table in self.tables]  # type: ignore[misc]

    def _new_deal(self, row: int, seed: int | None = None) -> None:
        self.seeds[row] = int(self.generator.integers(2**62)) if seed is None else seed
        self.tables[row].start(deal_for_seed(self.rules, self.seeds[row]))

    def load_seeded(self, rows: Sequence[int], seeds: Sequence[int]) -> None:
        """Start ``rows`` on the deals of ``seeds`` (the tournaments' deals)."""
        for row, seed in zip(rows, seeds, strict=True):
            self._new_deal(int(row), int(seed))

    # ---- what the seats see
    @property
    def current_player(self) -> torch.Tensor:
        return torch.tensor([t.current_player for t in self.tables], dtype=torch.int64, device=self.device)

    def legal_mask(self) -> torch.Tensor:
        masks = np.stack([mask_array(t.deal.legal_mask()) for t in self.tables])  # type: ignore[union-attr]
        return torch.from_numpy(masks.astype(bool)).to(self.device)

    def observe(self, out: torch.Tensor | None = None) -> torch.Tensor:
        obs = torch.from_numpy(np.stack([t.vector(t.current_player) for t in self.tables]))
        if out is None:
            return obs.to(self.device)
        out.copy_(obs)
        return out

    def heuristic_actions(self, rows: torch.Tensor | None = None) -> torch.Tensor:
        """The heuristic bot's choice for the seat to move in ``rows`` (all rows if ``None``)."""
        if self._bot is None:
            self._bot = HeuristicBot(self.rules)
        chosen = range(self.batch_size) if rows is None else rows.tolist()
        actions = [self._bot.act(self.tables[r].observation(self.tables[r].current_player)) for r in chosen]
        return torch.as_tensor(actions, dtype=torch.int64, device=self.device)

    # ---- acting
    def step(self, actions: torch.Tensor) -> VecStep:
        n, b = self.num_players, self.batch_size
        rewards = np.zeros((b, n), np.float32)
        scores = np.zeros((b, n), np.int64)
        done = np.zeros(b, bool)
        cancelled = np.zeros(b, bool)
        for row, action in enumerate(actions.tolist()):
            table = self.tables[row]
            if table.apply(int(action)):  # the engine raises IllegalActionError, naming the card and the legal ones
                deal = table.deal
                assert deal is not None
                done[row] = True
                cancelled[row] = deal.cancelled
                scores[row] = deal.scores
                rewards[row] = -np.asarray(deal.scores, np.float32)
                self._new_deal(row)
        dev = self.device
        return VecStep(
            torch.from_numpy(rewards).to(dev),
            torch.from_numpy(done).to(dev),
            torch.from_numpy(scores).to(dev),
            torch.from_numpy(cancelled).to(dev),
        )

    # ---- checkpoints: plain data, replayed on load
    def state_dict(self) -> dict[str, Any]:
        return {"seeds": list(self.seeds), "actions": [list(d.actions) for d in self.deals]}

    def load_state_dict(self, state: dict[str, Any]) -> None:
        for row, (seed, actions) in enumerate(zip(state["seeds"], state["actions"], strict=True)):
            self._new_deal(row, int(seed))
            for action in actions:
                self.tables[row].apply(int(action))
