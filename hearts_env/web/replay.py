"""A game record as replay frames for the browser: every hand shown, one frame per decision.

The record is checked by ``replay_record`` first (a malformed or tampered record is refused with its
reason); each deal is then dealt again from its recorded hands and stepped action by action, as
``hearts replay`` does, with the narration of each step.
"""

from __future__ import annotations

from typing import Any

from ..core import Deal, replay_record
from ..core.cards import card_name, cards_of
from ..core.deal import PHASE_NAMES, PLAYING
from ..narrate.narrator import Narrator, points_taken, seat_names
from .game import STYLE

MAX_FRAMES = 20_000


def replay_frames(record: dict[str, Any]) -> dict[str, Any]:
    """``{"num_players", "names", "rules", "status", "frames": [...]}``; ``RecordError`` when the
    record does not replay."""
    match = replay_record(record)
    rules = match.rules
    n = rules.num_players
    names = seat_names(n, None)
    narrator = Narrator(rules, names, STYLE, None)
    narrator.inline_trick_headers = False
    summaries = list(match.history)
    deals = [s.deal for s in summaries]
    if not match.over and match.deal.actions:
        deals.append(match.deal)
        summaries.append(None)  # type: ignore[arg-type]
    frames: list[dict[str, Any]] = []
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
        lines = [line for line in narrator.deal_header(deal, number, played.totals_before) if line]
        if deal.phase == PLAYING:
            lines.append(narrator.trick_header(deal))
        frames.append(_frame(deal, number, lines, played.totals_before, trick_end=True))
        for action in played.actions:
            seat, phase, taken = deal.current_player, deal.phase, len(deal.trick_winners)
            deal.apply_action(action)
            lines = narrator.after_action(deal, seat, action, phase)
            done_trick = len(deal.trick_winners) > taken
            frame = _frame(deal, number, lines, played.totals_before, trick_end=done_trick)
            if done_trick:
                frame["trick"] = [{"seat": p, "card": card_name(c)} for p, c in deal.play_order[-n:]]
                frame["winner"] = deal.trick_winners[-1]
            frames.append(frame)
            if len(frames) > MAX_FRAMES:
                break
        if deal.is_terminal():
            end = ["", *narrator.deal_end(deal, summary)]
            totals = list(summary.totals) if summary is not None else list(played.totals_before)
            if not deal.cancelled:
                counted += 1
                end.append("Totals: " + " · ".join(f"{names[p]} {totals[p]}" for p in range(n)))
            frame = _frame(deal, number, end, totals, trick_end=True)
            frame["deal_scores"] = None if deal.cancelled else list(deal.scores)
            frames.append(frame)
    if match.over:
        winners = ", ".join(names[p] for p in match.winners)
        frames[-1]["lines"].append(f"Match over: {winners} ({match.end_reason}). Final totals: {list(match.totals)}")
    status = "match complete" if match.over else "one deal" if record.get("single_deal") is True else "unfinished"
    return {"num_players": n, "names": names, "status": status, "frames": frames}


def _frame(deal: Deal, number: int, lines: list[str], totals: Any, *, trick_end: bool) -> dict[str, Any]:
    n = deal.num_players
    return {
        "deal_number": number,
        "phase": PHASE_NAMES[deal.phase],
        "dealer": deal.dealer,
        "hands": [[card_name(c) for c in cards_of(deal.hands[p])] for p in range(n)],
        "kitty": [card_name(c) for c in deal.kitty_cards if not any(w >= 0 for w in deal.kitty_taken_by)],
        "trick": [{"seat": p, "card": card_name(c)} for p, c in zip(deal.trick_seats, deal.trick, strict=False)],
        "winner": None,
        "points_taken": points_taken(deal, kitty=True),
        "hearts_broken": deal.hearts_broken,
        "totals": list(totals),
        "trick_end": trick_end,
        "lines": list(lines),
    }
