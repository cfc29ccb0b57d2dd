"""``hearts serve``: its arguments (``add_serve_parser``) and what it does (``serve_main``)."""

from __future__ import annotations

import argparse
import ipaddress
import sys
import threading
import webbrowser
from pathlib import Path

from ..bots.roster import DEFAULT_BOT
from ..core.extras import MissingExtraError, import_extra
from ..core.record import default_record_dir

LOCAL_HOSTS = ("localhost",)
WILDCARDS = ("0.0.0.0", "::")  # every address of this machine


def is_local(host: str) -> bool:
    if host in LOCAL_HOSTS:
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def add_serve_parser(subparsers: argparse._SubParsersAction) -> argparse.ArgumentParser:
    """Add ``serve`` to the ``hearts`` subcommands; its handler is ``serve_main``."""
    parser = subparsers.add_parser(
        "serve",
        help="play in the browser: a local web table against the bots",
        description="A local web table: play against the bots, watch bots play, replay game records. Every seat "
        f"starts at the roster's {DEFAULT_BOT} bot (`hearts bots` lists the others).",
    )
    parser.add_argument("--host", default="127.0.0.1", help="address to listen on (default: this machine only)")
    parser.add_argument("--port", type=int, default=8000, help="port (default 8000)")
    parser.add_argument("--open", action="store_true", help="open the table in the web browser")
    parser.add_argument(
        "--records", metavar="DIR", help="where finished games are saved and read for replay (default: as hearts play)"
    )
    parser.add_argument("--max-games", type=int, default=200, help="live games at most (default 200)")
    parser.add_argument(
        "--max-games-per-client",
        type=int,
        default=20,
        metavar="N",
        help="games in progress at most per client address (default 20)",
    )
    parser.add_argument(
        "--allow-host",
        action="append",
        default=[],
        metavar="NAME",
        help="also answer requests addressed to NAME (the name or address others type to reach this table); "
        "this machine's loopback names and --host are always answered",
    )
    parser.set_defaults(func=serve_main)
    return parser


def serve_main(args: argparse.Namespace) -> int:
    try:  # the optional web extra: a missing package is named with the command that installs it
        import_extra("starlette", "web", "hearts serve")
        uvicorn = import_extra("uvicorn", "web", "hearts serve")
    except MissingExtraError as err:
        print(err, file=sys.stderr)
        return 2
    limits = {
        "--port": (args.port, 1, 65535),
        "--max-games": (args.max_games, 1, None),
        "--max-games-per-client": (args.max_games_per_client, 1, None),
    }
    for option, (value, low, high) in limits.items():
        if value < low or (high is not None and value > high):
            bound = f"between {low} and {high}" if high is not None else f"at least {low}"
            print(f"hearts serve: {option} must be {bound}, got {value}", file=sys.stderr)
            return 2
    from .server import create_app

    records = Path(args.records).expanduser() if args.records else default_record_dir()
    names = [*([] if args.host in WILDCARDS else [args.host]), *args.allow_host]
    app = create_app(
        records,
        max_games=args.max_games,
        max_games_per_client=args.max_games_per_client,
        hosts=names,
        port=args.port,
    )
    shown = f"[{args.host}]" if ":" in args.host else args.host
    url = f"http://{'127.0.0.1' if args.host in WILDCARDS else shown}:{args.port}/"
    if not is_local(args.host):
        answered = ", ".join(names) if names else "none but this machine's own names"
        print(
            f"hearts serve: warning: listening on {args.host}: anyone who can reach port {args.port} can play here "
            f"(addressed as {answered}; --allow-host NAME adds a name).",
            file=sys.stderr,
        )
    print(f"Hearts web table at {url}  (records in {records}; Ctrl-C stops)", flush=True)
    if args.open:
        threading.Timer(1.0, webbrowser.open, args=(url,)).start()
    uvicorn.run(app, host=args.host, port=args.port, log_level="warning")
    return 0


def main(argv: list[str] | None = None) -> int:
    """``python -m hearts_env.web.cli``: ``hearts serve`` without the ``hearts`` command."""
    parser = argparse.ArgumentParser(prog="hearts")
    sub = parser.add_subparsers(dest="command", required=True)
    add_serve_parser(sub)
    args = parser.parse_args(["serve", *(sys.argv[1:] if argv is None else argv)])
    return args.func(args)


if __name__ == "__main__":
    sys.exit(main())
