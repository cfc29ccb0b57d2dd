"""The batched torch engine (``hearts_env.batched``) against the reference engine, and its bad-input errors.

Differential tests (``hearts_env.testing.play_against_reference``): the same deals and the same
random legal actions through both engines; the seat to move and the legal set must be identical at
every decision, and done flags, cancellations and deal scores at every deal's end. Rows are followed
through their automatic resets, so the engine's own deals and deal sequence are covered too. Smoosh
deals are played with the reference deal's shuffle injected into the row (``smoosh_perm``), the one
draw the two engines make differently.

Coverage: every preset (64 rows, 256 deals each: 4,608 deals), N = 7 and 8 variants, random rule sets
from ``strategies.rule_sets`` (80 sets x 16 deals = 1,280 deals), targeted deals for the all-hearts
leader (``void_deal`` / ``leader_may_void``), and a smoosh with an explicit shuffle.

The interfaces: both engines are ``BatchEngine``s and every batched policy a ``BatchPolicy``, used alike;
``check_batched_engine`` (the harness users run on their own engines) passes ours and fails a broken one.
"""

from __future__ import annotations

import ast
import subprocess
import sys
import zlib
from pathlib import Path

import numpy as np
import pytest
import torch
from hypothesis import HealthCheck, given, settings
from strategies import rule_sets

import hearts_env
from hearts_env import InvalidDealError, Rules
from hearts_env.batched import (
    BatchedActionError,
    BatchedHearts,
    BatchedParams,
    BatchEngine,
    BatchPolicy,
    HeartsKernel,
    HeuristicPolicy,
    MixedBatchedHearts,
    ModulePolicy,
    StepResult,
    UniformRandomPolicy,
    heuristic_actions,
)
from hearts_env.core.cards import parse_cards
from hearts_env.core.deal import seeded_deal
from hearts_env.obs import encode
from hearts_env.testing import ReferenceHeuristicPolicy, check_batched_engine, play_against_reference

PRESETS = hearts_env.PRESETS

pytestmark = pytest.mark.usefixtures("one_torch_thread")


def test_torch_is_not_imported_by_the_core() -> None:
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
    with pytest.raises(ValueError, match="same number of players"):
        MixedBatchedHearts(["standard", "five_player"], 8)


# ---------------------------------------------------------------------------------------------- the interfaces


def _engines() -> list[BatchEngine]:
    return [BatchedHearts("omnibus", 6, seed=3), MixedBatchedHearts(["standard", "spot_hearts"], 6, seed=3)]


def _policies() -> list[BatchPolicy]:
    module = torch.nn.Linear(hearts_env.obs.OBSERVATION_SIZE, 68)
    return [
        UniformRandomPolicy(seed=1),
        ModulePolicy(module, generator=torch.Generator().manual_seed(2)),
        ModulePolicy(module, sample=False, name="greedy"),
        HeuristicPolicy(),
        ReferenceHeuristicPolicy(),
    ]


@pytest.mark.parametrize("which", [0, 1])
def test_both_engines_are_batch_engines(which: int) -> None:
    engine = _engines()[which]
    assert isinstance(engine, BatchEngine)
    assert callable(type(engine).heuristic_actions)
    assert engine.rules_index.shape == (6,) and engine.rules_index.dtype == torch.int64
    assert engine.rules == engine.rules_list[0]
    assert len(engine.rules_list) == 1 + which
    assert all(isinstance(g, torch.Generator) for g in engine.generators.values())
    assert isinstance(engine.step(engine.heuristic_actions()), StepResult)


def test_every_batched_policy_is_a_batch_policy() -> None:
    for policy in _policies():
        assert isinstance(policy, BatchPolicy), type(policy).__name__
        assert isinstance(policy.name, str) and policy.name
    assert not isinstance(object(), BatchPolicy) and not isinstance(object(), BatchEngine)


@pytest.mark.parametrize("which", [0, 1])
def test_policies_act_legally_for_chosen_rows_of_either_engine(which: int) -> None:
    """Every policy through ``act`` on half the rows and the same policy on the others, for whole deals:
    every action legal (``step`` refuses any other), one per chosen row."""
    engine = _engines()[which]
    policies = _policies()
    rows = torch.tensor([4, 0, 2])
    others = torch.tensor([1, 3, 5])
    for t in range(130):
        policy = policies[t % len(policies)]
        obs = engine.observe()
        mask = engine.legal_mask()
        actions = torch.empty(6, dtype=torch.int64)
        for part in (rows, others):
            chosen = policy.act(engine, part, obs[part], mask[part], torch.Generator().manual_seed(t))
            assert chosen.shape == (3,) and chosen.dtype == torch.int64
            assert mask[part, chosen].all()
            actions[part] = chosen
        engine.step(actions)


def test_the_heuristic_policies_choose_what_the_engine_heuristic_chooses() -> None:
    engine = MixedBatchedHearts(["standard", "omnibus"], 8, seed=4)
    rows = torch.tensor([7, 1, 2])
    for _ in range(70):
        obs, mask = engine.observe(), engine.legal_mask()
        expected = heuristic_actions(engine, rows)
        assert torch.equal(HeuristicPolicy().act(engine, rows, obs[rows], mask[rows]), expected)
        assert torch.equal(ReferenceHeuristicPolicy().act(engine, rows, obs[rows], mask[rows]), expected)
        assert torch.equal(HeuristicPolicy()(engine), engine.heuristic_actions())
        engine.step(engine.heuristic_actions())


@pytest.mark.parametrize("which", [0, 1])
def test_uniform_policy_call_and_act_draw_the_same_actions(which: int) -> None:
    """``policy(engine)`` works from the legal bit sets, ``act`` from the mask: the same draws."""
    engine = _engines()[which]
    fast, masked = UniformRandomPolicy(seed=9), UniformRandomPolicy(seed=9)
    everyone = torch.arange(6)
    for _ in range(100):
        actions = fast(engine)
        assert torch.equal(actions, masked.act(engine, everyone, engine.observe(), engine.legal_mask()))
        engine.step(actions)


def test_uniform_policy_is_uniform_over_the_legal_actions() -> None:
    engine = BatchedHearts(Rules(), 2, seed=0)
    mask = torch.zeros(3, 68, dtype=torch.bool)
    mask[0, [3, 17, 40, 51]] = True
    mask[1, [52, 53]] = True
    mask[2, 60] = True
    policy = UniformRandomPolicy(seed=3)
    draws = 4000
    counts = torch.zeros(3, 68)
    for _ in range(draws):
        chosen = policy.act(engine, torch.arange(3), torch.zeros(3, 1), mask)
        counts[torch.arange(3), chosen] += 1
    assert counts[~mask].sum() == 0
    for row in range(3):
        k = int(mask[row].sum())
        expected, sigma = draws / k, (draws * (1 / k) * (1 - 1 / k)) ** 0.5
        assert ((counts[row, mask[row]] - expected).abs() <= 5 * sigma + 1e-9).all(), counts[row, mask[row]]


def test_module_policy_masks_the_illegal_actions() -> None:
    """A module that prefers higher action ids: greedy takes each row's highest legal action, sampling
    only ever legal ones, reproducibly from a generator."""
    module = torch.nn.Linear(hearts_env.obs.OBSERVATION_SIZE, 68)
    with torch.no_grad():
        module.weight.zero_()
        module.bias.copy_(torch.arange(68, dtype=torch.float32) * 0.1)
    engine = BatchedHearts(Rules.preset("omnibus"), 16, seed=5)
    greedy = ModulePolicy(module, sample=False)
    for _ in range(70):
        mask = engine.legal_mask()
        highest = 67 - mask.flip(1).float().argmax(1)
        assert torch.equal(greedy(engine), highest)
        rows = torch.tensor([3, 9])
        sampled = [
            ModulePolicy(module).act(engine, rows, engine.observe()[rows], mask[rows], torch.Generator().manual_seed(s))
            for s in (1, 1, 2)
        ]
        assert torch.equal(sampled[0], sampled[1])
        assert all(mask[rows, s].all() for s in sampled)
        engine.step(highest)


class _BlindEngine(BatchedHearts):
    """An engine whose observations miss one entry (the first hand card of the seat to move shows 0)."""

    def observe(self, out: torch.Tensor | None = None) -> torch.Tensor:
        obs = super().observe(out)
        hand = hearts_env.obs.OFFSETS["hand"]
        first = obs[:, hand : hand + 52].argmax(1)
        obs[torch.arange(obs.shape[0]), hand + first] = 0.0
        return obs


def test_check_batched_engine_passes_ours_and_fails_a_broken_one() -> None:
    def ours(rules: Rules, batch_size: int, device: torch.device | str, seed: int) -> BatchedHearts:
        return BatchedHearts(rules, batch_size, device=device, seed=seed)

    def blind(rules: Rules, batch_size: int, device: torch.device | str, seed: int) -> BatchedHearts:
        return _BlindEngine(rules, batch_size, device=device, seed=seed)

    report = check_batched_engine(ours, "omnibus", deals=12, batch_size=8)
    assert report.deals >= 12 and report.observations > 12 * 40
    with pytest.raises(AssertionError, match=r"observation of seat \d differs: hand"):
        check_batched_engine(blind, "omnibus", deals=12, batch_size=8)


ROOMS = Path(hearts_env.__file__).parent


def _imports(path: Path) -> list[tuple[ast.AST, str, bool]]:
    """(node, imported module as written, inside a function?) for every import of a source file."""
    found: list[tuple[ast.AST, str, bool]] = []

    def visit(node: ast.AST, in_function: bool) -> None:
        for child in ast.iter_child_nodes(node):
            inner = in_function or isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda)
            if isinstance(child, ast.Import):
                found.extend((child, alias.name, in_function) for alias in child.names)
            elif isinstance(child, ast.ImportFrom):
                found.append((child, "." * child.level + (child.module or ""), in_function))
            visit(child, inner)

    visit(ast.parse(path.read_text()), False)
    return found


def test_the_batched_and_testing_rooms_import_at_module_level_only_and_the_heuristic_no_engine() -> None:
    for room in ("batched", "testing"):
        for path in sorted((ROOMS / room).glob("*.py")):
            inside = [name for _, name, in_function in _imports(path) if in_function]
            assert not inside, f"{path.name} imports {inside} inside a function"
    heuristic = [name for _, name, _ in _imports(ROOMS / "batched" / "heuristic.py")]
    assert not [name for name in heuristic if name.endswith(("batch", "multi", "policies"))], heuristic
