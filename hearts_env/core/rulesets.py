"""Random rule sets: every option of RULES.md drawn at random, always valid.

For domain randomisation (one policy for every variant: the observation has a fixed size and
carries the rules) and for fuzzing the environment::

    rules = sample_rules(random.Random(7))
    env = hearts_env.env(rules=rules)
"""

from __future__ import annotations

import random
from typing import Any

from ..core.errors import RulesError
from ..core.rules import AUTO_REMOVED_CARDS, Rules


def _pass_kinds(rng: random.Random, n: int, pass_count: int) -> list[str]:
    kinds = ["left", "right", "hold", "smoosh", "dealer_choice"]
    if n % 2 == 0:
        kinds.append("across")
    if n >= 5:
        kinds += ["left2", "right2"]
    if n >= 4:
        kinds.append(f"offset:{rng.randrange(1, n)}")
    if pass_count % (n - 1) == 0:
        kinds.append("scatter")
    return [rng.choice(kinds) for _ in range(rng.randint(1, 4))]


def sample_rule_options(rng: random.Random, num_players: int | None = None) -> dict[str, Any]:
    """The options of one random rule set (a mapping for ``Rules.from_dict``)."""
    n = num_players if num_players is not None else rng.randint(3, 8)
    kitty = 52 % n != 0 and rng.random() < 0.3
    removed = 0 if kitty else len(AUTO_REMOVED_CARDS[n])
    hand_size = (52 - removed) // n
    pass_count = rng.choice([1, 2, 3, 3, 4]) if hand_size >= 4 else 1
    if rng.random() < 0.3:  # make a scatter possible
        pass_count = (n - 1) * (1 if hand_size < 2 * (n - 1) else rng.choice([1, 2]))
    pass_count = min(pass_count, hand_size)
    bonus = rng.choice(["none", "none", "TD", "JD"])
    options: dict[str, Any] = {
        "num_players": n,
        "deal_remainder": "kitty" if kitty else "remove_cards",
        "kitty_taker": rng.choice(["first_trick_winner", "first_penalty_taker", "one_card_per_trick"]),
        "first_dealer": rng.choice(["random", rng.randrange(n)]),
        "dealer_rotation": rng.choice(["clockwise", "counterclockwise"]),
        "passing_enabled": rng.random() < 0.85,
        "pass_count": pass_count,
        "pass_cycle": _pass_kinds(rng, n, pass_count) if rng.random() < 0.8 else "auto",
        "allow_pass_through": rng.random() < 0.3,
        "pass_through_visible": rng.random() < 0.5,
        "void_deal_advances_pass_cycle": rng.random() < 0.5,
        "first_lead": rng.choice(["opening_card_must_be_led", "opening_card_holder_any_club", "eldest_any_card"]),
        "hearts_must_be_broken": rng.random() < 0.8,
        "queen_breaks_hearts": rng.random() < 0.5,
        "queen_and_hearts_only_may_lead_heart": rng.random() < 0.3,
        "all_hearts_leader_unbroken": rng.choice(["lead_heart", "void_deal", "leader_may_void"]),
        "no_points_on_first_trick": rng.random() < 0.4,
        "first_trick_points_fallback": rng.choice(["any_card", "heart_before_queen"]),
        "queen_must_be_played_when_safe": rng.random() < 0.3,
        "heart_points": rng.choice([1, 1, 1, 2]),
        "heart_ace_points": rng.choice([1, 1, 5]),
        "queen_of_spades_points": rng.choice([13, 13, 0, 25]),
        "bonus_card": bonus,
        "bonus_card_points": rng.choice([-10, -5]),
        "moon_enabled": rng.random() < 0.85,
        "moon_requires_all_tricks": rng.random() < 0.2,
        "moon_requires_bonus_card": bonus != "none" and rng.random() < 0.5,
        "moon_value": rng.choice(["total", 26, 52]),
        "moon_mode": rng.choice(
            ["subtract_from_shooter", "add_to_others", "shooter_choice", "add_unless_shooter_loses", "cancel_deal"]
        ),
        "moon_conditional_tie_counts_as_first": rng.random() < 0.5,
        "sun_enabled": rng.random() < 0.2,
        "no_tricks_adjustment": rng.choice([0, 0, -5, 50]),
        "no_tricks_adjustment_on_moon": rng.random() < 0.5,
        "game_end_threshold": rng.choice([100, 100, 50, None]),
        "tie_for_lowest": rng.choice(["shared", "play_another_deal"]),
    }
    if rng.random() < 0.15:
        options["per_card_points"] = {"hearts": "face_value", "AH": 14}
    if rng.random() < 0.2:
        options["exact_score_resets"] = rng.choice([{100: 50}, {50: 0}, {104: 0, 126: 0}])
    if rng.random() < 0.15:
        options["instant_win"] = {
            "score": 69,
            "at_deal": 5,
            "mode": rng.choice(["at_deal_exactly", "at_or_after_deal"]),
        }
    return options


def sample_rules(rng: random.Random | int | None = None, num_players: int | None = None) -> Rules:
    """A random valid ``Rules`` (``rng``: a ``random.Random`` or a seed)."""
    if not isinstance(rng, random.Random):
        rng = random.Random(rng)
    for _ in range(100):
        try:
            return Rules.from_dict(sample_rule_options(rng, num_players))
        except RulesError:
            continue
    raise RuntimeError("could not draw a valid rule set in 100 tries")


__all__ = ["sample_rule_options", "sample_rules"]
