"""Property tests: random valid rule sets (``strategies.rule_sets``) played with random legal actions.

Each property plays whole deals (``hearts_env.Deal``) or whole matches (``hearts_env.Match``), choosing
uniformly from ``legal_actions()`` with a seeded ``random.Random``, and checks at every decision and at
the end of every deal:

(a) cards are conserved: hands + cards played + kitty + removed cards are the 52 cards, without overlap
    (cards chosen to pass stay in the hand until the pass resolves), and the won piles hold exactly the
    cards of completed tricks plus the kitty cards handed out;
(b) every completed trick has exactly N cards, one from each seat, in clockwise order from its leader,
    and the winner of a trick leads the next;
(c) ``legal_actions()`` is never empty before the end; every legal action is accepted; an illegal one
    raises ``IllegalActionError`` and leaves the state unchanged (checked on a sample of decisions);
(d) the deal's scores add up (RULES.md §3.5's check);
(e) the same seeds give the same actions and scores;
(f) the trick winner holds the highest card of the led suit (no trumps, RULES.md §3.4);
(g) a play follows the led suit whenever the player holds that suit (RULES.md §3.4.1).

Beyond these, each decision's legal set is compared with an independent transcription of RULES.md
§3.4.1 and §10 (``reference_legal``), the hands after the pass with §3.3 and §10's conventions, the kitty's
taker with §3.1, and each deal's scores with §3.5's pipeline (``reference_scores``).
"""

from __future__ import annotations

import copy
import random
from dataclasses import dataclass
from typing import Any

import pytest
from hypothesis import HealthCheck, Phase, event, given, settings
from hypothesis import strategies as st
from strategies import rule_options, rule_sets

import hearts_env
from hearts_env.core.actions import (
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
from hearts_env.core.cards import (
    AS,
    CLUBS,
    FULL_DECK_MASK,
    HEARTS,
    HEARTS_MASK,
    KS,
    NUM_RANKS,
    QS,
    QS_BIT,
    SPADES,
    SUIT_MASKS,
    cards_of,
    mask_of,
    parse_card,
)
from hearts_env.core.deal import DEALER_CHOICE, MOON_CHOICE, PASSING, PLAYING
from hearts_env.core.rules import canonical_pass_kind, pass_offset

NUM_ACTIONS = hearts_env.NUM_ACTIONS
SEEDS = st.integers(0, 2**32 - 1)
#: share of decisions at which (c) tries every legal action on a clone and an illegal action on the state
CHECK_RATE = 0.05
POINT_CARDS = HEARTS_MASK | QS_BIT  # what no_points_on_first_trick keeps off the first trick

# no "explain" phase: it replays a failing whole-deal example hundreds of times, which takes minutes
PHASES = [Phase.explicit, Phase.reuse, Phase.generate, Phase.target, Phase.shrink]
_COMMON = {"deadline": None, "phases": PHASES, "suppress_health_check": [HealthCheck.too_slow]}
DEAL_SETTINGS = settings(max_examples=600, **_COMMON)
GREEDY_SETTINGS = settings(max_examples=500, **_COMMON)
MATCH_SETTINGS = settings(max_examples=150, **_COMMON)


def apply_resets(totals: list[int], rules: hearts_env.Rules) -> list[int]:
    """RULES.md §3.6: each total that equals a reset's key becomes its value, once (resets never chain)."""
    resets = dict(rules.exact_score_resets)
    return [resets.get(total, total) for total in totals]


@dataclass(frozen=True)
class Decision:
    """One decision of a deal as it was taken: who, in which phase, and the action chosen."""

    seat: int
    phase: int
    action: int


# ---------------------------------------------------------------------------------------------- state checks


def deal_snapshot(deal: hearts_env.Deal) -> dict[str, Any]:
    """Every attribute of a deal (random generators by their state), deep-copied, for an unchanged-state check."""
    state = {}
    for key, value in vars(deal).items():
        if key in ("rules", "_legal"):
            continue  # the rule set is shared and immutable; ``_legal`` is a cache
        state[key] = value.getstate() if isinstance(value, random.Random) else copy.deepcopy(value)
    return state


def match_snapshot(match: hearts_env.Match) -> dict[str, Any]:
    """The match's own attributes plus a snapshot of the deal in progress."""
    state = {}
    for key, value in vars(match).items():
        if key in ("rules", "deal", "history"):
            continue
        state[key] = value.getstate() if isinstance(value, random.Random) else copy.deepcopy(value)
    state["history"] = [(s.number, s.scores, s.totals, s.resets) for s in match.history]
    state["deal_id"] = id(match.deal)
    state["deal"] = deal_snapshot(match.deal)
    return state


def check_cards_conserved(deal: hearts_env.Deal) -> None:
    """(a) hands + played + kitty + removed = the 52 cards, no overlap; chosen pass cards still in hand."""
    t = deal.rules.tables
    played = mask_of(card for _, card in deal.play_order)
    parts = [*deal.hands, played, deal.kitty, t.removed_mask]
    union = 0
    for part in parts:
        assert union & part == 0, "a card is in two places at once"
        union |= part
    assert union == FULL_DECK_MASK, "a card went missing"
    assert mask_of(deal.kitty_cards) == deal.kitty
    if deal.phase in (DEALER_CHOICE, PASSING):
        assert tuple(deal.hands) == deal.dealt_hands, "a hand changed before the pass resolved"
        for p in range(deal.num_players):
            assert mask_of(deal.chosen[p]) & ~deal.hands[p] == 0, "a chosen pass card left the hand early"
    # the won piles hold the completed tricks' cards and the kitty cards handed out
    completed = len(deal.trick_winners) * deal.num_players
    in_tricks = mask_of(card for _, card in deal.play_order[:completed])
    kitty_out = mask_of(c for c, who in zip(deal.kitty_cards, deal.kitty_taken_by, strict=True) if who >= 0)
    won = 0
    for pile in deal.won:
        assert won & pile == 0, "a card is in two won piles"
        won |= pile
    assert won == in_tricks | kitty_out


def check_legal_set(deal: hearts_env.Deal, legal: list[int]) -> None:
    """(c) a non-empty, sorted set of valid action ids; (g) following the led suit when holding it."""
    assert legal, f"no legal action in phase {deal.phase} for seat {deal.current_player}"
    assert legal == sorted(set(legal))
    assert all(0 <= a < NUM_ACTIONS for a in legal)
    assert 0 <= deal.current_player < deal.num_players
    if deal.phase == PLAYING and deal.trick:
        led = deal.trick[0] // NUM_RANKS
        if deal.hands[deal.current_player] & SUIT_MASKS[led]:
            assert all(a // NUM_RANKS == led for a in legal), f"may not discard while holding the led suit {led}"


def check_actions_accepted_and_rejected(deal: hearts_env.Deal, legal: list[int], rng: random.Random) -> None:
    """(c) each legal action is accepted (on clones, which leave the original as it was); an illegal one
    raises and changes nothing."""
    before = deal_snapshot(deal)
    for action in legal:
        deal.clone().apply_action(action)
    assert deal_snapshot(deal) == before, "playing on a clone changed the original"
    illegal = [a for a in range(-1, NUM_ACTIONS + 1) if a not in legal]
    action = rng.choice(illegal)
    with pytest.raises(hearts_env.IllegalActionError):
        deal.apply_action(action)
    assert deal_snapshot(deal) == before
    assert deal.legal_actions() == legal


# ---------------------------------------------------------------------------------------------- RULES.md reference


def opening_card(deal: hearts_env.Deal) -> int:
    """RULES.md §3.1: the lowest club any player holds after passing (kitty and removed cards excluded)."""
    in_hands = [c for c in deal.rules.tables.deck if c not in deal.kitty_cards]
    clubs = [c for c in in_hands if c // NUM_RANKS == CLUBS]
    return min(clubs) if clubs else min(in_hands)


def reference_play(deal: hearts_env.Deal, log: list[Decision]) -> set[int]:
    """RULES.md §3.4.1's legal-move algorithm, written from the spec, over the deal's record."""
    rules, n = deal.rules, deal.num_players
    p = deal.current_player
    hand = deal.hands[p]
    order = deal.play_order
    trick_no = len(order) // n
    trick = [card for _, card in order[trick_no * n :]]
    played = {card for _, card in order}
    broken = any(c // NUM_RANKS == HEARTS for c in played) or (rules.queen_breaks_hearts and QS in played)
    first = trick_no == 0
    if not trick:  # p leads
        if first:
            opening = opening_card(deal)
            if rules.first_lead == "eldest_any_card":
                assert p == deal.eldest, "eldest hand leads the first trick"
            else:
                assert hand >> opening & 1, "the holder of the opening card leads the first trick"
                if rules.first_lead == "opening_card_must_be_led":
                    return {opening}
                return set(cards_of(hand & SUIT_MASKS[CLUBS]))
        cands = hand
        if first and rules.no_points_on_first_trick and hand & ~POINT_CARDS:
            cands = hand & ~POINT_CARDS
        if rules.hearts_must_be_broken and not broken:
            non_hearts = cands & ~HEARTS_MASK
            if non_hearts:
                if rules.queen_and_hearts_only_may_lead_heart and hand & ~HEARTS_MASK == QS_BIT:
                    return set(cards_of(cands))
                return set(cards_of(non_hearts))
            assert rules.all_hearts_leader_unbroken != "void_deal", "void_deal: the deal should have been cancelled"
            declined = bool(log) and log[-1].action == LEAD_HEART
            if rules.all_hearts_leader_unbroken == "leader_may_void" and not declined:
                return {VOID_DEAL, LEAD_HEART}
        return set(cards_of(cands))
    led = trick[0] // NUM_RANKS
    follow = hand & SUIT_MASKS[led]
    if follow:
        if rules.queen_must_be_played_when_safe and led == SPADES and hand & QS_BIT and (KS in trick or AS in trick):
            return {QS}
        return set(cards_of(follow))
    allowed = hand
    if first and rules.no_points_on_first_trick:
        allowed = hand & ~POINT_CARDS
        if not allowed:
            hearts = hand & HEARTS_MASK
            use_hearts = rules.first_trick_points_fallback == "heart_before_queen" and hearts
            allowed = hearts if use_hearts else hand
    if rules.queen_must_be_played_when_safe and allowed & QS_BIT:
        return {QS}
    return set(cards_of(allowed))


def reference_legal(deal: hearts_env.Deal, log: list[Decision]) -> list[int]:
    """The legal set RULES.md §3.4.1 and §10 give for the decision at hand."""
    rules, n = deal.rules, deal.num_players
    p = deal.current_player
    if deal.phase == DEALER_CHOICE:
        assert p == deal.dealer and not log, "the dealer announces the pass kind first"
        kinds = [CHOOSE_OFFSET_BASE + k for k in range(1, n)] + [CHOOSE_HOLD, CHOOSE_SMOOSH]
        if rules.pass_count % (n - 1) == 0:
            kinds.append(CHOOSE_SCATTER)
        return sorted(kinds)
    if deal.phase == PASSING:
        mine = [d for d in log if d.phase == PASSING and d.seat == p]
        single_target = pass_offset(deal.pass_kind, n) is not None
        if rules.allow_pass_through and single_target and not mine:
            return [PASS_FROM_HAND, PASS_THROUGH]
        chosen = {d.action for d in mine}
        return [c for c in cards_of(deal.dealt_hands[p]) if c not in chosen]
    if deal.phase == MOON_CHOICE:
        return [MOON_SUBTRACT, MOON_ADD]
    assert deal.phase == PLAYING
    return sorted(reference_play(deal, log))


def check_pass(deal: hearts_env.Deal, log: list[Decision]) -> None:
    """RULES.md §3.3 and §10: the passing order, and the hands the pass leaves (after a finished deal)."""
    rules, n = deal.rules, deal.num_players
    passing = [d for d in log if d.phase == PASSING]
    kind = deal.pass_kind
    if log and log[0].phase == DEALER_CHOICE:
        assert action_pass_kind(log[0].action, n) == kind
    else:
        assert kind == canonical_pass_kind(deal.cycle_kind, n)
    if kind == "hold":
        assert not passing
        hands_after = list(deal.dealt_hands)
    else:
        # seat by seat from eldest hand, clockwise, each seat's decisions together
        seats = [d.seat for i, d in enumerate(passing) if i == 0 or passing[i - 1].seat != d.seat]
        assert seats == [(deal.eldest + i) % n for i in range(n)], f"passing order {seats}"
        through = [any(d.action == PASS_THROUGH for d in passing if d.seat == p) for p in range(n)]
        chosen = [[d.action for d in passing if d.seat == p and d.action < 52] for p in range(n)]
        for p in range(n):
            assert len(chosen[p]) == (0 if through[p] else rules.pass_count)
        hands_after = [hand & ~mask_of(chosen[p]) for p, hand in enumerate(deal.dealt_hands)]
        if kind == "smoosh":
            pool = mask_of(c for cards in chosen for c in cards)
            got = [hands_at_play_start(deal)[p] & ~hands_after[p] for p in range(n)]
            assert all(bin(g).count("1") == rules.pass_count for g in got)
            assert mask_of(c for g in got for c in cards_of(g)) == pool
            hands_after = [h | g for h, g in zip(hands_after, got, strict=True)]
        elif kind == "scatter":
            share = rules.pass_count // (n - 1)
            for p in range(n):
                for i, card in enumerate(chosen[p]):
                    hands_after[(p + 1 + i // share) % n] |= 1 << card
        else:
            k = pass_offset(kind, n)
            for p in range(n):
                if through[p]:
                    continue
                target = (p + k) % n
                while through[target]:  # the packet travels past pass-through seats
                    target = (target + k) % n
                hands_after[target] |= mask_of(chosen[p])
    if any(d.phase == PLAYING for d in log) or deal.play_order:
        assert hands_at_play_start(deal) == hands_after


def hands_at_play_start(deal: hearts_env.Deal) -> list[int]:
    """After the pass a hand only shrinks by playing: its cards then are its cards now plus those it played."""
    hands = list(deal.hands)
    for seat, card in deal.play_order:
        hands[seat] |= 1 << card
    return hands


def reference_kitty(deal: hearts_env.Deal) -> list[int]:
    """RULES.md §3.1 (and the engine's rule that a kitty card unclaimed after the last trick goes to its
    winner): who takes each kitty card, -1 while nobody has."""
    rules, n, t = deal.rules, deal.num_players, deal.rules.tables
    takers = [-1] * len(deal.kitty_cards)
    for j, winner in enumerate(deal.trick_winners):
        cards = [card for _, card in deal.play_order[j * n : (j + 1) * n]]
        last = j == t.num_tricks - 1
        for i in range(len(takers)):
            if takers[i] >= 0:
                continue
            if rules.kitty_taker == "first_trick_winner":
                take = True
            elif rules.kitty_taker == "one_card_per_trick":
                take = i == j
            else:  # first_penalty_taker: "the first trick containing a heart or QS"
                take = any(c // NUM_RANKS == HEARTS or c == QS for c in cards)
            if take or last:
                takers[i] = winner
    return takers


def reference_scores(deal: hearts_env.Deal, log: list[Decision]) -> tuple[int, ...]:
    """RULES.md §3.5's per-deal scoring pipeline over the trick record."""
    rules, n, t = deal.rules, deal.num_players, deal.rules.tables
    values = t.card_values
    won: list[set[int]] = [set() for _ in range(n)]
    for j, winner in enumerate(deal.trick_winners):
        won[winner].update(card for _, card in deal.play_order[j * n : (j + 1) * n])
    for card, taker in zip(deal.kitty_cards, reference_kitty(deal), strict=True):
        won[taker].add(card)
    assert [mask_of(w) for w in won] == deal.won
    tricks = [deal.trick_winners.count(p) for p in range(n)]
    raw = [sum(values[c] for c in w) for w in won]
    penalty = {c for c in t.deck if values[c] > 0}
    bonus = -1 if rules.bonus_card == "none" else parse_card(rules.bonus_card)
    # steps 2-3: the shooter
    shooter, value, sun = None, 0, False
    for p in range(n):
        if rules.sun_enabled and tricks[p] == t.num_tricks:
            shooter, value, sun = p, rules.sun_value, True
            break
    if shooter is None and rules.moon_enabled and penalty:
        for p in range(n):
            if not penalty <= won[p]:
                continue
            if rules.moon_requires_all_tricks and tricks[p] != t.num_tricks:
                continue
            if rules.moon_requires_bonus_card and bonus not in won[p]:
                continue
            shooter = p
            value = sum(values[c] for c in penalty) if rules.moon_value == "total" else rules.moon_value
    adjust = [rules.no_tricks_adjustment if tricks[p] == 0 else 0 for p in range(n)]
    if shooter is None:
        return tuple(r + a for r, a in zip(raw, adjust, strict=True))
    # step 4: penalty points vanish, bonus points stay; the moon mode applies. cancel_deal [ENGINE,
    # clarified]: "nobody scores them and nobody gets a moon bonus", the bonus card and step 5 still apply
    if rules.moon_mode == "cancel_deal":
        value = 0
    base = [sum(values[c] for c in w if values[c] <= 0) for w in won]
    if sun or rules.moon_requires_bonus_card:
        base[shooter] = 0
    # step 5 on a moon deal
    if not rules.no_tricks_adjustment_on_moon:
        adjust = [0] * n
    subtract = [b + a - (value if p == shooter else 0) for p, (b, a) in enumerate(zip(base, adjust, strict=True))]
    add = [b + a + (0 if p == shooter else value) for p, (b, a) in enumerate(zip(base, adjust, strict=True))]
    mode = rules.moon_mode
    if mode == "shooter_choice":
        assert log[-1].phase == MOON_CHOICE and log[-1].seat == shooter
        use_add = log[-1].action == MOON_ADD
    elif mode == "add_unless_shooter_loses":
        # note A [ENGINE, clarified]: on the totals the whole deal would give (step 5 and resets included)
        after = apply_resets([b + a for b, a in zip(deal.totals_before, add, strict=True)], rules)
        others = min(a for p, a in enumerate(after) if p != shooter)
        first = after[shooter] <= others if rules.moon_conditional_tie_counts_as_first else after[shooter] < others
        ends = rules.game_end_threshold is not None and max(after) >= rules.game_end_threshold
        use_add = not (ends and not first)
    else:
        use_add = mode == "add_to_others"
    return tuple(add if use_add else subtract)


# ---------------------------------------------------------------------------------------------- per deal


def check_decision(deal: hearts_env.Deal, legal: list[int], log: list[Decision]) -> None:
    """(a), (c), (g), and the legal set of RULES.md §3.4.1/§10, before a decision."""
    check_cards_conserved(deal)
    check_legal_set(deal, legal)
    expected = reference_legal(deal, log)
    assert legal == expected, f"seat {deal.current_player} phase {deal.phase}: engine {legal}, RULES.md {expected}"


def check_finished_deal(deal: hearts_env.Deal, log: list[Decision]) -> None:
    """(a), (b), (d), (f), (g) and the RULES.md references on a finished deal's record."""
    assert deal.is_terminal()
    assert [d.action for d in log] == deal.actions
    check_cards_conserved(deal)
    check_pass(deal, log)
    rules, t, n = deal.rules, deal.rules.tables, deal.num_players
    order, winners = deal.play_order, deal.trick_winners
    # (b) complete tricks only, N cards each, clockwise from the leader; the winner leads next
    assert len(order) == n * len(winners)
    for i, winner in enumerate(winners):
        trick = order[i * n : (i + 1) * n]
        seats = [seat for seat, _ in trick]
        assert seats == [(seats[0] + j) % n for j in range(n)], f"trick {i} not played clockwise: {seats}"
        if i:
            assert seats[0] == winners[i - 1], f"trick {i} led by {seats[0]}, not by the winner {winners[i - 1]}"
        # (f) the highest card of the led suit wins
        led = trick[0][1] // NUM_RANKS
        best_seat, _ = max((pair for pair in trick if pair[1] // NUM_RANKS == led), key=lambda pair: pair[1])
        assert winner == best_seat, f"trick {i}: {trick} won by {winner}"
    # (g) whoever did not follow suit held none of it: after the pass a hand only shrinks by playing, so
    # the cards a seat holds at a play are exactly the cards it plays from then on
    for i in range(len(winners)):
        led = order[i * n][1] // NUM_RANKS
        for k in range(i * n + 1, (i + 1) * n):
            seat, card = order[k]
            if card // NUM_RANKS != led:
                later = [c for s, c in order[k:] if s == seat]
                assert all(c // NUM_RANKS != led for c in later), f"seat {seat} discarded {card} holding suit {led}"
    assert deal.kitty_taken_by == reference_kitty(deal)
    if deal.cancelled:
        assert deal.scores == (0,) * n
        return
    assert len(winners) == t.num_tricks
    assert all(who >= 0 for who in deal.kitty_taken_by), "every kitty card has a taker at the end"
    assert deal.tricks_won == [winners.count(p) for p in range(n)]
    # (d) RULES.md §3.5: the card points add up to the deck's total, and so do the scores without a moon
    result = deal.result
    deck_total = sum(t.card_values[c] for c in t.deck)
    assert sum(result.raw) == deck_total
    if result.shooter is None:
        zero = [p for p in range(n) if deal.tricks_won[p] == 0]
        assert list(result.scores) == [
            raw + (rules.no_tricks_adjustment if p in zero else 0) for p, raw in enumerate(result.raw)
        ]
        if rules.no_tricks_adjustment == 0:
            assert sum(deal.scores) == deck_total
    assert deal.scores == reference_scores(deal, log)


def greedy_choice(deal: hearts_env.Deal, legal: list[int], rng: random.Random, greedy: int) -> int:
    """Seat ``greedy`` passes its lowest-ranked cards and plays its highest-ranked legal card, the others play
    their lowest (other decisions at random): moons, suns and players without a trick become common enough
    to test their scoring."""
    if (
        legal[-1] >= 52
        or deal.phase not in (PASSING, PLAYING)
        or (deal.phase == PASSING and deal.current_player != greedy)
    ):
        return rng.choice(legal)
    by_rank = sorted(legal, key=lambda c: (c % NUM_RANKS, rng.random()))
    if deal.phase == PASSING:
        return by_rank[0]
    return by_rank[-1] if deal.current_player == greedy else by_rank[0]


def play_deal(deal: hearts_env.Deal, rng: random.Random, *, check: bool, greedy: int | None = None) -> list[Decision]:
    """Play ``deal`` to its end with uniformly random legal actions (or ``greedy_choice``), checking every
    decision when asked. The checks draw from their own generator, so ``rng`` picks the same actions with
    or without them."""
    check_rng = random.Random(rng.random())
    log: list[Decision] = []
    while not deal.is_terminal():
        legal = deal.legal_actions()
        if check:
            check_decision(deal, legal, log)
            if check_rng.random() < CHECK_RATE:
                check_actions_accepted_and_rejected(deal, legal, check_rng)
        action = rng.choice(legal) if greedy is None else greedy_choice(deal, legal, rng, greedy)
        log.append(Decision(deal.current_player, deal.phase, action))
        deal.apply_action(action)
    assert deal.legal_actions() == []
    return log


# ---------------------------------------------------------------------------------------------- properties


@given(options=rule_options())
@settings(max_examples=300, deadline=None)
def test_strategy_yields_valid_rules(options: dict[str, Any]) -> None:
    """Rules accepts every option set the strategy draws, keeps each option, and derives a consistent deck."""
    rules = hearts_env.Rules(**options)
    assert rules.num_players == options["num_players"]
    assert rules.pass_count == options["pass_count"]
    assert rules.game_end_threshold == options["game_end_threshold"]
    t = rules.tables
    assert len(t.deck) == t.hand_size * rules.num_players + t.kitty_size
    assert len(t.deck) + bin(t.removed_mask).count("1") == 52
    if rules.deal_remainder == "kitty":  # §3.1: with a kitty nothing is removed, whatever removed_cards says
        assert (t.removed_mask, t.kitty_size) == (0, 52 % rules.num_players)
    assert rules.pass_count <= t.hand_size
    assert hearts_env.Rules.from_dict(rules.to_dict()) == rules


@given(
    rules=rule_sets(),
    deal_seed=SEEDS,
    play_seed=SEEDS,
    dealer=st.integers(0, 7),
    cycle_position=st.integers(0, 4),
)
@DEAL_SETTINGS
def test_random_deals(rules: hearts_env.Rules, deal_seed: int, play_seed: int, dealer: int, cycle_position: int):
    """(a)-(g) over one whole deal, any dealer and any position of the pass cycle; replaying is identical."""
    dealer %= rules.num_players
    kind = rules.pass_kind_for_deal(cycle_position)
    deal = hearts_env.Deal(rules, seed=deal_seed, dealer=dealer, pass_kind=kind)
    log = play_deal(deal, random.Random(play_seed), check=True)
    check_finished_deal(deal, log)
    with pytest.raises(hearts_env.IllegalActionError):
        deal.apply_action(0)
    event(f"N={rules.num_players}")
    event(f"pass kind {deal.pass_kind}")
    event("cancelled" if deal.cancelled else f"shot {deal.result.shot}")

    # (e) determinism: the same seeds give the same deal, the same actions and the same scores
    again = hearts_env.Deal(rules, seed=deal_seed, dealer=dealer, pass_kind=kind)
    assert again.dealt_hands == deal.dealt_hands
    play_deal(again, random.Random(play_seed), check=False)
    assert again.actions == deal.actions
    assert again.play_order == deal.play_order
    assert again.scores == deal.scores


def stacked_deal(
    rules: hearts_env.Rules, seed: int, greedy: int, pass_kind: str | None, totals: list[int]
) -> hearts_env.Deal:
    """A deal in which seat ``greedy`` holds the highest-ranked cards of the deck (the rest at random), so that,
    playing ``greedy_choice``, it often takes every trick or every penalty card (always, on a ``hold`` deal)."""
    rng = random.Random(seed)
    t, n = rules.tables, rules.num_players
    deck = sorted(t.deck, key=lambda c: (-(c % NUM_RANKS), rng.random()))
    rest = deck[t.hand_size :]
    rng.shuffle(rest)
    hands = [rest[i * t.hand_size : (i + 1) * t.hand_size] for i in range(n - 1)]
    hands.insert(greedy, deck[: t.hand_size])
    kitty = rest[(n - 1) * t.hand_size :]
    dealer = rng.randrange(n)
    return hearts_env.Deal(
        rules, seed=seed, hands=hands, kitty=kitty, dealer=dealer, pass_kind=pass_kind, totals=totals
    )


@given(
    rules=rule_sets(),
    deal_seed=SEEDS,
    play_seed=SEEDS,
    greedy=st.integers(0, 7),
    stacked=st.sampled_from(["random deal", "stacked, no pass", "stacked, pass"]),
    totals=st.lists(st.integers(-30, 130), min_size=8, max_size=8),
)
@GREEDY_SETTINGS
def test_greedy_deals(
    rules: hearts_env.Rules, deal_seed: int, play_seed: int, greedy: int, stacked: str, totals: list[int]
) -> None:
    """As ``test_random_deals``, with one seat grabbing tricks (and, if ``stacked``, dealt the top cards) and
    match totals before the deal: this exercises the moon, sun, conditional-moon and no-trick paths of
    RULES.md §3.5, checked against ``reference_scores``."""
    n = rules.num_players
    greedy %= n
    if stacked == "random deal":
        deal = hearts_env.Deal(rules, seed=deal_seed, totals=totals[:n])
    else:
        kind = "hold" if stacked == "stacked, no pass" else None
        deal = stacked_deal(rules, deal_seed, greedy, kind, totals[:n])
    log = play_deal(deal, random.Random(play_seed), check=True, greedy=greedy)
    check_finished_deal(deal, log)
    event("cancelled" if deal.cancelled else f"shot {deal.result.shot} ({deal.result.moon_applied})")


def play_match(rules: hearts_env.Rules, seed: int, play_seed: int, *, check: bool) -> hearts_env.Match:
    """Play a whole match with random legal actions; with ``check``, every decision and deal is checked."""
    match = hearts_env.Match(rules, seed=seed)
    rng = random.Random(play_seed)
    check_rng = random.Random(-play_seed)
    logs: dict[int, list[Decision]] = {}  # by id() of the deal; every deal stays alive in match.history
    finished = 0
    while not match.is_terminal():
        assert len(match.history) < 300, "the match does not end"
        legal = match.legal_actions()
        deal = match.deal
        log = logs.setdefault(id(deal), [])
        if check:
            assert match.current_player == deal.current_player
            check_decision(deal, legal, log)
            if check_rng.random() < CHECK_RATE:
                for action in legal:
                    deal.clone().apply_action(action)
                before = match_snapshot(match)
                with pytest.raises(hearts_env.IllegalActionError):
                    match.apply_action(check_rng.choice([a for a in range(-1, NUM_ACTIONS + 1) if a not in legal]))
                assert match_snapshot(match) == before
        action = rng.choice(legal)
        log.append(Decision(deal.current_player, deal.phase, action))
        match.apply_action(action)
        if check:
            while finished < len(match.history):
                done = match.history[finished].deal
                check_finished_deal(done, logs.get(id(done), []))
                finished += 1
    return match


@given(rules=rule_sets(game_end_threshold=st.integers(30, 60), for_match=True), seed=SEEDS, play_seed=SEEDS)
@MATCH_SETTINGS
def test_random_matches(rules: hearts_env.Rules, seed: int, play_seed: int) -> None:
    """(a)-(g) over every deal of a short match; totals are the deal scores with resets; replaying is identical."""
    match = play_match(rules, seed, play_seed, check=True)
    event(f"deals played: {len(match.history)}")
    event(f"end: {match.end_reason.split(':')[0]}")
    assert match.legal_actions() == []
    assert match.current_player == -1
    with pytest.raises(hearts_env.IllegalActionError):
        match.apply_action(0)

    # the totals are the running sums of the deal scores, each reset applied once (RULES.md §3.6); the
    # dealer rotates and the pass cycle advances after each counted deal, and a cancelled deal is redealt
    # by the same dealer (RULES.md §3.2, §3.3, §3.4)
    n = rules.num_players
    totals = [0] * n
    counted = position = 0
    dealer = match.history[0].deal.dealer
    if rules.first_dealer != "random":
        assert dealer == rules.first_dealer
    for summary in match.history:
        assert summary.deal.totals_before == totals
        assert summary.deal.dealer == dealer
        assert summary.deal.cycle_kind == rules.pass_kind_for_deal(position)
        if summary.deal.cancelled:
            assert summary.totals == tuple(totals)
            position += rules.void_deal_advances_pass_cycle
            continue
        position += 1
        dealer = (dealer + (1 if rules.dealer_rotation == "clockwise" else -1)) % n
        counted += 1
        assert summary.number == counted
        totals = apply_resets([a + b for a, b in zip(totals, summary.scores, strict=True)], rules)
        assert summary.totals == tuple(totals)
    assert match.totals == totals
    assert match.deals_counted == counted
    # the end of the game (RULES.md §3.6): an instant win, or a total at the threshold with the lowest winning
    if match.end_reason.startswith("instant win"):
        iw = rules.instant_win
        assert match.winners == tuple(p for p in range(n) if totals[p] == iw.score)
        assert counted == iw.at_deal if iw.mode == "at_deal_exactly" else counted >= iw.at_deal
    else:
        assert max(totals) >= rules.game_end_threshold
        assert match.winners == tuple(p for p in range(n) if totals[p] == min(totals))
        if rules.tie_for_lowest == "play_another_deal":
            assert len(match.winners) == 1

    # (e) determinism
    again = play_match(rules, seed, play_seed, check=False)
    assert [s.deal.actions for s in again.history] == [s.deal.actions for s in match.history]
    assert [s.scores for s in again.history] == [s.scores for s in match.history]
    assert again.totals == match.totals
    assert again.winners == match.winners
