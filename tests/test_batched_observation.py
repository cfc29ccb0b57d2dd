"""Observations of the batched engine: ``(B, D)`` vectors equal, entry by entry, to the AEC environment's
encoding (``hearts_env.obs.encode``) for the seat to move, at every decision of random play.

Every preset (32 rows, 64 deals each: 1,152 deals, about 73,000 decisions) and random rule sets from
``strategies.rule_sets`` (40 sets x 16 deals), through ``play_against_reference(observations=True)``.
"""

from __future__ import annotations

import zlib

import pytest
import torch
from hypothesis import HealthCheck, given, settings
from strategies import rule_sets

import hearts_env
from hearts_env import Rules
from hearts_env.batched import BatchedHearts, PackedObservations
from hearts_env.obs import spec as encoding
from hearts_env.testing.batched_diff import play_against_reference

PRESETS = hearts_env.PRESETS

pytestmark = pytest.mark.usefixtures("one_torch_thread")


@pytest.mark.parametrize("preset", PRESETS)
def test_preset_observations_match_encoding(preset: str) -> None:
    report = play_against_reference(
        Rules.preset(preset), 32, deals=64, seed=100 + PRESETS.index(preset), observations=True
    )
    assert report.observations > 64 * 40


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(rules=rule_sets())
def test_random_rule_set_observations_match_encoding(rules: Rules) -> None:
    play_against_reference(rules, 16, deals=16, seed=zlib.crc32(repr(rules).encode()), observations=True)


def test_observe_into_a_buffer() -> None:
    engine = BatchedHearts(Rules.preset("omnibus"), 8, seed=2)
    assert engine.observation_size == encoding.OBSERVATION_SIZE
    buffer = torch.full((3, 8, engine.observation_size), 7.0)
    for t in range(3):
        fresh = engine.observe()
        into = engine.observe(out=buffer[t])
        assert into.data_ptr() == buffer[t].data_ptr()
        assert torch.equal(fresh, buffer[t])
        assert fresh.dtype == torch.float32 and fresh.shape == (8, engine.observation_size)
        engine.step(engine.legal_mask().float().argmax(1))
    with pytest.raises(ValueError, match="shape"):
        engine.observe(out=torch.empty(8, 10))


def test_packed_observations_unpack_to_the_vectors() -> None:
    engine = BatchedHearts(Rules(allow_pass_through=True, pass_through_visible=True), 16, seed=4)
    for _ in range(70):
        packed = engine.observe_packed()
        assert packed.cards.shape == (16, 44) and packed.cards.dtype == torch.int64
        assert packed.small.dtype == torch.float32
        assert torch.equal(engine.unpack_observations(packed), engine.observe())
        into = PackedObservations(cards=torch.empty_like(packed.cards), small=torch.full_like(packed.small, 5.0))
        assert engine.observe_packed(out=into) is into
        assert torch.equal(into.cards, packed.cards) and torch.equal(into.small, packed.small)
        engine.step(engine.legal_mask().float().argmax(1))
