"""The belief sampler: worlds (full ``Deal`` objects) consistent with exactly what one seat knows.

``BeliefSampler(rules).sample(view, rng)`` reads a ``SeatView`` (decode the observation vector with
``decode_observation``; the sampler never sees the true deal) and returns a ``Deal`` in the same
state, with the observer at absolute seat 0 (relative seat ``r`` of the view is seat ``r`` of the
world), so ``seat_view(world, 0)`` equals the view field for field (single-deal views; in match
episodes everything but ``deal_number`` and ``match_episode``, which the deal does not hold).

What is known and kept:

- my hand, every card played and by whom, every trick's cards and winner (``won_by``, trick counts);
- the cards I passed to a seat and the forwarded packet I saw (pass-through with
  ``pass_through_visible``) lie in the receiving seat's hand unless played;
- the cards I put into a smoosh pool and did not get back lie in another seat's hand (not the kitty);
- voids shown by failing to follow suit: that seat holds no card of the suit;
- hand sizes (the deal size less the cards each seat played); the kitty (face down) keeps its size,
  whether taken or not, and the kitty cards a seat took join its won pile.

The unseen cards are dealt **uniformly over every deal consistent with these constraints**, without
rejection: the locations (other seats, kitty) are grouped by the set of card classes
(suit, may-be-in-kitty) they accept; the number of cards of each class per group is drawn from the
exact count of completions (products of binomials, summed by a memoised recursion over groups),
then cards are spread uniformly within classes and within groups. Inside a group the number of
ways to split a set of cards among its locations does not depend on which cards they are, which is
what makes the two-stage draw exact.

The world: during the dealer's choice and the passing phase nothing has moved, so the world is a
fresh ``Deal`` with the sampled (dealt) hands, replayed to the current position: the dealer's
choice (known once made), then the seats that passed before me choose random cards of their own
hands and pass from hand (their choices are hidden from me and stay in their hands until the pass
resolves, so any choice matches the view), then my own chosen cards and declaration. After the pass
the exact order of past tricks is not in the view, so the position is built directly: hands, won
piles, trick counts, the current trick, flags, kitty, and a play history of ``n``-card chunks (one
per completed trick, each credited to its winner) whose lead suits and off-suit cards reproduce the
voids shown. That history is a faithful summary for ``seat_view`` (the same cards, winners and
voids) but not necessarily a legal replay; the engine's rollouts only read the state. Finding it is
a small search (usually well under a millisecond, up to a few tenths of a second after wild random
play); ``BeliefSampler(rules, exact_history=False)``, which the search bots use, skips it and cuts
each winner's cards into chunks (the same cards, winners and trick counts; the voids of the
history may then differ from the view's, while the hands still respect them).
"""

from __future__ import annotations

import random
from math import comb

from ..core.actions import PASS_FROM_HAND, PASS_THROUGH, pass_kind_action
from ..core.cards import CLUBS, NUM_CARDS, NUM_RANKS, SUIT_MASKS, cards_of, mask_of
from ..core.deal import DEALER_CHOICE, PASSING, PHASE_NAMES, Deal
from ..core.rules import Rules, pass_offset
from ..obs import SeatView

_PHASES = {name: i for i, name in enumerate(PHASE_NAMES)}
_PLAYING = _PHASES["playing"]


_PLAY_LISTS = ("hands", "trick", "trick_seats", "played_by", "play_order", "trick_winners", "won", "tricks_won")
_PASS_LISTS = ("pass_through", "declared")


def fast_clone(deal: Deal) -> Deal:
    """A copy of ``deal`` to play on: ``Deal.clone`` without copying the random generator (which only
    deals the cards at construction; the smoosh shuffle has its own seed) or the lists play never
    changes. Re-seeding a fresh ``random.Random`` in ``Deal.clone`` was a third of a rollout's cost."""
    other = object.__new__(Deal)
    d = other.__dict__
    d.update(deal.__dict__)
    for key in _PLAY_LISTS:
        d[key] = d[key][:]
    d["kitty_taken_by"] = d["kitty_taken_by"][:]
    d["actions"] = d["actions"][:]
    if deal.phase != _PLAYING:
        for key in _PASS_LISTS:
            d[key] = d[key][:]
        for key in ("chosen", "passed", "received"):
            d[key] = [x[:] for x in d[key]]
    return other


class Constraints:
    """What a view says about the unseen cards: the cards, their classes and where they may lie.

    ``locations``: the other seats ``1..n-1`` then ``n`` for the kitty; ``known[loc]`` cards already
    placed there (a mask); ``capacity[loc]`` how many unseen cards it still takes;
    ``accepts[loc]`` the classes it accepts. A class is ``suit`` or ``4 + suit`` for a card that may
    not lie in the kitty."""

    def __init__(self, rules: Rules, view: SeatView) -> None:
        t = rules.tables
        n = rules.num_players
        self.num_players = n
        hand = mask_of(view.hand)
        played = 0
        for row in view.played_by:
            played |= mask_of(row)
        resolved = view.phase not in ("dealer_choice", "passing")
        known = [0] * (n + 1)
        known[0] = hand
        no_kitty = 0
        if resolved:
            for card, dst in view.passed:
                if played >> card & 1 or hand >> card & 1:
                    continue
                if dst is None:  # into the smoosh pool: in some other seat's hand, never the kitty
                    no_kitty |= 1 << card
                else:
                    known[dst] |= 1 << card
            if view.forwarded:
                dst = forward_target(view, n)
                for card in view.forwarded:
                    if not played >> card & 1 and dst is not None:
                        known[dst] |= 1 << card
        sizes = [t.hand_size - len(view.played_by[r]) for r in range(n)] + [t.kitty_size]
        seen = hand | played
        for loc in range(1, n + 1):
            seen |= known[loc]
        self.unseen = t.deck_mask & ~seen
        self.known = known
        self.capacity = [sizes[loc] - bin(known[loc]).count("1") for loc in range(n + 1)]
        self.capacity[0] = 0
        classes: list[list[int]] = [[] for _ in range(8)]
        for card in cards_of(self.unseen):
            classes[card // NUM_RANKS + (4 if no_kitty >> card & 1 else 0)].append(card)
        self.classes = classes
        accepts: list[frozenset[int]] = [frozenset()]
        for r in range(1, n):
            void = set(view.void_in[r]) if resolved else set()
            accepts.append(frozenset(k for k in range(8) if k % 4 not in void))
        accepts.append(frozenset(range(4)))
        self.accepts = accepts

    def groups(self) -> list[tuple[frozenset[int], list[int]]]:
        """Locations with room, grouped by the classes they accept; the widest group last."""
        by_key: dict[frozenset[int], list[int]] = {}
        for loc in range(1, self.num_players + 1):
            if self.capacity[loc] > 0:
                by_key.setdefault(self.accepts[loc], []).append(loc)
        return sorted(by_key.items(), key=lambda kv: (len(kv[0]), sum(self.capacity[x] for x in kv[1])))


def forward_target(view: SeatView, n: int) -> int | None:
    """Where the packet forwarded through my (pass-through) seat went: the next seat passing from hand."""
    if view.pass_kind is None:
        return None
    k = pass_offset(view.pass_kind, n)
    if k is None:
        return None
    q = k % n
    while view.pass_through[q]:
        q = (q + k) % n
    return q


class _Plan:
    """The exact count of completions for one view, and each group's weighted options (memoised)."""

    def __init__(self, con: Constraints) -> None:
        self.con = con
        self.groups = con.groups()
        self.caps = [sum(con.capacity[loc] for loc in locs) for _, locs in self.groups]
        self.start = tuple(len(c) for c in con.classes)
        self._count: dict[tuple[int, tuple[int, ...]], int] = {}
        self._options: dict[tuple[int, tuple[int, ...]], tuple[list[int], list[tuple[tuple[int, ...], tuple]]]] = {}
        if self.count(0, self.start) == 0:
            raise ValueError("no deal is consistent with this view")

    def vectors(self, g: int, rem: tuple[int, ...]):
        """The class-count vectors group ``g`` can take from ``rem``."""
        accepts, _ = self.groups[g]
        cap = self.caps[g]
        if g == len(self.groups) - 1:  # the last group takes what is left, if it can
            if sum(rem) == cap and all(rem[k] == 0 or k in accepts for k in range(8)):
                yield rem
            return
        allowed = [k for k in range(8) if rem[k] and k in accepts]
        x = [0] * 8

        def rec(i: int, left: int):
            if i == len(allowed):
                if left == 0:
                    yield tuple(x)
                return
            k = allowed[i]
            rest = sum(rem[j] for j in allowed[i + 1 :])
            for v in range(max(0, left - rest), min(rem[k], left) + 1):
                x[k] = v
                yield from rec(i + 1, left - v)
            x[k] = 0

        yield from rec(0, cap)

    def count(self, g: int, rem: tuple[int, ...]) -> int:
        """The number of ways to deal ``rem`` (class counts) to groups ``g..``, cards told apart."""
        if g == len(self.groups):
            return 0 if any(rem) else 1
        key = (g, rem)
        total = self._count.get(key)
        if total is None:
            total = 0
            for _, w, _ in self._weighted(g, rem):
                total += w
            self._count[key] = total
        return total

    def _weighted(self, g: int, rem: tuple[int, ...]):
        for x in self.vectors(g, rem):
            nxt = tuple(rem[k] - x[k] for k in range(8))
            w = 1
            for k in range(8):
                if x[k]:
                    w *= comb(rem[k], x[k])
            w *= self.count(g + 1, nxt)
            if w:
                yield x, w, nxt

    def options(self, g: int, rem: tuple[int, ...]) -> tuple[list[int], list[tuple[tuple[int, ...], tuple]]]:
        """Cumulative weights and ``(x, rest)`` of group ``g``'s options from ``rem``."""
        key = (g, rem)
        found = self._options.get(key)
        if found is None:
            cumulative: list[int] = []
            picks: list[tuple[tuple[int, ...], tuple]] = []
            running = 0
            for x, w, nxt in self._weighted(g, rem):
                running += w
                cumulative.append(running)
                picks.append((x, nxt))
            found = self._options[key] = (cumulative, picks)
        return found


class BeliefSampler:
    """Uniform worlds consistent with a seat's view (see the module docstring)."""

    def __init__(self, rules: Rules, exact_history: bool = True) -> None:
        self.rules = rules
        self.exact_history = exact_history
        self.num_players = rules.num_players
        self.hand_size = rules.tables.hand_size
        self.kitty_size = rules.tables.kitty_size
        self._cached_plan: tuple[SeatView, _Plan] | None = None
        self._cached_template: tuple[SeatView, Deal] | None = None

    # ------------------------------------------------------------------ hidden cards
    def sample_hands(self, view: SeatView, rng: random.Random) -> tuple[list[int], list[int]]:
        """Current hands (masks, seat 0 = me) and the kitty's cards, drawn uniformly."""
        plan = self._plan(view)
        con, groups = plan.con, plan.groups
        rem = plan.start
        pools = [list(c) for c in con.classes]
        for p in pools:
            rng.shuffle(p)
        hands = list(con.known)
        for g in range(len(groups)):
            cumulative, picks = plan.options(g, rem)
            pick = rng.randrange(cumulative[-1])
            lo, hi = 0, len(cumulative) - 1
            while lo < hi:  # the first option whose cumulative weight exceeds the pick
                mid = (lo + hi) // 2
                if cumulative[mid] > pick:
                    hi = mid
                else:
                    lo = mid + 1
            x, rem = picks[lo]
            cards: list[int] = []
            for k in range(8):
                if x[k]:
                    cards.extend(pools[k][: x[k]])
                    del pools[k][: x[k]]
            rng.shuffle(cards)
            for loc in groups[g][1]:
                c = con.capacity[loc]
                hands[loc] |= mask_of(cards[:c])
                del cards[:c]
        kitty = cards_of(hands[self.num_players])
        rng.shuffle(kitty)
        return hands[: self.num_players], kitty

    def _plan(self, view: SeatView) -> _Plan:
        if self._cached_plan is None or self._cached_plan[0] != view:
            self._cached_plan = (view, _Plan(Constraints(self.rules, view)))
        return self._cached_plan[1]

    # ------------------------------------------------------------------ worlds
    def sample(self, view: SeatView, rng: random.Random, legal: list[int] | None = None) -> Deal:
        """A world in the view's state, with the observer at seat 0. ``legal`` (my legal actions, when I
        am to move) tells whether I have already declared to pass from hand with no card chosen yet."""
        hands, kitty = self.sample_hands(view, rng)
        if view.phase in ("dealer_choice", "passing"):
            return self._before_pass(view, hands, kitty, rng, legal)
        return self._after_pass(view, hands, kitty, rng)

    def _before_pass(
        self, view: SeatView, hands: list[int], kitty: list[int], rng: random.Random, legal: list[int] | None
    ) -> Deal:
        n = self.num_players
        kind = "dealer_choice" if view.dealer_choice else view.pass_kind
        world = Deal(
            self.rules,
            seed=rng.getrandbits(63),
            hands=[cards_of(h) for h in hands],
            kitty=kitty,
            dealer=view.dealer,
            pass_kind=kind,
            totals=list(view.totals),
        )
        if world.phase == DEALER_CHOICE and view.phase == "passing" and view.pass_kind is not None:
            world.apply_action(pass_kind_action(view.pass_kind, n))  # the dealer's choice, made and shown
        if world.phase != PASSING:
            return world
        mine = [c for c, _ in view.passed]
        order = world.pass_order
        for seat in order:
            if seat == 0:
                break
            while world.current_player == seat:
                options = world.legal_actions()
                if PASS_FROM_HAND in options:
                    world.apply_action(PASS_FROM_HAND)
                    continue
                cards = [a for a in options if a < NUM_CARDS]
                world.apply_action(cards[rng.randrange(len(cards))])
        if world.current_player != 0:
            return world
        if PASS_FROM_HAND in world.legal_actions():
            if view.pass_through[0]:
                world.apply_action(PASS_THROUGH)
            elif mine or (legal is not None and PASS_FROM_HAND not in legal):
                world.apply_action(PASS_FROM_HAND)
        # chosen cards keep their order in the world; the view only shows them sorted with their targets
        for card in self._chosen_order(view, n):
            world.apply_action(card)
        return world

    def _chosen_order(self, view: SeatView, n: int) -> list[int]:
        """My chosen pass cards in an order that reproduces their intended targets (scatter)."""
        if view.pass_kind == "scatter":
            return [c for c, _ in sorted(view.passed, key=lambda x: (x[1], x[0]))]
        return [c for c, _ in view.passed]

    def _after_pass(self, view: SeatView, hands: list[int], kitty: list[int], rng: random.Random) -> Deal:
        n = self.num_players
        cached = self._cached_template
        if cached is None or cached[0] != view:
            cached = self._cached_template = (view, self._template(view, len(kitty)))
        world = fast_clone(cached[1])
        world._pass_seed = rng.getrandbits(64)
        played = world.dealt_hands  # the template keeps each seat's played cards here
        world.hands = list(hands)
        world.dealt_hands = tuple(hands[p] | played[p] for p in range(n))  # before the pass: unknown
        world.kitty_cards = list(kitty)
        world.kitty = kitty_mask = mask_of(kitty)
        everyone = self.rules.tables.deck_mask & ~kitty_mask
        clubs = everyone & SUIT_MASKS[CLUBS]
        lowest = clubs if clubs else everyone
        world.opening_card = (lowest & -lowest).bit_length() - 1
        won = world.won
        for i, p in enumerate(world.kitty_taken_by):
            if p >= 0:
                won[p] |= 1 << kitty[i]
        return world

    def _template(self, view: SeatView, kitty_size: int) -> Deal:
        """The world's public state for ``view`` (no hidden cards yet): built once per view."""
        n = self.num_players
        rules = self.rules
        kind = "dealer_choice" if view.dealer_choice else view.pass_kind
        world = Deal(rules, seed=0, dealer=view.dealer, pass_kind=kind, totals=list(view.totals))
        world.dealt_hands = tuple(mask_of(row) for row in view.played_by)
        world.phase = _PHASES[view.phase]
        world.current_player = view.to_move if view.to_move is not None else -1
        world.pass_kind = view.pass_kind
        world._offset = pass_offset(view.pass_kind, n) if view.pass_kind else None
        world.pass_through = list(view.pass_through)
        world.declared = list(view.pass_through)
        world.chosen = [[] for _ in range(n)]
        world.chosen[0] = [c for c, _ in view.passed]
        world.passed = [[] for _ in range(n)]
        world.received = [[] for _ in range(n)]
        world.passed[0] = [(c, -1 if r is None else r) for c, r in view.passed]
        world.received[0] = [(c, -1 if r is None else r) for c, r in view.received]
        if view.forwarded:
            dst = forward_target(view, n)
            k = pass_offset(view.pass_kind, n) if view.pass_kind else None
            if dst is not None and k is not None:
                src = (-k) % n
                while view.pass_through[src]:
                    src = (src - k) % n
                world.passed[src].extend((c, dst) for c in view.forwarded)
                world.received[dst].extend((c, src) for c in view.forwarded)
        leader = view.trick_leader if view.trick_leader is not None else 0
        world.leader = leader
        world.trick = list(view.trick)
        world.trick_seats = [(leader + i) % n for i in range(len(view.trick))]
        world.trick_mask = mask_of(view.trick)
        world._led_mask = SUIT_MASKS[view.trick[0] // NUM_RANKS] if view.trick else 0
        world.trick_number = view.trick_number
        world.hearts_broken = view.hearts_broken
        world.queen_played = view.queen_played
        world.void_declined = view.lead_heart_declared
        played_by = [-1] * NUM_CARDS
        for p in range(n):
            for c in view.played_by[p]:
                played_by[c] = p
        world.played_by = played_by
        order, winners = history(view, n) if self.exact_history else naive_history(view, n)
        world.play_order = order + list(zip(world.trick_seats, view.trick, strict=True))
        world.trick_winners = winners
        world.tricks_won = list(view.tricks_won)
        taken: list[int] = []
        for p in range(n):
            taken.extend([p] * view.kitty_taken[p])
        world.kitty_taken_by = taken + [-1] * (kitty_size - len(taken))
        world.won = [mask_of(row) for row in view.won_by]
        world.cancelled = False
        world.result = None
        world._legal = None
        world.actions = []
        return world


# ---------------------------------------------------------------------------------------------
# A play history that summarises the view
# ---------------------------------------------------------------------------------------------


def naive_history(view: SeatView, n: int) -> tuple[list[tuple[int, int]], list[int]]:
    """Each winner's ``won_by`` cards cut into ``n``-card chunks: the right cards, winners and trick counts,
    not the voids (what rollouts need, without the search of ``history``)."""
    owner = {c: p for p in range(n) for c in view.played_by[p]}
    order: list[tuple[int, int]] = []
    winners: list[int] = []
    for w in range(n):
        cards = view.won_by[w]
        order.extend((owner[c], c) for c in cards)
        winners.extend([w] * view.tricks_won[w])
    return order, winners


def history(view: SeatView, n: int) -> tuple[list[tuple[int, int]], list[int]]:
    """Completed tricks as ``n``-card chunks ``(seat, card)`` and their winners, such that each winner's
    chunks hold exactly its ``won_by`` cards and the voids the chunks show (a card off the lead suit)
    are exactly the view's voids (those shown in the current trick need no chunk). Depth-first over
    chunks: a lead suit, then the cards that must show a void, then the lead suit's cards, then off-suit
    cards whose seat is void in the lead suit."""
    owner = {}
    for p in range(n):
        for c in view.played_by[p]:
            owner[c] = p
    void = [set(row) for row in view.void_in]
    need: set[tuple[int, int]] = {(p, s) for p in range(n) for s in void[p]}
    if view.trick:
        led = view.trick[0] // NUM_RANKS
        for c in view.trick[1:]:
            if c // NUM_RANKS != led:
                need.discard((owner[c], led))
    piles = {w: sorted(view.won_by[w]) for w in range(n) if view.tricks_won[w]}
    winners = [w for w in range(n) for _ in range(view.tricks_won[w])]
    chunks: list[list[int]] = []
    budget = [20000]

    def fill(pile: list[int], s: int, lead: int, want: set[tuple[int, int]], off_first: bool) -> list[int] | None:
        chunk = [lead]
        rest = [c for c in pile if c != lead]
        for p, vs in sorted(want):
            if vs != s or len(chunk) == n:
                continue
            for c in rest:
                if owner[c] == p and c // NUM_RANKS != s:
                    chunk.append(c)
                    rest.remove(c)
                    break
        same = [c for c in rest if c // NUM_RANKS == s]
        off = [c for c in rest if c // NUM_RANKS != s and s in void[owner[c]]]
        for c in off + same if off_first else same + off:
            if len(chunk) == n:
                break
            chunk.append(c)
        return chunk if len(chunk) == n else None

    def solve(i: int, remaining: dict[int, list[int]], want: set[tuple[int, int]]) -> bool:
        budget[0] -= 1
        if budget[0] < 0:
            return False
        if i == len(winners):
            return not want
        w = winners[i]
        pile = remaining[w]
        state = (i, tuple(tuple(remaining[v]) for v in sorted(remaining)), frozenset(want))
        if state in failed:
            return False
        tried = set()
        for lead, off_first in [(c, f) for f in (False, True) for c in pile]:
            s = lead // NUM_RANKS
            chunk = fill(pile, s, lead, want, off_first)
            if chunk is None:
                continue
            key = tuple(sorted(chunk))
            if key in tried:
                continue
            tried.add(key)
            shown = {(owner[c], s) for c in chunk[1:] if c // NUM_RANKS != s}
            left = [c for c in pile if c not in chunk]
            remaining[w] = left
            chunks.append(chunk)
            if solve(i + 1, remaining, want - shown):
                return True
            chunks.pop()
            remaining[w] = pile
        if budget[0] >= 0:
            failed.add(state)
        return False

    solved = False
    shuffle = random.Random(0)
    for _attempt in range(12):  # a few restarts in other orders: the search is greedy inside a chunk
        budget[0] = 1500
        failed: set = set()
        chunks.clear()
        if solve(0, dict(piles), need):
            solved = True
            break
        shuffle.shuffle(winners)
        for w in piles:
            shuffle.shuffle(piles[w])
    if not solved:
        # no summary found within the budget: the cards and winners are still right, voids may differ
        chunks.clear()
        for w in range(n):
            cards = piles.get(w, [])
            chunks.extend(cards[j : j + n] for j in range(0, len(cards), n))
    order = [(owner[c], c) for chunk in chunks for c in chunk]
    return order, winners


__all__ = ["BeliefSampler", "Constraints", "fast_clone", "history", "naive_history"]
