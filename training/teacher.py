"""A teacher for moon defence: the heuristic bot's own moves where it sees a moon attempt.

PPO learns moon defence slowly: a blocked moon costs the blocker a point or two now and saves 26
later, in a few decisions of a few deals. ``Args.moon_teacher`` adds a kickstarting term (Schmitt et
al., 2018: an auxiliary cross-entropy toward a teacher's action) on the learner's decisions in the
states where the heuristic bot (``hearts_env.bots.HeuristicBot._moon_threat``) sees one opponent
shooting, and only there: elsewhere the learner already plays better than the bot, and nothing pulls it
back. The labels stand in hindsight only: a deal that ends without a moon shot drops its labels, since
the bot's alarm also rings when one seat has merely taken the queen and a few hearts, and its defence
(beating that seat's tricks) then costs points. Taught everywhere the alarm rings, a fine-tuned model
gave back 0.7 points per deal against heuristic bots within 50 updates.

``moon_threat(obs)`` reads that state from the observation alone (so it holds for either engine and
every rule set): exactly one opponent has points in its won tricks, the observing seat none; it has won
every trick where the moon needs them; and it holds 60% of the deal's penalty (the points in the current
trick counting half) or, from the middle of the deal on, 40%. ``tests/test_teacher.py`` checks it
against the reference bot over random play of many rule sets.
"""

from __future__ import annotations

import torch

from hearts_env.obs.spec import OFFSETS, RULE_FEATURES

_RULE = {name: OFFSETS["rules"] + i for i, name in enumerate(RULE_FEATURES)}
_WON = OFFSETS["won_by"]
_TRICKS = OFFSETS["tricks_won"]
_TRICK = OFFSETS["trick"]
_CARD_POINTS = OFFSETS["card_points"]
_TRICK_NUMBER = OFFSETS["trick_number"]


def _card_values(obs: torch.Tensor) -> torch.Tensor:
    """``(B, 52)``: each card's points under the row's rules (negative ones counted as zero), from the observation."""
    return torch.round(obs[:, _CARD_POINTS : _CARD_POINTS + 52] * 13.0).clamp(min=0)


def points_by_seat(obs: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """Per row of full observations ``(B, OBSERVATION_SIZE)``: the points in each seat's won tricks so far
    (``(B, 8)``, the mover first, as the heuristic bot counts them) and whether a moon scores in the rules."""
    values = _card_values(obs)
    won = obs[:, _WON : _WON + 8 * 52].view(-1, 8, 52)
    penalty = obs[:, _RULE["penalty_total"]] * 26.0
    matters = (obs[:, _RULE["moon_enabled"]] > 0) & (obs[:, _RULE["moon_mode:cancel_deal"]] == 0) & (penalty > 0)
    return (won * values.unsqueeze(1)).sum(2), matters


def moon_threat(obs: torch.Tensor) -> torch.Tensor:
    """Per row of full observations ``(B, OBSERVATION_SIZE)``: whether the seat to move sees a moon
    attempt as the heuristic bot does (see the module docstring)."""
    values = _card_values(obs)
    pts, matters = points_by_seat(obs)
    penalty = obs[:, _RULE["penalty_total"]] * 26.0
    holders = pts > 0
    shooter = holders.float().argmax(1)
    alone = (holders.sum(1) == 1) & ~holders[:, 0]
    rows = torch.arange(obs.shape[0], device=obs.device)
    taken = pts[rows, shooter]
    num_tricks = torch.round(obs[:, _RULE["hand_size"]] * 17.0)
    done_tricks = torch.round(obs[:, _TRICK_NUMBER] * num_tricks)
    all_tricks = torch.round(obs[:, _TRICKS : _TRICKS + 8][rows, shooter] * num_tricks) == done_tricks
    needs_all = obs[:, _RULE["moon_requires_all_tricks"]] > 0
    in_trick_cards = obs[:, _TRICK : _TRICK + 8 * 52].view(-1, 8, 52).sum(1)
    in_trick = (in_trick_cards * values).sum(1)
    strong = (taken + 0.5 * in_trick >= 0.6 * penalty - 1e-6) | (
        (done_tricks >= torch.div(num_tricks, 2, rounding_mode="floor")) & (taken >= 0.4 * penalty - 1e-6)
    )
    return matters & alone & (all_tricks | ~needs_all) & strong


def moon_shot(scores: torch.Tensor, moon_value: torch.Tensor) -> torch.Tensor:
    """Per row of deal scores ``(M, N)``: whether a seat shot the moon (another seat scored at least
    the moon value, or one scored at most minus it); ``moon_value`` per row (huge: no moon)."""
    return (scores.max(1).values >= moon_value) | (scores.min(1).values <= -moon_value)


def drop_calm_labels(
    labels: torch.Tensor, deal_start: torch.Tensor, step: int, done_rows: torch.Tensor, moon: torch.Tensor
) -> None:
    """In place, at the end of the deals of ``done_rows`` at rollout step ``step``: the labels
    ``(T, B)`` of those deals (steps ``deal_start[row]..step``) become -1 where the deal had no moon
    shot (``moon``, per done row); the rows' next deals start at ``step + 1``."""
    calm = done_rows[~moon]
    if calm.numel():
        steps = torch.arange(labels.shape[0], device=labels.device).unsqueeze(1)
        window = (steps >= deal_start[calm].unsqueeze(0)) & (steps <= step)
        labels[:, calm] = labels[:, calm].masked_fill(window, -1)
    deal_start[done_rows] = step + 1


__all__ = ["drop_calm_labels", "moon_shot", "moon_threat", "points_by_seat"]
