"""hearts-env: the card game Hearts, every variant of RULES.md, as a reinforcement-learning environment."""

from __future__ import annotations

from typing import Any

from .core import (
    NUM_ACTIONS,
    PRESET_DESCRIPTIONS,
    PRESETS,
    Deal,
    EpisodeOverError,
    HeartsError,
    IllegalActionError,
    InvalidDealError,
    Match,
    NotResetError,
    RecordError,
    Rules,
    RulesError,
)
from .core.extras import MissingExtraError, missing_extra_message

__version__ = "0.2.0"

__all__ = [
    "NUM_ACTIONS",
    "PRESETS",
    "PRESET_DESCRIPTIONS",
    "Deal",
    "EpisodeOverError",
    "HeartsError",
    "IllegalActionError",
    "InvalidDealError",
    "Match",
    "NotResetError",
    "RecordError",
    "Rules",
    "RulesError",
    "__version__",
    "env",
    "raw_env",
]


# ---- the environments: PettingZoo and Gymnasium are an extra, imported only when an env is made


_ENV_EXTRA = ("pettingzoo", "gymnasium")


def _envs() -> Any:
    """``hearts_env.envs.hearts_v1``, imported on first use: without the ``env`` extra installed,
    a ``MissingExtraError`` (a ``ModuleNotFoundError``) naming the missing package and the extra."""
    try:
        from .envs import hearts_v1  # optional third-party dependencies: PettingZoo and Gymnasium
    except ModuleNotFoundError as err:
        missing = (err.name or "").split(".")[0]
        if missing in _ENV_EXTRA:
            message = missing_extra_message(missing, "env", "A Hearts environment")
            raise MissingExtraError(message, name=missing) from None
        raise
    return hearts_v1


def env(**options: Any) -> Any:
    """The PettingZoo AEC environment, latest version, with the standard wrappers
    (``hearts_env.envs.hearts_v1.env``; import that module to pin the version)."""
    return _envs().env(**options)


def raw_env(**options: Any) -> Any:
    """The bare AEC environment (``hearts_env.envs.hearts_v1.raw_env``)."""
    return _envs().raw_env(**options)
