"""What a run shows while and after it trains: the progress line of each update and the learning curve
(``learning_curve.png``). tqdm and matplotlib are optional: without them there is a plain line per
update on stderr, and no picture."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any


class Progress:
    """A tqdm bar when available and wanted, otherwise one line per update on stderr."""

    def __init__(self, total: int, initial: int, enabled: bool) -> None:
        self.bar = None
        if enabled:
            try:
                from tqdm import tqdm

                self.bar = tqdm(total=total, initial=initial, unit="update", dynamic_ncols=True)
            except ImportError:
                pass
        self.enabled = enabled

    def update(self, metrics: dict[str, Any]) -> None:
        """Show one update's figures."""
        text = f"dec/s {metrics['decisions_per_s']:,.0f} ent {metrics['entropy']:.2f}"
        if "eval/random/points" in metrics:
            text += f" vs-random {metrics['eval/random/points']:.2f}"
        if "eval/heuristic/points" in metrics:
            text += f" vs-heuristic {metrics['eval/heuristic/points']:.2f}"
        for key, value in metrics.items():
            if key.startswith("eval/") and key.endswith("/moons"):
                text += f" {key.split('/')[1]}-moons {100 * value:.0f}%"
        if self.bar is not None:
            self.bar.set_postfix_str(text)
            self.bar.update(1)
        elif self.enabled:
            print(f"update {metrics['update']}: {text}", file=sys.stderr)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()


def plot_learning_curve(history: list[dict[str, Any]], path: Path, title: str = "") -> Path | None:
    """Evaluation points per deal, policy entropy and, where the run watches scripted adversaries, the
    share of deals each shot the moon at a table of three learners (the exploit curve), against training
    decisions; ``None`` without matplotlib."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return None
    adversaries = sorted(
        {k.split("/")[1] for h in history for k in h if k.startswith("eval/") and k.endswith("/moons")}
    )
    fig, axes = plt.subplots(1, 3 if adversaries else 2, figsize=(16 if adversaries else 11, 4))
    ax1, ax2 = axes[0], axes[1]
    for opponent, colour in (("random", "tab:blue"), ("heuristic", "tab:red")):
        pts = [
            (h["decisions"], h[f"eval/{opponent}/points"], h[f"eval/{opponent}/opponent_points"])
            for h in history
            if f"eval/{opponent}/points" in h
        ]
        if pts:
            xs, ys, opp = zip(*pts, strict=True)
            ax1.plot(xs, ys, "o-", color=colour, label=f"policy vs 3 {opponent}")
            ax1.plot(xs, opp, "--", color=colour, alpha=0.6, label=f"{opponent} seats")
    ax1.set_xlabel("training decisions")
    ax1.set_ylabel("points per deal (lower is better)")
    ax1.legend()
    ax1.grid(alpha=0.3)
    trained = [h for h in history if "entropy" in h]
    ax2.plot([h["decisions"] for h in trained], [h["entropy"] for h in trained], color="tab:green")
    ax2.set_xlabel("training decisions")
    ax2.set_ylabel("policy entropy")
    ax2.grid(alpha=0.3)
    for adversary in adversaries:
        moons = [
            (h["decisions"], 100 * h[f"eval/{adversary}/moons"]) for h in history if f"eval/{adversary}/moons" in h
        ]
        xs, ys = zip(*moons, strict=True)
        axes[2].plot(xs, ys, "o-", label=adversary)
    if adversaries:
        axes[2].set_xlabel("training decisions")
        axes[2].set_ylabel("moons shot alone among 3 learners (%)")
        axes[2].legend()
        axes[2].grid(alpha=0.3)
    fig.suptitle(title)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path
