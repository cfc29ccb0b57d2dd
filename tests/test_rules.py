"""The rule set: defaults (RULES.md §3), presets and rule files (§5), validation (§6), and the errors
the engine raises for bad rules, bad explicit deals and illegal actions."""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pytest

from hearts_env import (
    PRESET_DESCRIPTIONS,
    PRESETS,
    Deal,
    IllegalActionError,
    InvalidDealError,
    Match,
    Rules,
    RulesError,
)
from hearts_env.core.actions import action_name
from hearts_env.core.cards import parse_card
from hearts_env.core.rules import InstantWin

CONFIG_DIR = Path(__file__).resolve().parents[1] / "configs" / "rules"
ALL_CLUBS = [f"{rank}C" for rank in "23456789TJQKA"]

# Every option of RULES.md §3 with the default the text gives it.
SECTION_3_DEFAULTS = {
    # §3.1
    "num_players": 4,
    "deal_remainder": "remove_cards",
    "removed_cards": "auto",
    "kitty_taker": "first_trick_winner",
    # §3.2
    "first_dealer": "random",
    "dealer_rotation": "clockwise",
    # §3.3
    "passing_enabled": True,
    "pass_count": 3,
    "pass_cycle": "auto",
    "allow_pass_through": False,
    "pass_through_visible": False,
    "void_deal_advances_pass_cycle": False,
    # §3.4
    "first_lead": "opening_card_must_be_led",
    "hearts_must_be_broken": True,
    "queen_breaks_hearts": False,
    "queen_and_hearts_only_may_lead_heart": False,
    "all_hearts_leader_unbroken": "lead_heart",
    "no_points_on_first_trick": False,
    "first_trick_points_fallback": "any_card",
    "queen_must_be_played_when_safe": False,
    # §3.5
    "heart_points": 1,
    "heart_ace_points": 1,
    "queen_of_spades_points": 13,
    "bonus_card": "none",
    "bonus_card_points": -10,
    "moon_enabled": True,
    "moon_requires_all_tricks": False,
    "moon_requires_bonus_card": False,
    "moon_value": "total",
    "moon_mode": "subtract_from_shooter",
    "moon_conditional_tie_counts_as_first": False,
    "sun_enabled": False,
    "sun_value": 52,
    "no_tricks_adjustment": 0,
    "no_tricks_adjustment_on_moon": False,
    # §3.6
    "exact_score_resets": {},
    "instant_win": None,
    "game_end_threshold": 100,
    "tie_for_lowest": "shared",
}


# ---- defaults ------------------------------------------------------------------------------


def test_defaults_equal_section_3():
    """§3: "Each entry gives `name` (type, default)"; ``Rules()`` carries exactly those defaults."""
    data = Rules().to_dict()
    assert set(data) - {"per_card_points"} == set(SECTION_3_DEFAULTS)
    for name, default in SECTION_3_DEFAULTS.items():
        assert data[name] == default, name
    assert data["per_card_points"] == {}


def test_default_derived_tables():
    """§2: standard deck, 26 penalty points per deal; `moon_value` `total` "i.e. 26"; §3.3 default
    cycle for N = 4 is `[left, right, across, hold]`."""
    t = Rules().tables
    assert t.hand_size == 13
    assert t.kitty_size == 0
    assert t.penalty_total == 26
    assert t.moon_value == 26
    assert t.pass_cycle == ("left", "right", "across", "hold")


@pytest.mark.parametrize(
    ("n", "removed", "hand", "cycle"),
    [
        (3, ["2D"], 17, ("left", "right", "hold")),
        (4, [], 13, ("left", "right", "across", "hold")),
        (5, ["2C", "2D"], 10, ("left", "right", "hold")),
        (6, ["2C", "2D", "3C", "3D"], 8, ("left", "right", "across", "hold")),
        (7, ["2C", "2D", "3C"], 7, ("left", "right", "hold")),
        (8, ["2C", "2D", "3C", "3D"], 6, ("left", "right", "across", "hold")),
    ],
)
def test_auto_removal_and_default_cycle_per_player_count(n, removed, hand, cycle):
    """§3.1 auto table (N → removal, hand size) and §3.3 default cycles (across only for even N)."""
    t = Rules(num_players=n).tables
    assert t.removed_mask == sum(1 << parse_card(c) for c in removed)
    assert t.hand_size == hand
    assert t.kitty_size == 0
    assert t.pass_cycle == cycle


@pytest.mark.parametrize(("n", "hand", "kitty"), [(3, 17, 1), (5, 10, 2), (6, 8, 4), (7, 7, 3), (8, 6, 4)])
def test_kitty_sizes(n, hand, kitty):
    """§3.1 `kitty`: "deal ⌊52/N⌋ cards to each player. The remaining r cards … lie face down as a kitty"."""
    t = Rules(num_players=n, deal_remainder="kitty").tables
    assert (t.hand_size, t.kitty_size) == (hand, kitty)


# ---- presets and rule files ------------------------------------------------------------------

ALL_PRESETS = [
    "standard",
    "pagat_main",
    "microsoft",
    "openspiel_default",
    "us_older",
    "black_lady_old",
    "pre_black_lady",
    "omnibus",
    "omnibus_hoyle",
    "source_diamond_ten",
    "source_heart_ace_30",
    "three_player",
    "three_player_scatter",
    "three_player_kitty",
    "five_player",
    "five_player_long_cycle",
    "six_to_eight",
    "spot_hearts",
]


def test_every_section_5_preset_exists():
    """§5 "Named presets": every preset named there is available, each with a description."""
    assert sorted(PRESETS) == sorted(ALL_PRESETS)
    assert all(PRESET_DESCRIPTIONS[name] for name in PRESETS)


@pytest.mark.parametrize("name", ALL_PRESETS)
def test_preset_equals_its_rule_file(name):
    """Each preset loads, and equals its configs/rules/<name>.toml file read with ``Rules.from_file``."""
    assert Rules.preset(name) == Rules.from_file(CONFIG_DIR / f"{name}.toml")
    assert Rules.load(name) == Rules.preset(name)
    assert Rules.load(str(CONFIG_DIR / f"{name}.toml")) == Rules.preset(name)


@pytest.mark.parametrize("name", ALL_PRESETS)
def test_preset_round_trips(name):
    """A rule set survives ``to_dict``/``from_dict`` and ``to_toml``/``from_toml`` unchanged."""
    rules = Rules.preset(name)
    assert Rules.from_dict(rules.to_dict()) == rules
    assert Rules.from_toml(rules.to_toml()) == rules
    assert hash(Rules.from_toml(rules.to_toml())) == hash(rules)


def test_round_trip_of_non_default_tables():
    """Maps and objects (`exact_score_resets`, `instant_win`, `per_card_points`) and `null`
    (`game_end_threshold`) survive both serialisations."""
    rules = Rules(
        exact_score_resets={100: 50, 50: 0},
        instant_win={"score": 69, "at_deal": 5, "mode": "at_or_after_deal"},
        per_card_points={"spades": 1, "AS": 7},
        game_end_threshold=None,
        first_dealer=2,
        removed_cards=["2C", "2D", "3C", "3D"],
    )
    assert Rules.from_dict(rules.to_dict()) == rules
    assert Rules.from_toml(rules.to_toml()) == rules
    assert rules.instant_win == InstantWin(69, 5, "at_or_after_deal")
    assert dict(rules.exact_score_resets) == {100: 50, 50: 0}


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("standard", {"moon_value": 26, "pass_cycle": ("left", "right", "across", "hold")}),
        ("pagat_main", {"moon_mode": "shooter_choice"}),
        (
            "microsoft",
            {"no_points_on_first_trick": True, "queen_breaks_hearts": False, "moon_mode": "add_to_others"},
        ),
        (
            "openspiel_default",
            {
                "no_points_on_first_trick": True,
                "queen_breaks_hearts": True,
                "moon_mode": "add_to_others",
                "game_end_threshold": None,
            },
        ),
        ("us_older", {"pass_cycle": ("left",), "first_lead": "eldest_any_card", "hearts_must_be_broken": False}),
        ("black_lady_old", {"first_lead": "eldest_any_card", "moon_mode": "cancel_deal"}),
        (
            "pre_black_lady",
            {"passing_enabled": False, "queen_of_spades_points": 0, "moon_enabled": False, "pass_cycle": ("left",)},
        ),
        ("omnibus", {"bonus_card": "JD", "moon_mode": "shooter_choice", "moon_requires_bonus_card": False}),
        ("omnibus_hoyle", {"bonus_card": "TD", "moon_requires_bonus_card": True}),
        ("source_diamond_ten", {"bonus_card": "TD", "bonus_card_points": -10}),
        ("source_heart_ace_30", {"heart_ace_points": 5, "moon_value": "total"}),
        ("three_player", {"num_players": 3, "removed_cards": ("2D",), "pass_cycle": ("left", "right", "hold")}),
        ("three_player_scatter", {"pass_count": 4, "pass_cycle": ("left", "right", "scatter", "hold")}),
        ("three_player_kitty", {"num_players": 3, "deal_remainder": "kitty"}),
        ("five_player", {"num_players": 5, "removed_cards": ("2C", "2D")}),
        ("five_player_long_cycle", {"pass_cycle": ("left", "right", "left2", "right2", "hold")}),
        ("six_to_eight", {"num_players": 6, "removed_cards": "auto", "pass_cycle": "auto"}),
        ("spot_hearts", {"queen_of_spades_points": 25, "moon_value": "total"}),
    ],
)
def test_preset_values_match_section_5(name, expected):
    """§5 YAML: each preset's listed options, on top of the §3 defaults."""
    rules = Rules.preset(name)
    for option, value in expected.items():
        assert getattr(rules, option) == value, option


def test_preset_derived_totals():
    """§3.5: "`penalty_total` … 26 standard, 30 with ♥A = 5, 13 pre-Black-Lady"; §3.1 kitty of 1 for
    `three_player_kitty` ("17 each, 1 card kitty")."""
    assert Rules.preset("standard").tables.penalty_total == 26
    assert Rules.preset("source_heart_ace_30").tables.penalty_total == 30
    assert Rules.preset("source_heart_ace_30").tables.moon_value == 30
    assert Rules.preset("pre_black_lady").tables.penalty_total == 13
    spot = Rules.preset("spot_hearts").tables
    assert spot.penalty_total == sum(range(2, 15)) + 25
    kitty = Rules.preset("three_player_kitty").tables
    assert (kitty.hand_size, kitty.kitty_size) == (17, 1)


def test_preset_with_overrides():
    """``Rules.preset(name, **overrides)``: a preset with options changed."""
    rules = Rules.preset("omnibus", num_players=5, moon_mode="add_to_others")
    assert rules.num_players == 5
    assert rules.moon_mode == "add_to_others"
    assert rules.bonus_card == "JD"
    assert rules.tables.hand_size == 10
    assert rules.pass_cycle == ("left", "right", "hold")  # §3.3: across only for an even N
    assert Rules.preset("standard", num_players=4) == Rules.preset("standard")
    assert Rules.preset("standard", num_players=6).pass_cycle == ("left", "right", "across", "hold")
    assert Rules.preset("us_older", num_players=5).pass_cycle == ("left",)  # not a default cycle: kept
    with pytest.raises(RulesError) as info:
        Rules.preset("standard", num_players="5")
    assert info.value.option == "num_players"
    seven = Rules.preset("six_to_eight", num_players=7)
    assert seven.tables.hand_size == 7
    assert seven.tables.pass_cycle == ("left", "right", "hold")


def test_from_dict_with_base_preset():
    """A rule file may start from a preset (`preset = "…"`) and override options, as ``Rules.preset``
    does: the preset's default pass cycle follows an overridden player count."""
    rules = Rules.from_toml('preset = "omnibus_hoyle"\nmoon_mode = "add_to_others"\n')
    assert rules == Rules.preset("omnibus_hoyle", moon_mode="add_to_others")
    three = Rules.from_toml('preset = "standard"\nnum_players = 3\n')
    assert three == Rules.preset("standard", num_players=3)
    assert "across" not in three.tables.pass_cycle


def test_clubs_may_all_go_when_the_eldest_opens_with_any_card():
    """The opening-club check applies only where a club opens the first trick (RULES.md §3.1, §3.4.1)."""
    rules = Rules(num_players=3, removed_cards=ALL_CLUBS, first_lead="eldest_any_card")
    assert rules.tables.lowest_club == -1 and rules.tables.hand_size == 13


def test_replace_keeps_other_options():
    """``Rules.replace`` changes the named options only."""
    rules = Rules.preset("microsoft").replace(sun_enabled=True)
    assert rules.sun_enabled is True
    assert rules.no_points_on_first_trick is True


def test_unknown_preset_lists_known_presets():
    """An unknown preset name is an error that lists the known presets (no option to blame)."""
    with pytest.raises(RulesError) as info:
        Rules.preset("no_such_preset")
    assert info.value.option is None
    assert "unknown preset" in str(info.value)
    for name in ALL_PRESETS:
        assert name in str(info.value)


# ---- validation (§6) and bad input -------------------------------------------------------------


def _rules_error(**options) -> RulesError:
    with pytest.raises(RulesError) as info:
        Rules(**options)
    return info.value


@pytest.mark.parametrize(
    ("options", "option", "reason"),
    [
        # §6: "`across` requires an even N."
        ({"num_players": 3, "pass_cycle": ["left", "across"]}, "pass_cycle", "even number of players"),
        ({"num_players": 5, "pass_cycle": ["across"]}, "pass_cycle", "even number of players"),
        # §3.3: "`left2`, `right2`: Seats p+2 and p−2 (for N ≥ 5)."
        ({"num_players": 4, "pass_cycle": ["left2"]}, "pass_cycle", "at least 5 players"),
        ({"num_players": 3, "pass_cycle": ["right2"]}, "pass_cycle", "at least 5 players"),
        # §6: "`offset:k` must not point at the passer themselves."
        ({"pass_cycle": ["offset:0"]}, "pass_cycle", "must point at another seat"),
        ({"pass_cycle": ["offset:4"]}, "pass_cycle", "must point at another seat"),
        ({"pass_cycle": ["offset:-1"]}, "pass_cycle", "must point at another seat"),
        ({"pass_cycle": ["offset:x"]}, "pass_cycle", "whole number"),
        ({"pass_cycle": ["sideways"]}, "pass_cycle", "not a pass kind"),
        ({"pass_cycle": []}, "pass_cycle", "non-empty"),
        # §6: "`scatter` requires `pass_count mod (N−1) == 0`."
        ({"pass_count": 2, "pass_cycle": ["scatter"]}, "pass_cycle", "divisible by 3"),
        ({"num_players": 3, "pass_count": 3, "pass_cycle": ["scatter"]}, "pass_cycle", "divisible by 2"),
        # §6: "`removed_cards` must not contain hearts, ♠Q or the bonus card."
        ({"num_players": 3, "removed_cards": ["2H"]}, "removed_cards", "never removed"),
        ({"num_players": 3, "removed_cards": ["QS"]}, "removed_cards", "never removed"),
        ({"num_players": 3, "removed_cards": ["TD"], "bonus_card": "TD"}, "removed_cards", "bonus card"),
        ({"num_players": 5, "bonus_card": "2D"}, "removed_cards", "bonus card"),
        # §6: "`(52 − |removed_cards|) mod N == 0` unless `deal_remainder = kitty`."
        ({"num_players": 3, "removed_cards": []}, "removed_cards", "cannot share evenly"),
        ({"num_players": 5, "removed_cards": ["2C"]}, "removed_cards", "cannot share evenly"),
        ({"removed_cards": ["2C", "2C", "2D", "3D"]}, "removed_cards", "twice"),
        # §3.1: cards that score are never removed (per_card_points generalises the bonus card)
        ({"num_players": 3, "per_card_points": {"2D": -10}}, "removed_cards", "2D scores -10"),
        ({"num_players": 5, "removed_cards": ["2C", "5S"], "per_card_points": {"5S": 5}}, "removed_cards", "scores 5"),
        # §3.1: the first trick opens with the lowest club a player holds, so one must stay in the hands
        ({"num_players": 3, "removed_cards": ALL_CLUBS}, "removed_cards", "leaves no clubs"),
        ({"removed_cards": ["XX"]}, "removed_cards", "not a card"),
        ({"removed_cards": "2C"}, "removed_cards", "list of cards"),
        # §6: "Every hand must hold at least `pass_count` cards."
        ({"num_players": 8, "pass_count": 7}, "pass_count", "more than the 6 cards"),
        ({"pass_count": 14}, "pass_count", "more than the 13 cards"),
        ({"pass_count": 0}, "pass_count", "at least 1"),
        # ranges and enumerations of §3
        ({"num_players": 2}, "num_players", "3..8"),
        ({"num_players": 9}, "num_players", "3..8"),
        ({"first_dealer": 4}, "first_dealer", "seat 0..3"),
        ({"first_dealer": "left"}, "first_dealer", "random"),
        ({"moon_mode": "subtract"}, "moon_mode", "not one of"),
        ({"first_lead": "any"}, "first_lead", "not one of"),
        ({"deal_remainder": "discard"}, "deal_remainder", "not one of"),
        ({"kitty_taker": "dealer"}, "kitty_taker", "not one of"),
        ({"dealer_rotation": "left"}, "dealer_rotation", "not one of"),
        ({"all_hearts_leader_unbroken": "void"}, "all_hearts_leader_unbroken", "not one of"),
        ({"first_trick_points_fallback": "queen"}, "first_trick_points_fallback", "not one of"),
        ({"tie_for_lowest": "dealer"}, "tie_for_lowest", "not one of"),
        ({"bonus_card": "QS"}, "bonus_card", "already a penalty card"),
        ({"bonus_card": "AH"}, "bonus_card", "already a penalty card"),
        ({"bonus_card": "ZZ"}, "bonus_card", "not a card"),
        ({"moon_requires_bonus_card": True}, "moon_requires_bonus_card", "no bonus card"),
        ({"moon_value": "all"}, "moon_value", "'total' or a whole number"),
        ({"game_end_threshold": 0}, "game_end_threshold", "positive"),
        ({"instant_win": {"score": 69, "at_deal": 0}}, "instant_win", "at_deal"),
        ({"instant_win": {"score": 69, "at_deal": 5, "mode": "later"}}, "instant_win", "mode"),
        ({"instant_win": {"score": 69, "deal": 5}}, "instant_win", "unknown keys"),
        ({"exact_score_resets": {"x": 0}}, "exact_score_resets", "whole number"),
        ({"exact_score_resets": {100: "fifty"}}, "exact_score_resets", "whole number"),
        ({"per_card_points": {"XX": 3}}, "per_card_points", "neither a card"),
        ({"per_card_points": {"AS": "seven"}}, "per_card_points", "whole number"),
    ],
)
def test_invalid_rules_name_option_and_reason(options, option, reason):
    """§6 "Validation rules and conflicts": each invalid rule set raises ``RulesError`` whose
    ``.option`` is the offending option and whose message gives the reason."""
    err = _rules_error(**options)
    assert err.option == option
    assert reason in str(err)
    assert str(err).startswith(f"{option}: ")


@pytest.mark.parametrize(
    ("option", "value"),
    [
        ("num_players", "4"),
        ("num_players", 4.0),
        ("pass_count", True),
        ("hearts_must_be_broken", "yes"),
        ("hearts_must_be_broken", 1),
        ("moon_enabled", None),
        ("heart_points", 1.5),
        ("queen_of_spades_points", "13"),
        ("sun_value", False),
        ("no_tricks_adjustment", "-5"),
    ],
)
def test_wrong_type(option, value):
    """Options have the types §3 gives them; a wrong type names the option and what it must be."""
    err = _rules_error(**{option: value})
    assert err.option == option
    assert "must be" in str(err)


def test_unknown_option():
    """An option §3 does not define is rejected by name, with the known options listed."""
    with pytest.raises(RulesError) as info:
        Rules.from_dict({"num_players": 4, "moon_shot_value": 26})
    assert info.value.option == "moon_shot_value"
    assert "unknown option" in str(info.value)
    assert "moon_value" in str(info.value)
    with pytest.raises(RulesError) as info:
        Rules.preset("standard", queen_breaks_heart=True)
    assert info.value.option == "queen_breaks_heart"


def test_bad_toml_and_missing_file(tmp_path):
    """A rule file that is not TOML, or cannot be read, is a ``RulesError`` saying so; an invalid
    option inside a file names the option and the file."""
    with pytest.raises(RulesError, match="not a valid TOML"):
        Rules.from_toml("num_players = = 4")
    with pytest.raises(RulesError, match="cannot read rule file"):
        Rules.from_file(tmp_path / "missing.toml")
    bad = tmp_path / "bad.toml"
    bad.write_text('num_players = 3\npass_cycle = ["across"]\n', encoding="utf-8")
    with pytest.raises(RulesError) as info:
        Rules.from_file(bad)
    assert info.value.option == "pass_cycle"
    assert "bad.toml" in str(info.value)


def test_valid_edge_cases_are_accepted():
    """§6 allows: `across` for even N; `left2`/`right2` and any `offset:k` (1..N−1) for N ≥ 5;
    `scatter` when N−1 divides `pass_count`; uneven removal with `kitty`; the bonus card elsewhere."""
    assert Rules(num_players=6, pass_cycle=["across", "left2", "right2", "offset:3"]).tables.pass_cycle == (
        "across",
        "left2",
        "right2",
        "across",
    )
    assert Rules(num_players=7, pass_cycle=["offset:3"]).tables.pass_cycle == ("offset:3",)
    assert Rules(num_players=4, pass_cycle=["offset:1", "offset:3", "offset:2"]).tables.pass_cycle == (
        "left",
        "right",
        "across",
    )
    assert Rules(num_players=3, pass_count=4, pass_cycle=["scatter"]).tables.pass_cycle == ("scatter",)
    # §3.1 [ENGINE, clarified]: with `kitty` nothing is removed, whatever `removed_cards` says
    assert Rules(num_players=5, removed_cards=["2C"], deal_remainder="kitty").tables.kitty_size == 2
    assert Rules(num_players=3, deal_remainder="kitty", removed_cards=ALL_CLUBS[:11]).tables.kitty_size == 1
    assert Rules(num_players=5, bonus_card="TD").tables.card_values[parse_card("TD")] == -10
    # `queen_breaks_hearts` with a worthless queen is "mechanically harmless" and allowed (§6)
    harmless = Rules(queen_of_spades_points=0, queen_breaks_hearts=True, queen_must_be_played_when_safe=True)
    assert harmless.tables.penalty_total == 13


# ---- InvalidDealError: bad explicit hands ----------------------------------------------------------

SUITS = "CDSH"
RANKS = "23456789TJQKA"


def _suit(s: str) -> list[str]:
    return [r + s for r in RANKS]


def _four_suits() -> list[list[str]]:
    return [_suit(s) for s in SUITS]


def test_explicit_hands_are_accepted():
    """A valid explicit deal: the hands are held as given."""
    deal = Deal(Rules(), hands=_four_suits(), dealer=0, pass_kind="hold")
    assert deal.hands[3] == sum(1 << parse_card(c) for c in _suit("H"))


@pytest.mark.parametrize(
    ("hands", "kitty", "rules", "message"),
    [
        (_four_suits()[:3], None, Rules(), "3 hands given for 4 players"),
        ([*_four_suits()[:3], _suit("H")[:12]], None, Rules(), "seat 3 holds 12 cards"),
        ([_suit("C"), _suit("C"), _suit("S"), _suit("H")], None, Rules(), "dealt twice"),
        ([*_four_suits()[:3], [*_suit("H")[:12], "XX"]], None, Rules(), "'XX' is not a card"),
        ([*_four_suits()[:3], [*_suit("H")[:12], 52]], None, Rules(), "52 is not a card"),
        # three players with 2D removed: 17 each; a hand may not hold the removed card
        (
            [[*_suit("C"), "2D", "3D", "4D", "5D"], [*_suit("D")[4:], "2S", "3S", "4S", "5S"], [*_suit("S")[4:], "AH"]],
            None,
            Rules(num_players=3),
            "2D is removed",
        ),
        # kitty rules: the kitty must be exactly the undealt cards
        (
            [_suit("C") + _suit("D")[:4], _suit("D")[4:] + _suit("S")[:8], _suit("S")[8:] + _suit("H")[:12]],
            ["2H"],
            Rules(num_players=3, deal_remainder="kitty"),
            "the kitty must be exactly the undealt cards AH",
        ),
    ],
)
def test_bad_explicit_hands(hands, kitty, rules, message):
    """Explicit hands that are not a valid deal for the rule set raise ``InvalidDealError``."""
    with pytest.raises(InvalidDealError, match=message):
        Deal(rules, hands=hands, kitty=kitty, dealer=0, pass_kind="hold")


def test_bad_deal_parameters():
    """The dealer must be a seat, totals one per seat, the pass kind possible under the rules, and a
    kitty comes only with explicit hands."""
    with pytest.raises(InvalidDealError, match="dealer"):
        Deal(Rules(), dealer=4)
    with pytest.raises(InvalidDealError, match="totals"):
        Deal(Rules(), totals=[0, 0, 0])
    with pytest.raises(InvalidDealError, match="even number"):
        Deal(Rules(num_players=5), pass_kind="across")
    with pytest.raises(InvalidDealError, match="passing is disabled"):
        Deal(Rules(passing_enabled=False), pass_kind="left")
    with pytest.raises(InvalidDealError, match="kitty"):
        Deal(Rules(num_players=3, deal_remainder="kitty"), kitty=["2C"])


# ---- IllegalActionError ----------------------------------------------------------------------------


def test_illegal_card_names_card_and_legal_ones_and_leaves_state_unchanged():
    """ "An illegal action raises ``IllegalActionError`` naming it and the legal ones, and leaves the
    state unchanged": ♣2 must be led (§3.4.1), so leading ♣3 is refused."""
    deal = Deal(Rules(), hands=_four_suits(), dealer=3, pass_kind="hold")
    legal_before = deal.legal_actions()
    hands_before = list(deal.hands)
    player_before = deal.current_player
    with pytest.raises(IllegalActionError) as info:
        deal.apply_action(parse_card("3C"))
    message = str(info.value)
    assert "3C" in message
    assert "legal: 2C" in message
    assert info.value.action == parse_card("3C")
    assert info.value.legal == [parse_card("2C")]
    assert deal.legal_actions() == legal_before
    assert deal.hands == hands_before
    assert deal.current_player == player_before
    assert deal.actions == []
    deal.apply_action(parse_card("2C"))  # the deal goes on normally afterwards
    assert deal.trick == [parse_card("2C")]


def test_illegal_follow_lists_the_legal_cards():
    """Following suit is compulsory: a player holding spades may not discard on a spade lead."""
    rules = Rules(first_lead="eldest_any_card", hearts_must_be_broken=False)
    hands = [_suit("S")[:7] + _suit("C")[:6], _suit("S")[7:] + _suit("C")[6:], _suit("D"), _suit("H")]
    deal = Deal(rules, hands=hands, dealer=3, pass_kind="hold")
    deal.apply_action(parse_card("2S"))
    legal_before = deal.legal_actions()
    hands_before = list(deal.hands)
    with pytest.raises(IllegalActionError) as info:
        deal.apply_action(parse_card("8C"))
    assert "8C" in str(info.value)
    assert " ".join(action_name(a) for a in legal_before) in str(info.value)
    assert deal.legal_actions() == legal_before
    assert deal.hands == hands_before
    assert deal.trick == [parse_card("2S")]


@pytest.mark.parametrize("action", [-1, 68, 1000, "2C", None])
def test_non_actions_are_refused(action):
    """Values outside the action space are refused the same way, with the state unchanged."""
    deal = Deal(Rules(), hands=_four_suits(), dealer=3, pass_kind="hold")
    with pytest.raises(IllegalActionError, match="legal: 2C"):
        deal.apply_action(action)
    assert deal.legal_actions() == [parse_card("2C")]


def test_action_after_the_end_is_refused():
    """No action is legal once the deal is over."""
    deal = Deal(Rules(), hands=_four_suits(), dealer=3, pass_kind="hold")
    while not deal.is_terminal():
        deal.apply_action(deal.legal_actions()[0])
    assert deal.legal_actions() == []
    with pytest.raises(IllegalActionError, match="the deal is over"):
        deal.apply_action(parse_card("2C"))


def test_dealer_choice_is_refused_when_passing_is_disabled():
    """§3.3 `passing_enabled = false`: no passing at all, so no dealer may announce a pass either."""
    rules = Rules(passing_enabled=False)
    with pytest.raises(InvalidDealError, match="passing is disabled"):
        Deal(rules, seed=1, pass_kind="dealer_choice")


def test_an_unknown_keyword_is_a_rules_error_naming_it():
    with pytest.raises(RulesError) as err:
        Rules(bogus=1)
    assert err.value.option == "bogus"


@pytest.mark.parametrize("action", [True, "QS", 1.5, None])
def test_an_action_that_is_not_an_integer_is_refused_and_nothing_changes(action):
    deal = Deal(Rules(), seed=1)
    before = (deal.legal_actions(), list(deal.hands), list(deal.actions))
    with pytest.raises(IllegalActionError, match="actions are integers"):
        deal.apply_action(action)
    assert (deal.legal_actions(), list(deal.hands), list(deal.actions)) == before


# ---- actions that are not integers: the one check, hearts_env.core.actions.as_action ----------------


def _not_actions() -> list:
    legal = parse_card("2C")
    values = [
        np.array([legal]),
        np.array([[legal]]),
        np.array([legal, legal]),
        np.array(float(legal)),
        np.float64(legal),
        True,
        False,
        float(legal),
        "2C",
        str(legal),
        None,
        [legal],
    ]
    try:
        import torch
    except ImportError:  # torch is optional: only the tensor case is skipped
        return values
    return [*values, torch.tensor([legal]), torch.tensor(legal)]


@pytest.mark.parametrize("action", _not_actions(), ids=lambda a: f"{type(a).__name__}:{a!r}"[:40])
@pytest.mark.parametrize("game", ["deal", "match"])
def test_shaped_arrays_bools_floats_strings_and_tensors_are_not_actions(action, game):
    """`Deal.apply_action` and `Match.apply_action` take an integer (a Python int, a numpy integer, a 0-d
    integer array); anything else, even holding the one legal action, raises ``IllegalActionError``
    naming the value and listing the legal actions, and leaves the game unchanged."""
    rules = Rules(passing_enabled=False, first_dealer=3)
    hands = _four_suits()
    play = Deal(rules, hands=hands, dealer=3, pass_kind="hold") if game == "deal" else Match(rules, seed=1)
    if game == "match":
        play._script.insert(0, {"hands": hands})
        play.deal = play._new_deal()
    deal = play if game == "deal" else play.deal
    before = (play.legal_actions(), list(deal.hands), list(deal.actions), deal.current_player, deal.phase)
    assert before[0] == [parse_card("2C")]
    with pytest.raises(IllegalActionError) as info:
        play.apply_action(action)
    message = str(info.value)
    assert "actions are integers" in message and "legal: 2C (0)" in message
    assert type(action).__name__ in message
    assert info.value.legal == [parse_card("2C")]
    assert (play.legal_actions(), list(deal.hands), list(deal.actions), deal.current_player, deal.phase) == before
    play.apply_action(np.array(parse_card("2C")))  # a 0-d integer array is an action
    assert deal.trick == [parse_card("2C")]


# ---- hostile rules: one line naming the problem, never a traceback or a huge message -------------------


def test_exact_score_resets_must_be_a_table():
    """§3.6 `exact_score_resets` is a "map int → int": anything else is refused by name."""
    for value in ("x", 5, [1, 2], [[100]], [[100, 50, 0]], {"one hundred": 50}, {100: 50.5}, {True: 0}):
        with pytest.raises(RulesError) as info:
            Rules(exact_score_resets=value)
        assert info.value.option == "exact_score_resets"
    with pytest.raises(RulesError, match="twice"):
        Rules(exact_score_resets=[[100, 50], [100, 0]])


def test_exact_score_resets_as_pairs_is_the_same_hashable_rule_set(tmp_path):
    """Written as an array of pairs (``exact_score_resets = [[100, 50]]``) the rule set is the table's: it
    hashes (environments cache per rule set) and equals ``{100 = 50}``."""
    pairs = Rules.from_toml("exact_score_resets = [[100, 50], [50, 0]]")
    table = Rules.from_toml('[exact_score_resets]\n100 = 50\n"50" = 0\n')
    assert pairs == table == Rules(exact_score_resets={50: 0, 100: 50})
    assert hash(pairs) == hash(table)
    assert {pairs: 1}[table] == 1
    assert pairs.tables.resets == {100: 50, 50: 0}
    path = tmp_path / "pairs.toml"
    path.write_text("exact_score_resets = [[100, 50]]\n", encoding="utf-8")
    assert hash(Rules.load(str(path))) == hash(Rules(exact_score_resets={100: 50}))


def test_every_validated_rule_set_hashes():
    """Whatever a field was given as, a ``Rules`` that validates is hashable, or it is refused by name."""
    for name, value in [("removed_cards", [["2C"]]), ("pass_cycle", [["left"]]), ("per_card_points", {"AS": [1]})]:
        with pytest.raises(RulesError) as info:
            Rules(**{name: value})
        assert info.value.option == name
    hash(Rules(removed_cards=["2C", "2D", "3C", "3D"], pass_cycle=["left"], per_card_points=[["AS", 2]]))


@pytest.mark.parametrize("text", ['preset = ["standard"]', "preset = 3", "preset = {a = 1}", "preset = true"])
def test_preset_must_be_a_name(text):
    """``preset = [...]`` in a rule file is refused naming ``preset``."""
    with pytest.raises(RulesError) as info:
        Rules.from_toml(text)
    assert info.value.option == "preset"
    assert "name of a preset" in str(info.value)
    with pytest.raises(RulesError, match="unknown preset"):
        Rules.preset(["standard"])


def test_rule_file_that_is_not_utf8(tmp_path):
    path = tmp_path / "latin1.toml"
    path.write_bytes(b"num_players = 3\n# caf\xe9\n\xff\xfe\n")
    with pytest.raises(RulesError, match=r"not UTF-8 text: byte 0xe9 at offset 21"):
        Rules.from_file(path)
    with pytest.raises(RulesError, match="not UTF-8"):
        Rules.load(str(path))


def test_rule_files_must_be_regular_files_of_bounded_size(tmp_path):
    """A FIFO (which would block), a device (``/dev/zero``: endless) or a directory is refused unread."""
    with pytest.raises(RulesError, match="not a regular file"):
        Rules.from_file(tmp_path)
    if Path("/dev/zero").exists():
        with pytest.raises(RulesError, match="not a regular file"):
            Rules.from_file("/dev/zero")
    if hasattr(os, "mkfifo"):
        fifo = tmp_path / "rules.toml"
        os.mkfifo(fifo)
        with pytest.raises(RulesError, match="not a regular file"):
            Rules.from_file(fifo)
    big = tmp_path / "big.toml"
    big.write_bytes(b"# " + b"x" * (2 << 20) + b"\n")
    with pytest.raises(RulesError, match="more than the"):
        Rules.from_file(big)


@pytest.mark.parametrize(
    "text",
    ["x = " + "[" * 100_000 + "]" * 100_000, "a" + ".a" * 100_000 + " = 1", "x = " + "{a = " * 3000 + "1" + "}" * 3000],
    ids=["arrays", "dotted keys", "inline tables"],
)
def test_deeply_nested_rule_files(text):
    with pytest.raises(RulesError, match=r"nested too deeply|over 64 parts"):
        Rules.from_toml(text)


def test_deeply_nested_values_in_a_mapping():
    deep: list = []
    inner = deep
    for _ in range(100_000):
        inner.append([])
        inner = inner[0]
    for name in ("removed_cards", "pass_cycle", "exact_score_resets", "per_card_points", "moon_value"):
        with pytest.raises(RulesError) as info:
            Rules.from_dict({name: deep})
        assert info.value.option == name
        assert len(str(info.value)) < 300
    for value in ([[deep, 1]], {"AS": deep}, {("AS",) * 3: 1}):
        with pytest.raises(RulesError, match="per_card_points"):
            Rules(per_card_points=value)


def test_a_5000_digit_number_names_its_option():
    """A whole number too long to read (Python refuses past 4300 digits) names the option on its line; a
    merely huge one is out of range (every whole number lies within +-10**9)."""
    with pytest.raises(RulesError) as info:
        Rules.from_toml("num_players = 4\nsun_value = " + "9" * 5000 + "\n")
    assert info.value.option == "sun_value"
    assert len(str(info.value)) < 200
    for name in ("num_players", "pass_count", "heart_points", "sun_value", "moon_value", "game_end_threshold"):
        for value in (10**5000, -(10**40), 10**10):
            with pytest.raises(RulesError) as info:
                Rules(**{name: value})
            assert info.value.option == name
            assert len(str(info.value)) < 200
    for options in ({"exact_score_resets": {10**30: 0}}, {"exact_score_resets": {"9" * 5000: 0}}):
        with pytest.raises(RulesError, match="exact_score_resets"):
            Rules(**options)
    with pytest.raises(RulesError, match="instant_win"):
        Rules(instant_win={"score": 10**5000})
    with pytest.raises(RulesError, match="per_card_points"):
        Rules(per_card_points={"AS": 10**5000})
    assert Rules(sun_enabled=True, sun_value=10**9).sun_value == 10**9


@pytest.mark.parametrize(
    ("options", "option"),
    [
        ({"removed_cards": ["QS"] * 500_000}, "removed_cards"),
        ({"removed_cards": list(range(500_000))}, "removed_cards"),
        ({"deal_remainder": ["kitty"] * 500_000}, "deal_remainder"),
        ({"pass_cycle": ["x" * 1_000_000]}, "pass_cycle"),
        ({"pass_cycle": ["left"] * 10 + [list(range(500_000))]}, "pass_cycle"),
        ({"first_dealer": list(range(500_000))}, "first_dealer"),
        ({"bonus_card": "J" * 1_000_000}, "bonus_card"),
        ({"per_card_points": {"X" * 1_000_000: 1}}, "per_card_points"),
        ({"exact_score_resets": {"1" * 100_000: 0}}, "exact_score_resets"),
        ({"instant_win": {"score": 1, "mode": "m" * 1_000_000}}, "instant_win"),
        ({"game_end_threshold": "z" * 1_000_000}, "game_end_threshold"),
        ({"moon_value": list(range(500_000))}, "moon_value"),
        ({"x" * 1_000_000: 1}, None),
        ({"preset": "p" * 1_000_000}, None),
    ],
)
def test_error_messages_never_echo_huge_values(options, option):
    """A 500,000-entry list (3.5 MB as text) or a megabyte string is shown as a short prefix."""
    with pytest.raises(RulesError) as info:
        Rules.from_dict(options)
    limit = 1200 if option is None else 300  # an unknown option lists the known ones
    assert len(str(info.value)) < limit
    if option is not None:
        assert info.value.option == option
    else:
        assert len(info.value.option or "") <= 80


def test_bad_deal_parameters_are_shown_short():
    """A huge pass kind, dealer or hand is named in a short message, as for rules."""
    for make in (
        lambda: Deal(Rules(), seed=1, pass_kind="x" * 1_000_000),
        lambda: Deal(Rules(passing_enabled=False), seed=1, pass_kind="x" * 1_000_000),
        lambda: Deal(Rules(), seed=1, dealer=10**5000),
        lambda: Deal(Rules(), hands=[["Q" * 1_000_000]] * 4),
        lambda: Deal(Rules(), hands="2C" * 1_000_000),
        lambda: Match(Rules(), seed=1, first_dealer=10**5000),
    ):
        with pytest.raises(InvalidDealError) as info:
            make()
        assert len(str(info.value)) < 500


def test_an_enormous_non_action_is_named_briefly() -> None:
    from hearts_env import Deal, IllegalActionError

    deal = Deal(Rules(), seed=1)
    with pytest.raises(IllegalActionError) as err:
        deal.apply_action("x" * 1_000_000)
    assert len(str(err.value)) < 1_000 and "legal:" in str(err.value)


def test_the_project_copy_of_rules_md_is_the_specification() -> None:
    """docs/rules/RULES.md (shipped as package data) must be the specification in ../shared, byte for byte."""
    root = Path(__file__).resolve().parents[1]
    spec = root.parent / "shared" / "rules" / "RULES.md"
    if not spec.is_file():
        if os.environ.get("CI"):
            pytest.fail(f"CI has the specification beside the project, but {spec} is missing")
        pytest.skip("no ../shared/rules/RULES.md beside this checkout")
    assert (root / "docs" / "rules" / "RULES.md").read_bytes() == spec.read_bytes()


@pytest.mark.parametrize("preset", ["standard", "three_player", "three_player_kitty", "five_player", "six_to_eight"])
def test_a_seed_deals_the_same_hands_as_sorting_by_random_keys(preset: str) -> None:
    """The shuffle of a seeded deal: the deck, ascending, sorted by one ``random()`` key per card in
    deck order, dealt one card at a time clockwise from eldest hand, the rest to the kitty. A faster
    shuffle must deal exactly these hands, or every seeded deal and saved record changes."""
    import random

    rules = Rules.preset(preset)
    t = rules.tables
    n = rules.num_players
    for seed in range(300):
        deal = Deal(rules, seed=seed, dealer=seed % n)
        rng = random.Random(seed)
        rng.getrandbits(64)  # the smoosh stream's seed is drawn first
        order = [card for _, card in sorted((rng.random(), card) for card in t.deck)]
        dealt = n * t.hand_size
        for k in range(n):
            seat = (deal.eldest + k) % n
            assert deal.dealt_hands[seat] == sum(1 << c for c in order[k:dealt:n]), (seed, seat)
        assert deal.kitty_cards == order[dealt:]
