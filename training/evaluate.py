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

Command line: ``python -m training.evaluate heuristic random --deals 2000`` (= ``hearts tournament``).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import random
import sys
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from hearts_env.bots import lineup_of
from hearts_env.cli import (
    add_rules_options,
    describe_rules,
    load_rules_option,
    make_player,
    rules_overrides,
    spec_label,
)
from hearts_env.core import HeartsError, Rules, RulesError
from hearts_env.core.actions import NUM_ACTIONS
from hearts_env.core.deal import DONE, Deal, seeded_deal
from hearts_env.core.match import Match
from hearts_env.env.encoding import ObservationEncoder

_MASK63 = (1 << 63) - 1
_BYTE_BITS = [bytes((b >> i) & 1 for i in range(8)) for b in range(256)]


def mask_array(legal: int) -> np.ndarray:
    """The ``int8`` action mask of a legal-action bitmask, as the AEC env builds it (one new array)."""
    return np.frombuffer(
        bytearray(b"".join([_BYTE_BITS[b] for b in legal.to_bytes(9, "little")])), np.int8, NUM_ACTIONS
    )


def deal_for_seed(rules: Rules, seed: int) -> Deal:
    """The deal ``env.reset(seed=seed)`` deals in deal episodes: dealer, pass kind and hands from ``seed``."""
    return seeded_deal(rules, seed)


def deal_seeds(seed: int, count: int) -> list[int]:
    """The seeds of a tournament's ``count`` duplicate sets."""
    rng = random.Random(f"hearts_env tournament {seed}")
    return [rng.getrandbits(63) for _ in range(count)]


def _mix(x: int) -> int:
    """splitmix64's finaliser: a well-spread 64-bit function of ``x`` (stable across processes)."""
    x = (x + 0x9E3779B97F4A7C15) & 0xFFFFFFFFFFFFFFFF
    x = ((x ^ (x >> 30)) * 0xBF58476D1CE4E5B9) & 0xFFFFFFFFFFFFFFFF
    x = ((x ^ (x >> 27)) * 0x94D049BB133111EB) & 0xFFFFFFFFFFFFFFFF
    return x ^ (x >> 31)


def game_seed(set_seed: int, rotation: int, entry: int) -> int:
    """A bot's seed for one game: a function of the set, the rotation and the entry only."""
    return _mix(_mix(_mix(set_seed) ^ (rotation & 0xFFFF)) ^ entry) & _MASK63


# ---------------------------------------------------------------------------------------------
# Statistics
# ---------------------------------------------------------------------------------------------


def _normal_quantile(p: float) -> float:
    """Inverse of the standard normal CDF (Acklam's rational approximation, |error| < 1.2e-9)."""
    a = (
        -39.69683028665376,
        220.9460984245205,
        -275.9285104469687,
        138.3577518672690,
        -30.66479806614716,
        2.506628277459239,
    )
    b = (-54.47609879822406, 161.5858368580409, -155.6989798598866, 66.80131188771972, -13.28068155288572)
    c = (
        -0.007784894002430293,
        -0.3223964580411365,
        -2.400758277161838,
        -2.549732539343734,
        4.374664141464968,
        2.938163982698783,
    )
    d = (0.007784695709041462, 0.3224671290700398, 2.445134137142996, 3.754408661907416)
    if p < 0.02425:
        q = math.sqrt(-2 * math.log(p))
        return (((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) / (
            (((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1
        )
    if p > 1 - 0.02425:
        return -_normal_quantile(1 - p)
    q = p - 0.5
    r = q * q
    num = (((((a[0] * r + a[1]) * r + a[2]) * r + a[3]) * r + a[4]) * r + a[5]) * q
    return num / (((((b[0] * r + b[1]) * r + b[2]) * r + b[3]) * r + b[4]) * r + 1)


def t_quantile(p: float, df: int) -> float:
    """Student t quantile (Hill's 1970 expansion; exact for df 1 and 2, within 1e-4 from df 3 up)."""
    if df < 1:
        return math.nan
    if df == 1:
        return math.tan(math.pi * (p - 0.5))
    if df == 2:
        q = 2 * p - 1
        return q * math.sqrt(2 / (1 - q * q))
    z = _normal_quantile(p)
    z2 = z * z
    g1 = (z2 + 1) * z / 4
    g2 = ((5 * z2 + 16) * z2 + 3) * z / 96
    g3 = (((3 * z2 + 19) * z2 + 17) * z2 - 15) * z / 384
    g4 = ((((79 * z2 + 776) * z2 + 1482) * z2 - 1920) * z2 - 945) * z / 92160
    return z + g1 / df + g2 / df**2 + g3 / df**3 + g4 / df**4


def mean_interval(samples: np.ndarray, level: float = 0.95) -> tuple[float, float, float, float]:
    """``(mean, std_err, low, high)`` of independent samples: Student t interval."""
    x = np.asarray(samples, dtype=np.float64)
    d = x.size
    mean = float(x.mean()) if d else math.nan
    if d < 2:
        return mean, math.nan, math.nan, math.nan
    se = float(x.std(ddof=1) / math.sqrt(d))
    half = t_quantile(0.5 + level / 2, d - 1) * se
    return mean, se, mean - half, mean + half


def wilson_interval(successes: float, trials: float, level: float = 0.95) -> tuple[float, float]:
    """Wilson score interval of a proportion (``successes`` may be fractional: shared wins)."""
    if trials <= 0:
        return math.nan, math.nan
    z = _normal_quantile(0.5 + level / 2)
    p = successes / trials
    denom = 1 + z * z / trials
    centre = (p + z * z / (2 * trials)) / denom
    half = z * math.sqrt(p * (1 - p) / trials + z * z / (4 * trials * trials)) / denom
    return max(0.0, centre - half), min(1.0, centre + half)


# ---------------------------------------------------------------------------------------------
# Results
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class BotStats:
    """One bot's row: every entry of the lineup with this spec, pooled."""

    label: str
    spec: str
    seats: int  # entries of the lineup with this spec
    mean: float  # points per deal (lower is better)
    std_err: float
    ci_low: float
    ci_high: float
    samples: int  # duplicate sets
    deals: int  # deals this bot's seats played (all rotations)
    moons: int  # deals in which one of its seats shot the moon (or the sun)
    matches: int = 0  # (match, seat) pairs played, matches mode only
    wins: float = 0.0  # shared wins count fractionally
    win_rate: float = math.nan
    win_low: float = math.nan
    win_high: float = math.nan


@dataclass(frozen=True)
class Difference:
    """``label`` minus the first bot, in points per deal, paired over duplicate sets."""

    label: str
    versus: str
    mean: float
    std_err: float
    ci_low: float
    ci_high: float


@dataclass
class TournamentResult:
    """What ``run_tournament`` measured; ``table()`` for people, ``to_dict()`` for machines."""

    rules: Rules
    rules_label: str
    lineup: list[str]
    bots: list[BotStats]
    differences: list[Difference]
    sets: int
    games: int
    decisions: int
    seconds: float
    matches: bool
    seed: int
    set_samples: dict[str, list[float]] = field(default_factory=dict, repr=False)
    cpu_seconds: float = math.nan  # this process and its workers: a load-independent speed measure

    @property
    def decisions_per_second(self) -> float:
        return self.decisions / self.seconds if self.seconds > 0 else math.nan

    @property
    def decisions_per_cpu_second(self) -> float:
        return self.decisions / self.cpu_seconds if self.cpu_seconds > 0 else math.nan

    def bot(self, label: str) -> BotStats:
        return next(b for b in self.bots if b.label == label)

    def to_dict(self) -> dict[str, Any]:
        def clean(x: Any) -> Any:
            if isinstance(x, float):
                return None if math.isnan(x) else round(x, 6)
            if isinstance(x, dict):
                return {k: clean(v) for k, v in x.items()}
            if isinstance(x, list):
                return [clean(v) for v in x]
            return x

        return clean(
            {
                "rules": self.rules_label,
                "rule_options": self.rules.to_dict(),
                "lineup": self.lineup,
                "mode": "matches" if self.matches else "deals",
                "duplicate_sets": self.sets,
                "rotations": len(self.lineup),
                "games": self.games,
                "decisions": self.decisions,
                "seconds": self.seconds,
                "decisions_per_second": self.decisions_per_second,
                "cpu_seconds": self.cpu_seconds,
                "decisions_per_cpu_second": self.decisions_per_cpu_second,
                "seed": self.seed,
                "confidence": 0.95,
                "method": "points per deal: Student t interval over duplicate sets (each deal, or match, played with "
                "the seats rotated through every seat, pooled per bot, is one sample); win rates: Wilson interval",
                "bots": [asdict(b) for b in self.bots],
                "differences": [asdict(d) for d in self.differences],
            }
        )

    def table(self) -> str:
        n = len(self.lineup)
        unit = "matches" if self.matches else "deals"
        lines = [
            f"Tournament · {self.rules_label} · {n} seats · {self.sets:,} duplicate {unit} × {n} rotations = "
            f"{self.games:,} {'matches' if self.matches else 'games'}",
            f"{self.decisions:,} decisions in {self.seconds:.1f} s ({self.decisions_per_second:,.0f} decisions/s;"
            f" {self.decisions_per_cpu_second:,.0f} per CPU second)",
            "",
        ]
        width = max(12, *(len(b.label) for b in self.bots))
        head = f"{'bot':<{width}} {'seats':>5} {'points/deal':>11}  {'95% CI':<17} {'std err':>7}"
        head += f" {'deals':>9} {'moons':>6}"
        if self.matches:
            head += f"  {'win rate':>8}  {'95% CI':<15}"
        lines.append(head)
        lines.append("-" * len(head))
        for b in self.bots:
            ci = f"[{b.ci_low:.2f}, {b.ci_high:.2f}]" if not math.isnan(b.ci_low) else "-"
            se = f"{b.std_err:.3f}" if not math.isnan(b.std_err) else "-"
            row = f"{b.label:<{width}} {b.seats:>5} {b.mean:>11.3f}  {ci:<17} {se:>7} {b.deals:>9,} {b.moons:>6,}"
            if self.matches:
                wci = f"[{b.win_low:.3f}, {b.win_high:.3f}]"
                row += f"  {b.win_rate:>8.3f}  {wci:<15}"
            lines.append(row)
        if self.differences:
            lines.append("")
            for d in self.differences:
                ci = f"[{d.ci_low:+.2f}, {d.ci_high:+.2f}]" if not math.isnan(d.ci_low) else ""
                lines.append(f"{d.label} − {d.versus}: {d.mean:+.3f} points/deal {ci} (paired over duplicate sets)")
        lines.append("")
        lines.append(
            "Lower is better. 95% intervals: Student t over duplicate sets (a set = one "
            + ("match" if self.matches else "deal")
            + " played once per seat rotation)"
            + ("; win rates: Wilson." if self.matches else ".")
        )
        return "\n".join(line.rstrip() for line in lines)


# ---------------------------------------------------------------------------------------------
# Playing
# ---------------------------------------------------------------------------------------------


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
    """Plays duplicate sets for one lineup on one rule set, reusing one observation encoder."""

    def __init__(self, rules: Rules, bots: Sequence[Any], matches: bool) -> None:
        self.rules = rules
        self.bots = list(bots)
        self.matches = matches
        self.encoder = ObservationEncoder(rules, match_episode=matches)
        self._resets = [getattr(b, "reset", None) for b in self.bots]

    def _play(self, game: Deal | Match, deal: Deal, seat_bots: Sequence[Any], match: Match | None) -> int:
        """Play ``game`` (a deal, or a match whose first deal is ``deal``) to its end: the decisions made."""
        enc = self.encoder
        enc.start(deal, match)
        observation = enc.observation
        apply = game.apply_action
        decisions = 0
        while True:
            while deal.phase != DONE:
                seat = deal.current_player
                phase = deal.phase
                action = seat_bots[seat].act(
                    {"observation": observation(seat, seat), "action_mask": mask_array(deal.legal_mask())}
                )
                if type(action) is not int:
                    action = int(action)
                apply(action)
                enc.update(deal, seat, action, phase)
                decisions += 1
            if match is None or match.over:
                return decisions
            deal = match.deal
            enc.start(deal, match)

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
                decisions += self._play(match, match.deal, seat_bots, match)
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
                decisions += self._play(deal, deal, seat_bots, None)
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
    bots = [make_player(spec, rules, game_seed(seed, -1, j)) for j, spec in enumerate(specs)]
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
) -> TournamentResult:
    """Play ``deals`` duplicate sets (of deals, or of whole matches with ``matches=True``) of the lineup
    ``bots`` (specs: ``random``, ``heuristic``, a model directory, or bot objects; the last one fills
    the remaining seats) and measure every bot. ``workers > 1`` plays in that many processes (specs
    only; ``0`` = one per CPU); the result is the same for any ``workers``."""
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
    seeds = deal_seeds(seed, deals)
    items = list(enumerate(seeds))
    outcomes: list[_SetOutcome] = []
    bar = _Progress(deals * n, progress, "matches" if matches else "games")
    start = time.perf_counter()
    cpu_start = _cpu_time()
    try:
        if workers <= 1:
            objects = [
                make_player(b, rules, game_seed(seed, -1, j)) if isinstance(b, str | Path) else b
                for j, b in enumerate(lineup)
            ]
            table = _Table(rules, objects, matches)
            for i, s in items:
                outcomes.append(table.play_set(i, s))
                bar.update(n)
                if on_set is not None:
                    on_set(i, s)
        else:
            import multiprocessing

            # Build every bot here first: a bad spec (a missing or tampered model) fails now with its
            # reason, instead of inside pool initialisers that multiprocessing would restart forever.
            for j, b in enumerate(lineup):
                if isinstance(b, str | Path):
                    make_player(b, rules, game_seed(seed, -1, j))
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
    from hearts_env.core import PRESETS

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
    differences = []
    if len(stats) > 1:
        first = stats[0].label
        for b in stats[1:]:
            mean, se, low, high = mean_interval(per_set[b.label] - per_set[first])
            differences.append(Difference(b.label, first, mean, se, low, high))
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


# ---------------------------------------------------------------------------------------------
# Command line
# ---------------------------------------------------------------------------------------------


def build_parser(prog: str | None = None) -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog=prog or "python -m training.evaluate",
        description="Bots against bots over duplicate deals (each deal replayed with the seats rotated), "
        "reporting points per deal with 95% confidence intervals, and win rates with --matches.",
        epilog="Example: hearts tournament heuristic random --deals 2000   (heuristic against three random bots)",
    )
    parser.add_argument(
        "bots",
        nargs="+",
        metavar="BOT",
        help="random, heuristic or a model directory, one per seat from seat 0; the last fills the remaining seats",
    )
    add_rules_options(parser)
    parser.add_argument("--deals", type=int, default=1000, help="duplicate sets to play (default 1000)")
    parser.add_argument(
        "--matches", action="store_true", help="play whole matches (sets are matches) and report win rates"
    )
    parser.add_argument("--seed", type=int, default=0, help="fixes every deal and every bot's choices (default 0)")
    parser.add_argument("--workers", type=int, default=1, help="processes to play in (0: one per CPU; default 1)")
    parser.add_argument("--json", action="store_true", help="print the result as JSON instead of the table")
    parser.add_argument("--output", metavar="PATH", help="also write the JSON result to PATH")
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")
    return parser


def main(argv: Sequence[str] | None = None, prog: str | None = None) -> int:
    args = build_parser(prog).parse_args(argv)
    name = prog or "evaluate"
    overrides = rules_overrides(args.players, args.set)
    try:
        rules = load_rules_option(args.rules, overrides)
    except RulesError as err:
        option = f" (option {err.option})" if err.option else ""
        print(f"{name}: invalid rules{option}: {err}", file=sys.stderr)
        return 2
    try:
        result = run_tournament(
            args.bots,
            rules,
            deals=args.deals,
            seed=args.seed,
            matches=args.matches,
            progress=not args.no_progress,
            workers=args.workers,
            rules_label=describe_rules(args.rules, overrides),
        )
    except (ValueError, NotImplementedError, HeartsError, OSError) as err:
        print(f"{name}: {err}", file=sys.stderr)
        return 2
    data = result.to_dict()
    if args.output:
        Path(args.output).write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")
    print(json.dumps(data, indent=2) if args.json else result.table())
    return 0


__all__ = [
    "BotStats",
    "Difference",
    "TournamentResult",
    "deal_for_seed",
    "deal_seeds",
    "main",
    "mask_array",
    "mean_interval",
    "run_tournament",
    "t_quantile",
    "wilson_interval",
]


if __name__ == "__main__":
    raise SystemExit(main())
