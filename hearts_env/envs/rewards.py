"""What a seat is paid: the final-rank bonus of a match and the default reward of an illegal move."""

from __future__ import annotations

from collections.abc import Sequence

from ..core.rules import Rules
from ..core.scoring import most_points_to_come


def illegal_move_reward(
    rules: Rules,
    episode: str = "deal",
    reward_scale: float = 1.0,
    final_rank_reward: Sequence[float] | None = None,
    total: int = 0,
) -> float:
    """The default reward of an illegal move (``illegal_reward``), never better than what playing on
    legally can bring: minus ``most_points_to_come`` (``total``: the offender's match total before
    the deal in progress), times ``abs(reward_scale)``, plus in match episodes the lowest
    ``final_rank_reward`` (the offender ranks last)."""
    reward = -most_points_to_come(rules, episode, total) * abs(reward_scale)
    if episode == "match" and final_rank_reward is not None and len(final_rank_reward):
        reward += min(float(x) for x in final_rank_reward)
    return float(reward)


def rank_rewards(totals: Sequence[int], winners: Sequence[int], values: Sequence[float]) -> list[float]:
    """``values`` by final place: winners first, then the rest by total; ties share their places' mean."""
    n = len(totals)
    winner_set = set(winners)
    groups: list[list[int]] = [sorted(winner_set)] if winner_set else []
    for p in sorted((p for p in range(n) if p not in winner_set), key=lambda p: totals[p]):
        last = groups[-1] if groups else None
        if last is not None and last[0] not in winner_set and totals[last[0]] == totals[p]:
            last.append(p)
        else:
            groups.append([p])
    out = [0.0] * n
    place = 0
    for group in groups:
        share = sum(values[place : place + len(group)]) / len(group)
        for p in group:
            out[p] = share
        place += len(group)
    return out
