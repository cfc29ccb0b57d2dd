"""``hearts replay RECORD`` (``replay_command``): a saved game stepped through the engine again,
trick by trick, every hand shown, in the narration of ``hearts play`` (seats named as there)."""

from __future__ import annotations

import argparse
import sys

from ..core import Deal
from ..core.deal import DEALER_CHOICE, PASSING, PLAYING
from ..core.record import load_record, replay_record
from ..narrate.narrator import Narrator, seat_names
from ..narrate.replay import replay_steps, replayed_deals
from ..narrate.style import Style


def replay_command(args: argparse.Namespace) -> int:
    """Print the record's game; ``RecordError`` (said in one line by ``main``) when it does not replay."""
    record = load_record(args.record)
    match = replay_record(record)
    n = match.rules.num_players
    style = Style.detect(sys.stdout, args.no_color)
    narrator = Narrator(match.rules, seat_names(n, None), style, None)
    interactive = not args.all and sys.stdin.isatty() and sys.stdout.isatty()

    def say(*lines: str) -> None:
        for line in lines:
            print(style.fit(line))

    def pause() -> bool:
        """Wait for Enter; False when the person asks for the rest at once (``a``) or input ends."""
        nonlocal interactive
        if not interactive:
            return True
        try:
            answer = input(style.text("[Enter: next trick · a: show the rest · q: quit] ")).strip().lower()
        except EOFError:
            interactive = False
            return True
        if answer == "q":
            return False
        if answer == "a":
            interactive = False
        return True

    if match.over:
        status = "match complete"
    elif record.get("single_deal") is True:  # written by hearts play --deal
        status = "one-deal game, " + ("unfinished" if match.deal.actions or not match.history else "complete")
    else:
        status = "match unfinished"
    played = len(replayed_deals(match))
    say(style.head(f"Game record {args.record} · {n} players · {played} deal(s) played · {status}"))
    for step in replay_steps(match, narrator):
        deal = step.deal
        if step.kind == "deal":
            say(*step.lines, "Dealt hands:", *hand_lines(deal, narrator, "  "))
            if deal.kitty_cards:
                say(f"  {'Kitty':<{narrator.width}}  {style.cards(deal.kitty_cards)}")
            if deal.phase == PLAYING:
                say(narrator.trick_header(deal), *hand_lines(deal, narrator))
        elif step.kind == "action":
            say(*step.lines)
            if step.phase_before in (DEALER_CHOICE, PASSING) and deal.phase == PLAYING:
                say(*hand_lines(deal, narrator))
            elif step.trick_done and deal.phase == PLAYING:
                if not pause():
                    return 0
                say(narrator.trick_header(deal), *hand_lines(deal, narrator))
        elif step.kind == "end":
            say(*step.lines)
            if not pause():
                return 0
        elif step.kind == "unfinished":
            say(*(style.note(line) for line in step.lines))
        else:
            say("", *(style.note(line) for line in step.lines))
    return 0


def hand_lines(deal: Deal, narrator: Narrator, indent: str = "     ") -> list[str]:
    """Every seat's hand, one line each, the names in a column."""
    s, width = narrator.style, narrator.width
    return [f"{indent}{narrator.name(p):<{width}}  {s.suit_line(deal.hands[p])}" for p in range(deal.num_players)]
