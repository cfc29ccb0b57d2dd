"""The exploitability suite: the robustness report's arithmetic on a real run, ``hearts tournament
--robustness`` (table, JSON, bad input), the model-card writer, the training pool's ``model:`` and
scripted kinds, and a tiny learned best response."""

from __future__ import annotations

import json
import tomllib
from pathlib import Path

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from hearts_env import Rules  # noqa: E402
from hearts_env.training import config as training_config  # noqa: E402
from hearts_env.training import opponents, ppo  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]


def _tiny_args(tmp_path: Path, **overrides) -> ppo.Args:
    args = ppo.Args(
        rules="standard",
        seed=3,
        hidden=[32],
        total_decisions=16 * 64 * 2,
        num_envs=16,
        num_steps=64,
        minibatch_size=256,
        update_epochs=1,
        eval_every=0,
        eval_deals=8,
        checkpoint_every=100,
        runs_dir=str(tmp_path / "runs"),
        run_name="tiny",
        progress=False,
    )
    for key, value in overrides.items():
        setattr(args, key, value)
    return args


# ---------------------------------------------------------------------------------------------------------------
# The training pool: model:<path> and the scripted adversaries
# ---------------------------------------------------------------------------------------------------------------


@pytest.mark.slow
def test_the_smoke_config_trains_exactly_as_before_the_new_pool_kinds():
    """``configs/train/smoke.toml``, seeded: every logged metric of every update equals the figures
    recorded before the ``model:`` and scripted kinds existed (``tests/data/smoke_metrics.json``)."""
    import tempfile

    data = tomllib.loads((ROOT / "configs/train/smoke.toml").read_text(encoding="utf-8"))
    with tempfile.TemporaryDirectory() as tmp:
        args = ppo.args_from_dict({**data, "runs_dir": tmp, "run_name": "smoke", "progress": False}, "test")
        ppo.train(args)
        lines = (Path(tmp) / "smoke" / "metrics.jsonl").read_text(encoding="utf-8").splitlines()
    got = [json.loads(line) for line in lines]
    want = json.loads((ROOT / "tests/data/smoke_metrics.json").read_text(encoding="utf-8"))
    assert len(got) == len(want)
    for g, w in zip(got, want, strict=True):
        for key, value in w.items():
            if isinstance(value, int):
                assert g[key] == value, (w["update"], key)
            else:  # float rounding may differ between CPUs; a changed random stream would not be this close
                assert g[key] == pytest.approx(value, rel=1e-6, abs=1e-9), (w["update"], key)


def test_unknown_pool_kinds_are_named_with_the_valid_kinds_listed(tmp_path):
    with pytest.raises(ppo.ConfigError) as err:
        training_config.check_args(_tiny_args(tmp_path, pool=["heuristic", "robot"], pool_weights=[1.0, 1.0]))
    message = str(err.value)
    assert "unknown opponent kind(s) robot" in message
    for kind in ("snapshot", "heuristic", "random", "model:", *opponents.scripted_adversaries()):
        assert kind in message
    assert "\n" not in message


@pytest.mark.parametrize(
    ("kind", "reason"),
    [("model:", "names no model"), ("model:no-such-model", "no-such-model"), ("model:ppo-mixed", "rules")],
)
def test_a_model_kind_that_cannot_play_is_refused_naming_it(tmp_path, kind, reason):
    rules = "standard" if kind != "model:ppo-mixed" else "spot_hearts"
    with pytest.raises(ppo.ConfigError, match=reason) as err:
        training_config.check_args(_tiny_args(tmp_path, rules=rules, pool=[kind], pool_weights=[1.0]))
    assert str(err.value).startswith("--pool")


class _Recording:
    """Wraps a pool opponent: every call's observations, masks and actions."""

    def __init__(self, inner) -> None:
        self.inner = inner
        self.name = inner.name
        self.calls: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = []

    def act(self, engine, rows, obs, mask, generator=None):
        actions = self.inner.act(engine, rows, obs, mask, generator)
        self.calls.append((obs.numpy().copy(), mask.numpy().copy(), actions.numpy().copy()))
        return actions

    @property
    def decisions(self) -> int:
        return sum(len(a) for _, _, a in self.calls)


@pytest.mark.slow
def test_a_pool_of_a_shipped_model_and_a_moon_seeker_plays_exactly_those(tmp_path, monkeypatch):
    """``pool = ["model:ppo-standard", "moon"]``, no self-play: every opponent decision of the run is
    made by one of the two, the model's are ppo-standard's greedy choices (its numpy forward pass on the
    same observations), and the moon seeker's are the scripted bot's."""
    from hearts_env.bots import make_bot
    from hearts_env.bots.scripted import ADVERSARIES
    from hearts_env.nets import load_policy

    made: dict[str, _Recording] = {}
    real = ppo.pool_opponent

    def recording(kind, *a, **kw):
        made[kind] = _Recording(real(kind, *a, **kw))
        return made[kind]

    monkeypatch.setattr(ppo, "pool_opponent", recording)
    final = ppo.train(
        _tiny_args(tmp_path, pool=["model:ppo-standard", "moon"], pool_weights=[1.0, 1.0], selfplay_fraction=0.0)
    )
    assert set(made) == {"model:ppo-standard", "moon"}
    assert made["model:ppo-standard"].decisions > 0 and made["moon"].decisions > 0
    assert sum(r.decisions for r in made.values()) == final["decisions"] - final["learner_decisions"]

    policy = load_policy("ppo-standard", "standard")
    for obs, mask, actions in made["model:ppo-standard"].calls:
        expected = [policy.choose(o, m.astype(np.int8), greedy=True) for o, m in zip(obs, mask, strict=True)]
        assert actions.tolist() == expected

    rules = Rules.preset("standard")
    bot = make_bot(ADVERSARIES["moon"], rules, seed=0)
    for obs, mask, actions in made["moon"].calls:
        expected = [
            bot.act({"observation": o, "action_mask": m.astype(np.int8)}) for o, m in zip(obs, mask, strict=True)
        ]
        assert actions.tolist() == expected
