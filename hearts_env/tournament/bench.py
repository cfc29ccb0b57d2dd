"""``hearts bench``: the benchmark protocol for a new agent, versioned (``PROTOCOL``), so two people's figures compare.

Protocol ``hearts-bench v1`` (``bench(policy, rules, tier)``):

- **Panel.** ``PANEL``: ``random``, ``heuristic``, ``net``, ``pimc`` (its default budget) and ``strongest``, the roster
  names of ``hearts_env.bots.roster`` for the rules in play.
- **Deals.** Duplicate sets dealt from ``BENCH_SEED`` (``hearts_env.tournament.seeding.deal_seeds``): every
  policy meets the same deals. The number of sets per table is the tier's (``QUICK``, ``FULL``).
- **Tables.** One against three: the policy in one seat, three copies of the panel bot in the others, each deal
  played once per seat rotation. Reported: the policy's points per deal with its 95% interval (Student t over
  duplicate sets), its moons and the moons it conceded, and the paired difference to the panel bot in the same
  seat of the same deals (the policy's points less the panel bot's: negative is better than the panel bot).
- **Matches.** Win rate in whole matches to 100 against three heuristic bots (Wilson interval).
- **Exploitability.** The tier's scripted adversaries (``hearts_env.bots.scripted.ADVERSARIES``), each in one seat
  against three copies of the policy and against three heuristic bots over the same deals: the moons the policy's
  table conceded, and the adversary's gain against the policy less its gain against three heuristic bots (negative:
  harder to exploit than the heuristic bots).
- **Learned best response** (``learned=True``; the train extra): PPO trained against the policy from the
  ``moon-late`` start for the tier's fixed budget, against the same training against three heuristic bots.
- **Speed.** Milliseconds per decision of the policy, timed in its own ``act`` at the heuristic table.

A policy is anything the tournaments accept: a roster name, a spec, a model directory, ``pkg.mod:fn`` or
``file.py:fn`` (``hearts_env.tournament.evaluate``), and from Python any ``Bot``, callable, SB3 model or RLlib
module. ``BenchReport.to_dict()`` is the JSON of ``hearts bench --json``.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..bots import ADVERSARIES, Bot, make_bot, spec_label
from ..core.rules import Rules
from .evaluate import as_bot, is_policy_spec
from .results import TournamentResult, json_ready, paired_difference
from .robustness import adversary_table, gain_samples
from .runner import run_tournament
from .stats import mean_interval

PROTOCOL = "hearts-bench v1"
#: The panel, by roster name: the policy meets three copies of each.
PANEL = ("random", "heuristic", "net", "pimc", "strongest")
#: The published seed every table's duplicate deals are dealt from.
BENCH_SEED = 2024


@dataclass(frozen=True)
class Tier:
    """How much of the protocol to play: duplicate sets per panel table, matches, exploitability sets and
    adversaries, and the learned best response's budget in decisions."""

    name: str
    sets: dict[str, int]
    matches: int
    exploit_sets: int
    adversaries: tuple[str, ...]
    learned_decisions: int


QUICK = Tier(
    "quick",
    {"random": 50, "heuristic": 100, "net": 100, "pimc": 4, "strongest": 12},
    matches=20,
    exploit_sets=20,
    adversaries=("moon-late",),
    learned_decisions=131_072,
)
FULL = Tier(
    "full",
    {"random": 500, "heuristic": 2000, "net": 2000, "pimc": 100, "strongest": 200},
    matches=200,
    exploit_sets=100,
    adversaries=tuple(ADVERSARIES),
    learned_decisions=524_288,
)
TIERS = {tier.name: tier for tier in (QUICK, FULL)}


class TimedBot:
    """A bot that adds the time its ``act`` takes to ``seconds`` and counts its ``decisions``."""

    def __init__(self, bot: Bot) -> None:
        self.bot = bot
        self.name = str(getattr(bot, "name", type(bot).__name__))
        self.seconds = 0.0
        self.decisions = 0

    def reset(self, seed: int | None = None) -> None:
        reset = getattr(self.bot, "reset", None)
        if reset is not None:
            reset(seed)

    def act(self, observation: dict[str, Any]) -> int:
        start = time.perf_counter()
        action = self.bot.act(observation)
        self.seconds += time.perf_counter() - start
        self.decisions += 1
        return action


@dataclass
class BenchReport:
    """What ``bench`` measured; ``table()`` for people, ``to_dict()`` for machines."""

    policy: str
    rules: str
    tier: str
    tables: list[dict[str, Any]]
    matches: dict[str, Any]
    exploitability: list[dict[str, Any]]
    ms_per_decision: float
    seconds: float
    learned: dict[str, Any] | None = None
    results: dict[str, TournamentResult] = field(default_factory=dict, repr=False)

    def to_dict(self) -> dict[str, Any]:
        return json_ready(
            {
                "protocol": PROTOCOL,
                "tier": self.tier,
                "policy": self.policy,
                "rules": self.rules,
                "seed": BENCH_SEED,
                "tables": self.tables,
                "matches": self.matches,
                "exploitability": self.exploitability,
                "ms_per_decision": self.ms_per_decision,
                "seconds": self.seconds,
                "learned": self.learned,
            }
        )

    def table(self) -> str:
        lines = [
            f"{PROTOCOL} ({self.tier}) · {self.policy} · {self.rules} · deals from seed {BENCH_SEED} · "
            f"{self.ms_per_decision:.2f} ms per decision · {self.seconds:.0f} s",
            "",
            f"{'against 3':<10} {'sets':>5} {'points/deal':>11}  {'95% CI':<16} {'vs the panel bot':>16}  "
            f"{'95% CI':<16} {'moons':>5} {'conceded':>8}",
        ]
        lines.append("-" * len(lines[-1]))
        for t in self.tables:
            if t.get("skipped"):
                lines.append(f"{t['opponent']:<10} {t['skipped']}")
                continue
            d = t["paired_difference"]
            lines.append(
                f"{t['opponent']:<10} {t['sets']:>5} {t['points_per_deal']:>11.2f}  {_ci(t['ci95']):<16} "
                f"{d['mean']:>+16.2f}  {_ci(d['ci95'], True):<16} {t['moons']:>5} {t['moons_conceded']:>8}"
            )
        m = self.matches
        lines += [
            "",
            f"Matches to 100 against 3 heuristic: win rate {m['win_rate']:.3f} {_ci(m['ci95'], digits=3)} "
            f"over {m['matches']} (match, seat) pairs",
        ]
        for e in self.exploitability:
            g = e["gain_difference"]
            lines.append(
                f"Exploitability, {e['adversary']}: it shoots in {e['moon_share_conceded']:.1%} of its deals against "
                f"the policy ({e['moon_share_against_heuristic']:.1%} against 3 heuristic); its gain against the "
                f"policy less against 3 heuristic: {g['mean']:+.2f} {_ci(g['ci95'], True)}"
            )
        if self.learned is not None:
            lines.append(f"Learned best response: {self.learned.get('summary', self.learned)}")
        lines += [
            "",
            "Lower points are better. vs the panel bot: the policy's points per deal less the panel bot's in the same "
            "seat of the same deals (negative: the policy does better than the panel bot would). moons: deals in "
            "which the policy shot the moon; conceded: deals in which another seat did. 95% intervals: Student t "
            "over duplicate sets; win rates: Wilson.",
        ]
        return "\n".join(lines)


def _ci(pair: Any, signed: bool = False, digits: int = 2) -> str:
    fmt = f"{{:+.{digits}f}}" if signed else f"{{:.{digits}f}}"
    return f"[{fmt.format(pair[0])}, {fmt.format(pair[1])}]"


def _policy_entry(policy: Any, rules: Rules) -> tuple[Any, str]:
    """The lineup entry for ``policy`` (a spec stays a spec, so it plays in worker processes) and its label."""
    if isinstance(policy, str | Path) and not is_policy_spec(str(policy)):
        make_bot(policy, rules)  # a bad spec fails here, with its reason, before any table
        return str(policy), spec_label(policy)
    bot = as_bot(policy, rules)
    return bot, str(getattr(bot, "name", type(bot).__name__))


#: The panel bots' own tables (the reference of the paired differences), which do not depend on the policy: played
#: once per process (a leaderboard benchmarks many policies on the same deals).
_REFERENCES: dict[tuple[str, str, int], TournamentResult] = {}


def _reference(opponent: str, rules: Rules, sets: int, workers: int, progress: bool) -> TournamentResult:
    key = (opponent, json.dumps(rules.to_dict(), sort_keys=True), sets)
    if key not in _REFERENCES:
        _REFERENCES[key] = run_tournament(
            [opponent, opponent],
            rules,
            deals=sets,
            seed=BENCH_SEED,
            workers=workers,
            progress=progress,
            first_alone=True,
        )
    return _REFERENCES[key]


def _panel_table(
    entry: Any, opponent: str, rules: Rules, sets: int, workers: int, progress: bool
) -> tuple[dict[str, Any], TournamentResult]:
    result = run_tournament(
        [entry, opponent], rules, deals=sets, seed=BENCH_SEED, workers=workers, progress=progress, first_alone=True
    )
    reference = _reference(opponent, rules, sets, workers, progress)
    mine, others = result.bots[0], result.bots[1]
    difference = paired_difference(result, reference)
    return (
        {
            "opponent": opponent,
            "sets": sets,
            "points_per_deal": mine.mean,
            "ci95": [mine.ci_low, mine.ci_high],
            "moons": mine.moons,
            "moons_conceded": others.moons,
            "opponents_points_per_deal": others.mean,
            "paired_difference": {
                "versus": f"{opponent} in the same seat",
                "mean": difference.mean,
                "ci95": [difference.ci_low, difference.ci_high],
            },
        },
        result,
    )


def _exploitability(entry: Any, adversary: str, rules: Rules, sets: int, workers: int, progress: bool) -> dict:
    spec = ADVERSARIES[adversary]
    against = run_tournament(
        [spec, entry], rules, deals=sets, seed=BENCH_SEED, workers=workers, progress=progress, first_alone=True
    )
    baseline = run_tournament(
        [spec, "heuristic"], rules, deals=sets, seed=BENCH_SEED, workers=workers, progress=progress
    )
    difference = gain_samples(against)[2] - gain_samples(baseline)[2]
    mean, _, low, high = mean_interval(difference)
    table, base = adversary_table(against), adversary_table(baseline)
    return {
        "adversary": adversary,
        "spec": spec,
        "sets": sets,
        "moon_share_conceded": table.adversary_moons.mean,  # shares of the deals (the tables' moons are counts)
        "moon_share_against_heuristic": base.adversary_moons.mean,
        "gain": table.gain.mean,
        "gain_difference": {"mean": mean, "ci95": [low, high]},
    }


def _ms_per_decision(policy: Any, rules: Rules) -> float:
    """The policy's own time per decision at a table of three heuristic bots, over the first 5 bench sets."""
    timed = TimedBot(make_bot(policy, rules) if isinstance(policy, str | Path) else policy)
    run_tournament([timed, "heuristic"], rules, deals=5, seed=BENCH_SEED, progress=False)
    return 1000 * timed.seconds / max(1, timed.decisions)


def bench(
    policy: Any,
    rules: Rules | str | Path | None = "standard",
    tier: Tier | str = QUICK,
    *,
    workers: int = 1,
    learn: Callable[..., dict[str, Any]] | None = None,
    progress: bool = False,
    on_table: Callable[[str], None] | None = None,
) -> BenchReport:
    """Benchmark ``policy`` by protocol ``PROTOCOL`` at ``tier`` (``QUICK`` or ``FULL``, or their names) on
    ``rules``; ``learn`` (``hearts_env.training.best_response.learned_best_response``, the train extra) adds the
    learned best response. ``ValueError`` names a bad policy
    or a panel bot with no bot for these rules."""
    loaded = Rules.load(rules) if not isinstance(rules, Rules) else rules
    chosen = TIERS[tier] if isinstance(tier, str) else tier
    start = time.perf_counter()
    entry, label = _policy_entry(policy, loaded)
    if learn is not None and not isinstance(entry, str):
        raise ValueError("--learned trains against a bot spec (a roster name, spec or model directory)")
    tables: list[dict[str, Any]] = []
    results: dict[str, TournamentResult] = {}
    for opponent in PANEL:
        try:
            make_bot(opponent, loaded)
        except ValueError as err:
            tables.append({"opponent": opponent, "skipped": f"skipped: {err}"})
            continue
        if on_table is not None:
            on_table(f"against 3 {opponent}")
        table, result = _panel_table(entry, opponent, loaded, chosen.sets[opponent], workers, progress)
        tables.append(table)
        results[opponent] = result
    if on_table is not None:
        on_table("matches against 3 heuristic")
    played = run_tournament(
        [entry, "heuristic"],
        loaded,
        deals=chosen.matches,
        seed=BENCH_SEED,
        matches=True,
        workers=workers,
        progress=progress,
        first_alone=True,
    )
    mine = played.bots[0]
    matches = {
        "against": "heuristic",
        "matches": mine.matches,
        "win_rate": mine.win_rate,
        "ci95": [mine.win_low, mine.win_high],
    }
    exploitability = []
    for adversary in chosen.adversaries:
        if on_table is not None:
            on_table(f"exploitability: {adversary}")
        exploitability.append(_exploitability(entry, adversary, loaded, chosen.exploit_sets, workers, progress))
    learned_figures = None
    if learn is not None:
        if on_table is not None:
            on_table("learned best response")
        learned_figures = learn(
            entry,
            loaded,
            decisions=chosen.learned_decisions,
            seed=BENCH_SEED,
            deals=chosen.exploit_sets,
            workers=workers,
            progress=progress,
            teacher="moon-late",
        )
    return BenchReport(
        policy=label,
        rules=played.rules_label,
        tier=chosen.name,
        tables=tables,
        matches=matches,
        exploitability=exploitability,
        ms_per_decision=_ms_per_decision(entry, loaded),
        seconds=time.perf_counter() - start,
        learned=learned_figures,
        results=results,
    )


def leaderboard_bots() -> list[str]:
    """Every shipped bot once, on the standard rules: the roster's names (the first where two seat the same spec,
    as ``strongest`` and ``guard-shoot`` do), then every shipped model not already under a name."""
    from ..bots.roster import ROSTER, roster_spec
    from ..nets.store import shipped_models

    names: dict[str, str] = {}  # spec on the standard rules -> the first roster name for it
    for name in ROSTER:
        names.setdefault(roster_spec(name), name)
    return [*names.values(), *(model for model in shipped_models() if model not in names)]


def leaderboard_markdown(reports: list[BenchReport]) -> str:
    """The leaderboard table of ``docs/benchmark.md``: one row per report."""
    head = [
        "| bot | " + " | ".join(f"3 {opponent}" for opponent in PANEL) + " | wins vs 3 heuristic | moon-late gain "
        "(vs 3 heuristic) | ms/decision |",
        "|---|" + "---|" * (len(PANEL) + 3),
    ]
    rows = []
    for report in reports:
        cells = []
        for table in report.tables:
            if table.get("skipped"):
                cells.append("—")
                continue
            d = table["paired_difference"]
            cells.append(f"{table['points_per_deal']:.2f} ({d['mean']:+.2f})")
        m = report.matches
        exploit = report.exploitability[0]["gain_difference"] if report.exploitability else None
        gain = f"{exploit['mean']:+.2f} {_ci(exploit['ci95'], True)}" if exploit else "—"
        rows.append(
            f"| `{report.policy}` | " + " | ".join(cells) + f" | {m['win_rate']:.2f} | {gain} | "
            f"{report.ms_per_decision:.2f} |"
        )
    return "\n".join(head + rows)


__all__ = [
    "BENCH_SEED",
    "FULL",
    "PANEL",
    "PROTOCOL",
    "QUICK",
    "TIERS",
    "BenchReport",
    "Tier",
    "TimedBot",
    "bench",
    "leaderboard_bots",
    "leaderboard_markdown",
]
