"""Seat roles of the training pool: turned-around tables (the opponent alone among learners, on a share
of the tables or always for the kinds named alone) and the prioritised draw (PFSP), in real tiny runs."""

from __future__ import annotations

import json

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from hearts_env.training import config, ppo  # noqa: E402

TINY = {
    "num_envs": 32, "num_steps": 32, "total_decisions": 3 * 32 * 32, "minibatch_size": 256, "update_epochs": 1,
    "hidden": [16], "eval_deals": 8, "eval_every": 0, "checkpoint_every": 10, "snapshot_every": 1,
    "progress": False, "selfplay_fraction": 0.0,
}  # fmt: skip


def _run(tmp_path, **settings):
    args = config.Args(runs_dir=str(tmp_path / "runs"), run_name="r", **{**TINY, **settings})
    ppo.train(args)
    lines = (tmp_path / "runs" / "r" / "metrics.jsonl").read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines]


def test_turned_around_tables_give_the_learner_every_seat_but_one(tmp_path) -> None:
    history = _run(tmp_path, pool=["moon"], pool_weights=[1.0], exploiter_fraction=1.0)
    share = history[-1]["learner_decisions"] / history[-1]["decisions"]
    assert share == pytest.approx(0.75, abs=0.03)  # three learner seats of four, every table
    solo = _run(tmp_path / "solo", pool=["moon"], pool_weights=[1.0])
    assert solo[-1]["learner_decisions"] / solo[-1]["decisions"] == pytest.approx(0.25, abs=0.03)


def test_alone_kinds_always_sit_alone_and_the_rest_keep_the_learner_alone(tmp_path) -> None:
    """Seekers named alone sit among three learners on every table; the heuristic tables stay as they were."""
    history = _run(tmp_path, pool=["moon", "heuristic"], pool_weights=[0.5, 0.5], alone_kinds=["moon"])
    share = history[-1]["learner_decisions"] / history[-1]["decisions"]
    assert share == pytest.approx(0.5 * 0.75 + 0.5 * 0.25, abs=0.06)
    only = _run(tmp_path / "only", pool=["moon", "heuristic"], pool_weights=[1.0, 0.0], alone_kinds=["moon"])
    assert only[-1]["learner_decisions"] / only[-1]["decisions"] == pytest.approx(0.75, abs=0.03)


def test_an_alone_kind_outside_the_pool_is_refused(tmp_path) -> None:
    args = config.Args(runs_dir=str(tmp_path), pool=["heuristic"], pool_weights=[1.0], alone_kinds=["moon"])
    with pytest.raises(config.ConfigError, match="--alone-kinds: moon"):
        config.check_args(args)


def test_the_prioritised_draw_leans_toward_the_kind_the_learner_loses_to(tmp_path) -> None:
    history = _run(tmp_path, pool=["heuristic", "random"], pool_weights=[0.5, 0.5], pool_priority=2.0)
    last = history[-1]
    assert 0.0 <= last["pool/win/random"] <= 1.0 and 0.0 <= last["pool/win/heuristic"] <= 1.0
    assert last["pool/win/heuristic"] < last["pool/win/random"]  # an untrained learner loses to the bot
    assert last["pool/weight/heuristic"] > 0.5 > last["pool/weight/random"]
    assert last["pool/weight/heuristic"] + last["pool/weight/random"] == pytest.approx(1.0)


def test_prioritised_weights_follow_the_pfsp_formula() -> None:
    draw = ppo.prioritised(np.array([0.5, 0.5]), ["a", "b"], {"a": 0.25, "b": 1.0}, 2.0)
    expected = np.array([0.5 * 0.75**2, 0.5 * 0.05**2])
    assert draw == pytest.approx(expected / expected.sum())


@pytest.mark.parametrize(("name", "value"), [("exploiter_fraction", 1.5), ("pool_priority", -1.0)])
def test_bad_role_settings_are_refused_by_name(tmp_path, name, value) -> None:
    args = config.Args(runs_dir=str(tmp_path), **{name: value})
    with pytest.raises(config.ConfigError, match=name.replace("_", "-")):
        config.check_args(args)


def test_relative_rewards_are_zero_sum_and_a_moon_costs_the_others() -> None:
    moon = torch.tensor([[0.0, -26.0, -26.0, -26.0], [-1.0, -13.0, -12.0, 0.0]])
    rel = ppo.relative_rewards(moon)
    assert rel.sum(1).abs().max() < 1e-5
    assert rel[0, 0] == pytest.approx(26.0)  # the shooter gains what the three lose
    assert rel[0, 1] == pytest.approx(-26.0 - (0.0 - 52.0) / 3)
    assert rel[1, 3] == pytest.approx(0.0 - (-26.0) / 3)


def test_a_run_on_relative_rewards_trains(tmp_path) -> None:
    history = _run(
        tmp_path, pool=["moon"], pool_weights=[1.0], exploiter_fraction=1.0, relative_reward=True, num_steps=128,
        total_decisions=32 * 128,
    )  # fmt: skip
    assert history[-1]["samples"] > 0 and np.isfinite(history[-1]["value_loss"])


def test_a_run_watches_its_moon_defence(tmp_path) -> None:
    history = _run(tmp_path, pool=["heuristic"], pool_weights=[1.0], eval_adversaries=["moon-stubborn"])
    last = history[-1]  # the final update always evaluates
    assert 0.0 <= last["eval/moon-stubborn/moons"] <= 1.0
    assert last["eval/moon-stubborn/gain"] == pytest.approx(
        last["eval/moon-stubborn/learner_points"] - last["eval/moon-stubborn/points"]
    )
    assert last["eval/moon-stubborn/gain_se"] > 0


def test_an_unknown_eval_adversary_is_refused_with_the_valid_ones(tmp_path) -> None:
    args = config.Args(runs_dir=str(tmp_path), eval_adversaries=["moonwalker"])
    with pytest.raises(config.ConfigError, match=r"unknown adversary moonwalker; use .*moon-stubborn"):
        config.check_args(args)


def test_the_exploitation_table_counts_a_persistent_seekers_moons() -> None:
    from hearts_env.core.rules import Rules
    from hearts_env.training.network import build_network, mlp_config

    rules = Rules.load("standard")
    torch.manual_seed(0)
    network = build_network(mlp_config(None, hidden=[16]), 4).eval()
    found = ppo.evaluate_exploitation(network, rules, "moon-stubborn", 64, "cpu", 3)
    assert found == ppo.evaluate_exploitation(network, rules, "moon-stubborn", 64, "cpu", 3)  # seeded
    # a seeker that never gives up shoots now and then even at an untrained table (2 of these 64 deals)
    assert 0.0 < found["moons"] < 0.5
    assert found["gain"] == pytest.approx(found["learner_points"] - found["points"])
    # every shot is 0 points to the seeker, so its mean is at most 26 times the deals it did not shoot
    assert found["points"] <= 26 * (1 - found["moons"]) + 1e-9


def test_the_moon_teacher_runs_and_is_off_by_default(tmp_path) -> None:
    history = _run(
        tmp_path, pool=["moon-stubborn"], pool_weights=[1.0], exploiter_fraction=1.0, moon_teacher=1.0,
        num_steps=256, total_decisions=3 * 32 * 256,
    )  # fmt: skip
    # labels only in the deals a seeker shot (a few of an untrained table's): a small share of decisions
    assert all(0.0 <= h["teacher_share"] < 0.05 for h in history)
    assert any(h["teacher_share"] > 0 for h in history)
    taught = [h for h in history if np.isfinite(h["teacher_loss"])]
    assert taught and all(0.0 <= h["teacher_agreement"] <= 1.0 for h in taught)
    everywhere = _run(
        tmp_path / "everywhere", pool=["moon-stubborn"], pool_weights=[1.0], exploiter_fraction=1.0,
        moon_teacher=1.0, moon_teacher_hindsight=False, num_steps=256, total_decisions=3 * 32 * 256,
    )  # fmt: skip
    # the same first rollout: its hindsight labels are a part of every label the alarm gave
    assert everywhere[0]["teacher_share"] > history[0]["teacher_share"]
    plain = _run(tmp_path / "plain", pool=["moon-stubborn"], pool_weights=[1.0], exploiter_fraction=1.0)
    assert "teacher_loss" not in plain[-1]  # off by default: the run's metrics are as before


def test_a_deal_without_a_moon_drops_its_teacher_labels_and_a_moon_deal_keeps_them() -> None:
    from hearts_env.training.teacher import drop_calm_labels, moon_shot

    labels = torch.tensor([[5, 6, 7], [8, -1, 9], [10, 11, 12], [13, 14, 15]])  # 4 steps, 3 rows
    deal_start = torch.tensor([0, 0, 1])
    scores = torch.tensor([[0, 26, 26, 26], [13, 5, 4, 4]])  # row 0 shot the moon, row 2 did not
    moon = moon_shot(scores, torch.tensor([26, 26]))
    assert moon.tolist() == [True, False]
    assert moon_shot(torch.tensor([[-26, 0, 0, 0]]), torch.tensor([26])).tolist() == [True]  # subtract mode
    drop_calm_labels(labels, deal_start, 2, torch.tensor([0, 2]), moon)
    assert labels[:, 0].tolist() == [5, 8, 10, 13]  # the moon deal keeps every label
    assert labels[:, 2].tolist() == [7, -1, -1, 15]  # steps 1..2 of the calm deal dropped, step 3 is the next deal
    assert labels[:, 1].tolist() == [6, -1, 11, 14]  # a row still in play is untouched
    assert deal_start.tolist() == [3, 0, 3]
