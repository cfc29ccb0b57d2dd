"""hearts-env: the card game Hearts, every variant of RULES.md, as a reinforcement-learning environment."""

from .core import (
    NUM_ACTIONS,
    PRESET_DESCRIPTIONS,
    PRESETS,
    Deal,
    HeartsError,
    IllegalActionError,
    InvalidDealError,
    Match,
    RecordError,
    Rules,
    RulesError,
)

__version__ = "0.1.0"

__all__ = [
    "NUM_ACTIONS",
    "PRESETS",
    "PRESET_DESCRIPTIONS",
    "Deal",
    "HeartsError",
    "IllegalActionError",
    "InvalidDealError",
    "Match",
    "RecordError",
    "Rules",
    "RulesError",
    "__version__",
]
