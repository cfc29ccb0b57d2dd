"""``hearts bench POLICY``: the benchmark protocol (``hearts_env.tournament.bench``) from the command line."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ..core import HeartsError
from ..core.rules import Rules
from ..tournament.bench import (
    BENCH_SEED,
    FULL,
    PANEL,
    PROTOCOL,
    QUICK,
    BenchReport,
    bench,
    leaderboard_bots,
    leaderboard_markdown,
)
from ..tournament.evaluate import resolve_bot_specs
from .options import add_rules_options, describe_rules, error_line, rules_overrides


def add_bench_parser(sub: argparse._SubParsersAction) -> argparse.ArgumentParser:
    """``hearts bench``'s parser on the subcommands ``sub``."""
    parser: argparse.ArgumentParser = sub.add_parser(
        "bench",
        help=f"benchmark a policy by the fixed protocol ({PROTOCOL}) against the panel of shipped bots",
        description=f"{PROTOCOL}: POLICY in one seat against three of each panel bot ({', '.join(PANEL)}) over "
        f"fixed duplicate deals (seed {BENCH_SEED}), with 95%% intervals and the paired difference to the panel bot "
        "in the same seat; win rate in matches to 100; exploitability by the scripted moon seekers.",
        epilog="Example: hearts bench my-model --quick. POLICY: a model directory, a roster name (hearts bots), "
        "a spec, package.module:function or file.py:function (from the current folder).",
    )
    parser.add_argument("policy", metavar="POLICY", nargs="?", help="the policy to benchmark")
    parser.add_argument(
        "--leaderboard",
        action="store_true",
        help="benchmark every shipped bot (the roster and every shipped model) and print docs/benchmark.md's table",
    )
    add_rules_options(parser)
    parser.add_argument(
        "--quick",
        action="store_true",
        help=f"the quick tier: {sum(QUICK.sets.values())} duplicate sets in all, one adversary (a few minutes for a "
        f"network on 2 cores); default: the full tier ({sum(FULL.sets.values())} sets, every adversary)",
    )
    parser.add_argument(
        "--learned",
        action="store_true",
        help="also train a learned best response against POLICY at the tier's fixed budget (the train extra)",
    )
    parser.add_argument("--workers", type=int, default=1, help="processes to play in (0: one per CPU; default 1)")
    parser.add_argument("--json", action="store_true", help="print the result as one JSON object")
    parser.add_argument("--output", metavar="PATH", help="also write the JSON result to PATH")
    parser.add_argument("--no-progress", action="store_true", help="no progress lines on stderr")
    parser.set_defaults(func=bench_command)
    return parser


def bench_command(args: argparse.Namespace) -> int:
    """``hearts bench POLICY [--quick] [--learned] [--json]``."""
    name = "hearts bench"
    overrides = rules_overrides(args.players, args.set)
    rules = Rules.load(args.rules, **overrides)
    if args.workers < 0:
        print(f"{name}: --workers must be 0 (one per CPU) or more, got {args.workers}", file=sys.stderr)
        return 2
    learn: Callable[..., dict[str, Any]] | None = None
    if args.learned:
        from ..core.extras import MissingExtraError, import_extra

        try:
            import_extra("torch", "train", "hearts bench --learned")
        except (MissingExtraError, ModuleNotFoundError) as err:
            print(f"{name}: {err}", file=sys.stderr)
            return 2
        from ..training.best_response import learned_best_response

        learn = learned_best_response
    progress = not args.no_progress

    def announce(what: str) -> None:
        if progress:
            print(f"{name}: {what}", file=sys.stderr, flush=True)

    if (args.policy is None) == (not args.leaderboard):
        print(f"{name}: give one POLICY, or --leaderboard without one (see {name} --help)", file=sys.stderr)
        return 2
    policies = leaderboard_bots() if args.leaderboard else [args.policy]
    reports: list[BenchReport] = []
    try:
        for given in policies:
            announce(f"{given}")
            report = bench(
                resolve_bot_specs([given], rules)[0],
                rules,
                QUICK if args.quick else FULL,
                workers=args.workers,
                learn=learn,
                on_table=announce,
            )
            report.rules = describe_rules(args.rules, overrides)
            reports.append(report)
            if args.output:  # after every bot: a long leaderboard run keeps what it measured
                out = [r.to_dict() for r in reports] if args.leaderboard else report.to_dict()
                Path(args.output).write_text(json.dumps(out, indent=2) + "\n")
    except (ValueError, NotImplementedError, HeartsError, OSError) as err:
        print(error_line(name, err), file=sys.stderr)
        return 2
    if args.leaderboard:
        print(json.dumps([r.to_dict() for r in reports], indent=2) if args.json else leaderboard_markdown(reports))
        return 0
    data = report.to_dict()
    print(json.dumps(data, indent=2) if args.json else report.table())
    return 0
