"""A game record as replay frames for the browser: every hand shown, one frame per decision.

The record is checked by ``replay_record`` first (a malformed or tampered record is refused with its
reason); the steps are ``hearts_env.narrate.replay_steps``, the ones ``hearts replay`` shows.
"""

from __future__ import annotations

from typing import Any

from ..core import Deal, replay_record
from ..core.cards import card_name, cards_of
from ..core.deal import PHASE_NAMES, PLAYING
from ..narrate.narrator import Narrator, points_taken, seat_names
from ..narrate.replay import replay_steps
from .game import STYLE

MAX_FRAMES = 20_000


def replay_frames(record: dict[str, Any]) -> dict[str, Any]:
    """``{"num_players", "names", "status", "frames": [...]}`` from ``narrate.replay_steps``;
    ``RecordError`` when the record does not replay."""
    match = replay_record(record)
    n = match.rules.num_players
    names = seat_names(n, None)
    narrator = Narrator(match.rules, names, STYLE, None)
    frames: list[dict[str, Any]] = []
    for step in replay_steps(match, narrator):
        deal = step.deal
        if step.kind == "over":
            frames[-1]["lines"] += step.lines
            break
        lines = [line for line in step.lines if line]
        if step.kind == "deal" and deal.phase == PLAYING:
            lines.append(narrator.trick_header(deal))
        frame = _frame(deal, step.number, lines, step.totals, trick_end=step.kind != "action" or step.trick_done)
        if step.trick_done:
            frame["trick"] = [{"seat": p, "card": card_name(c)} for p, c in deal.play_order[-n:]]
            frame["winner"] = deal.trick_winners[-1]
        if step.kind == "end":
            frame["deal_scores"] = None if deal.cancelled else list(deal.scores)
        frames.append(frame)
        if len(frames) >= MAX_FRAMES:
            break
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
