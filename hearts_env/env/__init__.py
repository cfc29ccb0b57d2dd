"""Hearts as reinforcement-learning environments.

- ``hearts_env.env(**options)``: the PettingZoo AEC environment with the standard wrappers
  (documentation: ``hearts_env.env.aec``); ``hearts_env.raw_env``: the bare one.
- ``hearts_env.env.encoding``: the observation vector (``ENCODING_VERSION``, the segment table,
  ``decode_observation``).
- ``hearts_env.env.gym_env.HeartsGymEnv``: one learning seat, the others played by bots
  (``gymnasium.make("hearts_env/Hearts-v0")``).

This package is itself callable: ``hearts_env.env(...)`` is ``hearts_env.env.aec.env(...)``.
(The name ``hearts_env.env`` is both PettingZoo's conventional factory and this subpackage; a
callable module keeps both working whatever is imported first.) Nothing here imports PettingZoo
or Gymnasium until it is used: ``hearts_env.env.encoding`` needs only numpy.
"""

from __future__ import annotations

import importlib
import sys
import types
from typing import Any

_LAZY = {
    "raw_env": "aec",
    "wrap": "aec",
    "load_rules": "aec",
    "HeartsGymEnv": "gym_env",
    "ENCODING_VERSION": "encoding",
    "OBSERVATION_SIZE": "encoding",
    "SeatView": "encoding",
    "decode_observation": "encoding",
    "sample_rules": "rulesets",
}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{module}"), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted([*globals(), *_LAZY])


class _CallableModule(types.ModuleType):
    def __call__(self, **options: Any) -> Any:
        """``hearts_env.env.aec.env(**options)``: the wrapped AEC environment."""
        from .aec import env

        return env(**options)


sys.modules[__name__].__class__ = _CallableModule

__all__ = sorted(_LAZY)
