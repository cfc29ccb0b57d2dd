"""``hearts_v1``: the versioned entry point, as in ``pettingzoo.classic`` (``from hearts_env.envs import
hearts_v1; env = hearts_v1.env()``). Import it by name to pin the environment's behaviour: a change
of behaviour gets a new module (``hearts_v2``), and this one keeps meaning what it meant. The
documentation and the version history are ``hearts_env.envs.aec``'s docstring."""

from __future__ import annotations

from typing import Any

from pettingzoo import AECEnv

from .aec import raw_env
from .wrappers import wrap


def env(illegal_reward: float | None = None, **options: Any) -> AECEnv:
    """The Hearts AEC environment with PettingZoo's standard wrappers; ``options`` as ``raw_env``."""
    return wrap(raw_env(**options), illegal_reward=illegal_reward)


__all__ = ["env", "raw_env"]
