"""The ``hearts`` command: play against the bots, run tournaments, train, export, rules, replay.

Subcommands (each has ``--help``):

- ``hearts play``: a person plays one seat against bots in the terminal (``PlaySession``).
- ``hearts bots``: the bot roster (``hearts_env.bots.roster``) with its measured figures.
- ``hearts bench POLICY``: the benchmark protocol for a new agent (``hearts_env.tournament.bench``).
- ``hearts tournament``: bots against bots over duplicate deals (``hearts_env.cli.tournament``).
- ``hearts train`` / ``hearts export``: ``hearts_env.training.ppo.main`` / ``hearts_env.training.export.main``
  (the ``train`` extra: torch); with ``--backend rllib``, ``hearts_env.training.rllib.train.main`` /
  ``hearts_env.training.rllib.export.main`` (the ``rllib`` extra: Ray RLlib).
- ``hearts rules``: list the presets, ``show`` one, ``check`` a rule file.
- ``hearts replay RECORD``: step through a saved game record trick by trick, every hand shown.
- ``hearts serve``: a local web table in the browser (``hearts_env.web``; the ``web`` extra).
- ``hearts selfplay``: random players play a whole match (a smoke test of an install).

Game records of ``hearts play`` go to ``--record PATH``, else to ``$HEARTS_GAMES_DIR``, else to
``$XDG_DATA_HOME/hearts-env/games/`` (``~/.local/share/hearts-env/games/`` by default): a per-user
data directory, so playing never litters the working directory.
"""

from __future__ import annotations

import argparse
import codecs
import io
import os
import random
import sys
from collections.abc import Callable, Sequence

from ..bots.roster import DEFAULT_BOT, ROSTER, roster_names
from ..core import HeartsError, Match, Rules
from ..core.extras import MissingExtraError, import_extra
from ..narrate.narrator import seat_names
from ..narrate.style import spell_unencodable
from ..web.cli import add_serve_parser
from . import tournament
from .bench import add_bench_parser
from .bots_cmd import add_bots_parser
from .options import OneLineParser, add_rules_options, error_line, rules_overrides
from .play import play_command
from .replay import replay_command
from .rules_cmd import rules_command


def selfplay_command(args: argparse.Namespace) -> int:
    """``hearts selfplay``: random players play a match; one line per deal."""
    rules = Rules.load(args.rules, **rules_overrides(args.players, args.set))
    rng = random.Random(args.seed)
    match = Match(rules, seed=args.seed)
    while not match.is_terminal():
        match.apply_action(rng.choice(match.legal_actions()))
    for summary in match.history:
        tag = " (cancelled)" if summary.deal.cancelled else ""
        kind = summary.deal.pass_kind
        print(f"deal {summary.number:>2} {kind:<8} scores {list(summary.scores)} totals {list(summary.totals)}{tag}")
    names = seat_names(rules.num_players, None)
    print(f"winners: {', '.join(names[p] for p in match.winners)} ({match.end_reason})")
    return 0


#: The training backends of ``hearts train`` / ``hearts export`` (``--backend``; ``ppo`` is the default).
BACKENDS = ("ppo", "rllib")


def split_backend(argv: Sequence[str]) -> tuple[str, list[str]]:
    """``(backend, the other arguments)`` of ``--backend NAME`` / ``--backend=NAME`` (default ``ppo``);
    ``ValueError`` names a missing or unknown backend."""
    rest: list[str] = []
    backend = "ppo"
    tokens = list(argv)
    i = 0
    while i < len(tokens):
        token = tokens[i]
        if token == "--backend":
            if i + 1 >= len(tokens):
                raise ValueError(f"--backend: give one of {', '.join(BACKENDS)}")
            backend, i = tokens[i + 1], i + 2
            continue
        if token.startswith("--backend="):
            backend = token.split("=", 1)[1]
        else:
            rest.append(token)
        i += 1
    if backend not in BACKENDS:
        raise ValueError(f"--backend {backend}: unknown backend; use {' or '.join(BACKENDS)}")
    return backend, rest


def _training_entry(command: str, backend: str = "ppo") -> Callable[[list[str]], int] | None:
    """``main(argv)`` of ``hearts train`` / ``hearts export`` for ``backend``; ``None`` (said on stderr)
    without its extra. Imported here, not at the top: torch (``train``) and ray (``rllib``) are optional."""
    try:
        if backend == "rllib" and command == "train":
            import_extra("ray", "rllib", "hearts train --backend rllib")
            from ..training.rllib.train import main as rllib_train

            return rllib_train
        if backend == "rllib":  # the exporter reads the checkpoint's plain-array sidecar: no ray needed
            from ..training.rllib.export import main as rllib_export

            return rllib_export
        from ..training import export, ppo
    except MissingExtraError as err:
        print(f"hearts {command}: {err}", file=sys.stderr)
        return None
    except ModuleNotFoundError as err:
        print(
            f"hearts {command}: needs {err.name}, from the training extra: pip install 'hearts-env[train]'",
            file=sys.stderr,
        )
        return None
    return ppo.main if command == "train" else export.main


def run_front_end(command: str, argv: Sequence[str]) -> int:
    """``hearts tournament|train|export ARGS``: subcommands that parse their own arguments
    (``train`` and ``export`` take ``--backend ppo|rllib`` first)."""
    if command == "tournament":
        return tournament.main(list(argv), prog="hearts tournament")
    try:
        backend, rest = split_backend(argv)
    except ValueError as err:
        print(f"hearts {command}: {err}", file=sys.stderr)
        return 2
    entry = _training_entry(command, backend)
    if entry is None:
        return 3
    return int(entry(rest) or 0)


FRONT_ENDS = ("tournament", "train", "export")


def build_parser() -> argparse.ArgumentParser:
    parser = OneLineParser(
        prog="hearts",
        description="Hearts: play against the bots, run bot tournaments, train and export policies.",
        epilog="Start with: hearts play",
    )
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    play = sub.add_parser(
        "play",
        help="play against the bots in the terminal",
        description="Play one seat against bots. Cards are typed as QS, qs, Q♠, 10h or TH, or by number; ? for help.",
        epilog="Game records are saved under $HEARTS_GAMES_DIR, else $XDG_DATA_HOME/hearts-env/games "
        "(~/.local/share/hearts-env/games), unless --record PATH or --no-save.",
    )
    add_rules_options(play)
    play.add_argument(
        "--opponents",
        nargs="+",
        metavar="BOT",
        help=f"a roster name ({', '.join(roster_names(main_only=True))}: `hearts bots`), a spec "
        "(pimc:worlds=64, guard:base=net,...) or a model directory, one per opponent starting on your left; the last "
        f"fills the remaining seats (default: {DEFAULT_BOT}, {ROSTER[DEFAULT_BOT].what})",
    )
    play.add_argument("--seed", type=int, help="fixes the deals and the bots (default: random, printed at the start)")
    play.add_argument("--deal", action="store_true", help="play a single deal instead of a whole match")
    play.add_argument("--seat", type=int, default=0, help="your seat number (default 0)")
    play.add_argument("--no-color", action="store_true", help="plain text, no colours (also: NO_COLOR=1)")
    play.add_argument(
        "--confirm-forced",
        action="store_true",
        help="ask even when only one card may be played (default: it is played for you, with a note)",
    )
    play.add_argument("--no-save", action="store_true", help="do not save a game record")
    play.add_argument("--record", metavar="PATH", help="where to save the game record (JSON)")
    play.set_defaults(func=play_command)

    add_bots_parser(sub)
    add_bench_parser(sub)
    sub.add_parser(
        "tournament",
        help="bots against bots over duplicate deals, with 95%% intervals (hearts tournament --help)",
        add_help=False,
    )
    sub.add_parser("train", help="train a PPO policy (hearts train --help; --backend rllib: Ray RLlib)", add_help=False)
    sub.add_parser("export", help="export a policy as a numpy-only model (hearts export --help)", add_help=False)

    rules = sub.add_parser(
        "rules",
        help="list presets, show a rule set, or check a rule file",
        description="hearts rules: list the presets; hearts rules show NAME; hearts rules check FILE.",
    )
    rules.add_argument("action", nargs="?", default="list", choices=["list", "show", "check"])
    rules.add_argument("target", nargs="?", help="preset name or rule file (show), rule file (check)")
    rules.set_defaults(func=rules_command)

    replay = sub.add_parser(
        "replay",
        help="step through a saved game record trick by trick, every hand shown",
        description="Replays a game record through the engine (checking it), trick by trick with all hands shown. "
        "Pauses after each trick on a terminal; prints everything at once with --all or without a terminal.",
    )
    replay.add_argument("record", help="a game record (JSON) written by hearts play or save_record")
    replay.add_argument("--all", action="store_true", help="print the whole game without pausing")
    replay.add_argument("--no-color", action="store_true", help="plain text, no colours")
    replay.set_defaults(func=replay_command)

    selfplay = sub.add_parser("selfplay", help="random players play a whole match; print the scores")
    add_rules_options(selfplay)
    selfplay.add_argument("--seed", type=int, default=0)
    selfplay.set_defaults(func=selfplay_command)
    add_serve_parser(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """The ``hearts`` command. Output into a pipe closed early (``hearts tournament ... | head``) ends
    quietly with status 1, as Python's documentation recommends, without a traceback. Text the output
    cannot encode (``PYTHONIOENCODING=ascii``) is spelled in ASCII (``♠`` as ``S``, ``·`` as ``-``)
    rather than raising, whatever subcommand writes it."""
    codecs.register_error("hearts-ascii", spell_unencodable)
    for stream in (sys.stdout, sys.stderr):
        if isinstance(stream, io.TextIOWrapper):
            stream.reconfigure(errors="hearts-ascii")
    try:
        code = _main(argv)
        sys.stdout.flush()  # inside the try: a closed pipe shows up here at the latest
        return code
    except BrokenPipeError:
        try:  # nothing more can reach the reader: send the rest (and the flush at exit) to devnull
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, sys.stdout.fileno())
        except (OSError, ValueError):  # no real file descriptor (stdout replaced, as in tests)
            pass
        return 1


def _main(argv: Sequence[str] | None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv and argv[0] in FRONT_ENDS:
        return run_front_end(argv[0], argv[1:])
    args = build_parser().parse_args(argv)
    prog = f"hearts {args.command}"
    try:
        return args.func(args)
    except HeartsError as err:  # RulesError, and RecordError of replay, among them
        print(error_line(prog, err), file=sys.stderr)
        return 2
