"""The batched heuristic bot: ``heuristic_actions`` chooses what ``hearts_env.bots.HeuristicBot`` chooses.

Every seat of every row plays the heuristic; at each decision the batched choice must equal the reference
bot's choice from the reference deal's observation (``play_against_reference(heuristic=True)``): every
preset (16 rows, 16 deals each) and random rule sets. The vectorized form reproduces one version of the
reference bot's source (``REFERENCE_FINGERPRINT``); when that bot changes, ``heuristic_actions`` falls back
to the exact row-by-row bot and the vector-form tests are skipped with a note to update it.
"""

from __future__ import annotations

import zlib

import pytest
import torch
from hypothesis import HealthCheck, given, settings
from strategies import rule_sets

import hearts_env
from hearts_env import Rules
from hearts_env.batched import BatchedHearts, heuristic_actions
from hearts_env.batched.heuristic import REFERENCE_FINGERPRINT, reference_fingerprint
from hearts_env.testing.batched_diff import play_against_reference

pytest.importorskip("hearts_env.bots.heuristic")

CURRENT = reference_fingerprint() == REFERENCE_FINGERPRINT
needs_current = pytest.mark.skipif(
    not CURRENT,
    reason="hearts_env.bots.heuristic changed: update VectorHeuristic and REFERENCE_FINGERPRINT "
    "(heuristic_actions uses the exact row-by-row bot meanwhile)",
)

pytestmark = pytest.mark.usefixtures("one_torch_thread")


@needs_current
@pytest.mark.parametrize("preset", hearts_env.PRESETS)
def test_preset_heuristic_matches_reference_bot(preset: str) -> None:
    report = play_against_reference(Rules.preset(preset), 16, deals=16, seed=3, heuristic=True)
    assert report.deals >= 16


@needs_current
@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(rules=rule_sets())
def test_random_rule_set_heuristic_matches_reference_bot(rules: Rules) -> None:
    play_against_reference(rules, 8, deals=8, seed=zlib.crc32(repr(rules).encode()), heuristic=True)


def test_exact_path_matches_reference_bot() -> None:
    """The row-by-row path (the fallback) agrees with the reference bot too."""
    import numpy as np

    from hearts_env.bots import HeuristicBot
    from hearts_env.obs import encode

    rules = Rules.preset("omnibus")
    engine = BatchedHearts(rules, 4, seed=1)
    bot = HeuristicBot(rules)
    refs = [engine.reference_deal(row) for row in range(4)]
    for _ in range(40):
        chosen = heuristic_actions(engine, exact=True).tolist()
        for row, ref in enumerate(refs):
            mask = np.zeros(68, dtype=np.int8)
            mask[ref.legal_actions()] = 1
            assert chosen[row] == bot.act({"observation": encode(ref, ref.current_player), "action_mask": mask})
            ref.apply_action(chosen[row])
        result = engine.step(torch.tensor(chosen))
        assert not result.done.any()  # 40 decisions: still inside the first deal (64 decisions with passing)


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
