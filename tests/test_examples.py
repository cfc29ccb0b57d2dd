"""The examples run to their end with tiny settings and print their ``final:`` line (each well under a
minute on an idle CPU)."""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[1]


def _run(script: str, *args: str) -> str:
    env = dict(os.environ, OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1", PYTHONPATH=str(ROOT))
    done = subprocess.run(
        [sys.executable, str(ROOT / "examples" / script), *args],
        capture_output=True,
        text=True,
        timeout=180,
        env=env,
        cwd=ROOT,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    lines = done.stdout.strip().splitlines()
    assert lines and lines[-1].startswith("final: "), done.stdout[-2000:]
    return lines[-1]


@pytest.mark.slow
def test_cleanrl_ppo_vector() -> None:
    line = _run(
        "cleanrl_ppo_vector.py",
        "--total-timesteps",
        "2048",
        "--num-envs",
        "32",
        "--num-steps",
        "16",
        "--hidden",
        "64",
        "--update-epochs",
        "2",
        "--device",
        "cpu",
    )
    assert "steps=2048" in line and "episodes=" in line


@pytest.mark.slow
def test_sb3_maskable_ppo() -> None:
    pytest.importorskip("sb3_contrib")
    line = _run("sb3_maskable_ppo.py", "--total-timesteps", "128", "--n-steps", "64", "--eval-deals", "2")
    assert "timesteps=" in line and "points_per_deal=" in line


def test_points_breakdown_agrees_with_the_tournament() -> None:
    """The breakdown deals as ``hearts tournament`` does: the bot's points per deal are the tournament's, and
    its components add up to them (omnibus: hearts, the queen's 13, the ♦J's -10, where no one shot)."""
    from hearts_env.tournament import run_tournament

    line = _run(
        "points_breakdown.py",
        "heuristic",
        "--reference",
        "random",
        "--field",
        "heuristic",
        "--rules",
        "omnibus",
        "--deals",
        "6",
        "--seed",
        "4",
    )
    fields = dict(item.split("=", 1) for item in line.removeprefix("final: ").split()[:2])
    bot = run_tournament(["heuristic", "heuristic"], "omnibus", deals=6, seed=4, progress=False).bots[0]
    reference = run_tournament(["random", "heuristic"], "omnibus", deals=6, seed=4, progress=False).bots[0]
    assert float(fields["bot"]) == pytest.approx(bot.mean, abs=1e-3)
    assert float(fields["reference"]) == pytest.approx(reference.mean, abs=1e-3)
    spec = importlib.util.spec_from_file_location("points_breakdown", ROOT / "examples" / "points_breakdown.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    rows = module.play("omnibus", "heuristic", "heuristic", 6, 4)
    points, hearts, queen, jack, shot, conceded = (rows[:, k] for k in range(6))
    calm = (shot == 0) & (conceded == 0)  # no moon in any rotation of the set
    assert calm.any()
    assert np.allclose(points[calm], (hearts + 13 * queen - 10 * jack)[calm])
