"""The ``hearts`` command line."""

from __future__ import annotations

import argparse
import random
import sys
from collections.abc import Sequence

from .core import PRESET_DESCRIPTIONS, Match, Rules, RulesError


def _cmd_rules(args: argparse.Namespace) -> int:
    if args.action == "list":
        width = max(map(len, PRESET_DESCRIPTIONS))
        for name, text in PRESET_DESCRIPTIONS.items():
            print(f"{name:<{width}}  {text}")
        return 0
    if args.action == "show":
        print(Rules.load(args.target).to_toml(), end="")
        return 0
    rules = Rules.from_file(args.target)
    print(f"{args.target}: valid ({rules.num_players} players)")
    return 0


def _cmd_selfplay(args: argparse.Namespace) -> int:
    rules = Rules.load(args.rules)
    rng = random.Random(args.seed)
    match = Match(rules, seed=args.seed)
    while not match.is_terminal():
        match.apply_action(rng.choice(match.legal_actions()))
    for summary in match.history:
        tag = " (cancelled)" if summary.deal.cancelled else ""
        kind = summary.deal.pass_kind
        print(f"deal {summary.number:>2} {kind:<8} scores {list(summary.scores)} totals {list(summary.totals)}{tag}")
    print(f"winners: {', '.join(f'seat {p}' for p in match.winners)} ({match.end_reason})")
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="hearts", description="Hearts for reinforcement learning.")
    sub = parser.add_subparsers(dest="command", required=True)
    rules = sub.add_parser("rules", help="list presets, show a rule set, or check a rule file")
    rules.add_argument("action", nargs="?", default="list", choices=["list", "show", "check"])
    rules.add_argument("target", nargs="?", default="standard", help="preset name or rule file")
    rules.set_defaults(func=_cmd_rules)
    selfplay = sub.add_parser("selfplay", help="play a whole match with random players and print the scores")
    selfplay.add_argument("--rules", default="standard", help="preset name or rule file")
    selfplay.add_argument("--seed", type=int, default=0)
    selfplay.set_defaults(func=_cmd_selfplay)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return args.func(args)
    except RulesError as err:
        print(f"hearts: invalid rules: {err}", file=sys.stderr)
        return 2
