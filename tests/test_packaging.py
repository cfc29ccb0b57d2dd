"""The installed distribution, as a user gets it: a wheel built from this checkout, installed into a
fresh virtual environment outside the checkout. It must ship the models and RULES.md, play a
shipped model, and claim no top-level name but ``hearts_env``."""

from __future__ import annotations

import os
import subprocess
import sys
import venv
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

pytestmark = pytest.mark.slow


def run(args: list[str], cwd: Path, timeout: float = 600) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    return subprocess.run(args, cwd=cwd, capture_output=True, text=True, timeout=timeout, env=env)


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("wheel")
    result = run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q", str(ROOT), "-w", str(out)],
        cwd=out,
    )
    assert result.returncode == 0, result.stderr[-3000:]
    (built,) = out.glob("hearts_env-*.whl")
    return built


def test_the_wheel_holds_one_top_level_package_the_models_and_the_rules(wheel: Path) -> None:
    names = zipfile.ZipFile(wheel).namelist()
    top = {n.split("/")[0] for n in names if not n.split("/")[0].endswith(".dist-info")}
    assert top == {"hearts_env"}
    for model in sorted(p.name for p in (ROOT / "models").iterdir() if (p / "model.json").is_file()):
        for part in ("model.json", "weights.npz", "README.md"):
            assert f"hearts_env/_models/{model}/{part}" in names
    assert "hearts_env/_rules/RULES.md" in names
    assert "hearts_env/training/ppo.py" in names
    assert "hearts_env/py.typed" in names


def test_the_installed_wheel_plays_a_shipped_model_from_anywhere(wheel: Path, tmp_path: Path) -> None:
    home = tmp_path / "env"
    venv.EnvBuilder(with_pip=True).create(home)
    python = home / "bin" / "python"
    install = run([str(python), "-m", "pip", "install", "-q", str(wheel)], cwd=tmp_path)
    assert install.returncode == 0, install.stderr[-3000:]
    hearts = home / "bin" / "hearts"
    result = run([str(hearts), "tournament", "ppo-standard", "heuristic", "--deals", "20", "--no-progress"], tmp_path)
    assert result.returncode == 0, result.stderr
    assert "ppo-standard" in result.stdout and "heuristic" in result.stdout
    probe = run(
        [
            str(python),
            "-c",
            "import importlib.util, hearts_env, hearts_env.nets as nets\n"
            "from importlib.resources import files\n"
            "print(importlib.util.find_spec('training') is None)\n"
            "print(sorted(nets.shipped_models()))\n"
            "print(files('hearts_env').joinpath('_rules/RULES.md').read_text(encoding='utf-8').startswith('#'))\n"
            f"print({str(ROOT)!r} not in hearts_env.__file__)",
        ],
        cwd=tmp_path,
    )
    assert probe.returncode == 0, probe.stderr
    shipped = sorted(p.name for p in (ROOT / "models").iterdir() if (p / "model.json").is_file())
    assert probe.stdout.split("\n")[:4] == ["True", repr(shipped), "True", "True"]
