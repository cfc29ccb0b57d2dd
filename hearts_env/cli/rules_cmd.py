"""``hearts rules`` (``rules_command``): list the presets, show one, check a rule file."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ..core import PRESET_DESCRIPTIONS, PRESETS, Rules


def rules_command(args: argparse.Namespace) -> int:
    """``hearts rules [list|show NAME|check FILE]``."""
    if args.action == "list":
        width = max(map(len, PRESET_DESCRIPTIONS))
        for name, text in PRESET_DESCRIPTIONS.items():
            print(f"{name:<{width}}  {text}")
        print("\n`hearts rules show NAME` prints every option; `hearts rules check FILE` validates a rule file.")
        return 0
    if args.target is None:
        print(
            f"hearts rules {args.action}: name a {'preset or rule file' if args.action == 'show' else 'rule file'}",
            file=sys.stderr,
        )
        return 2
    if args.action == "show":
        rules = Rules.load(args.target)
        if args.target in PRESETS:
            print(f"# {args.target}: {PRESET_DESCRIPTIONS[args.target]}")
        print(rules.to_toml(), end="")
        return 0
    if Path(args.target).is_dir():
        print(f"hearts rules check: {args.target}: is a directory, not a rule file", file=sys.stderr)
        return 2
    if not Path(args.target).exists():
        print(f"hearts rules check: {args.target}: no such file", file=sys.stderr)
        return 2
    rules = Rules.from_file(args.target)  # a FIFO or a device: refused by the reader, in one line
    t = rules.tables
    print(
        f"{args.target}: valid ({rules.num_players} players, {t.hand_size} cards each"
        f"{f', kitty of {t.kitty_size}' if t.kitty_size else ''}, pass cycle {' '.join(t.pass_cycle)}, "
        f"{t.penalty_total} penalty points per deal)"
    )
    return 0
