"""``hearts bots`` (``bots_command``): the bot roster for the rules in play, with the figures of its model cards."""

from __future__ import annotations

import argparse
import json

from ..bots.roster import ROSTER, Figures, figures, preset_of, roster_spec
from ..core import Rules
from .options import add_rules_options, describe_rules, rules_overrides


def _number(value: float | None, signed: bool = False) -> str:
    if value is None:
        return "—"
    return f"{value:+.2f}" if signed else f"{value:.2f}"


def _with_interval(value: float | None, ci: tuple[float, float] | None, signed: bool = False) -> str:
    text = _number(value, signed)
    if value is not None and ci is not None and ci[0] != ci[1]:
        text += f" [{_number(ci[0], signed)}, {_number(ci[1], signed)}]"
    return text


def _ms(value: float | None) -> str:
    if value is None:
        return "—"
    return f"{value:.2f}" if value < 1 else f"{value:.1f}" if value < 10 else f"{value:.0f}"


def roster_rows(rules: Rules, main_only: bool = False) -> list[dict[str, object]]:
    """One dict per roster name: ``name``, ``what``, ``spec`` (``None`` where the name has no bot for ``rules``)
    and its ``figures`` under ``rules``."""
    rows: list[dict[str, object]] = []
    for name, entry in ROSTER.items():
        if main_only and not entry.main:
            continue
        try:
            spec: str | None = roster_spec(name, rules)
        except ValueError:
            spec = None
        rows.append({"name": name, "what": entry.what, "spec": spec, "figures": figures(name, rules)})
    return rows


def bots_command(args: argparse.Namespace) -> int:
    """``hearts bots [--rules R] [--all] [--json]``."""
    rules = Rules.load(args.rules, **rules_overrides(args.players, args.set))
    rows = roster_rows(rules, main_only=not args.all)
    if args.json:
        out = []
        for row in rows:
            fig = row["figures"]
            assert isinstance(fig, Figures)
            out.append({**{k: v for k, v in row.items() if k != "figures"}, "figures": fig.__dict__})
        print(json.dumps({"rules": describe_rules(args.rules, rules_overrides(args.players, args.set)), "bots": out}))
        return 0
    preset = preset_of(rules)
    print(f"Bots for {describe_rules(args.rules, rules_overrides(args.players, args.set))}", end="")
    print(f" (figures measured on {preset})" if preset else " (no shipped network plays these rules)")
    header = ("name", "what it is", "ms/decision", "pts/deal at 3 heuristic", "margin at 3 pimc")
    table = [header]
    for row in rows:
        fig = row["figures"]
        assert isinstance(fig, Figures)
        name = str(row["name"]) if row["spec"] is not None else f"{row['name']} (none)"
        table.append(
            (
                name,
                str(row["what"]),
                _ms(fig.ms_per_decision),
                _with_interval(fig.heuristic_points, fig.heuristic_ci95),
                _with_interval(fig.pimc_margin, fig.pimc_ci95, signed=True),
            )
        )
    widths = [max(len(r[i]) for r in table) for i in range(len(header))]
    for r in table:
        print("  ".join(cell.ljust(w) for cell, w in zip(r, widths, strict=True)).rstrip())
    print(
        "\npts/deal: the bot's points per deal at a table of three heuristic bots (lower is better); margin: the "
        "three pimc bots' points per deal less the bot's, paired on the same deals (positive: the bot takes fewer). "
        "[95% intervals]; — not measured."
    )
    print("Any name works wherever a bot is asked for (hearts play --opponents net, hearts tournament pimc net, ...);")
    print("`hearts bots --all` adds the research names; `hearts bots --json` prints the specs each name seats.")
    return 0


def add_bots_parser(sub: argparse._SubParsersAction) -> argparse.ArgumentParser:
    """``hearts bots``'s parser on the subcommands ``sub``."""
    parser: argparse.ArgumentParser = sub.add_parser(
        "bots",
        help="the bots you can play and benchmark against, by name, with their measured strength",
        description="The bot roster for the rules in play: each name, what it is, its speed, its points per deal at "
        "three heuristic bots and its margin at three pimc, from the model cards.",
    )
    add_rules_options(parser)
    parser.add_argument("--all", action="store_true", help="also the research names (the shipped guard combinations)")
    parser.add_argument("--json", action="store_true", help="print the roster, specs and figures as JSON")
    parser.set_defaults(func=bots_command)
    return parser
