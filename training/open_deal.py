"""Open-deal action values: every legal action of a decision, played out on the true deal.

At a decision where a moon is still possible, a sampled advantage says little about blocking it: the
seat chose one card, and whether a moon followed depends on many later choices. Here each legal
action of such a decision is played out to the end of the deal on a copy of the true state (every
hand known), with the run's own policies continuing at every seat (the learner's network sampling,
the table's opponents as in the rollout). The deal the table holds is a draw from what the seat
cannot see, given what it saw, so each action's outcome is an unbiased sample of that action's value
for the seat's observation under the current play; all actions are scored on the same deal, so their
differences carry little noise. This is the per-action target of Deep CFR for Hearts on the open deal,
without its strategy fusion: the continuation never looks at hidden cards.

``open_deal_values`` plays the copies out; ``all_actions_loss`` turns the values into the policy term
``-sum_a pi(a) A(a)`` (the all-actions policy gradient, its advantages centred over the legal actions
and scaled to unit spread), which PPO adds beside its own loss. ``pick_decisions`` draws the decisions:
mostly ``moon_alive`` ones (the play of a deal in which exactly one seat has taken points so far), and
optionally some of any kind (passes and ordinary play), where the same values teach plain card play.
"""

from __future__ import annotations

from collections.abc import Callable

import torch
from torch import Tensor

from hearts_env.batched import BatchedHearts
from hearts_env.batched.state import BatchState

from .teacher import points_by_seat

#: ``play(engine, rows) -> actions``: the continuation's action for the seat to move in every row of
#: ``engine`` (a fork holding the copies), ``rows[i]`` the rollout table copy ``i`` came from
Continuation = Callable[[BatchedHearts, Tensor], Tensor]
#: ``score(rewards, rows) -> (M, N)``: the rewards that train the learner, from a finished deal's rewards
Score = Callable[[Tensor, Tensor], Tensor]


def moon_alive(obs: Tensor) -> Tensor:
    """Per row of full observations ``(B, OBSERVATION_SIZE)``: exactly one seat (the mover or another) has
    taken points in this deal so far, in a rule set where a moon scores: the decisions that may make or
    break one."""
    points, matters = points_by_seat(obs)
    return matters & ((points > 0).sum(1) == 1)


def pick_decisions(
    learner: Tensor, alive: Tensor, per_alive: int, per_any: int, generator: torch.Generator | None = None
) -> Tensor:
    """The rows of one rollout step to play out: up to ``per_alive`` drawn among the learner's decisions
    where ``alive`` (a moon still possible), then up to ``per_any`` among the learner's decisions not drawn
    yet, of any kind (both ``(B,)`` bool masks); no row twice."""
    first = _draw(learner & alive, per_alive, generator)
    if per_any <= 0:
        return first
    rest = learner.clone()
    rest[first] = False
    return torch.cat([first, _draw(rest, per_any, generator)])


def _draw(flags: Tensor, count: int, generator: torch.Generator | None) -> Tensor:
    """Up to ``count`` of the rows where ``flags``, drawn uniformly without replacement."""
    candidates = torch.nonzero(flags).flatten()
    return candidates[torch.randperm(candidates.numel(), generator=generator, device=flags.device)[:count]]


@torch.no_grad()
def open_deal_values(
    engine: BatchedHearts,
    states: BatchState,
    tables: Tensor,
    play: Continuation,
    score: Score,
    generator: torch.Generator | None = None,
) -> tuple[Tensor, Tensor]:
    """``(values, legal)``, each ``(R, 68)``: for every row of ``states`` (decisions of ``engine``'s rules,
    ``tables[r]`` the table row ``r`` was taken from) and each legal action, the final reward of the seat to
    move after that action, the deal played out by ``play``; illegal actions hold 0 and ``legal`` False."""
    legal = engine.kernel.legal_mask(states)
    source, first = legal.nonzero(as_tuple=True)
    values = torch.zeros(legal.shape, dtype=torch.float32, device=legal.device)
    if source.numel() == 0:
        return values, legal
    seat = states.current.index_select(0, source)
    copies = engine.fork(states.rows(source), generator)
    alive = torch.arange(source.numel(), device=legal.device)  # the copies still in their deal, in row order
    actions = first
    while True:
        result = copies.step(actions)
        if bool(result.done.any()):
            done = alive[result.done]
            final = score(result.rewards[result.done], tables.index_select(0, source.index_select(0, done)))
            values[source[done], first[done]] = final.gather(1, seat[done].unsqueeze(1)).squeeze(1).float()
            keep = torch.nonzero(~result.done).flatten()
            alive = alive.index_select(0, keep)
            if alive.numel() == 0:
                return values, legal
            copies = copies.fork(copies.state.rows(keep), copies.generator)
        actions = play(copies, tables.index_select(0, source.index_select(0, alive)))


def all_actions_loss(logp: Tensor, values: Tensor, legal: Tensor) -> tuple[Tensor, Tensor]:
    """``(loss, agreement)`` per row: ``-sum_a pi(a) A(a)`` over the legal actions, ``A`` the values less
    their mean over the legal actions, divided by their spread over the whole batch (so the term's weight
    does not depend on the reward's scale); ``agreement``: the policy's likeliest action has the best value."""
    count = legal.sum(1, keepdim=True).clamp(min=1)
    centred = torch.where(legal, values - (values * legal).sum(1, keepdim=True) / count, torch.zeros_like(values))
    spread = centred[legal].std() if int(legal.sum()) > 1 else torch.ones((), device=values.device)
    advantage = centred / (spread + 1e-8)
    loss = -(torch.where(legal, logp.exp(), torch.zeros_like(logp)) * advantage).sum(1)
    best = torch.where(legal, values, torch.full_like(values, -torch.inf)).amax(1)
    likeliest = torch.where(legal, logp, torch.full_like(logp, -torch.inf)).argmax(1)
    return loss, (values.gather(1, likeliest.unsqueeze(1)).squeeze(1) >= best).float()


__all__ = ["Continuation", "Score", "all_actions_loss", "moon_alive", "open_deal_values", "pick_decisions"]
