"""``hearts train`` and its run directory, from the outside: a fresh run never writes over another, a
resume refuses settings it cannot change and applies the others, ``metrics.jsonl`` never repeats an
update, killed checkpoint writes leave nothing behind, a full disk or a read-only directory ends in
one line, and the run ends with a summary naming its files and the next command."""

from __future__ import annotations

import errno
import json
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")

pytestmark = pytest.mark.slow  # real (tiny) training runs, several minutes in all

from hearts_env.training import config, export, ppo  # noqa: E402

#: one update of 16 tables x 16 steps, a tiny network, a quick evaluation
TINY = [
    "--num-envs", "16", "--num-steps", "16", "--total-decisions", "256", "--minibatch-size", "64",
    "--update-epochs", "1", "--hidden", "16", "--eval-deals", "8", "--eval-every", "1",
    "--checkpoint-every", "1", "--snapshot-every", "1", "--progress", "false",
]  # fmt: skip


def _train(tmp_path: Path, capsys: pytest.CaptureFixture[str], *flags: str) -> tuple[int, str, str]:
    code = ppo.main(["--runs-dir", str(tmp_path / "runs"), "--run-name", "r", *TINY, *flags])
    out, err = capsys.readouterr()
    return code, out, err


def _updates(run: Path) -> list[int]:
    return [json.loads(line)["update"] for line in (run / "metrics.jsonl").read_text(encoding="utf-8").splitlines()]


def _one_line(err: str) -> None:
    assert err.startswith("hearts train: ") and err.count("\n") == 1 and "Traceback" not in err, err


def test_a_fresh_run_refuses_a_directory_holding_a_run_unless_overwrite(tmp_path, capsys):
    assert _train(tmp_path, capsys)[0] == 0
    run = tmp_path / "runs" / "r"
    before = (run / "checkpoint.pt").read_bytes(), (run / "metrics.jsonl").read_text(encoding="utf-8")

    code, _, err = _train(tmp_path, capsys, "--seed", "2")
    assert code == 2
    _one_line(err)
    assert str(run) in err and f"--resume {run}" in err and "--overwrite" in err
    assert ((run / "checkpoint.pt").read_bytes(), (run / "metrics.jsonl").read_text(encoding="utf-8")) == before

    assert _train(tmp_path, capsys, "--seed", "2", "--overwrite")[0] == 0
    assert _updates(run) == [1]  # replaced, not appended to
    saved = torch.load(run / "checkpoint.pt", weights_only=True)
    assert saved["args"]["seed"] == 2


@pytest.fixture(scope="module")
def finished_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A finished one-update run to resume."""
    tmp = tmp_path_factory.mktemp("finished")
    assert ppo.main(["--runs-dir", str(tmp / "runs"), "--run-name", "r", *TINY]) == 0
    return tmp / "runs" / "r"


@pytest.mark.parametrize(
    ("flags", "option"),
    [
        (["--rules", "omnibus"], "--rules"),
        (["--more-rules", "microsoft"], "--more-rules"),
        (["--hidden", "32"], "--hidden"),
        (["--network", "cardset"], "--network"),
        (["--num-envs", "8"], "--num-envs"),
        (["--learning-rate", "0.1"], "--learning-rate"),
    ],
)
def test_a_resume_refuses_settings_it_cannot_change_naming_the_option(finished_run, flags, option):
    with pytest.raises(config.ConfigError) as caught:
        ppo.parse_args(["--resume", str(finished_run), *flags])
    message = str(caught.value)
    assert message.startswith(f"{option}: cannot change on --resume {finished_run}")
    assert "--total-decisions" in message  # says what may change


def test_a_resume_applies_the_settings_it_can_change(tmp_path, capsys, finished_run):
    run = tmp_path / "r"
    run.mkdir()
    for name in ("checkpoint.pt", "metrics.jsonl"):
        (run / name).write_bytes((finished_run / name).read_bytes())
    launch = ppo.parse_args(["--resume", str(run), "--total-decisions", "512", "--eval-deals", "4"])
    assert (launch.args.total_decisions, launch.args.eval_deals) == (512, 4)
    assert ppo.main(["--resume", str(run), "--total-decisions", "512", "--eval-deals", "4"]) == 0
    capsys.readouterr()
    saved = torch.load(run / "checkpoint.pt", weights_only=True)
    assert saved["update"] == 2 and saved["args"]["total_decisions"] == 512 and saved["args"]["eval_deals"] == 4
    assert _updates(run) == [1, 2]


def test_a_resume_cuts_metrics_back_to_its_checkpoint_and_removes_stale_temp_files(tmp_path, capsys, monkeypatch):
    """Killed after update 2 was logged but before its checkpoint: the resume trains update 2 again and
    ``metrics.jsonl`` holds it once; a temporary file of a killed checkpoint write is removed."""
    real_save = ppo.save_checkpoint
    saves: list[int] = []

    def killed_on_the_second(*a, **kw):
        saves.append(kw["update"])
        if len(saves) == 2:
            raise KeyboardInterrupt("killed")
        return real_save(*a, **kw)

    monkeypatch.setattr(ppo, "save_checkpoint", killed_on_the_second)
    with pytest.raises(KeyboardInterrupt):
        _train(tmp_path, capsys, "--total-decisions", "768")
    monkeypatch.setattr(ppo, "save_checkpoint", real_save)
    run = tmp_path / "runs" / "r"
    assert _updates(run) == [1, 2]
    stale = run / ".checkpoint.pt.k1ll3d.tmp"
    stale.write_bytes(b"\0" * 4096)

    assert ppo.main(["--resume", str(run)]) == 0
    capsys.readouterr()
    assert _updates(run) == [1, 2, 3]
    assert not stale.exists()


@pytest.mark.parametrize(
    ("error", "reason"),
    [
        (OSError(errno.ENOSPC, "No space left on device"), "No space left on device"),
        (OSError(errno.EROFS, "Read-only file system"), "Read-only file system"),
    ],
)
def test_a_failed_checkpoint_write_ends_in_one_line(tmp_path, capsys, monkeypatch, error, reason):
    def fails(path, **kw):
        raise error

    monkeypatch.setattr(ppo, "save_checkpoint", fails)
    code, out, err = _train(tmp_path, capsys)
    assert code == 1 and out == ""
    _one_line(err)
    run = tmp_path / "runs" / "r"
    assert reason in err and str(run / "checkpoint.pt") in err and f"--resume {run}" in err


def test_a_read_only_run_directory_ends_in_one_line(tmp_path, capsys):
    """``runs_dir`` a file: the run directory cannot be made (the same path as a read-only parent)."""
    (tmp_path / "runs").write_text("not a directory", encoding="utf-8")
    code, _, err = _train(tmp_path, capsys)
    assert code == 1
    _one_line(err)
    assert str(tmp_path / "runs") in err


@pytest.mark.parametrize("name", ["../../x", "a/b", ".hidden"])
def test_a_bad_export_name_is_refused_before_training_starts(tmp_path, capsys, name):
    code, _, err = _train(tmp_path, capsys, "--export-name", name)
    assert code == 2
    _one_line(err)
    assert "--export-name" in err and "plain directory name" in err
    assert not (tmp_path / "runs").exists()


def test_bad_values_on_the_command_line_or_in_the_config_are_one_line_naming_the_option(tmp_path, capsys):
    code, _, err = _train(tmp_path, capsys, "--num-envs", "many")
    assert code == 2
    _one_line(err)
    assert "--num-envs" in err
    toml = tmp_path / "bad.toml"
    toml.write_text('num_steps = "long"\n', encoding="utf-8")
    code, _, err = _train(tmp_path, capsys, "--config", str(toml))
    assert code == 2
    _one_line(err)
    assert str(toml) in err and "--num-steps" in err
    toml.write_text("num_step = 3\n", encoding="utf-8")
    code, _, err = _train(tmp_path, capsys, "--config", str(toml))
    assert code == 2 and "unknown setting(s) num_step" in err
    assert not (tmp_path / "runs").exists()


def test_the_command_line_overrides_the_config_file(tmp_path):
    toml = tmp_path / "c.toml"
    toml.write_text("num_envs = 32\nanneal_lr = false\nhidden = [8, 8]\n", encoding="utf-8")
    args = ppo.parse_args(["--config", str(toml), "--num-envs", "16"]).args
    assert (args.num_envs, args.anneal_lr, args.hidden) == (16, False, [8, 8])


def test_a_run_ends_with_a_summary_and_the_next_command_that_works(tmp_path, capsys, monkeypatch):
    code, out, _ = _train(tmp_path, capsys)
    assert code == 0
    run = tmp_path / "runs" / "r"
    assert "trained 1 updates, 256 decisions" in out and "decisions/s" in out
    assert "vs 3 random:" in out and "vs 3 heuristic:" in out and "±" in out
    for name in ("checkpoint.pt", "metrics.jsonl", "learning_curve.png"):
        assert str(run / name) in out
    command = out.strip().splitlines()[-1]
    assert command == f"next: hearts export {run} --name r"
    monkeypatch.chdir(tmp_path)
    assert export.main(command.split()[3:]) == 0  # the command as printed: writes models/r
    capsys.readouterr()
    assert (tmp_path / "models" / "r" / "model.json").is_file()

    code, out, _ = _train(tmp_path, capsys, "--overwrite", "--json")
    assert code == 0
    final = json.loads(out)
    assert final["update"] == 1 and final["run_dir"] == str(run) and "eval/heuristic/points_se" in final
