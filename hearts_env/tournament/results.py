"""What a tournament returns: per-bot statistics, paired differences, the table and the JSON."""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np

from ..core import Rules
from .stats import mean_interval


def json_ready(x: Any) -> Any:
    """``x`` with floats rounded to 6 places and NaN as ``None`` (JSON has no NaN), through dicts and lists."""
    if isinstance(x, float):
        return None if math.isnan(x) else round(x, 6)
    if isinstance(x, dict):
        return {k: json_ready(v) for k, v in x.items()}
    if isinstance(x, list | tuple):
        return [json_ready(v) for v in x]
    return x


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
    """``label`` minus ``versus`` (the first bot, or with ``--paired`` the bot in its seat), in points per deal,
    paired over duplicate sets."""

    label: str
    versus: str
    mean: float
    std_err: float
    ci_low: float
    ci_high: float

    @classmethod
    def paired(cls, label: str, versus: str, mine: Any, theirs: Any) -> Difference:
        """The difference of two bots' per-set samples over the same duplicate sets."""
        mean, se, low, high = mean_interval(np.asarray(mine, dtype=np.float64) - np.asarray(theirs, dtype=np.float64))
        return cls(label, versus, mean, se, low, high)


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
        return json_ready(
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
        lines.append(
            "moons: deals in which one of the bot's seats shot the moon. A − B: A's points per deal less B's on the "
            "same sets (negative: A took fewer points than B)."
        )
        return "\n".join(line.rstrip() for line in lines)


def paired_difference(result: TournamentResult, other: TournamentResult) -> Difference:
    """``result``'s first bot minus ``other``'s first bot, in points per deal, paired over the duplicate sets
    both played: the same rules, seed and sets, the same bots in the other seats. Why: the two bots' own
    intervals are wide, but on the same deals most of the luck cancels (the cost of a guard over its base)."""
    if (result.seed, result.sets, result.matches) != (other.seed, other.sets, other.matches):
        raise ValueError("paired results must have the same seed, number of sets and mode")
    if result.rules.to_dict() != other.rules.to_dict() or result.lineup[1:] != other.lineup[1:]:
        raise ValueError("paired results must have the same rules and the same bots in the other seats")
    mine, theirs = result.bots[0], other.bots[0]
    if mine.seats != 1 or theirs.seats != 1:
        raise ValueError("each paired bot must sit in one seat only (it may not also fill the other seats)")
    return Difference.paired(mine.label, theirs.label, result.set_samples[mine.label], other.set_samples[theirs.label])
