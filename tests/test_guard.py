"""The moon guard (``hearts_env.bots.guard``): its rollout's seeker plays as the suite's seeker, the
trigger reads only the view, the relative objective of PIMC, the specs, and that it stops moons."""

from __future__ import annotations

import copy
import pickle
import random
from collections.abc import Callable, Iterator
from types import SimpleNamespace
from typing import Any

import numpy as np
import pytest

from hearts_env.bots import MoonSeeker, legal_actions, make_bot
from hearts_env.bots.guard import SHOOT_SCREEN, GuardedBot, GuardSearch, SeekerRollout, guard_bot
from hearts_env.bots.rollout import view_voids
from hearts_env.bots.scripted import parse_moon_spec
from hearts_env.bots.search import PIMCBot
from hearts_env.core import Rules
from hearts_env.core.actions import MOON_ADD, MOON_SUBTRACT
from hearts_env.core.deal import DONE, MOON_CHOICE, PLAYING, Deal, seeded_deal
from hearts_env.obs import SeatedTable, SeatView, decode_observation, seat_view
from hearts_env.tournament import run_tournament

PRESETS = ["standard", "omnibus", "three_player_kitty", "six_to_eight", "spot_hearts", "microsoft"]


def _turns(rules: Rules, seed: int) -> Iterator[tuple[Deal, int, dict[str, np.ndarray], SeatedTable]]:
    """The seeded deal at each of its decisions: (deal, seat to move, its observation, the table); the
    caller applies the action."""
    deal = seeded_deal(rules, seed)
    table = SeatedTable(rules)
    table.start(deal)
    while deal.phase != DONE:
        seat = deal.current_player
        yield deal, seat, table.observation(seat), table


@pytest.mark.parametrize("preset", PRESETS)
def test_the_rollouts_seeker_plays_as_the_suites_late_seeker(preset: str) -> None:
    """At every play decision with a choice of the seeker's seat, ``SeekerRollout`` picks what
    ``moon:giveup=late`` picks (which plays as the heuristic bot once its moon is gone)."""
    rules = Rules.load(preset)
    n = rules.num_players
    rng = random.Random(3)
    checked = alive = 0
    for d in range(10):
        seeker = d % n
        bot = MoonSeeker(rules, options=parse_moon_spec("moon:giveup=late"))
        fast = SeekerRollout(rules, seeker)
        others = [make_bot("heuristic", rules) for _ in range(n)]
        for deal, seat, obs, table in _turns(rules, 500 + d):
            if seat == seeker:
                want = bot.act(obs)
                if deal.phase == PLAYING and len(deal.legal_actions()) > 1:
                    relative = view_voids(seat_view(deal, seat).void_in)
                    voids = [relative[(p - seat) % n] for p in range(n)]
                    assert fast.decide(deal, voids) == want, (preset, d, deal.trick)
                    checked += 1
                    alive += fast.alive(deal)
                action = want
            else:
                action = others[seat].act(obs) if rng.random() < 0.85 else rng.choice(deal.legal_actions())
            table.apply(action)
    assert checked > 40 and 0 < alive < checked  # both halves of its play are checked


def test_pimc_relative_objective_scores_the_seats_standing() -> None:
    rules = Rules.load("standard")
    points, relative = PIMCBot(rules, 0), PIMCBot(rules, 0, objective="relative")
    moon = SimpleNamespace(scores=[0, -26, 0, 0])  # seat 1 shot the moon (subtract_from_shooter)
    assert points.score(moon) == 0 and relative.score(moon) == pytest.approx(26 / 3)  # type: ignore[arg-type]
    plain = SimpleNamespace(scores=[3, 13, 10, 0])
    assert points.score(plain) == 3 and relative.score(plain) == pytest.approx(3 - 23 / 3)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="objective"):
        make_bot("pimc:objective=winning", rules)
    with pytest.raises(ValueError, match="objective"):
        make_bot("ismcts:objective=relative", rules)
    assert make_bot("pimc:objective=relative", rules).objective == "relative"


def _guard_decisions(rules: Rules, spec: str, deals: int) -> tuple[GuardedBot, int]:
    guard = make_bot(spec, rules, seed=1)
    assert isinstance(guard, GuardedBot)
    seeker = make_bot("moon:giveup=never", rules)
    decisions = 0
    for d in range(deals):
        for deal, seat, obs, table in _turns(rules, 40 + d):
            if seat == 0:
                action = seeker.act(obs)
            else:
                action = guard.act(obs)
                decisions += 1
                view = decode_observation(obs["observation"], rules)
                holder = guard.holder(view)
                if holder is not None:  # the trigger, checked against the true deal
                    values = rules.tables.card_values
                    taken = [sum(max(0, values[c]) for c in row) for row in seat_view(deal, seat).won_by]
                    assert taken[holder] >= guard.points and sum(taken) == taken[holder]
            assert obs["action_mask"][action] == 1
            table.apply(action)
    return guard, decisions


def test_the_guard_fires_only_where_one_opponent_holds_every_point() -> None:
    guard, decisions = _guard_decisions(Rules.load("standard"), "guard:base=ppo-standard,worlds=4", 4)
    assert 0 < guard.guarded < decisions


def test_without_a_moon_the_guard_is_its_base() -> None:
    rules = Rules.load("standard", moon_enabled=False)
    guard = guard_bot("guard:base=heuristic:worlds=2", rules, 0, make_bot)
    base = make_bot("heuristic", rules)
    for _, _, obs, table in _turns(rules, 3):
        action = guard.act(obs)
        assert action == base.act(obs)
        table.apply(action)
    assert guard.guarded == 0


def test_guard_specs_copies_and_errors() -> None:
    rules = Rules.load("standard")
    bot = make_bot("guard:base=heuristic,worlds=3,points=13", rules, seed=2)
    assert isinstance(bot, GuardedBot) and bot.points == 13 and bot.search.worlds == 3
    assert bot.name == "guard:heuristic" and bot.search.objective == "relative"
    assert isinstance(make_bot("guard", rules).base, type(make_bot("ppo-robust", rules)))
    assert bot.search.penalty == 0 and make_bot("guard:base=heuristic,penalty=12.5", rules).search.penalty == 12.5
    clone = copy.deepcopy(bot)
    assert isinstance(pickle.loads(pickle.dumps(bot)), GuardedBot) and clone.points == 13
    for bad, reason in [
        ("guard:worlds=many", "whole number"),
        ("guard:depth=2", "unknown option"),
        ("guard:base=guard", "another guard"),
        ("guard:points=0", "at least 1"),
        ("guard:penalty=lots", "number of points"),
        ("guard:penalty=-1", "at least 0"),
        ("guard:penalty=inf", "at least 0"),
        ("guard:margin=wide", "number of points"),
        ("guard:margin=-0.5", "at least 0"),
        ("guard:margin=nan", "at least 0"),
        ("guard:threat=1.5", "between 0 and 1"),
        ("guard:threat=some", "share of worlds"),
        ("guard:wins=-1", "at least 0"),
        ("guard:wins=two", "whole number"),
        ("guard:base", "key=value"),
    ]:
        with pytest.raises(ValueError, match=reason):
            make_bot(bad, rules)
    with pytest.raises(ValueError, match="unknown bot"):
        make_bot("guard:base=nonsense-model", rules)
    # a search base takes the options after it that are not the guard's own
    searched = make_bot("guard:base=pimc:prior=ppo-robust:confident=0.95,worlds=3,points=2,penalty=4", rules, seed=1)
    assert isinstance(searched, GuardedBot) and isinstance(searched.base, PIMCBot)
    assert searched.base.confident == 0.95 and searched.base.prior is not None and searched.base.worlds == 48
    assert searched.search.worlds == 3 and searched.points == 2 and searched.search.penalty == 4
    searched = make_bot("guard:base=pimc:prior=ppo-robust,margin=1.5,worlds=3", rules, seed=1)
    assert isinstance(searched, GuardedBot) and searched.margin == 1.5 and searched.search.worlds == 3
    searched = make_bot("guard:base=pimc:prior=ppo-robust,wins=2,worlds=3", rules, seed=1)
    assert isinstance(searched, GuardedBot) and searched.wins == 2 and isinstance(searched.base, PIMCBot)
    assert bot.wins == 0 and make_bot("guard:base=heuristic,wins=3", rules).wins == 3  # type: ignore[attr-defined]
    with pytest.raises(ValueError, match="unknown option 'depth' for pimc"):
        make_bot("guard:base=pimc,depth=2", rules)
    with pytest.raises(ValueError, match="unknown option 'depth' for guard"):
        make_bot("guard:base=heuristic,depth=2", rules)


def _against_a_seeker(
    rules: Rules, deals: int
) -> Iterator[tuple[Deal, int, dict[str, np.ndarray], SeatedTable, SeatView]]:
    """The decisions of seats 1.. in seeded deals 70.. where seat 0 is a persistent moon seeker (its moves are
    applied here): (deal, seat, observation, table, the decoded view); the caller applies the action."""
    seeker = make_bot("moon:giveup=never", rules)
    for d in range(deals):
        for deal, seat, obs, table in _turns(rules, 70 + d):
            if seat == 0:
                table.apply(seeker.act(obs))
                continue
            yield deal, seat, obs, table, decode_observation(obs["observation"], rules)


def _true_high_wins(deal: Deal, player: int) -> int:
    """The tricks ``player`` (absolute) won with a queen or higher, from the whole deal's record."""
    n = deal.num_players
    return sum(
        1
        for t, winner in enumerate(deal.trick_winners)
        if winner == player and any(p == player and c % 13 >= 10 for p, c in deal.play_order[t * n : (t + 1) * n])
    )


@pytest.mark.parametrize("preset", ["standard", "three_player_kitty", "omnibus"])
def test_wins_waits_for_the_holder_to_win_tricks_high(preset: str) -> None:
    """``wins=K``: the guard fires where the plain trigger does and the holder has won at least ``K``
    tricks with a queen or higher (counted here from the deal's record, there from the seat's view);
    where fewer, the base plays, move for move."""
    rules = Rules.load(preset)
    n = rules.num_players
    plain = make_bot("guard:base=heuristic,worlds=2", rules, seed=3)
    waiting = make_bot("guard:base=heuristic,worlds=2,wins=2", rules, seed=3)
    base = make_bot("heuristic", rules)
    assert isinstance(plain, GuardedBot) and isinstance(waiting, GuardedBot)
    fired = held = 0
    for deal, seat, obs, table, view in _against_a_seeker(rules, 6):
        holder = plain.holder(view)
        want = None
        if holder is not None and _true_high_wins(deal, (seat + holder) % n) >= 2:
            want = holder
        assert waiting.holder(view) == want
        if holder is not None and want is None and len(legal_actions(obs)) > 1:
            assert waiting.act(obs) == base.act(obs)
            held += 1
        fired += want is not None
        table.apply(base.act(obs))
    assert fired > 0 and held > 0, (fired, held)  # both sides of the wait are exercised


def test_margin_and_threat_keep_the_bases_move_unless_the_search_sees_enough_at_stake() -> None:
    """``margin=M``, ``threat=T``: where the guard fires, the base's move stands unless the search scores
    another at least ``M`` points better or the base's move lets the holder shoot in a share ``T`` of the
    worlds. Same seed, same worlds: ``margin=0`` and ``threat=0`` play as the plain guard, a margin no
    relative result can reach plays as the base, and in between every move is one of the two, the
    search's exactly where the rule says so."""
    rules = Rules.load("standard")
    seeker = make_bot("moon:giveup=never", rules)
    base = make_bot("heuristic", rules)
    specs = {
        "plain": "guard:base=heuristic,worlds=4",
        **{m: f"guard:base=heuristic,worlds=4,margin={m}" for m in (0, 2, 99)},
    }
    specs |= {
        "threat0": "guard:base=heuristic,worlds=4,threat=0",
        "both": "guard:base=heuristic,worlds=4,margin=2,threat=0.5",
    }
    guards = {k: make_bot(v, rules, seed=5) for k, v in specs.items()}
    probe = make_bot("guard:base=heuristic,worlds=4", rules, seed=5)
    assert all(isinstance(g, GuardedBot) for g in (*guards.values(), probe))
    assert guards["plain"].margin is None and guards[2].margin == 2  # type: ignore[union-attr]
    kept = overridden = threatened = 0
    for d in range(5):
        for _, seat, obs, table in _turns(rules, 90 + d):
            if seat == 0:
                table.apply(seeker.act(obs))
                continue
            moves = {}
            for k, guard in guards.items():
                guard.search.reset(seat * 7919 + d)  # type: ignore[union-attr]
                moves[k] = guard.act(obs)
            probe.search.reset(seat * 7919 + d)  # type: ignore[union-attr]
            legal = legal_actions(obs)
            means = probe.search_values(decode_observation(obs["observation"], rules), legal)  # type: ignore[union-attr]
            own = base.act(obs)
            assert moves[0] == moves["plain"] == moves["threat0"] and moves[99] == own
            if means is not None and len(legal) > 1:
                best = min(legal, key=lambda a: (means[a], a))
                assert moves["plain"] == best
                if means[own] - means[best] >= 2:
                    assert moves[2] == best
                    overridden += own != best
                else:
                    assert moves[2] == own
                    kept += own != best
                shoots = probe.search.moon_share(own)  # type: ignore[union-attr]
                assert 0 <= shoots <= 1 and (shoots * 4).is_integer()
                at_stake = means[own] - means[best] >= 2 or shoots >= 0.5
                assert moves["both"] == (best if at_stake else own)
                threatened += own != best and shoots >= 0.5 and means[own] - means[best] < 2
            table.apply(moves[0])
    assert kept > 0 and overridden > 0 and threatened > 0, (kept, overridden, threatened)  # every branch is exercised
    assert guards[99].overridden == 0 < guards[99].guarded  # type: ignore[union-attr]
    assert guards[0].overridden <= guards[0].guarded  # type: ignore[union-attr]


def test_the_penalty_scores_only_the_holders_moon() -> None:
    rules = Rules.load("standard")
    search = GuardSearch(rules, 0, worlds=2, penalty=10)
    search.holder = 1
    moon = SimpleNamespace(scores=[0, -26, 0, 0], result=SimpleNamespace(shooter=1))
    other = SimpleNamespace(scores=[0, 0, -26, 0], result=SimpleNamespace(shooter=2))
    plain = SimpleNamespace(scores=[3, 13, 10, 0], result=SimpleNamespace(shooter=None))
    assert search.score(moon) == pytest.approx(26 / 3 + 10)  # type: ignore[arg-type]
    assert search.score(other) == pytest.approx(26 / 3)  # type: ignore[arg-type]  # not the holder: no penalty
    assert search.score(plain) == pytest.approx(3 - 23 / 3)  # type: ignore[arg-type]


def test_the_penalty_adds_its_points_times_the_holders_moon_rate() -> None:
    """Same seed, same worlds and rollouts: each action's value moves by ``penalty`` times the share of its
    worlds in which the holder shoots, so it is linear in the penalty, and somewhere it moves."""
    rules = Rules.load("standard")
    guards = {p: make_bot(f"guard:base=heuristic,worlds=6,penalty={p}", rules, seed=3) for p in (0, 5, 10)}
    moved = checked = 0
    for deal, seat, obs, table, view in _against_a_seeker(rules, 6):
        legal = legal_actions(obs)
        values = {}
        for p, guard in guards.items():
            assert isinstance(guard, GuardedBot)
            guard.search.reset(seat * 1000 + deal.trick_number)
            values[p] = guard.search_values(view, legal)
        if values[0] is not None:
            checked += 1
            for a in legal:
                step = values[5][a] - values[0][a]
                assert values[10][a] - values[0][a] == pytest.approx(2 * step, abs=1e-9)
                assert -1e-9 <= step <= 5 + 1e-9
                moved += step > 1e-9
        table.apply(guards[0].act(obs))
    assert checked > 5 and moved > 0, (checked, moved)


def test_the_guard_is_deterministic_under_a_seed_and_plays_in_tournaments() -> None:
    a = run_tournament(["guard:base=ppo-standard,worlds=3", "heuristic"], "standard", deals=4, seed=4, progress=False)
    b = run_tournament(["guard:base=ppo-standard,worlds=3", "heuristic"], "standard", deals=4, seed=4, progress=False)
    assert [(s.mean, s.moons) for s in a.bots] == [(s.mean, s.moons) for s in b.bots]


@pytest.mark.slow
def test_the_guard_stops_a_persistent_moon_seeker() -> None:
    """Over the same deals, a seeker that never gives up shoots far less often among three guarded
    models than among the three bare models."""
    rules = Rules.load("standard")
    specs = {"bare": "ppo-robust", "guarded": "guard:base=ppo-robust,worlds=16"}
    moons = {}
    for label, spec in specs.items():
        result = run_tournament(["moon:giveup=never", spec], rules, deals=12, seed=11, progress=False)
        moons[label] = result.bots[0].moons
    assert moons["bare"] >= 4, moons  # the seeker does shoot against the bare models
    assert moons["guarded"] <= moons["bare"] // 3, moons


def _true_moon_alive(rules: Rules, deal: Deal, seat: int) -> bool:
    """Whether ``seat`` (absolute) can still shoot, from the whole deal: no other seat has won a penalty card
    (or, where the moon needs it, the bonus card), and where the moon needs every trick, ``seat`` has them all."""
    t = rules.tables
    against = t.penalty_mask | (1 << t.bonus_card if rules.moon_requires_bonus_card and t.bonus_card >= 0 else 0)
    if any(pile & against & ~deal.kitty for p, pile in enumerate(deal.won) if p != seat):
        return False
    return not (rules.moon_requires_all_tricks and deal.tricks_won[seat] != deal.trick_number)


@pytest.mark.parametrize("preset", ["standard", "omnibus", "three_player_kitty"])
def test_shoot_plays_the_moon_plan_where_the_seats_moon_is_alive_and_wins_by_the_margin(preset: str) -> None:
    """``shoot=M``: where the seat's own moon is still possible (read from the view, checked here against the
    deal), the moon plan's best move is played if it scores at least ``M`` better than the base's move over the
    same worlds; everywhere else the guard plays as it does without ``shoot``. Same seeds, same worlds."""
    rules = Rules.load(preset, moon_requires_all_tricks=preset == "three_player_kitty")
    base = make_bot("heuristic", rules)
    shooting = make_bot("guard:base=heuristic,worlds=4,shoot=1", rules, seed=5)
    plain = make_bot("guard:base=heuristic,worlds=4", rules, seed=5)
    probe = make_bot("guard:base=heuristic,worlds=4", rules, seed=5)
    assert isinstance(shooting, GuardedBot) and isinstance(plain, GuardedBot) and isinstance(probe, GuardedBot)
    assert shooting.shoot == 1 and plain.shoot is None
    shot = kept = elsewhere = screened = 0
    for d in range(8):
        for deal, seat, obs, table in _turns(rules, 40 + d):
            view = decode_observation(obs["observation"], rules)
            alive = shooting.own_moon_alive(view)
            if view.phase == "playing":
                assert alive == _true_moon_alive(rules, deal, seat)
            for bot in (shooting, plain, probe):
                bot.search.reset(seat * 7919 + d)
            move = shooting.act(obs)
            legal = legal_actions(obs)
            if len(legal) > 1 and view.phase == "playing" and alive and probe.holder(view) is None:
                if not probe.search.moon_reachable(view, legal, *SHOOT_SCREEN):
                    assert move == base.act(obs)
                    screened += 1
                    table.apply(move)
                    continue
                moon, own_value = probe.search.plans(view, legal, base.act(obs))
                best = min(legal, key=lambda a: (moon[a], a))
                assert set(moon) == set(legal)
                if own_value - moon[best] >= 1:
                    assert move == best
                    shot += move != base.act(obs)
                else:
                    assert move == base.act(obs)
                    kept += 1
            else:
                assert move == plain.act(obs)
                elsewhere += 1
            table.apply(move)
    assert shot > 0 and elsewhere > 0 and screened > 0, (shot, kept, elsewhere, screened)
    # where the moon needs every trick, a seat that has them all and can still shoot went for it every time here
    assert kept > 0 or rules.moon_requires_all_tricks, (shot, kept, elsewhere, screened)
    assert shooting.shots >= shot


def test_shoot_spec_options_and_errors() -> None:
    rules = Rules.load("standard")
    bot = make_bot("guard:base=heuristic,shoot=2.5,wins=2", rules)
    assert isinstance(bot, GuardedBot) and bot.shoot == 2.5 and bot.wins == 2
    searched = make_bot("guard:base=pimc:worlds=8,shoot=3", rules)
    assert isinstance(searched, GuardedBot) and searched.shoot == 3 and isinstance(searched.base, PIMCBot)
    for bad, reason in [("guard:shoot=far", "number of points"), ("guard:shoot=-2", "at least 0")]:
        with pytest.raises(ValueError, match=reason):
            make_bot(bad, rules)
    moonless = make_bot("guard:base=heuristic,shoot=0", Rules.load("standard", moon_enabled=False))
    assert isinstance(moonless, GuardedBot) and not moonless.active  # no moon: the base, move for move


@pytest.mark.parametrize("preset", ["standard", "three_player_kitty"])
def test_a_stopping_rollout_ends_once_the_moon_is_lost_and_agrees_on_the_shot(preset: str) -> None:
    """The screen's rollouts stop at the end of the trick in which the seeker's moon is lost; played on to the
    end, the same world gives the same answer to "did the seeker shoot", and the seeker always is alive up to
    where the stopped one ended."""
    rules = Rules.load(preset)
    sampler = GuardSearch(rules, 0, worlds=1, penalty=0).sampler
    stopped_early = shots = 0
    for d in range(20):
        deal = seeded_deal(rules, 200 + d)
        table = SeatedTable(rules)
        table.start(deal)
        base = make_bot("heuristic", rules)
        while deal.phase != PLAYING:
            table.apply(base.act(table.observation(deal.current_player)))
        view = seat_view(deal, deal.current_player)
        legal = legal_actions(table.observation(deal.current_player))
        world = sampler.sample(view, random.Random(d), legal)
        full, cut = SeekerRollout(rules, 0), SeekerRollout(rules, 0)
        cut.stop = cut.dead
        whole = full.play_out(copy.deepcopy(world), view_voids(view.void_in))
        short = cut.play_out(copy.deepcopy(world), view_voids(view.void_in))
        shot = whole.result is not None and whole.result.shooter == 0
        assert (short.phase == DONE and short.result is not None and short.result.shooter == 0) == shot
        if short.phase != DONE:
            stopped_early += 1
            assert not short.trick and cut.dead(short)
            assert short.actions == whole.actions[: len(short.actions)]  # the same play up to the stop
        shots += shot
    assert stopped_early > 0, stopped_early


@pytest.mark.slow
def test_shoot_makes_the_guarded_model_shoot_the_moon() -> None:
    """The model alone almost never shoots; with ``shoot`` it does, over the same deals against three
    heuristic bots, and it takes fewer points per deal."""
    rules = Rules.load("standard")
    plain = run_tournament(["guard:base=ppo-tuned,worlds=8", "heuristic"], rules, deals=16, seed=7, progress=False)
    shooting = run_tournament(
        ["guard:base=ppo-tuned,worlds=8,shoot=2", "heuristic"], rules, deals=16, seed=7, progress=False
    )
    assert shooting.bots[0].moons > plain.bots[0].moons, (shooting.bots[0].moons, plain.bots[0].moons)
    assert shooting.bots[0].mean < plain.bots[0].mean, (shooting.bots[0].mean, plain.bots[0].mean)


class _Adds:
    """A base that always takes the highest action id: at the moon choice, ``MOON_ADD``."""

    name = "adds"

    def act(self, observation: dict[str, np.ndarray]) -> int:
        return int(legal_actions(observation)[-1])


def _moon_choices(rules: Rules, match_episode: bool, wanted: int) -> list[dict[str, np.ndarray]]:
    """Observations of a seat at its moon choice: a persistent seeker at seat 0 against three ducking bots."""
    seeker, duck = make_bot("moon:giveup=never", rules), make_bot("duck", rules)
    found: list[dict[str, np.ndarray]] = []
    for seed in range(400):
        deal = seeded_deal(rules, seed)
        table = SeatedTable(rules, match_episode=match_episode)
        table.start(deal)
        while deal.phase not in (DONE, MOON_CHOICE):
            seat = deal.current_player
            table.apply((seeker if seat == 0 else duck).act(table.observation(seat)))
        if deal.phase == MOON_CHOICE:
            found.append(table.observation(deal.current_player))
            if len(found) == wanted:
                break
    assert len(found) == wanted, len(found)
    return found


@pytest.mark.parametrize("match_episode", [False, True])
def test_the_guard_makes_the_moon_choice_by_the_heuristic_rule_not_the_base(match_episode: bool) -> None:
    """Under ``shooter_choice`` the guard chooses how its own moon scores as the heuristic bot does (subtract in a
    deal episode: -26 beats 0), whatever its base would choose."""
    rules = Rules.load("omnibus")
    guard = GuardedBot(_Adds(), rules, seed=0, worlds=2)  # type: ignore[arg-type]
    heuristic = make_bot("heuristic", rules)
    for obs in _moon_choices(rules, match_episode, 3):
        assert set(legal_actions(obs)) == {MOON_SUBTRACT, MOON_ADD}
        choice = guard.act(obs)
        assert choice == heuristic.act(obs)
        if not match_episode:
            assert choice == MOON_SUBTRACT and _Adds().act(obs) == MOON_ADD


def _replay_against_a_probe(
    rules: Rules, spec: str, seeds: range, watched: Callable[[Deal, SeatView, GuardedBot], bool]
) -> tuple[GuardedBot, int]:
    """Play the seeded deals with the guard of ``spec`` (base ``heuristic``, 4 worlds, seed 5) and check each decision:
    where ``watched`` (and the seat has a choice, at a play), the move is a same-seeded ``pimc`` probe's best if that
    scores at least 1 point better than the base's, else the base's; everywhere else the plain guard's move. Returns
    the guard and how many moves the search changed."""
    base = make_bot("heuristic", rules)
    guard = make_bot(spec, rules, seed=5)
    plain = make_bot("guard:base=heuristic,worlds=4", rules, seed=5)
    probe = PIMCBot(rules, 5, worlds=4, objective="points")
    assert isinstance(guard, GuardedBot) and isinstance(plain, GuardedBot)
    changed = kept = elsewhere = 0
    for d in seeds:
        for deal, seat, obs, table in _turns(rules, d):
            view = decode_observation(obs["observation"], rules)
            watching = watched(deal, view, guard)  # at every decision, so its own checks run at each
            for bot in (guard.critic, probe, guard.search, plain.search):
                assert bot is not None
                bot.reset(seat * 7919 + d)
            move = guard.act(obs)
            legal = legal_actions(obs)
            fires = plain.active and plain.holder(view) is not None
            if len(legal) > 1 and view.phase == "playing" and not fires and watching:
                means = probe.evaluate(view, legal)
                best = min(legal, key=lambda a: (means[a], a))
                own = base.act(obs)
                if means[own] - means[best] >= 1:
                    assert move == best
                    changed += move != own
                else:
                    assert move == own
                    kept += 1
            else:
                assert move == plain.act(obs)
                elsewhere += 1
            table.apply(move)
    assert changed > 0 and kept > 0 and elsewhere > 0, (changed, kept, elsewhere)
    return guard, changed


def test_bonus_plays_the_searchs_move_while_the_bonus_card_is_unwon_and_it_wins_by_the_margin() -> None:
    """``bonus=M`` (omnibus, ♦J at -10): while no pile holds the ♦J (read from the view, checked here against the
    deal), where the guard does not fire, the ``pimc`` search's best move is played if it scores at least ``M``
    better than the base's; everywhere else the guard plays as it does without ``bonus``. Same seeds, same worlds."""
    rules = Rules.load("omnibus")
    jack = rules.tables.bonus_card

    def unwon(deal: Deal, view: SeatView, guard: GuardedBot) -> bool:
        free = not any(pile >> jack & 1 for pile in deal.won)
        assert free == (not any(jack in row for row in view.won_by)) == guard.bonus_at_stake(view)
        return free

    watching, changed = _replay_against_a_probe(rules, "guard:base=heuristic,worlds=4,bonus=1", range(60, 66), unwon)
    assert watching.bonus == 1 and watching.bonus_plays == changed and watching.critic_plays == 0


def test_bonus_spec_options_and_errors() -> None:
    bot = make_bot("guard:base=heuristic,bonus=1.5,shoot=2", Rules.load("omnibus"))
    assert isinstance(bot, GuardedBot) and bot.bonus == 1.5 and bot.critic is not None
    # no bonus card, or one that costs its taker points: nothing to watch, the guard as without ``bonus``
    for rules in (Rules.load("standard"), Rules.load("omnibus", bonus_card_points=10)):
        unwatched = make_bot("guard:base=heuristic,bonus=1", rules)
        assert isinstance(unwatched, GuardedBot) and unwatched.critic is None
    watched = make_bot("guard:base=heuristic,bonus=1", Rules.load("source_diamond_ten"))
    assert isinstance(watched, GuardedBot) and watched.critic is not None
    for bad, reason in [
        ("guard:base=heuristic,bonus=lots", "number of points"),
        ("guard:base=heuristic,bonus=-1", "at least 0"),
    ]:
        with pytest.raises(ValueError, match=reason):
            make_bot(bad, Rules.load("omnibus"))
    with pytest.raises(ValueError, match="bonus"):
        make_bot("guard:depth=2", Rules.load("omnibus"))


@pytest.mark.parametrize(("rules_name", "overrides"), [("microsoft", {}), ("standard", {"moon_enabled": False})])
def test_critic_plays_the_searchs_move_at_every_play_where_it_wins_by_the_margin(
    rules_name: str, overrides: dict[str, Any]
) -> None:
    """``critic=M``: at every play where the moon guard does not fire (on rules with no moon too, where the guard
    never fires), the ``pimc`` search's best move is played if it scores at least ``M`` better than the base's;
    passes and the guard's own decisions are as without ``critic``. Same seeds, same worlds."""
    rules = Rules.load(rules_name, **overrides)
    critical, changed = _replay_against_a_probe(
        rules, "guard:base=heuristic,worlds=4,critic=1", range(80, 84), lambda deal, view, guard: True
    )
    assert critical.critique == 1 and critical.critic_plays == changed and critical.bonus_plays == 0


def test_critic_spec_options_and_errors() -> None:
    rules = Rules.load("omnibus")
    bot = make_bot("guard:base=heuristic,bonus=0.5,critic=2", rules)
    assert isinstance(bot, GuardedBot) and bot.critique == 2 and bot.critic is not None
    heuristic, margins = make_bot("heuristic", rules), set()
    for _, _, obs, table in _turns(rules, 1):
        view = decode_observation(obs["observation"], rules)
        margins.add((view.phase, bot.bonus_at_stake(view), bot.critic_margin(view)))
        table.apply(heuristic.act(obs))
    # the smaller margin while the bonus card is unwon, the critic's after; none at the pass
    assert {("playing", True, 0.5), ("playing", False, 2.0)} <= margins
    assert all(margin is None for phase, _, margin in margins if phase != "playing")
    anywhere = make_bot("guard:base=heuristic,critic=1", Rules.load("standard"))
    assert isinstance(anywhere, GuardedBot) and anywhere.critic is not None  # no bonus card needed
    for bad, reason in [
        ("guard:base=heuristic,critic=much", "number of points"),
        ("guard:base=heuristic,critic=-0.5", "at least 0"),
        ("guard:base=heuristic,critic=inf", "at least 0"),
    ]:
        with pytest.raises(ValueError, match=reason):
            make_bot(bad, rules)


def test_the_search_with_a_prior_searches_the_moon_choice_instead_of_trusting_the_model() -> None:
    """``pimc:prior=<model>`` plays the model's sure moves unsearched, but not the moon choice: the shipped mixed
    model adds +26 to the others with probability 0.9999, where subtracting scores 26 better in a deal episode."""
    rules = Rules.load("omnibus")
    bot = make_bot("pimc:prior=ppo-mixed-tuned,worlds=4", rules, seed=0)
    assert isinstance(bot, PIMCBot)
    for obs in _moon_choices(rules, False, 2):
        assert bot.prior_probabilities(obs)[MOON_ADD] > 0.99  # what the model would play
        assert bot.act(obs) == MOON_SUBTRACT
