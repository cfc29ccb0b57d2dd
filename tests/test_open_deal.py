"""Open-deal action values: each legal action played out on a copy of the true deal gives exactly what
playing it at the table would; the all-actions term pushes the policy toward the best-valued action and
does not care about the rewards' scale; the moon-alive test reads the engine's own point count; the
draw keeps to the learner's decisions, moon-alive ones first; a run with the term trains on one or
several rule sets, values ordinary decisions when asked, and resumes bit for bit."""

from __future__ import annotations

import dataclasses

import pytest

torch = pytest.importorskip("torch")

from hearts_env.batched import BatchedHearts  # noqa: E402
from hearts_env.batched.state import BatchState  # noqa: E402
from hearts_env.core.rules import Rules  # noqa: E402
from hearts_env.training import ppo  # noqa: E402
from hearts_env.training.network import build_network, masked_log_probs, mlp_config  # noqa: E402
from hearts_env.training.open_deal import (  # noqa: E402
    all_actions_loss,
    moon_alive,
    open_deal_values,
    pick_decisions,
)


def _advance(engine: BatchedHearts, steps: int) -> None:
    """The heuristic bot at every seat for ``steps`` steps."""
    for _ in range(steps):
        engine.step(engine.heuristic_actions())


def _heuristic_everywhere(copies: BatchedHearts, tables: torch.Tensor) -> torch.Tensor:
    return copies.heuristic_actions()


def _own(rewards: torch.Tensor, tables: torch.Tensor) -> torch.Tensor:
    return rewards


@pytest.mark.parametrize("rules", ["standard", "omnibus"])
def test_each_actions_value_is_what_playing_it_out_at_the_table_gives(rules):
    """Every legal action's value equals its own play-out, done here step by step on a plain copy of the
    row with the same continuation; illegal actions hold nothing."""
    engine = BatchedHearts(rules, batch_size=6, seed=11)
    _advance(engine, 23)
    rows = torch.tensor([0, 2, 3, 5])
    values, legal = open_deal_values(engine, engine.state.rows(rows), rows, _heuristic_everywhere, _own)
    assert torch.equal(legal, engine.legal_mask()[rows])
    assert bool((values[~legal] == 0).all())
    for i, row in enumerate(rows.tolist()):
        seat = int(engine.current_player[row])
        for action in torch.nonzero(legal[i]).flatten().tolist():
            copy = engine.fork(engine.state.rows(torch.tensor([row])))
            result = copy.step(torch.tensor([action]))
            while not bool(result.done[0]):
                result = copy.step(copy.heuristic_actions())
            assert float(values[i, action]) == pytest.approx(float(result.rewards[0, seat])), (row, action)


def test_the_values_see_the_table_each_copy_came_from():
    """The continuation and the score are told the table of each copy, every step of the way."""
    engine = BatchedHearts("standard", batch_size=4, seed=2)
    _advance(engine, 30)
    tables = torch.tensor([7, 9])
    seen: set[int] = set()

    def play(copies: BatchedHearts, source: torch.Tensor) -> torch.Tensor:
        assert source.shape == (copies.batch_size,)
        seen.update(source.tolist())
        return copies.heuristic_actions()

    def score(rewards: torch.Tensor, source: torch.Tensor) -> torch.Tensor:
        return rewards * 0 + source.unsqueeze(1).float()  # the table's number as every seat's reward

    values, legal = open_deal_values(engine, engine.state.rows(torch.tensor([1, 3])), tables, play, score)
    assert seen == {7, 9}
    assert torch.equal(values[0][legal[0]], torch.full((int(legal[0].sum()),), 7.0))
    assert torch.equal(values[1][legal[1]], torch.full((int(legal[1].sum()),), 9.0))


def test_a_fork_plays_apart_from_its_engine_and_concat_keeps_row_order():
    engine = BatchedHearts("standard", batch_size=4, seed=5)
    _advance(engine, 3)
    before = engine.state.clone()
    fork = engine.fork(engine.state.rows(torch.tensor([2, 0])))
    assert fork.batch_size == 2 and fork.kernel is engine.kernel
    fork.step(fork.heuristic_actions())
    for name in ("hands", "current", "played"):
        assert torch.equal(getattr(engine.state, name), getattr(before, name))
    joined = BatchState.concat([engine.state.rows(torch.tensor([3])), engine.state.rows(torch.tensor([1, 2]))])
    assert torch.equal(joined.hands, engine.state.hands[[3, 1, 2]])


def test_moon_alive_means_exactly_one_seat_has_taken_points():
    engine = BatchedHearts("standard", batch_size=64, seed=8)
    for steps in (0, 12, 9, 9, 9):
        _advance(engine, steps)
        expected = (engine.state.points > 0).sum(1) == 1
        assert torch.equal(moon_alive(engine.observe()), expected)
    assert bool(expected.any()) and not bool(expected.all())
    no_moon = BatchedHearts(dataclasses.replace(Rules(), moon_enabled=False), batch_size=64, seed=8)
    _advance(no_moon, 30)
    assert bool(((no_moon.state.points > 0).sum(1) == 1).any())
    assert not bool(moon_alive(no_moon.observe()).any())  # no moon to make or break


def test_the_all_actions_term_moves_the_policy_to_the_best_action_whatever_the_scale():
    torch.manual_seed(0)
    legal = torch.zeros(32, 68, dtype=torch.bool)
    legal[:, :5] = True
    legal[:16, 5] = True
    values = torch.randn(32, 68) * legal
    logits = torch.zeros(32, 68, requires_grad=True)
    loss, agreement = all_actions_loss(masked_log_probs(logits, legal), values, legal)
    scaled, _ = all_actions_loss(masked_log_probs(logits, legal), values * 26.0 + 3.0 * legal, legal)
    assert torch.allclose(loss, scaled, atol=1e-5)  # scale and shift of the rewards do not matter
    optimizer = torch.optim.SGD([logits], lr=5.0)
    for _ in range(200):
        loss, agreement = all_actions_loss(masked_log_probs(logits, legal), values, legal)
        optimizer.zero_grad()
        loss.mean().backward()
        optimizer.step()
    assert float(agreement.mean()) == 1.0
    assert logits.grad is not None and bool((logits.grad[~legal] == 0).all())  # illegal actions never move


def _args(tmp_path, **overrides) -> ppo.Args:
    """The smoke run of the oracle-critic tests, with the open-deal term instead of the critic."""
    from test_oracle_critic import _args as smoke_args

    settings = {"oracle_critic": False, "run_name": "open", "relative_reward": True, "open_deal_coef": 2.0}
    return smoke_args(tmp_path, **{**settings, "open_deal_states": 128, "total_decisions": 64 * 64 * 2, **overrides})


def test_the_open_deal_term_needs_the_batched_engine(tmp_path):
    with pytest.raises(ppo.ConfigError, match="--open-deal-coef"):
        ppo.train(_args(tmp_path, engine="reference"))


@pytest.mark.parametrize("more_rules", [[], ["omnibus"]])
def test_a_run_with_the_term_values_its_decisions_and_trains(tmp_path, more_rules):
    final = ppo.train(_args(tmp_path, more_rules=more_rules, pool=["heuristic", "moon"], pool_weights=[1, 1]))
    assert final["open_deal_states"] > 0 and 0.0 < final["open_deal_share"] < 1.0
    assert 0.0 <= final["open_deal_agreement"] <= 1.0 and final["open_deal_s"] > 0


def test_the_draw_takes_moon_alive_decisions_first_then_any_of_the_learners():
    learner = torch.tensor([True, True, False, True, True, False, True, True])
    alive = torch.tensor([False, True, True, False, True, False, False, True])
    generator = torch.Generator().manual_seed(3)
    for per_alive, per_any in [(0, 0), (2, 0), (5, 0), (1, 2), (0, 3), (3, 9)]:
        take = pick_decisions(learner, alive, per_alive, per_any, generator).tolist()
        assert len(set(take)) == len(take) and all(learner[r] for r in take)  # no row twice, the learner's only
        first = min(per_alive, 3)  # three of the learner's six decisions are moon-alive
        assert all(alive[r] for r in take[:first]) and len(take) == first + min(per_any, 6 - first)


def test_a_run_without_moons_values_ordinary_decisions_only_when_asked(tmp_path):
    """Under rules without a moon no decision is moon-alive: only the draw of any decisions finds some."""
    no_moon = tmp_path / "no_moon.toml"
    no_moon.write_text('preset = "standard"\nmoon_enabled = false\n', encoding="utf-8")
    settings = {"rules": str(no_moon), "pool": ["heuristic"], "pool_weights": [1.0]}
    assert ppo.train(_args(tmp_path, run_name="alive", **settings))["open_deal_states"] == 0
    final = ppo.train(_args(tmp_path, run_name="any", open_deal_anywhere=0.5, **settings))
    assert final["open_deal_states"] > 0 and final["open_deal_share"] > 0


def test_the_share_of_any_decisions_is_a_fraction(tmp_path):
    with pytest.raises(ppo.ConfigError, match="--open-deal-anywhere"):
        ppo.train(_args(tmp_path, open_deal_anywhere=1.5))


@pytest.mark.slow
def test_a_run_with_the_term_resumes_bit_for_bit(tmp_path, monkeypatch):
    from test_ppo import straight_and_resumed

    settings = {"total_decisions": 64 * 64 * 3, "pool": ["snapshot", "moon"], "pool_weights": [1.0, 1.0]}
    settings["open_deal_anywhere"] = 0.25
    straight_and_resumed(_args, tmp_path, monkeypatch, **settings)


def test_a_network_scores_every_legal_action_of_a_value_batch():
    """The shapes the trainer feeds the term: the network's masked log-probabilities over 68 actions."""
    network = build_network(mlp_config(None, hidden=[16]), 4)
    engine = BatchedHearts("standard", batch_size=8, seed=4)
    _advance(engine, 10)
    rows = torch.arange(8)
    values, legal = open_deal_values(engine, engine.state.rows(rows), rows, _heuristic_everywhere, _own)
    logits, _ = network(network.select_inputs(engine.observe()))
    loss, agreement = all_actions_loss(masked_log_probs(logits, legal), values, legal)
    assert loss.shape == agreement.shape == (8,) and bool(torch.isfinite(loss).all())
