"""The bots' ladder: every bot against a field of every other, over the same duplicate deals.

A cell (row ``X``, column ``Y``) is the table ``X`` + copies of ``Y`` in the other seats, played
over ``deals`` duplicate sets (each deal once per seat rotation), so every cell of a column meets the
same deals and the same opponents. A cell reports:

- ``X``'s points per deal with its 95% interval;
- the margin: the field's mean points per deal minus ``X``'s (positive: ``X`` does better than the
  field), paired over the duplicate sets, with its interval;
- the deals in which ``X`` shot the moon (or the sun), as a share of ``X``'s deals.

The ladder's order is the mean margin over the columns a row plays (higher first). The diagonal
(a bot against copies of itself) is left out: its margin is zero by symmetry.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from ..bots import spec_label
from ..core.rules import Rules
from .results import TournamentResult
from .runner import run_tournament
from .stats import mean_interval


@dataclass(frozen=True)
class LadderCell:
    """``row`` in one seat against copies of ``field`` in the others."""

    row: str
    field: str
    points: float  # the row bot's points per deal
    points_low: float
    points_high: float
    field_points: float  # the field's mean points per deal
    margin: float  # field_points - points, paired over the duplicate sets
    margin_low: float
    margin_high: float
    moon_rate: float  # share of the row bot's deals in which it shot the moon
    sets: int


@dataclass
class Ladder:
    """Every cell, the order, and what it cost; ``table()`` for people, ``to_dict()`` for machines."""

    rules_label: str
    bots: list[str]
    cells: list[LadderCell]
    sets: int
    seed: int
    seconds: float
    results: dict[tuple[str, str], TournamentResult] = field(default_factory=dict, repr=False)

    def cell(self, row: str, field_bot: str) -> LadderCell:
        return next(c for c in self.cells if c.row == row and c.field == field_bot)

    def mean_margin(self, row: str) -> float:
        margins = [c.margin for c in self.cells if c.row == row]
        return float(np.mean(margins)) if margins else math.nan

    def order(self) -> list[str]:
        """The bots that played a row, best first (by mean margin over the fields each played); a bot
        that is only a field has no row."""
        played = [b for b in self.bots if any(c.row == b for c in self.cells)]
        return sorted(played, key=lambda b: -self.mean_margin(b))

    def to_dict(self) -> dict[str, Any]:
        return {
            "rules": self.rules_label,
            "bots": self.bots,
            "order": self.order(),
            "duplicate_sets_per_cell": self.sets,
            "seed": self.seed,
            "seconds": round(self.seconds, 3),
            "confidence": 0.95,
            "method": "cell = row bot in one seat, copies of the field bot in the others, duplicate deals with "
            "seats rotated; margin = field mean - row points per deal, Student t over duplicate sets",
            "cells": [asdict(c) for c in self.cells],
        }

    def table(self) -> str:
        order = self.order()
        fields = [b for b in self.bots if any(c.field == b for c in self.cells)]
        lines = [
            f"Ladder · {self.rules_label} · {self.sets:,} duplicate deals per cell · seed {self.seed}",
            "",
            "Margin (the field's points per deal minus the row bot's; higher is better), 95% interval:",
            "",
            "| bot | " + " | ".join(f"vs 3 {f}" for f in fields) + " | mean margin |",
            "|---|" + "---|" * (len(fields) + 1),
        ]

        def rows(render: Callable[[LadderCell], str], tail: Callable[[str], str]) -> list[str]:
            out = []
            for row in order:
                played = {c.field: c for c in self.cells if c.row == row}
                cells = [render(played[f]) if f != row and f in played else "—" for f in fields]
                out.append(f"| {row} | " + " | ".join(cells) + tail(row))
            return out

        lines += rows(
            lambda c: f"{c.margin:+.2f} [{c.margin_low:+.2f}, {c.margin_high:+.2f}]",
            lambda row: f" | {self.mean_margin(row):+.2f} |",
        )
        lines += [
            "",
            "Points per deal of the row bot (lower is better) and its moon shots (% of its deals):",
            "",
            "| bot | " + " | ".join(f"vs 3 {f}" for f in fields) + " |",
            "|---|" + "---|" * len(fields),
        ]
        lines += rows(
            lambda c: f"{c.points:.2f} [{c.points_low:.2f}, {c.points_high:.2f}] · {100 * c.moon_rate:.1f}%",
            lambda row: " |",
        )
        return "\n".join(lines)


def ladder(
    bots: Sequence[str | Path],
    rules: Rules | str | Path | None = "standard",
    *,
    deals: int = 200,
    seed: int = 0,
    workers: int = 1,
    fields: Sequence[str | Path] | None = None,
    progress: bool = True,
    rules_label: str | None = None,
    on_cell: Callable[[str, str], None] | None = None,
) -> Ladder:
    """Play every bot of ``bots`` against a field of each of ``fields`` (default: ``bots``)."""
    loaded = Rules.load(rules) if not isinstance(rules, Rules) else rules
    if len(bots) < 2 and not fields:
        raise ValueError("a ladder needs at least two bots")
    rows = [str(b) for b in bots]
    columns = [str(f) for f in (fields if fields else bots)]
    labels = {spec: spec_label(spec) for spec in rows + columns}
    if len(set(labels.values())) != len(labels):
        raise ValueError(f"two bots of the ladder have the same label: {sorted(labels.values())}")
    start = time.perf_counter()
    cells: list[LadderCell] = []
    results: dict[tuple[str, str], TournamentResult] = {}
    label = rules_label
    for column in columns:
        for row in rows:
            if row == column:
                continue
            if on_cell is not None:
                on_cell(labels[row], labels[column])
            result = run_tournament(
                [row, column], loaded, deals=deals, seed=seed, progress=progress, workers=workers, rules_label=label
            )
            label = result.rules_label
            first, others = result.bots[0], result.bots[1]
            row_samples = np.asarray(result.set_samples[first.label])
            field_samples = np.asarray(result.set_samples[others.label])
            margin, _, low, high = mean_interval(field_samples - row_samples)
            cells.append(
                LadderCell(
                    row=labels[row],
                    field=labels[column],
                    points=first.mean,
                    points_low=first.ci_low,
                    points_high=first.ci_high,
                    field_points=others.mean,
                    margin=margin,
                    margin_low=low,
                    margin_high=high,
                    moon_rate=first.moons / first.deals if first.deals else math.nan,
                    sets=result.sets,
                )
            )
            results[(labels[row], labels[column])] = result
    bot_labels = list(dict.fromkeys(labels[s] for s in rows + columns))
    return Ladder(
        rules_label=label or "standard",
        bots=bot_labels,
        cells=cells,
        sets=deals,
        seed=seed,
        seconds=time.perf_counter() - start,
        results=results,
    )
