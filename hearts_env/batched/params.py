"""The batched engine's parameters: a frozen, hashable digest of one ``hearts_env.Rules``.

The engine reads rules on every step of every row, so everything it needs is worked out once here, in
plain Python numbers: the deck, card values, masks, the pass cycle as integer codes, which special
actions can ever occur. Options that are off at this level are skipped by the engine's Python code
and cost nothing per step (the functional-environment style of Gymnasium's ``FuncEnv``: parameters
fixed, state a batch of tensors).

Pass kinds are integer codes: ``HOLD = 0``, ``1..7`` a single-target pass to the seat that many places
to the left, ``SCATTER``, ``SMOOSH``, and ``DEALER_CHOICE`` for a deal whose dealer has yet to choose.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..core.actions import CHOOSE_HOLD, CHOOSE_OFFSET_BASE, CHOOSE_SCATTER, CHOOSE_SMOOSH, pass_kind_action
from ..core.cards import HEARTS_MASK, NUM_CARDS, QS_BIT
from ..core.rules import Rules, canonical_pass_kind, pass_offset

# Phases: the same numbers as hearts_env.core.deal.
DEALER_CHOICE, PASSING, PLAYING, MOON_CHOICE, DONE = range(5)

# Pass-kind codes.
HOLD = 0
SCATTER = 8
SMOOSH = 9
DEALER_CHOICE_KIND = 10

#: Special actions (52..67) are kept as a 16-bit set beside the 52-bit card set: bit ``a - 52``.
SPECIAL_BASE = NUM_CARDS

NOT_POINTS_MASK = ((1 << NUM_CARDS) - 1) & ~(HEARTS_MASK | QS_BIT)


def kind_code(kind: str, num_players: int) -> int:
    """The integer code of a pass kind given as in RULES.md (``left``, ``offset:2``, ``smoosh``, ...)."""
    if kind == "dealer_choice":
        return DEALER_CHOICE_KIND
    offset = pass_offset(kind, num_players)
    if offset is not None:
        return offset
    return {"hold": HOLD, "scatter": SCATTER, "smoosh": SMOOSH}[kind]


def kind_name(code: int, num_players: int) -> str:
    """The canonical RULES.md spelling of a pass-kind code (the inverse of ``kind_code``)."""
    if code == DEALER_CHOICE_KIND:
        return "dealer_choice"
    if 1 <= code < num_players:
        return canonical_pass_kind(f"offset:{code}", num_players)
    return {HOLD: "hold", SCATTER: "scatter", SMOOSH: "smoosh"}[code]


def action_kind_code(action: int) -> int:
    """The pass-kind code a dealer's-choice action (54..63) announces."""
    if CHOOSE_OFFSET_BASE < action < CHOOSE_HOLD:
        return action - CHOOSE_OFFSET_BASE
    return {CHOOSE_HOLD: HOLD, CHOOSE_SCATTER: SCATTER, CHOOSE_SMOOSH: SMOOSH}[action]


@dataclass(frozen=True)
class BatchedParams:
    """Everything the batched engine reads from a rule set. Build it with ``BatchedParams.from_rules``."""

    rules: Rules
    num_players: int
    hand_size: int
    num_tricks: int
    kitty_size: int
    pass_count: int
    deck: tuple[int, ...]
    deck_mask: int
    card_values: tuple[int, ...]
    penalty_mask: int
    negative_mask: int  # cards of negative value (bonus cards): they survive a moon
    bonus_card: int  # -1 for none
    moon_value: int
    pass_cycle: tuple[int, ...]  # pass-kind codes
    dealer_choice_codes: tuple[int, ...]
    dealer_choice_special: int  # the dealer's legal set, as special bits
    lowest_club: int  # the opening card when there is no kitty
    # which mechanisms can occur at all (the engine skips the others)
    smoosh_reachable: bool  # random deals can meet a smoosh (the engine then draws its shuffle at the deal)
    can_declare: bool  # pass-through declarations
    can_leader_void: bool  # leader_may_void decisions
    can_auto_void: bool  # void_deal cancellations
    can_moon_choice: bool
    # play rules
    must_break: bool
    queen_breaks: bool
    queen_hearts_may_lead_heart: bool
    no_points_first: bool
    heart_before_queen: bool
    queen_safe: bool
    first_lead: str
    # scoring
    moon_enabled: bool
    moon_mode: str
    moon_requires_all_tricks: bool
    moon_requires_bonus_card: bool
    sun_enabled: bool
    sun_value: int
    no_tricks_adjustment: int
    no_tricks_adjustment_on_moon: bool
    game_end_threshold: int | None
    tie_counts_as_first: bool
    resets: tuple[tuple[int, int], ...]
    # deal sequence (what a finished deal is followed by)
    first_dealer: int  # -1 for random
    dealer_step: int
    void_advances_cycle: bool

    @property
    def smoosh_size(self) -> int:
        """Cards in a smoosh pool (the length of a row's smoosh permutation)."""
        return self.num_players * self.pass_count

    @classmethod
    def from_rules(cls, rules: Rules) -> BatchedParams:
        """Digest ``rules``. Every valid rule set is accepted: the batched engine plays every deal-level
        option of RULES.md. Raises ``RulesError`` (naming the option) for what it does not cover."""
        if not isinstance(rules, Rules):
            raise TypeError(f"rules must be a hearts_env.Rules, got {type(rules).__name__}")
        t = rules.tables
        n = rules.num_players
        values = t.card_values
        cycle = tuple(kind_code(k, n) for k in t.pass_cycle)
        choice_kinds = t.dealer_choice_kinds
        choice_codes = tuple(kind_code(k, n) for k in choice_kinds)
        choice_special = 0
        for kind in choice_kinds:
            choice_special |= 1 << (pass_kind_action(kind, n) - SPECIAL_BASE)
        # the kinds a randomly dealt deal can meet (explicit deals may bring any kind the rules allow)
        reachable = set(cycle) | (set(choice_codes) if DEALER_CHOICE_KIND in cycle else set())
        deck = tuple(t.deck)
        must_break = rules.hearts_must_be_broken
        return cls(
            rules=rules,
            num_players=n,
            hand_size=t.hand_size,
            num_tricks=t.num_tricks,
            kitty_size=t.kitty_size,
            pass_count=rules.pass_count,
            deck=deck,
            deck_mask=t.deck_mask,
            card_values=tuple(values),
            penalty_mask=t.penalty_mask,
            negative_mask=sum(1 << c for c in deck if values[c] < 0),
            bonus_card=t.bonus_card,
            moon_value=t.moon_value,
            pass_cycle=cycle,
            dealer_choice_codes=choice_codes,
            dealer_choice_special=choice_special,
            lowest_club=t.lowest_club if t.lowest_club >= 0 else min(deck),
            smoosh_reachable=SMOOSH in reachable,
            can_declare=rules.allow_pass_through,
            can_leader_void=must_break and rules.all_hearts_leader_unbroken == "leader_may_void",
            can_auto_void=must_break and rules.all_hearts_leader_unbroken == "void_deal",
            can_moon_choice=rules.moon_mode == "shooter_choice",
            must_break=must_break,
            queen_breaks=rules.queen_breaks_hearts,
            queen_hearts_may_lead_heart=rules.queen_and_hearts_only_may_lead_heart,
            no_points_first=rules.no_points_on_first_trick,
            heart_before_queen=rules.first_trick_points_fallback == "heart_before_queen",
            queen_safe=rules.queen_must_be_played_when_safe,
            first_lead=rules.first_lead,
            moon_enabled=rules.moon_enabled,
            moon_mode=rules.moon_mode,
            moon_requires_all_tricks=rules.moon_requires_all_tricks,
            moon_requires_bonus_card=rules.moon_requires_bonus_card,
            sun_enabled=rules.sun_enabled,
            sun_value=rules.sun_value,
            no_tricks_adjustment=rules.no_tricks_adjustment,
            no_tricks_adjustment_on_moon=rules.no_tricks_adjustment_on_moon,
            game_end_threshold=rules.game_end_threshold,
            tie_counts_as_first=rules.moon_conditional_tie_counts_as_first,
            resets=tuple(rules.exact_score_resets),
            first_dealer=-1 if rules.first_dealer == "random" else int(rules.first_dealer),
            dealer_step=1 if rules.dealer_rotation == "clockwise" else n - 1,
            void_advances_cycle=rules.void_deal_advances_pass_cycle,
        )


__all__ = [
    "DEALER_CHOICE",
    "DEALER_CHOICE_KIND",
    "DONE",
    "HOLD",
    "MOON_CHOICE",
    "PASSING",
    "PLAYING",
    "SCATTER",
    "SMOOSH",
    "BatchedParams",
    "action_kind_code",
    "kind_code",
    "kind_name",
]
