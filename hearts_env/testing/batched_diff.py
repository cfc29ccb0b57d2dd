"""Differential play: the batched engine beside the reference engine (``hearts_env.Deal``), deal by deal.

``play_against_reference(rules, batch_size, deals=...)`` gives every row of a ``BatchedHearts`` a deal,
builds the same deal as a ``hearts_env.Deal`` (same hands, kitty, dealer, pass kind and totals before
the deal), plays both with the same uniformly random legal actions, and checks at every decision that
the seat to move and the legal set are identical (and, with ``observations=True``, the observation
vector equals ``hearts_env.env.encoding.encode``), and at every deal's end that the done flags,
cancellations and deal scores are identical. It follows each row through its automatic resets, so
the engine's own deals and deal sequence (dealer rotation, pass cycle, redeals) are checked too.

The smoosh shuffle is the one thing the two engines draw differently (a torch generator against
Python's ``random``): a deal that can smoosh is loaded into its row with the reference deal's shuffle
(``Deal.smoosh_permutation``), so both engines move the same cards.

With ``heuristic=True`` it checks ``engine.heuristic_actions`` against ``hearts_env.bots.HeuristicBot``
at every decision, over play that mixes the heuristic's choices with random ones (``heuristic_share``).

``check_batched_engine(engine_factory, rules, deals)`` runs both checks on an engine a user made.
The tests and the device checks use these; they raise ``AssertionError`` describing the first difference.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import torch

from ..batched.batch import BatchedHearts
from ..bots import HeuristicBot
from ..core.actions import NUM_ACTIONS, action_name, mask_array
from ..core.cards import cards_of, format_cards
from ..core.deal import Deal, mask_to_actions
from ..core.rules import Rules
from ..obs import OFFSETS, SEGMENTS, encode

#: Makes the engine under test: ``factory(rules, batch_size, device, seed)``. The engine must offer what
#: ``BatchedHearts`` does for these checks: a ``hearts_env.batched.BatchEngine`` (``legal_mask``,
#: ``current_player``, ``observe``, ``heuristic_actions``, ``step``, ...) with ``export(row)`` and ``load``.
EngineFactory = Callable[[Rules, int, "torch.device | str", int], BatchedHearts]


def default_engine(rules: Rules, batch_size: int, device: torch.device | str, seed: int) -> BatchedHearts:
    """The engine of this project: ``BatchedHearts(rules, batch_size, device=device, seed=seed)``."""
    return BatchedHearts(rules, batch_size, device=device, seed=seed)


def pass_kinds_of(rules: Rules) -> list[str]:
    """Every pass kind a deal of ``rules`` can be given (the cycle's, and every dealer's-choice kind)."""
    t = rules.tables
    kinds = list(dict.fromkeys(t.pass_cycle))
    if rules.passing_enabled:
        kinds += [k for k in t.dealer_choice_kinds if k not in kinds]
        kinds.append("dealer_choice")
    return kinds


@dataclass
class DiffReport:
    """What a differential run covered."""

    deals: int = 0
    decisions: int = 0
    steps: int = 0
    cancelled: int = 0
    observations: int = 0
    actions: Counter[int] = field(default_factory=Counter)  # special actions taken (52..67)
    pass_kinds: Counter[str] = field(default_factory=Counter)


def play_against_reference(
    rules: Rules,
    batch_size: int,
    *,
    deals: int | None = None,
    seed: int = 0,
    device: torch.device | str = "cpu",
    totals: bool = True,
    observations: bool = False,
    first_deals: list[dict[str, Any]] | None = None,
    heuristic: bool = False,
    heuristic_share: float = 1.0,
    max_steps: int = 100_000,
    engine_factory: EngineFactory = default_engine,
) -> DiffReport:
    """Play ``deals`` deals (default: one per row) through both engines and compare them (module doc).

    The first deal of each row is loaded with a pass kind (the kinds the rules allow, dealer's choice
    included, in a random order, row after row: every kind is played when there are at least as many
    rows as kinds), a random dealer and, with ``totals``, random totals before the deal for half the
    rows; or, for the first rows, the ``hearts_env.Deal`` keyword arguments in ``first_deals`` (hands,
    kitty, dealer, pass_kind, totals). Later deals are the engine's own automatic resets.

    With ``heuristic``, at every decision the engine's ``heuristic_actions`` must choose what
    ``hearts_env.bots.HeuristicBot`` chooses from the reference deal's observation
    (``hearts_env.obs.encode``) and mask; the heuristic's choice is played at a share
    ``heuristic_share`` of the decisions (1: always), a random legal action at the others, so the
    check covers the situations random play reaches as well as those the heuristic steers to.
    """
    if not 0.0 <= heuristic_share <= 1.0:
        raise ValueError(f"heuristic_share must be between 0 and 1, got {heuristic_share}")
    target = batch_size if deals is None else deals
    rng = random.Random(seed)
    engine = engine_factory(rules, batch_size, device, seed)
    n = rules.num_players
    kinds = pass_kinds_of(rules)
    kinds = rng.sample(kinds, len(kinds))
    report = DiffReport()
    refs: list[Deal | None] = [None] * batch_size
    # ---- first deals: explicit, with every pass kind
    rows, hands, kitties, dealers, pass_kinds, perms, tots = [], [], [], [], [], [], []
    for row in range(batch_size):
        spec = engine.export(row)
        kind = kinds[row % len(kinds)]
        dealer = rng.randrange(n)
        before = [rng.randrange(-30, 130) for _ in range(n)] if totals and rng.random() < 0.5 else [0] * n
        if first_deals is not None and row < len(first_deals):
            given = first_deals[row]
            spec = {"hands": given["hands"], "kitty": given.get("kitty")}
            kind = given.get("pass_kind") or rules.pass_kind_for_deal(0)
            dealer = given.get("dealer", 0)
            before = list(given.get("totals") or [0] * n)
        first = Deal(
            rules,
            seed=rng.getrandbits(32),
            hands=spec["hands"],
            kitty=spec["kitty"],
            dealer=dealer,
            pass_kind=kind,
            totals=before,
        )
        if first.is_terminal():  # cancelled before any decision: the row keeps the engine's own deal
            continue
        refs[row] = first
        rows.append(row)
        hands.append(spec["hands"])
        kitties.append(spec["kitty"])
        dealers.append(dealer)
        pass_kinds.append(kind)
        perms.append(first.smoosh_permutation())
        tots.append(before)
    if rows:
        engine.load(rows, hands, kitty=kitties, dealer=dealers, pass_kind=pass_kinds, smoosh_perm=perms, totals=tots)
    for row in range(batch_size):
        if refs[row] is None:
            refs[row] = _follow(engine, row, rng, report)
        else:
            report.pass_kinds[pass_kinds[rows.index(row)]] += 1
    bot = HeuristicBot(rules) if heuristic else None
    while report.deals < target:
        if report.steps >= max_steps:
            raise AssertionError(f"no end after {max_steps} steps ({report.deals} of {target} deals)")
        masks = np.packbits(engine.legal_mask().cpu().numpy(), axis=1, bitorder="little")
        legal_sets = [int.from_bytes(row.tobytes(), "little") for row in masks]
        current = engine.current_player.tolist()
        obs = engine.observe().cpu().numpy() if observations else None
        chosen = engine.heuristic_actions().tolist() if heuristic else None
        actions = []
        for row in range(batch_size):
            legal = legal_sets[row]
            ref = refs[row]
            if ref is not None:
                if legal != ref.legal_mask() or current[row] != ref.current_player:
                    raise AssertionError(
                        f"row {row}, decision {len(ref.actions)} of a {ref.pass_kind} deal: batched seat "
                        f"{current[row]} legal {mask_to_actions(legal)}, reference seat {ref.current_player} "
                        f"legal {ref.legal_actions()}\n  deal: {_describe(ref)}"
                    )
                if obs is not None:
                    expected = encode(ref, ref.current_player)
                    if not (obs[row] == expected).all():
                        raise AssertionError(_obs_difference(obs[row], expected, row, ref))
                    report.observations += 1
            choices = mask_to_actions(legal)
            if not choices or max(choices) >= NUM_ACTIONS:
                raise AssertionError(f"row {row}: empty or invalid legal set {choices}")
            if chosen is None or (heuristic_share < 1.0 and rng.random() >= heuristic_share):
                action = rng.choice(choices)
            else:
                action = chosen[row]
            if ref is not None and bot is not None and chosen is not None:
                observation = {"observation": encode(ref, ref.current_player), "action_mask": mask_array(legal)}
                expected_action = bot.act(observation)
                if expected_action != chosen[row]:
                    raise AssertionError(
                        f"row {row}, decision {len(ref.actions)}: the engine's heuristic chose {chosen[row]}, "
                        f"the reference bot {expected_action}\n  deal: {_describe(ref)}"
                    )
            if ref is not None:
                ref.apply_action(action)
                report.decisions += 1
                if action >= 52:
                    report.actions[action] += 1
            actions.append(action)
        result = engine.step(torch.tensor(actions, device=engine.device))
        report.steps += 1
        done = result.done.tolist()
        scores = result.scores.tolist()
        cancelled = result.cancelled.tolist()
        rewards = result.rewards.tolist()
        for row in range(batch_size):
            ref = refs[row]
            if ref is None:
                continue
            if done[row] != ref.is_terminal():
                raise AssertionError(
                    f"row {row}: batched done={done[row]} but reference terminal={ref.is_terminal()}\n"
                    f"  deal: {_describe(ref)}"
                )
            if not done[row]:
                continue
            if tuple(scores[row]) != ref.scores or cancelled[row] != ref.cancelled:
                raise AssertionError(
                    f"row {row}: batched scores {scores[row]} (cancelled {cancelled[row]}), reference "
                    f"{ref.scores} (cancelled {ref.cancelled}, {ref.result})\n  deal: {_describe(ref)}"
                )
            if rewards[row] != [-float(x) for x in ref.scores]:
                raise AssertionError(f"row {row}: rewards {rewards[row]} are not minus the scores {ref.scores}")
            report.deals += 1
            report.cancelled += int(ref.cancelled)
            refs[row] = _follow(engine, row, rng, report)
    return report


def _follow(engine: BatchedHearts, row: int, rng: random.Random, report: DiffReport) -> Deal:
    """The reference deal of the deal the engine has just started in ``row``. A deal that may smoosh
    is reloaded into the row with the reference deal's shuffle."""
    spec = engine.export(row)
    cycle_pos = spec.pop("cycle_pos")
    perm = spec.pop("smoosh_perm")
    ref = Deal(engine.rules, seed=rng.getrandbits(32), **spec)
    kind = spec["pass_kind"]
    if kind in ("smoosh", "dealer_choice"):
        wanted = ref.smoosh_permutation()
        if wanted != perm:
            engine.load(
                [row],
                [spec["hands"]],
                kitty=[spec["kitty"]],
                dealer=spec["dealer"],
                pass_kind=spec["pass_kind"],
                smoosh_perm=[wanted],
                totals=[spec["totals"]],
                cycle_pos=cycle_pos,
            )
    report.pass_kinds[kind] += 1
    return ref


def _describe(ref: Deal) -> str:
    hands = " | ".join(format_cards(cards_of(h)) for h in ref.dealt_hands)
    acts = " ".join(action_name(a) for a in ref.actions)
    return (
        f"dealer {ref.dealer}, pass kind {ref.cycle_kind}, kitty {format_cards(ref.kitty_cards)}, "
        f"totals {ref.totals_before}, hands {hands}; actions {acts}"
    )


def _obs_difference(got: Any, expected: Any, row: int, ref: Deal) -> str:
    diffs = []
    for seg in SEGMENTS:
        start = OFFSETS[seg.name]
        a = got[start : start + seg.size]
        b = expected[start : start + seg.size]
        if not (a == b).all():
            where = [i for i in range(seg.size) if a[i] != b[i]][:8]
            diffs.append(
                f"{seg.name} at {where}: got {[float(a[i]) for i in where]}, want {[float(b[i]) for i in where]}"
            )
    return f"row {row}, observation of seat {ref.current_player} differs: " + "; ".join(diffs) + f"\n  {_describe(ref)}"


def check_batched_engine(
    engine_factory: EngineFactory,
    rules: Rules | str,
    deals: int = 64,
    *,
    batch_size: int = 16,
    seed: int = 0,
    device: torch.device | str = "cpu",
    heuristic: bool = True,
) -> DiffReport:
    """Check an engine made by ``engine_factory`` against the reference engine over ``deals`` deals of
    ``rules`` (``pettingzoo.test.api_test`` in spirit): legal sets, seats to move, observations, done
    flags and scores under random play (every pass kind the rules allow, random totals), then, with
    ``heuristic``, ``heuristic_actions`` against ``HeuristicBot`` over half-heuristic, half-random
    play. Returns what the first run covered; raises ``AssertionError`` at the first difference."""
    rules = Rules.load(rules)
    report = play_against_reference(
        rules, batch_size, deals=deals, seed=seed, device=device, observations=True, engine_factory=engine_factory
    )
    if heuristic:
        play_against_reference(
            rules,
            batch_size,
            deals=deals,
            seed=seed + 1,
            device=device,
            heuristic=True,
            heuristic_share=0.5,
            engine_factory=engine_factory,
        )
    return report


__all__ = [
    "DiffReport",
    "EngineFactory",
    "check_batched_engine",
    "default_engine",
    "pass_kinds_of",
    "play_against_reference",
]
