"""Tournaments of any bots on any rule set, over duplicate deals, with 95% confidence intervals.

Used by training (evaluation at intervals, the model card) and by ``hearts tournament``. Needs numpy
only: the games are driven on the engine directly (no PettingZoo), and every bot receives exactly
the observation dict the AEC env would give its seat (``{"observation": vector, "action_mask":
int8 mask}``, from the env's ``ObservationEncoder``; ``tests/test_evaluate.py`` checks equality).

Method
------
*Duplicate deals.* Deal ``i`` is fixed by a seed ``s_i`` drawn from the tournament seed: the hands,
the dealer and the pass kind, drawn exactly as ``env.reset(seed=s_i)`` draws them in deal episodes
(the pass kind uniformly from the rule set's cycle). The lineup of ``N`` entries (one per seat) is
seated ``N`` times, rotated one seat each time (entry ``j`` sits at seat ``(j + r) % N`` in rotation
``r``), so every entry holds every hand of the deal from every seat, with the same pass. The ``N``
games of one deal form a *duplicate set*; the card luck cancels within a set.

*Points per deal.* Entries with the same spec form one bot (three ``random`` seats are one row).
A bot's sample for set ``i`` is its mean points over the set's games and its seats. Games within a
set are correlated (same cards); sets are independent. So the ``D`` set samples are the sample:
mean = their mean, standard error = sample standard deviation / sqrt(D), 95% interval = mean ±
t(0.975, D − 1) · se. ``differences`` give each bot minus the first bot, by the same method on the
paired per-set differences (tighter than comparing two intervals, since the luck is shared).

*Matches* (``matches=True``): set ``i`` is one match seed played ``N`` times rotated (a match's deals
follow from its seed, so every rotation sees the same hands in the same order as long as it lasts).
Points per deal are per-match points / counted deals, averaged per set as above. A match win is
shared equally by tied winners; a bot's win rate is its wins over the (match, seat) pairs it played,
with a Wilson score 95% interval that treats each pair as an independent trial (an approximation:
rotations of one set share their cards). The win rates of all seats sum to 1.

*Reproducible*: every game's bot seeds derive from (tournament seed, set, rotation, seat), so the
result does not depend on ``workers``.

    result = run_tournament(["heuristic", "random"], "standard", deals=2000, seed=0)
    print(result.table()); result.to_dict()

Command line: ``hearts tournament heuristic random --deals 2000``."""

from __future__ import annotations

import multiprocessing
import os
import sys
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from ..bots import lineup_of, make_bot, spec_label
from ..core import Rules
from ..core.deal import DONE, Deal
from ..core.match import Match
from ..core.presets import PRESETS
from ..obs import SeatedTable
from .results import BotStats, Difference, TournamentResult
from .seeding import deal_for_seed, deal_seeds, game_seed
from .stats import mean_interval, wilson_interval


@dataclass
class _SetOutcome:
    """Per entry of the lineup, for one duplicate set."""

    index: int
    points_per_deal: list[float]  # mean over rotations of the entry's points per deal
    deals: list[int]
    moons: list[int]
    wins: list[float]
    decisions: int


class _Table:
    """Plays duplicate sets for one lineup on one rule set, at one seated table."""

    def __init__(self, rules: Rules, bots: Sequence[Any], matches: bool) -> None:
        self.rules = rules
        self.bots = list(bots)
        self.matches = matches
        self.table = SeatedTable(rules, match_episode=matches)
        self._resets = [getattr(b, "reset", None) for b in self.bots]

    def _play(self, game: Deal | Match, seat_bots: Sequence[Any]) -> int:
        """Play ``game`` (a deal, or a match) to its end: the decisions made."""
        table = self.table
        table.start(game)
        observation = table.observation
        apply = table.apply
        decisions = 0
        while True:
            deal = table.deal
            assert deal is not None
            while deal.phase != DONE:
                action = seat_bots[deal.current_player].act(observation(deal.current_player))
                if type(action) is not int:
                    action = int(action)
                apply(action)
                decisions += 1
            match = table.match
            if match is None or match.over:
                return decisions
            table.next_deal()

    def play_set(self, index: int, set_seed: int) -> _SetOutcome:
        rules = self.rules
        n = rules.num_players
        ppd = [0.0] * n
        deals = [0] * n
        moons = [0] * n
        wins = [0.0] * n
        decisions = 0
        for r in range(n):
            seat_of = [(j + r) % n for j in range(n)]
            seat_bots: list[Any] = [None] * n
            for j, seat in enumerate(seat_of):
                seat_bots[seat] = self.bots[j]
                reset = self._resets[j]
                if reset is not None:
                    reset(game_seed(set_seed, r, j))
            if self.matches:
                match = Match(rules, seed=set_seed)
                decisions += self._play(match, seat_bots)
                finished = [h.deal for h in match.history if not h.deal.cancelled]
                count = max(1, match.deals_counted)
                share = 1.0 / len(match.winners) if match.winners else 0.0
                for j, seat in enumerate(seat_of):
                    ppd[j] += sum(d.scores[seat] for d in finished) / count / n
                    deals[j] += match.deals_counted
                    moons[j] += sum(1 for d in finished if d.result is not None and d.result.shooter == seat)
                    if seat in match.winners:
                        wins[j] += share
            else:
                deal = deal_for_seed(rules, set_seed)
                decisions += self._play(deal, seat_bots)
                result = deal.result
                assert result is not None
                for j, seat in enumerate(seat_of):
                    ppd[j] += result.scores[seat] / n
                    deals[j] += 1
                    moons[j] += int(result.shooter == seat)
        return _SetOutcome(index, ppd, deals, moons, wins, decisions)


# ---- worker processes (``workers > 1``): each builds its own table once
_WORKER_TABLE: _Table | None = None


def _worker_init(specs: list[str], rules_data: dict[str, Any], matches: bool, seed: int) -> None:
    global _WORKER_TABLE
    rules = Rules.from_dict(rules_data)
    bots = [make_bot(spec, rules, game_seed(seed, -1, j)) for j, spec in enumerate(specs)]
    _WORKER_TABLE = _Table(rules, bots, matches)


def _worker_run(items: list[tuple[int, int]]) -> list[_SetOutcome]:
    assert _WORKER_TABLE is not None
    return [_WORKER_TABLE.play_set(i, s) for i, s in items]


class _Progress:
    """tqdm when it is installed, else a one-line bar on stderr; nothing when disabled."""

    def __init__(self, total: int, enabled: bool, desc: str) -> None:
        self.total = total
        self.done = 0
        self.enabled = enabled
        self.start = time.perf_counter()
        self._last = 0.0
        self._bar: Any = None
        if enabled:
            try:
                from tqdm import tqdm

                self._bar = tqdm(total=total, desc=desc, unit="game", file=sys.stderr, dynamic_ncols=True)
            except ImportError:
                self._bar = None

    def update(self, k: int) -> None:
        self.done += k
        if not self.enabled:
            return
        if self._bar is not None:
            self._bar.update(k)
            return
        now = time.perf_counter()
        if now - self._last < 0.2 and self.done < self.total:
            return
        self._last = now
        frac = self.done / self.total if self.total else 1.0
        filled = int(30 * frac)
        elapsed = now - self.start
        eta = elapsed / frac - elapsed if frac > 0 else 0.0
        sys.stderr.write(
            f"\r[{'#' * filled}{'.' * (30 - filled)}] {frac:6.1%} {self.done:,}/{self.total:,} games"
            f" {elapsed:5.1f}s eta {eta:5.1f}s"
        )
        sys.stderr.flush()

    def close(self) -> None:
        if not self.enabled:
            return
        if self._bar is not None:
            self._bar.close()
        else:
            sys.stderr.write("\n")
            sys.stderr.flush()


def _chunks(items: list[tuple[int, int]], size: int) -> Iterable[list[tuple[int, int]]]:
    for k in range(0, len(items), size):
        yield items[k : k + size]


def run_tournament(
    bots: Sequence[Any],
    rules: Rules | str | Path | None = "standard",
    *,
    deals: int = 1000,
    seed: int = 0,
    matches: bool = False,
    progress: bool = True,
    workers: int = 1,
    rules_label: str | None = None,
    on_set: Callable[[int, int], None] | None = None,
    first_alone: bool = False,
) -> TournamentResult:
    """Play ``deals`` duplicate sets (of deals, or of whole matches with ``matches=True``) of the lineup
    ``bots`` (specs: ``random``, ``heuristic``, a model directory, or bot objects; the last one fills
    the remaining seats) and measure every bot. ``workers > 1`` plays in that many processes (specs
    only; ``0`` = one per CPU); the result is the same for any ``workers``. ``first_alone`` measures the first
    bot on its own even where the same spec fills the other seats (a table of four ``pimc``, one of them the
    reference a paired difference is taken to)."""
    rules = Rules.load(rules) if not isinstance(rules, Rules) else rules
    n = rules.num_players
    lineup = lineup_of(bots, n)
    if deals < 1:
        raise ValueError(f"deals must be at least 1, got {deals}")
    specs_only = all(isinstance(b, str | Path) for b in lineup)
    if workers == 0:
        workers = os.cpu_count() or 1
    if not specs_only:
        workers = 1  # bot objects stay in this process
    labels = [spec_label(b) for b in lineup]
    keys = [str(b) if isinstance(b, str | Path) else f"object:{id(b)}" for b in lineup]
    if first_alone:
        keys[0] = f"seat 0:{keys[0]}"
    seeds = deal_seeds(seed, deals)
    items = list(enumerate(seeds))
    outcomes: list[_SetOutcome] = []
    start = time.perf_counter()
    cpu_start = _cpu_time()
    # Build every bot here first: a bad spec (a missing or tampered model, a bad option) fails now with its
    # reason, before the progress bar, instead of inside pool initialisers that multiprocessing would restart.
    objects = [
        make_bot(b, rules, game_seed(seed, -1, j)) if isinstance(b, str | Path) else b for j, b in enumerate(lineup)
    ]
    bar = _Progress(deals * n, progress, "matches" if matches else "games")
    try:
        if workers <= 1:
            table = _Table(rules, objects, matches)
            for i, s in items:
                outcomes.append(table.play_set(i, s))
                bar.update(n)
                if on_set is not None:
                    on_set(i, s)
        else:
            ctx = multiprocessing.get_context("spawn")
            size = max(1, min(64, deals // (workers * 8)))
            with ctx.Pool(
                workers, initializer=_worker_init, initargs=([str(b) for b in lineup], rules.to_dict(), matches, seed)
            ) as pool:
                for chunk in pool.imap_unordered(_worker_run, list(_chunks(items, size))):
                    outcomes.extend(chunk)
                    bar.update(n * len(chunk))
    finally:
        bar.close()
    seconds = time.perf_counter() - start
    cpu_seconds = _cpu_time() - cpu_start
    outcomes.sort(key=lambda o: o.index)
    result = _summarise(
        rules, rules_label or _rules_name(rules), lineup, labels, keys, outcomes, seconds, matches, seed
    )
    result.cpu_seconds = cpu_seconds
    return result


def _cpu_time() -> float:
    """CPU seconds of this process and of its finished children (the worker processes)."""
    t = os.times()
    return t.user + t.system + t.children_user + t.children_system


def _rules_name(rules: Rules) -> str:
    for name in PRESETS:
        if Rules.preset(name) == rules:
            return name
    return f"custom rules ({rules.num_players} players)"


def _summarise(
    rules: Rules,
    rules_label: str,
    lineup: list[Any],
    labels: list[str],
    keys: list[str],
    outcomes: list[_SetOutcome],
    seconds: float,
    matches: bool,
    seed: int,
) -> TournamentResult:
    n = len(lineup)
    ppd = np.array([o.points_per_deal for o in outcomes], dtype=np.float64)  # (sets, entries)
    groups: dict[str, list[int]] = {}
    for j, key in enumerate(keys):
        groups.setdefault(key, []).append(j)
    # one label per group, unique
    names: dict[str, str] = {}
    used: set[str] = set()
    for key, members in groups.items():
        label = labels[members[0]]
        while label in used:
            label += "'"
        used.add(label)
        names[key] = label
    stats: list[BotStats] = []
    per_set: dict[str, np.ndarray] = {}
    for key, members in groups.items():
        samples = ppd[:, members].mean(axis=1)
        per_set[names[key]] = samples
        mean, se, low, high = mean_interval(samples)
        bot_deals = sum(o.deals[j] for o in outcomes for j in members)
        moons = sum(o.moons[j] for o in outcomes for j in members)
        extra: dict[str, Any] = {}
        if matches:
            trials = len(outcomes) * n * len(members)
            wins = sum(o.wins[j] for o in outcomes for j in members)
            wl, wh = wilson_interval(wins, trials)
            extra = {"matches": trials, "wins": wins, "win_rate": wins / trials, "win_low": wl, "win_high": wh}
        stats.append(
            BotStats(
                label=names[key],
                spec=str(lineup[members[0]]) if isinstance(lineup[members[0]], str | Path) else names[key],
                seats=len(members),
                mean=mean,
                std_err=se,
                ci_low=low,
                ci_high=high,
                samples=len(outcomes),
                deals=bot_deals,
                moons=moons,
                **extra,
            )
        )
    differences: list[Difference] = []
    if len(stats) > 1:
        first = stats[0].label
        differences = [Difference.paired(b.label, first, per_set[b.label], per_set[first]) for b in stats[1:]]
    return TournamentResult(
        rules=rules,
        rules_label=rules_label,
        lineup=[labels[j] for j in range(n)],
        bots=stats,
        differences=differences,
        sets=len(outcomes),
        games=len(outcomes) * n,
        decisions=sum(o.decisions for o in outcomes),
        seconds=seconds,
        matches=matches,
        seed=seed,
        set_samples={k: v.tolist() for k, v in per_set.items()},
    )
