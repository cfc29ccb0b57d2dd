"""The ladder: every cell is the tournament it names, and its margins are that tournament's figures."""

from __future__ import annotations

import numpy as np
import pytest

from hearts_env.tournament import run_tournament
from hearts_env.tournament.ladder import ladder


@pytest.fixture(scope="module")
def small_ladder():
    return ladder(["heuristic", "random"], "standard", deals=12, seed=3, progress=False)


def test_each_cell_is_the_tournament_of_its_row_against_its_field(small_ladder) -> None:
    cell = small_ladder.cell("random", "heuristic")
    direct = run_tournament(["random", "heuristic"], "standard", deals=12, seed=3, progress=False)
    assert cell.points == pytest.approx(direct.bots[0].mean)
    assert cell.field_points == pytest.approx(direct.bots[1].mean)
    rows = np.asarray(direct.set_samples[direct.bots[0].label])
    field = np.asarray(direct.set_samples[direct.bots[1].label])
    assert cell.margin == pytest.approx(float(np.mean(field - rows)))
    assert cell.margin_low < cell.margin < cell.margin_high
    assert cell.moon_rate == pytest.approx(direct.bots[0].moons / direct.bots[0].deals)
    assert cell.sets == 12


def test_the_order_puts_the_stronger_bot_first_and_the_table_shows_every_cell(small_ladder) -> None:
    assert small_ladder.order() == ["heuristic", "random"]
    assert small_ladder.cell("heuristic", "random").margin > 0 > small_ladder.cell("random", "heuristic").margin
    table = small_ladder.table()
    assert "| heuristic | — |" in table and "vs 3 random" in table
    data = small_ladder.to_dict()
    assert data["order"] == ["heuristic", "random"] and len(data["cells"]) == 2


def test_a_ladder_of_one_bot_is_refused() -> None:
    with pytest.raises(ValueError, match="at least two bots"):
        ladder(["heuristic"], deals=2, progress=False)


def test_fields_can_differ_from_the_rows() -> None:
    result = ladder(["random"], deals=2, seed=1, progress=False, fields=["heuristic"])
    assert [(c.row, c.field) for c in result.cells] == [("random", "heuristic")]
    assert result.order() == ["random"]  # the field alone has no row, and no mean margin of nothing
    table = result.table()
    assert "| heuristic |" not in table and "nan" not in table
    assert "| random | " in table and "vs 3 heuristic" in table


def test_the_command_prints_the_ladder_and_writes_its_json(tmp_path, capsys) -> None:
    import json

    from hearts_env.cli import tournament

    out = tmp_path / "ladder.json"
    code = tournament.main(
        ["heuristic", "random", "--ladder", "--deals", "3", "--no-progress", "--output", str(out)],
        prog="hearts tournament",
    )
    printed = capsys.readouterr().out
    assert code == 0
    assert "Ladder · standard" in printed and "| heuristic |" in printed
    assert json.loads(out.read_text())["order"] == ladder(["heuristic", "random"], deals=3, progress=False).order()


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["heuristic", "random", "--fields", "random"], "--fields needs --ladder"),
        (["heuristic", "random", "--ladder", "--matches"], "--ladder plays deals"),
        (["heuristic", "--ladder"], "at least two bots"),
    ],
)
def test_bad_ladder_commands_are_one_line(argv, message, capsys) -> None:
    from hearts_env.cli import tournament

    assert tournament.main([*argv, "--deals", "2", "--no-progress"], prog="hearts tournament") == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1
