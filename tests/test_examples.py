"""The examples run to their end with tiny settings and print their ``final:`` line (each well under a
minute on an idle CPU)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

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
