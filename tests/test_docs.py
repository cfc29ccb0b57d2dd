"""The README and the docs pages: short, their links there, their `hearts` commands accepted by the parsers, and
no issue numbers (the bar itself is stated)."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest

from hearts_env.cli import tournament
from hearts_env.cli.main import build_parser

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"


#: Pages the README links that other parts of the project write.
def readme_commands() -> list[list[str]]:
    """The argument lists of every ``hearts ...`` line in the README's shell blocks (comments and ``&&`` tails off)."""
    text = README.read_text(encoding="utf-8")
    commands = []
    for block in re.findall(r"```bash\n(.*?)```", text, flags=re.S):
        for line in block.splitlines():
            for part in line.split("#")[0].split("&&"):
                words = shlex.split(part.strip())
                if words[:1] == ["hearts"]:
                    commands.append(words[1:])
    return commands


def test_readme_is_short_and_its_links_exist() -> None:
    text = README.read_text(encoding="utf-8")
    assert len(text.splitlines()) <= 300
    for link in re.findall(r"\]\(((?:docs|examples)/[^)#]+)\)", text):
        assert (ROOT / link).exists(), link


def test_readme_commands_are_accepted(monkeypatch: pytest.MonkeyPatch) -> None:
    commands = readme_commands()
    names = {c[0] for c in commands}
    assert {"play", "bench", "tournament", "train", "export"} <= names
    parser = build_parser()
    for argv in commands:
        if argv[0] in ("train", "export"):  # their own parsers need torch; their options are tested with them
            continue
        if argv[0] == "tournament":
            tournament.build_parser().parse_args(argv[1:])
        else:
            parser.parse_args(argv)


def test_no_issue_numbers_in_the_docs_and_cards() -> None:
    pages = [README, *(ROOT / "docs").glob("*.md"), *(ROOT / "models").glob("*/README.md")]
    pages += list((ROOT / "models").glob("*/model.json"))
    for page in pages:
        found = re.findall(r".{0,30}\bissue\s*#?\d+.{0,30}", page.read_text(encoding="utf-8"), flags=re.I)
        assert not found, (page, found)


def test_the_bots_page_shows_the_roster_as_it_is() -> None:
    from hearts_env.bots.roster import OTHER_RULES, ROSTER, ROSTER_PRESETS

    page = (ROOT / "docs" / "bots.md").read_text(encoding="utf-8")
    for name, entry in ROSTER.items():
        cells = [f"`{entry.specs[p]}`" if p in entry.specs else "—" for p in (*ROSTER_PRESETS, OTHER_RULES)]
        assert f"| `{name}` | {entry.what} | " + " | ".join(cells) + " |" in page, name


def test_the_readme_bots_table_shows_the_cards_figures() -> None:
    """The README's "Bots at a glance" figures are the ones ``hearts bots`` reads from the model cards."""
    from hearts_env.bots.roster import figures, roster_names

    rows = {
        line.split("|")[1].strip(" `"): line
        for line in README.read_text(encoding="utf-8").splitlines()
        if line.startswith("| `")
    }
    for name in roster_names(main_only=True):
        got = figures(name, "standard")
        assert got.heuristic_points is not None and got.heuristic_ci95 is not None, name
        low, high = got.heuristic_ci95
        assert f"{got.heuristic_points:.2f}" in rows[name] and f"[{low:.2f}, {high:.2f}]" in rows[name], name


def test_the_leaderboard_has_every_shipped_bot() -> None:
    from hearts_env.tournament.bench import leaderboard_bots

    page = (ROOT / "docs" / "benchmark.md").read_text(encoding="utf-8")
    for bot in leaderboard_bots():
        assert f"| `{bot}` |" in page, bot
