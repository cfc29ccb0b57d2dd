"""What every subcommand parses alike: ``--rules``, ``--players`` and ``--set`` (the rules), and
``OneLineParser`` (a mistyped option is one line, not a usage block)."""

from __future__ import annotations

import argparse
import tomllib
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, NoReturn

from ..core import RulesError


class OneLineParser(argparse.ArgumentParser):
    """An ``ArgumentParser`` whose errors are one line, ``hearts play: argument --set: ...``, pointing
    to ``--help`` instead of printing the usage block (status 2, as argparse)."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: {message} (see {self.prog} --help)\n")


def error_line(prog: str, err: Exception) -> str:
    """The one line a subcommand says when it refuses its input (``hearts play: invalid rules
    (option moon_mode): ...``): the command, then the reason, never a traceback."""
    if isinstance(err, RulesError):
        option = f" (option {err.option})" if err.option else ""
        return f"{prog}: invalid rules{option}: {err}"
    return f"{prog}: {err}"


def parse_setting(text: str) -> tuple[str, Any]:
    """``option=value`` of ``--set``: the value read as TOML (``3``, ``true``, ``["left", "hold"]``),
    else taken as a plain string (``moon_mode=add_to_others``)."""
    key, sep, raw = text.partition("=")
    key = key.strip()
    if not sep or not key:
        raise argparse.ArgumentTypeError(f"--set expects option=value, got {text!r}")
    raw = raw.strip()
    try:
        value = tomllib.loads(f"v = {raw}")["v"]
    except tomllib.TOMLDecodeError:
        value = raw
    return key, value


def rules_overrides(players: int | None, settings: Sequence[tuple[str, Any]] | None) -> dict[str, Any]:
    """The keyword overrides of ``Rules.load`` from ``--players`` and the ``--set`` pairs."""
    out: dict[str, Any] = dict(settings or ())
    if players is not None:
        out["num_players"] = players
    return out


def describe_rules(spec: str | Path | None, overrides: Mapping[str, Any]) -> str:
    """A short label such as ``omnibus (num_players=5)``."""
    name = Path(str(spec)).name if spec is not None else "standard"
    if overrides:
        name += " (" + ", ".join(f"{k}={v}" for k, v in overrides.items()) + ")"
    return name


def add_rules_options(parser: argparse.ArgumentParser) -> None:
    """``--rules``, ``--players`` and ``--set``: how every subcommand that takes rules reads them."""
    parser.add_argument("--rules", default="standard", help="a preset name (see `hearts rules`) or a rule file (.toml)")
    parser.add_argument("--players", type=int, help="number of players (3..8): overrides num_players")
    parser.add_argument(
        "--set",
        action="append",
        type=parse_setting,
        metavar="OPTION=VALUE",
        help="override any rule option, e.g. --set moon_mode=add_to_others --set game_end_threshold=50 (repeatable)",
    )
