"""``hearts bench``: the protocol's tables, its JSON schema, the policies it accepts, and its one-line errors."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from hearts_env.cli.main import main
from hearts_env.tournament import bench as bench_module
from hearts_env.tournament.bench import BENCH_SEED, PANEL, PROTOCOL, Tier, bench
from hearts_env.tournament.runner import run_tournament

#: The protocol at one or two sets per table: the same code path as the tiers, in seconds.
TINY = Tier(
    "tiny",
    {"random": 2, "heuristic": 2, "net": 2, "pimc": 1, "strongest": 1},
    matches=1,
    exploit_sets=2,
    adversaries=("moon-late",),
    learned_decisions=1,
)


def lowest_card(observation: dict[str, Any]) -> int:
    """A user's policy: the first legal action."""
    return int(np.flatnonzero(observation["action_mask"])[0])


def check_schema(data: dict[str, Any], policy: str, panel: tuple[str, ...] = PANEL) -> None:
    assert data["protocol"] == PROTOCOL == "hearts-bench v1"
    assert data["policy"] == policy and data["rules"] == "standard" and data["seed"] == BENCH_SEED
    assert [t["opponent"] for t in data["tables"]] == list(panel)
    for table in data["tables"]:
        assert set(table) >= {"opponent", "points_per_deal", "ci95", "moons", "paired_difference"}
        low, high = table["ci95"]
        if table["sets"] > 1:  # one set has no interval (None in the JSON)
            assert low <= table["points_per_deal"] <= high
        assert isinstance(table["moons"], int) and table["moons"] >= 0
        assert set(table["paired_difference"]) == {"versus", "mean", "ci95"}
    assert 0 <= data["matches"]["win_rate"] <= 1
    (exploit,) = data["exploitability"]
    assert exploit["adversary"] == "moon-late" and 0 <= exploit["moon_share_conceded"] <= 1
    assert data["ms_per_decision"] > 0


@pytest.mark.slow
def test_bench_tables_are_the_tournaments_tables() -> None:
    """Each panel table is the tournament of the policy against three of that bot on the bench's deals, and the
    paired difference is to the panel bot in the same seat (zero for the heuristic bot against itself)."""
    report = bench("heuristic", "standard", TINY)
    data = report.to_dict()
    check_schema(data, "heuristic")
    same = run_tournament(["heuristic", "random"], "standard", deals=2, seed=BENCH_SEED, progress=False)
    random_table = data["tables"][0]
    assert random_table["points_per_deal"] == pytest.approx(same.bots[0].mean, abs=1e-6)
    heuristic_table = data["tables"][1]
    assert heuristic_table["paired_difference"]["mean"] == 0
    assert heuristic_table["points_per_deal"] == pytest.approx(report.results["heuristic"].bots[0].mean, abs=1e-6)
    json.dumps(data, allow_nan=False)  # strict JSON: no NaN anywhere
    text = report.table()
    assert PROTOCOL in text and "negative: the policy does better" in text


@pytest.mark.slow
def test_bench_takes_a_python_callable_and_a_file_spec(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(bench_module, "PANEL", ("random", "heuristic"))  # the search tables are tested above
    data = bench(lowest_card, "standard", TINY).to_dict()
    check_schema(data, "lowest_card", ("random", "heuristic"))
    # the same policy from a file in the user's folder, by file.py:fn and by module:fn, through the CLI
    (tmp_path / "mypol.py").write_text(
        "import numpy as np\n\ndef fn(observation):\n    return int(np.flatnonzero(observation['action_mask'])[0])\n"
    )
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr("hearts_env.cli.bench.QUICK", TINY)
    for spec in ("mypol.py:fn", "mypol:fn"):
        assert main(["bench", spec, "--quick", "--json", "--no-progress", "--output", "out.json"]) == 0
        written = json.loads((tmp_path / "out.json").read_text())
        assert [t["points_per_deal"] for t in written["tables"]] == [t["points_per_deal"] for t in data["tables"]]


def test_bench_refuses_bad_input_in_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["bench", "pimc:worlds=abc", "--quick", "--no-progress"]) == 2
    err = capsys.readouterr().err.strip()
    assert err == "hearts bench: pimc:worlds=abc: worlds must be a number, got 'abc'"
    assert main(["bench", "nosuchmodule:fn", "--quick", "--no-progress"]) == 2
    assert "cannot import nosuchmodule" in capsys.readouterr().err
    assert main(["bench"]) == 2
    assert "give one POLICY" in capsys.readouterr().err


def test_panel_bots_missing_for_the_rules_are_reported_not_played(monkeypatch: pytest.MonkeyPatch) -> None:
    """On rules no shipped network plays, `net` has no bot: its table says so; the others are played."""
    tiny = Tier("tiny", {"random": 1, "heuristic": 1, "net": 1, "pimc": 1, "strongest": 1}, 1, 1, (), 1)
    monkeypatch.setattr(bench_module, "PANEL", ("random", "net"))
    data = bench("heuristic", "spot_hearts", tiny).to_dict()
    net = next(t for t in data["tables"] if t["opponent"] == "net")
    assert "no shipped bot for these rules" in net["skipped"]
    played = next(t for t in data["tables"] if t["opponent"] == "random")
    assert not math.isnan(played["points_per_deal"])


def test_leaderboard_lists_every_shipped_bot_once() -> None:
    from hearts_env.bots import ROSTER
    from hearts_env.bots.roster import NET
    from hearts_env.nets.store import shipped_models

    bots = bench_module.leaderboard_bots()
    assert bots[:5] == ["random", "heuristic", "pimc", "net", "strongest"]
    assert set(bots) <= set(ROSTER) | set(shipped_models())
    assert NET["standard"] not in bots  # it is `net` on the standard rules
    assert "guard-shoot" not in bots  # it is `strongest` on the standard rules
    assert set(shipped_models()) - {NET["standard"]} <= set(bots)


def test_leaderboard_command_prints_the_table(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    monkeypatch.setattr(bench_module, "PANEL", ("random", "heuristic"))
    monkeypatch.setattr("hearts_env.cli.bench.QUICK", TINY)
    monkeypatch.setattr("hearts_env.cli.bench.leaderboard_bots", lambda: ["random", "heuristic"])
    out = tmp_path / "board.json"
    assert main(["bench", "--leaderboard", "--quick", "--no-progress", "--output", str(out)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("| bot | 3 random | 3 heuristic |")
    assert [line.split("|")[1].strip() for line in lines[2:]] == ["`random`", "`heuristic`"]
    saved = json.loads(out.read_text())
    assert [r["policy"] for r in saved] == ["random", "heuristic"]
    # the heuristic bot against three of itself: its paired difference to itself is zero
    assert "(+0.00)" in lines[3].split("|")[3]
