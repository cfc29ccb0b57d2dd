"""A bot that plays an exported model with numpy only (``make_bot("models/<name>")``)."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

import numpy as np

from ..core.rules import Rules
from ..nets.forward import NumpyPolicy
from ..nets.store import load_policy


class ModelBot:
    """An exported model as a bot: ``act(observation) -> int`` on the AEC env's observation dict.

    Greedy by default (the model's best legal action); ``greedy=False`` samples from the masked
    softmax with a generator seeded by ``seed`` (and re-seeded by ``reset(seed)``)."""

    def __init__(self, policy: NumpyPolicy, seed: int | None = None, *, greedy: bool = True, temperature: float = 1.0):
        self.policy = policy
        self.greedy = greedy
        self.temperature = temperature
        self.rng = np.random.default_rng(seed)

    @property
    def name(self) -> str:
        return str(self.policy.card.get("name", "model"))

    def reset(self, seed: int | None = None) -> None:
        self.rng = np.random.default_rng(seed)

    def act(self, observation: Mapping[str, np.ndarray]) -> int:
        return self.policy.choose(
            observation["observation"],
            observation["action_mask"],
            greedy=self.greedy,
            rng=self.rng,
            temperature=self.temperature,
        )


# ---------------------------------------------------------------------------------------------
# Loading, with every check
# ---------------------------------------------------------------------------------------------


def load_bot(
    path: str | Path,
    rules: Rules | str | Path | None = None,
    seed: int | None = None,
    *,
    greedy: bool = True,
    temperature: float = 1.0,
) -> ModelBot:
    """``make_bot("models/<name>", rules, seed)``: the checked model at ``path`` as a bot."""
    return ModelBot(load_policy(path, rules), seed, greedy=greedy, temperature=temperature)
