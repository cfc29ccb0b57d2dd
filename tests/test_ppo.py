"""PPO training: advantages along each seat's chain, a short run that exports a playable bot, and an
exact resume after a crash."""

from __future__ import annotations

import dataclasses
import random
import tomllib
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")

from hearts_env import Rules  # noqa: E402
from hearts_env.training import ppo  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]


def test_advantages_follow_each_seats_chain_and_skip_unfinished_deals():
    """Two seats interleave at one table; seat A's deal ends at step 2 (reward -1), seat B's chain runs
    past the rollout's end, so B's decisions have no target and are not valid samples."""
    values = torch.tensor([[0.5], [0.2], [0.4], [0.1]])
    rewards = torch.tensor([[0.0], [0.0], [-1.0], [0.0]])
    terminal = torch.tensor([[False], [False], [True], [False]])
    next_index = torch.tensor([[2], [3], [-1], [-1]])  # A: 0 -> 2 (end); B: 1 -> 3 -> (beyond)
    adv, valid = ppo.compute_advantages(values, rewards, terminal, next_index, gamma=1.0, gae_lambda=0.5)
    assert valid[:, 0].tolist() == [True, False, True, False]
    assert adv[2, 0].item() == pytest.approx(-1.0 - 0.4)
    # step 0: delta = V(2) - V(0) = -0.1, plus lambda * adv(2)
    assert adv[0, 0].item() == pytest.approx(-0.1 + 0.5 * (-1.4))


def _args(tmp_path, **overrides) -> ppo.Args:
    base = ppo.args_from_dict(
        {
            **tomllib.loads((ROOT / "configs/train/smoke.toml").read_text(encoding="utf-8")),
            "runs_dir": str(tmp_path / "runs"),
            "run_name": "smoke",
            "progress": False,
        },
        "test",
    )
    for key, value in overrides.items():
        setattr(base, key, value)
    return base


def _crash_then_resume(args: ppo.Args, monkeypatch) -> Path:
    """Train ``args`` until just after the second checkpoint is written, kill it there, then resume it from
    the command line (``--resume``) to the end; returns the run directory."""
    real_save = ppo.save_checkpoint
    saves = []

    def save_then_crash(*a, **kw):
        real_save(*a, **kw)
        saves.append(1)
        if len(saves) == 2:
            raise KeyboardInterrupt("killed")

    monkeypatch.setattr(ppo, "save_checkpoint", save_then_crash)
    with pytest.raises(KeyboardInterrupt):
        ppo.train(args)
    monkeypatch.setattr(ppo, "save_checkpoint", real_save)
    run = Path(args.runs_dir) / args.run_name
    launch = ppo.parse_args(["--resume", str(run), "--progress", "false"])
    assert launch.args == dataclasses.replace(args, progress=False)  # every setting comes back from the checkpoint
    ppo.train(launch.args, launch.resume)
    return run


def straight_and_resumed(make_args, tmp_path: Path, monkeypatch, **settings) -> tuple[Path, dict, dict]:
    """Train ``make_args(tmp_path / "a", **settings)`` straight through and the same under ``tmp_path / "b"``
    killed after its second checkpoint and resumed; checks that both end with the same network and returns
    the resumed run's directory and both final checkpoints."""
    straight = make_args(tmp_path / "a", **settings)
    ppo.train(straight)
    run_b = _crash_then_resume(make_args(tmp_path / "b", **settings), monkeypatch)
    a = torch.load(Path(straight.runs_dir) / straight.run_name / "checkpoint.pt", weights_only=True)
    b = torch.load(run_b / "checkpoint.pt", weights_only=True)
    for key, tensor in a["model"].items():
        assert torch.equal(tensor, b["model"][key]), key
    return run_b, a, b


@pytest.mark.slow
def test_a_short_run_logs_checkpoints_exports_and_the_bot_plays(tmp_path, monkeypatch):
    from hearts_env.bots import make_bot
    from hearts_env.envs.aec import raw_env

    monkeypatch.chdir(ROOT)
    args = _args(tmp_path, export_name="", total_decisions=64 * 64 * 2)
    final = ppo.train(args)
    run = tmp_path / "runs" / "smoke"
    assert (run / "checkpoint.pt").is_file()
    assert (run / "learning_curve.png").stat().st_size > 1000
    assert any((run / "tb").iterdir())
    assert final["update"] == 2 and "eval/random/points" in final
    assert final["rollout_s"] > 0 and final["update_s"] > 0  # where the time goes, logged every update

    from hearts_env.training.export import export_checkpoint

    model = export_checkpoint(run / "checkpoint.pt", "smoke-model", models_dir=tmp_path / "models")
    rules = Rules.preset("standard")
    bot = make_bot(str(model), rules, seed=0)
    env = raw_env(rules=rules)
    env.reset(seed=3)
    rng = random.Random(0)
    for agent in env.agent_iter():
        observation, _, terminated, truncated, _ = env.last()
        if terminated or truncated:
            action = None
        elif agent == "player_0":
            action = bot.act(observation)
            assert observation["action_mask"][action] == 1
        else:
            action = rng.choice([a for a, ok in enumerate(observation["action_mask"]) if ok])
        env.step(action)


@pytest.mark.slow
def test_resume_after_a_crash_gives_the_same_weights_as_an_uninterrupted_run(tmp_path, monkeypatch):
    uninterrupted = _args(tmp_path / "a", total_decisions=64 * 64 * 3)
    ppo.train(uninterrupted)

    run_b = _crash_then_resume(_args(tmp_path / "b", total_decisions=64 * 64 * 3), monkeypatch)
    a = torch.load(tmp_path / "a" / "runs" / "smoke" / "checkpoint.pt", weights_only=True)
    b = torch.load(run_b / "checkpoint.pt", weights_only=True)
    assert a["update"] == b["update"] == 3
    for key, tensor in a["model"].items():
        assert torch.equal(tensor, b["model"][key]), key


def test_unknown_settings_are_refused_with_their_names():
    with pytest.raises(ppo.ConfigError, match="learning_rat"):
        ppo.args_from_dict({"learning_rat": 1e-3}, "configs/train/x.toml")


def test_the_reference_vector_engine_shows_each_seat_its_own_observation_and_resumes_exactly():
    """``--engine reference``: observations equal the encoding of the seat to move, masks equal the
    engine's legal sets, and a state saved mid-deal replays to the same observations."""
    from hearts_env.obs import encode
    from hearts_env.training.reference_vec import ReferenceVecHearts

    vec = ReferenceVecHearts("standard", 6, seed=4)
    gen = torch.Generator().manual_seed(0)
    for _ in range(70):  # crosses a deal boundary at every table
        obs, mask = vec.observe(), vec.legal_mask()
        for row, deal in enumerate(vec.deals):
            expected = encode(deal, deal.current_player)
            assert torch.equal(obs[row], torch.from_numpy(expected))
            assert mask[row].nonzero().flatten().tolist() == deal.legal_actions()
        actions = torch.multinomial(mask.float(), 1, generator=gen).squeeze(1)
        vec.step(actions)
    copy = ReferenceVecHearts("standard", 6, seed=99)
    copy.load_state_dict(vec.state_dict())
    assert torch.equal(copy.observe(), vec.observe())
    assert torch.equal(copy.legal_mask(), vec.legal_mask())


@pytest.mark.slow
def test_training_can_start_from_an_exported_model(tmp_path, monkeypatch):
    """``--init-from models/<name>``: a later run continues from shipped weights, not from scratch."""
    from hearts_env.training.export import export_checkpoint

    monkeypatch.chdir(ROOT)
    first = _args(tmp_path / "a", total_decisions=64 * 64)
    ppo.train(first)
    model = export_checkpoint(tmp_path / "a" / "runs" / "smoke" / "checkpoint.pt", "m", models_dir=tmp_path)
    exported = torch.load(tmp_path / "a" / "runs" / "smoke" / "checkpoint.pt", weights_only=True)["model"]
    second = _args(tmp_path / "b", total_decisions=64 * 64, init_from=str(model), learning_rate=0.0)
    ppo.train(second)
    after = torch.load(tmp_path / "b" / "runs" / "smoke" / "checkpoint.pt", weights_only=True)["model"]
    for key, tensor in exported.items():
        assert torch.equal(tensor, after[key]), key  # learning rate 0: the weights are the exported ones


@pytest.mark.slow
def test_training_across_rule_sets_evaluates_each_resumes_exactly_and_exports_one_model_for_all(tmp_path, monkeypatch):
    """``more_rules``: the tables split between rule sets; each is evaluated; a killed run resumes bit
    for bit (every part's generator and deals are checkpointed); the export plays each rule set."""
    from hearts_env.bots import make_bot
    from hearts_env.training.export import export_checkpoint

    presets = ["microsoft", "omnibus"]
    uninterrupted = _args(tmp_path / "a", total_decisions=64 * 64 * 3, more_rules=presets, eval_every=3)
    final = ppo.train(uninterrupted)
    for name in ("standard", *presets):
        assert f"eval/{name}/heuristic/points" in final

    crashing = _args(tmp_path / "b", total_decisions=64 * 64 * 3, more_rules=presets, eval_every=3)
    run_b = _crash_then_resume(crashing, monkeypatch)
    a = torch.load(tmp_path / "a" / "runs" / "smoke" / "checkpoint.pt", weights_only=True)
    b = torch.load(run_b / "checkpoint.pt", weights_only=True)
    for key, tensor in a["model"].items():
        assert torch.equal(tensor, b["model"][key]), key

    model = export_checkpoint(run_b / "checkpoint.pt", "mixed", models_dir=tmp_path / "models")
    for name in ("standard", *presets):
        make_bot(str(model), Rules.preset(name), seed=0)  # loads: trained for these rules
    with pytest.raises(Exception, match="rules"):
        make_bot(str(model), Rules.preset("spot_hearts"), seed=0)


@pytest.mark.parametrize(
    "path", sorted(p.name for p in (ROOT / "configs/train").glob("*.toml") if not p.name.startswith("rllib"))
)
def test_every_shipped_training_config_reads_as_settings(path) -> None:
    """Each config the README and the model cards cite names real settings with valid values (a
    renamed field would otherwise surface only when someone retrains a shipped model)."""
    from hearts_env.training import config

    args = config.parse_args(["--config", str(ROOT / "configs/train" / path)]).args
    assert args.total_decisions > 0 and args.rules
