"""A replayed match, step by step, in words (``replay_steps``): each recorded deal dealt again from
its dealt hands and played action by action, with the narration of every step. What ``hearts
replay`` prints and what a web replay shows frame by frame; how the steps are shown is theirs."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field

from ..core import Deal, Match
from ..core.cards import cards_of
from ..core.match import DealSummary
from .narrator import Narrator


@dataclass
class ReplayStep:
    """One step of a replay. ``kind``: ``"deal"`` (dealt, nothing played yet), ``"action"`` (one
    action applied), ``"end"`` (the deal is over: scores and totals), ``"unfinished"`` (the record
    stops inside the deal) or ``"over"`` (the match is).
    ``deal`` is the replayed deal as it stands after the step; ``lines`` its narration."""

    kind: str
    deal: Deal
    number: int  # the deal's number, as the match counts them (void deals do not count)
    lines: list[str]
    phase_before: int = -1  # the deal's phase before the action (``"action"`` steps)
    trick_done: bool = False  # the action completed a trick
    totals: list[int] = field(default_factory=list)  # the match totals after the step


def replayed_deals(match: Match) -> list[tuple[Deal, DealSummary | None]]:
    """The match's deals as played, each with its summary; a last deal left unfinished in the
    record comes with ``None``."""
    out: list[tuple[Deal, DealSummary | None]] = [(summary.deal, summary) for summary in match.history]
    if not match.over and match.deal.actions:
        out.append((match.deal, None))
    return out


def replay_steps(match: Match, narrator: Narrator) -> Iterator[ReplayStep]:
    """The steps of ``match`` (replayed from a record, checked), narrated by ``narrator`` (usually
    nobody's view: every pass shown). The replayed deals are fresh ``Deal`` objects; ``match`` is
    left as it is."""
    narrator.inline_trick_headers = False  # a replay shows the next trick's header after its pause
    rules = match.rules
    counted = 0
    for played, summary in replayed_deals(match):
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
        totals = list(played.totals_before)
        yield ReplayStep("deal", deal, number, narrator.deal_header(deal, number, played.totals_before), totals=totals)
        for action in played.actions:
            seat, phase, taken = deal.current_player, deal.phase, len(deal.trick_winners)
            deal.apply_action(action)
            lines = narrator.after_action(deal, seat, action, phase)
            done = len(deal.trick_winners) > taken
            yield ReplayStep("action", deal, number, lines, phase_before=phase, trick_done=done, totals=totals)
        if deal.is_terminal():
            lines = ["", *narrator.deal_end(deal, summary)]
            if summary is not None:
                totals = list(summary.totals)
            if not deal.cancelled:
                counted += 1
                lines.append(narrator.totals_line(totals))
            yield ReplayStep("end", deal, number, lines, totals=totals)
        else:
            note = "(the record ends here, in the middle of this deal)"
            yield ReplayStep("unfinished", deal, number, [note], totals=totals)
    if match.over:
        winners = ", ".join(narrator.name(p) for p in match.winners)
        line = f"Match over: {winners} ({match.end_reason}). Final totals: {list(match.totals)}"
        yield ReplayStep("over", match.deal, counted, [line], totals=list(match.totals))
