"""The observation encoding: documented layout, incremental == reference, round trips, and leaks."""

from __future__ import annotations

import itertools
import random
import re

import numpy as np
import pytest

from hearts_env import PRESETS, Rules
from hearts_env.core import IllegalActionError
from hearts_env.core.actions import LEAD_HEART, PASS_FROM_HAND, PASS_THROUGH
from hearts_env.core.deal import PASSING, PLAYING
from hearts_env.core.rulesets import sample_rules
from hearts_env.envs.aec import raw_env
from hearts_env.obs import (
    OBSERVATION_SIZE,
    OFFSETS,
    RULE_FEATURES,
    SEGMENTS,
    decode_observation,
    encode,
    encode_view,
    live_columns,
    observation_bounds,
    seat_view,
)
from hearts_env.obs import spec as encoding

RANDOM_RULES = [sample_rules(seed) for seed in range(60)]


def play_random(env: raw_env, rng: random.Random, limit: int = 10_000, prefer: int | None = None):
    """Step ``env`` with random legal actions (``prefer`` whenever it is legal), yielding after
    every step."""
    steps = 0
    while env.agents and steps < limit:
        agent = env.agent_selection
        if env.terminations[agent]:
            env.step(None)
            continue
        legal = np.flatnonzero(env.observe(agent)["action_mask"]).tolist()
        env.step(prefer if prefer in legal else rng.choice(legal))
        steps += 1
        yield


def describe(a: np.ndarray, b: np.ndarray) -> list[str]:
    out = []
    for i in np.flatnonzero(a != b)[:6]:
        seg = next(s for s in SEGMENTS if OFFSETS[s.name] <= i < OFFSETS[s.name] + s.size)
        k = i - OFFSETS[seg.name]
        out.append(f"{seg.name}[{k // seg.width}][{k % seg.width}]: {a[i]} != {b[i]}")
    return out


# ---------------------------------------------------------------------------------------------
# layout and documentation
# ---------------------------------------------------------------------------------------------


def test_docstring_table_matches_segments() -> None:
    doc = encoding.__doc__
    assert doc is not None
    rows = re.findall(r"^\| `(\w+)` \| ([0-9×]+) \|", doc, flags=re.MULTILINE)
    documented = [(name, eval(size.replace("×", "*"))) for name, size in rows]
    assert documented == [(s.name, s.size) for s in SEGMENTS]
    assert f"``OBSERVATION_SIZE`` ({OBSERVATION_SIZE:,})" in doc
    assert sum(s.size for s in SEGMENTS) == OBSERVATION_SIZE
    assert len(RULE_FEATURES) == next(s.size for s in SEGMENTS if s.name == "rules")


def test_aec_docstring_states_the_sizes() -> None:
    from hearts_env.envs import aec

    assert f"(2,{OBSERVATION_SIZE % 1000:03d}" in (aec.__doc__ or "")
    assert f"({OBSERVATION_SIZE},)" in (aec.__doc__ or "")


def test_size_is_fixed_across_rule_sets() -> None:
    for rules in [Rules.preset(p) for p in PRESETS] + RANDOM_RULES[:6]:
        env = raw_env(rules=rules)
        env.reset(seed=1)
        assert env.observe(env.agent_selection)["observation"].shape == (OBSERVATION_SIZE,)


def test_rules_block_distinguishes_rule_sets() -> None:
    blocks: dict[bytes, list[str]] = {}
    for p in PRESETS:
        blocks.setdefault(encoding.rules_block(Rules.preset(p)).tobytes(), []).append(p)
    # Only the pass cycle is not encoded (the deal's own pass kind is): these two differ in nothing else.
    assert [names for names in blocks.values() if len(names) > 1] == [["five_player", "five_player_long_cycle"]]


def test_decode_rejects_other_rules_and_bad_shapes() -> None:
    env = raw_env(rules="standard")
    env.reset(seed=0)
    vec = env.observe("player_0")["observation"]
    with pytest.raises(ValueError, match="other rules"):
        decode_observation(vec, Rules.preset("omnibus"))
    with pytest.raises(ValueError, match="shape"):
        decode_observation(vec[:-1], Rules())


# ---------------------------------------------------------------------------------------------
# the incremental encoder equals the reference encoder, and round trips
# ---------------------------------------------------------------------------------------------


def check_episode(
    rules: Rules, episode: str, seed: int, limit: int = 10_000, options: dict | None = None, prefer: int | None = None
) -> int:
    env = raw_env(rules=rules, episode=episode)
    env.reset(seed=seed, options=options)
    low, high = observation_bounds()
    n = rules.num_players
    padding = np.setdiff1d(np.arange(OBSERVATION_SIZE), live_columns(n))
    steps = 0
    rng = random.Random(seed)
    for _ in itertools.chain([None], play_random(env, rng, limit, prefer)):
        for seat in range(n):
            fast = env.observe(f"player_{seat}")["observation"]
            view = seat_view(env.deal, seat, env.match)
            ref = encode_view(view, rules)
            assert np.array_equal(fast, ref), (seat, steps, describe(fast, ref))
            assert decode_observation(fast, rules) == view
            assert np.all(fast >= low) and np.all(fast <= high)
            assert not fast[padding].any(), "an entry outside live_columns(N) is nonzero"
        steps += 1
    return steps


@pytest.mark.parametrize("preset", PRESETS)
def test_incremental_equals_reference_presets(preset: str) -> None:
    rules = Rules.preset(preset)
    for seed in range(2):
        check_episode(rules, "deal", seed)


@pytest.mark.parametrize("index", range(len(RANDOM_RULES)))
def test_incremental_equals_reference_random_rules(index: int) -> None:
    check_episode(RANDOM_RULES[index], "deal", index)
    check_episode(RANDOM_RULES[index], "match", index, limit=150)


@pytest.mark.parametrize("preset", ["standard", "omnibus", "three_player_kitty", "pagat_main"])
def test_incremental_equals_reference_match(preset: str) -> None:
    check_episode(Rules.preset(preset, game_end_threshold=40), "match", 3)


@pytest.mark.parametrize(
    "options",
    [
        {"allow_pass_through": True, "pass_through_visible": True, "pass_cycle": ["left", "across"]},
        {"allow_pass_through": True, "pass_cycle": ["right"]},
        {"pass_cycle": ["dealer_choice"], "allow_pass_through": True},
        {"pass_cycle": ["smoosh"]},
        {"pass_cycle": ["scatter"], "pass_count": 3},
        {"pass_cycle": ["hold"], "all_hearts_leader_unbroken": "leader_may_void", "num_players": 8},
        {"num_players": 5, "deal_remainder": "kitty", "kitty_taker": "one_card_per_trick"},
        {"num_players": 7, "deal_remainder": "kitty", "kitty_taker": "first_penalty_taker"},
    ],
)
def test_incremental_equals_reference_passing_variants(options: dict) -> None:
    rules = Rules.from_dict(options)
    for seed in range(3):
        check_episode(rules, "deal", seed)


@pytest.mark.parametrize("episode", ["deal", "match"])
def test_incremental_equals_reference_through_a_declined_void(episode: str) -> None:
    """An all-hearts leader declines to void the deal and leads hearts (the flag clears after the trick)."""
    rules = Rules.from_dict(
        {
            "all_hearts_leader_unbroken": "leader_may_void",
            "pass_cycle": ["hold"],
            "first_lead": "eldest_any_card",
            "game_end_threshold": 30,
        }
    )
    hands = [[s + 13 * suit for s in range(13)] for suit in (0, 3, 1, 2)]  # seat 1, eldest, holds every heart
    assert check_episode(rules, episode, 0, limit=200, options={"hands": hands, "dealer": 0}, prefer=LEAD_HEART) > 52


@pytest.mark.parametrize("preset", ["pagat_main", "omnibus", "standard"])
@pytest.mark.parametrize("episode", ["deal", "match"])
def test_incremental_equals_reference_through_a_moon(preset: str, episode: str) -> None:
    """Seat 1 holds every club and leads them all: it takes every trick, every heart and the queen."""
    rules = Rules.preset(preset, pass_cycle=["hold"], game_end_threshold=60, sun_enabled=preset == "standard")
    hands = [[c + 13 * suit for c in range(13)] for suit in (2, 0, 1, 3)]
    check_episode(rules, episode, 0, limit=120, options={"hands": hands, "dealer": 0})
    env = raw_env(rules=rules)
    env.reset(seed=0, options={"hands": hands, "dealer": 0})
    for _ in play_random(env, random.Random(0)):
        pass
    assert env.deal.result is not None and env.deal.result.shooter == 1


def test_encode_decode_round_trip_over_views() -> None:
    rng = random.Random(5)
    for rules in RANDOM_RULES[:8]:
        env = raw_env(rules=rules)
        env.reset(seed=rng.randrange(1000))
        for _ in play_random(env, rng):
            seat = rng.randrange(rules.num_players)
            vec = encode(env.deal, seat, env.match)
            view = decode_observation(vec, rules)
            assert np.array_equal(encode_view(view, rules), vec)


# ---------------------------------------------------------------------------------------------
# leaks
# ---------------------------------------------------------------------------------------------


def record_deal(rules: Rules, seed: int, stop: int) -> tuple[raw_env, list[int]]:
    """A deal played at random for ``stop`` actions; the env and the actions."""
    env = raw_env(rules=rules)
    env.reset(seed=seed)
    rng = random.Random(seed)
    actions: list[int] = []
    while len(actions) < stop and not env.deal.is_terminal():
        mask = env.observe(env.agent_selection)["action_mask"]
        action = int(rng.choice(np.flatnonzero(mask)))
        env.step(action)
        actions.append(action)
    return env, actions


def replay(rules: Rules, seed: int, hands: list[list[int]], kitty: list[int], dealer: int, kind: str, actions):
    """Replay ``actions`` on explicit hands; the list of every seat's observations after each step,
    or ``None`` if some action is illegal there."""
    env = raw_env(rules=rules)
    env.reset(seed=seed, options={"hands": hands, "kitty": kitty, "dealer": dealer, "pass_kind": kind})
    n = rules.num_players
    history = [[env.observe(f"player_{p}")["observation"] for p in range(n)]]
    for action in actions:
        try:
            env.step(action)
        except IllegalActionError:
            return None
        history.append([env.observe(f"player_{p}")["observation"] for p in range(n)])
    return history


def cards(mask: int) -> list[int]:
    return [c for c in range(52) if mask >> c & 1]


LEAK_RULES = [
    Rules(),
    Rules.preset("three_player_kitty"),
    Rules.preset("omnibus"),
    Rules.from_dict({"num_players": 5, "deal_remainder": "kitty", "pass_cycle": ["smoosh"]}),
    Rules.from_dict({"allow_pass_through": True, "pass_cycle": ["left"]}),
    Rules.from_dict({"pass_cycle": ["scatter"], "num_players": 4, "pass_count": 3}),
]


@pytest.mark.parametrize("rules", LEAK_RULES, ids=lambda r: f"{r.num_players}p-{r.deal_remainder}-{r.pass_cycle}")
def test_swapping_hidden_cards_does_not_change_the_observation(rules: Rules) -> None:
    """Swap cards between the hidden hands (and the kitty) of the seats other than the observer:
    wherever the same actions stay legal, the observer's observations never change."""
    n = rules.num_players
    rng = random.Random(11)
    compared = 0
    for trial in range(40):
        stop = rng.randrange(5, rules.tables.hand_size * n)
        env, actions = record_deal(rules, trial, stop)
        deal = env.deal
        observer = rng.randrange(n)
        others = [p for p in range(n) if p != observer]
        # cards each other seat still holds, was dealt, and has not chosen to pass
        # (clubs up to the opening card stay put: who holds the opening card is public, it must be led)
        public = set(range(deal.opening_card + 1)) if deal.opening_card >= 0 else {0, 1}
        hidden = {
            p: [c for c in cards(deal.hands[p] & deal.dealt_hands[p]) if c not in deal.chosen[p] and c not in public]
            for p in others
        }
        holders = [p for p in others if hidden[p]]
        hidden[-1] = [c for c in deal.kitty_cards if c not in public]
        if hidden[-1]:
            holders.append(-1)
        if len(holders) < 2:
            continue
        a, b = rng.sample(holders, 2)
        x, y = rng.choice(hidden[a]), rng.choice(hidden[b])
        hands = [cards(h) for h in deal.dealt_hands]
        kitty = list(deal.kitty_cards)
        for holder, old, new in ((a, x, y), (b, y, x)):
            pile = kitty if holder == -1 else hands[holder]
            pile[pile.index(old)] = new
        original = replay(rules, trial, [cards(h) for h in deal.dealt_hands], list(deal.kitty_cards),
                          deal.dealer, deal.cycle_kind, actions)  # fmt: skip
        swapped = replay(rules, trial, hands, kitty, deal.dealer, deal.cycle_kind, actions)
        assert original is not None
        if swapped is None:
            continue  # the swap made an earlier action illegal (say, a discard now able to follow)
        for step, (before, after) in enumerate(zip(original, swapped, strict=True)):
            assert np.array_equal(before[observer], after[observer]), (
                step,
                describe(before[observer], after[observer]),
            )
        compared += 1
    assert compared >= 10


def passing_rules() -> list[Rules]:
    return [
        Rules.from_dict({"pass_cycle": ["left"]}),
        Rules.from_dict({"pass_cycle": ["scatter"], "pass_count": 3}),
        Rules.from_dict({"pass_cycle": ["smoosh"], "num_players": 5}),
        Rules.from_dict({"pass_cycle": ["right"], "allow_pass_through": True}),
        Rules.from_dict({"pass_cycle": ["dealer_choice"], "num_players": 3}),
    ]


def own_pass_entries() -> np.ndarray:
    """The entries a seat's own pass choices change: its ``passed_to`` rows and its own
    ``pass_through`` flag."""
    start = OFFSETS["passed_to"]
    return np.concatenate([np.arange(start, start + 9 * 52), [OFFSETS["pass_through"]]])


def passing_views(rules: Rules, seed: int, choice_seed: int, through: bool) -> list[list[np.ndarray]]:
    """Every seat's observation before each passing decision (and after the last). Checks on the
    way that each seat's view of passed cards is exactly its own choices so far."""
    env = raw_env(rules=rules)
    env.reset(seed=seed)
    rng = random.Random(choice_seed)
    n = rules.num_players
    views = []
    while env.deal.phase != PLAYING and not env.deal.is_terminal():
        views.append([env.observe(f"player_{p}")["observation"] for p in range(n)])
        for p in range(n):
            view = decode_observation(views[-1][p], rules)
            assert sorted(c for c, _ in view.passed) == sorted(env.deal.chosen[p])
            assert view.pass_through[1:] == (False,) * (n - 1)
        legal = np.flatnonzero(env.observe(env.agent_selection)["action_mask"]).tolist()
        if env.deal.phase != PASSING:
            action = legal[0]  # the dealer's announcement is public: the same in every run
        elif PASS_FROM_HAND in legal:
            action = PASS_THROUGH if through else PASS_FROM_HAND
        else:
            action = rng.choice(legal)
        env.step(action)
    views.append([env.observe(f"player_{p}")["observation"] for p in range(n)])
    return views


@pytest.mark.parametrize("rules", passing_rules(), ids=lambda r: str(r.pass_cycle))
def test_chosen_pass_cards_stay_hidden_until_the_pass_resolves(rules: Rules) -> None:
    """Two runs of the same deal in which every seat chooses other cards: until the cards move,
    each seat's observations differ between the runs only in its own choices."""
    hidden = own_pass_entries()
    for seed in range(3):
        run0 = passing_views(rules, seed, 100 + seed, through=False)
        run1 = passing_views(rules, seed, 200 + seed, through=False)
        assert len(run0) == len(run1)
        for step in range(len(run0) - 1):  # the last entry is after the pass resolved
            for a, b in zip(run0[step], run1[step], strict=True):
                assert np.array_equal(np.delete(a, hidden), np.delete(b, hidden)), (step, describe(a, b))
        assert any(
            not np.array_equal(a, b)
            for step in range(len(run0) - 1)
            for a, b in zip(run0[step], run1[step], strict=True)
        )


def test_pass_through_declarations_stay_hidden_until_the_pass_resolves() -> None:
    rules = Rules.from_dict({"pass_cycle": ["left"], "allow_pass_through": True})
    from_hand = passing_views(rules, 7, 1, through=False)
    through = passing_views(rules, 7, 1, through=True)
    # With everyone passing through nothing moves and there are 4 decisions; the other run has 16.
    # Before each seat's own turn, its view is the same in both runs.
    assert len(through) == 5 and len(from_hand) == 17
    env = raw_env(rules=rules)
    env.reset(seed=7)
    order = env.deal.pass_order
    for k, seat in enumerate(order):
        a, b = through[k][seat], from_hand[4 * k][seat]
        assert np.array_equal(a, b), describe(a, b)
        view = decode_observation(through[k + 1][seat], rules)
        assert view.pass_through == (True,) + (False,) * 3 or k == 3


def test_smoosh_sources_and_pass_through_packets_stay_hidden() -> None:
    smoosh = raw_env(rules={"pass_cycle": ["smoosh"]})
    smoosh.reset(seed=3)
    for _ in play_random(smoosh, random.Random(0), limit=13):
        pass
    for p in range(4):
        view = smoosh.seat_view(f"player_{p}")
        assert all(src is None for _, src in view.received) and len(view.received) == 3
        assert all(dst is None for _, dst in view.passed)

    for visible in (False, True):
        env = raw_env(rules={"pass_cycle": ["left"], "allow_pass_through": True, "pass_through_visible": visible})
        env.reset(seed=4)
        # seat order from eldest: the first seat declares through, the others pass from hand
        first = True
        while env.deal.phase == PASSING:
            legal = np.flatnonzero(env.observe(env.agent_selection)["action_mask"]).tolist()
            if PASS_THROUGH in legal:
                env.step(PASS_THROUGH if first else PASS_FROM_HAND)
                first = False
            else:
                env.step(legal[0])
        through = env.deal.pass_through.index(True)
        view = env.seat_view(f"player_{through}")
        assert view.received == () and view.passed == ()
        packet = [c for c, _ in env.deal.passed[(through - 1) % 4]]
        assert view.forwarded == (tuple(sorted(packet)) if visible else ())
        assert sum(env.seat_view(f"player_{p}").pass_through.count(True) for p in range(4)) == 4


def test_kitty_cards_never_appear() -> None:
    rules = Rules.preset("three_player_kitty")
    for seed in range(6):
        env = raw_env(rules=rules)
        env.reset(seed=seed)
        kitty = env.deal.kitty_cards
        for _ in itertools.chain([None], play_random(env, random.Random(seed))):
            for p in range(3):
                vec = env.observe(f"player_{p}")["observation"]
                for name in ("hand", "played_by", "won_by", "trick", "passed_to", "received_from", "forwarded"):
                    block = encoding.segment(vec, name)
                    assert not block[:, kitty].any(), name
        assert sum(env.seat_view("player_0").kitty_taken) == len(kitty)


def test_decode_observation_takes_a_preset_name_or_a_rule_file(tmp_path) -> None:
    env = raw_env(rules="omnibus")
    env.reset(seed=3)
    vector = env.observe(env.agent_selection)["observation"]
    expected = decode_observation(vector, Rules.preset("omnibus"))
    path = tmp_path / "mine.toml"
    path.write_text(Rules.preset("omnibus").to_toml())
    assert decode_observation(vector, "omnibus") == expected
    assert decode_observation(vector, path) == expected
    assert decode_observation(vector, str(path)) == expected
    with pytest.raises(ValueError, match="other rules"):
        decode_observation(vector, "standard")
