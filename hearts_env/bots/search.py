"""Search bots over sampled worlds: PIMC (perfect-information Monte Carlo) and single-observer ISMCTS.

Both read only the seat's observation (decoded with ``decode_observation``) and draw worlds from
``hearts_env.bots.belief.BeliefSampler``: full ``Deal`` objects consistent with the view, the
observer at seat 0. Nothing of the true deal is ever read.

``PIMCBot`` (``make_bot("pimc")``, ``"pimc:worlds=32,rollout=lean"``): for each of ``worlds``
sampled worlds, every legal action is applied to a clone and the deal played out by the rollout
policy; an action's score is the seat's mean deal points over the worlds (lower is better), and the
best mean is played (ties: the lower action id). The same worlds serve every action (common random
numbers; ``objective=relative`` scores the seat's points less the others' mean instead, so that an
opponent's moon counts against it). A single legal action is played without search. Cards that are
the same action for the outcome (one suit, the same value, nothing between them but cards of earlier tricks:
``equivalent_cards``) are rolled out once. With ``weigh=1`` (the default), the heuristic rollout and a
trick in progress, worlds in which the heuristic bot would not have played this trick's cards so far
are set aside (``trick_agrees``; up to four draws per world) and used only when too few others turn
up: the opponents' plays tell about their hands, as far as they play like the rollout policy (about
60% of uniform worlds disagree at heuristic tables). ``weigh=0`` keeps every world: about 13% less
CPU, the same strength against three heuristic bots, a little weaker against three ``ppo-standard``
models (within the noise; docs/robustness.md).
With ``prior=<model>`` (``pimc:prior=ppo-robust``: the search with a model as its prior, the
strongest bot here) the model proposes and the search disposes. Where the model's masked softmax puts
at least ``confident`` (default 0.99) on one action, or for a pass card, the model's move is played
without search; elsewhere only the actions it gives at least ``floor`` (default 0.01), and its own
favourite, are searched, and the best mean among them is played (``margin``: the model's move unless
the best beats it by more than that many points). The model rules out the moves the search's noise
would otherwise pick now and then, and the search corrects the model where it sees further.
The moon choice (``shooter_choice`` rules) is always searched: the shipped models almost never shot in training
and add +26 to the others at their own moons, with a probability of 0.9999, where -26 to themselves scores 26
points better for the deal.
``bot.searched`` counts the decisions it searched.
With ``own=<model>`` (``pimc:prior=ppo-tuned,own=ppo-tuned``) the rollouts play the searching seat by that
model and every other seat by the heuristic bot (``OwnSeatRollout``): each candidate is scored by the
seat's own continuation, the expert-iteration teacher's values, at about four times the cost of the
heuristic rollout (the full model rollout, ``rollout=<model>``, costs about fifteen).

Decisions:

- plays, the void-the-deal / lead-a-heart choice, the moon choice, the pass-through declaration and
  the dealer's choice: searched, through the world's own legal action list;
- the pass cards: by the heuristic bot's pass (``passing=heuristic``, the default: cheap and
  sound), or searched card by card like any other decision (``passing=search``: each candidate card
  is chosen in the world and the rest of the deal, the remaining pass cards included, is rolled
  out).

Rollout policies (``rollout=``): ``heuristic`` (default: ``hearts_env.bots.rollout.HeuristicRollout``,
exactly the heuristic bot's decisions read off the engine's bitmasks, voids tracked from the view
and through the rollout; about as fast as lean), ``lean`` (a cheaper rule-based player on the
bitmasks: ducking, dumping the ♠Q and high hearts when void, leading low), ``random`` (uniform over
the legal set, on the engine directly), ``mixed`` / ``mixedK`` (the heuristic until ``K`` more tricks
are complete, default 1, then lean), or a model directory / shipped model name (a model bot on the
world's observations).

Why the opponents' model matters: against heuristic opponents lean rollouts mispredict their
replies, and each candidate is scored in the wrong game; the heuristic rollout plays them exactly.

``ISMCTSBot`` (``make_bot("ismcts")``, ``"ismcts:iterations=400,rollout=lean"``): single-observer
information-set MCTS: each iteration samples a world, descends a tree keyed by the observer's
action history and the other seats' actions (UCB1 over the actions legal in that world, with
availability counts), expands one node and rolls out with the rollout policy; every seat's node
statistics are its own deal points (each seat minimises its own score). The root action with the
most visits is played. Pass cards as in PIMC.

Default budget: ``worlds=48`` with heuristic rollouts. Its speed at each budget is measured by
``benchmarks/search_speed.py`` and its strength is in docs/robustness.md (figures live there, not here).

Both are deterministic under a seed: ``reset(seed)`` (or the constructor's ``seed``) fixes every
sampled world and rollout.
"""

from __future__ import annotations

import math
import random
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np

from ..core.actions import MOON_ADD, MOON_SUBTRACT, PASS_FROM_HAND, VOID_DEAL
from ..core.cards import AS, KS, NUM_CARDS, NUM_RANKS, QS, QS_BIT, SUIT_MASKS
from ..core.cards import HEARTS_MASK as _HEARTS_MASK
from ..core.deal import DONE, MOON_CHOICE, PASSING, PLAYING, Deal, mask_to_actions
from ..core.rules import Rules
from ..obs import decode_observation, encode
from .base import legal_actions
from .belief import BeliefSampler, fast_clone
from .heuristic import HeuristicBot
from .model import load_bot
from .rollout import HeuristicRollout, view_voids

SEARCH_SPECS = ("pimc", "ismcts")
ROLLOUTS = ("lean", "random", "heuristic", "mixed", "mixed1", "mixed2", "mixed3")
OBJECTIVES = ("points", "relative")
_CARD_BITS = (1 << NUM_CARDS) - 1
_HIGH_SPADES = (KS, AS)
_HIGH_SPADE_MASK = (1 << KS) | (1 << AS)
_TOP_SPADES_MASK = (1 << QS) | _HIGH_SPADE_MASK


# ---------------------------------------------------------------------------------------------
# Rollout policies on the engine
# ---------------------------------------------------------------------------------------------


def _highest(mask: int) -> int:
    """The card of highest rank in ``mask`` (ties: the highest suit)."""
    best, best_rank = -1, -1
    while mask:
        low = mask & -mask
        c = low.bit_length() - 1
        r = c % NUM_RANKS
        if r >= best_rank:
            best, best_rank = c, r
        mask ^= low
    return best


def _lowest(mask: int) -> int:
    """The card of lowest rank in ``mask`` (ties: the lowest suit)."""
    best, best_rank = -1, 99
    while mask:
        low = mask & -mask
        c = low.bit_length() - 1
        r = c % NUM_RANKS
        if r < best_rank:
            best, best_rank = c, r
        mask ^= low
    return best


class LeanPolicy:
    """A fast rule-based player on a ``Deal`` (bitmasks only); used for rollouts."""

    trusted = True

    def __init__(self, rules: Rules, rng: random.Random) -> None:
        t = rules.tables
        self.rng = rng
        self.values = t.card_values
        self.point_mask = t.penalty_mask
        self.bonus = t.bonus_card
        self.bad_mask = sum(1 << c for c in t.deck if self.values[c] > 0)
        self.queen_counts = self.values[QS] > 0
        self.danger = tuple(
            (10_000 if c == QS and self.queen_counts else 0) + self.values[c] * 50 + c % NUM_RANKS for c in range(52)
        )

    def __call__(self, deal: Deal) -> int:
        phase = deal.phase
        legal = deal.legal_mask()
        if phase == PLAYING:
            cards = legal & _CARD_BITS
            if cards:
                if cards & (cards - 1) == 0:
                    return cards.bit_length() - 1
                return self._play(deal, cards)
            return VOID_DEAL if legal >> VOID_DEAL & 1 else mask_to_actions(legal)[0]
        if phase == PASSING:
            if legal >> PASS_FROM_HAND & 1:
                return PASS_FROM_HAND
            cards = legal & _CARD_BITS
            danger = self.danger
            return max(mask_to_actions(cards), key=lambda c: danger[c])
        if phase == MOON_CHOICE:
            return _best_moon_choice(deal)
        actions = mask_to_actions(legal)  # dealer's choice
        return actions[self.rng.randrange(len(actions))]

    def _play(self, deal: Deal, cards: int) -> int:
        trick = deal.trick
        queen_out = self.queen_counts and not deal.queen_played
        me = deal.current_player
        hand = deal.hands[me]
        others = 0
        for p, h in enumerate(deal.hands):
            if p != me:
                others |= h
        if not trick:
            return self._lead(deal, cards, hand, others, queen_out)
        led = trick[0] // NUM_RANKS
        led_mask = SUIT_MASKS[led]
        follow = cards & led_mask
        values = self.values
        if follow:
            top = _highest(deal.trick_mask & led_mask)
            below = follow & ((1 << top) - 1)
            above = follow & ~((1 << top) - 1)
            last = len(trick) == deal.num_players - 1
            penalty = deal.trick_mask & self.point_mask
            if queen_out and follow & QS_BIT and top in _HIGH_SPADES:
                return QS
            if below:
                if last and not penalty and above & ~QS_BIT:  # a clean last trick: shed a high card
                    high = _highest(above & ~QS_BIT)
                    if high % NUM_RANKS >= 8 or (queen_out and high in _HIGH_SPADES):
                        return high
                return _highest(below)
            keep = follow & ~QS_BIT
            if last:  # every card wins: win high, keep the ♠Q
                return _highest(keep or follow)
            if deal.trick_number == 0 and not penalty and led != 3:
                safe = keep & ~(_HIGH_SPADE_MASK if queen_out else 0)
                return _highest(safe or follow)
            return _lowest(follow)
        # void: the ♠Q, then ♠A/♠K while the ♠Q is out, then the card most likely to win later, points first
        best, best_danger = -1, -(10.0**9)
        mask = cards
        while mask:
            low = mask & -mask
            c = low.bit_length() - 1
            mask ^= low
            value = values[c]
            if value < 0:
                d = -100.0
            elif c == QS and self.queen_counts:
                d = 100.0 + value
            elif queen_out and c in _HIGH_SPADES:
                d = 80.0 + c % NUM_RANKS
            else:
                d = self._keep_danger(c, hand, others) + (value * 3.0 if value > 0 else 0.0)
            if d > best_danger:
                best, best_danger = c, d
        return best

    @staticmethod
    def _keep_danger(card: int, hand: int, others: int) -> float:
        """How likely ``card`` is to win a trick later (the heuristic bot's measure, on bitmasks)."""
        suit_mask = SUIT_MASKS[card // NUM_RANKS]
        lower = (others & suit_mask & ((1 << card) - 1)).bit_count()
        higher = (others & suit_mask & ~((2 << card) - 1)).bit_count()
        return card % NUM_RANKS + 1.5 * lower / (1 + higher) - 0.3 * (hand & suit_mask).bit_count()

    def _lead(self, deal: Deal, cards: int, hand: int, others: int, queen_out: bool) -> int:
        """The heuristic bot's lead, on bitmasks: flush the ♠Q with spades below it while holding none of
        ♠Q/♠K/♠A; otherwise the card least likely to win a trick with points."""
        if queen_out and not hand & _TOP_SPADES_MASK:
            low_spades = cards & SUIT_MASKS[2] & ((1 << QS) - 1)
            if low_spades:
                return low_spades.bit_length() - 1
        values = self.values
        heart_exposure = 1.0 + (deal.num_players - 1) * 1.5
        best, best_cost = -1, 10.0**9
        mask = cards
        while mask:
            low = mask & -mask
            c = low.bit_length() - 1
            mask ^= low
            suit = c // NUM_RANKS
            higher = (others & SUIT_MASKS[suit] & ~((2 << c) - 1)).bit_count()
            win_risk = 1.0 if higher == 0 else 1.0 / (1.0 + 1.5 * higher)
            cost = win_risk * (heart_exposure if suit == 3 else 1.0) + max(values[c], 0) * (win_risk + 0.2)
            if c == QS and self.queen_counts:
                cost += 13.0
            elif queen_out and c in _HIGH_SPADES:
                cost += 8.0
            elif queen_out and suit == 2 and hand & QS_BIT:
                cost += 2.0
            if values[c] < 0:
                cost += -12.0 if higher == 0 else 3.0
            cost += 0.05 * (c % NUM_RANKS)
            if cost < best_cost:
                best, best_cost = c, cost
        return best


class RandomPolicy:
    """Uniform over the legal set, on the engine directly."""

    trusted = True

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng

    def __call__(self, deal: Deal) -> int:
        actions = deal.legal_actions()
        return actions[self.rng.randrange(len(actions))] if len(actions) > 1 else actions[0]


class BotPolicy:
    """Any bot (the heuristic bot, a model bot) on each world seat's own observation vector."""

    def __init__(self, bot: Any) -> None:
        self.bot = bot

    def __call__(self, deal: Deal) -> int:
        actions = deal.legal_actions()
        if len(actions) == 1:
            return actions[0]
        seat = deal.current_player
        mask = np.zeros(68, np.int8)
        mask[actions] = 1
        return int(self.bot.act({"observation": encode(deal, seat), "action_mask": mask}))


class MixedPolicy:
    """The heuristic bot until ``tricks`` more tricks are complete, then the lean policy: the moves nearest
    the decision, which matter most, by the faithful player, the rest by the cheaper one."""

    trusted = True  # the heuristic bot and the lean policy only choose legal actions

    def __init__(self, rules: Rules, rng: random.Random, tricks: int = 1) -> None:
        self.heuristic = HeuristicRollout(rules)
        self.lean = LeanPolicy(rules, rng)
        self.tricks = tricks

    def play_out(self, deal: Deal, voids: list[int]) -> Deal:
        until = deal.trick_number + self.tricks
        heuristic = self.heuristic
        while deal.phase != DONE and deal.trick_number < until:
            action = heuristic.decide(deal, voids)
            if deal.phase == PLAYING and deal.trick and action < NUM_CARDS and not deal._led_mask >> action & 1:
                voids[deal.current_player] |= 1 << (deal.trick[0] // NUM_RANKS)
            deal.apply_action(action)
        return rollout(deal, self.lean)


class OwnSeatRollout(HeuristicRollout):
    """The heuristic bot's decisions for every other seat and a model's for the searching seat (seat 0 of
    every sampled world): each candidate is scored by how the seat itself would go on to play it, not by
    how the heuristic bot would (``pimc:own=<model>``; the expert-iteration teacher). The opponents stay
    the heuristic bot, so ``weigh`` still reads their plays."""

    def __init__(self, rules: Rules, bot: Any, match_episode: bool = False) -> None:
        super().__init__(rules, match_episode)
        self.own = bot

    def play_out(self, deal: Deal, voids: list[int]) -> Deal:
        decide = self.decide
        act = self.own.act
        while deal.phase != DONE:
            legal = deal.legal_mask()
            if legal & (legal - 1) == 0:
                action = legal.bit_length() - 1
            elif deal.current_player == 0:
                mask = np.zeros(68, np.int8)
                mask[mask_to_actions(legal)] = 1
                action = int(act({"observation": encode(deal, 0), "action_mask": mask}))
            else:
                action = decide(deal, voids)
            apply_noting_voids(deal, action, voids)
        return deal


def _best_moon_choice(deal: Deal) -> int:
    """The shooter's better option for its own deal points (ties: subtract)."""
    best, best_score = MOON_SUBTRACT, None
    for a in (MOON_SUBTRACT, MOON_ADD):
        probe = fast_clone(deal)
        probe.apply_action(a)
        score = probe.scores[deal.current_player]
        if best_score is None or score < best_score:
            best, best_score = a, score
    return best


def make_policy(name: str, rules: Rules, rng: random.Random, seed: int | None, match_episode: bool = False) -> Any:
    """The rollout policy ``name``: ``heuristic``, ``lean``, ``random``, ``mixed``/``mixedK`` or a model
    directory / name."""
    if name == "heuristic":
        return HeuristicRollout(rules, match_episode)
    if name == "lean":
        return LeanPolicy(rules, rng)
    if name == "random":
        return RandomPolicy(rng)
    if name.startswith("mixed"):  # mixed = mixed1: the heuristic for the rest of this trick; mixedK: K tricks
        return MixedPolicy(rules, rng, int(name[5:] or 1))
    return BotPolicy(load_bot(name, rules, seed))


def rollout(deal: Deal, policy: Any, voids: list[int] | None = None) -> Deal:
    """Play ``deal`` out with ``policy`` (in place) and return it. A policy with ``play_out(deal, voids)``
    (the heuristic and mixed ones: they read the voids shown, ``voids``, per seat a mask of suits) plays
    it itself. A policy marked ``trusted`` (it only returns actions of ``deal.legal_mask()``: the lean and
    random policies) has its card plays applied through the engine's own trick step without the legality
    check again (the same state change as ``apply_action``, which every other action and untrusted
    policy goes through)."""
    play_out = getattr(policy, "play_out", None)
    if play_out is not None:
        return play_out(deal, voids if voids is not None else [0] * deal.num_players)
    apply = deal.apply_action
    if not getattr(policy, "trusted", False):
        while deal.phase != DONE:
            apply(policy(deal))
        return deal
    play = deal._play
    record = deal.actions.append
    while deal.phase != DONE:
        action = policy(deal)
        if deal.phase == PLAYING and action < NUM_CARDS:
            deal._legal = None
            record(action)
            play(action)
        else:
            apply(action)
    return deal


def play_out_after(world: Deal, action: int, policy: Any, shown: list[int]) -> Deal:
    """A clone of ``world`` with ``action`` applied and the rest played out by ``policy``: one rollout of a
    candidate in a sampled world (``shown``, the voids the view shows, is copied, not changed)."""
    sim = fast_clone(world)
    voids = shown[:]
    apply_noting_voids(sim, action, voids)
    return rollout(sim, policy, voids)


def apply_noting_voids(deal: Deal, action: int, voids: list[int]) -> None:
    """``deal.apply_action(action)``, adding to ``voids`` the void a card off the led suit shows."""
    if deal.phase == PLAYING and action < NUM_CARDS and deal.trick and not deal._led_mask >> action & 1:
        voids[deal.current_player] |= 1 << (deal.trick[0] // NUM_RANKS)
    deal.apply_action(action)


def equivalent_cards(view: Any, legal: list[int], rules: Rules) -> list[list[int]]:
    """The legal actions in classes that are the same action for the outcome: cards of one suit and the
    same value with nothing between them but cards played in earlier tricks (whichever is played, every
    trick goes the same way). The ♠Q is always alone (rules treat it apart); special actions too."""
    values = rules.tables.card_values
    dead = 0
    for row in view.played_by:
        for c in row:
            dead |= 1 << c
    for c in view.trick:
        dead &= ~(1 << c)
    classes: list[list[int]] = []
    previous = -1
    for a in legal:
        if (
            previous >= 0
            and a < NUM_CARDS
            and a != QS
            and previous != QS
            and a // NUM_RANKS == previous // NUM_RANKS
            and values[a] == values[previous]
            and (dead >> (previous + 1)) & ((1 << (a - previous - 1)) - 1) == (1 << (a - previous - 1)) - 1
        ):
            classes[-1].append(a)
        else:
            classes.append([a])
        previous = a
    return classes


def trick_agrees(world: Deal, view: Any, policy: HeuristicRollout) -> bool:
    """Whether the heuristic bot, holding the world's hands, would have played the current trick's cards
    so far: the trick is replayed from its start (the cards back in their hands) and each play with a
    choice compared. Voids shown in this trick are taken as shown only from the play that shows them."""
    trick = view.trick
    start = fast_clone(world)
    seats = list(world.trick_seats)
    for c, p in zip(trick, seats, strict=True):
        start.hands[p] |= 1 << c
        start.played_by[c] = -1
    before = 0
    for pile in world.won:
        before |= pile
    before &= ~world.kitty
    start.trick = []
    start.trick_seats = []
    start.trick_mask = 0
    start._led_mask = 0
    start.play_order = start.play_order[: len(start.play_order) - len(trick)]
    start.queen_played = bool(before & QS_BIT)
    start.hearts_broken = bool(before & _HEARTS_MASK) or (start.queen_played and start._qs_breaks)
    start.void_declined = False
    start.current_player = seats[0]
    start._legal = None
    voids = view_voids(view.void_in)
    led = 1 << (trick[0] // NUM_RANKS)
    for c, p in zip(trick, seats, strict=True):
        if c // NUM_RANKS != trick[0] // NUM_RANKS:
            voids[p] &= ~led
    for c, p in zip(trick, seats, strict=True):
        if start.current_player != p or start.phase != PLAYING:
            return True  # the replay cannot follow the view (a rule's special step): no evidence
        cards = start._play_legal() & _CARD_BITS
        if not cards >> c & 1:
            return True
        if cards & (cards - 1) and policy.play(start, cards, voids) != c:
            return False
        if start.trick and c // NUM_RANKS != start.trick[0] // NUM_RANKS:
            voids[p] |= led
        start._legal = None
        start._play(c)
    return True


# ---------------------------------------------------------------------------------------------
# PIMC
# ---------------------------------------------------------------------------------------------


class _SearchBot:
    name = "search"

    def __init__(self, rules: Rules, seed: int | None, rollout: str, passing: str) -> None:
        if passing not in ("heuristic", "search"):
            raise ValueError(f"passing is 'heuristic' or 'search', got {passing!r}")
        self.rules = rules
        self.rollout_name = rollout
        self.passing = passing
        self.sampler = BeliefSampler(rules, exact_history=False)
        self.heuristic = HeuristicBot(rules, seed)
        self.reset(seed)

    def reset(self, seed: int | None = None) -> None:
        self.rng = random.Random(seed)
        self.policy = make_policy(self.rollout_name, self.rules, self.rng, seed)

    def act(self, observation: Mapping[str, np.ndarray]) -> int:
        legal = legal_actions(observation)
        if not legal:
            raise ValueError("no legal action: this observation is not for the seat to move")
        if len(legal) == 1:
            return int(legal[0])
        view = decode_observation(observation["observation"], self.rules)
        if self.passing == "heuristic" and view.phase == "passing" and legal[0] < NUM_CARDS:
            return self.heuristic.act(observation)
        if isinstance(self.policy, HeuristicRollout):  # the moon choice in the rollouts reads the episode kind
            self.policy.match_episode = view.match_episode
        return self.search(view, legal, observation)

    def search(self, view: Any, legal: list[int], observation: Mapping[str, np.ndarray]) -> int:  # pragma: no cover
        raise NotImplementedError


class PIMCBot(_SearchBot):
    """Perfect-information Monte Carlo over ``worlds`` sampled worlds (see the module docstring)."""

    name = "pimc"

    def __init__(
        self,
        rules: Rules,
        seed: int | None = None,
        *,
        worlds: int = 48,
        rollout: str = "heuristic",
        passing: str = "heuristic",
        margin: float | None = None,
        weigh: bool = True,
        objective: str = "points",
        prior: str | Path | None = None,
        confident: float = 0.99,
        floor: float = 0.01,
        own: str | Path | None = None,
    ) -> None:
        if worlds < 1:
            raise ValueError(f"worlds must be at least 1, got {worlds}")
        if objective not in OBJECTIVES:
            raise ValueError(f"objective is one of {', '.join(OBJECTIVES)}, got {objective!r}")
        if not 0.0 < confident <= 1.0:
            raise ValueError(f"confident is a probability in (0, 1], got {confident}")
        if not 0.0 <= floor < 1.0:
            raise ValueError(f"floor is a probability in [0, 1), got {floor}")
        self.worlds = worlds
        self.margin = margin
        self.weigh = weigh
        self.objective = objective
        self.prior = load_bot(prior, rules, seed) if prior is not None else None
        self.confident = confident
        self.floor = floor
        if own is not None and rollout != "heuristic":
            raise ValueError(
                f"own=<model> plays the seat in heuristic rollouts: rollout must be heuristic, not {rollout!r}"
            )
        self.own = load_bot(own, rules, seed) if own is not None else None
        self.searched = 0
        self.classes: list[list[int]] = []  # the last evaluate's classes of equivalent actions
        super().__init__(rules, seed, rollout, passing)

    def reset(self, seed: int | None = None) -> None:
        super().reset(seed)
        if self.own is not None:
            self.policy = OwnSeatRollout(self.rules, self.own)

    def score(self, world: Deal) -> float:
        """What the search minimises in a played-out world: the seat's deal points (``points``), or its
        points less the others' mean (``relative``: what a match is won by; an opponent's moon, which
        leaves the seat at 0 in the ``subtract_from_shooter`` mode, then counts against it)."""
        scores = world.scores
        if self.objective == "points":
            return scores[0]
        return scores[0] - (sum(scores) - scores[0]) / (len(scores) - 1)

    def evaluate(self, view: Any, legal: list[int], candidates: list[int] | None = None) -> dict[int, float]:
        """Each legal action's mean deal points for the seat over the sampled worlds (only ``candidates``,
        a subset of ``legal``, where given). Cards that are the same action for the outcome
        (``equivalent_cards``) are rolled out once, for the lowest of them."""
        searched = legal if candidates is None else candidates
        classes = equivalent_cards(view, searched, self.rules) if view.phase == "playing" else [[a] for a in searched]
        candidates = [group[0] for group in classes]
        totals = dict.fromkeys(candidates, 0.0)
        policy = self.policy
        if isinstance(policy, HeuristicRollout):  # the moon choice in the rollouts reads the episode kind
            policy.match_episode = view.match_episode
        score = self.score_action
        shown = view_voids(view.void_in)
        self.classes = classes
        for world in self.draw_worlds(view, legal):
            for a in candidates:
                totals[a] += score(a, play_out_after(world, a, policy, shown))
        return {a: totals[group[0]] / self.worlds for group in classes for a in group}

    def score_action(self, action: int, world: Deal) -> float:
        """``score`` of the world that ``action`` was rolled out in (a subclass may tally by action)."""
        return self.score(world)

    def draw_worlds(self, view: Any, legal: list[int]) -> list[Deal]:
        """``worlds`` sampled worlds. With ``weigh`` on (the default), the heuristic rollout and a trick in
        progress, worlds in which the heuristic bot would not have played the trick's cards so far are set aside
        (up to ``4 * worlds`` draws) and used only when too few others turn up: the opponents' plays in
        this trick tell about their hands, as far as they play like the rollout policy."""
        sample = self.sampler.sample
        rng = self.rng
        policy = self.policy
        if not (self.weigh and view.trick and isinstance(policy, HeuristicRollout)):
            return [sample(view, rng, legal) for _ in range(self.worlds)]
        kept: list[Deal] = []
        spare: list[Deal] = []
        for _ in range(4 * self.worlds):
            world = sample(view, rng, legal)
            (kept if trick_agrees(world, view, policy) else spare).append(world)
            if len(kept) == self.worlds:
                return kept
        return kept + spare[: self.worlds - len(kept)]

    def act(self, observation: Mapping[str, np.ndarray]) -> int:
        if self.prior is None:
            return super().act(observation)
        legal = legal_actions(observation)
        if len(legal) < 2 or MOON_SUBTRACT in legal:  # the moon choice: searched, never the prior's
            return super().act(observation)
        probs = self.prior_probabilities(observation)
        favourite = int(max(legal, key=lambda a: (probs[a], -a)))
        view = decode_observation(observation["observation"], self.rules)
        if probs[favourite] >= self.confident or (
            view.phase == "passing" and legal[0] < NUM_CARDS and self.passing == "heuristic"
        ):
            return favourite  # the model is sure, or it is a pass card (the model passes)
        candidates = [a for a in legal if probs[a] >= self.floor or a == favourite]
        if len(candidates) == 1:
            return favourite
        self.searched += 1
        means = self.evaluate(view, legal, candidates)
        return self.choose(means, candidates, favourite)

    def prior_probabilities(self, observation: Mapping[str, np.ndarray]) -> np.ndarray:
        """The prior model's masked softmax over the actions (float64; zero off the legal set)."""
        assert self.prior is not None
        logits = self.prior.policy.masked_logits(observation["observation"], observation["action_mask"])
        z = logits.astype(np.float64) - float(logits.max())
        p = np.exp(z) * np.asarray(observation["action_mask"], dtype=bool)
        return p / p.sum()

    def choose(self, means: Mapping[int, float], candidates: list[int], anchor: int | None) -> int:
        """The candidate with the best mean (ties: the lower id); with ``margin``, ``anchor`` (the
        heuristic's or the prior's move) unless the best beats it by more than ``margin`` points."""
        best = int(min(candidates, key=lambda a: (means[a], a)))
        if self.margin is not None and anchor is not None and means[anchor] - means[best] <= self.margin:
            return anchor
        return best

    def search(self, view: Any, legal: list[int], observation: Mapping[str, np.ndarray]) -> int:
        means = self.evaluate(view, legal)
        anchor = self.heuristic.act(observation) if self.margin is not None else None
        return self.choose(means, legal, anchor)


# ---------------------------------------------------------------------------------------------
# ISMCTS
# ---------------------------------------------------------------------------------------------


class _Node:
    __slots__ = ("avail", "children", "total", "visits")

    def __init__(self) -> None:
        self.children: dict[int, _Node] = {}
        self.total: dict[int, float] = {}
        self.visits: dict[int, int] = {}
        self.avail: dict[int, int] = {}


class ISMCTSBot(_SearchBot):
    """Single-observer information-set MCTS over the belief sampler (see the module docstring)."""

    name = "ismcts"

    def __init__(
        self,
        rules: Rules,
        seed: int | None = None,
        *,
        iterations: int = 300,
        rollout: str = "heuristic",
        passing: str = "heuristic",
        exploration: float = 0.7,
    ) -> None:
        if iterations < 1:
            raise ValueError(f"iterations must be at least 1, got {iterations}")
        self.iterations = iterations
        self.exploration = exploration
        super().__init__(rules, seed, rollout, passing)

    def search(self, view: Any, legal: list[int], observation: Mapping[str, np.ndarray]) -> int:
        root = _Node()
        policy = self.policy
        scale = max(self.rules.tables.penalty_total, 1)
        c = self.exploration
        shown = view_voids(view.void_in)
        for _ in range(self.iterations):
            world = self.sampler.sample(view, self.rng, legal)
            voids = shown[:]
            node = root
            path: list[tuple[_Node, int, int]] = []
            expanded = False
            while world.phase != DONE:
                actions = world.legal_actions()
                seat = world.current_player
                for a in actions:
                    node.avail[a] = node.avail.get(a, 0) + 1
                untried = [a for a in actions if a not in node.visits]
                if untried:
                    a = untried[self.rng.randrange(len(untried))]
                    expanded = True
                else:
                    best, best_value = actions[0], -math.inf
                    for b in actions:
                        v = node.visits[b]
                        value = -node.total[b] / (v * scale) + c * math.sqrt(math.log(node.avail[b]) / v)
                        if value > best_value:
                            best, best_value = b, value
                    a = best
                path.append((node, a, seat))
                apply_noting_voids(world, a, voids)
                if expanded:
                    break
                node = node.children.setdefault(a, _Node())
            rollout(world, policy, voids)
            scores = world.scores
            for n, a, seat in path:
                n.visits[a] = n.visits.get(a, 0) + 1
                n.total[a] = n.total.get(a, 0.0) + scores[seat]
        return int(max(legal, key=lambda a: (root.visits.get(a, 0), -root.total.get(a, 0.0), -a)))


# ---------------------------------------------------------------------------------------------
# Specs
# ---------------------------------------------------------------------------------------------


def search_bot(spec: str, rules: Rules, seed: int | None = None) -> PIMCBot | ISMCTSBot:
    """The search bot of a spec: ``pimc``, ``pimc:worlds=64,rollout=heuristic``, ``ismcts:iterations=500``
    (options may also be separated by ``:``, ``pimc:worlds=64:rollout=mixed``, for command lines that split
    bot lists at commas, as ``hearts play --opponents`` does);
    options ``worlds``/``iterations`` (ints), ``rollout`` (heuristic, lean, random, mixed or a model),
    ``passing`` (heuristic, search), for PIMC ``margin`` (float), ``weigh`` (0 or 1), ``objective``
    (points, relative), ``prior`` (a model) with ``confident`` and ``floor`` (probabilities) and ``own`` (a
    model: the seat's own moves in the rollouts), and for ISMCTS
    ``exploration`` (float)."""
    kind, _, rest = spec.partition(":")
    if kind not in SEARCH_SPECS:
        raise ValueError(f"not a search bot spec: {spec!r}")
    options: dict[str, Any] = {}
    for item in filter(None, (x.strip() for x in rest.replace(":", ",").split(","))):
        key, eq, value = item.partition("=")
        if not eq:
            raise ValueError(f"bad option {item!r} in {spec!r}: use key=value")
        key = key.strip()
        value = value.strip()
        if key in ("worlds", "iterations"):
            try:
                options[key] = int(value)
            except ValueError:
                raise ValueError(f"{spec}: {key} must be a number, got {value!r}") from None
        elif key in ("exploration", "margin", "confident", "floor"):
            try:
                options[key] = float(value)
            except ValueError:
                raise ValueError(f"{key} is a number, got {value!r} in {spec!r}") from None
        elif key in ("rollout", "passing", "objective", "prior", "own"):
            options[key] = value
        elif key == "weigh":
            if value not in ("0", "1"):
                raise ValueError(f"weigh is 0 or 1, got {value!r}")
            options[key] = value == "1"
        else:
            raise ValueError(
                f"unknown option {key!r} for {kind}: use worlds/iterations, rollout, passing, weigh, objective, "
                "prior, confident, floor, own"
            )
    if "rollout" in options and options["rollout"] not in ROLLOUTS and not Path(options["rollout"]).exists():
        load_bot(options["rollout"], rules, seed)  # fails now, with its reason, on a bad model name
    if kind == "pimc":
        if "iterations" in options or "exploration" in options:  # margin, weigh, objective are PIMC's only
            raise ValueError("pimc takes worlds=, not iterations= or exploration=")
        if ("confident" in options or "floor" in options) and "prior" not in options:
            raise ValueError("confident= and floor= shape the prior: give prior=<model> too")
        return PIMCBot(rules, seed, **options)
    pimc_only = ("worlds", "margin", "weigh", "objective", "prior", "confident", "floor", "own")
    if any(key in options for key in pimc_only):
        raise ValueError(f"ismcts takes iterations=, not {'=, '.join(pimc_only)}=")
    return ISMCTSBot(rules, seed, **options)


__all__ = [
    "SEARCH_SPECS",
    "BotPolicy",
    "ISMCTSBot",
    "LeanPolicy",
    "OwnSeatRollout",
    "PIMCBot",
    "RandomPolicy",
    "equivalent_cards",
    "make_policy",
    "rollout",
    "search_bot",
    "trick_agrees",
]
