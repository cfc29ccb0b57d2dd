"""One deal of Hearts as a state machine: deal → (dealer's choice) → pass → tricks → (moon choice) → score.

Every decision of RULES.md §10 is an action with a legal set (``legal_actions()``); a forced move
is a one-element legal set, never a skipped step. Hands are 52-bit masks and the legal set is
computed with a few bit operations (RULES.md §3.4.1), which is what makes a pure-Python engine
fast enough to train on.

Usage::

    deal = Deal(Rules(), seed=7)
    while not deal.is_terminal():
        deal.apply_action(random.choice(deal.legal_actions()))
    deal.scores
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

from .actions import (
    CHOOSE_SMOOSH,
    LEAD_HEART,
    MOON_ADD,
    MOON_SUBTRACT,
    PASS_FROM_HAND,
    PASS_THROUGH,
    VOID_DEAL,
    action_name,
    action_pass_kind,
    as_action,
    pass_kind_action,
)
from .cards import (
    CLUBS,
    HEARTS,
    HEARTS_MASK,
    HIGHER_THAN_QUEEN_MASK,
    NUM_CARDS,
    NUM_RANKS,
    QS,
    QS_BIT,
    SPADES,
    SUIT_MASKS,
    card_name,
    mask_of,
    parse_card,
)
from .errors import IllegalActionError, InvalidDealError, RulesError, brief
from .rules import Rules, canonical_pass_kind, check_pass_kind, pass_offset
from .scoring import ADD, SUBTRACT, DealScore, find_shooter, score_deal

# Phases.
DEALER_CHOICE, PASSING, PLAYING, MOON_CHOICE, DONE = range(5)
PHASE_NAMES = ("dealer_choice", "passing", "playing", "moon_choice", "done")

CLUB_MASK = SUIT_MASKS[CLUBS]
SPADE_MASK = SUIT_MASKS[SPADES]
NOT_POINTS = ~(HEARTS_MASK | QS_BIT)
FIRST_HEART = HEARTS * NUM_RANKS  # card ids from here up are hearts
_CARD_BITS = (1 << NUM_CARDS) - 1


def _build_suit_tables() -> tuple[tuple[tuple[int, ...], ...], ...]:
    """For each suit, the card ids of every 13-bit rank pattern: mask → list in 4 look-ups. Each
    pattern's ids are its lowest card's id, then those of the pattern without that card."""
    tables = []
    for suit in range(4):
        base = suit * NUM_RANKS
        table: list[tuple[int, ...]] = [()] * (1 << NUM_RANKS)
        for m in range(1, 1 << NUM_RANKS):
            table[m] = (base + (m & -m).bit_length() - 1, *table[m & (m - 1)])
        tables.append(tuple(table))
    return tuple(tables)


# Built at import, immutable: threads may query legal moves from the first call on.
_SUIT_TABLES = _build_suit_tables()


def mask_to_actions(mask: int) -> list[int]:
    """The action ids set in ``mask``, ascending."""
    tables = _SUIT_TABLES
    top = (mask.bit_length() - 1) // NUM_RANKS
    if 0 <= top < 4:  # one suit only (the common case when following): a single look-up
        shift = NUM_RANKS * top
        high = mask >> shift
        if high << shift == mask:
            return list(tables[top][high])
    c, d, s, h = tables
    out = [*c[mask & 0x1FFF], *d[mask >> 13 & 0x1FFF], *s[mask >> 26 & 0x1FFF], *h[mask >> 39 & 0x1FFF]]
    if mask >> NUM_CARDS:
        out.extend(a for a in range(NUM_CARDS, 68) if mask >> a & 1)
    return out


class Deal:
    """The state of one deal. Read its attributes; change it only through ``apply_action``."""

    def __init__(
        self,
        rules: Rules | None = None,
        *,
        seed: int | None = None,
        hands: Sequence[Sequence[int | str]] | None = None,
        kitty: Sequence[int | str] | None = None,
        dealer: int = 0,
        pass_kind: str | None = None,
        totals: Sequence[int] | None = None,
    ) -> None:
        rules = rules if rules is not None else Rules()
        t = rules.tables
        n = rules.num_players
        self.rules = rules
        self.num_players = n
        if isinstance(dealer, bool) or not isinstance(dealer, int) or not 0 <= dealer < n:
            raise InvalidDealError(f"dealer must be a seat 0..{n - 1}, got {brief(dealer)}")
        self.dealer = dealer
        self.eldest = (dealer + 1) % n
        self.seed = seed
        self.rng = random.Random(seed)
        # The smoosh shuffle draws from its own stream, so a deal replayed from explicit hands and
        # the same seed passes exactly as the seeded deal did.
        self._pass_seed = self.rng.getrandbits(64)
        self.totals_before = list(totals) if totals is not None else [0] * n
        if len(self.totals_before) != n:
            raise InvalidDealError(f"totals must have {n} entries, got {len(self.totals_before)}")

        # ---- the deal itself
        if hands is None:
            if kitty is not None:
                raise InvalidDealError("a kitty can only be given together with explicit hands")
            # a uniform shuffle: a stable sort of the deck (ascending) by independent random keys, drawn
            # in deck order (faster than random.shuffle here)
            rand = self.rng.random
            shuffled = sorted(t.deck_bits, key=lambda _: rand())
            dealt = [0] * n
            dealt_count = t.hand_size * n
            for k in range(n):  # one card at a time clockwise from eldest: seat eldest+k gets every n-th
                dealt[(self.eldest + k) % n] = sum(shuffled[k:dealt_count:n])
            self.kitty_cards = [bit.bit_length() - 1 for bit in shuffled[dealt_count:]]
        else:
            dealt, self.kitty_cards = check_hands(rules, hands, kitty)
        self.dealt_hands: tuple[int, ...] = tuple(dealt)
        self.hands: list[int] = list(dealt)
        self.kitty = mask_of(self.kitty_cards)

        # ---- rule flags the hot path reads
        self._must_break = rules.hearts_must_be_broken
        self._qs_breaks = rules.queen_breaks_hearts
        self._queen_safe = rules.queen_must_be_played_when_safe
        self._no_points_first = rules.no_points_on_first_trick
        self._heart_before_queen = rules.first_trick_points_fallback == "heart_before_queen"
        self._qh_may_lead_heart = rules.queen_and_hearts_only_may_lead_heart
        self._all_hearts = rules.all_hearts_leader_unbroken
        self._may_void = self._all_hearts == "void_deal" and self._must_break  # checked at every lead
        self._first_lead = rules.first_lead
        self._num_tricks = t.num_tricks
        self._values = t.card_values

        # ---- public state
        self.actions: list[int] = []  # every action applied, in order (the deal's record)
        self.phase = PASSING
        self.current_player = -1
        self.cycle_kind = rules.pass_kind_for_deal(0) if pass_kind is None else pass_kind
        self.pass_kind: str | None = None  # the kind actually played (after dealer's choice)
        self.pass_order = [(self.eldest + i) % n for i in range(n)]
        self._next_seat = t.next_seat
        self.pass_through = [False] * n
        self.declared = [False] * n
        self.chosen: list[list[int]] = [[] for _ in range(n)]
        self.passed: list[list[tuple[int, int]]] = [[] for _ in range(n)]  # (card, to seat or -1)
        self.received: list[list[tuple[int, int]]] = [[] for _ in range(n)]  # (card, from seat or -1)
        self.opening_card = -1
        self.leader = -1
        self.trick: list[int] = []
        self.trick_seats: list[int] = []
        self.trick_mask = 0
        self._led_mask = 0
        self.trick_number = 0
        self.hearts_broken = False
        self.queen_played = False
        self.played_by = [-1] * NUM_CARDS
        self.play_order: list[tuple[int, int]] = []  # (seat, card) for every card played
        self.trick_winners: list[int] = []
        self.won = [0] * n
        self.tricks_won = [0] * n
        self.kitty_taken_by: list[int] = [-1] * len(self.kitty_cards)
        self.void_declined = False
        self.cancelled = False
        self.result: DealScore | None = None
        self._legal: int | None = None

        check_deal_pass_kind(rules, self.cycle_kind)
        if self.cycle_kind == "dealer_choice":
            self.phase = DEALER_CHOICE
            self.current_player = dealer
        else:
            self._start_passing(canonical_pass_kind(self.cycle_kind, n))

    # ------------------------------------------------------------------ queries
    def is_terminal(self) -> bool:
        return self.phase == DONE

    @property
    def scores(self) -> tuple[int, ...]:
        """Deal points per seat (lower is better); only once the deal is over."""
        if self.result is None:
            raise RuntimeError("the deal is not over yet")
        return self.result.scores

    def legal_mask(self) -> int:
        """The legal actions as a bitmask over action ids (bit ``a`` set = action ``a`` legal)."""
        legal = self._legal
        if legal is None:
            legal = self._legal = self._play_legal() if self.phase == PLAYING else self._compute_legal()
        return legal

    def legal_actions(self) -> list[int]:
        """The legal actions of the seat to move, ascending; empty only when the deal is over."""
        legal = self._legal
        if legal is None:
            legal = self._legal = self._play_legal() if self.phase == PLAYING else self._compute_legal()
        # mask_to_actions inlined for cards alone: this is the hottest call of random play
        top = (legal.bit_length() - 1) // NUM_RANKS
        if 0 <= top < 4:
            shift = NUM_RANKS * top
            high = legal >> shift
            if high << shift == legal:
                return list(_SUIT_TABLES[top][high])
            c, d, s, h = _SUIT_TABLES
            return [*c[legal & 0x1FFF], *d[legal >> 13 & 0x1FFF], *s[legal >> 26 & 0x1FFF], *h[legal >> 39]]
        return mask_to_actions(legal)

    def clone(self) -> Deal:
        other = object.__new__(Deal)
        other.__dict__.update(self.__dict__)
        for key in (
            "hands",
            "pass_through",
            "declared",
            "trick",
            "trick_seats",
            "played_by",
            "play_order",
            "trick_winners",
            "won",
            "tricks_won",
            "kitty_taken_by",
            "actions",
            "totals_before",
            "pass_order",
        ):
            setattr(other, key, list(getattr(self, key)))
        for key in ("chosen", "passed", "received"):
            setattr(other, key, [list(x) for x in getattr(self, key)])
        other.rng = random.Random(0)  # a cheap seed (no urandom); the state is set next
        other.rng.setstate(self.rng.getstate())
        return other

    # ------------------------------------------------------------------ legal sets
    def smoosh_permutation(self) -> list[int]:
        """The shuffle a reference deal at its start will apply to a smoosh pool, as ``load`` takes it
        (seat position ``i`` from eldest hand receives ``pool[perm[i]]``). Read from a clone that passes
        the first legal cards: the shuffle depends only on the deal's random state and the pool's size."""
        n = self.num_players
        size = n * self.rules.pass_count
        probe = self.clone()
        if probe.phase == DEALER_CHOICE:
            probe.apply_action(CHOOSE_SMOOSH)
        if probe.pass_kind != "smoosh":
            return list(range(size))
        while probe.phase == PASSING:
            probe.apply_action(probe.legal_actions()[0])
        pool = [card for p in probe.pass_order for card in probe.chosen[p]]
        shuffled: list[int] = [-1] * size
        for q, p in enumerate(probe.pass_order):
            for k, (card, _) in enumerate(probe.received[p]):
                shuffled[q + k * n] = card
        return [pool.index(card) for card in shuffled]

    def _compute_legal(self) -> int:
        phase = self.phase
        if phase == PLAYING:
            return self._play_legal()
        if phase == PASSING:
            p = self.current_player
            if self._needs_declaration and not self.declared[p]:
                return (1 << PASS_FROM_HAND) | (1 << PASS_THROUGH)
            return self.hands[p] & ~mask_of(self.chosen[p])
        if phase == DEALER_CHOICE:
            n = self.num_players
            return mask_of(pass_kind_action(k, n) for k in self.rules.tables.dealer_choice_kinds)
        if phase == MOON_CHOICE:
            return (1 << MOON_SUBTRACT) | (1 << MOON_ADD)
        return 0

    def _lead_candidates(self, hand: int) -> int:
        """C of RULES.md §3.4.1: the hand, less point cards on the first trick where that rule holds."""
        if self.trick_number == 0 and self._no_points_first:
            safe = hand & NOT_POINTS
            if safe:
                return safe
        return hand

    def _play_legal(self) -> int:
        hand = self.hands[self.current_player]
        if self.trick:  # following
            follow = hand & self._led_mask
            if follow:
                if (
                    self._queen_safe
                    and hand & QS_BIT
                    and self._led_mask == SPADE_MASK
                    and self.trick_mask & HIGHER_THAN_QUEEN_MASK
                ):
                    return QS_BIT
                return follow
            if self.trick_number == 0 and self._no_points_first:
                allowed = hand & NOT_POINTS
                if not allowed:
                    allowed = hand & HEARTS_MASK if self._heart_before_queen and hand & HEARTS_MASK else hand
            else:
                allowed = hand
            if self._queen_safe and allowed & QS_BIT:
                return QS_BIT
            return allowed
        # leading
        if self.trick_number == 0 and self._first_lead != "eldest_any_card":
            if self._first_lead == "opening_card_must_be_led":
                return 1 << self.opening_card
            return hand & CLUB_MASK
        candidates = self._lead_candidates(hand)
        if self._must_break and not self.hearts_broken:
            non_hearts = candidates & ~HEARTS_MASK
            if non_hearts:
                if self._qh_may_lead_heart and hand & ~HEARTS_MASK == QS_BIT:
                    return candidates
                return non_hearts
            if self._all_hearts == "leader_may_void" and not self.void_declined:
                return (1 << VOID_DEAL) | (1 << LEAD_HEART)
        return candidates

    def _leader_must_void(self) -> bool:
        """``void_deal``: the leader holds only hearts (among C) before hearts are broken (asked only where the
        rules may void the deal, ``_may_void``)."""
        if self.hearts_broken:
            return False
        if self.trick_number == 0 and self._first_lead != "eldest_any_card":
            return False
        return not self._lead_candidates(self.hands[self.leader]) & ~HEARTS_MASK

    # ------------------------------------------------------------------ applying actions
    def apply_action(self, action: int) -> None:
        """Apply the action of the seat to move. An illegal action raises ``IllegalActionError``
        naming it and the legal ones, and leaves the state unchanged."""
        legal = self._legal
        if legal is None:
            legal = self._compute_legal()
        if action.__class__ is not int:  # numpy integers are welcome; bools, floats, strings, arrays are not
            action = as_action(action, legal)
        if action < 0 or not legal >> action & 1:
            self._reject(action, legal)
        self._legal = None
        self.actions.append(action)
        phase = self.phase
        if phase == PLAYING:
            if action < NUM_CARDS:
                self._play(action)
            elif action == VOID_DEAL:
                self._finish(cancelled=True)
            else:  # LEAD_HEART
                self.void_declined = True
        elif phase == PASSING:
            self._pass_action(action)
        elif phase == DEALER_CHOICE:
            self._start_passing(action_pass_kind(action, self.num_players))
        else:  # MOON_CHOICE
            self._finish(moon_choice=SUBTRACT if action == MOON_SUBTRACT else ADD)

    def _reject(self, action: object, legal: int) -> None:
        legal_list = mask_to_actions(legal)
        names = " ".join(action_name(a) for a in legal_list)
        if self.phase == DONE:
            raise IllegalActionError(f"the deal is over; no action is legal (got {brief(action)})", -1, [])
        what = "action"
        if isinstance(action, int) and not isinstance(action, bool) and 0 <= action < 68:
            what = action_name(action)
        elif isinstance(action, str):
            what = action
        seat = self.current_player
        phase = PHASE_NAMES[self.phase]
        raise IllegalActionError(
            f"{what} ({brief(action)}) is not legal for seat {seat} ({phase}); legal: {names}",
            action if isinstance(action, int) else -1,
            legal_list,
        )

    def _play(self, card: int) -> None:
        seat = self.current_player
        bit = 1 << card
        self.hands[seat] ^= bit
        trick = self.trick
        if not trick:
            self._led_mask = SUIT_MASKS[card // NUM_RANKS]
        trick.append(card)
        self.trick_seats.append(seat)
        self.trick_mask |= bit
        self.played_by[card] = seat
        self.play_order.append((seat, card))
        if card >= FIRST_HEART:
            self.hearts_broken = True
        elif card == QS:
            self.queen_played = True
            if self._qs_breaks:
                self.hearts_broken = True
        if len(trick) < self.num_players:
            self.current_player = self._next_seat[seat]
            return
        # the trick is complete: the highest card of the led suit wins
        led = self.trick_mask & self._led_mask
        winner = self.played_by[led.bit_length() - 1]
        self.won[winner] |= self.trick_mask
        self.tricks_won[winner] += 1
        self.trick_winners.append(winner)
        if self.kitty:
            self._give_kitty(winner)
        self.trick_number += 1
        self.trick = []
        self.trick_seats = []
        self.trick_mask = 0
        self.void_declined = False
        if self.trick_number == self._num_tricks:
            self._end_of_play()
        else:
            self._start_trick(winner)

    def _give_kitty(self, winner: int) -> None:
        """Kitty cards join the taker's won pile (RULES.md §3.1), never their hand."""
        number = self.trick_number
        last = number == self._num_tricks - 1
        taker = self.rules.kitty_taker
        for i, who in enumerate(self.kitty_taken_by):
            if who >= 0:
                continue
            if taker == "first_trick_winner":
                take = True
            elif taker == "one_card_per_trick":
                take = i == number
            else:  # first_penalty_taker: "the first trick containing a heart or QS" (RULES.md §3.1)
                take = bool(self.trick_mask & (HEARTS_MASK | QS_BIT))
            if take or last:  # [ENGINE] whatever is still unclaimed after the last trick goes to its winner
                self.kitty_taken_by[i] = winner
                self.won[winner] |= 1 << self.kitty_cards[i]

    def _start_trick(self, leader: int) -> None:
        self.leader = leader
        self.current_player = leader
        if self._may_void and self._leader_must_void():
            self._finish(cancelled=True)

    def _end_of_play(self) -> None:
        shooter, _ = find_shooter(self.rules, self.won, self.tricks_won)
        if shooter is not None and self.rules.moon_mode == "shooter_choice":
            self.phase = MOON_CHOICE
            self.current_player = shooter
            return
        self._finish()

    def _finish(self, *, cancelled: bool = False, moon_choice: str | None = None) -> None:
        self.phase = DONE
        self.current_player = -1
        self.cancelled = cancelled
        if cancelled:
            n = self.num_players
            self.result = DealScore((0,) * n, (0,) * n)
        else:
            self.result = score_deal(self.rules, self.won, self.tricks_won, self.totals_before, moon_choice)

    # ------------------------------------------------------------------ passing
    def _start_passing(self, kind: str) -> None:
        self.pass_kind = kind
        self._offset = pass_offset(kind, self.num_players)
        self._needs_declaration = self.rules.allow_pass_through and self._offset is not None
        if kind == "hold":
            self._start_play()
            return
        self.phase = PASSING
        self._pass_index = 0
        self.current_player = self.pass_order[0]

    def _pass_action(self, action: int) -> None:
        seat = self.current_player
        if action >= NUM_CARDS:  # a pass-through declaration
            self.declared[seat] = True
            if action == PASS_THROUGH:
                self.pass_through[seat] = True
                self._next_passer()
            return
        self.chosen[seat].append(action)
        if len(self.chosen[seat]) == self.rules.pass_count:
            self._next_passer()

    def _next_passer(self) -> None:
        self._pass_index += 1
        if self._pass_index < self.num_players:
            self.current_player = self.pass_order[self._pass_index]
        else:
            self._resolve_pass()
            self._start_play()

    def _resolve_pass(self) -> None:
        n = self.num_players
        kind = self.pass_kind
        moves: list[tuple[int, int, int]] = []  # (card, from, to); from/to may be unknown (-1) for smoosh
        if kind == "scatter":
            share = self.rules.pass_count // (n - 1)
            for p in range(n):
                for i, card in enumerate(self.chosen[p]):
                    moves.append((card, p, (p + 1 + i // share) % n))
        elif kind == "smoosh":
            pool = [card for p in self.pass_order for card in self.chosen[p]]
            random.Random(self._pass_seed).shuffle(pool)
            for p in range(n):
                for card in self.chosen[p]:
                    self.passed[p].append((card, -1))
            for j, card in enumerate(pool):
                self.received[self.pass_order[j % n]].append((card, -1))
        else:
            k = self._offset
            assert k is not None
            for p in range(n):
                if self.pass_through[p]:
                    continue
                # the packet travels past pass-through seats to the next seat passing from hand
                target = (p + k) % n
                while self.pass_through[target]:
                    target = (target + k) % n
                for card in self.chosen[p]:
                    moves.append((card, p, target))
        for card, src, dst in moves:
            self.passed[src].append((card, dst))
            self.received[dst].append((card, src))
        for p in range(n):
            self.hands[p] &= ~mask_of(self.chosen[p])
        for p in range(n):
            for card, _ in self.received[p]:
                self.hands[p] |= 1 << card

    def _start_play(self) -> None:
        self.phase = PLAYING
        everyone = 0
        for hand in self.hands:
            everyone |= hand
        clubs = everyone & CLUB_MASK
        lowest = clubs if clubs else everyone
        self.opening_card = (lowest & -lowest).bit_length() - 1
        if self._first_lead == "eldest_any_card":
            leader = self.eldest
        else:
            leader = next(p for p in range(self.num_players) if self.hands[p] >> self.opening_card & 1)
        self._start_trick(leader)


def seeded_deal(rules: Rules, seed: int, **pins: Any) -> Deal:
    """The deal the environment's ``reset(seed=seed)`` deals in deal episodes: the dealer, the pass kind (drawn
    from the cycle) and the hands are a function of ``seed`` alone; ``pins`` (``hands``, ``kitty``,
    ``dealer``, ``pass_kind``, ``totals``) fix parts of it. Tournaments deal their duplicate sets
    with it too, so a seed means the same deal everywhere."""
    n = rules.num_players
    draw = random.Random(seed)
    dealer = rules.first_dealer if isinstance(rules.first_dealer, int) else draw.randrange(n)
    kind = rules.pass_kind_for_deal(draw.randrange(len(rules.tables.pass_cycle)))
    while True:
        deal = Deal(
            rules,
            seed=draw.getrandbits(63),
            hands=pins.get("hands"),
            kitty=pins.get("kitty"),
            dealer=pins.get("dealer", dealer),
            pass_kind=pins.get("pass_kind", kind),
            totals=pins.get("totals"),
        )
        # A deal can be cancelled before anyone moves (a hold deal whose all-hearts eldest hand
        # must void it); the same dealer redeals, as in a match.
        if not deal.is_terminal() or "hands" in pins:
            return deal


def check_deal_pass_kind(rules: Rules, kind: str) -> None:
    """Raise ``InvalidDealError`` unless a deal of ``rules`` can be played with pass kind ``kind``."""
    if not rules.passing_enabled and kind != "hold":
        raise InvalidDealError(f"pass kind {brief(kind)} is not possible: passing is disabled by the rules")
    if kind == "dealer_choice":
        return
    try:
        check_pass_kind(rules, kind)
    except RulesError as err:
        raise InvalidDealError(
            f"pass kind {brief(kind)} is not possible here: {err.reason}; "
            f"possible: {', '.join(rules.tables.dealer_choice_kinds)}"
        ) from None


def deal_card_id(card: int | str) -> int:
    """A card of an explicit deal, given as an id or a name; anything else is an ``InvalidDealError``."""
    if isinstance(card, str):
        try:
            return parse_card(card)
        except ValueError as err:
            raise InvalidDealError(str(err)) from None
    if isinstance(card, bool) or not isinstance(card, int) or not 0 <= card < NUM_CARDS:
        raise InvalidDealError(f"{brief(card)} is not a card")
    return card


def _card_list(cards: Any, what: str) -> list[int]:
    """The card ids of one hand (or the kitty) of an explicit deal: a list of ids or names."""
    if isinstance(cards, str | bytes) or not isinstance(cards, Sequence):
        raise InvalidDealError(f"{what} must be a list of cards, got {brief(cards)}")
    return [deal_card_id(c) for c in cards]


def check_hands(
    rules: Rules, hands: Sequence[Sequence[int | str]], kitty: Sequence[int | str] | None
) -> tuple[list[int], list[int]]:
    """Validate explicit hands (and kitty) for ``rules``; return hand masks and the kitty cards."""
    t = rules.tables
    n = rules.num_players
    if isinstance(hands, str | bytes) or not isinstance(hands, Sequence):
        raise InvalidDealError(f"hands must be a list of {n} hands, got {brief(hands)}")
    if len(hands) != n:
        raise InvalidDealError(f"{len(hands)} hands given for {n} players")
    seen: dict[int, str] = {}
    masks = []

    for p, hand in enumerate(hands):
        ids = _card_list(hand, f"the hand of seat {p}")
        if len(ids) != t.hand_size:
            raise InvalidDealError(f"seat {p} holds {len(ids)} cards; each hand must hold {t.hand_size}")
        for c in ids:
            if c in seen:
                raise InvalidDealError(f"{card_name(c)} is dealt twice ({seen[c]} and seat {p})")
            if t.removed_mask >> c & 1:
                raise InvalidDealError(f"{card_name(c)} is removed from the deck by these rules (seat {p})")
            seen[c] = f"seat {p}"
        masks.append(mask_of(ids))
    rest = [c for c in t.deck if c not in seen]
    if kitty is None:
        kitty_ids = rest
    else:
        kitty_ids = _card_list(kitty, "the kitty")
        if sorted(kitty_ids) != rest:
            raise InvalidDealError(
                f"the kitty must be exactly the undealt cards {' '.join(card_name(c) for c in rest)}, "
                f"got {' '.join(card_name(c) for c in kitty_ids)}"
            )
    if len(kitty_ids) != t.kitty_size:
        raise InvalidDealError(f"{len(kitty_ids)} cards are left undealt; these rules have a kitty of {t.kitty_size}")
    return masks, kitty_ids


__all__ = ["PHASE_NAMES", "Deal", "mask_to_actions"]
