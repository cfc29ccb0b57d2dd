"""``hearts tournament``: its arguments and its output; the play itself is ``hearts_env.tournament``'s
(bots against bots over duplicate deals)."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path

from ..core import HeartsError, RulesError
from ..core.rules import Rules
from ..tournament.evaluate import resolve_bot_specs
from ..tournament.runner import run_tournament
from .options import OneLineParser, add_rules_options, describe_rules, error_line, rules_overrides


def build_parser(prog: str | None = None) -> argparse.ArgumentParser:
    parser = OneLineParser(
        prog=prog or "hearts tournament",
        description="Bots against bots over duplicate deals (each deal replayed with the seats rotated), "
        "reporting points per deal with 95% confidence intervals, and win rates with --matches.",
        epilog="Example: hearts tournament heuristic random --deals 2000   (heuristic against three random bots)",
    )
    parser.add_argument(
        "bots",
        nargs="+",
        metavar="BOT",
        help="random, heuristic, pimc, ismcts, a model directory or package.module:function (your policy), one per "
        "seat from seat 0; the last fills the remaining seats",
    )
    add_rules_options(parser)
    parser.add_argument("--deals", type=int, default=1000, help="duplicate sets to play (default 1000)")
    parser.add_argument(
        "--matches", action="store_true", help="play whole matches (sets are matches) and report win rates"
    )
    parser.add_argument("--seed", type=int, default=0, help="fixes every deal and every bot's choices (default 0)")
    parser.add_argument("--workers", type=int, default=1, help="processes to play in (0: one per CPU; default 1)")
    parser.add_argument("--json", action="store_true", help="print the result as JSON instead of the table")
    parser.add_argument("--output", metavar="PATH", help="also write the JSON result to PATH")
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")
    return parser


def main(argv: Sequence[str] | None = None, prog: str | None = None) -> int:
    """``hearts tournament ARGS``: the table (or JSON) on stdout; a bad option or bot is one line and status 2."""
    args = build_parser(prog).parse_args(argv)
    name = prog or "hearts tournament"
    overrides = rules_overrides(args.players, args.set)
    try:
        rules = Rules.load(args.rules, **overrides)
    except RulesError as err:
        print(error_line(name, err), file=sys.stderr)
        return 2
    output = Path(args.output) if args.output else None
    if output is not None and (output.is_dir() or not output.parent.is_dir()):  # before the games, not after
        problem = "is a directory" if output.is_dir() else f"no directory {output.parent}"
        print(f"{name}: --output {output}: {problem}", file=sys.stderr)
        return 2
    try:
        bots = resolve_bot_specs(args.bots, rules)  # module:function specs become the user's policy
        result = run_tournament(
            bots,
            rules,
            deals=args.deals,
            seed=args.seed,
            matches=args.matches,
            progress=not args.no_progress,
            workers=args.workers,
            rules_label=describe_rules(args.rules, overrides),
        )
    except (ValueError, NotImplementedError, HeartsError, OSError) as err:
        print(error_line(name, err), file=sys.stderr)
        return 2
    data = result.to_dict()
    if output is not None:
        try:
            output.write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")
        except OSError as err:
            print(f"{name}: --output {output}: {err.strerror or err}", file=sys.stderr)
            return 2
    print(json.dumps(data, indent=2) if args.json else result.table())
    return 0
