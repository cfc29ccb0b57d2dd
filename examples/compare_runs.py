"""Training runs side by side from their ``metrics.jsonl``: points per deal at three heuristic bots, the moons the
watched seekers shot alone among three learners (the exploit curve), and the value losses (with an oracle critic,
the observation-only value head's beside the critic's), against training decisions. How an ablation is read.

    python examples/compare_runs.py runs/oracle-full runs/ablate-no-critic --output curves.png
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt


def history(run: Path) -> list[dict]:
    """A run's metrics, one dict per update (lines torn by a kill are skipped)."""
    rows = []
    for line in (run / "metrics.jsonl").read_text(encoding="utf-8").splitlines():
        try:
            rows.append(json.loads(line))
        except json.JSONDecodeError:
            continue
    return rows


def plot(runs: list[Path], output: Path, seekers: tuple[str, ...] = ("moon", "moon-late")) -> Path:
    fig, axes = plt.subplots(1, 3, figsize=(16, 4))
    for run in runs:
        rows = history(run)
        evaluated = [r for r in rows if "eval/heuristic/points" in r]
        xs = [r["decisions"] for r in evaluated]
        axes[0].plot(xs, [r["eval/heuristic/points"] for r in evaluated], "o-", label=run.name)
        for seeker, style in zip(seekers, ("-", "--", ":"), strict=False):
            if evaluated and f"eval/{seeker}/moons" in evaluated[-1]:
                moons = [100 * r[f"eval/{seeker}/moons"] for r in evaluated]
                axes[1].plot(xs, moons, style, marker="o", label=f"{run.name}: {seeker}")
        trained = [r for r in rows if "value_loss" in r]
        steps = [r["decisions"] for r in trained]
        oracle = bool(trained) and "observation_value_loss" in trained[-1]
        value = "oracle critic" if oracle else "value head"
        axes[2].plot(steps, [r["value_loss"] for r in trained], label=f"{run.name}: {value}")
        if oracle:
            head = [r["observation_value_loss"] for r in trained]
            axes[2].plot(steps, head, ":", label=f"{run.name}: observation value head")
    axes[0].set_ylabel("points per deal at 3 heuristic bots (lower is better)")
    axes[1].set_ylabel("moons shot alone among 3 learners (%)")
    axes[2].set_ylabel("value loss (squared error / 2)")
    for ax in axes:
        ax.set_xlabel("training decisions")
        ax.grid(alpha=0.3)
        ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(output, dpi=90)
    plt.close(fig)
    return output


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("runs", nargs="+", type=Path, help="run directories (each with metrics.jsonl)")
    parser.add_argument("--output", type=Path, default=Path("curves.png"))
    args = parser.parse_args()
    print(plot(args.runs, args.output))


if __name__ == "__main__":
    main()
