"""The rules engine: cards, rules, a deal, a match and game records. Standard library and numpy only."""

from .actions import NUM_ACTIONS, action_name, parse_action
from .cards import card_name, card_symbol, parse_card, parse_cards
from .deal import Deal
from .errors import (
    EpisodeOverError,
    HeartsError,
    IllegalActionError,
    InvalidDealError,
    NotResetError,
    RecordError,
    RulesError,
)
from .match import Match
from .presets import PRESET_DESCRIPTIONS, PRESETS
from .record import load_record, record_of, replay_record, save_record
from .rules import InstantWin, Rules

__all__ = [
    "NUM_ACTIONS",
    "PRESETS",
    "PRESET_DESCRIPTIONS",
    "Deal",
    "EpisodeOverError",
    "HeartsError",
    "IllegalActionError",
    "InstantWin",
    "InvalidDealError",
    "Match",
    "NotResetError",
    "RecordError",
    "Rules",
    "RulesError",
    "action_name",
    "card_name",
    "card_symbol",
    "load_record",
    "parse_action",
    "parse_card",
    "parse_cards",
    "record_of",
    "replay_record",
    "save_record",
]
