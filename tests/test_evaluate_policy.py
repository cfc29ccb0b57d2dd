"""``hearts_env.tournament.evaluate``: any policy against the standard opponents over duplicate deals."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

from hearts_env.bots import make_bot
from hearts_env.core.errors import IllegalActionError
from hearts_env.tournament import TournamentResult, run_tournament
from hearts_env.tournament.evaluate import (
    PolicyBot,
    as_bot,
    evaluate,
    is_policy_spec,
    load_policy_spec,
    resolve_bot_specs,
)


def lowest_legal(observation):
    return int(np.flatnonzero(observation["action_mask"])[0])


def lowest_legal_two(obs, mask):
    assert obs.shape == (2577,)
    return int(np.flatnonzero(mask)[0])


class FakeMaskable:
    """What sb3-contrib's MaskablePPO looks like to ``evaluate``: ``predict(obs, action_masks=...)``."""

    def __init__(self) -> None:
        self.calls = 0

    def predict(self, obs, state=None, episode_start=None, deterministic=False, action_masks=None):
        self.calls += 1
        assert action_masks is not None and action_masks.dtype == bool
        return np.array(np.flatnonzero(action_masks)[-1]), None


class FakePlain:
    """An SB3 model without masks (``PPO``): it predicts from the observation only."""

    def predict(self, obs, state=None, episode_start=None, deterministic=False):
        return np.array(0), None


def test_callables_bots_and_models_are_evaluated() -> None:
    for policy in (lowest_legal, lowest_legal_two, make_bot("random", seed=1), FakeMaskable()):
        result = evaluate(policy, "standard", deals=3, seed=0)
        assert isinstance(result, TournamentResult)
        assert result.sets == 3 and result.games == 12
        assert len(result.bots) == 2 and result.bots[1].label == "heuristic"
        assert np.isfinite(result.bots[0].mean) and len(result.differences) == 1
        assert "heuristic" in result.table()
    assert evaluate(lowest_legal, deals=2, name="lowest").bots[0].label == "lowest"


def test_same_as_a_tournament_with_the_bot() -> None:
    """``evaluate`` is ``run_tournament`` of the wrapped policy and the opponents, by the same seeds."""
    bot = make_bot("heuristic", seed=0)
    mine = evaluate(bot, "standard", opponents="random", deals=4, seed=7)
    theirs = run_tournament([make_bot("heuristic", seed=0), "random"], "standard", deals=4, seed=7, progress=False)
    assert [b.mean for b in mine.bots] == [b.mean for b in theirs.bots]


def test_three_players_and_per_seat_opponents() -> None:
    result = evaluate(lowest_legal, "three_player", opponents=["heuristic", "random"], deals=2)
    assert result.games == 6 and {b.label for b in result.bots} == {"lowest_legal", "heuristic", "random"}
    with pytest.raises(ValueError, match="opponents"):
        evaluate(lowest_legal, "standard", opponents=["heuristic", "random"], deals=1)


def test_illegal_actions_raise_naming_them() -> None:
    with pytest.raises(IllegalActionError, match=r"policy always_99 chose 99 .*legal: "):
        evaluate(lambda obs: 99, deals=1, name="always_99")
    bot = PolicyBot(FakePlain(), name="plain")
    with pytest.raises(IllegalActionError, match="2C"):  # the mask is respected: action 0 is not legal at once
        mask = np.zeros(68, np.int8)
        mask[0] = 0
        mask[1] = 1
        bot.act({"observation": np.zeros(2577, np.float32), "action_mask": mask})
    with pytest.raises(IllegalActionError, match="not an action id"):
        PolicyBot(lambda obs: 1.0).act({"observation": np.zeros(2577, np.float32), "action_mask": np.ones(68, np.int8)})
    with pytest.raises(TypeError):
        as_bot(object())


def test_policy_specs(tmp_path, monkeypatch) -> None:
    (tmp_path / "my_policies.py").write_text(
        textwrap.dedent(
            """
            import numpy as np

            def first(observation):
                return int(np.flatnonzero(observation["action_mask"])[0])

            class Holder:
                @staticmethod
                def last(obs, mask):
                    return int(np.flatnonzero(mask)[-1])
            """
        )
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    assert is_policy_spec("my_policies:first") and is_policy_spec("pkg.mod:Holder.last")
    assert not is_policy_spec("heuristic") and not is_policy_spec("pimc:worlds=64") and not is_policy_spec("pimc:x")
    assert callable(load_policy_spec("my_policies:first"))
    assert callable(load_policy_spec("my_policies:Holder.last"))
    assert callable(load_policy_spec(f"{tmp_path / 'my_policies.py'}:first"))
    for bad, why in [
        ("my_policies:missing", "no attribute"),
        ("no_such_module_xyz:f", "cannot import"),
        ("heuristic", "expected"),
        (f"{tmp_path / 'nope.py'}:f", "no file"),
    ]:
        with pytest.raises(ValueError, match=why):
            load_policy_spec(bad)
    result = evaluate("my_policies:first", deals=2)
    assert result.bots[0].label == "my_policies:first"
    specs = resolve_bot_specs(["my_policies:Holder.last", "heuristic", "random"])
    assert isinstance(specs[0], PolicyBot) and specs[1:] == ["heuristic", "random"]
    result = run_tournament(specs, "standard", deals=2, progress=False)  # what `hearts tournament mod:fn` runs
    assert result.bots[0].label == "my_policies:Holder.last"


def test_a_real_maskable_ppo_model() -> None:
    sb3_contrib = pytest.importorskip("sb3_contrib")
    from hearts_env.envs import HeartsGymEnv

    model = sb3_contrib.MaskablePPO("MlpPolicy", HeartsGymEnv("standard"), n_steps=16, batch_size=16, seed=0)
    result = evaluate(model, deals=2, name="maskable")
    assert result.bots[0].label == "maskable" and np.isfinite(result.bots[0].mean)


def test_hearts_tournament_takes_a_module_function_policy(tmp_path: Path) -> None:
    (tmp_path / "my_policy.py").write_text(
        "import numpy as np\n\ndef highest(obs):\n    return int(np.flatnonzero(obs['action_mask'])[-1])\n",
        encoding="utf-8",
    )
    env = {**os.environ, "PYTHONPATH": str(tmp_path)}
    result = subprocess.run(
        [sys.executable, "-m", "hearts_env", "tournament", "my_policy:highest", "heuristic", "--deals", "8", "--json"],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=tmp_path,
        env=env,
    )
    assert result.returncode == 0, result.stderr
    data = json.loads(result.stdout)
    assert [b["label"] for b in data["bots"]] == ["my_policy:highest", "heuristic"]
    bad = subprocess.run(
        [sys.executable, "-m", "hearts_env", "tournament", "my_policy:nothing", "heuristic", "--deals", "8"],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=tmp_path,
        env=env,
    )
    assert bad.returncode == 2 and len(bad.stderr.strip().splitlines()) == 1 and "nothing" in bad.stderr
