"""Scripted scenarios: explicit hands, named cards, expectations taken from RULES.md.

Covers every scenario of RULES.md §7, at least one scripted deal for every option of §3, and one
scenario per preset of §5. Seats are numbered clockwise; the left neighbour of ``p`` is ``p + 1``.
Most deals use ``dealer=3`` so that seat 0 is eldest hand.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

import pytest

from hearts_env import PRESETS, Deal, Match, Rules
from hearts_env.core.actions import (
    CHOOSE_HOLD,
    CHOOSE_OFFSET_BASE,
    CHOOSE_SCATTER,
    CHOOSE_SMOOSH,
    LEAD_HEART,
    MOON_ADD,
    MOON_SUBTRACT,
    PASS_FROM_HAND,
    PASS_THROUGH,
    VOID_DEAL,
    action_name,
    parse_action,
    pass_kind_action,
)
from hearts_env.core.cards import card_name, mask_of, parse_card, parse_cards
from hearts_env.core.deal import PHASE_NAMES
from hearts_env.core.scoring import score_deal
from hearts_env.testing.batched_diff import play_against_reference

RANKS = "23456789TJQKA"
THROUGH = "through"


# ---------------------------------------------------------------------------------------------- helpers


def suit(letter: str, ranks: str = RANKS) -> list[str]:
    """The cards of one suit, e.g. ``suit("S", "2345")`` is 2S 3S 4S 5S."""
    return [r + letter for r in ranks]


def names(text: str) -> list[str]:
    return text.split()


# Seat 0 holds every club, seat 1 every diamond, seat 2 every spade, seat 3 every heart. Seat 0 leads
# ♣2 and, never able to lose a club trick, wins all 13 tricks and every card: a moon (and a sun).
SEGREGATED = [suit("C"), suit("D"), suit("S"), suit("H")]


def hands_with(rules: Rules, fixed: dict[int, str] | None = None, kitty: Iterable[str] = ()) -> list[list[str]]:
    """Hands for ``rules``: the ``fixed`` cards at their seats, the rest of the deck (less the kitty)
    handed out in card order, seat 0 first."""
    t = rules.tables
    fixed_cards = {seat: names(text) for seat, text in (fixed or {}).items()}
    taken = {c for cs in fixed_cards.values() for c in cs} | set(kitty)
    rest = [card_name(c) for c in t.deck if card_name(c) not in taken]
    hands = []
    for seat in range(rules.num_players):
        hand = list(fixed_cards.get(seat, []))
        need = t.hand_size - len(hand)
        hand += rest[:need]
        rest = rest[need:]
        hands.append(hand)
    return hands


def new_deal(rules: Rules, hands, *, dealer: int = 3, pass_kind: str = "hold", **kw) -> Deal:
    return Deal(rules, hands=hands, dealer=dealer, pass_kind=pass_kind, **kw)


def legal(game) -> set[str]:
    """The legal actions of a deal or match, by name."""
    return {action_name(a) for a in game.legal_actions()}


def mask(text: str | Iterable[str]) -> int:
    return mask_of(parse_cards(text))


def play(game, moves: str) -> None:
    """Apply actions given by name (cards such as ``QS``, or ``MOON_ADD`` and the like), checking
    that each one is legal at its turn."""
    for name in moves.split():
        action = parse_action(name)
        assert action in game.legal_actions(), f"{name} is not legal; legal: {sorted(legal(game))}"
        game.apply_action(action)


def finish(deal: Deal) -> Deal:
    """Play the deal out, each seat taking its lowest legal action."""
    while not deal.is_terminal():
        deal.apply_action(deal.legal_actions()[0])
    return deal


def play_trick(deal: Deal) -> None:
    """Play one trick, each seat taking its lowest legal card."""
    number = deal.trick_number
    while deal.trick_number == number and not deal.is_terminal():
        deal.apply_action(deal.legal_actions()[0])


def phase(deal: Deal) -> str:
    return PHASE_NAMES[deal.phase]


def pass_cards(deal: Deal, picks: dict[int, str]) -> list[int]:
    """Make every passing decision: ``picks[seat]`` is the cards (in choice order) or ``THROUGH``.
    Returns the seat of each decision, in the order the engine asked for them."""
    queues = {seat: names(text) if text != THROUGH else [] for seat, text in picks.items()}
    order = []
    while phase(deal) == "passing":
        seat = deal.current_player
        order.append(seat)
        if set(deal.legal_actions()) == {PASS_FROM_HAND, PASS_THROUGH}:
            deal.apply_action(PASS_THROUGH if picks[seat] == THROUGH else PASS_FROM_HAND)
            continue
        deal.apply_action(parse_card(queues[seat].pop(0)))
    return order


def hand_of(deal: Deal, seat: int) -> set[str]:
    return {card_name(c) for c in range(52) if deal.hands[seat] >> c & 1}


def won_of(deal: Deal, seat: int) -> set[str]:
    return {card_name(c) for c in range(52) if deal.won[seat] >> c & 1}


def moved(hand: list[str], gone: str = "", came: str = "") -> set[str]:
    return (set(hand) - set(names(gone))) | set(names(came))


def scripted_match(rules: Rules, script: Iterable[list[list[str]]] = (), seed: int = 0) -> Match:
    """A match whose deals use scripted hands, in order, until the script runs out."""
    return Match(rules, seed=seed, scripted_deals=[{"hands": hands} for hands in script])


def redeal(match: Match, hands: list[list[str]], totals: Iterable[int] | None = None) -> None:
    """Replace the match's deal in progress by a scripted one, after setting the totals before it."""
    if totals is not None:
        match.totals = list(totals)
    match._script.insert(0, {"hands": hands})
    match.deal = match._new_deal()


def play_out_deal(match: Match) -> None:
    """Finish the match's deal in progress, lowest legal action first."""
    count = len(match.history)
    while len(match.history) == count and not match.is_terminal():
        match.apply_action(match.legal_actions()[0])


def scores_of(rules: Rules, won: list[str], tricks: list[int], totals=None, choice=None) -> tuple[int, ...]:
    """``score_deal`` on won piles written as card lists."""
    return score_deal(rules, [mask(w) for w in won], tricks, totals, choice).scores


# Won piles for direct scoring tests: seat 0 took every heart and ♠Q (and the clubs and spades in 12
# tricks); seat 1 took all the diamonds in one trick (with ♦J and ♦10); seats 2 and 3 took nothing.
MOON_PILES = [" ".join(suit("C") + suit("S") + suit("H")), " ".join(suit("D")), "", ""]
MOON_TRICKS = [12, 1, 0, 0]
# No moon: seat 0 took the queen and 10 hearts, seat 1 the diamonds and 3 hearts.
SPLIT_PILES = [
    " ".join(suit("C") + suit("S") + suit("H", "23456789TJ")),
    " ".join(suit("D") + suit("H", "QKA")),
    "",
    "",
]
SPLIT_TRICKS = [10, 3, 0, 0]


# ============================================================================ §7 scenarios


def test_7_1_passing_cycle_four_players_deals_1_to_8():
    """§7.1 "Passing cycle (N = 4): deals 1–8 use L, R, A, H, L, R, A, H." [SOURCE]"""
    expected = ["left", "right", "across", "hold"] * 2
    rules = Rules(game_end_threshold=10_000, first_dealer=0)
    assert [rules.pass_kind_for_deal(d) for d in range(8)] == expected
    match = Match(rules, seed=5)
    while len(match.history) < 8:
        play_out_deal(match)
    assert [summary.deal.pass_kind for summary in match.history] == expected
    assert [summary.number for summary in match.history] == list(range(1, 9))


def test_7_1_left_pass_moves_cards_to_the_left_neighbour():
    """§3.3 `left`: "Each player gives `pass_count` cards to seat p+1." Passing is secret and
    simultaneous: cards move only when the last seat has chosen (§10)."""
    deal = new_deal(Rules(), SEGREGATED, pass_kind="left")
    assert phase(deal) == "passing"
    play(deal, "AC")
    assert legal(deal) == set(suit("C")) - {"AC"}  # §10: "cards in hand not yet chosen"
    order = [0, *pass_cards(deal, {0: "KC QC", 1: "AD KD QD", 2: "AS KS QS", 3: "AH KH QH"})]
    assert order == [0] * 3 + [1] * 3 + [2] * 3 + [3] * 3
    assert hand_of(deal, 0) == moved(suit("C"), "AC KC QC", "AH KH QH")
    assert hand_of(deal, 1) == moved(suit("D"), "AD KD QD", "AC KC QC")
    assert hand_of(deal, 2) == moved(suit("S"), "AS KS QS", "AD KD QD")
    assert hand_of(deal, 3) == moved(suit("H"), "AH KH QH", "AS KS QS")
    assert phase(deal) == "playing"


def test_7_1_cards_do_not_move_until_every_seat_has_chosen():
    """§3.3 secrecy rule: "Every passer picks the cards … before looking at the cards passed to them"."""
    deal = new_deal(Rules(), SEGREGATED, pass_kind="left")
    pass_cards_partial = {0: "AC KC QC", 1: "AD KD QD", 2: "AS KS QS"}
    for seat, text in pass_cards_partial.items():
        for card in names(text):
            assert deal.current_player == seat
            deal.apply_action(parse_card(card))
    assert [hand_of(deal, p) for p in range(4)] == [set(h) for h in SEGREGATED]
    assert deal.current_player == 3
    assert legal(deal) == set(suit("H"))


def test_7_2_three_players_with_2c_removed_3c_leads():
    """§7.2 "N = 3 with `[2C]` removed: the holder of ♣3 must lead it." """
    rules = Rules(num_players=3, removed_cards=["2C"])
    hands = hands_with(rules, {2: "3C"})
    deal = new_deal(rules, hands, dealer=0)
    assert deal.opening_card == parse_card("3C")
    assert deal.current_player == 2
    assert legal(deal) == {"3C"}


def test_7_2_five_players_3c_leads():
    """§7.2 "N = 5: ♣3 likewise." (auto removal `[2C, 2D]`, §3.1)"""
    rules = Rules(num_players=5)
    hands = hands_with(rules, {3: "3C"})
    assert all(len(h) == 10 for h in hands)
    deal = new_deal(rules, hands, dealer=0)
    assert deal.current_player == 3
    assert legal(deal) == {"3C"}


def test_7_2_kitty_holding_2c_lowest_remaining_club_leads():
    """§7.2 "Kitty with ♣2 in the kitty: the holder of the lowest remaining club leads it [ENGINE]"."""
    rules = Rules(num_players=3, deal_remainder="kitty")
    hands = hands_with(rules, {1: "3C"}, kitty=["2C"])
    deal = new_deal(rules, hands, dealer=0, kitty=["2C"])
    assert deal.kitty_cards == [parse_card("2C")]
    assert deal.current_player == 1
    assert legal(deal) == {"3C"}


def test_7_2_kitty_opening_card_is_found_after_passing():
    """§3.1 "With `kitty`: the lowest club held by any player *after passing*." ♣3 passed left
    from seat 0 makes seat 1 the leader."""
    rules = Rules(num_players=3, deal_remainder="kitty")
    hands = hands_with(rules, {0: "3C 4C 5C"}, kitty=["2C"])
    deal = new_deal(rules, hands, dealer=2, pass_kind="left", kitty=["2C"])
    pass_cards(deal, {0: "3C 4C 5C", 1: " ".join(hands[1][:3]), 2: " ".join(hands[2][:3])})
    assert deal.current_player == 1
    assert legal(deal) == {"3C"}


# §7.3 hands: after ♣2 ♣A ♣3 ♠2, seat 1 wins trick 1 and leads holding only ♠Q and hearts.
QUEEN_AND_HEARTS = [
    ["2C", *suit("D", "23456789TJQK")],
    ["AC", "QS", *suit("H", "23456789TJQ")],
    [*suit("C", "3456789TJQK"), "AD", "KH"],
    [*suit("S", "23456789TJKA"), "AH"],
]


def test_7_3_queen_and_hearts_leader_must_lead_the_queen():
    """§7.3 "A leader with ♠Q + hearts before any heart is played must lead ♠Q" """
    deal = new_deal(Rules(), QUEEN_AND_HEARTS)
    play(deal, "2C AC 3C 2S")
    assert deal.current_player == 1
    assert not deal.hearts_broken
    assert legal(deal) == {"QS"}


def test_7_3_queen_and_hearts_only_may_lead_heart():
    """§7.3 "… unless `queen_and_hearts_only_may_lead_heart` is on." §3.4: "a leader whose hand is only
    hearts plus ♠Q may lead a heart. They may also still lead ♠Q." """
    deal = new_deal(Rules(queen_and_hearts_only_may_lead_heart=True), QUEEN_AND_HEARTS)
    play(deal, "2C AC 3C 2S")
    assert legal(deal) == {"QS", *suit("H", "23456789TJQ")}
    play(deal, "5H")
    assert deal.hearts_broken


def test_7_3_queen_and_hearts_rule_needs_exactly_queen_plus_hearts():
    """§3.4 `queen_and_hearts_only_may_lead_heart` covers a hand of "only hearts plus ♠Q": a leader
    with another non-heart still may not lead a heart."""
    hands = [
        ["2C", *suit("D", "23456789TJQ"), "KH"],
        ["AC", "QS", "KD", *suit("H", "23456789TJ")],
        [*suit("C", "3456789TJQK"), "AD", "QH"],
        [*suit("S", "23456789TJKA"), "AH"],
    ]
    deal = new_deal(Rules(queen_and_hearts_only_may_lead_heart=True), hands)
    play(deal, "2C AC 3C 2S")
    assert legal(deal) == {"QS", "KD"}


# §7.3 hands: seat 1 (all spades) discards ♠Q on trick 1; seat 3 wins with ♣A and leads trick 2.
QUEEN_DISCARD = [
    ["2C", "3C", "4C", *suit("H", "23456789TJ")],
    suit("S"),
    [*suit("C", "56789"), *suit("D", "23456789")],
    [*suit("C", "TJQKA"), *suit("D", "TJQKA"), "QH", "KH", "AH"],
]


def test_7_3_queen_breaks_hearts():
    """§7.3 "With `queen_breaks_hearts`, a discarded ♠Q lets hearts be led from the next trick." """
    deal = new_deal(Rules(queen_breaks_hearts=True), QUEEN_DISCARD)
    play(deal, "2C QS 5C AC")
    assert deal.hearts_broken
    assert deal.current_player == 3
    assert {"QH", "KH", "AH"} <= legal(deal)


def test_7_3_queen_does_not_break_hearts_by_default():
    """§3.4 `queen_breaks_hearts` (default `false`): only a heart sets `hearts_broken`."""
    deal = new_deal(Rules(), QUEEN_DISCARD)
    play(deal, "2C QS 5C AC")
    assert not deal.hearts_broken
    assert legal(deal) == set(suit("C", "TJQK")) | set(suit("D", "TJQKA"))


def test_7_3_a_heart_breaks_hearts_from_the_next_lead():
    """§3.4: "`hearts_broken` becomes true the moment any heart is played, and takes effect from the
    next lead." Seat 3 discards ♥2 on trick 1, then leads trick 2."""
    hands = [
        [*suit("C", "23456789TJQK"), "2D"],
        [*suit("D", "3456789TJQKA"), "2S"],
        [*suit("S", "3456789TJQKA"), "AC"],
        suit("H"),
    ]
    deal = new_deal(Rules(), hands)
    play(deal, "2C 3D AC")
    assert not deal.hearts_broken
    play(deal, "2H")
    assert deal.hearts_broken
    assert deal.current_player == 2
    assert {"3S", "QS"} <= legal(deal)


# §7.4: queen must be played when safe.
SAFE = Rules(queen_must_be_played_when_safe=True, first_lead="eldest_any_card")
KING_LED = [
    ["KS", *suit("C", "23456789TJQK")],
    ["QS", "2S", "3S", *suit("D", "23456789TJ")],
    [*suit("S", "456789TJA"), "QD", "KD", "AD", "AC"],
    suit("H"),
]


def test_7_4_case_1_king_played_queen_forced():
    """§7.4 "Spades led; ♠K already played; the holder of ♠Q must play it." """
    deal = new_deal(SAFE, KING_LED)
    play(deal, "KS")
    assert legal(deal) == {"QS"}


def test_7_4_case_1_without_the_option_queen_is_free():
    """§3.4 `queen_must_be_played_when_safe` (default `false`): otherwise any spade follows."""
    deal = new_deal(Rules(first_lead="eldest_any_card"), KING_LED)
    play(deal, "KS")
    assert legal(deal) == {"QS", "2S", "3S"}


LOW_SPADES_LED = hands_with(Rules(), {0: "2S", 1: "3S", 2: "4S KS", 3: "QS 5S"})


def test_7_4_case_2_low_spades_queen_not_forced_even_for_the_last_player():
    """§7.4 "Spades led; only low spades so far; the queen is not forced." §3.4: "It is never forced
    when spades are led and no higher spade has yet been played, even by the last player to the trick." """
    deal = new_deal(SAFE, LOW_SPADES_LED)
    play(deal, "2S 3S 4S")
    assert deal.current_player == 3
    assert legal(deal) == {"QS", "5S"}


def test_7_4_case_2_king_played_by_the_previous_player():
    """§3.4 safe situation 2: "a spade higher than the queen … has already been played to the current
    trick": ♠K from seat 2 forces seat 3's queen."""
    deal = new_deal(SAFE, LOW_SPADES_LED)
    play(deal, "2S 3S KS")
    assert legal(deal) == {"QS"}


# Seat 1 follows clubs twice, then is void in clubs on the third trick.
VOID_ON_TRICK_3 = [
    ["2C", *suit("C", "56789TJQKA"), "2D", "3D"],
    ["3C", "4C", "QS", *suit("H", "23456789TJ")],
    [*suit("D", "456789TJQKA"), "QH", "KH"],
    [*suit("S", "23456789TJKA"), "AH"],
]


def test_7_4_case_3_void_on_trick_3_queen_forced():
    """§7.4 "The holder is void in the led suit on trick 3: the queen is forced." and §3.4 "♠Q is never
    forced as a lead." """
    deal = new_deal(Rules(queen_must_be_played_when_safe=True), VOID_ON_TRICK_3)
    play(deal, "2C 3C 4D 2S")
    assert deal.current_player == 1
    assert legal(deal) == {"4C", "QS"}  # leading: the queen is not forced
    play(deal, "4C 5D 3S 5C")
    assert deal.current_player == 0
    play(deal, "6C")
    assert deal.trick_number == 2
    assert legal(deal) == {"QS"}


def test_7_4_case_3_without_the_option_any_discard():
    """Without `queen_must_be_played_when_safe` the void holder may discard any card."""
    deal = new_deal(Rules(), VOID_ON_TRICK_3)
    play(deal, "2C 3C 4D 2S 4C 5D 3S 5C 6C")
    assert legal(deal) == {"QS", *suit("H", "23456789TJ")}


QUEEN_VOID_TRICK_1 = [
    suit("C"),
    ["QS", *suit("D", "234567"), *suit("H", "234567")],
    [*suit("D", "89TJQKA"), *suit("S", "234567")],
    [*suit("S", "89TJKA"), *suit("H", "89TJQKA")],
]


def test_7_4_case_4_trick_1_with_no_points_queen_not_allowed():
    """§7.4 "The same on trick 1 with `no_points_on_first_trick`: the queen is not allowed." §3.4
    "[ENGINE] Precedence: `no_points_on_first_trick` beats this rule." """
    deal = new_deal(Rules(queen_must_be_played_when_safe=True, no_points_on_first_trick=True), QUEEN_VOID_TRICK_1)
    play(deal, "2C")
    assert legal(deal) == set(suit("D", "234567"))


def test_7_4_case_4_trick_1_without_no_points_queen_forced():
    """§3.4 safe situation 1: "the player cannot follow the led suit (♠Q must then be the discard)", on
    trick 1 too when `no_points_on_first_trick` is off."""
    deal = new_deal(Rules(queen_must_be_played_when_safe=True), QUEEN_VOID_TRICK_1)
    play(deal, "2C")
    assert legal(deal) == {"QS"}


QUEEN_AND_HEARTS_VOID_TRICK_1 = [
    suit("C"),
    ["QS", *suit("H", "23456789TJQK")],
    suit("D"),
    [*suit("S", "23456789TJKA"), "AH"],
]


@pytest.mark.parametrize(
    ("fallback", "expected"),
    [("any_card", {"QS"}), ("heart_before_queen", set(suit("H", "23456789TJQK")))],
)
def test_7_4_trick_1_queen_forced_only_when_the_fallback_allows_points(fallback, expected):
    """§3.4 "On trick 1 the queen is forced only when the fallback allows point cards at all": with
    only hearts and ♠Q, `any_card` lets everything through (so the queen is forced), while
    `heart_before_queen` demands a heart."""
    rules = Rules(
        queen_must_be_played_when_safe=True, no_points_on_first_trick=True, first_trick_points_fallback=fallback
    )
    deal = new_deal(rules, QUEEN_AND_HEARTS_VOID_TRICK_1)
    play(deal, "2C")
    assert legal(deal) == expected


def test_7_5_subtract_from_shooter():
    """§7.5 "`subtract_from_shooter` gives deal scores (−26, 0, 0, 0)." (played out)"""
    deal = finish(new_deal(Rules(), SEGREGATED))
    assert deal.tricks_won == [13, 0, 0, 0]
    assert deal.scores == (-26, 0, 0, 0)
    assert deal.result.shooter == 0
    assert deal.result.shot == "moon"
    assert deal.result.raw == (26, 0, 0, 0)


def test_7_5_add_to_others():
    """§7.5 "`add_to_others` gives (0, 26, 26, 26)." """
    deal = finish(new_deal(Rules(moon_mode="add_to_others"), SEGREGATED))
    assert deal.scores == (0, 26, 26, 26)


CONDITIONAL = Rules(moon_mode="add_unless_shooter_loses", passing_enabled=False, first_dealer=3)


def test_7_5_add_unless_shooter_loses_case_1_scoring():
    """§7.5 case 1: "totals before the deal (60, 80, 75, 90), and P0 shoots. Adding gives (60, 106, 101,
    116). Someone is at or above 100 and P0 is strictly lowest, so add." """
    scores = scores_of(CONDITIONAL, MOON_PILES, MOON_TRICKS, totals=[60, 80, 75, 90])
    assert scores == (0, 26, 26, 26)


def test_7_5_add_unless_shooter_loses_case_1_match_ends_p0_wins():
    """§7.5 case 1: "… so add. The game ends and P0 wins." """
    match = Match(CONDITIONAL, seed=1)
    redeal(match, SEGREGATED, totals=[60, 80, 75, 90])
    play_out_deal(match)
    assert match.totals == [60, 106, 101, 116]
    assert match.is_terminal()
    assert match.winners == (0,)


def test_7_5_add_unless_shooter_loses_case_2_subtract_and_continue():
    """§7.5 case 2: "totals (90, 50, 60, 80), and P0 shoots. Adding would give (90, 76, 86, 106), with P3
    past 100 and P0 not lowest. So subtract instead, giving (64, 50, 60, 80), and the game continues." """
    assert scores_of(CONDITIONAL, MOON_PILES, MOON_TRICKS, totals=[90, 50, 60, 80]) == (-26, 0, 0, 0)
    match = Match(CONDITIONAL, seed=1)
    redeal(match, SEGREGATED, totals=[90, 50, 60, 80])
    play_out_deal(match)
    assert match.history[-1].scores == (-26, 0, 0, 0)
    assert match.totals == [64, 50, 60, 80]
    assert not match.is_terminal()


def test_7_6_sun_all_tricks_minus_52():
    """§7.6 "Sun: one player takes all 13 tricks, giving −52 (subtract mode)." """
    deal = finish(new_deal(Rules(sun_enabled=True), SEGREGATED))
    assert deal.result.shot == "sun"
    assert deal.scores == (-52, 0, 0, 0)


def test_7_7_omnibus_moon_with_bonus_elsewhere_subtract():
    """§7.7 "`omnibus` (J♦, bonus not required): a moon. The shooter gets −26 …, and the J♦ taker also
    gets −10." """
    rules = Rules.preset("omnibus")
    assert scores_of(rules, MOON_PILES, MOON_TRICKS, choice="subtract") == (-26, -10, 0, 0)


def test_7_7_omnibus_moon_with_bonus_elsewhere_add():
    """§7.7 omnibus: "… (or the others +26, by choice), and the J♦ taker also gets −10." """
    rules = Rules.preset("omnibus")
    assert scores_of(rules, MOON_PILES, MOON_TRICKS, choice="add") == (0, 16, 26, 26)


def test_7_7_omnibus_hoyle_no_moon_without_the_bonus_card():
    """§7.7 "`omnibus_hoyle` (♦10, bonus required): no moon. The shooter scores +26 and the ♦10 taker −10." """
    rules = Rules.preset("omnibus_hoyle")
    result = score_deal(rules, [mask(w) for w in MOON_PILES], MOON_TRICKS)
    assert result.shooter is None
    assert result.scores == (26, -10, 0, 0)


def test_7_7_omnibus_played_moon_choice_with_the_bonus_card_taken_by_the_shooter():
    """§3.5 `moon_requires_bonus_card = false`: "the bonus card is scored separately for whoever took
    it, who may be the shooter"; `shooter_choice`: "The shooter picks one of the two" (§10: after the
    last trick)."""
    for choice, expected in (("MOON_SUBTRACT", (-36, 0, 0, 0)), ("MOON_ADD", (-10, 26, 26, 26))):
        deal = finish_until_moon_choice(new_deal(Rules.preset("omnibus"), SEGREGATED))
        assert deal.current_player == 0
        assert legal(deal) == {"MOON_SUBTRACT", "MOON_ADD"}
        play(deal, choice)
        assert deal.scores == expected


def finish_until_moon_choice(deal: Deal) -> Deal:
    while phase(deal) != "moon_choice":
        assert not deal.is_terminal()
        deal.apply_action(deal.legal_actions()[0])
    return deal


def test_7_7_omnibus_hoyle_played_moon_absorbs_the_bonus():
    """§3.5 step 4 exception: "a moon with `moon_requires_bonus_card = true`" leaves the shooter's deal
    score exactly the moon amount ("26 plus" = −26, bonus absorbed)."""
    deal = finish(new_deal(Rules.preset("omnibus_hoyle"), SEGREGATED))
    assert deal.scores == (-26, 0, 0, 0)


def _reset_match(resets: dict[int, int]) -> Match:
    return Match(Rules(exact_score_resets=resets, moon_enabled=False, passing_enabled=False), seed=2)


def test_7_8_reset_100_to_50_and_game_continues():
    """§7.8 "a total of exactly 100 with `{100: 50}` becomes 50 and the game continues." """
    match = _reset_match({100: 50})
    redeal(match, SEGREGATED, totals=[74, 0, 0, 0])
    play_out_deal(match)
    assert match.history[-1].scores == (26, 0, 0, 0)
    assert match.totals == [50, 0, 0, 0]
    assert match.history[-1].resets == ((0, 100, 50),)
    assert not match.is_terminal()


def test_7_8_resets_never_chain():
    """§7.8 "With `{100: 50, 50: 0}` the result is 50, not 0 (no chaining)." """
    match = _reset_match({100: 50, 50: 0})
    redeal(match, SEGREGATED, totals=[74, 0, 0, 0])
    play_out_deal(match)
    assert match.totals == [50, 0, 0, 0]


def test_7_8_reset_50_to_0_when_reached_directly():
    """§3.6 `{50: 0}` [SOURCE]: a total of exactly 50 drops to 0."""
    match = _reset_match({100: 50, 50: 0})
    redeal(match, SEGREGATED, totals=[24, 0, 0, 0])
    play_out_deal(match)
    assert match.totals == [0, 0, 0, 0]


@pytest.mark.parametrize(("before", "after"), [(74, 0), (78, 0), (100, 0)])
def test_7_8_resets_100_104_126_to_zero(before, after):
    """§3.6 `{100: 0}` and `{104: 0, 126: 0}` [SOURCE], combined: "Several may be combined." A reset
    "takes effect before the end-of-game check", so the game goes on."""
    match = _reset_match({100: 0, 104: 0, 126: 0})
    redeal(match, SEGREGATED, totals=[before, 0, 0, 0])
    play_out_deal(match)
    assert match.totals == [after, 0, 0, 0]
    assert not match.is_terminal()


def test_7_8_total_not_hitting_a_reset_value_stays():
    """§3.6: resets apply to *exact* totals only; 101 is not 100."""
    match = _reset_match({100: 50})
    redeal(match, SEGREGATED, totals=[75, 0, 0, 0])
    play_out_deal(match)
    assert match.totals == [101, 0, 0, 0]
    assert match.is_terminal()
    assert match.winners == (1, 2, 3)


def _rotate(hands: list[list[str]], k: int) -> list[list[str]]:
    """The SEGREGATED deal with the clubs (and so every point) going to seat k."""
    return [hands[(p - k) % 4] for p in range(4)]


def _instant_win_match(mode: str) -> Match:
    rules = Rules(
        instant_win={"score": 69, "at_deal": 5, "mode": mode},
        moon_enabled=False,
        passing_enabled=False,
        game_end_threshold=1000,
    )
    # deals 1-4: seats 1, 2, 3, 1 take the 26 points
    return scripted_match(rules, [_rotate(SEGREGATED, k) for k in (1, 2, 3, 1)])


def test_7_9_instant_win_exactly_69_after_deal_5():
    """§7.9 "Instant win: after deal 5, one total is exactly 69, so the game ends with that player
    winning." """
    match = _instant_win_match("at_deal_exactly")
    for _ in range(4):
        play_out_deal(match)
    assert match.deals_counted == 4
    assert match.totals == [0, 52, 26, 26]
    redeal(match, SEGREGATED, totals=[43, 52, 26, 26])
    play_out_deal(match)
    assert match.deals_counted == 5
    assert match.totals == [69, 52, 26, 26]
    assert match.is_terminal()
    assert match.winners == (0,)
    assert "instant win" in match.end_reason


def test_7_9_instant_win_not_before_deal_5():
    """§3.6 `at_deal_exactly`: "a check at the end of the fifth deal only": 69 after deal 4 does not win."""
    match = _instant_win_match("at_deal_exactly")
    for _ in range(3):
        play_out_deal(match)
    redeal(match, SEGREGATED, totals=[43, 26, 26, 26])
    play_out_deal(match)
    assert match.deals_counted == 4
    assert match.totals[0] == 69
    assert not match.is_terminal()


@pytest.mark.parametrize(("mode", "over"), [("at_deal_exactly", False), ("at_or_after_deal", True)])
def test_7_9_instant_win_after_deal_6_depends_on_mode(mode, over):
    """§3.6 "`instant_win.mode` can be `at_deal_exactly` (default) or `at_or_after_deal`": 69 after
    deal 6 wins only in the second mode."""
    match = _instant_win_match(mode)
    for _ in range(5):
        play_out_deal(match)
    assert match.deals_counted == 5
    assert not match.is_terminal()
    redeal(match, SEGREGATED, totals=[43, 10, 20, 30])
    play_out_deal(match)
    assert match.deals_counted == 6
    assert match.is_terminal() is over
    if over:
        assert match.winners == (0,)


def test_7_9_instant_win_shared():
    """§3.6 "[ENGINE] If two or more players qualify, they share the win." """
    match = _instant_win_match("at_deal_exactly")
    for _ in range(4):
        play_out_deal(match)
    redeal(match, SEGREGATED, totals=[43, 69, 26, 26])
    play_out_deal(match)
    assert match.winners == (0, 1)


def _tie_match(tie: str) -> Match:
    rules = Rules(tie_for_lowest=tie, moon_enabled=False, passing_enabled=False)
    return scripted_match(rules)


def test_7_10_tie_play_another_deal():
    """§7.10 "someone reaches 104 while the two lowest are tied at 40. With `play_another_deal`, play
    another deal." §3.6: "play more deals until the lowest total is unique." """
    match = _tie_match("play_another_deal")
    redeal(match, SEGREGATED, totals=[78, 40, 40, 60])
    play_out_deal(match)
    assert match.totals == [104, 40, 40, 60]
    assert not match.is_terminal()
    redeal(match, _rotate(SEGREGATED, 1))  # seat 1 takes 26: the tie is broken
    play_out_deal(match)
    assert match.totals == [104, 66, 40, 60]
    assert match.is_terminal()
    assert match.winners == (2,)


def test_7_10_tie_shared():
    """§3.6 `tie_for_lowest = shared` [ENGINE]: the tied lowest players share the win."""
    match = _tie_match("shared")
    redeal(match, SEGREGATED, totals=[78, 40, 40, 60])
    play_out_deal(match)
    assert match.is_terminal()
    assert match.winners == (1, 2)


THROUGH_RULES = Rules(allow_pass_through=True)
PICKS = {0: "AC KC QC", 1: "AD KD QD", 2: "AS KS QS", 3: "AH KH QH"}


def test_7_11_pass_through_one_player():
    """§7.11 "P1 declares `through`: P0's cards reach P2, P1's hand is unchanged, P1 gets nothing." """
    deal = new_deal(THROUGH_RULES, SEGREGATED, pass_kind="left")
    order = pass_cards(deal, {**PICKS, 1: THROUGH})
    # §10: a seat declares first, then chooses its cards, before the next seat starts
    assert order == [0, 0, 0, 0, 1, 2, 2, 2, 2, 3, 3, 3, 3]
    assert hand_of(deal, 1) == set(suit("D"))
    assert deal.received[1] == []
    assert hand_of(deal, 2) == moved(suit("S"), "AS KS QS", "AC KC QC")
    assert hand_of(deal, 3) == moved(suit("H"), "AH KH QH", "AS KS QS")
    assert hand_of(deal, 0) == moved(suit("C"), "AC KC QC", "AH KH QH")
    assert {card for card, _ in deal.received[2]} == set(parse_cards("AC KC QC"))
    assert {src for _, src in deal.received[2]} == {0}


def test_7_11_pass_through_everyone():
    """§7.11 "All four declare `through`: nothing moves." """
    deal = new_deal(THROUGH_RULES, SEGREGATED, pass_kind="left")
    order = pass_cards(deal, dict.fromkeys(range(4), THROUGH))
    assert order == [0, 1, 2, 3]
    assert deal.hands == list(deal.dealt_hands)
    assert phase(deal) == "playing"


def test_7_11_pass_through_chain():
    """§3.3 pass-through resolution 2: "Each `from_hand` player's packet travels past any `through`
    players and is kept by the next `from_hand` player in the orbit." P1 and P2 through: P0 → P3."""
    deal = new_deal(THROUGH_RULES, SEGREGATED, pass_kind="left")
    pass_cards(deal, {**PICKS, 1: THROUGH, 2: THROUGH})
    assert hand_of(deal, 3) == moved(suit("H"), "AH KH QH", "AC KC QC")
    assert hand_of(deal, 0) == moved(suit("C"), "AC KC QC", "AH KH QH")
    assert hand_of(deal, 1) == set(suit("D"))
    assert hand_of(deal, 2) == set(suit("S"))


def test_7_11_pass_through_own_cards_come_back():
    """§3.3 "That may be the original passer, who then gets their own cards back." Across with N = 4:
    the orbit of seat 2 is {0, 2}; seat 0 passes through, so seat 2 keeps its own packet."""
    deal = new_deal(THROUGH_RULES, SEGREGATED, pass_kind="across")
    pass_cards(deal, {**PICKS, 0: THROUGH})
    assert hand_of(deal, 0) == set(suit("C"))
    assert hand_of(deal, 2) == set(suit("S"))
    assert {(card_name(c), src) for c, src in deal.received[2]} == {("AS", 2), ("KS", 2), ("QS", 2)}
    assert hand_of(deal, 1) == moved(suit("D"), "AD KD QD", "AH KH QH")
    assert hand_of(deal, 3) == moved(suit("H"), "AH KH QH", "AD KD QD")


def test_7_11_pass_through_right_with_five_players():
    """§3.3: pass-through applies to every single-target pass; with `right` the orbit runs p → p−1."""
    rules = Rules(num_players=5, allow_pass_through=True)
    hands = hands_with(rules)
    deal = new_deal(rules, hands, dealer=4, pass_kind="right")
    picks = {p: " ".join(hands[p][:3]) for p in range(5)}
    pass_cards(deal, {**picks, 4: THROUGH, 3: THROUGH})
    # seat 0 passes right to seat 4 (through), then 3 (through), so seat 2 keeps seat 0's cards
    assert hand_of(deal, 2) == moved(hands[2], picks[2], picks[0])
    assert hand_of(deal, 4) == set(hands[4])
    assert hand_of(deal, 3) == set(hands[3])
    assert hand_of(deal, 1) == moved(hands[1], picks[1], picks[2])
    assert hand_of(deal, 0) == moved(hands[0], picks[0], picks[1])


@pytest.mark.parametrize(
    ("kind", "rules"),
    [
        ("hold", Rules(allow_pass_through=True)),
        ("scatter", Rules(allow_pass_through=True)),
        ("smoosh", Rules(allow_pass_through=True)),
    ],
)
def test_pass_through_not_offered_on_hold_scatter_smoosh(kind, rules):
    """§3.3 pass-through "Not allowed on `scatter`, `smoosh` or `hold` deals." §6: "`allow_pass_through`
    is ignored on `hold`, `scatter` and `smoosh` deals." """
    deal = new_deal(rules, SEGREGATED, pass_kind=kind)
    assert "PASS_THROUGH" not in legal(deal)
    if kind != "hold":
        assert legal(deal) == set(suit("C"))


def test_7_12_no_trick_adjustment_minus_5():
    """§7.12 "a player with 0 tricks gets −5" (moon off, so seat 0 keeps its 26)."""
    deal = finish(new_deal(Rules(no_tricks_adjustment=-5, moon_enabled=False), SEGREGATED))
    assert deal.scores == (26, -5, -5, -5)


def test_7_12_no_trick_adjustment_plus_50():
    """§7.12 "… (or +50)" """
    deal = finish(new_deal(Rules(no_tricks_adjustment=50, moon_enabled=False), SEGREGATED))
    assert deal.scores == (26, 50, 50, 50)


def test_7_12_no_trick_adjustment_not_on_a_moon_by_default():
    """§7.12 "… and nothing on a moon deal by default." """
    deal = finish(new_deal(Rules(no_tricks_adjustment=-5), SEGREGATED))
    assert deal.scores == (-26, 0, 0, 0)


def test_7_12_no_trick_adjustment_on_moon_when_enabled():
    """§3.5 step 5: "Add `no_tricks_adjustment` to every p with `tricks[p] == 0`, unless step 4 happened
    and `no_tricks_adjustment_on_moon` is `false`." """
    deal = finish(new_deal(Rules(no_tricks_adjustment=-5, no_tricks_adjustment_on_moon=True), SEGREGATED))
    assert deal.scores == (-26, -5, -5, -5)


def test_7_12_no_trick_adjustment_split_deal():
    """Only the players with no trick at all are adjusted."""
    rules = Rules(no_tricks_adjustment=-5)
    assert scores_of(rules, SPLIT_PILES, SPLIT_TRICKS) == (23, 3, -5, -5)


# ============================================================================ §3 options, one by one

# ---- §3.1 players, deck and the uneven deal


@pytest.mark.parametrize("n", [3, 4, 5, 6, 7, 8])
def test_num_players_full_deal(n):
    """§3.1 `num_players` 3..8: each seat gets (52 − r)/N cards, the lowest club left opens (§3.1
    "Opening card"), N cards a trick, and the deal scores the 26 penalty points (§3.5 check)."""
    rules = Rules(num_players=n)
    hand_size = {3: 17, 4: 13, 5: 10, 6: 8, 7: 7, 8: 6}[n]
    opening = {3: "2C", 4: "2C", 5: "3C", 6: "4C", 7: "4C", 8: "4C"}[n]
    hands = hands_with(rules, {n - 1: opening})
    deal = new_deal(rules, hands, dealer=0)
    assert [bin(h).count("1") for h in deal.hands] == [hand_size] * n
    assert deal.current_player == n - 1
    assert legal(deal) == {opening}
    finish(deal)
    assert len(deal.play_order) == n * hand_size
    assert len(deal.trick_winners) == hand_size
    assert sum(deal.result.raw) == 26
    if deal.result.shooter is None:
        assert sum(deal.scores) == 26


def test_trick_winner_is_highest_of_led_suit_and_leads_next():
    """§3.4 trick mechanics: "The highest card of the led suit wins the trick, and its winner leads
    next." No trumps: a higher card of another suit does not win."""
    hands = [
        [*suit("C", "23456789TJQ"), "2D", "2S"],
        [*suit("C", "K"), *suit("D", "3456789TJQKA")],
        [*suit("S", "3456789TJQKA"), "AC"],
        suit("H"),
    ]
    deal = new_deal(Rules(), hands)
    play(deal, "2C KC AC 2H")
    assert deal.trick_winners == [2]
    assert deal.current_player == 2
    assert won_of(deal, 2) == {"2C", "KC", "AC", "2H"}


def test_kitty_first_trick_winner():
    """§3.1 `kitty_taker = first_trick_winner`; "Kitty cards are added to the taker's won pile, not to
    their hand. Penalty cards in the kitty count against the taker. They do not count as 'played', so
    they never break hearts." """
    rules = Rules(num_players=3, deal_remainder="kitty", kitty_taker="first_trick_winner")
    hands = hands_with(rules, kitty=["AH"])
    deal = new_deal(rules, hands, dealer=2, kitty=["AH"])
    play(deal, "2C 6D TS")
    assert deal.kitty_taken_by == [0]
    assert "AH" in won_of(deal, 0)
    assert "AH" not in hand_of(deal, 0)
    assert not deal.hearts_broken
    finish(deal)
    assert deal.result.raw[0] >= 1
    assert sum(deal.result.raw) == 26


def test_kitty_first_penalty_taker():
    """§3.1 `first_penalty_taker`: "the kitty goes to whoever wins the first trick containing a heart
    or ♠Q." """
    rules = Rules(num_players=3, deal_remainder="kitty", kitty_taker="first_penalty_taker")
    hands = hands_with(rules, kitty=["AH"])
    deal = new_deal(rules, hands, dealer=2, kitty=["AH"])
    play(deal, "2C 6D TS")
    assert deal.kitty_taken_by == [-1]
    play(deal, "3C 7D JS")
    assert deal.kitty_taken_by == [-1]
    play(deal, "4C 8D 2H")
    assert deal.kitty_taken_by == [0]
    assert won_of(deal, 0) >= {"AH", "2H"}


def test_kitty_one_card_per_trick():
    """§3.1 `one_card_per_trick`: "kitty cards go one at a time to the winners of tricks 1, 2, …" """
    rules = Rules(num_players=5, deal_remainder="kitty", kitty_taker="one_card_per_trick")
    hands = hands_with(rules, kitty=["KH", "AH"])
    deal = new_deal(rules, hands, dealer=4, kitty=["KH", "AH"])
    assert deal.current_player == 0
    play_trick(deal)
    first = deal.trick_winners[0]
    assert first == 1  # ♣Q is the highest club of trick 1
    assert deal.kitty_taken_by == [first, -1]
    assert "KH" in won_of(deal, first)
    play_trick(deal)
    assert deal.kitty_taken_by == [first, deal.trick_winners[1]]
    finish(deal)
    assert sum(deal.result.raw) == 26


def test_kitty_moon_needs_the_kitty_penalty_cards():
    """§3.5 moon: "when they win every penalty card"; a heart in the kitty goes to the taker's won pile,
    so the first trick's winner (who wins everything here) shoots with it."""
    rules = Rules(num_players=3, deal_remainder="kitty")
    hands = [
        [*suit("C"), "2D", "3D", "4D", "5D"],
        [*suit("D", "6789TJQKA"), *suit("S", "23456789")],
        [*suit("S", "TJQKA"), *suit("H", "23456789TJQK")],
    ]
    deal = finish(new_deal(rules, hands, dealer=2, kitty=["AH"]))
    assert deal.tricks_won == [17, 0, 0]
    assert deal.scores == (-26, 0, 0)


def test_removed_cards_explicit_four_players():
    """§3.1 `removed_cards` (list): "take the cards in `removed_cards` out before dealing"; opening card
    "♣4 when ♣2 and ♣3 are both removed" [ENGINE]."""
    rules = Rules(removed_cards=["2C", "2D", "3C", "3D"])
    assert rules.tables.hand_size == 12
    hands = hands_with(rules, {1: "4C"})
    deal = new_deal(rules, hands, dealer=0)
    assert deal.current_player == 1
    assert legal(deal) == {"4C"}


def test_removed_cards_three_players_2c_alternative():
    """§3.1 auto table N = 3: "`[2D]` (alternative `[2C]`)"; the default keeps ♣2 as the opener."""
    rules = Rules.preset("three_player")
    hands = hands_with(rules, {1: "2C"})
    deal = new_deal(rules, hands, dealer=0)
    assert legal(deal) == {"2C"}
    assert not rules.tables.deck_mask >> parse_card("2D") & 1


# ---- §3.2 deal and dealer


def test_first_dealer_seat():
    """§3.2 `first_dealer` (seat index): that seat deals first; eldest hand is its left neighbour and
    passes first (§10)."""
    match = Match(Rules(first_dealer=2), seed=1)
    assert match.dealer == 2
    assert match.deal.dealer == 2
    assert match.deal.eldest == 3
    assert match.deal.current_player == 3


def test_first_dealer_random_is_seeded():
    """§3.2 `first_dealer = random`: "the first dealer is chosen arbitrarily"; the match seed fixes it."""
    dealers = {Match(Rules(), seed=s).dealer for s in range(40)}
    assert dealers == {0, 1, 2, 3}
    assert Match(Rules(), seed=7).dealer == Match(Rules(), seed=7).dealer


@pytest.mark.parametrize(("rotation", "expected"), [("clockwise", [1, 2, 3, 0]), ("counterclockwise", [1, 0, 3, 2])])
def test_dealer_rotation(rotation, expected):
    """§3.2 `dealer_rotation`: "The next dealer is the previous dealer's left neighbour" (clockwise),
    or the right neighbour."""
    match = Match(
        Rules(first_dealer=1, dealer_rotation=rotation, passing_enabled=False, game_end_threshold=1000), seed=6
    )
    for _ in range(4):
        play_out_deal(match)
    assert [s.deal.dealer for s in match.history] == expected


# ---- §3.3 passing


def test_passing_disabled():
    """§3.3 `passing_enabled = false`: "no passing at all": every deal is a hold deal."""
    rules = Rules(passing_enabled=False)
    assert [rules.pass_kind_for_deal(d) for d in range(4)] == ["hold"] * 4
    deal = Deal(rules, seed=1, dealer=3)
    assert phase(deal) == "playing"
    assert deal.pass_kind == "hold"


def test_pass_count_two():
    """§3.3 `pass_count`: each player passes that many cards ("[ENGINE] suggests 2 for N ≥ 6")."""
    rules = Rules(num_players=6, pass_count=2)
    hands = hands_with(rules)
    deal = new_deal(rules, hands, dealer=5, pass_kind="left")
    picks = {p: " ".join(hands[p][:2]) for p in range(6)}
    order = pass_cards(deal, picks)
    assert order == [p for p in range(6) for _ in range(2)]
    for p in range(6):
        assert hand_of(deal, p) == moved(hands[p], picks[p], picks[(p - 1) % 6])


@pytest.mark.parametrize(
    ("n", "kind", "offset"),
    [
        (4, "right", 3),
        (4, "across", 2),
        (6, "across", 3),
        (5, "left2", 2),
        (5, "right2", 3),
        (7, "left2", 2),
        (8, "right2", 6),
        (7, "offset:3", 3),
        (8, "offset:3", 3),
        (3, "offset:2", 2),
    ],
)
def test_single_target_pass_kinds(n, kind, offset):
    """§3.3 tokens: `right` → p−1, `across` → p+N/2, `left2`/`right2` → p±2, `offset:k` → p+k."""
    rules = Rules(num_players=n)
    hands = hands_with(rules)
    deal = new_deal(rules, hands, dealer=n - 1, pass_kind=kind)
    picks = {p: " ".join(hands[p][-3:]) for p in range(n)}
    pass_cards(deal, picks)
    for p in range(n):
        assert hand_of(deal, (p + offset) % n) >= set(names(picks[p]))
        assert hand_of(deal, p) == moved(hands[p], picks[p], picks[(p - offset) % n])
        assert {dst for _, dst in deal.passed[p]} == {(p + offset) % n}


def test_hold_deal_moves_nothing():
    """§3.3 `hold`: "No passing (パスなし)." Play starts at once."""
    deal = new_deal(Rules(), SEGREGATED, pass_kind="hold")
    assert phase(deal) == "playing"
    assert deal.hands == list(deal.dealt_hands)
    assert legal(deal) == {"2C"}


def test_scatter_four_players_one_card_to_each():
    """§3.3 `scatter`: "3 cards with N = 4 gives 1 each"; §10: "the i-th card a seat chooses … goes to
    the seat `p + 1 + ⌊i / m⌋`"."""
    deal = new_deal(Rules(), SEGREGATED, pass_kind="scatter")
    pass_cards(deal, PICKS)
    assert hand_of(deal, 0) == moved(suit("C"), "AC KC QC", "QD KS AH")
    assert hand_of(deal, 1) == moved(suit("D"), "AD KD QD", "AC QS KH")
    assert hand_of(deal, 2) == moved(suit("S"), "AS KS QS", "KC AD QH")
    assert hand_of(deal, 3) == moved(suit("H"), "AH KH QH", "QC KD AS")


def test_scatter_three_players_two_cards_to_each():
    """§3.3 `scatter`: "4 cards with N = 3 gives 2 each (**[SOURCE]**)": the first 2 to the left
    neighbour, the next 2 to the seat after."""
    rules = Rules.preset("three_player_scatter")
    hands = hands_with(rules)
    deal = new_deal(rules, hands, dealer=2, pass_kind="scatter")
    picks = {p: " ".join(hands[p][:4]) for p in range(3)}
    pass_cards(deal, picks)
    for p in range(3):
        chosen = names(picks[p])
        assert hand_of(deal, (p + 1) % 3) >= set(chosen[:2])
        assert hand_of(deal, (p + 2) % 3) >= set(chosen[2:])
        assert [(card_name(c), dst) for c, dst in deal.passed[p]] == [
            (chosen[0], (p + 1) % 3),
            (chosen[1], (p + 1) % 3),
            (chosen[2], (p + 2) % 3),
            (chosen[3], (p + 2) % 3),
        ]


def test_smoosh():
    """§3.3 `smoosh`: "All the picked cards are gathered in the middle, shuffled, and `pass_count` are
    dealt back to each player at random."; §10: pooled from eldest hand, dealt back one at a time."""
    rules = Rules(pass_cycle=["smoosh"])
    outcomes = []
    for _ in range(2):
        deal = new_deal(rules, SEGREGATED, pass_kind="smoosh", seed=9)
        pass_cards(deal, PICKS)
        pool = {c for text in PICKS.values() for c in names(text)}
        received = [{card_name(c) for c, _ in deal.received[p]} for p in range(4)]
        assert all(len(r) == 3 for r in received)
        assert set().union(*received) == pool
        for p in range(4):
            assert hand_of(deal, p) == moved(SEGREGATED[p], PICKS[p], " ".join(received[p]))
            assert all(src == -1 for _, src in deal.received[p])
        outcomes.append(received)
    assert outcomes[0] == outcomes[1]  # the deal's seed fixes the shuffle


def test_dealer_choice_offers_every_kind_and_plays_the_choice():
    """§3.3 `dealer_choice`: "The dealer announces one of the other tokens for this deal." §10: "Dealer's
    choice | `dealer_choice` deals, dealer only | every pass kind the rule set allows"."""
    rules = Rules(pass_cycle=["dealer_choice"])
    deal = new_deal(rules, SEGREGATED, dealer=2, pass_kind="dealer_choice")
    assert phase(deal) == "dealer_choice"
    assert deal.current_player == 2
    assert set(deal.legal_actions()) == {
        CHOOSE_OFFSET_BASE + 1,
        CHOOSE_OFFSET_BASE + 2,
        CHOOSE_OFFSET_BASE + 3,
        CHOOSE_HOLD,
        CHOOSE_SCATTER,
        CHOOSE_SMOOSH,
    }
    deal.apply_action(pass_kind_action("across", 4))
    assert deal.pass_kind == "across"
    assert deal.current_player == 3  # eldest hand passes first
    pass_cards(deal, PICKS)
    assert hand_of(deal, 0) == moved(suit("C"), "AC KC QC", "AS KS QS")


def test_dealer_choice_hold_and_no_scatter_when_indivisible():
    """§6: "`scatter` requires `pass_count mod (N−1) == 0`", so with N = 5 and 3 cards the dealer cannot
    announce it; announcing `hold` starts play at once."""
    rules = Rules(num_players=5, pass_cycle=["dealer_choice"])
    deal = new_deal(rules, hands_with(rules), dealer=0, pass_kind="dealer_choice")
    assert CHOOSE_SCATTER not in deal.legal_actions()
    assert {CHOOSE_OFFSET_BASE + k for k in range(1, 5)} | {CHOOSE_HOLD, CHOOSE_SMOOSH} == set(deal.legal_actions())
    deal.apply_action(CHOOSE_HOLD)
    assert phase(deal) == "playing"
    assert deal.pass_kind == "hold"


def test_pass_cycle_from_a_match_with_dealer_choice_and_pass_through():
    """§10 "Pass through | `allow_pass_through`, single-target deals, before choosing cards": after the
    dealer announces `left`, each seat first declares."""
    rules = Rules(pass_cycle=["dealer_choice"], allow_pass_through=True, first_dealer=0)
    match = Match(rules, seed=4)
    assert match.current_player == 0
    match.apply_action(pass_kind_action("left", 4))
    assert match.current_player == 1
    assert legal(match) == {"PASS_FROM_HAND", "PASS_THROUGH"}


# ---- cancelled deals: all_hearts_leader_unbroken and void_deal_advances_pass_cycle

# After ♣2 ♣A ♦2 ♠2, seat 1 wins trick 1 and leads holding nothing but hearts, hearts unbroken.
ALL_HEARTS_LEADER = [
    [*suit("C", "23456789TJQK"), "AH"],
    ["AC", *suit("H", "23456789TJQK")],
    suit("D"),
    suit("S"),
]


def test_all_hearts_leader_lead_heart():
    """§3.4 `all_hearts_leader_unbroken = lead_heart`: "[SOURCE] main rule; any heart may be led." """
    deal = new_deal(Rules(), ALL_HEARTS_LEADER)
    play(deal, "2C AC 2D 2S")
    assert deal.current_player == 1
    assert legal(deal) == set(suit("H", "23456789TJQK"))


def test_all_hearts_leader_void_deal():
    """§3.4 `void_deal` "cancels automatically". "After a cancellation: nobody scores"."""
    deal = new_deal(Rules(all_hearts_leader_unbroken="void_deal"), ALL_HEARTS_LEADER)
    play(deal, "2C AC 2D 2S")
    assert deal.is_terminal()
    assert deal.cancelled
    assert deal.scores == (0, 0, 0, 0)


def test_all_hearts_leader_may_void_chooses_void():
    """§3.4 `leader_may_void` "lets the leader choose"; §10: "two decisions: void the deal or lead a
    heart; then, if leading, which heart." """
    deal = new_deal(Rules(all_hearts_leader_unbroken="leader_may_void"), ALL_HEARTS_LEADER)
    play(deal, "2C AC 2D 2S")
    assert deal.current_player == 1
    assert legal(deal) == {"VOID_DEAL", "LEAD_HEART"}
    play(deal, "VOID_DEAL")
    assert deal.cancelled
    assert deal.scores == (0, 0, 0, 0)
    assert deal.actions[-1] == VOID_DEAL


def test_all_hearts_leader_may_void_chooses_to_lead():
    """§10 `leader_may_void`: after declining, the leader chooses which heart."""
    deal = new_deal(Rules(all_hearts_leader_unbroken="leader_may_void"), ALL_HEARTS_LEADER)
    play(deal, "2C AC 2D 2S LEAD_HEART")
    assert deal.current_player == 1
    assert legal(deal) == set(suit("H", "23456789TJQK"))
    play(deal, "7H")
    assert deal.actions[-2] == LEAD_HEART
    finish(deal)
    assert not deal.cancelled


def test_all_hearts_rule_does_not_apply_once_hearts_are_broken():
    """§3.4: the rule "Covers a leader who holds only hearts before hearts are broken."""
    hands = [
        [*suit("C", "23456789TJQK"), "AH"],
        ["AC", *suit("H", "23456789TJQK")],
        [*suit("D", "3456789TJQKA"), "2S"],
        [*suit("S", "3456789TJQKA"), "2D"],
    ]
    deal = new_deal(Rules(all_hearts_leader_unbroken="void_deal"), hands)
    play(deal, "2C AC 2S 2D")  # no heart yet: void on the next lead
    assert deal.cancelled
    deal = new_deal(Rules(all_hearts_leader_unbroken="void_deal", hearts_must_be_broken=False), hands)
    play(deal, "2C AC 2S 2D")
    assert not deal.is_terminal()
    assert legal(deal) == set(suit("H", "23456789TJQK"))


ELDEST_ALL_HEARTS = [suit("H"), suit("C"), suit("D"), suit("S")]


@pytest.mark.parametrize(("advances", "kind"), [(False, "hold"), (True, "left")])
def test_void_deal_same_dealer_redeals_and_pass_cycle(advances, kind):
    """§3.4 "After a cancellation: nobody scores, and the same dealer redeals." §3.3
    `void_deal_advances_pass_cycle`: "Whether a deal cancelled under §3.4 uses up its position in the
    pass cycle." §10: "A cancelled deal does not count as a deal". Here eldest hand is dealt 13 hearts on
    a hold deal and must lead, so the deal is void as soon as it is dealt."""
    rules = Rules(
        first_lead="eldest_any_card",
        all_hearts_leader_unbroken="void_deal",
        pass_cycle=["hold", "left"],
        first_dealer=3,
        void_deal_advances_pass_cycle=advances,
    )
    match = scripted_match(rules, [ELDEST_ALL_HEARTS, SEGREGATED])
    assert len(match.history) == 1
    assert match.history[0].deal.cancelled
    assert match.history[0].scores == (0, 0, 0, 0)
    assert match.deals_counted == 0
    assert match.totals == [0, 0, 0, 0]
    assert not match.is_terminal()
    assert match.deal.dealer == 3
    assert match.deal.pass_kind == kind
    assert match.current_player == 0  # eldest hand: the first to pass, or to lead
    assert match.legal_actions()


def test_void_as_dealt_after_an_ordinary_deal():
    """§3.4 "the same dealer redeals" also when the void comes up on a later deal of the match: the match
    finishes the void deal at once and deals again, so there is always a seat to move."""
    rules = Rules(
        first_lead="eldest_any_card", all_hearts_leader_unbroken="void_deal", passing_enabled=False, first_dealer=3
    )
    seat_1_all_hearts = [suit("C"), suit("H"), suit("D"), suit("S")]
    match = scripted_match(rules, [SEGREGATED, seat_1_all_hearts, SEGREGATED])
    assert len(match.history) == 0
    play_out_deal(match)
    assert [s.deal.cancelled for s in match.history] == [False, True]
    assert match.deals_counted == 1
    assert match.totals == [-26, 0, 0, 0]
    assert match.deal.dealer == 0
    assert not match.deal.is_terminal()
    assert match.current_player == 1
    assert match.legal_actions()


def test_leader_may_void_in_a_match_redeals():
    """§3.4 `leader_may_void`, driven through a match: the void is the leader's decision, then the same
    dealer redeals with the same pass position."""
    rules = Rules(
        first_lead="eldest_any_card",
        all_hearts_leader_unbroken="leader_may_void",
        pass_cycle=["hold", "left"],
        first_dealer=3,
    )
    match = scripted_match(rules, [ELDEST_ALL_HEARTS])
    assert legal(match) == {"VOID_DEAL", "LEAD_HEART"}
    play(match, "VOID_DEAL")
    assert match.history[-1].deal.cancelled
    assert match.deal.dealer == 3
    assert match.deal.pass_kind == "hold"
    assert match.deals_counted == 0


# ---- §3.4 play


FIRST_LEAD_HANDS = [
    [*suit("D", "23456789"), *suit("H", "23456")],
    [*suit("D", "TJQKA"), *suit("S", "23456789")],
    [*suit("C", "23456"), *suit("S", "TJQKA"), *suit("H", "789")],
    [*suit("C", "789TJQKA"), *suit("H", "TJQKA")],
]


@pytest.mark.parametrize(
    ("first_lead", "leader", "expected"),
    [
        ("opening_card_must_be_led", 2, {"2C"}),
        ("opening_card_holder_any_club", 2, set(suit("C", "23456"))),
        ("eldest_any_card", 0, set(suit("D", "23456789"))),
    ],
)
def test_first_lead(first_lead, leader, expected):
    """§3.4 `first_lead`: "the holder of the opening card (♣2, or ♣3, …) leads it" / "the same player
    leads but may lead any club" / "eldest hand leads any card. That card is still subject to
    `hearts_must_be_broken`"."""
    deal = new_deal(Rules(first_lead=first_lead), FIRST_LEAD_HANDS, dealer=3)
    assert deal.current_player == leader
    assert legal(deal) == expected


def test_first_lead_eldest_any_card_with_no_points_on_first_trick():
    """§3.4 `eldest_any_card`: "still subject to `hearts_must_be_broken` and `no_points_on_first_trick`":
    eldest with only ♠Q and hearts beside diamonds may not lead ♠Q on trick 1."""
    hands = [
        [*suit("D", "23"), "QS", *suit("H", "2345678TJQ")],
        [*suit("D", "456789TJQKA"), "9H", "KH"],
        [*suit("C", "23456789TJQKA")],
        [*suit("S", "23456789TJKA"), "AH"],
    ]
    rules = Rules(first_lead="eldest_any_card", no_points_on_first_trick=True, hearts_must_be_broken=False)
    deal = new_deal(rules, hands)
    assert legal(deal) == {"2D", "3D"}


def test_first_lead_eldest_any_card_all_points_leader():
    """§3.4.1: on trick 1 `C' = H − hearts − {QS}; if C' nonempty: C = C'` — a hand of only ♠Q and hearts
    keeps C = H, and hearts being unbroken the leader must lead ♠Q."""
    hands = [["QS", *suit("H", "23456789TJQK")], suit("C"), suit("D"), [*suit("S", "23456789TJKA"), "AH"]]
    rules = Rules(first_lead="eldest_any_card", no_points_on_first_trick=True)
    assert legal(new_deal(rules, hands)) == {"QS"}


def test_hearts_may_be_led_any_time_when_not_required_broken():
    """§3.4 `hearts_must_be_broken = false`: "hearts may be led at any time." """
    deal = new_deal(Rules(hearts_must_be_broken=False), QUEEN_AND_HEARTS)
    play(deal, "2C AC 3C 2S")
    assert not deal.hearts_broken
    assert legal(deal) == {"QS", *suit("H", "23456789TJQ")}


NO_POINTS_HANDS = [
    suit("C"),
    ["QS", *suit("D", "234567"), *suit("H", "234567")],
    [*suit("D", "89TJQKA"), *suit("S", "234567")],
    [*suit("S", "89TJKA"), *suit("H", "89TJQKA")],
]


def test_no_points_on_first_trick_discards():
    """§3.4 `no_points_on_first_trick`: "Hearts and ♠Q may not be played to the first trick" (discards)."""
    deal = new_deal(Rules(no_points_on_first_trick=True), NO_POINTS_HANDS)
    play(deal, "2C")
    assert legal(deal) == set(suit("D", "234567"))
    play(deal, "2D 2S")
    assert legal(deal) == set(suit("S", "89TJKA"))
    play(deal, "8S")
    # from trick 2 on, point cards are free again
    play(deal, "3C")
    assert "QS" in legal(deal)


@pytest.mark.parametrize(
    ("fallback", "expected"),
    [("any_card", {"QS", *suit("H", "23456789TJQK")}), ("heart_before_queen", set(suit("H", "23456789TJQK")))],
)
def test_no_points_on_first_trick_fallbacks(fallback, expected):
    """§3.4 `first_trick_points_fallback`: a player who cannot follow and "holds only hearts and/or ♠Q":
    `any_card`: "any card may be played"; `heart_before_queen`: "must play a heart if they hold one"."""
    rules = Rules(no_points_on_first_trick=True, first_trick_points_fallback=fallback)
    deal = new_deal(rules, QUEEN_AND_HEARTS_VOID_TRICK_1)
    play(deal, "2C")
    assert legal(deal) == expected


def test_heart_before_queen_with_only_the_queen():
    """`heart_before_queen` with no heart in hand: the queen is all there is (a heart "if they hold one")."""
    hands = [
        [*suit("C", "23456789TJQK"), "2D"],
        ["QS", *suit("H", "23456789TJQK")],
        [*suit("D", "3456789TJQKA"), "2S"],
        [*suit("S", "3456789TJKA"), "AC", "AH"],
    ]
    rules = Rules(no_points_on_first_trick=True, first_trick_points_fallback="heart_before_queen")
    deal = new_deal(rules, hands)
    play(deal, "2C")
    assert legal(deal) == set(suit("H", "23456789TJQK"))


def test_no_points_on_first_trick_following_suit_is_still_compulsory():
    """§3.4.1: following suit comes first (`if F nonempty: … return F`); the rule only limits discards."""
    hands = [
        ["2S", *suit("C", "23456789TJQK")],
        ["QS", "AS", *suit("D", "23456789TJQ")],
        [*suit("S", "3456789TJK"), "KD", "AD", "AC"],
        suit("H"),
    ]
    rules = Rules(no_points_on_first_trick=True, first_lead="eldest_any_card")
    deal = new_deal(rules, hands)
    play(deal, "2S")
    assert legal(deal) == {"QS", "AS"}


def test_queen_forced_when_following_spades_on_trick_1():
    """§3.4.1 (normative): following, `if F nonempty: if queen_must_be_played_when_safe and s == spades and
    QS in H and (KS in T or AS in T): return {QS}` comes before the first-trick rule, which only limits
    discards."""
    rules = Rules(no_points_on_first_trick=True, first_lead="eldest_any_card", queen_must_be_played_when_safe=True)
    deal = new_deal(rules, KING_LED)
    play(deal, "KS")
    assert legal(deal) == {"QS"}


# ---- §3.5 card values


def test_heart_points():
    """§3.5 `heart_points`: "Each heart."; `heart_ace_points` (default 1): "Value of ♥A". The ace keeps
    its own option, so 2 per heart gives 12×2 + 1 + 13 = 38 (39 with the ace at 2 as well)."""
    rules = Rules(heart_points=2, moon_enabled=False)
    assert rules.tables.penalty_total == 38
    assert finish(new_deal(rules, SEGREGATED)).scores == (38, 0, 0, 0)
    assert scores_of(rules, SPLIT_PILES, SPLIT_TRICKS) == (13 + 20, 2 + 2 + 1, 0, 0)
    assert finish(new_deal(Rules(heart_points=2, heart_ace_points=2), SEGREGATED)).scores == (-39, 0, 0, 0)


def test_heart_ace_points():
    """§3.5 `heart_ace_points`: "♥A = 5, giving a total of 30"."""
    rules = Rules(heart_ace_points=5)
    assert scores_of(rules, SPLIT_PILES, SPLIT_TRICKS) == (23, 7, 0, 0)
    assert finish(new_deal(rules.replace(moon_enabled=False), SEGREGATED)).scores == (30, 0, 0, 0)


def test_queen_of_spades_points():
    """§3.5 `queen_of_spades_points`: "`0` gives the pre-Black-Lady game"."""
    assert scores_of(Rules(queen_of_spades_points=0), SPLIT_PILES, SPLIT_TRICKS) == (10, 3, 0, 0)
    assert scores_of(Rules(queen_of_spades_points=25), SPLIT_PILES, SPLIT_TRICKS) == (35, 3, 0, 0)


@pytest.mark.parametrize(("card", "points", "expected"), [("TD", -10, (23, -7, 0, 0)), ("JD", -5, (23, -2, 0, 0))])
def test_bonus_card(card, points, expected):
    """§3.5 `bonus_card` / `bonus_card_points`: "−10 penalty points, i.e. a bonus". §3.5 check: "the deal
    scores sum to `penalty_total` plus the bonus value"."""
    rules = Rules(bonus_card=card, bonus_card_points=points)
    scores = scores_of(rules, SPLIT_PILES, SPLIT_TRICKS)
    assert scores == expected
    assert sum(scores) == 26 + points


def test_per_card_points_table():
    """§5: "`per_card_points` (map card → int) … makes `heart_points`, `heart_ace_points`,
    `queen_of_spades_points` and `bonus_card` shorthands for entries in that table." A Black Maria style
    table: ♠A 7, ♠K 10 become penalty cards too."""
    rules = Rules(per_card_points={"AS": 7, "KS": 10})
    assert rules.tables.penalty_total == 43
    assert scores_of(rules, SPLIT_PILES, SPLIT_TRICKS) == (40, 3, 0, 0)
    # a moon now needs ♠A and ♠K as well
    piles = [" ".join(suit("C") + suit("S", "23456789TJQ") + suit("H")), " ".join([*suit("D"), "KS", "AS"]), "", ""]
    result = score_deal(rules, [mask(w) for w in piles], MOON_TRICKS)
    assert result.shooter is None
    assert result.scores == (26, 17, 0, 0)


def test_per_card_points_suit_entry_and_card_override():
    """Spot-hearts style table: suit-wide `face_value`, then single cards override."""
    rules = Rules(per_card_points={"hearts": "face_value", "AH": 20}, moon_enabled=False)
    values = rules.tables.card_values
    assert values[parse_card("2H")] == 2
    assert values[parse_card("TH")] == 10
    assert values[parse_card("KH")] == 13
    assert values[parse_card("AH")] == 20
    assert rules.tables.penalty_total == sum(range(2, 14)) + 20 + 13


# ---- §3.5 moon and sun


def test_moon_disabled():
    """§3.5 `moon_enabled = false`: taking every penalty card scores them like any other deal."""
    assert finish(new_deal(Rules(moon_enabled=False), SEGREGATED)).scores == (26, 0, 0, 0)


def test_moon_requires_all_tricks():
    """§3.5 `moon_requires_all_tricks`: "no moon unless the player also took every trick." """
    assert scores_of(Rules(), MOON_PILES, MOON_TRICKS) == (-26, 0, 0, 0)
    assert scores_of(Rules(moon_requires_all_tricks=True), MOON_PILES, MOON_TRICKS) == (26, 0, 0, 0)
    deal = finish(new_deal(Rules(moon_requires_all_tricks=True), SEGREGATED))
    assert deal.scores == (-26, 0, 0, 0)


def test_moon_requires_all_tricks_and_sun_are_the_same_event_sun_wins():
    """§6: "`moon_requires_all_tricks = true` makes the moon and the sun the same event. If both are
    enabled, the sun wins." """
    deal = finish(new_deal(Rules(moon_requires_all_tricks=True, sun_enabled=True), SEGREGATED))
    assert deal.result.shot == "sun"
    assert deal.scores == (-52, 0, 0, 0)


def test_moon_requires_bonus_card():
    """§3.5 `moon_requires_bonus_card = true`: "all 15 counting cards are needed, and the moon result
    replaces the bonus." """
    rules = Rules(bonus_card="JD", moon_requires_bonus_card=True)
    assert scores_of(rules, MOON_PILES, MOON_TRICKS) == (26, -10, 0, 0)
    piles = [MOON_PILES[0] + " JD", " ".join(suit("D", "23456789TQKA")), "", ""]
    assert scores_of(rules, piles, MOON_TRICKS) == (-26, 0, 0, 0)


@pytest.mark.parametrize(("value", "expected"), [(52, -52), ("total", -26), (30, -30)])
def test_moon_value(value, expected):
    """§3.5 `moon_value` (int or `total`): "[SOURCE] 26. [SOURCE variant] 52"."""
    deal = finish(new_deal(Rules(moon_value=value), SEGREGATED))
    assert deal.scores == (expected, 0, 0, 0)


def test_moon_value_total_follows_the_penalty_total():
    """§3.5: "With `heart_ace_points = 5`, `total` means 30." """
    assert scores_of(Rules(heart_ace_points=5), MOON_PILES, MOON_TRICKS) == (-30, 0, 0, 0)
    assert scores_of(Rules(heart_ace_points=5, moon_value=26), MOON_PILES, MOON_TRICKS) == (-26, 0, 0, 0)


def test_moon_mode_shooter_choice_played():
    """§3.5 `shooter_choice`: "The shooter picks one of the two." (§10 "Moon choice … shooter only, after
    the last trick")"""
    for action, expected in ((MOON_SUBTRACT, (-26, 0, 0, 0)), (MOON_ADD, (0, 26, 26, 26))):
        deal = finish_until_moon_choice(new_deal(Rules(moon_mode="shooter_choice"), SEGREGATED))
        assert deal.trick_number == 13
        assert deal.current_player == 0
        deal.apply_action(action)
        assert deal.scores == expected


def test_moon_mode_shooter_choice_not_asked_without_a_moon():
    """The moon choice is a decision only for a shooter; an ordinary deal just ends."""
    rules = Rules(moon_mode="shooter_choice")
    deal = finish(new_deal(rules, QUEEN_AND_HEARTS))
    assert MOON_SUBTRACT not in deal.actions
    assert MOON_ADD not in deal.actions


def test_moon_mode_cancel_deal():
    """§3.5 `cancel_deal`: "A slam scores nothing for anyone in that deal." """
    deal = finish(new_deal(Rules(moon_mode="cancel_deal"), SEGREGATED))
    assert deal.scores == (0, 0, 0, 0)
    assert deal.result.moon_applied == "cancel"
    assert not deal.cancelled  # the deal itself counts; only the slam scores nothing


def test_moon_conditional_tie_does_not_count_as_first_by_default():
    """§3.5 note A: "'First place' means the strictly lowest total." Totals (76, 50, 80, 90): adding
    gives (76, 76, 106, 116), P0 tied for lowest, so subtract."""
    rules = Rules(moon_mode="add_unless_shooter_loses")
    assert scores_of(rules, MOON_PILES, MOON_TRICKS, totals=[76, 50, 80, 90]) == (-26, 0, 0, 0)


def test_moon_conditional_tie_counts_as_first():
    """§3.5 note A: "`moon_conditional_tie_counts_as_first` (bool, default `false`) can relax that." """
    rules = Rules(moon_mode="add_unless_shooter_loses", moon_conditional_tie_counts_as_first=True)
    assert scores_of(rules, MOON_PILES, MOON_TRICKS, totals=[76, 50, 80, 90]) == (0, 26, 26, 26)


def test_moon_conditional_subtraction_applies_even_if_it_does_not_make_first():
    """§3.5 note A: "If subtracting also fails to put the shooter first, the subtraction still applies." """
    rules = Rules(moon_mode="add_unless_shooter_loses")
    assert scores_of(rules, MOON_PILES, MOON_TRICKS, totals=[90, 10, 20, 80]) == (-26, 0, 0, 0)


def test_moon_conditional_no_end_means_add():
    """§3.5 `add_unless_shooter_loses`: add unless someone ends at or above the threshold."""
    rules = Rules(moon_mode="add_unless_shooter_loses")
    assert scores_of(rules, MOON_PILES, MOON_TRICKS, totals=[50, 10, 20, 30]) == (0, 26, 26, 26)


def test_moon_conditional_checked_after_resets():
    """§3.5 note A: "The engine tests `≥ game_end_threshold`, run after the exact-score resets of §3.6":
    adding takes P1 to exactly 100, which resets to 50, so nobody ends the game and the add stands."""
    totals = [60, 74, 30, 40]
    plain = Rules(moon_mode="add_unless_shooter_loses")
    assert scores_of(plain, MOON_PILES, MOON_TRICKS, totals=totals) == (-26, 0, 0, 0)
    reset = Rules(moon_mode="add_unless_shooter_loses", exact_score_resets={100: 50})
    assert scores_of(reset, MOON_PILES, MOON_TRICKS, totals=totals) == (0, 26, 26, 26)


def test_moon_conditional_without_threshold_adds():
    """`game_end_threshold = null`: no total can end the game, so the moon always adds."""
    rules = Rules(moon_mode="add_unless_shooter_loses", game_end_threshold=None)
    assert scores_of(rules, MOON_PILES, MOON_TRICKS, totals=[500, 0, 0, 0]) == (0, 26, 26, 26)


def test_sun_value_and_mode():
    """§3.5 sun: "A sun replaces the moon in the same deal, and uses the same `moon_mode` with
    `sun_value`." """
    assert finish(new_deal(Rules(sun_enabled=True, sun_value=40), SEGREGATED)).scores == (-40, 0, 0, 0)
    deal = finish(new_deal(Rules(sun_enabled=True, moon_mode="add_to_others"), SEGREGATED))
    assert deal.scores == (0, 52, 52, 52)


def test_sun_with_a_bonus_card_is_flat():
    """§3.5 "[ENGINE] With a bonus card in play, the sun result is flat: the bonus card is absorbed." """
    deal = finish(new_deal(Rules(sun_enabled=True, bonus_card="TD"), SEGREGATED))
    assert deal.scores == (-52, 0, 0, 0)


def test_sun_not_scored_without_all_tricks():
    """§3.5 step 2: the sun needs "every trick"; a moon without every trick stays a moon."""
    result = score_deal(Rules(sun_enabled=True), [mask(w) for w in MOON_PILES], MOON_TRICKS)
    assert result.shot == "moon"
    assert result.scores == (-26, 0, 0, 0)


def test_scores_add_up_without_moon():
    """§3.5 "Check: without a moon or any adjustment, the deal scores sum to `penalty_total`"."""
    deal = finish(new_deal(Rules(), QUEEN_AND_HEARTS))
    assert deal.result.shooter is None
    assert sum(deal.scores) == 26


# ---- §3.6 end of game


@pytest.mark.parametrize(("before", "over"), [(73, False), (74, True), (90, True)])
def test_game_end_threshold(before, over):
    """§3.6 `game_end_threshold`: "After a deal, if any total is **≥ 100**, the game ends. The **lowest**
    total wins." """
    match = Match(Rules(moon_enabled=False, passing_enabled=False), seed=3)
    redeal(match, SEGREGATED, totals=[before, 10, 5, 20])
    play_out_deal(match)
    assert match.is_terminal() is over
    if over:
        assert match.winners == (2,)


def test_game_end_threshold_custom():
    """§3.6: the threshold is an option; at 150, a total of 100 does not end the game."""
    match = Match(Rules(moon_enabled=False, passing_enabled=False, game_end_threshold=150), seed=3)
    redeal(match, SEGREGATED, totals=[74, 10, 5, 20])
    play_out_deal(match)
    assert match.totals[0] == 100
    assert not match.is_terminal()


def test_game_end_threshold_none_single_deal():
    """§5 `openspiel_default`: "`game_end_threshold: null` # OpenSpiel scores one deal, with no game to 100"."""
    match = Match(Rules(game_end_threshold=None, passing_enabled=False), seed=3)
    redeal(match, SEGREGATED)
    play_out_deal(match)
    assert match.is_terminal()
    assert match.totals == [-26, 0, 0, 0]
    assert match.winners == (0,)


def test_negative_totals_allowed():
    """§3.6 "Negative totals are allowed, for example after a subtracted moon." """
    match = Match(Rules(passing_enabled=False), seed=3)
    redeal(match, SEGREGATED, totals=[10, 0, 0, 0])
    play_out_deal(match)
    assert match.totals == [-16, 0, 0, 0]


# ============================================================================ §5 presets, one scenario each


def test_preset_standard():
    """§5 `standard`: ♣2 leads, hearts must be broken, moon −26 to the shooter."""
    rules = Rules.preset("standard")
    deal = new_deal(rules, QUEEN_AND_HEARTS)
    assert legal(deal) == {"2C"}
    play(deal, "2C AC 3C 2S")
    assert legal(deal) == {"QS"}
    assert finish(new_deal(rules, SEGREGATED)).scores == (-26, 0, 0, 0)


def test_preset_pagat_main():
    """§5 `pagat_main`: "`moon_mode: shooter_choice`"."""
    deal = finish_until_moon_choice(new_deal(Rules.preset("pagat_main"), SEGREGATED))
    play(deal, "MOON_ADD")
    assert deal.scores == (0, 26, 26, 26)


def test_preset_microsoft():
    """§5 `microsoft`: "cannot play a heart or the queen of spades on the first trick"; "Win95: only a
    heart breaks hearts"; "moon_mode: add_to_others"."""
    rules = Rules.preset("microsoft")
    deal = new_deal(rules, NO_POINTS_HANDS)
    play(deal, "2C")
    assert legal(deal) == set(suit("D", "234567"))
    deal = new_deal(rules, QUEEN_DISCARD)
    play(deal, "2C")
    assert "QS" not in legal(deal)
    deal = new_deal(rules.replace(no_points_on_first_trick=False), QUEEN_DISCARD)
    play(deal, "2C QS 5C AC")
    assert not deal.hearts_broken
    assert finish(new_deal(rules, SEGREGATED)).scores == (0, 26, 26, 26)


def test_preset_openspiel_default():
    """§5 `openspiel_default`: "qs_breaks_hearts=true", moon +26 to the others, one deal only."""
    rules = Rules.preset("openspiel_default")
    deal = new_deal(rules, QUEEN_DISCARD)
    play(deal, "2C")
    assert legal(deal) == set(suit("S")) - {"QS"}  # no points on the first trick
    deal = new_deal(rules.replace(no_points_on_first_trick=False), QUEEN_DISCARD)
    play(deal, "2C QS 5C AC")
    assert deal.hearts_broken
    assert finish(new_deal(rules, SEGREGATED)).scores == (0, 26, 26, 26)
    match = Match(rules, seed=8)
    play_out_deal(match)
    assert match.is_terminal()
    assert len(match.history) == 1
    assert match.end_reason == "single deal"
    assert match.totals == list(match.history[0].scores)


def test_preset_us_older():
    """§5 `us_older`: "pass_cycle: [left]", "first_lead: eldest_any_card", "hearts_must_be_broken: false"."""
    rules = Rules.preset("us_older")
    assert [rules.pass_kind_for_deal(d) for d in range(5)] == ["left"] * 5
    deal = new_deal(rules, FIRST_LEAD_HANDS, pass_kind="hold")
    assert deal.current_player == 0
    assert legal(deal) == set(FIRST_LEAD_HANDS[0])  # hearts too


def test_preset_black_lady_old():
    """§5 `black_lady_old`: "Culbertson: slam recognised but scores nothing"."""
    rules = Rules.preset("black_lady_old")
    deal = finish(new_deal(rules, SEGREGATED))
    assert deal.result.shooter == 0
    assert deal.scores == (0, 0, 0, 0)


def test_preset_pre_black_lady():
    """§5 `pre_black_lady`: "♠Q had no penalty"; "no passing, no moon"."""
    rules = Rules.preset("pre_black_lady")
    deal = Deal(rules, seed=4, dealer=3)
    assert phase(deal) == "playing"
    assert deal.current_player == 0  # eldest hand leads
    deal = finish(new_deal(rules, SEGREGATED))
    assert deal.scores == (13, 0, 0, 0)


def test_preset_omnibus():
    """§5 `omnibus`: "bonus_card: JD", "moon_mode: shooter_choice", "bonus scored separately"."""
    rules = Rules.preset("omnibus")
    assert scores_of(rules, SPLIT_PILES, SPLIT_TRICKS) == (23, -7, 0, 0)
    deal = finish_until_moon_choice(new_deal(rules, SEGREGATED))
    play(deal, "MOON_SUBTRACT")
    assert deal.scores == (-36, 0, 0, 0)


def test_preset_omnibus_hoyle():
    """§5 `omnibus_hoyle`: "bonus_card: TD", "moon_requires_bonus_card: true # all 15 counting cards"."""
    rules = Rules.preset("omnibus_hoyle")
    assert scores_of(rules, SPLIT_PILES, SPLIT_TRICKS) == (23, -7, 0, 0)
    assert scores_of(rules, MOON_PILES, MOON_TRICKS) == (26, -10, 0, 0)
    assert finish(new_deal(rules, SEGREGATED)).scores == (-26, 0, 0, 0)


def test_preset_source_diamond_ten():
    """§5 `source_diamond_ten`: "♦10 = −10 ('Jackie')"; the moon does not need it and it stays with its
    taker (§3.5 step 4: "Bonus-card points stay with whoever took the bonus card")."""
    rules = Rules.preset("source_diamond_ten")
    assert scores_of(rules, MOON_PILES, MOON_TRICKS) == (-26, -10, 0, 0)
    assert finish(new_deal(rules, SEGREGATED)).scores == (-36, 0, 0, 0)


def test_preset_source_heart_ace_30():
    """§5 `source_heart_ace_30`: "heart_ace_points: 5 # total 30", "moon_value: total # 30"."""
    rules = Rules.preset("source_heart_ace_30")
    assert scores_of(rules, SPLIT_PILES, SPLIT_TRICKS) == (23, 7, 0, 0)
    assert finish(new_deal(rules, SEGREGATED)).scores == (-30, 0, 0, 0)


def test_preset_three_player():
    """§5 `three_player`: "removed_cards: [2D]", 17 cards each, "pass_cycle: [left, right, hold]"."""
    rules = Rules.preset("three_player")
    hands = hands_with(rules, {2: "2C"})
    assert all(len(h) == 17 for h in hands)
    deal = new_deal(rules, hands, dealer=0, pass_kind="right")
    picks = {p: " ".join(hands[p][-3:]) for p in range(3)}
    pass_cards(deal, picks)
    assert hand_of(deal, 0) == moved(hands[0], picks[0], picks[1])
    assert deal.current_player == 2
    assert legal(deal) == {"2C"}
    finish(deal)
    assert sum(deal.result.raw) == 26


def test_preset_three_player_scatter():
    """§5 `three_player_scatter`: "scatter = 2 cards to each opponent [SOURCE]", cycle L/R/scatter/hold."""
    rules = Rules.preset("three_player_scatter")
    assert [rules.pass_kind_for_deal(d) for d in range(4)] == ["left", "right", "scatter", "hold"]
    hands = hands_with(rules)
    deal = new_deal(rules, hands, dealer=0, pass_kind="scatter")
    assert deal.current_player == 1
    picks = {p: " ".join(hands[p][:4]) for p in range(3)}
    order = pass_cards(deal, picks)
    assert order == [1] * 4 + [2] * 4 + [0] * 4
    for p in range(3):
        assert len(deal.received[p]) == 4
        assert {src for _, src in deal.received[p]} == {(p + 1) % 3, (p + 2) % 3}


def test_preset_three_player_kitty():
    """§5 `three_player_kitty`: "17 each, 1 card kitty", "kitty_taker: first_trick_winner"."""
    rules = Rules.preset("three_player_kitty")
    deal = Deal(rules, seed=21, dealer=0)
    assert len(deal.kitty_cards) == 1
    assert all(bin(h).count("1") == 17 for h in deal.hands)
    hands = hands_with(rules, kitty=["QS"])
    deal = new_deal(rules, hands, dealer=2, kitty=["QS"])
    play_trick(deal)
    winner = deal.trick_winners[0]
    assert deal.kitty_taken_by == [winner]
    finish(deal)
    assert deal.result.raw[winner] >= 13  # the kitty's ♠Q counts against its taker


def test_preset_five_player():
    """§5 `five_player`: "removed_cards: [2C, 2D] # ♣3 leads", pass L/R/hold."""
    rules = Rules.preset("five_player")
    assert [rules.pass_kind_for_deal(d) for d in range(3)] == ["left", "right", "hold"]
    hands = hands_with(rules, {4: "3C"})
    deal = new_deal(rules, hands, dealer=2)
    assert deal.current_player == 4
    assert legal(deal) == {"3C"}
    finish(deal)
    assert len(deal.trick_winners) == 10


def test_preset_five_player_long_cycle():
    """§5 `five_player_long_cycle`: "pass_cycle: [left, right, left2, right2, hold]"."""
    rules = Rules.preset("five_player_long_cycle")
    assert [rules.pass_kind_for_deal(d) for d in range(6)] == ["left", "right", "left2", "right2", "hold", "left"]
    hands = hands_with(rules)
    deal = new_deal(rules, hands, dealer=4, pass_kind="right2")
    picks = {p: " ".join(hands[p][:3]) for p in range(5)}
    pass_cards(deal, picks)
    for p in range(5):
        assert hand_of(deal, (p - 2) % 5) >= set(names(picks[p]))


@pytest.mark.parametrize(("n", "hand", "cycle"), [(6, 8, "LRAH"), (7, 7, "LRH"), (8, 6, "LRAH")])
def test_preset_six_to_eight(n, hand, cycle):
    """§5 `six_to_eight`: "removed_cards: auto # §3.1 table", "pass_cycle: auto # even N:
    [left,right,across,hold]; odd N: [left,right,hold]"."""
    rules = Rules.preset("six_to_eight", num_players=n)
    full = {"L": "left", "R": "right", "A": "across", "H": "hold"}
    assert rules.tables.pass_cycle == tuple(full[c] for c in cycle)
    assert rules.tables.hand_size == hand
    deal = finish(Deal(rules, seed=n, dealer=0))
    assert len(deal.trick_winners) == hand
    assert sum(deal.result.raw) == 26


def test_preset_spot_hearts():
    """§5 `spot_hearts`: "per_card_points: {hearts: face_value, JH: 11, QH: 12, KH: 13, AH: 14}",
    "queen_of_spades_points: 25", "moon_value: total"."""
    rules = Rules.preset("spot_hearts")
    total = sum(range(2, 15)) + 25
    assert rules.tables.penalty_total == total
    # seat 1 takes ♥Q ♥K ♥A (12 + 13 + 14); seat 0 ♠Q and ♥2..♥J (25 + 2 + … + 11)
    assert scores_of(rules, SPLIT_PILES, SPLIT_TRICKS) == (25 + sum(range(2, 12)), 39, 0, 0)
    assert finish(new_deal(rules, SEGREGATED)).scores == (-total, 0, 0, 0)


def test_every_preset_has_a_scenario_here():
    """Every preset of §5 is exercised by a ``test_preset_<name>`` scenario in this file."""
    assert all(f"test_preset_{name}" in globals() for name in PRESETS)


# ------------------------------------------------------------- the [ENGINE, clarified] notes of RULES.md


def agrees_with_batched(rules: Rules, first_deals: list[dict], deals: int = 16) -> None:
    """The batched engine plays ``first_deals`` (``Deal`` keyword arguments) and then its own deals
    beside the reference engine, with the same random actions: same legal sets, same deal scores."""
    report = play_against_reference(rules, len(first_deals), deals=deals, first_deals=first_deals)
    assert report.deals >= deals


# A moon by seat 0 (SEGREGATED, hold, seat 0 eldest) whatever is played: one row per case below.
def segregated_rows(totals: list[int] | None = None, rows: int = 4) -> list[dict]:
    return [{"hands": SEGREGATED, "dealer": 3, "pass_kind": "hold", "totals": totals} for _ in range(rows)]


@pytest.mark.parametrize(
    "rules",
    [
        Rules.preset("three_player", deal_remainder="kitty"),
        Rules.preset("three_player_kitty"),
        Rules.from_file(Path(__file__).resolve().parents[1] / "configs" / "rules" / "three_player_kitty.toml"),
    ],
    ids=["three_player+kitty", "three_player_kitty", "three_player_kitty.toml"],
)
def test_kitty_removes_nothing_three_players(rules):
    """§3.1 [ENGINE, clarified]: "`removed_cards` applies only with `remove_cards`. With `kitty` nothing is
    removed, whatever `removed_cards` says: `three_player_kitty` inherits `[2D]` from `three_player` and
    still deals all 52 cards (17 each, a 1-card kitty)"."""
    assert rules.removed_cards == ("2D",)  # inherited as written
    t = rules.tables
    assert (len(t.deck), t.hand_size, t.kitty_size, t.removed_mask) == (52, 17, 1, 0)
    deal = Deal(rules, seed=5, dealer=0)
    dealt = [card_name(c) for hand in deal.dealt_hands for c in range(52) if hand >> c & 1]
    assert [len(hand_of(deal, p)) for p in range(3)] == [17, 17, 17]
    assert len(deal.kitty_cards) == 1
    assert sorted(dealt + [card_name(c) for c in deal.kitty_cards]) == sorted(card_name(c) for c in range(52))
    # 2D is a card like any other: dealt to a hand, or lying in the kitty
    hands = hands_with(rules, {1: "2D"}, kitty=["3D"])
    finish(new_deal(rules, hands, kitty=["3D"], dealer=2))
    agrees_with_batched(rules, [{"hands": hands, "kitty": ["3D"], "dealer": 2, "pass_kind": "left"}] * 4)


def test_kitty_removes_nothing_five_players():
    """§3.1 [ENGINE, clarified]: "`five_player` with `kitty` deals 10 each and a 2-card kitty"."""
    rules = Rules.preset("five_player", deal_remainder="kitty")
    assert rules.removed_cards == ("2C", "2D")
    t = rules.tables
    assert (len(t.deck), t.hand_size, t.kitty_size) == (52, 10, 2)
    deal = finish(Deal(rules, seed=9, dealer=0))
    assert len(deal.kitty_cards) == 2
    assert sum(deal.result.raw) == 26  # every card went somewhere: hands, then won piles and the kitty
    assert deal.opening_card == parse_card("2C") or parse_card("2C") in deal.kitty_cards
    hands = hands_with(rules, {0: "2C", 4: "2D"}, kitty=["3C", "3D"])
    agrees_with_batched(rules, [{"hands": hands, "kitty": ["3C", "3D"], "dealer": 4, "pass_kind": "hold"}] * 4)


def test_cancel_deal_bonus_card_still_scores_for_the_shooter():
    """§3.5 `cancel_deal` [ENGINE, clarified]: "As in every mode, the bonus card still scores for whoever
    took it"; the brief's example: `Rules(moon_mode="cancel_deal", bonus_card="JD")`, the shooter also took
    ♦J: (−10, 0, 0, 0)."""
    rules = Rules(moon_mode="cancel_deal", bonus_card="JD")
    deal = finish(new_deal(rules, SEGREGATED))
    assert "JD" in won_of(deal, 0)
    assert deal.scores == (-10, 0, 0, 0)
    assert deal.result.shooter == 0 and deal.result.moon_applied == "cancel"
    agrees_with_batched(rules, segregated_rows())


def test_cancel_deal_bonus_card_scores_for_another_taker():
    """§3.5 `cancel_deal`: "nobody scores [the penalty cards] and nobody gets a moon bonus"; the bonus card
    scores for whoever took it, here seat 1 (pipeline step 4)."""
    rules = Rules(moon_mode="cancel_deal", bonus_card="JD")
    assert scores_of(rules, MOON_PILES, MOON_TRICKS) == (0, -10, 0, 0)
    assert scores_of(Rules.preset("black_lady_old", bonus_card="TD"), MOON_PILES, MOON_TRICKS) == (0, -10, 0, 0)


def test_cancel_deal_no_tricks_adjustment_follows_step_5():
    """§3.5 `cancel_deal`: "the no-trick adjustment still follows step 5 (it applies when
    `no_tricks_adjustment_on_moon` is `true`)"."""
    on = Rules(moon_mode="cancel_deal", no_tricks_adjustment=-5, no_tricks_adjustment_on_moon=True)
    assert finish(new_deal(on, SEGREGATED)).scores == (0, -5, -5, -5)
    off = Rules(moon_mode="cancel_deal", no_tricks_adjustment=-5)
    assert finish(new_deal(off, SEGREGATED)).scores == (0, 0, 0, 0)
    both = Rules(moon_mode="cancel_deal", bonus_card="JD", no_tricks_adjustment=50, no_tricks_adjustment_on_moon=True)
    assert finish(new_deal(both, SEGREGATED)).scores == (-10, 50, 50, 50)
    agrees_with_batched(on, segregated_rows())
    agrees_with_batched(both, segregated_rows())


ADJUSTED_CONDITIONAL = Rules(
    moon_mode="add_unless_shooter_loses",
    no_tricks_adjustment=50,
    no_tricks_adjustment_on_moon=True,
    passing_enabled=False,
    first_dealer=3,
)


def test_add_unless_shooter_loses_looks_after_step_5():
    """§3.5 note A [ENGINE, clarified]: "totals (90, 0, 0, 30), P0 shoots, `no_tricks_adjustment = 50` with
    `no_tricks_adjustment_on_moon = true`: adding would give (90, 76, 76, 106), P3 reaches 100 while P0 is
    not first, so the deal scores (−26, 50, 50, 50)"."""
    deal = finish(new_deal(ADJUSTED_CONDITIONAL, SEGREGATED, totals=[90, 0, 0, 30]))
    assert deal.tricks_won == [13, 0, 0, 0]
    assert deal.scores == (-26, 50, 50, 50)
    assert deal.result.moon_applied == "subtract"
    match = Match(ADJUSTED_CONDITIONAL, seed=1)
    redeal(match, SEGREGATED, totals=[90, 0, 0, 30])
    play_out_deal(match)
    assert match.totals == [64, 50, 50, 80]
    assert not match.is_terminal()
    agrees_with_batched(ADJUSTED_CONDITIONAL, segregated_rows([90, 0, 0, 30]))


def test_add_unless_shooter_loses_looks_after_step_5_and_the_resets():
    """§3.5 note A [ENGINE, clarified]: the test uses "the exact-score resets of §3.6" on the whole deal's
    totals: with (90, 24, 0, 0) adding gives (90, 100, 76, 76); a reset 100 → 50 keeps everyone below 100,
    so the add stands; without it P1 reaches 100 and the shooter (not first) subtracts."""
    totals = [90, 24, 0, 0]
    assert finish(new_deal(ADJUSTED_CONDITIONAL, SEGREGATED, totals=totals)).scores == (-26, 50, 50, 50)
    reset = ADJUSTED_CONDITIONAL.replace(exact_score_resets={100: 50})
    assert finish(new_deal(reset, SEGREGATED, totals=totals)).scores == (0, 76, 76, 76)
    agrees_with_batched(reset, segregated_rows(totals))
