"""The table as text, a snapshot of a deal in progress (``render_text``): the environments' ``ansi``
and ``human`` render modes. Cards and points are written as the narration writes them.

One line of headline (rules, deal, pass kind, trick, flags), then one line per seat::

    standard · deal episode · pass left · playing · trick 3/13 · hearts broken
       seat        hand                                        trick  tricks  pts  total
    >  player_0 D  9♣ K♣ 4♦ 8♦ Q♦ 3♠ 7♠ 2♥ 9♥ J♥               5♣      1     0      0
       player_1    3♣ 7♣ 2♦ 6♦ 9♦ A♦ 2♠ 9♠ J♠ 5♥ 8♥                   1     2      0

``>`` marks the seat to move and ``D`` the dealer. With ``view`` set to a seat, the other hands
show only their size (what that seat may see); the default shows every hand (a spectator's or
debugger's table).
"""

from __future__ import annotations

from collections.abc import Sequence

from ..core.cards import QS, cards_of
from ..core.deal import PHASE_NAMES, Deal
from ..core.match import Match
from .narrator import points_taken
from .style import Style

STYLE = Style(colour=False, symbols=True)


def render_text(
    deal: Deal,
    agents: Sequence[str],
    *,
    match: Match | None = None,
    rules_name: str = "",
    view: int | None = None,
) -> str:
    """The table as text. ``view``: show only that seat's hand (``None``: every hand)."""
    n = deal.num_players
    t = deal.rules.tables
    head = [rules_name or f"{n} players"]
    if match is not None:
        head.append(f"deal {match.deals_counted + (0 if deal.is_terminal() else 1)} (match)")
    else:
        head.append("deal episode")
    if deal.pass_kind is not None:
        head.append(f"pass {deal.pass_kind}")
    elif deal.cycle_kind == "dealer_choice":
        head.append("pass: dealer's choice pending")
    head.append(PHASE_NAMES[deal.phase])
    if deal.phase >= 2:  # playing, moon choice, done
        head.append(f"trick {min(deal.trick_number + 1, t.num_tricks)}/{t.num_tricks}")
    if deal.hearts_broken:
        head.append("hearts broken")
    if deal.queen_played:
        head.append(f"{STYLE.card(QS)} played")
    if deal.cancelled:
        head.append("CANCELLED")
    lines = [" · ".join(head)]
    name_width = max(len(a) for a in agents)
    hand_width = 4 * t.hand_size - 1
    lines.append(f"   {'seat':<{name_width + 2}} {'hand':<{hand_width}} trick tricks   pts total")
    trick_card = dict(zip(deal.trick_seats, deal.trick, strict=True))
    points = points_taken(deal)
    for p in range(n):
        pts = points[p]
        shown = view is None or view == p
        hand = STYLE.cards(cards_of(deal.hands[p])) if shown else f"({deal.hands[p].bit_count()} cards)"
        chosen = deal.chosen[p] if deal.pass_kind not in (None, "hold") and deal.phase == 1 else []
        if chosen and shown:
            hand += "  pass: " + " ".join(STYLE.card(c) for c in chosen)
        total = (match.totals if match is not None else deal.totals_before)[p]
        mark = ">" if deal.current_player == p else " "
        dealer = "D" if deal.dealer == p else " "
        played = STYLE.card(trick_card[p]) if p in trick_card else ""
        lines.append(
            f"{mark}  {agents[p]:<{name_width}} {dealer} {hand:<{hand_width}} {played:>5} {deal.tricks_won[p]:>6}"
            f" {pts:>5} {total:>5}"
        )
    if deal.result is not None:
        scores = " ".join(f"{s:+d}" for s in deal.result.scores)
        shot = f" ({deal.result.shot} by {agents[deal.result.shooter]})" if deal.result.shooter is not None else ""
        lines.append(f"deal scores: {scores}{shot}")
    if match is not None and match.over:
        lines.append(f"match over: {', '.join(agents[p] for p in match.winners)} ({match.end_reason})")
    return "\n".join(lines) + "\n"


__all__ = ["render_text"]
