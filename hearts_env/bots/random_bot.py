"""The random bot: a uniform choice among the legal actions of the mask."""

from __future__ import annotations

import random
from collections.abc import Mapping

import numpy as np


class RandomBot:
    """Uniform over the mask; ``seed`` (or ``reset(seed)``) makes its choices repeatable."""

    def __init__(self, seed: int | None = None) -> None:
        self._rng = random.Random(seed)

    def reset(self, seed: int | None = None) -> None:
        self._rng = random.Random(seed)

    def act(self, observation: Mapping[str, np.ndarray]) -> int:
        legal = np.flatnonzero(observation["action_mask"])
        if legal.size == 0:
            raise ValueError("no legal action: this observation is not for the seat to move")
        return int(legal[self._rng.randrange(legal.size)])


__all__ = ["RandomBot"]
