"""The batched torch engine (``hearts_env.batched``) against the reference engine, and its bad-input errors.

Differential tests (``hearts_env.batched.reference.play_against_reference``): the same deals and the same
random legal actions through both engines; the seat to move and the legal set must be identical at
every decision, and done flags, cancellations and deal scores at every deal's end. Rows are followed
through their automatic resets, so the engine's own deals and deal sequence are covered too. Smoosh
deals are played with the reference deal's shuffle injected into the row (``smoosh_perm``), the one
draw the two engines make differently.

Coverage: every preset (64 rows, 256 deals each: 4,608 deals), N = 7 and 8 variants, random rule sets
from ``strategies.rule_sets`` (80 sets x 16 deals = 1,280 deals), targeted deals for the all-hearts
leader (``void_deal`` / ``leader_may_void``), and a smoosh with an explicit shuffle.
"""

from __future__ import annotations

import zlib

import pytest
import torch
from hypothesis import HealthCheck, given, settings
from strategies import rule_sets

import hearts_env
from hearts_env import InvalidDealError, Rules
from hearts_env.batched import BatchedActionError, BatchedHearts, BatchedParams, HeartsKernel
from hearts_env.core.cards import parse_cards
from hearts_env.testing.batched_diff import play_against_reference

PRESETS = hearts_env.PRESETS

pytestmark = pytest.mark.usefixtures("one_torch_thread")


def test_torch_is_not_imported_by_the_core() -> None:
    import subprocess
    import sys

    code = "import sys, hearts_env, hearts_env.core; assert 'torch' not in sys.modules"
    subprocess.run([sys.executable, "-c", code], check=True)


# ---------------------------------------------------------------------------------------------- differential


@pytest.mark.parametrize("preset", PRESETS)
def test_presets_match_reference(preset: str) -> None:
    report = play_against_reference(Rules.preset(preset), 64, deals=256, seed=PRESETS.index(preset))
    assert report.deals >= 256


@pytest.mark.parametrize("num_players", [7, 8])
def test_many_players_match_reference(num_players: int) -> None:
    rules = Rules.preset("six_to_eight", num_players=num_players, allow_pass_through=True)
    report = play_against_reference(rules, 64, deals=128, seed=num_players)
    assert report.actions[53] > 0  # pass-through declarations happened


@pytest.mark.parametrize(
    "options",
    [
        {"deal_remainder": "kitty", "num_players": 5, "kitty_taker": "one_card_per_trick"},
        {"deal_remainder": "kitty", "num_players": 7, "kitty_taker": "first_penalty_taker"},
        {"deal_remainder": "kitty", "num_players": 8, "removed_cards": ["2C", "3C", "4C", "5C", "6C"]},
        {"moon_mode": "add_unless_shooter_loses", "exact_score_resets": {100: 50}, "sun_enabled": True},
        {"moon_mode": "shooter_choice", "sun_enabled": True, "no_tricks_adjustment": -5},
        {"queen_must_be_played_when_safe": True, "no_points_on_first_trick": True, "first_lead": "eldest_any_card"},
        {"first_trick_points_fallback": "heart_before_queen", "no_points_on_first_trick": True},
        {"queen_and_hearts_only_may_lead_heart": True, "queen_breaks_hearts": True},
        {"allow_pass_through": True, "pass_through_visible": True, "pass_cycle": ["left", "across", "dealer_choice"]},
    ],
)
def test_variants_match_reference(options: dict) -> None:
    report = play_against_reference(Rules(**options), 32, deals=64, seed=len(str(options)))
    assert report.deals >= 64


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(rules=rule_sets())
def test_random_rule_sets_match_reference(rules: Rules) -> None:
    play_against_reference(rules, 16, deals=16, seed=zlib.crc32(repr(rules).encode()))


def _all_hearts_leader_deal() -> dict:
    """Seat 0 holds AC and twelve hearts: it wins the first trick with AC and must lead with only hearts."""
    hearts = "2H 3H 4H 5H 6H 7H 8H 9H TH JH QH KH"
    return {
        "hands": [
            parse_cards("AC " + hearts),
            parse_cards("2C 3C 4C 5C AH 2D 3D 4D 5D 6D 7D 8D 9D"),
            parse_cards("6C 7C 8C 9C TD JD QD KD AD 2S 3S 4S 5S"),
            parse_cards("TC JC QC KC 6S 7S 8S 9S TS JS QS KS AS"),
        ],
        "dealer": 3,
        "pass_kind": "hold",
    }


@pytest.mark.parametrize("mode", ["void_deal", "leader_may_void"])
def test_all_hearts_leader_matches_reference(mode: str) -> None:
    rules = Rules(all_hearts_leader_unbroken=mode)
    report = play_against_reference(rules, 16, deals=16, seed=5, first_deals=[_all_hearts_leader_deal()] * 16)
    assert report.cancelled > 0
    if mode == "leader_may_void":
        assert report.actions[64] > 0 and report.actions[65] > 0


def test_explicit_smoosh_shuffle() -> None:
    """A smoosh with a given shuffle: position i from eldest hand receives pool[perm[i]]."""
    rules = Rules(pass_cycle=["smoosh"])
    engine = BatchedHearts(rules, 2, seed=0)
    spec = engine.export(0)
    perm = list(range(12))  # identity: eldest hand gets pool[0], pool[4], pool[8]
    engine.load([0], [spec["hands"]], dealer=0, smoosh_perm=[perm])
    passed = []
    for _ in range(12):
        mask = engine.legal_mask()
        row0 = int(torch.nonzero(mask[0])[0])
        row1 = int(torch.nonzero(mask[1])[0])
        passed.append(row0)
        engine.step(torch.tensor([row0, row1]))
    hands = engine.state.hands[0].tolist()
    order = [1, 2, 3, 0]  # eldest hand first
    for j, card in enumerate(passed):
        receiver = order[j % 4]
        assert hands[receiver] >> card & 1, (j, card, receiver)


# ---------------------------------------------------------------------------------------------- the API


def test_same_seed_same_play() -> None:
    def run(seed: int) -> list[list[int]]:
        engine = BatchedHearts(Rules.preset("omnibus"), 32, seed=seed)
        gen = torch.Generator().manual_seed(1)
        out = []
        for _ in range(150):
            mask = engine.legal_mask()
            actions = (torch.rand(mask.shape, generator=gen) * mask).argmax(1)
            result = engine.step(actions)
            out.append(result.scores.sum(1).tolist() + engine.state.hands.sum(1).tolist())
        return out

    assert run(3) == run(3)
    assert run(3) != run(4)


def test_transition_is_pure() -> None:
    """The kernel returns a new state and leaves its input untouched."""
    kernel = HeartsKernel(BatchedParams.from_rules(Rules()), "cpu")
    gen = torch.Generator().manual_seed(0)
    state = kernel.initial(8, gen)
    for _ in range(70):
        before = state.clone()
        mask = kernel.legal_mask(state)
        actions = mask.float().argmax(1)
        new, _ = kernel.transition(state, actions, gen)
        for name, value in vars(before).items():
            assert torch.equal(value, getattr(state, name)), name
        state = new


def test_step_results_shapes_and_rewards() -> None:
    engine = BatchedHearts(Rules(), 16, seed=1)
    ended = 0
    for _ in range(80):
        mask = engine.legal_mask()
        assert mask.shape == (16, 68) and mask.dtype == torch.bool
        assert mask.any(1).all()
        result = engine.step(mask.float().argmax(1))
        assert result.rewards.shape == (16, 4) and result.rewards.dtype == torch.float32
        assert torch.equal(result.rewards, -result.scores.float())
        assert not result.scores[~result.done].any()
        ended += int(result.done.sum())
        if result.done.any():
            sums = result.scores[result.done].sum(1)
            assert ((sums == 26) | (sums == -26)).all()  # standard: 26 points a deal, or a moon (-26)
    assert ended >= 16


# ---------------------------------------------------------------------------------------------- bad input


def test_illegal_actions_name_rows_and_actions() -> None:
    engine = BatchedHearts(Rules(), 8, seed=0)
    before = engine.state.clone()
    mask = engine.legal_mask()
    actions = mask.float().argmax(1)
    illegal = int(torch.nonzero(~mask[5])[0])
    actions[5] = illegal
    actions[2] = 99
    with pytest.raises(BatchedActionError) as err:
        engine.step(actions)
    assert err.value.rows == [2, 5]
    assert err.value.actions == [99, illegal]
    assert "row 2" in str(err.value) and "row 5" in str(err.value) and "out of range" in str(err.value)
    assert isinstance(err.value, hearts_env.IllegalActionError)
    for name, value in vars(before).items():
        assert torch.equal(value, getattr(engine.state, name)), name


@pytest.mark.parametrize(
    "bad",
    [
        torch.zeros(7, dtype=torch.int64),
        torch.zeros(8, 1, dtype=torch.int64),
        torch.zeros(8, dtype=torch.float32),
        torch.zeros(8, dtype=torch.bool),
        [0] * 8,
        torch.zeros(8, dtype=torch.int64, device="meta"),
    ],
)
def test_malformed_actions_raise(bad: object) -> None:
    engine = BatchedHearts(Rules(), 8, seed=0)
    with pytest.raises(BatchedActionError):
        engine.step(bad)  # type: ignore[arg-type]


def test_negative_action_raises() -> None:
    engine = BatchedHearts(Rules(), 4, seed=0)
    actions = engine.legal_mask().float().argmax(1)
    actions[0] = -1
    with pytest.raises(BatchedActionError) as err:
        engine.step(actions)
    assert err.value.rows == [0]


def test_load_rejects_invalid_deals() -> None:
    engine = BatchedHearts(Rules(), 4, seed=0)
    spec = engine.export(0)
    hands = spec["hands"]
    with pytest.raises(InvalidDealError, match="dealt twice"):
        engine.load([0], [[hands[0], hands[0], hands[2], hands[3]]])
    with pytest.raises(InvalidDealError, match="holds 12 cards"):
        engine.load([0], [[hands[0][1:], hands[1], hands[2], hands[3]]])
    with pytest.raises(InvalidDealError, match="across"):
        BatchedHearts(Rules.preset("three_player"), 2, seed=0).load(
            [0], [BatchedHearts(Rules.preset("three_player"), 1, seed=0).export(0)["hands"]], pass_kind="across"
        )
    with pytest.raises(InvalidDealError, match="permutation"):
        engine.load([0], [hands], smoosh_perm=[[0] * 12])
    with pytest.raises(InvalidDealError, match="distinct"):
        engine.load([0, 0], [hands, hands])


def test_load_rejects_deal_cancelled_before_any_decision() -> None:
    rules = Rules(all_hearts_leader_unbroken="void_deal", first_lead="eldest_any_card")
    engine = BatchedHearts(rules, 2, seed=0)
    deal = _all_hearts_leader_deal()
    hands = [deal["hands"][1], deal["hands"][0], deal["hands"][2], deal["hands"][3]]
    hands[1] = parse_cards("2H 3H 4H 5H 6H 7H 8H 9H TH JH QH KH AH")
    hands[0] = parse_cards("2C 3C 4C 5C AC 2D 3D 4D 5D 6D 7D 8D 9D")
    with pytest.raises(InvalidDealError, match="cancelled before any decision"):
        engine.load([0], [hands], dealer=0, pass_kind="hold")


def test_match_episodes_are_refused_by_name() -> None:
    with pytest.raises(NotImplementedError, match="game_end_threshold"):
        BatchedHearts(Rules(), 2, episode="match")


def test_bad_rules_argument() -> None:
    with pytest.raises(TypeError):
        BatchedParams.from_rules("standard")  # type: ignore[arg-type]
    with pytest.raises(hearts_env.RulesError):
        BatchedHearts("no_such_preset", 2)


@pytest.mark.skipif(not torch.cuda.is_available(), reason="no CUDA device")
def test_cuda_matches_reference() -> None:
    report = play_against_reference(Rules.preset("omnibus"), 64, deals=128, seed=0, device="cuda")
    assert report.deals >= 128


def test_random_deals_are_uniformly_dealt() -> None:
    """Every card reaches every seat about equally often (a sanity check of the shuffle)."""
    engine = BatchedHearts(Rules(), 4096, seed=12345)
    counts = torch.zeros(4, 52)
    for p in range(4):
        counts[p] = ((engine.state.dealt[:, p : p + 1] >> torch.arange(52)) & 1).sum(0).float()
    assert counts.sum(0).eq(4096).all()
    assert (counts - 1024).abs().max() < 150


@pytest.mark.parametrize("preset", ["standard", "omnibus", "five_player"])
def test_seeded_deals_load_as_the_reference_deals_them_and_play_the_same(preset):
    """``load_seeded``: the rows hold ``seeded_deal(rules, seed)`` (the env's and the tournaments' deal
    for that seed), every pass kind of the cycle included, and play on identically (first-legal play)."""
    import numpy as np

    from hearts_env.core.deal import seeded_deal
    from hearts_env.obs import encode

    rules = Rules.preset(preset)
    seeds = list(range(100, 124))
    engine = BatchedHearts(rules, batch_size=len(seeds), seed=0)
    engine.load_seeded(range(len(seeds)), seeds)
    refs = [seeded_deal(rules, seed) for seed in seeds]
    assert len({ref.cycle_kind for ref in refs}) > 1
    for _ in range(20):
        obs = engine.observe().numpy()
        mask = engine.legal_mask()
        for row, ref in enumerate(refs):
            assert np.array_equal(obs[row], encode(ref, ref.current_player)), (preset, seeds[row])
            assert sorted(torch.nonzero(mask[row]).flatten().tolist()) == sorted(ref.legal_actions())
        actions = torch.tensor([min(ref.legal_actions()) for ref in refs])
        for ref, action in zip(refs, actions.tolist(), strict=True):
            ref.apply_action(action)
        engine.step(actions)


def test_a_mixed_batch_plays_each_rule_set_in_its_own_rows_exactly_as_that_engine_alone():
    """``MixedBatchedHearts``: rows of each part see, mask and score exactly what a ``BatchedHearts`` of
    that rule set alone does with the same seed and actions; the heuristic dispatches per part."""
    from hearts_env.batched import MixedBatchedHearts, heuristic_actions

    presets = ["standard", "microsoft", "omnibus"]
    mixed = MixedBatchedHearts(presets, 10, seed=5)
    alone = [
        BatchedHearts(p, batch_size=size, seed=5 + 7919 * i)
        for i, (p, size) in enumerate(zip(presets, [4, 3, 3], strict=True))
    ]
    assert mixed.rules_index.tolist() == [0] * 4 + [1] * 3 + [2] * 3
    for _ in range(150):
        actions = heuristic_actions(mixed, None)
        assert torch.equal(actions, torch.cat([heuristic_actions(e, None) for e in alone]))
        assert torch.equal(mixed.observe(), torch.cat([e.observe() for e in alone]))
        assert torch.equal(mixed.legal_mask(), torch.cat([e.legal_mask() for e in alone]))
        some = torch.tensor([1, 5, 9])
        assert torch.equal(heuristic_actions(mixed, some), actions[some])
        result = mixed.step(actions)
        parts = [e.step(a) for e, a in zip(alone, actions.split([4, 3, 3]), strict=True)]
        assert torch.equal(result.scores, torch.cat([r.scores for r in parts]))
        assert torch.equal(result.done, torch.cat([r.done for r in parts]))


def test_a_mixed_batch_refuses_rule_sets_of_different_player_counts():
    from hearts_env.batched import MixedBatchedHearts

    with pytest.raises(ValueError, match="same number of players"):
        MixedBatchedHearts(["standard", "five_player"], 8)
