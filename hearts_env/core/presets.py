"""The named presets of RULES.md §5, as option overrides on top of the defaults.

Each preset names its parent (``base``) the way RULES.md's YAML merges (``<<:``) do, so a change
to ``standard`` reaches every preset built on it.
"""

from __future__ import annotations

from typing import Any

from .errors import RulesError, brief

_PRESETS: dict[str, dict[str, Any]] = {
    "standard": {
        "description": "US Hearts, 4 players: pass L/R/A/hold, 2C leads, hearts must be broken, moon -26",
        "num_players": 4,
        "pass_count": 3,
        "pass_cycle": ["left", "right", "across", "hold"],
        "first_lead": "opening_card_must_be_led",
        "hearts_must_be_broken": True,
        "queen_breaks_hearts": False,
        "no_points_on_first_trick": False,
        "queen_must_be_played_when_safe": False,
        "queen_of_spades_points": 13,
        "bonus_card": "none",
        "moon_enabled": True,
        "moon_mode": "subtract_from_shooter",
        "moon_value": 26,
        "game_end_threshold": 100,
        "tie_for_lowest": "shared",
    },
    "pagat_main": {
        "base": "standard",
        "description": "pagat's main account: the moon shooter chooses -26 or +26 to the others",
        "moon_mode": "shooter_choice",
    },
    "microsoft": {
        "base": "standard",
        "description": "Windows Hearts: no points on the first trick, only hearts break hearts, moon +26 to others",
        "no_points_on_first_trick": True,
        "first_trick_points_fallback": "any_card",
        "queen_breaks_hearts": False,
        "moon_mode": "add_to_others",
    },
    "openspiel_default": {
        "base": "standard",
        "description": "OpenSpiel's 'hearts' defaults: one deal, QS breaks hearts, moon +26 to others",
        "no_points_on_first_trick": True,
        "first_lead": "opening_card_must_be_led",
        "queen_breaks_hearts": True,
        "queen_and_hearts_only_may_lead_heart": False,
        "bonus_card": "none",
        "no_tricks_adjustment": 0,
        "moon_mode": "add_to_others",
        "game_end_threshold": None,
    },
    "us_older": {
        "base": "standard",
        "description": "Older American rules: always pass left, eldest leads any card, hearts led any time",
        "pass_cycle": ["left"],
        "first_lead": "eldest_any_card",
        "hearts_must_be_broken": False,
    },
    "black_lady_old": {
        "base": "us_older",
        "description": "Culbertson-era Black Lady: as us_older, and a slam scores nothing",
        "moon_mode": "cancel_deal",
    },
    "pre_black_lady": {
        "base": "us_older",
        "description": "Hearts before the Black Lady: QS worth nothing, no passing, no moon",
        "passing_enabled": False,
        "queen_of_spades_points": 0,
        "moon_enabled": False,
    },
    "omnibus": {
        "base": "standard",
        "description": "Omnibus Hearts (pagat): JD -10 scored apart, moon by the shooter's choice",
        "bonus_card": "JD",
        "bonus_card_points": -10,
        "moon_mode": "shooter_choice",
        "moon_requires_bonus_card": False,
    },
    "omnibus_hoyle": {
        "base": "standard",
        "description": "Omnibus Hearts (Bicycle/Hoyle): TD -10, the moon needs all 15 counting cards",
        "bonus_card": "TD",
        "bonus_card_points": -10,
        "moon_requires_bonus_card": True,
        "moon_mode": "subtract_from_shooter",
    },
    "source_diamond_ten": {
        "base": "standard",
        "description": "The source page's variant: TD counts -10 (the 'Jackie')",
        "bonus_card": "TD",
        "bonus_card_points": -10,
    },
    "source_heart_ace_30": {
        "base": "standard",
        "description": "The source page's variant: AH counts 5, a deal totals 30, the moon is worth 30",
        "heart_ace_points": 5,
        "moon_value": "total",
    },
    "three_player": {
        "base": "standard",
        "description": "3 players, 2D removed, 17 cards each, pass L/R/hold",
        "num_players": 3,
        "deal_remainder": "remove_cards",
        "removed_cards": ["2D"],
        "pass_cycle": ["left", "right", "hold"],
    },
    "three_player_scatter": {
        "base": "three_player",
        "description": "3 players passing 4 cards, with a scatter (2 to each opponent) in the cycle",
        "pass_count": 4,
        "pass_cycle": ["left", "right", "scatter", "hold"],
    },
    "three_player_kitty": {
        "base": "three_player",
        "description": "3 players, 17 each and a 1-card kitty to the first trick's winner",
        "deal_remainder": "kitty",  # three_player's removed_cards [2D] is inherited, and unused (RULES.md §3.1)
        "kitty_taker": "first_trick_winner",
    },
    "five_player": {
        "base": "standard",
        "description": "5 players, 2C and 2D removed (3C leads), pass L/R/hold",
        "num_players": 5,
        "removed_cards": ["2C", "2D"],
        "pass_cycle": ["left", "right", "hold"],
    },
    "five_player_long_cycle": {
        "base": "five_player",
        "description": "5 players passing L/R/2nd-left/2nd-right/hold",
        "pass_cycle": ["left", "right", "left2", "right2", "hold"],
    },
    "six_to_eight": {
        "base": "standard",
        "description": "6 players (set num_players 6..8): the removal and cycle of RULES.md §3.1/§3.3",
        "num_players": 6,
        "removed_cards": "auto",
        "pass_count": 3,
        "pass_cycle": "auto",
    },
    "spot_hearts": {
        "base": "standard",
        "description": "Spot Hearts: hearts at face value (AH 14), QS 25, the moon worth the whole total",
        "per_card_points": {"hearts": "face_value", "JH": 11, "QH": 12, "KH": 13, "AH": 14},
        "moon_value": "total",
        "queen_of_spades_points": 25,
    },
}

PRESETS: tuple[str, ...] = tuple(_PRESETS)
PRESET_DESCRIPTIONS: dict[str, str] = {name: spec["description"] for name, spec in _PRESETS.items()}


def preset_options(name: str) -> dict[str, Any]:
    """The full option overrides of a preset, its parents' included."""
    if not isinstance(name, str) or name not in _PRESETS:
        raise RulesError(None, f"unknown preset {brief(name)}; known presets: {', '.join(PRESETS)}")
    spec = dict(_PRESETS[name])
    base = spec.pop("base", None)
    spec.pop("description")
    options = preset_options(base) if base else {}
    options.update(spec)
    return options
