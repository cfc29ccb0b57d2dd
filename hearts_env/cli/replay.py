"""``hearts replay RECORD`` (``replay_command``): a saved game stepped through the engine again,
trick by trick, every hand shown, in the narration of ``hearts play`` (seats named as there)."""

from __future__ import annotations

import argparse
import sys

from ..core import Deal
from ..core.cards import cards_of
from ..core.deal import DEALER_CHOICE, PASSING, PLAYING
from ..core.match import DealSummary
from ..core.record import load_record, replay_record
from ..narrate.narrator import Narrator, seat_names
from ..narrate.style import Style


def replay_command(args: argparse.Namespace) -> int:
    """Print the record's game; ``RecordError`` (said in one line by ``main``) when it does not replay."""
    record = load_record(args.record)
    match = replay_record(record)
    rules = match.rules
    n = rules.num_players
    style = Style.detect(sys.stdout, args.no_color)
    names = seat_names(n, None)
    narrator = Narrator(rules, names, style, None)
    narrator.inline_trick_headers = False

    def say(*lines: str) -> None:
        for line in lines:
            print(style.fit(line))

    deals = [summary.deal for summary in match.history]
    summaries: list[DealSummary | None] = list(match.history)
    if not match.over and match.deal.actions:
        deals.append(match.deal)
        summaries.append(None)
    interactive = not args.all and sys.stdin.isatty() and sys.stdout.isatty()
    if match.over:
        status = "match complete"
    elif record.get("single_deal") is True:  # written by hearts play --deal
        status = "one-deal game, " + ("unfinished" if match.deal.actions or not match.history else "complete")
    else:
        status = "match unfinished"
    say(style.head(f"Game record {args.record} · {n} players · {len(deals)} deal(s) played · {status}"))

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

    counted = 0
    for played, summary in zip(deals, summaries, strict=True):
        deal = Deal(
            rules,
            seed=played.seed,
            hands=[cards_of(h) for h in played.dealt_hands],
            kitty=played.kitty_cards,
            dealer=played.dealer,
            pass_kind=played.cycle_kind,
            totals=played.totals_before,
        )
        number = counted + 1
        say(*narrator.deal_header(deal, number, played.totals_before), "Dealt hands:")
        say(*hand_lines(deal, narrator, "  "))
        if deal.kitty_cards:
            say(f"  {'Kitty':<{narrator.width}}  {style.cards(deal.kitty_cards)}")
        if deal.phase == PLAYING:
            say(narrator.trick_header(deal), *hand_lines(deal, narrator))
        for action in played.actions:
            seat = deal.current_player
            phase = deal.phase
            tricks = deal.trick_number
            deal.apply_action(action)
            say(*narrator.after_action(deal, seat, action, phase))
            if phase in (DEALER_CHOICE, PASSING) and deal.phase == PLAYING:
                say(*hand_lines(deal, narrator))
            elif deal.trick_number != tricks and deal.phase == PLAYING:
                if not pause():
                    return 0
                say(narrator.trick_header(deal), *hand_lines(deal, narrator))
        if deal.is_terminal():
            say("", *narrator.deal_end(deal, summary))
            if not deal.cancelled:
                counted += 1
                if summary is not None:
                    say(narrator.totals_line(summary.totals))
            if not pause():
                return 0
        else:
            say(style.note("(the record ends here, in the middle of this deal)"))
    if match.over:
        winners = ", ".join(names[p] for p in match.winners)
        say("", style.note(f"Match over: {winners} ({match.end_reason}). Final totals: {list(match.totals)}"))
    return 0


def hand_lines(deal: Deal, narrator: Narrator, indent: str = "     ") -> list[str]:
    """Every seat's hand, one line each, the names in a column."""
    s, width = narrator.style, narrator.width
    return [f"{indent}{narrator.name(p):<{width}}  {s.suit_line(deal.hands[p])}" for p in range(deal.num_players)]
