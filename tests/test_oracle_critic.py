"""The oracle critic: it reads the hidden deal exactly, seen from the seat to move; the policy and its
export never read it; a warm-up leaves the policy alone; a run with the critic resumes bit for bit."""

from __future__ import annotations

import importlib.util
import tomllib
from pathlib import Path

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from hearts_env.batched import BatchedHearts, MixedBatchedHearts  # noqa: E402
from hearts_env.core.cards import NUM_CARDS  # noqa: E402
from hearts_env.obs import spec  # noqa: E402
from hearts_env.training import ppo  # noqa: E402
from hearts_env.training.oracle import (  # noqa: E402
    CARD_FIELDS,
    OracleCritic,
    magnet_kl,
    oracle_feature_size,
    oracle_features,
    oracle_state,
    oracle_width,
)

ROOT = Path(__file__).resolve().parents[1]


def _bits(mask: int) -> set[int]:
    return {c for c in range(NUM_CARDS) if mask >> c & 1}


def _play(engine, steps: int, seed: int = 0) -> None:
    """Random legal moves for ``steps`` steps in every row."""
    generator = torch.Generator().manual_seed(seed)
    for _ in range(steps):
        mask = engine.legal_mask().float()
        engine.step(torch.multinomial(mask, 1, generator=generator).squeeze(1))


@pytest.mark.parametrize("rules", ["standard", "omnibus", "spot_hearts"])
def test_the_oracle_state_is_the_deal_seen_from_the_seat_to_move(rules):
    """Column block 0 of every card field is the mover's own: its hand equals the observation's hand plane;
    the others follow clockwise; the hands, the won cards and the kitty never share a card."""
    engine = BatchedHearts(rules, batch_size=32, seed=3)
    n = engine.num_players
    for steps in (0, 5, 23):
        _play(engine, steps, seed=steps)
        seat = engine.current_player
        packed = oracle_state(engine, seat)
        assert packed.shape == (32, oracle_width(n))
        hand_plane = spec.segment(engine.observe().numpy(), "hand")[:, 0, :]
        for row in range(32):
            mover = int(seat[row])
            for j in range(n):
                assert int(packed[row, j]) == int(engine.state.hands[row, (mover + j) % n])  # hands, rotated
                assert int(packed[row, 2 * n + j]) == int(engine.state.won[row, (mover + j) % n])
                assert int(packed[row, len(CARD_FIELDS) * n + 1 + j]) == int(engine.state.points[row, (mover + j) % n])
            assert _bits(int(packed[row, 0])) == set(np.flatnonzero(hand_plane[row]).tolist())
            held = [_bits(int(packed[row, j])) for j in range(n)]
            won = [_bits(int(packed[row, 2 * n + j])) for j in range(n)]
            kitty = _bits(int(packed[row, len(CARD_FIELDS) * n]))
            every = [*held, *won, kitty]
            assert sum(map(len, every)) == len(set().union(*every))  # no card in two places


def test_a_mixture_of_rule_sets_reads_each_part_in_row_order():
    mixed = MixedBatchedHearts(["standard", "omnibus"], 10, seed=1)
    packed = oracle_state(mixed, mixed.current_player)
    for part, (a, b) in zip(mixed.parts, zip(mixed.bounds, mixed.bounds[1:], strict=False), strict=True):
        assert torch.equal(packed[a:b], oracle_state(part, part.current_player))


def test_the_features_expand_every_bit_and_scale_the_points():
    n = 4
    packed = torch.zeros(2, oracle_width(n), dtype=torch.int64)
    packed[0, 0] = (1 << 51) | 1  # the mover holds cards 0 and 51
    packed[1, len(CARD_FIELDS) * n + 1] = 13  # the mover has taken 13 points
    features = oracle_features(packed, n)
    assert features.shape == (2, oracle_feature_size(n))
    assert features[0].sum() == 2 and features[0, 0] == 1 and features[0, 51] == 1
    assert features[1, -n] == pytest.approx(0.5) and features[1].sum() == pytest.approx(0.5)
    critic = OracleCritic(obs_inputs=7, num_players=n, hidden=[16])
    assert critic(torch.zeros(2, 7), packed).shape == (2,)


def test_the_magnet_term_is_zero_at_the_magnet_and_ignores_illegal_actions():
    mask = torch.tensor([[True, True, False]])
    logp = torch.log(torch.tensor([[0.25, 0.75, 1e-30]]))
    assert magnet_kl(logp, logp, mask).item() == pytest.approx(0.0, abs=1e-7)
    other = torch.log(torch.tensor([[0.5, 0.5, 1e-30]]))
    expected = 0.25 * np.log(0.25 / 0.5) + 0.75 * np.log(0.75 / 0.5)
    assert magnet_kl(logp, other, mask).item() == pytest.approx(expected, rel=1e-5)
    changed_illegal = other.clone()
    changed_illegal[0, 2] = 0.0
    assert magnet_kl(logp, changed_illegal, mask).item() == pytest.approx(expected, rel=1e-5)


def _args(tmp_path, **overrides) -> ppo.Args:
    base = ppo.args_from_dict(
        {
            **tomllib.loads((ROOT / "configs/train/smoke.toml").read_text(encoding="utf-8")),
            "runs_dir": str(tmp_path / "runs"),
            "run_name": "oracle",
            "progress": False,
            "oracle_critic": True,
            "critic_hidden": [32],
            "eval_every": 0,
            "eval_deals": 16,
        },
        "test",
    )
    for key, value in overrides.items():
        setattr(base, key, value)
    return base


def test_the_oracle_critic_needs_the_batched_engine(tmp_path):
    with pytest.raises(ppo.ConfigError, match="--oracle-critic"):
        ppo.train(_args(tmp_path, engine="reference"))
    assert not (tmp_path / "runs").exists()


def test_a_warm_up_trains_the_critic_and_leaves_the_policy_as_it_was(tmp_path):
    args = _args(tmp_path, total_decisions=64 * 64, critic_warmup=1, magnet_coef=0.5, critic_learning_rate=0.01)
    ppo.train(args)
    saved = torch.load(tmp_path / "runs" / "oracle" / "checkpoint.pt", weights_only=True)
    policy_group, critic_group = saved["optimizer"]["param_groups"]  # the critic learns at its own rate
    assert (policy_group["lr"], critic_group["lr"]) == (args.learning_rate, 0.01)
    adam = saved["optimizer"]["state"]  # the network's steps neither taken nor counted: no jolt after the warm-up
    assert not any(i in adam for i in policy_group["params"]) and all(i in adam for i in critic_group["params"])
    from hearts_env.training.network import build_network

    torch.manual_seed(args.seed)  # the same seed builds the same starting weights
    fresh = build_network(saved["network"], 4)
    for key, tensor in fresh.state_dict().items():
        assert torch.equal(tensor, saved["model"][key]), key
    critic = saved["extra"]["critic"]
    first = OracleCritic(fresh.input_size, 4, [32])
    assert any(not torch.equal(first.state_dict()[k], critic[k]) for k in critic)  # the critic moved


@pytest.mark.slow
def test_an_oracle_run_resumes_bit_for_bit_and_exports_the_policy_alone(tmp_path, monkeypatch):
    from test_ppo import straight_and_resumed

    from hearts_env.bots import make_bot
    from hearts_env.core.rules import Rules
    from hearts_env.training.export import export_checkpoint

    settings = {"total_decisions": 64 * 64 * 3, "critic_warmup": 1, "magnet_coef": 0.1}
    run_b, a, b = straight_and_resumed(_args, tmp_path, monkeypatch, **settings)
    for key, tensor in a["extra"]["critic"].items():
        assert torch.equal(tensor, b["extra"]["critic"][key]), key

    plain = _args(tmp_path / "c", total_decisions=64 * 64, oracle_critic=False, run_name="plain")
    ppo.train(plain)
    oracle_model = export_checkpoint(run_b / "checkpoint.pt", "oracle", models_dir=tmp_path / "models")
    plain_model = export_checkpoint(
        tmp_path / "c" / "runs" / "plain" / "checkpoint.pt", "plain", models_dir=tmp_path / "models"
    )
    with np.load(oracle_model / "weights.npz") as o, np.load(plain_model / "weights.npz") as p:
        assert {k: o[k].shape for k in o.files} == {k: p[k].shape for k in p.files}  # no critic in the export
    make_bot(str(oracle_model), Rules.preset("standard"), seed=0)

    # the quick exploit tables read a checkpoint and its export alike
    spec = importlib.util.spec_from_file_location("quick_exploit", ROOT / "examples" / "quick_exploit.py")
    assert spec is not None and spec.loader is not None
    quick = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(quick)
    rules = Rules.preset("standard")
    from_checkpoint = quick.quick_exploit(str(run_b / "checkpoint.pt"), rules, deals=16)
    assert from_checkpoint == quick.quick_exploit(str(oracle_model), rules, deals=16)
    assert set(from_checkpoint) == {"heuristic", *quick.SEEKERS}
    assert all(0.0 <= from_checkpoint[s]["moons"] <= 1.0 for s in quick.SEEKERS)


def test_the_learning_curve_shows_the_exploit_curve_when_the_run_watches_adversaries(tmp_path):
    """A third panel, the moons each watched adversary shot, appears beside points and entropy."""
    pytest.importorskip("matplotlib")
    import matplotlib.image

    from hearts_env.training.plotting import plot_learning_curve

    plain = [
        {"decisions": d, "entropy": 0.3, "eval/heuristic/points": 5.0, "eval/heuristic/opponent_points": 7.0}
        for d in (0, 100)
    ]
    watched = [{**h, "eval/moon/moons": 0.2, "eval/moon-late/moons": 0.1} for h in plain]
    two = plot_learning_curve(plain, tmp_path / "plain.png")
    three = plot_learning_curve(watched, tmp_path / "watched.png")
    assert two is not None and three is not None
    assert matplotlib.image.imread(three).shape[1] > 1.3 * matplotlib.image.imread(two).shape[1]


def test_a_bare_name_finds_a_model_in_the_users_models_folder(tmp_path, monkeypatch):
    """What ``hearts train --export-name`` and ``hearts export`` write, ``make_bot`` and ``--init-from`` find by
    name; a shipped name still means the shipped model."""
    from hearts_env.nets import find_model, user_models_dir
    from hearts_env.training.export import export_checkpoint

    monkeypatch.setenv("HEARTS_MODELS_DIR", str(tmp_path / "mine"))
    monkeypatch.chdir(tmp_path)
    ppo.train(_args(tmp_path, total_decisions=64 * 64, oracle_critic=False, export_name="named"))
    assert user_models_dir() == tmp_path / "mine" and find_model("named") == tmp_path / "mine" / "named"
    assert find_model("models/named") == tmp_path / "mine" / "named"
    export_checkpoint(tmp_path / "runs" / "oracle" / "checkpoint.pt", "ppo-tuned", models_dir=tmp_path / "mine")
    assert find_model("ppo-tuned") != tmp_path / "mine" / "ppo-tuned"  # the shipped model wins
    assert not (tmp_path / "models").exists()


def test_a_critic_warm_up_without_the_oracle_critic_is_refused(tmp_path):
    with pytest.raises(ppo.ConfigError, match="--critic-warmup"):
        ppo.train(_args(tmp_path, oracle_critic=False, critic_warmup=2))


def test_compare_runs_draws_an_oracle_run_beside_a_plain_one(tmp_path):
    """The ablation picture reads each run's metrics; a torn last line (a killed run) is skipped."""
    import json

    spec = importlib.util.spec_from_file_location("compare_runs", ROOT / "examples" / "compare_runs.py")
    assert spec is not None and spec.loader is not None
    compare = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(compare)
    for name, extra in (("oracle", {"observation_value_loss": 0.03}), ("plain", {})):
        run = tmp_path / name
        run.mkdir()
        rows = [
            {"decisions": d, "value_loss": 0.02, **extra, "eval/heuristic/points": 5.0, "eval/moon/moons": 0.2}
            for d in (100, 200)
        ]
        (run / "metrics.jsonl").write_text("\n".join(map(json.dumps, rows)) + '\n{"torn', encoding="utf-8")
    assert len(compare.history(tmp_path / "oracle")) == 2
    out = compare.plot([tmp_path / "oracle", tmp_path / "plain"], tmp_path / "curves.png")
    assert out.stat().st_size > 10_000
