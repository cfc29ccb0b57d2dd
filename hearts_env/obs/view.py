"""What one seat may know: ``SeatView`` and ``seat_view`` (the visibility rule, one place).

The encoding's documentation is ``hearts_env.obs.spec``; this module decides what a seat sees, the
reference encoder turns that into the vector."""

from dataclasses import dataclass

from ..core.cards import NUM_CARDS
from ..core.deal import DONE, MOON_CHOICE, PASSING, PHASE_NAMES, PLAYING, Deal
from ..core.match import Match
from ..core.rules import (
    pass_offset,
)

# ---------------------------------------------------------------------------------------------
# The structured view
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class SeatView:
    """What one seat knows, seat-relative (``0`` is the observer, ``r`` the seat r places left).

    Card collections are sorted tuples of card ids; per-seat tuples have ``num_players`` entries.
    ``passed``/``received`` pair each card with the relative seat it went to / came from, or
    ``None`` for the smoosh pool. ``trick`` lists the current trick's cards in play order; the
    card at position ``i`` was played by seat ``(trick_leader + i) % num_players``.
    """

    num_players: int
    hand: tuple[int, ...]
    played_by: tuple[tuple[int, ...], ...]
    won_by: tuple[tuple[int, ...], ...]
    trick: tuple[int, ...]
    trick_leader: int | None
    to_move: int | None
    dealer: int
    passed: tuple[tuple[int, int | None], ...]
    received: tuple[tuple[int, int | None], ...]
    forwarded: tuple[int, ...]
    pass_through: tuple[bool, ...]
    kitty_taken: tuple[int, ...]
    tricks_won: tuple[int, ...]
    points_taken: tuple[int, ...]
    void_in: tuple[tuple[int, ...], ...]
    phase: str
    pass_kind: str | None
    dealer_choice: bool
    trick_number: int
    hearts_broken: bool
    queen_played: bool
    lead_heart_declared: bool
    totals: tuple[int, ...]
    deal_number: int
    match_episode: bool

    # ---- conveniences for bots and user interfaces
    def seat_of_trick_position(self, i: int) -> int:
        """The relative seat that played (or will play) position ``i`` of the current trick."""
        assert self.trick_leader is not None
        return (self.trick_leader + i) % self.num_players

    @property
    def trick_seats(self) -> tuple[int, ...]:
        """The relative seats that played the current trick's cards, in play order."""
        return tuple(self.seat_of_trick_position(i) for i in range(len(self.trick)))

    @property
    def played(self) -> frozenset[int]:
        """Every card played so far this deal."""
        return frozenset(c for row in self.played_by for c in row)


def seat_view(deal: Deal, seat: int, match: Match | None = None) -> SeatView:
    """What ``seat`` may know of ``deal`` (and of ``match`` in match episodes): the visibility rule."""
    rules = deal.rules
    n = deal.num_players
    values = rules.tables.card_values

    def rel(p: int) -> int:
        return (p - seat) % n

    phase = deal.phase
    resolved = phase in (PLAYING, MOON_CHOICE, DONE)  # the pass (if any) has resolved
    played_by: list[list[int]] = [[] for _ in range(n)]
    for p, card in deal.play_order:
        played_by[rel(p)].append(card)
    won_by: list[list[int]] = [[] for _ in range(n)]
    points = [0] * n
    for t, winner in enumerate(deal.trick_winners):
        for _, card in deal.play_order[t * n : (t + 1) * n]:
            won_by[rel(winner)].append(card)
            points[rel(winner)] += values[card]
    void_in: list[set[int]] = [set() for _ in range(n)]
    order = deal.play_order
    for start in range(0, len(order), n):
        led = order[start][1] // 13
        for p, card in order[start + 1 : start + n]:
            if card // 13 != led:
                void_in[rel(p)].add(led)
    kitty = [0] * n
    for taker in deal.kitty_taken_by:
        if taker >= 0:
            kitty[rel(taker)] += 1

    passed: list[tuple[int, int | None]] = []
    received: list[tuple[int, int | None]] = []
    forwarded: list[int] = []
    if resolved:
        passed = [(c, None if dst < 0 else rel(dst)) for c, dst in deal.passed[seat]]
        received = [(c, None if src < 0 else rel(src)) for c, src in deal.received[seat]]
        offset = pass_offset(deal.pass_kind, n) if deal.pass_kind else None
        if rules.pass_through_visible and offset is not None and deal.pass_through[seat]:
            for p in range(n):
                for card, dst in deal.passed[p]:
                    q = (p + offset) % n
                    while q != dst:
                        if q == seat:
                            forwarded.append(card)
                        q = (q + offset) % n
    elif phase == PASSING and deal.pass_kind is not None:
        passed = [(c, intended_target(deal, i)) for i, c in enumerate(deal.chosen[seat])]
    through = [deal.pass_through[p] if (resolved or p == seat) else False for p in range(n)]

    totals = match.totals if match is not None else deal.totals_before
    return SeatView(
        num_players=n,
        hand=tuple(_cards(deal.hands[seat])),
        played_by=tuple(tuple(sorted(row)) for row in played_by),
        won_by=tuple(tuple(sorted(row)) for row in won_by),
        trick=tuple(deal.trick),
        trick_leader=rel(deal.leader) if phase == PLAYING else None,
        to_move=rel(deal.current_player) if deal.current_player >= 0 else None,
        dealer=rel(deal.dealer),
        passed=tuple(sorted(passed)),
        received=tuple(sorted(received, key=lambda x: (x[0], -1 if x[1] is None else x[1]))),
        forwarded=tuple(sorted(forwarded)),
        pass_through=tuple(through[(seat + r) % n] for r in range(n)),
        kitty_taken=tuple(kitty),
        tricks_won=tuple(deal.tricks_won[(seat + r) % n] for r in range(n)),
        points_taken=tuple(points),
        void_in=tuple(tuple(sorted(row)) for row in void_in),
        phase=PHASE_NAMES[phase],
        pass_kind=deal.pass_kind,
        dealer_choice=deal.cycle_kind == "dealer_choice",
        trick_number=deal.trick_number,
        hearts_broken=deal.hearts_broken,
        queen_played=deal.queen_played,
        lead_heart_declared=deal.void_declined,
        totals=tuple(totals[(seat + r) % n] for r in range(n)),
        deal_number=match.deals_counted if match is not None else 0,
        match_episode=match is not None,
    )


def intended_target(deal: Deal, index: int) -> int | None:
    """The relative seat the ``index``-th chosen card is meant for, before the pass resolves."""
    kind = deal.pass_kind
    n = deal.num_players
    if kind == "smoosh":
        return None
    if kind == "scatter":
        share = deal.rules.pass_count // (n - 1)
        return 1 + index // share
    offset = pass_offset(kind, n) if kind else None
    assert offset is not None
    return offset


def _cards(mask: int) -> list[int]:
    return [c for c in range(NUM_CARDS) if mask >> c & 1]
