"""The scripted adversaries (``hearts_env.bots.scripted``) and their batched twins (``hearts_env.batched.scripted``).

- scenarios on explicit deals: each adversary's defining behaviour (the moon seeker passes its lowest
  cards, plays high while no other seat has points, gives up as its ``giveup`` says; the duck ducks;
  the queen-dumper dumps the ♠Q and flushes it);
- every adversary plays legal, complete deals of random rule sets, deterministically;
- spec validation names the bad key or value;
- differential play: every batched twin chooses what its reference bot chooses, over many random
  deals of several rule sets (standard, three players, moon variants, a mixed batch).
"""

from __future__ import annotations

import copy
import pickle
import random

import numpy as np
import pytest
import torch
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from strategies import rule_sets

from hearts_env import Deal, Rules
from hearts_env.batched import BatchedHearts, MixedBatchedHearts
from hearts_env.batched import scripted as batched_scripted
from hearts_env.batched.scripted import BATCHED_ADVERSARIES, BatchedMoonSeeker
from hearts_env.bots import ADVERSARIES, HeuristicBot, make_bot
from hearts_env.bots.scripted import MOON_OPTIONS, MoonSeeker, parse_moon_spec
from hearts_env.core.actions import mask_array
from hearts_env.core.cards import card_name, parse_card
from hearts_env.obs import encode


def observe(deal: Deal) -> dict[str, np.ndarray]:
    """The observation dict of the seat to move, as the AEC env gives it."""
    return {"observation": encode(deal, deal.current_player), "action_mask": mask_array(deal.legal_mask())}


def play(deal: Deal, *cards: str) -> None:
    for card in cards:
        deal.apply_action(parse_card(card))


def choice(bot: object, deal: Deal) -> str:
    return card_name(bot.act(observe(deal)))  # type: ignore[attr-defined]


def hands(*rows: str) -> list[list[str]]:
    return [row.split() for row in rows]


# Seat 0 holds every top card; seat 1 leads the 2C, and seat 0 plays last to each of seat 1's leads.
STRONG = hands(
    "AC KC QC AS KS AH KH QH JH TH AD KD QD",
    "2C 3C 4C 5C 6C 2D 3D 4D 5D 6D 2S 3S 4S",
    "7C 8C 9C TC 7D 8D 9D TD 5S 6S 7S 8S 9S",
    "JC JD TS JS QS 2H 3H 4H 5H 6H 7H 8H 9H",
)
# Seat 3 holds the AC and seat 2 no clubs: seat 0 (JC KC QC) loses the first trick.
BEATEN = hands(
    "JC KC QC AS KS AH KH QH JH TH AD KD QD",
    "2C 3C 4C 5C 6C 2D 3D 4D 5D 6D 2S 3S 4S",
    "7D 8D 9D TD 5S 6S 7S 8S 9S 2H 3H 4H 5H",
    "AC 7C 8C 9C TC JD TS JS QS 6H 7H 8H 9H",
)
RULES = Rules()


def held(which: list[list[str]]) -> Deal:
    return Deal(RULES, hands=which, pass_kind="hold", dealer=3)


# ---------------------------------------------------------------------------------------------- moon seekers


def test_moon_seeker_passes_its_lowest_cards_and_keeps_the_scoring_ones() -> None:
    mine = ["2C", "5C", "9C", "AC", "3D", "KD", "4S", "AS", "QS", "2H", "8H", "KH", "AH"]
    rest = sorted(set(map(card_name, range(52))) - set(mine), key=parse_card)
    deal = Deal(RULES, hands=[mine, rest[0:13], rest[13:26], rest[26:39]], pass_kind="left", dealer=3)
    seeker, heuristic = make_bot("moon", RULES), HeuristicBot(RULES)
    others = [HeuristicBot(RULES)] * 4
    passed, heuristic_pass = [], []
    while len(deal.chosen[0]) < 3:
        if deal.current_player == 0:
            heuristic_pass.append(choice(heuristic, deal))
            passed.append(choice(seeker, deal))
            play(deal, passed[-1])
        else:
            deal.apply_action(others[deal.current_player].act(observe(deal)))
    assert passed == ["2C", "3D", "4S"]  # the 2H is lower but scores: kept for the moon
    assert set(heuristic_pass) != set(passed)


def test_moon_seeker_plays_its_highest_cards_while_no_other_seat_has_points() -> None:
    deal = held(STRONG)
    seeker = make_bot("moon", RULES)
    play(deal, "2C", "7C", "JC")
    assert choice(seeker, deal) == "AC"  # beats the JC with its highest club
    play(deal, "AC")
    assert choice(seeker, deal) == "AS"  # leads its highest card (hearts are not broken)
    play(deal, "AS", "2S", "5S", "TS")
    assert choice(seeker, deal) == "AD"
    assert choice(HeuristicBot(RULES), deal) != "AD"


@pytest.mark.parametrize(
    ("spec", "goes_on"), [("moon", False), ("moon:giveup=late", True), ("moon:giveup=never", True)]
)
def test_losing_a_point_free_trick_ends_only_the_early_seeker(spec: str, goes_on: bool) -> None:
    deal = held(BEATEN)
    seeker = make_bot(spec, RULES)
    play(deal, "2C", "7D", "AC")
    assert choice(seeker, deal) == "JC"  # cannot beat the AC: its lowest club, keeping the high ones
    play(deal, "JC", "JD")  # seat 3 took a trick without points, and leads
    expected = "AD" if goes_on else choice(HeuristicBot(RULES), deal)
    assert choice(seeker, deal) == expected
    assert expected != "AD" or goes_on


def test_cheap_seeker_wins_with_its_lowest_winning_card_only_when_it_plays_last() -> None:
    deal = held(STRONG)
    cheap, highest = make_bot("moon:follow=cheap", RULES), make_bot("moon", RULES)
    play(deal, "2C", "7C", "JC")  # seat 0 plays last: nobody can overtake its QC
    assert (choice(cheap, deal), choice(highest, deal)) == ("QC", "AC")
    deal = held(BEATEN)
    cheap = make_bot("moon:giveup=late,follow=cheap", RULES)
    play(deal, "2C", "7D", "AC", "JC", "7C")  # seat 3 won the first trick and leads: seat 0 plays second
    assert choice(cheap, deal) == "KC"  # not last: its highest club, as every seeker


@pytest.mark.parametrize("spec", ["moon", "moon:giveup=late", "moon:pass=heuristic", "moon:giveup=never"])
def test_a_point_taken_by_another_seat_ends_every_seeker_but_the_stubborn_one(spec: str) -> None:
    deal = held(BEATEN)
    seeker = make_bot(spec, RULES)
    play(deal, "2C", "2H", "AC", "JC", "JD")  # seat 3 took the 2H
    heuristic = choice(HeuristicBot(RULES), deal)
    assert heuristic != "AD"
    assert choice(seeker, deal) == ("AD" if spec == "moon:giveup=never" else heuristic)


def test_selective_seeker_tries_only_with_a_moon_worthy_hand() -> None:
    selective = MoonSeeker(RULES, options=parse_moon_spec("moon:when=strong"))
    strong = held(STRONG)
    play(strong, "2C", "7C", "JC")
    assert choice(selective, strong) == "AC"
    weak = held(list(reversed(STRONG)))  # seat 0 now holds JC JD TS ...: not worth a moon
    while weak.current_player != 0:
        weak.apply_action(HeuristicBot(RULES).act(observe(weak)))
    assert choice(selective, weak) == choice(HeuristicBot(RULES), weak)
    assert selective.moon_worthy(set(map(parse_card, STRONG[0])))
    assert not selective.moon_worthy(set(map(parse_card, STRONG[3])))


def test_without_a_moon_every_seeker_is_the_heuristic_bot() -> None:
    rules = Rules(moon_enabled=False)
    deal = Deal(rules, hands=STRONG, pass_kind="hold", dealer=3)
    play(deal, "2C", "7C", "JC", "AC")
    assert choice(make_bot("moon:giveup=never", rules), deal) == choice(HeuristicBot(rules), deal)


# ---------------------------------------------------------------------------------------------- duck, queen, highest


def test_duck_plays_the_highest_card_that_loses_and_the_lowest_when_it_must_win() -> None:
    duck = make_bot("duck", RULES)
    under = held(BEATEN)
    play(under, "2C", "2H", "AC")
    assert choice(duck, under) == "KC"  # the highest club under the AC
    over = held(STRONG)
    play(over, "2C", "7C", "JC")
    assert choice(duck, over) == "QC"  # every club wins: the lowest
    void = held(BEATEN)
    play(void, "2C")
    assert choice(duck, void) == "5H"  # void in clubs: dumps its highest penalty card


def test_duck_leads_its_lowest_card() -> None:
    deal = held(BEATEN)
    play(deal, "2C", "7D", "AC", "JC")  # seat 3 leads; hearts are not broken
    assert choice(make_bot("duck", RULES), deal) == "7C"


# Seat 2 holds the ♠Q and no clubs; seat 3 holds the AC and spades below the queen.
QUEEN_AT_2 = hands(
    "JC KC QC AS KS AH KH QH JH TH AD KD QD",
    "2C 3C 4C 5C 6C 2D 3D 4D 5D 6D 2S 3S 4S",
    "7D 8D 9D TD 5S 6S 7S 8S QS 2H 3H 4H 5H",
    "AC 7C 8C 9C TC JD TS JS 9S 6H 7H 8H 9H",
)


def test_queendump_dumps_the_queen_at_the_first_chance() -> None:
    deal = held(QUEEN_AT_2)
    play(deal, "2C")
    assert choice(make_bot("queendump", RULES), deal) == "QS"  # void in clubs: the queen goes at once


def test_queendump_flushes_the_queen_with_its_lowest_spade() -> None:
    deal = held(QUEEN_AT_2)
    play(deal, "2C", "7D", "AC", "JC")  # seat 3 leads, holding no ♠Q, ♠K or ♠A
    assert choice(make_bot("queendump", RULES), deal) == "9S"
    assert choice(HeuristicBot(RULES), deal) != "9S"


def test_queendump_holding_the_queen_voids_its_shortest_side_suit() -> None:
    deal = held(BEATEN)
    play(deal, "2C", "7D", "AC", "JC")  # seat 3 leads with the ♠Q and a single diamond
    assert choice(make_bot("queendump", RULES), deal) == "JD"


def test_queendump_passes_the_top_spades_and_keeps_the_queen() -> None:
    mine = ["2C", "9C", "3D", "5D", "8D", "JD", "4S", "KS", "QS", "AS", "2H", "8H", "KH"]
    rest = sorted(set(map(card_name, range(52))) - set(mine), key=parse_card)
    deal = Deal(RULES, hands=[mine, rest[0:13], rest[13:26], rest[26:39]], pass_kind="left", dealer=3)
    dumper = make_bot("queendump", RULES)
    passed = []
    while len(deal.chosen[0]) < 3:
        if deal.current_player == 0:
            passed.append(choice(dumper, deal))
            play(deal, passed[-1])
        else:
            deal.apply_action(HeuristicBot(RULES).act(observe(deal)))
    assert passed == ["AS", "KS", "9C"]  # then the shortest side suit (clubs), highest first


def test_highest_plays_the_highest_legal_card() -> None:
    deal = held(BEATEN)
    play(deal, "2C", "7D", "AC")
    assert choice(make_bot("highest", RULES), deal) == "KC"


# ---------------------------------------------------------------------------------------------- every rule set


@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(rules=rule_sets(), spec=st.sampled_from(sorted(ADVERSARIES.values())), seed=st.integers(0, 2**31 - 1))
def test_every_adversary_plays_legal_complete_deals(rules: Rules, spec: str, seed: int) -> None:
    bot = make_bot(spec, rules, seed=seed)
    deal = Deal(rules, seed=seed)
    steps = 0
    while not deal.is_terminal():
        action = bot.act(observe(deal))
        assert action in deal.legal_actions()
        deal.apply_action(action)
        steps += 1
        assert steps < 1000
    assert len(deal.scores) == rules.num_players


@pytest.mark.parametrize("spec", sorted(ADVERSARIES.values()))
def test_adversaries_are_deterministic_copyable_and_picklable(spec: str) -> None:
    rules = Rules.preset("omnibus")

    def actions(bot: object, seed: int) -> list[int]:
        deal = Deal(rules, seed=seed)
        taken = []
        while not deal.is_terminal():
            taken.append(bot.act(observe(deal)))  # type: ignore[attr-defined]
            deal.apply_action(taken[-1])
        return taken

    first = actions(make_bot(spec, rules, seed=5), 11)
    assert actions(make_bot(spec, rules, seed=5), 11) == first
    assert actions(copy.deepcopy(make_bot(spec, rules, seed=5)), 11) == first
    assert actions(pickle.loads(pickle.dumps(make_bot(spec, rules, seed=5))), 11) == first


@pytest.mark.parametrize(
    ("spec", "named"),
    [
        ("moon:giveup=sometimes", "'sometimes'"),
        ("moon:colour=red", "'colour'"),
        ("moon:giveup", "needs a value"),
        ("moon:giveup=late,giveup=never", "given twice"),
        ("moon:pass=high", "'high'"),
        ("moon:follow=lowest", "'lowest'"),
        ("duck:depth=2", "takes no options"),
    ],
)
def test_bad_specs_name_the_bad_key_or_value(spec: str, named: str) -> None:
    with pytest.raises(ValueError, match=named):
        make_bot(spec, RULES)


def test_specs_name_the_options_they_chose() -> None:
    chosen = make_bot("moon:when=strong,giveup=late", RULES).name  # type: ignore[attr-defined]
    assert chosen == "moon:pass=low,giveup=late,when=strong,follow=highest"
    assert BatchedMoonSeeker(giveup="late", when="strong").name == chosen
    assert batched_scripted._MOON_OPTIONS == MOON_OPTIONS  # the batched twin accepts what the reference bot does
    assert set(ADVERSARIES) == set(BATCHED_ADVERSARIES)


# ---------------------------------------------------------------------------------------------- batched twins


def batched_against_reference(
    label: str, engine: BatchedHearts | MixedBatchedHearts, steps: int, seed: int
) -> tuple[int, int]:
    """Play ``steps`` decisions in every row (the twin's choice 60%, the heuristic's 25%, random 15%)
    and check each of the twin's choices against the reference bot's from the row's observation.
    Returns (decisions checked, decisions where the script overrode the heuristic)."""
    rng = random.Random(seed)
    policy = BATCHED_ADVERSARIES[label]()
    bots = {rules: make_bot(ADVERSARIES[label], rules) for rules in engine.rules_list}
    which = engine.rules_index.tolist()
    rows = torch.arange(engine.batch_size)
    checked = overridden = 0
    for _ in range(steps):
        obs = engine.observe().numpy()
        mask = engine.legal_mask()
        got = policy.act(engine, rows, engine.observe(), mask).tolist()
        heuristic = engine.heuristic_actions().tolist()
        masks = mask.numpy().astype(np.int8)
        actions = []
        for row in range(engine.batch_size):
            rules = engine.rules_list[which[row]]
            want = bots[rules].act({"observation": obs[row], "action_mask": masks[row]})
            assert got[row] == want, f"{label} row {row}: batched {got[row]}, reference {want}"
            checked += 1
            overridden += int(want != heuristic[row])
            u = rng.random()
            actions.append(
                got[row] if u < 0.6 else heuristic[row] if u < 0.85 else rng.choice(np.flatnonzero(masks[row]))
            )
        engine.step(torch.tensor(actions))
    return checked, overridden


#: moon variants: the bonus card is needed for the moon, the shooter chooses; and a moon needs every trick
MOON_VARIANTS = Rules.preset("source_diamond_ten", moon_requires_bonus_card=True, moon_mode="shooter_choice")
ALL_TRICKS_THREE = Rules.preset("three_player", moon_requires_all_tricks=True)


@pytest.mark.slow
@pytest.mark.usefixtures("one_torch_thread")
@pytest.mark.parametrize("label", sorted(BATCHED_ADVERSARIES))
@pytest.mark.parametrize(
    "rules",
    [Rules(), ALL_TRICKS_THREE, MOON_VARIANTS, Rules.preset("omnibus")],
    ids=["standard", "three_player_all_tricks", "moon_variants", "omnibus"],
)
def test_batched_adversary_chooses_what_the_reference_bot_chooses(label: str, rules: Rules) -> None:
    engine = BatchedHearts(rules, 12, seed=len(label))
    checked, overridden = batched_against_reference(label, engine, steps=130, seed=7)
    assert checked == 12 * 130
    assert overridden > 0  # the script itself was checked, not only the heuristic it defers to


@pytest.mark.usefixtures("one_torch_thread")
def test_batched_moon_seeker_plays_each_rule_set_of_a_mixed_batch() -> None:
    engine = MixedBatchedHearts(["standard", "spot_hearts", "omnibus"], 9, seed=3)
    checked, overridden = batched_against_reference("moon-stubborn", engine, steps=70, seed=1)
    assert checked == 9 * 70 and overridden > 0
    with pytest.raises(ValueError, match="giveup"):
        BatchedMoonSeeker(giveup="sometimes")
