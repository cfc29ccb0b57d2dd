"""The imitation warm start: returns per decision, learning the heuristic's choices, and its place in a
PPO run (before the first update, recorded, skipped on resume)."""

from __future__ import annotations

import json

import pytest

torch = pytest.importorskip("torch")

from test_ppo import _args  # noqa: E402

from hearts_env import Rules  # noqa: E402
from hearts_env.training import imitate, ppo  # noqa: E402
from hearts_env.training.network import build_network, mlp_config  # noqa: E402


def test_each_decision_gets_its_own_seats_final_reward_and_running_deals_none():
    """One table, two seats: a deal ends at step 2 (rewards -1 for seat 0, -3 for seat 1); the next deal
    runs past the rollout's end, so its decision has no return yet."""
    rewards = torch.zeros(4, 1, 2)
    rewards[2, 0] = torch.tensor([-1.0, -3.0])
    done = torch.tensor([[False], [False], [True], [False]])
    current = torch.tensor([[0], [1], [0], [1]])
    returns, known = imitate.deal_returns(rewards, done, current)
    assert known[:, 0].tolist() == [True, True, True, False]
    assert returns[:3, 0].tolist() == [-1.0, -3.0, -1.0]


def _accuracy(network, rules, deals: int = 64, teacher: str = "heuristic") -> float:
    """Share of real choices (two or more legal actions) of the teacher's self-play where the network's
    greedy choice is the teacher's."""
    from hearts_env.batched import BatchedHearts
    from hearts_env.training.network import greedy_actions

    engine = BatchedHearts(rules, batch_size=deals, seed=99)
    labeller = imitate.teacher_policy(teacher)
    agree = total = 0
    with torch.no_grad():
        for _ in range(64):
            labels = labeller(engine)
            mask = engine.legal_mask()
            logits, _ = network(engine.observe())
            choice = mask.sum(1) > 1  # forced moves say nothing
            agree += int((greedy_actions(logits, mask) == labels)[choice].sum())
            total += int(choice.sum())
            engine.step(labels)
    return agree / total


@pytest.mark.slow
def test_imitation_learns_the_heuristics_choices_and_never_plays_an_illegal_card():
    """A small network trained on 400k labelled decisions agrees with the heuristic far more often than
    before (the engine refuses illegal actions, so the DAgger decisions are legal too)."""
    torch.manual_seed(0)
    rules = Rules.preset("standard")
    network = build_network(mlp_config(hidden=[64, 64]))
    before = _accuracy(network, rules)
    settings = imitate.ImitationSettings(samples=400_000, num_envs=256, num_steps=96, dagger=0.5, seed=3)
    reports = []
    figures = imitate.imitate(network, rules, settings, report=reports.append)
    after = _accuracy(network, rules)
    assert len(reports) == figures["rollouts"] >= 2
    assert before < 0.3 and after > before + 0.25
    assert figures["value_loss"] < 0.1


@pytest.mark.slow
def test_a_scripted_teacher_is_imitated_instead_of_the_heuristic():
    """``teacher="moon-late"``: the network learns the moon seeker's choices (it agrees with them far
    more often than with the heuristic bot's on the seeker's own play, where the two differ)."""
    torch.manual_seed(0)
    rules = Rules.preset("standard")
    network = build_network(mlp_config(hidden=[64, 64]))
    settings = imitate.ImitationSettings(samples=200_000, num_envs=256, num_steps=96, seed=3, teacher="moon-late")
    imitate.imitate(network, rules, settings)
    seeker, heuristic = _accuracy(network, rules, teacher="moon-late"), _accuracy(network, rules)
    assert seeker > 0.6 and seeker > heuristic + 0.1


def test_an_unknown_teacher_is_refused_naming_the_valid_ones(tmp_path):
    with pytest.raises(ValueError, match=r"unknown imitation teacher 'moon-never'; use heuristic, .*moon-late"):
        imitate.teacher_policy("moon-never")
    with pytest.raises(ppo.ConfigError, match="--imitation-teacher nobody: unknown teacher; use heuristic, "):
        ppo.check_args(_args(tmp_path, imitation_teacher="nobody", imitation_samples=1000))


@pytest.mark.slow
def test_a_run_with_a_warm_start_records_it_and_a_resume_does_not_repeat_it(tmp_path, monkeypatch):
    calls = []
    real = imitate.imitate

    def counted(*a, **kw):
        calls.append(1)
        return real(*a, **kw)

    monkeypatch.setattr(imitate, "imitate", counted)
    args = _args(tmp_path, total_decisions=64 * 64 * 2, imitation_samples=64 * 96)
    ppo.train(args)
    run = tmp_path / "runs" / "smoke"
    first = json.loads((run / "metrics.jsonl").read_text(encoding="utf-8").splitlines()[0])
    assert first["update"] == 0 and 0.0 <= first["imitation/accuracy"] <= 1.0
    assert calls == [1]

    launch = ppo.parse_args(["--resume", str(run), "--total-decisions", str(64 * 64 * 3), "--progress", "false"])
    ppo.train(launch.args, launch.resume)
    assert calls == [1]  # the checkpoint already holds the warm-started weights

    from hearts_env.training.export import export_checkpoint

    model = export_checkpoint(run / "checkpoint.pt", "warm", models_dir=tmp_path / "models")
    card = json.loads((model / "model.json").read_text(encoding="utf-8"))
    assert card["training"]["imitation_samples"] >= 64 * 96
    assert card["training"]["imitation_teacher"] == "heuristic"
