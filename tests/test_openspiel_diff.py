"""Differential test against OpenSpiel's ``hearts`` (``pyspiel.load_game("hearts", params)``).

Both engines play the same deal with the same randomly chosen actions; at every decision they must agree on
the seat to move and on the legal set, and at the end on every seat's points. Each OpenSpiel parameter maps
to our options (RULES.md §5 ``openspiel_default`` is OpenSpiel's defaults):

| OpenSpiel parameter                  | our option                                                          |
|--------------------------------------|---------------------------------------------------------------------|
| ``pass_cards=False``                 | ``passing_enabled=False``                                           |
| ``no_pts_on_first_trick``            | ``no_points_on_first_trick`` (fallback ``any_card``)                |
| ``can_lead_any_club``                | ``first_lead="opening_card_holder_any_club"``                       |
| ``can_lead_hearts_instead_of_qs``    | ``queen_and_hearts_only_may_lead_heart``                            |
| ``avoid_all_tricks_bonus``           | ``no_tricks_adjustment=-5``, ``no_tricks_adjustment_on_moon=False`` |
| ``qs_breaks_hearts``                 | ``queen_breaks_hearts``                                             |
| ``must_break_hearts``                | ``hearts_must_be_broken``                                           |
| ``jd_bonus``                         | ``bonus_card="JD"``, ``bonus_card_points=-10``                      |

What OpenSpiel does, as found by experiment with open-spiel 2.0.2 (and matching its ``hearts.cc``):

- Cards: OpenSpiel's id is ``rank * 4 + suit`` with suits C=0, D=1, H=2, S=3 and rank 0 = '2'; ours is
  ``suit * 13 + rank`` with suits C=0, D=1, S=2, H=3. Card names (``"QS"``) are the same in both.
- Seats: OpenSpiel's players 0..3 are N, E, S, W and play goes 0 → 1 → 2 → 3, as our seats do.
- Chance node 1 is the pass direction: 0 "No Pass", 1 "Left" (to player + 1), 2 "Across" (+ 2),
  3 "Right" (+ 3); ours are ``hold``, ``left``, ``across``, ``right`` with the same seat offsets. With
  ``pass_cards=False`` its ``legal_actions()`` is only 0, but ``chance_outcomes()`` still lists all four
  (and applying one does pass), so the direction is drawn from ``legal_actions()``.
- Then 52 chance actions, one per card: the i-th card dealt goes to player ``i % 4``.
- Passing: player 0 chooses its 3 cards one at a time, then player 1, 2, 3; the cards move when player 3 has
  chosen. Ours passes seat by seat from eldest hand (dealer + 1), so ``dealer=3`` makes the orders equal.
- Play starts with the holder of 2C.
- ``state.points(p)`` is the deal score of player p: card points (hearts 1, QS 13, JD -10 with ``jd_bonus``),
  a moon (every heart and QS, JD not needed) giving the shooter 0 (plus JD) and the others +26, and -5 for
  no trick (never on a moon deal). ``state.returns()[p] == 26 - points(p)`` (a reward to maximise).
  Our deal ``scores`` must equal ``points``.

Each of the 9 settings (the defaults, then each parameter toggled alone) plays ``DEALS_PER_SETTING`` deals
with random pass directions, and 1,000 more deals draw all eight parameters at random. Half of the deals
choose uniformly from the legal set; in the other half one seat plays its highest legal card and the others
their lowest (still legal choices), so that moons, the no-trick bonus and the JD occur often enough.

No setting shows a deliberate difference from RULES.md, so nothing is restricted.
"""

from __future__ import annotations

import random

import pytest

pyspiel = pytest.importorskip("pyspiel")

from hearts_env import Deal, Rules  # noqa: E402
from hearts_env.core.cards import CARD_NAMES, CLUBS, DIAMONDS, HEARTS, SPADES, card_id  # noqa: E402
from hearts_env.core.deal import PLAYING  # noqa: E402

DEALS_PER_SETTING = 3000
TOTAL_POSITIVE_POINTS = 26  # OpenSpiel: returns = 26 - points

OPENSPIEL_DEFAULTS = {
    "pass_cards": True,
    "no_pts_on_first_trick": True,
    "can_lead_any_club": False,
    "can_lead_hearts_instead_of_qs": False,
    "avoid_all_tricks_bonus": False,
    "qs_breaks_hearts": True,
    "must_break_hearts": True,
    "jd_bonus": False,
}

#: the default setting, then each parameter toggled on its own
SETTINGS = [{}] + [{name: not default} for name, default in OPENSPIEL_DEFAULTS.items()]

OUR_SUIT = {0: CLUBS, 1: DIAMONDS, 2: HEARTS, 3: SPADES}  # OpenSpiel suit -> ours
PASS_KIND = {0: "hold", 1: "left", 2: "across", 3: "right"}  # OpenSpiel pass direction -> our pass kind


def from_openspiel(action: int) -> int:
    """OpenSpiel card id (rank-major, C D H S) -> our card id (suit-major, C D S H)."""
    rank, suit = divmod(action, 4)
    return card_id(rank, OUR_SUIT[suit])


TO_OPENSPIEL = {from_openspiel(a): a for a in range(52)}


def our_rules(params: dict[str, bool]) -> Rules:
    """Our rule set for OpenSpiel's parameters (missing ones take OpenSpiel's defaults)."""
    p = {**OPENSPIEL_DEFAULTS, **params}
    options: dict[str, object] = {
        "passing_enabled": p["pass_cards"],
        "no_points_on_first_trick": p["no_pts_on_first_trick"],
        "first_trick_points_fallback": "any_card",
        "first_lead": "opening_card_holder_any_club" if p["can_lead_any_club"] else "opening_card_must_be_led",
        "queen_and_hearts_only_may_lead_heart": p["can_lead_hearts_instead_of_qs"],
        "no_tricks_adjustment": -5 if p["avoid_all_tricks_bonus"] else 0,
        "no_tricks_adjustment_on_moon": False,
        "queen_breaks_hearts": p["qs_breaks_hearts"],
        "hearts_must_be_broken": p["must_break_hearts"],
        "bonus_card": "JD" if p["jd_bonus"] else "none",
        "bonus_card_points": -10,
    }
    return Rules.preset("openspiel_default", **options)


def openspiel_hands(state) -> list[list[str]]:
    return [sorted(hand) for hand in state.to_dict()["hands"]]


def our_hands(deal: Deal) -> list[list[str]]:
    return [sorted(CARD_NAMES[c] for c in range(52) if hand >> c & 1) for hand in deal.hands]


def choose(deal: Deal, legal: list[int], rng: random.Random, greedy: int | None) -> int:
    """A uniformly random legal action; with ``greedy`` set, in play that seat plays its highest-ranked legal
    card and the others their lowest: moons (and tricks avoided) become common enough to compare their
    scoring. Every choice is from the legal set, so every decision is compared just the same."""
    if greedy is None or deal.phase != PLAYING:
        return rng.choice(legal)
    by_rank = sorted(legal, key=lambda c: (c % 13, rng.random()))
    return by_rank[-1] if deal.current_player == greedy else by_rank[0]


def play_both(game, rules: Rules, rng: random.Random) -> tuple[str, list[int], bool]:
    """Play one deal in both engines with the same random choices, comparing every decision.

    Returns the pass kind, the final points and whether someone shot the moon."""
    greedy = rng.choice([None, None, None, None, 0, 1, 2, 3])
    state = game.new_initial_state()
    assert state.is_chance_node()
    # The pass direction comes from legal_actions(): with pass_cards=False it is [0] ("No Pass"), while
    # chance_outcomes() still lists all four directions (an OpenSpiel quirk; applying one of them does pass).
    direction = rng.choice(state.legal_actions())
    state.apply_action(direction)
    deck = list(range(52))
    rng.shuffle(deck)
    for card in deck:
        assert state.is_chance_node()
        state.apply_action(card)
    hands = [[from_openspiel(c) for c in deck[p::4]] for p in range(4)]  # card i goes to player i % 4
    deal = Deal(rules, hands=hands, dealer=3, pass_kind=PASS_KIND[direction])
    assert our_hands(deal) == openspiel_hands(state)
    hands_checked = False

    while not deal.is_terminal():
        assert not state.is_terminal()
        assert not state.is_chance_node()
        if deal.phase == PLAYING and not hands_checked:  # after the pass: the same cards moved
            assert our_hands(deal) == openspiel_hands(state)
            hands_checked = True
        assert deal.current_player == state.current_player()
        legal = deal.legal_actions()
        theirs = sorted(from_openspiel(a) for a in state.legal_actions())
        assert legal == theirs, (
            f"seat {deal.current_player}, trick {deal.trick_number}: ours {[CARD_NAMES[c] for c in legal]} "
            f"openspiel {[CARD_NAMES[c] for c in theirs]}\n{state}"
        )
        if deal.phase == PLAYING and rules.hearts_must_be_broken:
            assert deal.hearts_broken == state.hearts_broken()
        action = choose(deal, legal, rng, greedy)
        deal.apply_action(action)
        state.apply_action(TO_OPENSPIEL[action])
    assert state.is_terminal()

    points = [state.points(p) for p in range(4)]
    assert list(deal.scores) == points, f"ours {deal.scores}, openspiel {points}\n{state}"
    assert list(state.returns()) == [TOTAL_POSITIVE_POINTS - p for p in points]
    return deal.pass_kind, points, deal.result.shooter is not None


def test_openspiel_defaults_match_our_preset() -> None:
    """OpenSpiel's default parameters are the ones mapped, and they map to our ``openspiel_default`` preset."""
    assert pyspiel.load_game("hearts").get_parameters() == OPENSPIEL_DEFAULTS
    assert our_rules({}) == Rules.preset("openspiel_default")


def test_card_encoding_round_trips() -> None:
    """The card mapping is a bijection that keeps card names (OpenSpiel's ``action_to_string``)."""
    state = pyspiel.load_game("hearts").new_initial_state()
    state.apply_action(0)
    assert sorted(TO_OPENSPIEL.values()) == list(range(52))
    for ours, theirs in TO_OPENSPIEL.items():
        assert state.action_to_string(theirs) == CARD_NAMES[ours]


@pytest.mark.parametrize(
    "params", SETTINGS, ids=lambda p: "defaults" if not p else ",".join(f"{k}={v}" for k, v in p.items())
)
def test_random_deals_match_openspiel(params: dict[str, bool]) -> None:
    """Same deal, same random actions: equal seat to move and legal set at every decision, equal points."""
    game = pyspiel.load_game("hearts", params)
    rules = our_rules(params)
    rng = random.Random(f"openspiel-diff {sorted(params.items())}")
    kinds, moons = set(), 0
    for _ in range(DEALS_PER_SETTING):
        kind, _points, moon = play_both(game, rules, rng)
        kinds.add(kind)
        moons += moon
    expected = {"hold"} if params.get("pass_cards", True) is False else {"hold", "left", "across", "right"}
    assert kinds == expected
    assert moons >= 5, "too few moons to compare their scoring"


def test_random_parameter_combinations_match_openspiel() -> None:
    """As above, with all eight parameters drawn at random for each deal."""
    rng = random.Random("openspiel-diff combinations")
    for _ in range(1000):
        params = {name: rng.random() < 0.5 for name in OPENSPIEL_DEFAULTS}
        play_both(pyspiel.load_game("hearts", params), our_rules(params), rng)
