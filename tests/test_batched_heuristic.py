"""The batched heuristic bot: ``engine.heuristic_actions`` chooses what ``hearts_env.bots.HeuristicBot`` chooses.

Two independent checks, both failing (never skipping) when the vector form (``VectorHeuristic``) and the
reference bot disagree:

- differential play (``play_against_reference(heuristic=True)``): at every decision the engine's choice
  must equal the reference bot's from the reference deal's observation, over play that is half the
  heuristic's and half random: every preset (16 rows, 16 deals each; 3 to 6 players), 7 and 8 players,
  a cycle of every pass kind with pass-through, random rule sets; each run's first deals take every
  pass kind the rules allow (dealer's choice included);
- the golden file ``tests/data/heuristic_golden.npz`` (``hearts_env.testing.golden``): a few hundred
  recorded decisions of the reference bot over 14 rule sets, replayed through the bot itself and, from
  their seeds and action prefixes, through ``BatchedHearts``. A change of the bot's behaviour fails here
  even if the differential tests were changed with it; a change of its comments does not.

And the harness itself: a heuristic that disagrees, or a bot whose behaviour changed, must fail.
"""

from __future__ import annotations

import zlib
from pathlib import Path

import numpy as np
import pytest
import torch
from hypothesis import HealthCheck, given, settings
from strategies import rule_sets

import hearts_env
from hearts_env import Rules
from hearts_env.batched import BatchedHearts, MixedBatchedHearts, heuristic_actions
from hearts_env.bots import HeuristicBot
from hearts_env.obs import encode
from hearts_env.testing import ReferenceHeuristicPolicy, pass_kinds_of, play_against_reference
from hearts_env.testing import golden as golden_file

GOLDEN = Path(__file__).parent / "data" / "heuristic_golden.npz"

pytestmark = pytest.mark.usefixtures("one_torch_thread")


# ---------------------------------------------------------------------------------------------- differential


@pytest.mark.parametrize("preset", hearts_env.PRESETS)
def test_preset_heuristic_matches_reference_bot(preset: str) -> None:
    rules = Rules.preset(preset)
    report = play_against_reference(rules, 16, deals=16, seed=3, heuristic=True, heuristic_share=0.5)
    assert report.deals >= 16


@pytest.mark.parametrize(
    ("preset", "options"),
    [
        ("six_to_eight", {"num_players": 7, "allow_pass_through": True}),
        ("six_to_eight", {"num_players": 8, "allow_pass_through": True, "pass_through_visible": True}),
        ("three_player", {"pass_cycle": ["left", "right", "hold", "dealer_choice", "smoosh"]}),
        ("standard", {"pass_cycle": ["left", "right", "across", "hold", "scatter", "smoosh", "dealer_choice"]}),
        ("five_player", {"pass_cycle": ["left", "left2", "right2", "dealer_choice"], "allow_pass_through": True}),
    ],
)
def test_every_pass_kind_and_player_count_heuristic_matches_reference_bot(preset: str, options: dict) -> None:
    rules = Rules.preset(preset, **options)
    report = play_against_reference(rules, 16, deals=24, seed=len(str(options)), heuristic=True, heuristic_share=0.5)
    assert set(report.pass_kinds) >= set(pass_kinds_of(rules))


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(rules=rule_sets())
def test_random_rule_set_heuristic_matches_reference_bot(rules: Rules) -> None:
    seed = zlib.crc32(repr(rules).encode())
    play_against_reference(rules, 8, deals=8, seed=seed, heuristic=True, heuristic_share=0.5)


class _Highest(BatchedHearts):
    """An engine whose "heuristic" always takes the highest legal action (often not the bot's choice)."""

    def heuristic_actions(self, rows: torch.Tensor | None = None) -> torch.Tensor:
        mask = self.legal_mask() if rows is None else self.legal_mask()[rows]
        return 67 - mask.flip(1).float().argmax(1)


def _highest(rules: Rules, batch_size: int, device: torch.device | str, seed: int) -> BatchedHearts:
    return _Highest(rules, batch_size, device=device, seed=seed)


def test_a_disagreeing_heuristic_fails_the_differential_check() -> None:
    with pytest.raises(AssertionError, match="the reference bot"):
        play_against_reference(Rules(), 8, deals=8, seed=0, heuristic=True, engine_factory=_highest)


def test_reference_policy_equals_the_bot_and_the_vector_form() -> None:
    """``ReferenceHeuristicPolicy`` (the bot row by row from the engine's observations) chooses what the
    bot chooses from the reference deal's observation, and what ``heuristic_actions`` chooses."""
    rules = Rules.preset("omnibus")
    engine = BatchedHearts(rules, 4, seed=1)
    reference = ReferenceHeuristicPolicy()
    bot = HeuristicBot(rules)
    refs = [engine.reference_deal(row) for row in range(4)]
    for _ in range(40):
        chosen = reference(engine).tolist()
        assert chosen == heuristic_actions(engine).tolist()
        for row, ref in enumerate(refs):
            mask = np.zeros(68, dtype=np.int8)
            mask[ref.legal_actions()] = 1
            assert chosen[row] == bot.act({"observation": encode(ref, ref.current_player), "action_mask": mask})
            ref.apply_action(chosen[row])
        result = engine.step(torch.tensor(chosen))
        assert not result.done.any()  # 40 decisions: still inside the first deal (64 decisions with passing)


def test_reference_policy_plays_each_rule_set_of_a_mixed_batch() -> None:
    engine = MixedBatchedHearts(["standard", "spot_hearts", "omnibus"], 9, seed=2)
    reference = ReferenceHeuristicPolicy()
    rows = torch.tensor([8, 0, 4, 5])
    for _ in range(60):
        assert torch.equal(reference(engine, rows), engine.heuristic_actions(rows))
        engine.step(engine.heuristic_actions())
    assert len(reference._bots) == 3


def test_rows_argument() -> None:
    engine = BatchedHearts(Rules(), 6, seed=0)
    everyone = heuristic_actions(engine)
    rows = torch.tensor([4, 1])
    assert heuristic_actions(engine, rows).tolist() == everyone[rows].tolist()
    mask = torch.tensor([True, False, False, True, False, False])
    assert heuristic_actions(engine, mask).tolist() == everyone[mask].tolist()
    assert heuristic_actions(engine, torch.tensor([], dtype=torch.int64)).numel() == 0
    legal = engine.legal_mask()
    assert legal[torch.arange(6), everyone].all()


def _flat(state: dict) -> dict[str, torch.Tensor]:
    """A state dict's tensors by dotted name (a mixed engine's has one level per part)."""
    out = {}
    for key, value in state.items():
        for name, tensor in _flat(value).items() if isinstance(value, dict) else [("", value)]:
            out[f"{key}.{name}" if name else key] = tensor
    return out


@pytest.mark.parametrize(
    ("rows", "message"),
    [
        (torch.tensor([0, 6]), r"rows \[6\] are outside the batch of 6"),
        (torch.tensor([-1]), r"rows \[-1\] are outside"),
        (torch.tensor([True, False]), r"shape \(6,\)"),
        (torch.tensor([0.0, 1.0]), "integer or boolean"),
        ([0, 1], "must be a tensor"),
    ],
)
@pytest.mark.parametrize("mixed", [False, True])
def test_bad_rows_raise_one_clear_error_and_change_nothing(rows: object, message: str, mixed: bool) -> None:
    engine = MixedBatchedHearts(["standard", "omnibus"], 6, seed=0) if mixed else BatchedHearts(Rules(), 6, seed=0)
    before = _flat(engine.state_dict())
    with pytest.raises(ValueError, match=message):
        engine.heuristic_actions(rows)  # type: ignore[arg-type]
    after = _flat(engine.state_dict())
    assert before.keys() == after.keys()
    for name, value in before.items():
        assert torch.equal(value, after[name]), name


# ---------------------------------------------------------------------------------------------- golden file


@pytest.fixture(scope="module")
def golden() -> golden_file.Golden:
    return golden_file.load(GOLDEN)


def test_golden_file_is_small_and_covers_the_rule_sets(golden: golden_file.Golden) -> None:
    assert GOLDEN.stat().st_size < 400_000
    assert len(golden) >= 300
    assert set(golden.rules_of.tolist()) == set(range(len(golden_file.GOLDEN_RULES)))
    assert golden.labels == [golden_file.label(p, o) for p, o in golden_file.GOLDEN_RULES]
    assert {r.num_players for r in golden.rules_list} == {3, 4, 5, 6, 7, 8}
    assert (golden.actions >= 52).sum() >= 10  # special decisions: pass-through, dealer's choice, moon, void
    assert golden.masks[np.arange(len(golden)), golden.actions].all()


def test_golden_file_replays_through_the_reference_bot(golden: golden_file.Golden) -> None:
    assert golden_file.check_reference_bot(golden) == len(golden)


def test_golden_file_replays_through_the_batched_engine(golden: golden_file.Golden) -> None:
    assert golden_file.check_engine(golden) == len(golden)


def test_a_changed_bot_fails_the_golden_file(golden: golden_file.Golden, monkeypatch: pytest.MonkeyPatch) -> None:
    """A bot that now passes its lowest card instead of its most dangerous one no longer matches."""
    monkeypatch.setattr(HeuristicBot, "_pass_card", lambda self, view, legal: min(legal))
    with pytest.raises(AssertionError, match="HeuristicBot now takes"):
        golden_file.check_reference_bot(golden)


def test_a_disagreeing_engine_fails_the_golden_file(golden: golden_file.Golden) -> None:
    with pytest.raises(AssertionError, match="heuristic_actions takes"):
        golden_file.check_engine(golden, engine_factory=_highest)


def test_golden_files_are_written_exactly_and_reproducibly(tmp_path: Path) -> None:
    specs = (("standard", {"pass_cycle": ["dealer_choice"]}), ("three_player_kitty", {}))
    first = golden_file.generate(per_rules=6, seed=11, rules_specs=specs)
    golden_file.save(first, tmp_path / "g.npz")
    back = golden_file.load(tmp_path / "g.npz")
    again = golden_file.generate(per_rules=6, seed=11, rules_specs=specs)
    for name in ("rules_of", "seeds", "observations", "masks", "actions"):
        assert np.array_equal(getattr(back, name), getattr(first, name)), name
        assert np.array_equal(getattr(again, name), getattr(first, name)), name
    assert back.prefixes == first.prefixes == again.prefixes
    assert back.labels == first.labels and back.rules_list == first.rules_list
    assert ((back.observations != 0) & (back.observations != 1)).any()  # the non-binary entries came back too
    assert golden_file.check_reference_bot(back) == golden_file.check_engine(back) == 12
