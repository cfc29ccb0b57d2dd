"""The recipes of ``examples/`` for other RL libraries (TorchRL, Tianshou) run to their end with tiny
settings, sample only legal actions and print a figure in its range; their illegal-action counters
catch an illegal action when there is one (so the printed 0 means something)."""

from __future__ import annotations

import importlib.util
import os
import re
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[1]
MAX_POINTS = 26.0  # a standard deal's points for one seat: 0 .. 26


def _need(module: str) -> None:
    """In CI the recipes extra is installed, so a missing library fails there instead of skipping."""
    if not os.environ.get("CI"):
        pytest.importorskip(module)


def _run(script: str, *args: str) -> dict[str, str]:
    """Run ``examples/<script>``; its ``final:`` line as ``{key: value}``."""
    env = dict(os.environ, OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1", PYTHONPATH=str(ROOT))
    done = subprocess.run(
        [sys.executable, str(ROOT / "examples" / script), *args],
        capture_output=True,
        text=True,
        timeout=240,
        env=env,
        cwd=ROOT,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    assert "IllegalActionError" not in done.stderr + done.stdout
    lines = done.stdout.strip().splitlines()
    assert lines and lines[-1].startswith("final: "), done.stdout[-2000:]
    return dict(re.findall(r"(\w+)=(\S+)", lines[-1]))


def _load(script: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(script.removesuffix(".py"), ROOT / "examples" / script)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.slow
def test_torchrl_recipe_trains_and_plays_legally() -> None:
    _need("torchrl")
    final = _run("torchrl_pettingzoo.py", "--iterations", "2", "--frames-per-batch", "128", "--eval-deals", "2")
    assert final["iterations"] == "2" and final["frames"] == "256"
    assert final["illegal_actions"] == "0" and final["eval_deals"] == "2"
    assert 0.0 <= float(final["learner_points_per_deal"]) <= MAX_POINTS


@pytest.mark.slow
def test_tianshou_recipe_trains_and_plays_legally() -> None:
    _need("tianshou")
    final = _run("tianshou_multiagent.py", "--epochs", "1", "--steps-per-epoch", "256", "--eval-deals", "2")
    assert int(final["env_steps"]) >= 256
    assert final["illegal_actions"] == "0" and final["eval_deals"] == "2"
    assert 0.0 <= float(final["learner_points_per_deal"]) <= MAX_POINTS


@pytest.mark.slow
def test_torchrl_illegal_counter_sees_an_illegal_action() -> None:
    _need("torchrl")
    recipe = _load("torchrl_pettingzoo.py")
    env = recipe.make_env("standard", seed=1)
    rollout = env.rollout(40, break_when_any_done=False)  # the spec's masked random actions: all legal
    assert recipe.count_illegal(rollout) == 0
    step = int(rollout["learner", "mask"].squeeze(-1).nonzero()[0, 0])  # a decision of the learner
    illegal = int((~rollout["learner", "action_mask"][step, 0]).nonzero()[0, 0])
    rollout["learner", "action"][step, 0] = illegal
    assert recipe.count_illegal(rollout) == 1


@pytest.mark.slow
def test_tianshou_illegal_counter_sees_an_illegal_action() -> None:
    _need("tianshou")
    from tianshou.data import Batch, ReplayBuffer

    recipe = _load("tianshou_multiagent.py")
    buffer = ReplayBuffer(8)
    mask = np.zeros(68, dtype=bool)
    mask[[3, 5]] = True
    for act in (3, 5, 4):  # the last is illegal
        obs = {"agent_id": "player_0", "obs": np.zeros(4, np.float32), "mask": mask}
        buffer.add(Batch(obs=obs, act=act, rew=0.0, terminated=False, truncated=False, obs_next=obs, info={}))
    assert recipe.count_illegal(buffer) == 1
