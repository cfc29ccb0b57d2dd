"""Many tables of the reference engine stepped together, behind the batched engine's interface.

On a small CPU the reference engine with its incremental observation encoder (a few numpy writes
per action) produces observations faster than the torch batched engine does at the batch sizes
PPO uses, so training on CPU can use this instead (``--engine reference``). It offers what
``training.ppo`` reads from ``hearts_env.batched.BatchedHearts``: ``observe``, ``legal_mask``,
``current_player``, ``step`` (returning rewards, done flags and scores per row) and a state that a
checkpoint can hold (each table's deal seed and the actions taken so far, replayed on resume).

Deals are ``training.evaluate.deal_for_seed`` deals, i.e. exactly what ``env.reset(seed=s)`` deals.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import torch

from hearts_env.core.actions import mask_array
from hearts_env.core.rules import Rules
from hearts_env.obs import OBSERVATION_SIZE, OFFSETS, ObservationEncoder
from hearts_env.tournament import deal_for_seed

_TO_MOVE_SELF = OFFSETS["to_move"]


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
        self.batch_size = batch_size
        self.num_players = self.rules.num_players
        self.device = torch.device(device)
        self.generator = np.random.default_rng(seed)
        self.observation_size = OBSERVATION_SIZE
        self.encoders = [ObservationEncoder(self.rules) for _ in range(batch_size)]
        self.deals: list[Any] = [None] * batch_size
        self.seeds = [0] * batch_size
        for row in range(batch_size):
            self._new_deal(row)

    def _new_deal(self, row: int, seed: int | None = None) -> None:
        self.seeds[row] = int(self.generator.integers(2**62)) if seed is None else seed
        deal = deal_for_seed(self.rules, self.seeds[row])
        self.deals[row] = deal
        self.encoders[row].start(deal)

    # ---- what the seats see
    @property
    def current_player(self) -> torch.Tensor:
        return torch.tensor([d.current_player for d in self.deals], dtype=torch.int64, device=self.device)

    def legal_mask(self) -> torch.Tensor:
        masks = np.stack([mask_array(d.legal_mask()) for d in self.deals])
        return torch.from_numpy(masks.astype(bool)).to(self.device)

    def observe(self, out: torch.Tensor | None = None) -> torch.Tensor:
        buf = np.empty((self.batch_size, OBSERVATION_SIZE), np.float32)
        for row, (deal, enc) in enumerate(zip(self.deals, self.encoders, strict=True)):
            seat = deal.current_player
            buf[row] = enc.buffer[seat]
            buf[row, _TO_MOVE_SELF] = 1.0  # the seat to move sees itself to move
        obs = torch.from_numpy(buf)
        if out is None:
            return obs.to(self.device)
        out.copy_(obs)
        return out

    # ---- acting
    def step(self, actions: torch.Tensor) -> VecStep:
        n, b = self.num_players, self.batch_size
        acts = actions.tolist()
        rewards = np.zeros((b, n), np.float32)
        scores = np.zeros((b, n), np.int64)
        done = np.zeros(b, bool)
        cancelled = np.zeros(b, bool)
        for row, action in enumerate(acts):
            deal = self.deals[row]
            seat, phase = deal.current_player, deal.phase
            deal.apply_action(int(action))  # raises IllegalActionError (naming the card and the legal ones)
            self.encoders[row].update(deal, seat, int(action), phase)
            if deal.is_terminal():
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
            deal, enc = self.deals[row], self.encoders[row]
            for action in actions:
                seat, phase = deal.current_player, deal.phase
                deal.apply_action(int(action))
                enc.update(deal, seat, int(action), phase)
