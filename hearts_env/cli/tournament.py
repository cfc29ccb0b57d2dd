"""``hearts tournament``: its arguments and its output; the play itself is ``hearts_env.tournament``'s
(bots against bots over duplicate deals).

``hearts tournament MODEL --robustness`` is the exploitability suite instead
(``hearts_env.tournament.robustness``): every scripted adversary at a table of three copies of MODEL
and at a table of three heuristic bots, over the same deals. ``--learned DECISIONS`` adds the learned
best responses (``hearts_env.training.best_response``; needs the train extra, imported only then;
``--learned-dir`` keeps their runs and continues one that stopped), ``--write-card`` writes the table into
MODEL's README (``hearts_env.training.model_card``)."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Sequence
from dataclasses import asdict
from pathlib import Path
from typing import Any

from ..bots.make import lineup_of
from ..bots.roster import roster_names
from ..core import HeartsError, RulesError
from ..core.rules import Rules
from ..tournament.evaluate import resolve_bot_specs
from ..tournament.results import json_ready, paired_difference
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
        help=f"a roster name ({', '.join(roster_names(main_only=True))}: `hearts bots`), a spec (pimc:worlds=64, "
        "guard:base=net,...), a model directory, or your policy as package.module:function or file.py:function, one "
        "per seat from seat 0; the last fills the remaining seats",
    )
    add_rules_options(parser)
    parser.add_argument(
        "--deals", type=int, help="duplicate sets to play (default 1000; with --robustness 200 per table)"
    )
    parser.add_argument(
        "--matches", action="store_true", help="play whole matches (sets are matches) and report win rates"
    )
    parser.add_argument("--seed", type=int, default=0, help="fixes every deal and every bot's choices (default 0)")
    parser.add_argument("--workers", type=int, default=1, help="processes to play in (0: one per CPU; default 1)")
    parser.add_argument("--json", action="store_true", help="print the result as JSON instead of the table")
    parser.add_argument("--output", metavar="PATH", help="also write the JSON result to PATH")
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")
    parser.add_argument(
        "--paired",
        metavar="BOT",
        help="also play the same deals with BOT in the first BOT's seat, and report the first BOT's points per deal "
        "less BOT's, paired over the duplicate sets (the cost of a guard over its base: guard:base=ppo-tuned "
        "heuristic --paired models/ppo-tuned)",
    )
    suite = parser.add_argument_group("exploitability suite (one MODEL as the only BOT)")
    suite.add_argument(
        "--robustness",
        action="store_true",
        help="every scripted adversary against three copies of MODEL and against three heuristic bots, same deals "
        "(--deals per table, default 200 here)",
    )
    suite.add_argument(
        "--learned",
        type=int,
        metavar="DECISIONS",
        help="also train PPO best responses for DECISIONS decisions against MODEL and against the heuristic bot "
        "(needs the train extra; a MODEL that is a search bot or guard:... trains on the reference engine)",
    )
    suite.add_argument(
        "--learned-start",
        default="heuristic",
        metavar="TEACHER",
        help="whom both best responses imitate before PPO: heuristic (default), or a scripted adversary's label "
        "(moon-late: learned exploiters that start as moon seekers)",
    )
    suite.add_argument(
        "--learned-dir",
        type=Path,
        metavar="DIR",
        help="keep the best responses' runs in DIR (checkpointed every update): a run found there continues "
        "where it stopped, a finished one is evaluated without training again (for budgets of hours against a "
        "search bot or guard:...; --workers also plays that bot's training decisions in parallel)",
    )
    suite.add_argument(
        "--adversaries",
        nargs="+",
        metavar="LABEL",
        help="only these adversaries of the suite (default: all; see hearts_env.bots.scripted.ADVERSARIES)",
    )
    suite.add_argument(
        "--write-card", action="store_true", help="write the table into MODEL's README under ## Robustness"
    )
    ladder = parser.add_argument_group("the bots' ladder (two or more BOTs)")
    ladder.add_argument(
        "--ladder",
        action="store_true",
        help="every BOT in one seat against three copies of every other BOT, same deals (--deals per cell, "
        "default 200 here): margins with intervals and moon shots",
    )
    ladder.add_argument(
        "--fields", nargs="+", metavar="BOT", help="with --ladder: the field bots (columns; default: the BOTs)"
    )
    return parser


LADDER_DEALS = 200  # --deals of --ladder when not given: per cell


def _ladder_main(args: argparse.Namespace, rules: Rules, name: str, label: str, output: Path | None) -> int:
    """``--ladder``: every bot against a field of each other bot, as a markdown table (or JSON)."""
    from ..tournament.ladder import ladder

    progress = not args.no_progress

    def announce(row: str, field: str) -> None:
        if progress:
            print(f"ladder: {row} against 3 {field}", file=sys.stderr, flush=True)

    try:
        result = ladder(
            args.bots,
            rules,
            deals=args.deals if args.deals is not None else LADDER_DEALS,
            seed=args.seed,
            workers=args.workers,
            fields=args.fields,
            progress=progress,
            rules_label=label,
            on_cell=announce,
        )
    except (ValueError, NotImplementedError, HeartsError, OSError) as err:
        print(error_line(name, err), file=sys.stderr)
        return 2
    return _emit(result.to_dict(), result.table(), args.json, output, name)


ROBUSTNESS_DEALS = 200  # --deals of --robustness when not given: per table, two tables per adversary


def _robustness_problem(args: argparse.Namespace) -> str | None:
    """Why the suite's options cannot run together (``None``: they can); checked before any game."""
    if not args.robustness:
        given_flags = (
            ("--learned", args.learned is not None),
            ("--learned-start", args.learned_start != "heuristic"),
            ("--learned-dir", args.learned_dir is not None),
            ("--write-card", args.write_card),
            ("--adversaries", args.adversaries is not None),
        )
        for flag, given in given_flags:
            if given:
                return f"{flag} needs --robustness (hearts tournament MODEL --robustness {flag} ...)"
        return None
    if len(args.bots) != 1:
        return f"--robustness measures one model: give it as the only BOT, got {len(args.bots)} ({' '.join(args.bots)})"
    if args.matches:
        return "--robustness plays deals, not --matches"
    if args.learned is not None and args.learned < 1:
        return f"--learned {args.learned}: the budget must be at least 1 decision"
    if args.learned_dir is not None and args.learned is None:
        return "--learned-dir needs --learned DECISIONS (the best responses it keeps)"
    if args.learned_start != "heuristic":
        from ..bots.scripted import ADVERSARIES

        if args.learned is None:
            return "--learned-start needs --learned DECISIONS (the best responses it starts)"
        if args.learned_start not in ADVERSARIES:
            valid = ", ".join(sorted(ADVERSARIES))
            return f"--learned-start {args.learned_start}: unknown teacher; use heuristic, {valid}"
    if args.adversaries is not None:
        from ..tournament.robustness import default_adversaries

        known = default_adversaries()
        unknown = [a for a in args.adversaries if a not in known]
        if unknown:
            return f"--adversaries: unknown adversary {', '.join(unknown)}; use {', '.join(known)}"
    if args.write_card and not (Path(args.bots[0]) / "model.json").is_file():
        return f"--write-card: {args.bots[0]} is not a model directory (one with a model.json, e.g. models/<name>)"
    return None


def _robustness_main(args: argparse.Namespace, rules: Rules, name: str, label: str, output: Path | None) -> int:
    """``--robustness``: the table (or JSON), the learned rows with ``--learned``, the card with ``--write-card``."""
    from ..core.extras import import_extra
    from ..tournament.robustness import default_adversaries, robustness

    model = args.bots[0]
    deals = args.deals if args.deals is not None else ROBUSTNESS_DEALS
    learn: Callable[..., dict[str, Any]] | None = None  # training's learned_best_response, with --learned
    if args.learned is not None:  # before any game: a missing torch is said at once
        try:
            import_extra("torch", "train", "--learned (a learned best response)")
        except ModuleNotFoundError as err:
            print(f"{name}: {err}", file=sys.stderr)
            return 2
        from ..training.best_response import learned_best_response

        learn = learned_best_response
    progress = not args.no_progress

    def announce(adversary: str, field: str) -> None:
        if progress:
            print(f"robustness: {adversary} against 3 {field}", file=sys.stderr, flush=True)

    try:
        report = robustness(
            model,
            rules,
            deals=deals,
            adversaries=None if args.adversaries is None else {a: default_adversaries()[a] for a in args.adversaries},
            seed=args.seed,
            workers=args.workers,
            progress=progress,
            rules_label=label,
            on_table=announce,
        )
        if learn is not None:
            report.learned = learn(
                model,
                rules,
                args.learned,
                args.seed,
                deals=deals,
                workers=args.workers,
                progress=progress,
                teacher=args.learned_start,
                runs_dir=args.learned_dir,
            )
    except (ValueError, NotImplementedError, HeartsError, OSError) as err:
        print(error_line(name, err), file=sys.stderr)
        return 2
    data = report.to_dict()
    if output is not None and not _write_json(data, output, name):
        return 2
    if args.write_card:
        from ..training.model_card import write_robustness_card

        command = f"hearts tournament {model} --robustness --deals {deals} --seed {args.seed}"
        if args.adversaries is not None:
            command += f" --adversaries {' '.join(args.adversaries)}"
        if args.learned is not None:
            command += f" --learned {args.learned}"
            if args.learned_start != "heuristic":
                command += f" --learned-start {args.learned_start}"
        try:
            readme = write_robustness_card(model, report.table(), command)
        except (ValueError, OSError) as err:
            print(f"{name}: --write-card: {err}", file=sys.stderr)
            return 2
        print(f"robustness: the table is in {readme}", file=sys.stderr)
    print(json.dumps(data, indent=2) if args.json else report.table())
    return 0


def _write_json(data: dict[str, Any], output: Path, name: str) -> bool:
    """Write ``data`` to ``--output``; ``False`` (said in one line) when it cannot be written."""
    try:
        output.write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")
    except OSError as err:
        print(f"{name}: --output {output}: {err.strerror or err}", file=sys.stderr)
        return False
    return True


def _emit(data: dict[str, Any], table: str, as_json: bool, output: Path | None, name: str) -> int:
    """The result: to ``--output`` when given, then the table (or the JSON) on stdout; the exit status."""
    if output is not None and not _write_json(data, output, name):
        return 2
    print(json.dumps(data, indent=2) if as_json else table)
    return 0


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
    suite_problem = _robustness_problem(args)
    if suite_problem is not None:
        print(f"{name}: {suite_problem}", file=sys.stderr)
        return 2
    if args.fields and not args.ladder:
        print(f"{name}: --fields needs --ladder (hearts tournament A B C --ladder --fields ...)", file=sys.stderr)
        return 2
    if args.paired and (args.ladder or args.robustness):
        problem = "--paired compares two lineups of a plain tournament: not with --ladder or --robustness"
        print(f"{name}: {problem}", file=sys.stderr)
        return 2
    if args.ladder:
        if args.robustness or args.matches:
            print(f"{name}: --ladder plays deals, on its own: not with --robustness or --matches", file=sys.stderr)
            return 2
        return _ladder_main(args, rules, name, describe_rules(args.rules, overrides), output)
    if args.robustness:
        return _robustness_main(args, rules, name, describe_rules(args.rules, overrides), output)
    try:
        bots = resolve_bot_specs(args.bots, rules)  # module:function specs become the user's policy
        lineups = [bots]
        if args.paired:
            first = resolve_bot_specs([args.paired], rules)
            lineups.append(first + lineup_of(bots, rules.num_players)[1:])
        results = [
            run_tournament(
                lineup,
                rules,
                deals=args.deals if args.deals is not None else 1000,
                seed=args.seed,
                matches=args.matches,
                progress=not args.no_progress,
                workers=args.workers,
                rules_label=describe_rules(args.rules, overrides),
            )
            for lineup in lineups
        ]
        difference = paired_difference(*results) if args.paired else None
    except (ValueError, NotImplementedError, HeartsError, OSError) as err:
        print(error_line(name, err), file=sys.stderr)
        return 2
    data, table = results[0].to_dict(), results[0].table()
    if difference is not None:
        other = results[1]
        data["paired"] = json_ready({"bot": asdict(other.bots[0]), "difference": asdict(difference)})
        table += (
            f"\n\nPaired over the same {other.sets:,} duplicate sets: {other.bots[0].label} "
            f"{other.bots[0].mean:.3f} [{other.bots[0].ci_low:.3f}, {other.bots[0].ci_high:.3f}] points per deal; "
            f"{difference.label} − {difference.versus}: {difference.mean:+.3f} "
            f"[{difference.ci_low:+.3f}, {difference.ci_high:+.3f}]"
        )
    return _emit(data, table, args.json, output, name)
