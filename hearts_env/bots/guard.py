"""A moon guard around any bot: ``guard:base=ppo-robust`` plays the base bot, and where one opponent
holds every point taken so far, a search that assumes that opponent is shooting decides instead.

Why a model needs one. In the standard rules (``moon_mode = subtract_from_shooter``) a moon leaves
every other seat at 0 points for the deal: a player that minimises its own points has nothing to
lose by letting it through, and the models trained that way concede a persistent seeker 24-31% of
its deals (the heuristic bot 18%). What a moon costs the others is their standing: a match is won
by the lowest total, and the seeker's -26 is 26 points on each of them. The guard's search scores
that (``PIMCBot(objective="relative")``: the seat's points less the others' mean), and it plays the
holder out as a moon seeker (``SeekerRollout``: it keeps leading and winning with its highest cards
while no other seat has taken a point), so that the worlds where the holder can still make it show
up. Where the holder's sampled hands cannot, the search finds no moon and plays for points.

The guard reads only the seat's observation: the trigger from the decoded view (the points each
seat has won in tricks), the search through the belief sampler. Where the rules have no moon, or
the moon cancels the deal, it never fires and the bot is its base.

The search's worlds underrate a real seeker. The belief sampler deals the holder a uniform share
of the unseen cards, while a seeker passed its low cards and has been winning with its highest
ones; in many worlds its moon then fails by itself, and the plain mean says that points matter more
than stopping it. ``penalty`` adds that many points to every world where the holder shoots (risk
aversion toward the one outcome that costs the most): at ``penalty=25`` a persistent scripted seeker
shoots a third as often against three guarded ``ppo-mixed`` as at ``0``, for a few hundredths of a
point per deal at the heuristic bots' table (docs/robustness.md, "Robustness"). The default stays ``0`` so that
every published figure of a plain ``guard:`` spec still reproduces.

Spec: ``guard:base=<bot spec>,worlds=32,points=1,penalty=0[,margin=M][,threat=T][,wins=K][,shoot=M][,bonus=M]``
``[,critic=M]`` (options also separated by ``:``);
``base`` defaults to ``ppo-robust``, ``points`` is the least the holder must have taken (``13``: only
once it has the queen or as many hearts), ``worlds`` the search's budget and ``penalty`` the points
added to a world where the holder shoots. A search base takes the options after it that are not the
guard's (``guard:base=pimc:prior=ppo-robust``; ``worlds``, ``points`` and ``penalty`` stay the
guard's). ``bot.guarded`` counts the decisions the search made.

``shoot=M`` is the other side of the moon: where the seat's own moon is still possible (no other seat has
won a penalty card; where the moon needs every trick, the seat has won them all) and a screen of
``SHOOT_SCREEN`` sampled worlds shows it in reach (the seat going for it shoots in one of eight), the guard
compares two plans over the same sampled worlds: the base's move, played out by the heuristic rollout, and
every legal move played out by the seat going for the moon (``SeekerRollout``, the seat as the seeker).
Where the best moon plan scores at least ``M`` of the seat's points better per world, its move is played.
Why: a model trained to minimise its own points almost never shoots (1 moon in 600 deals at a table of
three ``pimc``, which shoot in 2.5% of theirs, and that is most of the point per deal the model lost to
them; docs/robustness.md, "A guard that also shoots"). ``bot.shots`` counts the decisions the moon plan won. Off by
default.

``margin=M`` and ``threat=T`` trust the base where the guard fires but sees little at stake: the
base's own move stands unless the search scores another at least ``M`` points better (the seat's
relative result), or the base's move lets the holder shoot in at least a share ``T`` of the search's
worlds. Why: the guard fires at a deal's first points while one opponent holds them, mostly where no
moon is near, and there the 32-world search with heuristic rollouts plays worse than a trained base
(the plain guard costs ``ppo-tuned`` 0.2 points per deal at the heuristic bots' table); a moon at stake
moves the relative result by several points, a noisy ordinary choice by less. Without either (the
default) the search's move is played, as every earlier figure was measured; ``bot.overridden`` counts
the decisions where the search's move was played instead of the base's (without either option, every
decision the search made).

``wins=K`` waits for evidence that the holder is going for the moon: the guard fires only once the holder
has also won at least ``K`` tricks with a queen or higher (read from the view: a seat's own card in a trick
it won is that trick's winner). Why: a seeker takes control with its highest cards, while the deal's first
points mostly land on a player who could not duck; at ``wins=2`` the guard that trusts its base keeps 14% of
its overrides at the heuristic bots' table and 87-90% of those against a persistent seeker (docs/robustness.md, "A
guard that waits for the seeker"). ``0`` (the default) fires at the first points, as before.

``bonus=M`` watches the bonus card where it counts for the seat (omnibus's ♦J at -10): while no one has won it, at each
play the guard searches every legal move as ``pimc`` does (its own points, heuristic rollouts, the guard's ``worlds``),
and where the best scores at least ``M`` points better than the base's move (and better at all, at ``M = 0``), it is
played. Why: a model trained on the three rule sets at once wins the ♦J in 12% of its omnibus deals at a table of three
``pimc``, which win it in 28% of theirs, and those 1.6 points per deal were most of its gap to them (docs/robustness.md,
"The bonus card and the moon choice"). ``bot.bonus_plays`` counts the decisions it changed. Off by default; where the
rules have no bonus card, or it is worth points, it never fires.

``critic=M`` is the same search at every play, on any rules: where the search's best move scores at least ``M`` of the
seat's points better than the base's, it is played (with ``bonus`` too, the smaller margin applies while the bonus card
is unwon). Why: on microsoft the guard that shoots was level with three ``pimc`` and its gap had no single cause
(docs/robustness.md, "A search critic"); the model proposes, the search vetoes where it sees a clear loss.
``bot.critic_plays`` counts the moves it changed outside the bonus card's window. Off by default.

The moon choice (``shooter_choice`` rules) is the guard's, not the base's: it plays the heuristic bot's rule
(subtract in deal episodes, where -26 is always the better score; add only where that ends the match with
the seat alone lowest). Why: a model almost never shoots in training, so its choice is untrained, and the
shipped ones add: 26 points thrown away at each of the guard's own moons (docs/robustness.md, "The bonus card and the
moon choice").
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from ..core.actions import MOON_SUBTRACT
from ..core.cards import SUIT_MASKS, cards_of
from ..core.deal import Deal
from ..core.rules import Rules
from ..obs import SeatView, decode_observation
from .base import Bot, legal_actions
from .heuristic import HeuristicBot
from .rollout import _RANK, _SUIT, HeuristicRollout, view_voids
from .search import SEARCH_SPECS, PIMCBot, equivalent_cards, play_out_after, rollout

GUARD_SPEC = "guard"
#: Points added to the guard's search value of a world where the holder shoots (``penalty=``).
DEFAULT_PENALTY = 0.0
#: The measured moon-averse setting (docs/robustness.md, "A moon-averse guard"), offered by ``hearts serve``.
MOON_AVERSE_PENALTY = 25
#: The measured setting that trusts the base (docs/robustness.md, "A guard that trusts its base"): the plain guard's
#: moon defence; on ppo-tuned about its cost (0.17 points per deal against 0.19), on pimc:prior=ppo-tuned 0.08 less.
#: Offered by ``hearts serve``.
TRUSTING_OPTIONS = "margin=1,threat=0.03"
#: The guard that trusts its base and waits for the seeker (docs/robustness.md, "A guard that waits for the seeker"):
#: the trusting guard's moon defence at a tenth of its cost on ppo-tuned. Offered by ``hearts serve``.
WAITING_OPTIONS = f"{TRUSTING_OPTIONS},wins=2"
#: The waiting guard that also shoots the moon where its plans see one (docs/robustness.md, "A guard that also shoots"):
#: the model's own moons, which a model trained on its own points almost never tries. Offered by ``hearts serve``.
SHOOTING_OPTIONS = f"{WAITING_OPTIONS},shoot=2"
#: The guard that shoots, with a search critic at every play (docs/robustness.md, "A search critic"): the model
#: proposes, a 32-world search of the seat's own points vetoes a move it scores a point worse. Offered by ``hearts
#: serve``.
CRITIC_OPTIONS = f"{SHOOTING_OPTIONS},critic=1"
#: The critic guard that also searches every play while the bonus card is unwon (docs/robustness.md, "The bonus card and
#: the moon choice"): omnibus's ♦J was most of the mixed model's gap to ``pimc`` there. Where the rules have no bonus
#: card it plays as ``CRITIC_OPTIONS``. Offered by ``hearts serve``.
BONUS_CRITIC_OPTIONS = f"{SHOOTING_OPTIONS},bonus=1,critic=1"


class SeekerRollout(HeuristicRollout):
    """The heuristic rollout, except that seat ``seeker`` goes for the moon while it still can (no other
    seat has won a point; where the moon needs every trick, it has won them all): it leads its highest
    card, follows with its highest card when that beats the trick and its lowest when nothing does, and
    when void discards its lowest point-free card, as ``moon:giveup=late`` plays."""

    def __init__(self, rules: Rules, seeker: int, match_episode: bool = False) -> None:
        super().__init__(rules, match_episode)
        self.seeker = seeker
        self.bonus_needed = rules.moon_requires_bonus_card and self.bonus_bit != 0

    def alive(self, deal: Deal) -> bool:
        """Whether the seeker's moon is still possible from the won piles."""
        seeker = self.seeker
        positive = self.positive_mask & ~deal.kitty
        for p, pile in enumerate(deal.won):
            if p != seeker and (pile & positive or (self.bonus_needed and pile & self.bonus_bit)):
                return False
        return not (self.all_tricks and deal.tricks_won[seeker] != deal.trick_number)

    def dead(self, deal: Deal) -> bool:
        """Whether the seeker's moon is lost (``not alive``)."""
        return not self.alive(deal)

    def _choose(self, deal: Deal, cards: int, voids: Sequence[int], everyone: int, holder: int, total: int) -> int:
        if deal.current_player != self.seeker or not self.alive(deal):
            return super()._choose(deal, cards, voids, everyone, holder, total)
        trick = deal.trick
        if not trick:
            return max(cards_of(cards), key=lambda c: (_RANK[c], c))
        led_mask = SUIT_MASKS[_SUIT[trick[0]]]
        if not cards & ~led_mask:  # following
            winning = (deal.trick_mask & led_mask).bit_length() - 1
            above = cards & ~((2 << winning) - 1)
            return above.bit_length() - 1 if above else (cards & -cards).bit_length() - 1
        values = self.values
        return min(cards_of(cards), key=lambda c: (values[c] > 0, values[c] < 0, _RANK[c], c))


class GuardSearch(PIMCBot):
    """The guard's search: the relative objective, plus ``penalty`` points in every world where the holder
    shoots. Why a penalty: the belief sampler deals the holder a uniform hand, weaker than a seeker's
    (it passed low and has been winning with high cards), so the plain mean underrates the moon."""

    def __init__(self, rules: Rules, seed: int | None, worlds: int, penalty: float) -> None:
        super().__init__(rules, seed, worlds=worlds, objective="relative")
        self.penalty = penalty
        self.holder = -1

    def aim(self, holder: int, match_episode: bool) -> None:
        """Search against ``holder`` (a relative seat) as the seeker: its rollout and its penalty."""
        self.policy = SeekerRollout(self.rules, holder, match_episode)
        self.holder = holder

    def score(self, world: Deal) -> float:
        value = super().score(world)
        result = world.result
        if self.penalty and result is not None and result.shooter == self.holder:
            value += self.penalty
        return value

    def evaluate(self, view: Any, legal: list[int], candidates: list[int] | None = None) -> dict[int, float]:
        self.shots: dict[int, int] = {}
        return super().evaluate(view, legal, candidates)

    def score_action(self, action: int, world: Deal) -> float:
        result = world.result
        if result is not None and result.shooter == self.holder:
            self.shots[action] = self.shots.get(action, 0) + 1
        return self.score(world)

    def moon_reachable(self, view: SeatView, legal: list[int], worlds: int, needed: int) -> bool:
        """Whether the seat, going for the moon from here (``SeekerRollout`` for every move of its own), shoots
        in at least ``needed`` of ``worlds`` sampled worlds: the cheap screen before ``plans`` (each rollout
        stops once the moon is lost)."""
        seeker = SeekerRollout(self.rules, 0, view.match_episode)
        seeker.stop = seeker.dead  # a rollout ends once the moon is lost
        shown = view_voids(view.void_in)
        shots = 0
        for _ in range(worlds):
            result = rollout(self.sampler.sample(view, self.rng, legal), seeker, shown[:]).result
            shots += result is not None and result.shooter == 0
            if shots >= needed:
                return True
        return False

    def plans(self, view: SeatView, legal: list[int], own: int) -> tuple[dict[int, float], float]:
        """The seat's two plans over the same ``worlds`` sampled worlds: every legal move's mean deal points for
        the seat going for the moon (``SeekerRollout``, the seat the seeker), and the mean deal points of ``own``
        (the base's move) played out by the heuristic rollout. Equivalent cards are rolled out once. Scored by
        the seat's own points, what the base was trained to lower and a tournament counts, not the guard's
        relative objective, which values a moon less against a small loss (measured: 27 moons in 600 deals at
        a table of three ``pimc`` against 36 with the points)."""
        seeker = SeekerRollout(self.rules, 0, view.match_episode)
        duck = HeuristicRollout(self.rules, view.match_episode)
        classes = equivalent_cards(view, legal, self.rules)
        moves = [group[0] for group in classes]
        moon = dict.fromkeys(moves, 0.0)
        base = 0.0
        shown = view_voids(view.void_in)
        for _ in range(self.worlds):
            world = self.sampler.sample(view, self.rng, legal)
            for a in moves:
                moon[a] += play_out_after(world, a, seeker, shown).scores[0]
            base += play_out_after(world, own, duck, shown).scores[0]
        return {a: moon[group[0]] / self.worlds for group in classes for a in group}, base / self.worlds

    def moon_share(self, action: int) -> float:
        """The share of the last evaluation's worlds in which the holder shot after ``action``."""
        for group in self.classes:
            if action in group:
                return self.shots.get(group[0], 0) / self.worlds
        raise ValueError(f"action {action} was not evaluated")


#: ``shoot=``: the screen before the moon plans are searched, (worlds, shots): where the seat going for the moon
#: shoots in fewer than ``shots`` of ``worlds`` sampled worlds, the base plays. Why: the plans cost ``worlds``
#: times the legal moves plus one rollouts (74 ms a decision here) at each decision while the seat's moon is
#: alive, and the screen passes a third of the decisions it sees. Two shots of eight passed fewer and cost moons
#: (6 against 9 over 40 sets at the heuristic bots' table, 3.83 points per deal against 3.02).
SHOOT_SCREEN = (8, 1)

#: The least rank (``0`` = 2 .. ``12`` = A) of a card that counts toward ``wins=``: a queen.
HIGH_RANK = 10


def high_wins(view: SeatView, seat: int) -> int:
    """How many tricks ``seat`` (relative) has won with a card ranked queen or higher. A seat's own card in a
    trick it won is that trick's winning card, so this reads the played and won cards of the view alone."""
    won = set(view.won_by[seat])
    return sum(1 for c in view.played_by[seat] if c in won and _RANK[c] >= HIGH_RANK)


class GuardedBot:
    """``base`` with the moon guard (see the module docstring)."""

    def __init__(
        self,
        base: Bot,
        rules: Rules,
        seed: int | None = None,
        *,
        worlds: int = 32,
        points: int = 1,
        penalty: float = DEFAULT_PENALTY,
        margin: float | None = None,
        threat: float | None = None,
        wins: int = 0,
        shoot: float | None = None,
        bonus: float | None = None,
        critic: float | None = None,
        label: str | None = None,
    ) -> None:
        if margin is not None and not (math.isfinite(margin) and margin >= 0):
            raise ValueError(f"margin must be a number of points at least 0, got {margin}")
        if threat is not None and not (0 <= threat <= 1):
            raise ValueError(f"threat must be a share of worlds between 0 and 1, got {threat}")
        if shoot is not None and not (math.isfinite(shoot) and shoot >= 0):
            raise ValueError(f"shoot must be a number of points at least 0, got {shoot}")
        if bonus is not None and not (math.isfinite(bonus) and bonus >= 0):
            raise ValueError(f"bonus must be a number of points at least 0, got {bonus}")
        if critic is not None and not (math.isfinite(critic) and critic >= 0):
            raise ValueError(f"critic must be a number of points at least 0, got {critic}")
        if points < 1:
            raise ValueError(f"points must be at least 1, got {points}")
        if wins < 0:
            raise ValueError(f"wins must be a number of tricks at least 0, got {wins}")
        if not (math.isfinite(penalty) and penalty >= 0):
            raise ValueError(f"penalty must be a number of points at least 0, got {penalty}")
        self.base = base
        self.rules = rules
        self.points = points
        self.wins = wins
        self.margin = margin
        self.threat = threat
        self.shoot = shoot
        t = rules.tables
        self.penalty_mask = t.penalty_mask
        self.bonus_bit = 1 << t.bonus_card if rules.moon_requires_bonus_card and t.bonus_card >= 0 else 0
        self.values = t.card_values
        self.active = rules.moon_enabled and rules.moon_mode != "cancel_deal" and t.penalty_total > 0
        self.search = GuardSearch(rules, seed, worlds, penalty)
        self.bonus = bonus
        card = t.bonus_card
        self.bonus_card = card if card >= 0 and t.card_values[card] < 0 else -1
        self.critique = critic
        watch = critic is not None or (bonus is not None and self.bonus_card >= 0)
        self.critic = PIMCBot(rules, seed, worlds=worlds, objective="points") if watch else None
        self.chooser = HeuristicBot(rules, seed)
        self.name = label or f"guard:{getattr(base, 'name', 'bot')}"
        self.guarded = 0
        self.overridden = 0
        self.shots = 0
        self.bonus_plays = 0
        self.critic_plays = 0

    def reset(self, seed: int | None = None) -> None:
        reset = getattr(self.base, "reset", None)
        if reset is not None:
            reset(seed)
        self.search.reset(seed)
        if self.critic is not None:
            self.critic.reset(seed)
        self.chooser.reset(seed)

    def holder(self, view: SeatView) -> int | None:
        """The opponent (relative seat) holding every point won so far, at least ``points`` of them, while
        its moon is still possible, and (``wins``) that has won at least ``wins`` tricks with a queen or
        higher; ``None`` otherwise."""
        values = self.values
        taken = [sum(values[c] for c in row if values[c] > 0) for row in view.won_by]
        holders = [r for r, pts in enumerate(taken) if pts > 0]
        if len(holders) != 1 or holders[0] == 0 or taken[holders[0]] < self.points:
            return None
        holder = holders[0]
        if self.rules.moon_requires_all_tricks and view.tricks_won[holder] != view.trick_number:
            return None
        if self.wins and high_wins(view, holder) < self.wins:
            return None
        return holder

    def own_moon_alive(self, view: SeatView) -> bool:
        """Whether the seat's own moon is still possible from what has been won: no other seat holds a penalty
        card (or, where the moon needs it, the bonus card), and where the moon needs every trick, the seat has
        won them all."""
        against = self.penalty_mask | self.bonus_bit
        for row in view.won_by[1:]:
            if any(against >> c & 1 for c in row):
                return False
        return not (self.rules.moon_requires_all_tricks and view.tricks_won[0] != view.trick_number)

    def shoot_move(self, view: SeatView, legal: list[int], own: int) -> int | None:
        """The moon plan's best move where the seat's moon is alive and that plan scores at least ``shoot``
        points better than the base's ``own`` move, else ``None``."""
        if self.shoot is None or not self.active or view.phase != "playing" or not self.own_moon_alive(view):
            return None
        if not self.search.moon_reachable(view, legal, *SHOOT_SCREEN):
            return None
        moon, base = self.search.plans(view, legal, own)
        best = min(legal, key=lambda a: (moon[a], a))
        return int(best) if base - moon[best] >= self.shoot else None

    def critic_margin(self, view: SeatView) -> float | None:
        """The least gap at which the search's move replaces the base's at this play: ``critic`` at every play,
        ``bonus`` while the bonus card is unwon (the smaller where both apply); ``None`` where neither does."""
        if self.critic is None or view.phase != "playing":
            return None
        margin = self.critique
        if self.bonus is not None and self.bonus_at_stake(view):
            margin = self.bonus if margin is None else min(margin, self.bonus)
        return margin

    def bonus_at_stake(self, view: SeatView) -> bool:
        """Whether the rules have a bonus card worth points off and no one has won it yet."""
        return self.bonus_card >= 0 and not any(self.bonus_card in row for row in view.won_by)

    def critic_move(self, view: SeatView, legal: list[int], own: int) -> int | None:
        """The best move of a ``pimc`` search (the seat's own points) where it scores at least the play's
        ``critic_margin`` better than the base's ``own`` move (and better at all), else ``None``."""
        margin = self.critic_margin(view)
        if margin is None:
            return None
        assert self.critic is not None
        means = self.critic.evaluate(view, legal)
        best = min(legal, key=lambda a: (means[a], a))
        gap = means[own] - means[best]
        return int(best) if gap > 0 and gap >= margin else None

    def search_values(self, view: SeatView, legal: list[int]) -> dict[int, float] | None:
        """The guard's search values of ``legal`` (the seat's relative result per action, lower is better)
        where it fires, else ``None`` (the base decides)."""
        holder = self.holder(view) if self.active and view.phase == "playing" else None
        if holder is None:
            return None
        self.search.aim(holder, view.match_episode)
        return self.search.evaluate(view, legal)

    def at_stake(self, means: Mapping[int, float], own: int, best: int) -> bool:
        """Whether the search's ``best`` replaces the base's ``own`` move: its gap is at least ``margin``
        points, or ``own`` lets the holder shoot in at least ``threat`` of the worlds."""
        if self.margin is not None and means[own] - means[best] >= self.margin:
            return True
        return self.threat is not None and self.search.moon_share(own) >= self.threat

    def act(self, observation: Mapping[str, np.ndarray]) -> int:
        if not self.active and self.critic is None:
            return int(self.base.act(observation))
        legal = legal_actions(observation)
        if len(legal) < 2:
            return int(self.base.act(observation))
        if MOON_SUBTRACT in legal:  # the seat shot the moon and chooses how it scores
            return int(self.chooser.act(observation))
        view = decode_observation(observation["observation"], self.rules)
        means = self.search_values(view, legal)
        if means is None:
            own = int(self.base.act(observation))
            shot = self.shoot_move(view, legal, own)
            if shot is not None:
                self.shots += 1
                return shot
            better = self.critic_move(view, legal, own)
            if better is None or better == own:
                return own
            if self.bonus is not None and self.bonus_at_stake(view):
                self.bonus_plays += 1
            else:
                self.critic_plays += 1
            return better
        self.guarded += 1
        best = min(legal, key=lambda a: (means[a], a))
        if self.margin is not None or self.threat is not None:
            own = int(self.base.act(observation))
            if own == best or not self.at_stake(means, own, best):
                return own
        self.overridden += 1
        return int(best)


#: Every option of a guard spec (after ``base=<search bot>``, the others are the search's).
GUARD_OPTIONS = ("base", "worlds", "points", "wins", "penalty", "margin", "threat", "shoot", "bonus", "critic")


def guard_bot(spec: str, rules: Rules, seed: int | None, make: Any) -> GuardedBot:
    """The guarded bot of a spec (``guard:base=ppo-robust,worlds=32,points=1,margin=2``); ``make`` builds the base
    (``make_bot``)."""
    kind, _, rest = spec.partition(":")
    if kind != GUARD_SPEC:
        raise ValueError(f"not a guard spec: {spec!r}")
    options: dict[str, Any] = {"base": "ppo-robust"}
    search_base = False  # after base=pimc, the options that are not the guard's are the search's
    for item in filter(None, (x.strip() for x in rest.replace(":", ",").split(","))):
        key, eq, value = item.partition("=")
        if not eq:
            raise ValueError(f"bad option {item!r} in {spec!r}: use key=value")
        key, value = key.strip(), value.strip()
        if search_base and key not in GUARD_OPTIONS:
            options["base"] += ("," if ":" in options["base"] else ":") + f"{key}={value}"
        elif key in ("worlds", "points", "wins"):
            try:
                options[key] = int(value)
            except ValueError:
                raise ValueError(f"{key} is a whole number, got {value!r} in {spec!r}") from None
        elif key in ("penalty", "margin", "threat", "shoot", "bonus", "critic"):
            try:
                options[key] = float(value)
            except ValueError:
                what = "a share of worlds" if key == "threat" else "a number of points"
                raise ValueError(f"{key} is {what}, got {value!r} in {spec!r}") from None
        elif key == "base":
            if value.partition(":")[0] == GUARD_SPEC:
                raise ValueError("a guard's base cannot be another guard")
            options[key] = value
            search_base = value in SEARCH_SPECS
        else:
            allowed = ", ".join(GUARD_OPTIONS)
            raise ValueError(f"unknown option {key!r} for guard: use {allowed}")
    base_spec = options.pop("base")
    base = make(base_spec, rules, seed)
    label = f"guard:{getattr(base, 'name', base_spec)}"
    return GuardedBot(base, rules, seed, label=label, **options)


__all__ = [
    "BONUS_CRITIC_OPTIONS",
    "CRITIC_OPTIONS",
    "DEFAULT_PENALTY",
    "GUARD_SPEC",
    "MOON_AVERSE_PENALTY",
    "SHOOTING_OPTIONS",
    "SHOOT_SCREEN",
    "TRUSTING_OPTIONS",
    "WAITING_OPTIONS",
    "GuardSearch",
    "GuardedBot",
    "SeekerRollout",
    "guard_bot",
    "high_wins",
]
