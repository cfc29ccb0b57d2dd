"""Hypothesis strategies for valid rule sets (RULES.md §3, validated as in §6).

``rule_options()`` draws a plain mapping of option names to values that ``hearts_env.Rules(**options)``
must accept; ``rule_sets()`` builds the ``Rules`` from it. Every option of §3 is drawn, each only over
values that are valid together with the others (pass kinds that exist for N, a pass count that fits
the hand and divides evenly for a scatter, a bonus-card requirement only with a bonus card, ...).

Other test modules import these (``from strategies import rule_sets``): ``tests/`` is on ``sys.path``
under pytest's default import mode.
"""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st

import hearts_env

#: RULES.md §3.1's auto-removal table: how many cards ``removed_cards = "auto"`` takes out for N players.
AUTO_REMOVED_COUNT = {3: 1, 4: 0, 5: 2, 6: 4, 7: 3, 8: 4}

#: Explicit removals RULES.md names as alternatives to the auto table (§3.1, §5 black_lady_old).
ALTERNATIVE_REMOVALS: dict[int, tuple[tuple[str, ...], ...]] = {
    3: (("2C",),),  # Culbertson: then 3C opens
    5: (("2C", "3C"),),
    6: (("2C", "2D", "3C", "2S"),),  # Culbertson's order
    7: (("2C", "2D", "3C"),),
    8: (("2C", "2D", "3C", "2S"),),
}

MOON_MODES = ("subtract_from_shooter", "add_to_others", "shooter_choice", "add_unless_shooter_loses", "cancel_deal")


def pass_kinds(num_players: int, pass_count: int) -> list[str]:
    """Every pass token valid for ``num_players`` (RULES.md §3.3 and §6)."""
    n = num_players
    kinds = ["left", "right", "hold", "smoosh", "dealer_choice"]
    kinds += [f"offset:{k}" for k in range(1, n)]
    if n % 2 == 0:
        kinds.append("across")
    if n >= 5:
        kinds += ["left2", "right2"]
    if pass_count % (n - 1) == 0:
        kinds.append("scatter")
    return kinds


@st.composite
def rule_options(
    draw: st.DrawFn,
    *,
    num_players: st.SearchStrategy[int] | None = None,
    game_end_threshold: st.SearchStrategy[int | None] | None = None,
    for_match: bool = False,
) -> dict[str, Any]:
    """A mapping of valid options for ``hearts_env.Rules(**options)``.

    ``num_players`` and ``game_end_threshold`` override the drawn values' strategies. ``for_match``
    keeps a match short: every deal carries at least 26 penalty points, and no exact-score reset
    can send a player back from a small threshold, so a game to 30-60 ends after a few deals.
    """
    n = draw(num_players if num_players is not None else st.sampled_from(range(3, 9)))
    opts: dict[str, Any] = {"num_players": n}

    # §3.1 the uneven deal
    deal_remainder = draw(st.sampled_from(["remove_cards", "kitty"]))
    opts["deal_remainder"] = deal_remainder
    removed_count = 0
    if deal_remainder == "remove_cards":
        removed_count = AUTO_REMOVED_COUNT[n]
        alternatives = ALTERNATIVE_REMOVALS.get(n, ())
        if alternatives and draw(st.integers(0, 3)) == 0:
            removed = draw(st.sampled_from(alternatives))
            opts["removed_cards"] = list(removed)
            removed_count = len(removed)
    elif ALTERNATIVE_REMOVALS.get(n) and draw(st.integers(0, 3)) == 0:
        # §3.1 [ENGINE, clarified]: with a kitty nothing is removed, whatever removed_cards says
        opts["removed_cards"] = list(draw(st.sampled_from(ALTERNATIVE_REMOVALS[n])))
    opts["kitty_taker"] = draw(st.sampled_from(["first_trick_winner", "first_penalty_taker", "one_card_per_trick"]))
    hand_size = (52 - removed_count) // n

    # §3.2 dealer
    opts["first_dealer"] = draw(st.one_of(st.just("random"), st.integers(0, n - 1)))
    opts["dealer_rotation"] = draw(st.sampled_from(["clockwise", "counterclockwise"]))

    # §3.3 passing: a scatter needs pass_count divisible by N-1, and every pass must fit the hand
    opts["passing_enabled"] = draw(st.sampled_from([True, True, True, False]))
    scatter_possible = hand_size >= n - 1
    if scatter_possible and draw(st.booleans()):
        pass_count = (n - 1) * draw(st.integers(1, min(2, hand_size // (n - 1))))
    else:
        pass_count = draw(st.integers(1, min(4, hand_size)))
    opts["pass_count"] = pass_count
    if draw(st.integers(0, 4)) == 0:
        opts["pass_cycle"] = "auto"
    else:
        opts["pass_cycle"] = draw(st.lists(st.sampled_from(pass_kinds(n, pass_count)), min_size=1, max_size=5))
    opts["allow_pass_through"] = draw(st.booleans())
    opts["pass_through_visible"] = draw(st.booleans())
    opts["void_deal_advances_pass_cycle"] = draw(st.booleans())

    # §3.4 play
    opts["first_lead"] = draw(
        st.sampled_from(["opening_card_must_be_led", "opening_card_holder_any_club", "eldest_any_card"])
    )
    for flag in (
        "hearts_must_be_broken",
        "queen_breaks_hearts",
        "queen_and_hearts_only_may_lead_heart",
        "no_points_on_first_trick",
        "queen_must_be_played_when_safe",
    ):
        opts[flag] = draw(st.booleans())
    opts["all_hearts_leader_unbroken"] = draw(st.sampled_from(["lead_heart", "void_deal", "leader_may_void"]))
    opts["first_trick_points_fallback"] = draw(st.sampled_from(["any_card", "heart_before_queen"]))

    # §3.5 card values
    if for_match:
        opts["heart_points"] = 1
        opts["heart_ace_points"] = draw(st.sampled_from([1, 5]))
        opts["queen_of_spades_points"] = draw(st.sampled_from([13, 25]))
    else:
        opts["heart_points"] = draw(st.sampled_from([1, 1, 1, 0, 2]))
        opts["heart_ace_points"] = draw(st.sampled_from([1, 5, 0, 14]))
        opts["queen_of_spades_points"] = draw(st.sampled_from([13, 0, 25]))
    bonus = draw(st.sampled_from(["none", "TD", "JD"]))
    opts["bonus_card"] = bonus
    opts["bonus_card_points"] = draw(st.sampled_from([-10, -5]))

    # §3.5 moon and sun
    opts["moon_enabled"] = draw(st.booleans())
    opts["moon_requires_all_tricks"] = draw(st.booleans())
    opts["moon_requires_bonus_card"] = bonus != "none" and draw(st.booleans())
    opts["moon_value"] = draw(st.sampled_from(["total", 26, 52]))
    opts["moon_mode"] = draw(st.sampled_from(MOON_MODES))
    opts["moon_conditional_tie_counts_as_first"] = draw(st.booleans())
    opts["sun_enabled"] = draw(st.booleans())
    opts["sun_value"] = draw(st.sampled_from([52, 26]))
    opts["no_tricks_adjustment"] = draw(st.sampled_from([0, 0, -5, 50]))
    opts["no_tricks_adjustment_on_moon"] = draw(st.booleans())

    # §3.6 the game
    threshold = draw(
        game_end_threshold
        if game_end_threshold is not None
        else st.one_of(st.none(), st.integers(1, 150), st.just(100))
    )
    opts["game_end_threshold"] = threshold
    if for_match:
        # resets only to values at or above their key: a reset never moves a total back down
        keys = st.integers(0, 200)
        resets = draw(st.dictionaries(keys, st.integers(0, 10), max_size=2))
        opts["exact_score_resets"] = {k: k + v for k, v in resets.items()}
    else:
        opts["exact_score_resets"] = draw(
            st.one_of(
                st.sampled_from([{}, {100: 50}, {100: 0}, {50: 0}, {104: 0, 126: 0}, {100: 50, 50: 0}]),
                st.dictionaries(st.integers(-30, 150), st.integers(-30, 150), max_size=3),
            )
        )
    opts["instant_win"] = draw(
        st.one_of(
            st.none(),
            st.fixed_dictionaries(
                {
                    "score": st.integers(0, 70),
                    "at_deal": st.integers(1, 6),
                    "mode": st.sampled_from(["at_deal_exactly", "at_or_after_deal"]),
                }
            ),
        )
    )
    opts["tie_for_lowest"] = draw(st.sampled_from(["shared", "play_another_deal"]))
    return opts


def rule_sets(
    *,
    num_players: st.SearchStrategy[int] | None = None,
    game_end_threshold: st.SearchStrategy[int | None] | None = None,
    for_match: bool = False,
) -> st.SearchStrategy[hearts_env.Rules]:
    """Valid ``hearts_env.Rules`` built from ``rule_options()`` (same keyword arguments)."""
    return rule_options(num_players=num_players, game_end_threshold=game_end_threshold, for_match=for_match).map(
        lambda options: hearts_env.Rules(**options)
    )
