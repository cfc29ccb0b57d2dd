"""The belief sampler and the search bots (hearts_env.bots.belief, hearts_env.bots.search)."""

from __future__ import annotations

import itertools
import math
import random
from collections import Counter

import numpy as np
import pytest

from hearts_env.bots import HeuristicBot, make_bot
from hearts_env.bots.belief import BeliefSampler, Constraints
from hearts_env.bots.rollout import HeuristicRollout, view_voids
from hearts_env.bots.search import ISMCTSBot, OwnSeatRollout, PIMCBot, equivalent_cards, search_bot, trick_agrees
from hearts_env.core import Rules
from hearts_env.core.cards import QS
from hearts_env.core.deal import PLAYING, seeded_deal
from hearts_env.core.presets import PRESETS
from hearts_env.envs.gym_env import HeartsGymEnv
from hearts_env.obs import SeatedTable, decode_observation, encode, encode_view, seat_view
from hearts_env.tournament import run_tournament

RULE_SETS = {
    "standard": Rules.load("standard"),
    "three_player": Rules.load("three_player"),
    "three_player_kitty": Rules.load("three_player_kitty"),
    "three_player_scatter": Rules.load("three_player_scatter"),
    "five_player": Rules.load("five_player"),
    "six": Rules.load("six_to_eight"),
    "eight": Rules.load("six_to_eight", num_players=8),
    "smoosh": Rules.load("standard", pass_cycle=["smoosh"]),
    "pass_through": Rules.load(
        "five_player", pass_cycle=["left", "right2"], allow_pass_through=True, pass_through_visible=True
    ),
    "dealer_choice_kitty": Rules.load(
        "three_player_kitty", pass_cycle=["dealer_choice"], kitty_taker="one_card_per_trick"
    ),
    "leader_may_void": Rules.load("omnibus", all_hearts_leader_unbroken="leader_may_void"),
}


def _views(rules: Rules, deals: int, rate: float, seed: int):
    """(true deal, seat, decoded view, legal) at random points of random play."""
    rng = random.Random(seed)
    for d in range(deals):
        deal = seeded_deal(rules, seed * 1000 + d)
        while not deal.is_terminal():
            seat = deal.current_player
            legal = deal.legal_actions()
            if rng.random() < rate:
                view = decode_observation(encode_view(seat_view(deal, seat), rules), rules)
                yield deal, seat, view, legal
            deal.apply_action(rng.choice(legal))


@pytest.mark.parametrize("name", sorted(RULE_SETS))
def test_sampled_worlds_match_the_view(name: str) -> None:
    rules = RULE_SETS[name]
    sampler = BeliefSampler(rules)
    rng = random.Random(5)
    n = rules.num_players
    checked = 0
    for deal, seat, view, legal in _views(rules, deals=6, rate=0.25, seed=3):
        world = sampler.sample(view, rng, legal)
        assert seat_view(world, 0) == view
        assert world.legal_actions() == legal
        assert world.current_player == 0
        for r in range(n):  # hand sizes; and no world card contradicts a shown void
            assert world.hands[r].bit_count() == deal.hands[(seat + r) % n].bit_count()
            for suit in view.void_in[r]:
                assert not world.hands[r] >> (13 * suit) & 0x1FFF
        assert (
            sorted(world.kitty_cards)
            == sorted(c for c in rules.tables.deck if not any(h >> c & 1 for h in world.hands) and c not in view.played)
            or world.phase != PLAYING
        )
        checked += 1
    assert checked > 20


def test_worlds_play_on_to_the_end() -> None:
    rules = RULE_SETS["three_player_kitty"]
    sampler = BeliefSampler(rules, exact_history=False)
    rng = random.Random(2)
    for _, _, view, legal in _views(rules, deals=3, rate=0.2, seed=8):
        world = sampler.sample(view, rng, legal)
        while not world.is_terminal():
            world.apply_action(rng.choice(world.legal_actions()))
        assert world.result is not None and len(world.scores) == rules.num_players


def _consistent_deals(rules: Rules, view) -> list[tuple]:
    """Every consistent placement of the unseen cards, by brute force over the constraints."""
    con = Constraints(rules, view)
    n = rules.num_players
    unseen = [c for c in range(52) if con.unseen >> c & 1]
    locations = [loc for loc in range(1, n + 1) if con.capacity[loc] > 0]
    out = []
    for place in itertools.product(locations, repeat=len(unseen)):
        counts = Counter(place)
        if any(counts[loc] != con.capacity[loc] for loc in locations):
            continue
        ok = True
        for card, loc in zip(unseen, place, strict=True):
            k = card // 13 + (4 if card in [c for k2 in range(4, 8) for c in con.classes[k2]] else 0)
            if k not in con.accepts[loc]:
                ok = False
                break
        if ok:
            out.append(tuple(sorted(zip(unseen, place, strict=True))))
    return out


def _chi_square_critical(df: int, z: float = 3.09) -> float:
    """Wilson-Hilferty: the chi-square quantile at one-sided normal quantile ``z`` (3.09: p = 0.001)."""
    return df * (1 - 2 / (9 * df) + z * math.sqrt(2 / (9 * df))) ** 3


@pytest.mark.parametrize("name", ["standard", "three_player_kitty"])
def test_sampler_is_uniform_over_consistent_deals(name: str) -> None:
    rules = RULE_SETS[name]
    n = rules.num_players
    # a late position with a void shown and a few dozen consistent deals
    found = None
    for seed in range(200):
        for _, _, view, _ in _views(rules, deals=1, rate=1.0, seed=seed):
            con = Constraints(rules, view)
            if view.phase != "playing" or con.unseen.bit_count() > 8 or not any(view.void_in[1:]):
                continue
            deals = _consistent_deals(rules, view)
            if 6 <= len(deals) <= 60:
                found = view, deals
                break
        if found:
            break
    assert found is not None
    view, deals = found
    sampler = BeliefSampler(rules)
    rng = random.Random(11)
    draws = 60 * len(deals)
    counts: Counter = Counter()
    for _ in range(draws):
        hands, kitty = sampler.sample_hands(view, rng)
        key = []
        for loc in range(1, n):
            key.extend((c, loc) for c in range(52) if hands[loc] >> c & 1 and not view.played_by[loc].count(c))
        key.extend((c, n) for c in kitty)
        con = Constraints(rules, view)
        key = tuple(sorted((c, loc) for c, loc in key if con.unseen >> c & 1))
        counts[key] += 1
    assert set(counts) <= set(deals)  # never an inconsistent deal
    expected = draws / len(deals)
    stat = sum((counts[d] - expected) ** 2 / expected for d in deals)
    assert stat < _chi_square_critical(len(deals) - 1)


# ---------------------------------------------------------------------------------------------
# The bots
# ---------------------------------------------------------------------------------------------


def _observations(rules: Rules, deals: int, seed: int) -> list[dict]:
    out = []
    rng = random.Random(seed)
    for d in range(deals):
        table = SeatedTable(rules)
        deal = seeded_deal(rules, seed + d)
        table.start(deal)
        while not deal.is_terminal():
            obs = table.observation(deal.current_player)
            if len(deal.legal_actions()) > 1:
                out.append(obs)
            table.apply(rng.choice(deal.legal_actions()))
    return out


SPECS = [
    "pimc:worlds=3",
    "pimc:worlds=3,weigh=1",
    "pimc:worlds=2,rollout=random,passing=search",
    "ismcts:iterations=20",
]


@pytest.mark.parametrize("spec", SPECS)
@pytest.mark.parametrize("name", ["standard", "three_player_kitty", "pass_through", "dealer_choice_kitty", "smoosh"])
def test_search_bots_play_legal_and_deterministic(spec: str, name: str) -> None:
    rules = RULE_SETS[name]
    observations = _observations(rules, deals=1, seed=4)[::3]
    a = make_bot(spec, rules, seed=7)
    b = make_bot(spec, rules, seed=7)
    for obs in observations:
        x, y = a.act(obs), b.act(obs)
        assert x == y
        assert obs["action_mask"][x] == 1


def test_single_legal_action_needs_no_search() -> None:
    rules = RULE_SETS["standard"]
    bot = PIMCBot(rules, 0, worlds=1)
    bot.sampler = None  # type: ignore[assignment]  # would fail if a world were drawn
    mask = np.zeros(68, np.int8)
    mask[5] = 1
    assert bot.act({"observation": np.zeros(2577, np.float32), "action_mask": mask}) == 5


def test_reset_replays() -> None:
    rules = RULE_SETS["standard"]
    observations = _observations(rules, deals=1, seed=9)[20:30]
    bot = PIMCBot(rules, 3, worlds=2)
    first = [bot.act(o) for o in observations]
    bot.reset(3)
    assert [bot.act(o) for o in observations] == first


def test_specs() -> None:
    rules = RULE_SETS["standard"]
    bot = search_bot("pimc:worlds=5,rollout=random,passing=search,margin=1", rules, 0)
    assert isinstance(bot, PIMCBot) and bot.worlds == 5 and bot.rollout_name == "random" and bot.margin == 1.0
    assert isinstance(make_bot("ismcts:iterations=9", rules), ISMCTSBot)
    colon = search_bot("pimc:worlds=4:rollout=mixed", rules, 0)
    assert isinstance(colon, PIMCBot) and colon.worlds == 4 and colon.rollout_name == "mixed"
    assert isinstance(make_bot("pimc", rules), PIMCBot)
    assert search_bot("pimc:weigh=0", rules, 0).weigh is False and search_bot("pimc", rules, 0).weigh is True
    bad_specs = ("pimc:worlds", "pimc:depth=3", "pimc:iterations=3", "ismcts:worlds=3", "pimc:passing=never")
    bad_specs += ("pimc:weigh=2", "ismcts:weigh=1")
    for bad in bad_specs:
        with pytest.raises(ValueError):
            make_bot(bad, rules)


def test_pimc_in_a_tournament_and_the_gym_env() -> None:
    result = run_tournament(["pimc:worlds=2", "heuristic"], "standard", deals=1, seed=0, progress=False)
    assert [b.label for b in result.bots] == ["pimc:worlds=2", "heuristic"]
    env = HeartsGymEnv("three_player", opponents="pimc:worlds=1")
    env.reset(seed=1)
    done = False
    while not done:
        action = int(np.flatnonzero(env.action_masks())[0])
        _, _, terminated, truncated, _ = env.step(action)
        done = terminated or truncated


# ---------------------------------------------------------------------------------------------
# PIMC with a model prior (pimc:prior=<model>)
# ---------------------------------------------------------------------------------------------


def _prior_probabilities(bot: PIMCBot, obs: dict) -> np.ndarray:
    probs = bot.prior_probabilities(obs)
    legal = np.flatnonzero(obs["action_mask"])
    assert probs.sum() == pytest.approx(1.0) and np.all(probs[np.flatnonzero(obs["action_mask"] == 0)] == 0)
    assert np.all(probs[legal] > 0)
    return probs


def test_prior_plays_the_models_move_where_it_is_sure_and_searches_only_its_plausible_moves() -> None:
    rules = RULE_SETS["standard"]
    observations = _observations(rules, deals=2, seed=11)
    model = make_bot("ppo-robust", rules)
    bot = make_bot("pimc:prior=ppo-robust,worlds=3,confident=0.9,floor=0.1", rules, seed=5)
    assert isinstance(bot, PIMCBot)
    sure = unsure = 0
    for obs in observations:
        probs = _prior_probabilities(bot, obs)
        favourite = model.act(obs)
        assert probs[favourite] == probs.max()
        before = bot.searched
        action = bot.act(obs)
        view = decode_observation(obs["observation"], rules)
        if probs[favourite] >= 0.9 or view.phase == "passing":
            assert action == favourite and bot.searched == before
            sure += 1
        elif bot.searched > before:
            assert probs[action] >= 0.1 or action == favourite  # never a move the model all but rules out
            unsure += 1
    assert sure and unsure  # both paths were taken


def test_prior_with_floor_zero_searches_every_legal_action_as_plain_pimc_does() -> None:
    rules = RULE_SETS["standard"]
    observations = _observations(rules, deals=1, seed=12)
    observations = [o for o in observations if decode_observation(o["observation"], rules).phase == "playing"]
    prior = make_bot("pimc:prior=ppo-robust,worlds=4,confident=1,floor=0", rules, seed=2)
    plain = make_bot("pimc:worlds=4", rules, seed=2)
    compared = 0
    for obs in observations:
        prior.reset(2)
        plain.reset(2)
        before = prior.searched
        action = prior.act(obs)
        if prior.searched > before:
            assert action == plain.act(obs)
            compared += 1
    assert compared > 5


def test_prior_is_deterministic_plays_in_tournaments_and_refuses_bad_options() -> None:
    rules = RULE_SETS["standard"]
    observations = _observations(rules, deals=1, seed=13)[::2]
    a = make_bot("pimc:prior=ppo-robust,worlds=2", rules, seed=7)
    b = make_bot("pimc:prior=ppo-robust:worlds=2", rules, seed=7)
    assert [a.act(o) for o in observations] == [b.act(o) for o in observations]
    assert a.confident == 0.99 and a.floor == 0.01
    result = run_tournament(["pimc:prior=ppo-robust,worlds=2", "heuristic"], rules, deals=1, progress=False)
    assert result.bots[0].label == "pimc:prior=ppo-robust,worlds=2" and result.bots[0].deals == 4
    bad = {
        "pimc:confident=0.5": "give prior=<model> too",
        "pimc:prior=ppo-robust,confident=0": "confident is a probability",
        "pimc:prior=ppo-robust,floor=1": "floor is a probability",
        "pimc:prior=ppo-robust,floor=x": "floor is a number",
        "ismcts:prior=ppo-robust": "ismcts takes iterations=",
        "pimc:prior=no-such-model": "no-such-model",
    }
    for spec, reason in bad.items():
        with pytest.raises(ValueError, match=reason):
            make_bot(spec, rules)
    with pytest.raises(ValueError, match="rules"):
        make_bot("pimc:prior=ppo-standard", "microsoft")  # a model refuses rules it was not trained for


def test_own_seat_rollout_plays_the_model_for_the_searching_seat_and_the_heuristic_bot_for_the_others() -> None:
    rules = RULE_SETS["standard"]
    model = make_bot("ppo-tuned", rules)
    heuristic = HeuristicBot(rules)
    rollout_policy = OwnSeatRollout(rules, model)
    own_choices = other_choices = 0
    for seed in range(3):
        start = seeded_deal(rules, 40 + seed)
        played = rollout_policy.play_out(start.clone(), [0] * rules.num_players)
        assert played.is_terminal()
        replay = start.clone()
        for action in played.actions[len(start.actions) :]:
            legal = replay.legal_actions()
            if len(legal) > 1:
                seat = replay.current_player
                mask = np.zeros(68, np.int8)
                mask[legal] = 1
                obs = {"observation": encode(replay, seat), "action_mask": mask}
                expected = model.act(obs) if seat == 0 else heuristic.act(obs)
                assert action == expected, (seat, action, expected)
                own_choices += seat == 0
                other_choices += seat != 0
            replay.apply_action(action)
        assert replay.scores == played.scores
    assert own_choices > 20 and other_choices > 60


def test_own_option_scores_candidates_by_the_models_continuation_and_refuses_other_rollouts() -> None:
    rules = RULE_SETS["standard"]
    observations = _observations(rules, deals=1, seed=14)[::3]
    a = make_bot("pimc:prior=ppo-tuned,own=ppo-tuned,worlds=2", rules, seed=3)
    b = make_bot("pimc:prior=ppo-tuned:own=ppo-tuned:worlds=2", rules, seed=3)
    assert isinstance(a, PIMCBot) and isinstance(a.policy, OwnSeatRollout)
    assert [a.act(o) for o in observations] == [b.act(o) for o in observations]
    a.reset(4)
    assert isinstance(a.policy, OwnSeatRollout)  # a reset keeps the seat's own continuation
    result = run_tournament(["pimc:own=ppo-tuned,worlds=2", "heuristic"], rules, deals=1, progress=False)
    assert result.bots[0].deals == 4
    for spec, reason in {
        "pimc:own=ppo-tuned,rollout=lean": "rollout must be heuristic",
        "ismcts:own=ppo-tuned": "ismcts takes iterations=",
        "pimc:own=no-such-model": "no-such-model",
    }.items():
        with pytest.raises(ValueError, match=reason):
            make_bot(spec, rules)


# ---------------------------------------------------------------------------------------------
# The heuristic rollout
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_heuristic_rollout_plays_exactly_as_the_heuristic_bot(preset: str) -> None:
    """Every play decision with a choice, at heuristic play with a fifth of the moves random (so the
    positions include moon threats, voids and odd leads), is the heuristic bot's own."""
    rules = Rules.load(preset)
    bot, fast = HeuristicBot(rules), HeuristicRollout(rules)
    n = rules.num_players
    rng = random.Random(1)
    decisions = 0
    for d in range(6):
        table = SeatedTable(rules)
        deal = seeded_deal(rules, d)
        table.start(deal)
        while not deal.is_terminal():
            seat = deal.current_player
            obs = table.observation(seat)
            legal = deal.legal_actions()
            want = bot.act(obs)
            if deal.phase == PLAYING and len(legal) > 1:
                relative = view_voids(seat_view(deal, seat).void_in)
                voids = [relative[(p - seat) % n] for p in range(n)]
                assert fast.decide(deal, voids) == want, (preset, d, deal.trick, deal.hands[seat])
                decisions += 1
            table.apply(want if rng.random() < 0.8 else rng.choice(legal))
    assert decisions > 100


def test_heuristic_rollout_plays_out_as_four_heuristic_bots() -> None:
    """``play_out`` from the start of a deal ends exactly where four heuristic bots end, voids tracked."""
    rules = Rules.load("standard")
    fast = HeuristicRollout(rules)
    for seed in range(5):
        deal = seeded_deal(rules, seed)
        table = SeatedTable(rules)
        reference = seeded_deal(rules, seed)
        table.start(reference)
        bots = [HeuristicBot(rules) for _ in range(4)]
        while not reference.is_terminal():
            table.apply(bots[reference.current_player].act(table.observation(reference.current_player)))
        while deal.phase != PLAYING:  # the pass, as the heuristic bot passes
            deal.apply_action(fast.decide(deal, [0] * 4))
        voids = [0] * 4
        fast.play_out(deal, voids)
        assert deal.actions == reference.actions and deal.scores == reference.scores
        assert voids == [sum(1 << s for s in set(row)) for row in seat_view(reference, 0).void_in]


def test_the_true_world_agrees_with_heuristic_plays() -> None:
    """At heuristic self-play, the true hands (put in a world as the sampler builds one) always agree with
    the current trick's plays, so the filter of ``draw_worlds`` never sets the truth aside; and some
    sampled worlds do not agree (the filter has something to do)."""
    rules = Rules.load("standard")
    n = rules.num_players
    sampler = BeliefSampler(rules, exact_history=False)
    policy = HeuristicRollout(rules)
    rng = random.Random(3)
    bot = HeuristicBot(rules)
    checked = disagreed = 0
    for d in range(6):
        table = SeatedTable(rules)
        deal = seeded_deal(rules, d)
        table.start(deal)
        while not deal.is_terminal():
            seat = deal.current_player
            obs = table.observation(seat)
            if deal.phase == PLAYING and deal.trick and len(deal.legal_actions()) > 1:
                view = decode_observation(obs["observation"], rules)
                hands = [deal.hands[(seat + r) % n] for r in range(n)]
                truth = sampler._after_pass(view, hands, list(deal.kitty_cards), rng)
                assert trick_agrees(truth, view, policy)
                disagreed += not trick_agrees(sampler.sample(view, rng), view, policy)
                checked += 1
            table.apply(bot.act(obs))
    assert checked > 50 and disagreed > 5


def test_equivalent_cards() -> None:
    """Cards of a suit with only earlier tricks' cards between them are one class; a card of the current
    trick, an unseen card, a change of value or the ♠Q between them splits it."""
    rules = RULE_SETS["standard"]
    found = 0
    for _, _, view, legal in _views(rules, deals=8, rate=0.5, seed=21):
        if view.phase != "playing" or legal[0] >= 52:
            continue
        classes = equivalent_cards(view, legal, rules)
        assert sorted(a for group in classes for a in group) == legal
        dead = {c for row in view.played_by for c in row} - set(view.trick)
        for group in classes:
            for lo, hi in itertools.pairwise(group):
                assert lo // 13 == hi // 13 and QS not in (lo, hi)
                assert rules.tables.card_values[lo] == rules.tables.card_values[hi]
                assert all(c in dead for c in range(lo + 1, hi))
        for first, second in itertools.pairwise(classes):
            lo, hi = first[-1], second[0]
            split = (
                lo // 13 != hi // 13
                or QS in (lo, hi)
                or rules.tables.card_values[lo] != rules.tables.card_values[hi]
                or not all(c in dead for c in range(lo + 1, hi))
            )
            assert split
        found += len(legal) - len(classes)
    assert found > 10


def test_default_pimc_copies_choose_alike() -> None:
    """The default bot (heuristic rollouts, equivalent cards, weighing), and one that keeps every world, pickle and copy
    mid-stream, and the copy chooses as the original does."""
    import copy
    import pickle

    rules = RULE_SETS["standard"]
    observations = _observations(rules, deals=1, seed=12)[16:24]
    for bot in (PIMCBot(rules, 5, worlds=4), PIMCBot(rules, 5, worlds=4, weigh=False)):
        bot.act(observations[0])
        twins = [copy.deepcopy(bot), pickle.loads(pickle.dumps(bot))]
        first = [bot.act(o) for o in observations[1:]]
        for twin in twins:
            assert [twin.act(o) for o in observations[1:]] == first
