"""What happens at the table, in words (``Narrator``): seat names, deal and trick headers, passes,
plays, scores, the person's menus and why a card is refused. Shared by ``hearts play`` (one seat's
view), ``hearts replay`` and the web table; every function returns text and prints nothing."""

from __future__ import annotations

from collections.abc import Sequence

from ..core import Deal, Rules
from ..core.actions import (
    CHOOSE_HOLD,
    CHOOSE_OFFSET_BASE,
    CHOOSE_SCATTER,
    CHOOSE_SMOOSH,
    LEAD_HEART,
    MOON_ADD,
    MOON_SUBTRACT,
    PASS_FROM_HAND,
    PASS_THROUGH,
    VOID_DEAL,
    action_pass_kind,
)
from ..core.cards import (
    HEARTS,
    HIGHER_THAN_QUEEN_MASK,
    NUM_CARDS,
    QS,
    QS_BIT,
    SPADES,
    SUIT_MASKS,
    SUIT_NAMES,
    cards_of,
)
from ..core.deal import DEALER_CHOICE, MOON_CHOICE, PASSING, PLAYING
from ..core.match import DealSummary
from ..core.rules import pass_offset
from .style import Style

COMPASS = ("South", "West", "North", "East")


def seat_names(num_players: int, human: int | None) -> list[str]:
    """The one naming of seats, for play, replay and the web. Four players sit at the compass
    points, clockwise from South (West on South's left); with a ``human`` viewer that seat is South,
    named ``You``. Other counts: ``P1``, ``P2``... clockwise from the viewer (``You``), or ``P0``..
    by seat number when nobody is the viewer (a replay, bots watched)."""
    origin = 0 if human is None else human
    names = []
    for p in range(num_players):
        r = (p - origin) % num_players
        if r == 0 and human is not None:
            names.append("You")
        elif num_players == 4:
            names.append(COMPASS[r])
        else:
            names.append(f"P{r}")
    return names


def kind_text(kind: str | None) -> str:
    """A pass kind in words (``pass left``, ``hold (no pass)``)."""
    if kind is None:
        return "pass to be chosen by the dealer"
    if kind == "hold":
        return "hold (no pass)"
    return f"pass {kind}"


def trick_points(deal: Deal, cards: Sequence[int]) -> int:
    """The card points of ``cards`` under the deal's rules."""
    values = deal.rules.tables.card_values
    return sum(values[c] for c in cards)


def points_taken(deal: Deal, kitty: bool = True) -> list[int]:
    """Card points each seat has taken; ``kitty=False`` counts only the tricks (the kitty is face
    down, so a player's screen must not reveal what it held)."""
    values = deal.rules.tables.card_values
    if kitty:
        return [sum(values[c] for c in cards_of(won)) for won in deal.won]
    n = deal.num_players
    out = [0] * n
    for t, winner in enumerate(deal.trick_winners):
        out[winner] += sum(values[c] for _, c in deal.play_order[t * n : (t + 1) * n])
    return out


def forwarded_through(deal: Deal, seat: int) -> dict[tuple[int, int], list[int]]:
    """The cards a resolved directional pass carried through ``seat`` (a pass-through seat), by
    ``(from, to)`` seat: what the observation's ``forwarded`` segment shows when
    ``pass_through_visible`` is on."""
    offset = pass_offset(deal.pass_kind, deal.num_players) if deal.pass_kind else None
    out: dict[tuple[int, int], list[int]] = {}
    if offset is None or not deal.pass_through[seat]:
        return out
    n = deal.num_players
    for src in range(n):
        for card, dst in deal.passed[src]:
            q = (src + offset) % n
            while q != dst and q != src:
                if q == seat:
                    out.setdefault((src, dst), []).append(card)
                q = (q + offset) % n
    return out


class Narrator:
    """Turns engine events into lines of text. ``viewer`` is the seat whose secrets may be shown
    (its own passes); ``None`` shows everything (replays)."""

    def __init__(self, rules: Rules, names: Sequence[str], style: Style, viewer: int | None) -> None:
        self.rules = rules
        self.names = list(names)
        self.style = style
        self.viewer = viewer
        self.width = max(len(x) for x in names)
        self._broken = False
        self._kitty_seen: set[int] = set()
        #: whether a completed trick's lines end with the next trick's header (a replay pauses first)
        self.inline_trick_headers = True

    def name(self, seat: int) -> str:
        return self.names[seat]

    def verb(self, seat: int, third_person: str) -> str:
        """``takes`` for another seat, ``take`` for the person (``You``)."""
        if self.names[seat] != "You":
            return third_person
        return third_person[:-2] if third_person.endswith(("sses", "shes")) else third_person[:-1]

    def act(self, seat: int, third_person: str) -> str:
        return f"{self.name(seat)} {self.verb(seat, third_person)}"

    def deal_header(self, deal: Deal, number: int, totals: Sequence[int] | None) -> list[str]:
        """The deal's opening lines; also resets what the narrator remembers of the deal."""
        self._broken = deal.hearts_broken
        self._kitty_seen = set()
        s = self.style
        parts = [f"Deal {number}", f"dealer {self.name(deal.dealer)}"]
        if deal.cycle_kind == "dealer_choice":
            parts.append(f"dealer's choice of pass ({self.act(deal.dealer, 'chooses')})")
        else:
            parts.append(self.pass_description(deal))
        line = f"{s.double * 3} {' · '.join(parts)} {s.double * 3}"
        out = ["", s.head(line)]
        if totals is not None and any(totals):
            out.append(self.totals_line(totals))
        return out

    def totals_line(self, totals: Sequence[int], label: str = "Totals") -> str:
        """``Totals: You 12 · West 30 · ...``."""
        return f"{label}: " + " · ".join(f"{self.name(p)} {total}" for p, total in enumerate(totals))

    def forced_play(self, card: int) -> str:
        """The note for a card played for the viewer because it was the only legal one."""
        return self.style.note(f"Forced: you play {self.style.card(card)}")

    def pass_description(self, deal: Deal) -> str:
        """This deal's pass in words, with the target seat as the viewer sees it."""
        kind = deal.pass_kind if deal.pass_kind is not None else deal.cycle_kind
        if kind == "hold":
            return "hold (no pass)"
        k = self.rules.pass_count
        n = deal.num_players
        viewer = self.viewer
        if kind == "scatter":
            share = k // (n - 1)
            return f"pass scatter ({share} card{'s' if share > 1 else ''} to each other seat)"
        if kind == "smoosh":
            return f"pass smoosh ({k} cards each into a shuffled pool)"
        offset = pass_offset(kind, n)
        if viewer is not None and offset is not None:
            return f"pass {kind} ({k} cards to {self.name((viewer + offset) % n)})"
        return f"pass {kind} ({k} cards)"

    def pass_prompt(self, deal: Deal, seat: int, count: int) -> str:
        """The prompt asking ``seat`` for ``count`` cards to pass, naming where they go."""
        kind = deal.pass_kind
        n = deal.num_players
        cards = f"{count} card{'s' if count != 1 else ''}"
        if kind == "scatter":
            share = self.rules.pass_count // (n - 1)
            targets = ", ".join(f"{share} to {self.name((seat + i) % n)}" for i in range(1, n))
            return f"Pass {cards} ({targets}, in that order)> "
        if kind == "smoosh":
            return f"Pass {cards} into the pool> "
        offset = pass_offset(kind, n) if kind else None
        target = self.name((seat + offset) % n) if offset is not None else "?"
        return f"Pass {cards} to {target}> "

    def trick_header(self, deal: Deal) -> str:
        """``── Trick 3 of 13 ── hearts broken · points: ...``, before a trick's first card."""
        s = self.style
        t = deal.rules.tables
        pts = points_taken(deal, kitty=self.viewer is None)
        status = "hearts broken" if deal.hearts_broken else "hearts not broken"
        points = " · ".join(f"{self.name(p)} {pts[p]}" for p in range(deal.num_players))
        return s.bold(
            f"{s.rule * 2} Trick {deal.trick_number + 1} of {t.num_tricks} {s.rule * 2} {status} · points: {points}"
        )

    def after_action(self, deal: Deal, seat: int, action: int, phase_before: int) -> list[str]:
        """The lines describing ``action`` by ``seat``, already applied to ``deal``."""
        s = self.style
        out: list[str] = []
        n = deal.num_players
        if phase_before == DEALER_CHOICE:
            kind = action_pass_kind(action, n)
            out.append(f"{self.act(seat, 'chooses')}: {kind_text(kind)}.")
            out.append(f"  This deal: {self.pass_description(deal)}.")
        elif phase_before == PASSING:
            if action >= NUM_CARDS and (self.viewer is None or seat == self.viewer):
                who = self.name(seat)
                out.append(
                    f"{who} will pass through (forward the cards passed to {'you' if who == 'You' else 'them'})."
                    if action == PASS_THROUGH
                    else f"{who} will pass from {'your' if who == 'You' else 'their'} own hand."
                )
            if deal.phase != PASSING:
                out += self.pass_results(deal)
        elif phase_before == PLAYING:
            if action == VOID_DEAL:
                out.append(s.note(f"{self.act(seat, 'holds')} only hearts and {self.verb(seat, 'voids')} the deal."))
            elif action == LEAD_HEART:
                out.append(f"{self.act(seat, 'holds')} only hearts and will lead a heart.")
            else:
                out += self.card_played(deal, seat, action)
        elif phase_before == MOON_CHOICE:
            moon = deal.rules.tables.moon_value
            what = f"-{moon} for themself" if action == MOON_SUBTRACT else f"+{moon} to everyone else"
            what = what.replace("themself", "yourself") if self.name(seat) == "You" else what
            out.append(s.note(f"{self.act(seat, 'chooses')} {what}."))
        if phase_before in (DEALER_CHOICE, PASSING) and deal.phase == PLAYING:
            out.append(self.trick_header(deal))
        return out

    def pass_results(self, deal: Deal) -> list[str]:
        """What the resolved pass moved: every seat's cards in a replay, the viewer's own otherwise."""
        s = self.style
        n = deal.num_players
        out: list[str] = []
        if deal.pass_kind in (None, "hold"):
            return out
        seats = range(n) if self.viewer is None else [self.viewer]
        for p in seats:
            who = self.name(p)
            if deal.pass_through[p]:
                out.append(f"{who} passed through.")
                if self.viewer is not None and self.rules.pass_through_visible:
                    for (src, dst), cards in forwarded_through(deal, p).items():
                        verb = "forward" if who == "You" else "forwards"
                        out.append(f"{who} {verb} {s.cards(cards)} from {self.name(src)} to {self.name(dst)}.")
            groups: dict[int, list[int]] = {}
            for card, dst in deal.passed[p]:
                groups.setdefault(dst, []).append(card)
            for dst, cards in groups.items():
                target = "the pool" if dst < 0 else self.name(dst)
                out.append(f"{who} {'pass' if who == 'You' else 'passes'} {s.cards(cards)} to {target}.")
            if self.viewer is not None:
                got: dict[int, list[int]] = {}
                for card, src in deal.received[p]:
                    got.setdefault(src, []).append(card)
                for src, cards in got.items():
                    source = "the pool" if src < 0 else self.name(src)
                    out.append(f"{who} receive {s.cards(cards)} from {source}.")
        if self.viewer is not None:
            through = [self.name(p) for p in range(n) if deal.pass_through[p] and p != self.viewer]
            if through:
                out.append(f"Passed through: {', '.join(through)}.")
        return out

    def card_played(self, deal: Deal, seat: int, card: int) -> list[str]:
        """The card's line; when it completed the trick, who takes it and for how many points."""
        s = self.style
        line = f"  {self.name(seat):<{self.width}}  {s.card(card)}"
        if deal.hearts_broken and not self._broken:
            self._broken = True
            line += "   (hearts are broken)"
        if deal.trick or not deal.trick_winners or deal.play_order[-1] != (seat, card):
            return [line]
        # the trick just completed
        n = deal.num_players
        cards = [c for _, c in deal.play_order[-n:]]
        winner = deal.trick_winners[-1]
        points = trick_points(deal, cards)
        extra = ""
        kitty = [i for i, w in enumerate(deal.kitty_taken_by) if w >= 0 and i not in self._kitty_seen]
        if kitty:
            self._kitty_seen.update(kitty)
            if self.viewer is None:
                extra = f", and the kitty {s.cards([deal.kitty_cards[i] for i in kitty])}"
            else:
                extra = f", and {len(kitty)} kitty card{'s' if len(kitty) > 1 else ''} face down"
        pts = f"{points} point{'s' if points != 1 else ''}"
        lines = [line, f"  {s.arrow} {s.bold(self.name(winner))} {self.verb(winner, 'takes')} the trick ({pts}){extra}"]
        if deal.phase == PLAYING and self.inline_trick_headers:
            lines.append(self.trick_header(deal))
        return lines

    def deal_end(self, deal: Deal, summary: DealSummary | None) -> list[str]:
        """A void deal, or the moon, the bonus card, the deal's scores and any exact-score resets."""
        s = self.style
        n = deal.num_players
        t = deal.rules.tables
        out: list[str] = []
        if deal.cancelled:
            out.append(s.note(f"The deal is void ({self.name(deal.leader)} held only hearts): it is dealt again."))
            return out
        result = deal.result
        assert result is not None
        if result.shooter is not None:
            who = self.name(result.shooter)
            what = "the sun (every trick)" if result.shot == "sun" else "the moon"
            value = deal.rules.sun_value if result.shot == "sun" else t.moon_value
            how = {
                "subtract": f"-{value} for {who}",
                "add": f"+{value} to everyone else",
                "cancel": "the slam's penalty points score nothing",
            }.get(result.moon_applied or "", "")
            out.append(s.note(f"{who} shot {what}! ({how})"))
        if t.bonus_card >= 0:
            taker = next((p for p in range(n) if deal.won[p] >> t.bonus_card & 1), None)
            if taker is not None:
                value = t.card_values[t.bonus_card]
                out.append(s.note(f"{self.name(taker)} took the bonus card {s.card(t.bonus_card)} ({value:+d})."))
        out.append("Deal scores: " + " · ".join(f"{self.name(p)} {result.scores[p]:+d}" for p in range(n)))
        if summary is not None:
            for p, before, after in summary.resets:
                out.append(s.note(f"{self.name(p)}'s total hits {before} exactly and resets to {after}."))
        return out

    def score_table(self, history: Sequence[DealSummary], totals: Sequence[int]) -> list[str]:
        """Deal by deal scores and the totals, a column a seat; wider than the style's width, the
        seats go in blocks of columns, one table under the other."""
        n = len(totals)
        w = max(6, self.width)
        per_block = n if self.style.width is None else max(1, (self.style.width - 12) // (w + 1))
        out: list[str] = []
        for first in range(0, n, per_block):
            seats = range(first, min(n, first + per_block))
            if first:
                out.append("")
            out.append(self.style.bold(f"{'':<10}" + "".join(f"{self.name(p):>{w + 1}}" for p in seats)))
            for summary in history:
                label = f"Deal {summary.number}" if not summary.deal.cancelled else "(void)"
                mark = " *" if summary.resets else ""
                out.append(f"{label:<10}" + "".join(f"{summary.scores[p]:>{w + 1}}" for p in seats) + mark)
            out.append(self.style.bold(f"{'Total':<10}" + "".join(f"{totals[p]:>{w + 1}}" for p in seats)))
        if any(summary.resets for summary in history):
            out.append("* an exact-score reset changed a total after this deal")
        return out


def menu_title(deal: Deal, legal: list[int]) -> str:
    """The question a menu of non-card actions asks the person."""
    if deal.phase == DEALER_CHOICE:
        return "You are the dealer: choose this deal's pass."
    if legal[0] in (PASS_FROM_HAND, PASS_THROUGH):
        return "Pass from your hand, or pass through (forward the cards passed to you)?"
    if legal[0] in (VOID_DEAL, LEAD_HEART):
        return "You lead and hold only hearts before hearts are broken."
    return "You shot the moon! Choose how it scores."


def menu_text(deal: Deal, action: int) -> str:
    """One choice of such a menu, in words."""
    n = deal.num_players
    moon = deal.rules.tables.moon_value
    if action == PASS_FROM_HAND:
        return "pass cards from your hand"
    if action == PASS_THROUGH:
        return "pass through: forward the cards you are passed"
    if CHOOSE_OFFSET_BASE < action < CHOOSE_HOLD:
        return f"pass {action_pass_kind(action, n)} ({action - CHOOSE_OFFSET_BASE} seat(s) to the left)"
    if action == CHOOSE_HOLD:
        return "hold: no pass"
    if action == CHOOSE_SCATTER:
        return "scatter: cards to every other seat"
    if action == CHOOSE_SMOOSH:
        return "smoosh: everyone's cards into a shuffled pool"
    if action == VOID_DEAL:
        return "void the deal (it is dealt again)"
    if action == LEAD_HEART:
        return "keep the deal and lead a heart"
    if action == MOON_SUBTRACT:
        return f"-{moon} for yourself"
    if action == MOON_ADD:
        return f"+{moon} to everyone else"
    return str(action)


def illegal_reason(deal: Deal, card: int, style: Style) -> str:
    """Why ``card`` may not be played now, in the words of the rule that forbids it."""
    rules = deal.rules
    seat = deal.current_player
    hand = deal.hands[seat]
    name = style.card(card)
    if not hand >> card & 1:
        return f"You do not hold {name}."
    first = deal.trick_number == 0
    values = rules.tables.card_values
    if deal.trick:
        led = deal.trick[0] // 13
        if hand & SUIT_MASKS[led] and card // 13 != led:
            return f"You must follow suit: {SUIT_NAMES[led]} were led and you hold {SUIT_NAMES[led]}."
        if rules.queen_must_be_played_when_safe and hand & QS_BIT and card != QS:
            if led == SPADES and deal.trick_mask & HIGHER_THAN_QUEEN_MASK:
                return f"You must play the {style.card(QS)}: a higher spade is already in the trick."
            if not hand & SUIT_MASKS[led]:
                return f"You must discard the {style.card(QS)} when you cannot follow suit."
        if first and rules.no_points_on_first_trick and values[card] > 0:
            return "No points on the first trick: discard a card that scores nothing."
        return f"{name} may not be played now."
    if first and rules.first_lead == "opening_card_must_be_led":
        return f"The first trick must be led with the {style.card(deal.opening_card)}."
    if first and rules.first_lead == "opening_card_holder_any_club":
        return "The first trick must be led with a club."
    if first and rules.no_points_on_first_trick and values[card] > 0:
        return "No points on the first trick: lead a card that scores nothing."
    if card // 13 == HEARTS and rules.hearts_must_be_broken and not deal.hearts_broken:
        return "Hearts are not broken yet: lead another suit."
    return f"{name} may not be led now."
