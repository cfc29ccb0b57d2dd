"""# Hearts

| Import               | `from hearts_env.envs import hearts_v1; env = hearts_v1.env()` |
|----------------------|--------------------------------------------------------------|
| Actions              | Discrete                                                     |
| Parallel API         | No                                                           |
| Manual Control       | No                                                           |
| Agents               | `agents = ['player_0', 'player_1', 'player_2', 'player_3']` (3..8 players) |
| Action Shape         | Discrete(68)                                                 |
| Action Values        | Discrete(68)                                                 |
| Observation Shape    | `observation`: (2577,) float32; `action_mask`: (68,) int8    |
| Observation Values   | see `hearts_env.obs` (per-entry bounds: `observation_bounds()`) |

Hearts with every rule and variant of RULES.md: any preset (`hearts_env.PRESETS`), a rule file or
a `Rules` object, 3 to 8 players, one deal or a whole match per episode. Seats are `player_0 ..
player_{N-1}`, numbered clockwise; play and passing run clockwise. Every decision of RULES.md §10 is
a step of the seat that makes it, including forced moves (a one-entry mask), passes (one card per
step), the pass-through declaration, the dealer's choice of pass, voiding the deal and the moon
choice. Passing is secret: the seats choose one after another from eldest hand, and nobody's
observation shows another seat's chosen cards before every seat has chosen and the cards move.

`hearts_env.envs.hearts_v1` is this environment, version 1 (see Version History): import it by name
to pin the behaviour (`hearts_env.env()` is the latest version). The single-seat Gymnasium env,
one learning seat against bots, is `gymnasium.make("hearts_env/Hearts-v1")` (registered when
`hearts_env.envs` is imported; `hearts_env.envs.gym_env`).

```python
import numpy as np
from hearts_env.envs import hearts_v1

env = hearts_v1.env(rules="standard", episode="deal", render_mode="ansi")
env.reset(seed=42)
rng = np.random.default_rng(0)
for agent in env.agent_iter():
    observation, reward, termination, truncation, info = env.last()
    if termination or truncation:
        action = None
    else:
        action = int(rng.choice(np.flatnonzero(observation["action_mask"])))
    env.step(action)
env.close()
```

## Arguments

``` python
hearts_v1.env(rules="standard", episode="deal", render_mode=None, reward_scale=1.0,
              zero_sum=False, final_rank_reward=None, illegal_reward=None, render_seat=None)
```

- `rules`: a `Rules`, a preset name, a path to a TOML rule file, or a mapping of options (with an
  optional `preset` key). A bad rule set raises the engine's `RulesError`, unchanged.
- `episode`: `"deal"` (one deal per episode) or `"match"` (deals until the match ends under the
  rules' end conditions; a rule set without `game_end_threshold` plays a single deal).
- `render_mode`: `None`, `"ansi"` (``render()`` returns the table as text) or `"human"` (prints it).
- `reward_scale`, `zero_sum`, `final_rank_reward`: see Rewards.
- `illegal_reward`: the reward of a seat that makes an illegal move under the wrapped env
  (PettingZoo's `TerminateIllegalWrapper`); default: `raw_env.illegal_move_reward(agent)`, a value
  no legal continuation of the episode falls below (see Bad input). The bare `raw_env` raises instead.
- `render_seat`: `None` renders every hand; a seat index renders only what that seat may see.

## Observation Space

A dict: `observation` is the seat-relative vector of `hearts_env.obs` (2,577 `float32` entries,
version `ENCODING_VERSION`, the same size for every rule set and N; the table of segments is the
docstring of `hearts_env.obs.spec`) and `action_mask` (68 `int8`) allows exactly the engine's legal
actions for the seat to move and is all zeros for every other seat. `hearts_env.obs.decode_observation(vector,
rules)` turns the vector back into a structured `SeatView`; `hearts_env.obs.encode(deal, seat)` is
the reference encoder the env's incremental one always equals. The env seats its game at a
`hearts_env.obs.SeatedTable` (the deal or match, its encoder and each seat's observation dict), as
the tournaments and play sessions do, so they all see the same observations.

## Action Space

`Discrete(68)`, the numbering of `hearts_env.core.actions`:

| ids      | action                                                                 |
|----------|------------------------------------------------------------------------|
| 0..51    | a card (`suit * 13 + rank`, suits ♣ ♦ ♠ ♥, ranks 2..A): pass it, or play it |
| 52 / 53  | pass-through declaration: pass from my hand / pass through             |
| 54..60   | dealer's choice: a single-target pass to the seat 1..7 places left     |
| 61/62/63 | dealer's choice: hold / scatter / smoosh                               |
| 64 / 65  | the all-hearts leader voids the deal / leads a heart                   |
| 66 / 67  | the moon shooter subtracts from self / adds to the others              |

Scatter: the i-th card a seat chooses goes to the seat `1 + i // (pass_count / (N - 1))` places left.

## Rewards

Rewards arrive only at the step that ends a deal, for every seat at once (through `rewards` and,
for each agent, the cumulative reward `last()` returns when it next acts or when it is told the
episode is over). By default a seat's reward is minus its deal points (the rules' scoring,
moon and every adjustment included; a cancelled deal scores 0):

- `reward_scale` multiplies it (`1/26` puts a standard deal in [-1, 1]);
- `zero_sum=True` subtracts the seats' mean, so the rewards of a deal sum to zero;
- in match episodes every deal's reward accrues as it ends, and `final_rank_reward` (a sequence of
  N numbers, first place first) is added when the match ends: winners share first place, the
  others rank by total, and tied seats share the mean of their places' values.

At a deal's end every agent's `infos` entry holds `deal_scores` (every seat's deal points) and
`cancelled`, and in match episodes `totals` (after the deal) and `deal_number` (counted deals so
far); at every other step infos are empty dicts.

## Episodes and seeding

`reset(seed=s)` makes the episode a function of `s` (and the rules) alone: the hands, the dealer
and, in deal episodes, the pass kind, drawn uniformly from the rule set's cycle; a match's later
deals follow from `s` too. So the same deal can be replayed with other players in the seats.
`reset()` without a seed continues a stream seeded by the last seeded reset. `reset(options=...)`
pins parts of the (first) deal: `pass_kind` (any kind the rules can play, `dealer_choice`
included), `hands` (one list of cards per seat, as ids or names such as `"QS"`), `kitty` (with
`hands`), `dealer` (a seat) and `totals` (whole numbers, one per seat, at most `MAX_TOTAL` in
size: scores before the deal; the match's starting totals). Every option is checked, in deal and
match episodes alike, before anything changes (`raw_env.check_reset_options`): a bad one (NaN
totals, a seat out of range, a card dealt twice, a pass kind the rules cannot play) raises the
engine's `InvalidDealError`, a `ValueError` whose message starts `reset option 'totals': ...`, and
the env stays as it was. Unknown option keys are ignored with a warning.

A deal episode ends when its deal ends, cancelled or not; a match episode when the match ends. No
episode is truncated.

## Bad input

An action is a Python `int`, a numpy integer scalar or a 0-d integer array. Anything else (a
bool such as `True`, a float such as `3.0`, a string such as `"QS"`, an array with a shape such as
`np.array([5])` or `np.array([[1]])`, or `None` for an agent that is not done) raises the engine's
`IllegalActionError` on every path, the bare `raw_env`, the wrapped `env()` and the Gymnasium env
alike, with one message naming the value and the legal actions, and leaves the game as it was:
`hearts_env.core.actions.as_action` is the one check. Then, for an integer: the bare `raw_env`
raises the same `IllegalActionError` for an illegal card or an id outside the space; the wrapped
env follows PettingZoo's classic convention, an out-of-space integer fails an assertion and an
illegal one ends the episode with `illegal_reward` for the offender (`wrap(raw, fast=False)`,
PettingZoo's unmodified classes, asserts on the non-integers too, a bool included).

Once the deal is over, each agent is stepped out with `step(None)` (PettingZoo's convention); any
other action for a done agent raises `IllegalActionError` (`player_2 is done ...: its only action
is None`) on every chain.

## Order of calls

Every error an env raises on purpose is a `hearts_env.HeartsError` with a message that names the call
and what to do, never a `KeyError` or an `AttributeError` from inside:

- before the first `reset()`: `step`, `last`, `observe`, `state`, `render`, `agent_iter`,
  `seat_view`, `save_state`, `illegal_move_reward`, `deal`, `match` and the episode attributes
  (`agents`, `agent_selection`, `rewards`, `terminations`, `truncations`, `infos`, `num_agents`)
  raise `hearts_env.core.NotResetError` ("step(): the environment has no episode yet; call reset()
  first"), on the bare and the wrapped env alike. It is a `RuntimeError` and an `AttributeError`
  (as PettingZoo's wrappers raise for the attributes, so `hasattr(env, "agents")` is `False`). The
  spaces, `possible_agents`, `max_num_agents`, `check_reset_options`, `load_state` and `close` need
  no episode.
- after the episode's end (every agent stepped out, `agents == []`): the bare env's `step` and
  both envs' `last` raise `hearts_env.core.EpisodeOverError` (a `RuntimeError`: "the episode is
  over ...; call reset() to start another"); the wrapped env's `step` keeps PettingZoo's convention,
  a logged warning and nothing else. The final position stays readable: `observe`, `state`,
  `render`, `deal`, `seat_view`, `save_state`.
- `wrap(raw, fast=False)` raises PettingZoo's own errors before `reset()` (`AttributeError`,
  `AssertionError`).

The default `illegal_reward` is `raw_env.illegal_move_reward(agent)`, evaluated when the illegal
move is made: minus an upper bound on the deal points the offender could still take by playing
on (`most_points_to_come`), times `abs(reward_scale)`, plus, in match episodes, the lowest
`final_rank_reward` (the offender ranks last). The bound:

- a deal episode, or a match without `game_end_threshold` (a single deal, whatever `instant_win`
  says): the worst deal score, `worst_deal_score(rules)` (every penalty card, or the moon's or
  sun's value added to the others, plus a positive no-trick adjustment): 26 in standard Hearts;
- a match: it ends after the first deal that takes a total to the threshold, so a seat's total
  before its last deal is at most `threshold - 1` and the points it can still take are at most
  `threshold - 1 + worst_deal_score - total` (`total`: its total before the deal in progress).
  The bound is `threshold + worst_deal_score - min(total, 0)` (126 in standard Hearts, more for a
  seat whose total is below zero after a moon shot or a bonus card), plus the points each exact-score
  reset that lowers a total gives back and one more deal when tied leaders replay.

A seat's rewards from any moment to the episode's end sum to minus the deal points it takes, so no
legal continuation returns less than this (an illegal move at the first decision of a standard
match: -126, where a uniformly random legal player averages about -110 against three heuristic bots).
Limits: a reset that lowers a total, or a replayed tie, can recur, and each recurrence beyond the
first is not counted (no preset has either option); with `zero_sum`, a seat's reward
is also raised or lowered by the mean of every seat's deal points, which only other seats' moon
shots (subtracted from the shooter) or negative cards can pull below zero, and the bound holds as
long as the other seats do not, between them, score fewer than minus the bound over the rest of
the episode. With `wrap(raw, fast=False)` (PettingZoo's own class, which takes a fixed value) the
default is the value for a total of 0.

## Wrappers and speed

`env()` wraps `raw_env` in PettingZoo's classic chain, `TerminateIllegalWrapper`,
`AssertOutOfBoundsWrapper` and `OrderEnforcingWrapper`, as thin subclasses: PettingZoo's
`BaseWrapper` reaches every attribute of the env underneath through `__getattr__`, an exception per
wrapper level and attribute, which alone caps the speed of a loop. The subclasses read the
per-step attributes (`agent_selection`, `terminations`, ...) from the bare env directly and
restate the hot methods (`last`, `observe`, `step`) over them, falling back to PettingZoo's code
for every uncommon case (an illegal move, a step after the end, before reset); the tests run
PettingZoo's `api_test` and the bad-input cases on both chains. `wrap(raw, fast=False)` gives the
unmodified classes. Observations are kept up to date incrementally
(`hearts_env.obs.ObservationEncoder`, at the env's `SeatedTable`), and masks come from the
engine's legal bitmask (`hearts_env.core.actions.mask_array`). How fast: `benchmarks/env_speed.py`
measures the wrapped loop (`last()`, a choice from the mask, `step()`) beside OpenSpiel's; the
figures are in docs/speed.md.

## Copies and snapshots

Every env, raw, wrapped or Gymnasium (its bot opponents, random, heuristic or a model, included),
can be copied with `copy.deepcopy` and pickled, at any point of an episode: the copy is an
independent env that goes on exactly as the original would (the tests step the two side by side
against the reference encoder). That is the in-memory snapshot. For a plain-data one,
`env.unwrapped.save_state()` returns a JSON-ready dict (the rules, the episode's seed and reset
options, every action since the reset and the reset stream) and `load_state(state)` puts an env of
the same rules and episode kind back there by replaying it (a bad state raises `ValueError` and
changes nothing; on a wrapped env, `reset()` it once first). Nothing is unpickled from a state.

## The full state (privileged)

`state()` is PettingZoo's global state, for centralised critics (MAPPO-style value functions) and
analysis, never for a seat's policy: every seat's own observation vector, in seat order (rows
`N..7` zero), followed by the 52-entry set of the kitty's dealt cards; `state_space` is its `Box`
(`STATE_SIZE` = 8 × 2,577 + 52 `float32`). It shows every hand, so it holds what no seat may know.

## Version History

Pin a version by importing it: `from hearts_env.envs import hearts_v1` (PettingZoo) or
`gymnasium.make("hearts_env/Hearts-v1")` (Gymnasium). A change of behaviour gets a new version
(`hearts_v2`, `Hearts-v2`); `hearts_env.env()` is always the latest.

* v1: in match episodes the default `illegal_reward` is minus the most points a seat can still take
  before the match ends, plus the lowest `final_rank_reward` (it was minus one deal's worst, which
  made resigning by an illegal move pay in a match); one action check (`as_action`) on every path:
  a bool, a float, a string, a shaped array or `None` raises `IllegalActionError` in the bare, the
  wrapped and the Gymnasium env (the wrapped env's `step(True)` failed with numpy's "ambiguous
  truth value", and the Gymnasium env took a float such as `4.0`); every reset option checked
  (`InvalidDealError` naming it: NaN totals gave NaN observations); copyable and picklable envs
  and bots (a deep copy's observations stopped updating), `save_state`/`load_state`, and the
  privileged `state()` / `state_space` for centralised critics.
* v0: first release (encoding version 1).

Within v1, errors only: calls before `reset()` or after the episode's end raise `NotResetError`
or `EpisodeOverError` (see Order of calls; they raised `KeyError` or a bare `AttributeError`), a done
agent's action other than `None` `IllegalActionError` (a `ValueError`, as before), and the unmodified
wrappers' `step(True)` their assertion (numpy's "ambiguous truth value" before). No episode plays
differently, so the version stays.
"""

from __future__ import annotations

import copy
import random
import warnings
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv

from ..core.actions import NUM_ACTIONS, as_action
from ..core.cards import NUM_CARDS
from ..core.deal import Deal, check_deal_pass_kind, check_hands, seeded_deal
from ..core.errors import EpisodeOverError, IllegalActionError, InvalidDealError, NotResetError, brief
from ..core.match import Match
from ..core.rules import Rules
from ..narrate.render import render_text
from ..obs import MAX_SEATS, OBSERVATION_SIZE, SeatedTable, SeatView, observation_bounds, seat_view
from .rewards import illegal_move_reward, rank_rewards

#: Size of ``raw_env.state()``: every seat's observation (padded to 8 seats) and the kitty's cards.
STATE_SIZE = MAX_SEATS * OBSERVATION_SIZE + NUM_CARDS
EPISODES = ("deal", "match")
STATE_FORMAT = "hearts_env.aec_state/1"
#: What ``load_state`` takes from the replayed env: everything an episode changes.
_EPISODE_STATE = (
    "agents",
    "rewards",
    "_cumulative_rewards",
    "terminations",
    "truncations",
    "infos",
    "agent_selection",
    "_skip_agent_selection",
    "_dirty",
    "_table",
    "_rng",
    "_episode_seed",
    "_options",
    "_history",
)
_RESET_OPTIONS = frozenset({"pass_kind", "hands", "kitty", "dealer", "totals"})
#: The AEC attributes an episode sets (``num_agents`` reads ``agents``): ``NotResetError`` before it.
EPISODE_ATTRIBUTES = frozenset(
    {
        "agents",
        "agent_selection",
        "rewards",
        "_cumulative_rewards",
        "terminations",
        "truncations",
        "infos",
        "num_agents",
    }
)


def not_reset_error(what: str) -> NotResetError:
    """The error of ``what`` (a method or attribute) used before the env's first ``reset()``."""
    return NotResetError(f"{what}: the environment has no episode yet; call reset() first")


def episode_over_error(what: str) -> EpisodeOverError:
    """The error of ``what`` (``step()``, ``last()``) once every agent has been stepped out."""
    return EpisodeOverError(f"{what}: the episode is over (every agent is done); call reset() to start another")


def done_agent_error(agent: str, action: object) -> IllegalActionError:
    """A done agent (terminated, not yet stepped out) given an action other than ``None``."""
    return IllegalActionError(
        f"{agent} is done (terminated or truncated): its only action is None, got {brief(action)}", -1, []
    )


def _rules_label(spec: object, rules: Rules) -> str:
    """A short name of the rule set for the rendered headline."""
    if isinstance(spec, str | Path):
        return Path(spec).stem if str(spec).endswith(".toml") else str(spec)
    if isinstance(spec, Mapping) and "preset" in spec:
        return f"{spec['preset']} (modified)"
    return f"{rules.num_players}-player rules"


class HeartsDiscrete(spaces.Discrete):
    """``Discrete(68)`` whose ``contains`` answers a plain ``int`` without numpy (it is called on
    every step by ``AssertOutOfBoundsWrapper``) and refuses a ``bool``; every other input takes
    Gymnasium's path."""

    def contains(self, x: Any) -> bool:
        if type(x) is int:
            return bool(0 <= x < int(self.n))
        if isinstance(x, bool):  # Gymnasium's contains takes True for 1; no env does
            return False
        return super().contains(x)


_DEAL_PINS = ("hands", "kitty", "dealer", "pass_kind", "totals")


#: The largest magnitude of a ``totals`` reset option (far beyond any score a match reaches).
MAX_TOTAL = 10**6


def _option_error(name: str, reason: str) -> InvalidDealError:
    """A bad reset option: the engine's ``InvalidDealError`` (a ``ValueError``), naming the option."""
    return InvalidDealError(f"reset option {name!r}: {reason}")


def _seat(name: str, value: Any, n: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int | np.integer) or not 0 <= value < n:
        raise _option_error(name, f"must be a seat 0..{n - 1}, got {brief(value)}")
    return int(value)


def _cards(name: str, value: Any) -> list[int | str]:
    """A list of cards (ids or names such as ``"QS"``), numpy integers as ``int``; the engine checks the cards."""
    if isinstance(value, str | bytes) or not isinstance(value, Sequence | np.ndarray):
        raise _option_error(name, f"must be a list of cards (ids or names such as 'QS'), got {brief(value)}")
    out: list[int | str] = []
    for card in value:
        if isinstance(card, np.integer):
            card = int(card)
        if isinstance(card, bool) or not isinstance(card, int | str):
            raise _option_error(name, f"{brief(card)} is not a card (an id 0..51 or a name such as 'QS')")
        out.append(card)
    return out


def _totals(value: Any, n: int) -> list[int]:
    if isinstance(value, str | bytes) or not isinstance(value, Sequence | np.ndarray):
        raise _option_error("totals", f"must be a list of {n} integers, got {brief(value)}")
    if len(value) != n:
        raise _option_error("totals", f"must have {n} entries (one per seat), got {len(value)}")
    out = []
    for x in value:
        if isinstance(x, bool) or not isinstance(x, int | float | np.integer | np.floating):
            raise _option_error("totals", f"must hold integers, got {brief(x)}")
        if not isinstance(x, int | np.integer) and not (np.isfinite(x) and float(x).is_integer()):
            raise _option_error("totals", f"must hold finite whole numbers, got {brief(x)}")
        if abs(int(x)) > MAX_TOTAL:  # an int, exactly: Python's are unbounded, past what numpy or float can take
            raise _option_error("totals", f"entries must lie in -{MAX_TOTAL}..{MAX_TOTAL}, got {brief(x)}")
        out.append(int(x))
    return out


def check_reset_options(rules: Rules, options: Mapping[str, Any] | None) -> dict[str, Any]:
    """``raw_env.check_reset_options``: the known options of ``options`` checked for ``rules``."""
    if options is None:
        return {}
    if not isinstance(options, Mapping):
        raise ValueError(f"reset options must be a dict, got {type(options).__name__}")
    n = rules.num_players
    out: dict[str, Any] = {}
    if "dealer" in options:
        out["dealer"] = _seat("dealer", options["dealer"], n)
    if "pass_kind" in options:
        kind = options["pass_kind"]
        if not isinstance(kind, str):
            raise _option_error("pass_kind", f"must be a pass kind name (a string), got {brief(kind)}")
        try:
            check_deal_pass_kind(rules, kind)
        except InvalidDealError as err:
            raise _option_error("pass_kind", str(err)) from None
        out["pass_kind"] = kind
    if options.get("kitty") is not None and "hands" not in options:
        raise _option_error("kitty", "can only be given together with 'hands'")
    if "hands" in options:
        hands = options["hands"]
        if isinstance(hands, str | bytes) or not isinstance(hands, Sequence | np.ndarray):
            raise _option_error(
                "hands", f"must be a list of {n} hands (one list of cards per seat), got {brief(hands)}"
            )
        if len(hands) != n:
            raise _option_error("hands", f"must hold {n} hands (one per seat), got {len(hands)}")
        out["hands"] = [_cards("hands", hand) for hand in hands]
        kitty = options.get("kitty")
        if kitty is not None:
            out["kitty"] = _cards("kitty", kitty)
        try:
            check_hands(rules, out["hands"], out.get("kitty"))
        except InvalidDealError as err:
            raise _option_error("hands" if kitty is None else "hands/kitty", str(err)) from None
    if "totals" in options:
        out["totals"] = _totals(options["totals"], n)
    return out


class raw_env(AECEnv[str, dict[str, np.ndarray], int]):
    """The bare Hearts AEC environment; see the module docstring. ``hearts_env.env()`` wraps it."""

    metadata = {  # noqa: RUF012 (PettingZoo reads it from the class)
        "name": "hearts_v1",
        "render_modes": ["human", "ansi"],
        "is_parallelizable": False,
        "render_fps": 1,
    }

    def __init__(
        self,
        rules: Rules | str | Path | Mapping[str, Any] | None = None,
        episode: str = "deal",
        render_mode: str | None = None,
        reward_scale: float = 1.0,
        zero_sum: bool = False,
        final_rank_reward: Sequence[float] | None = None,
        render_seat: int | None = None,
    ) -> None:
        super().__init__()
        self.rules = Rules.load(rules)
        n = self.rules.num_players
        if episode not in EPISODES:
            raise ValueError(f"episode must be one of {', '.join(EPISODES)}, got {episode!r}")
        if render_mode is not None and render_mode not in ("human", "ansi"):
            raise ValueError(f"render_mode must be None, 'human' or 'ansi', got {render_mode!r}")
        if final_rank_reward is not None:
            final_rank_reward = tuple(float(x) for x in final_rank_reward)
            if len(final_rank_reward) != n:
                raise ValueError(
                    f"final_rank_reward needs {n} values (first place first), got {len(final_rank_reward)}"
                )
            if episode != "match":
                raise ValueError("final_rank_reward only applies to match episodes (episode='match')")
        if render_seat is not None and not (isinstance(render_seat, int) and 0 <= render_seat < n):
            raise ValueError(f"render_seat must be None or a seat 0..{n - 1}, got {render_seat!r}")
        self.episode = episode
        self.rules_label = _rules_label(rules, self.rules)
        self.render_mode = render_mode
        self.render_seat = render_seat
        self.reward_scale = float(reward_scale)
        self.zero_sum = bool(zero_sum)
        self.final_rank_reward = final_rank_reward
        self.possible_agents = [f"player_{p}" for p in range(n)]
        self._seat_of = {a: p for p, a in enumerate(self.possible_agents)}
        low, high = observation_bounds()
        self.observation_spaces = {
            a: spaces.Dict(
                {
                    "observation": spaces.Box(low, high, (OBSERVATION_SIZE,), np.float32),
                    "action_mask": spaces.Box(0, 1, (NUM_ACTIONS,), np.int8),
                }
            )
            for a in self.possible_agents
        }
        self.action_spaces = {a: HeartsDiscrete(NUM_ACTIONS) for a in self.possible_agents}
        self.state_space = spaces.Box(
            np.concatenate([np.tile(low, MAX_SEATS), np.zeros(NUM_CARDS, np.float32)]),
            np.concatenate([np.tile(high, MAX_SEATS), np.ones(NUM_CARDS, np.float32)]),
            (STATE_SIZE,),
            np.float32,
        )
        self._table = SeatedTable(self.rules, match_episode=episode == "match")
        self._rng = random.Random()
        self._dirty = False  # rewards/infos of the last step need clearing

    def __getattr__(self, name: str) -> Any:
        # Only for names not found: the episode attributes before the first reset, and the
        # properties below, whose NotResetError (an AttributeError) Python hands to this method
        if name in EPISODE_ATTRIBUTES or name in ("deal", "match"):
            raise not_reset_error(name)
        raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")

    # ---- spaces
    def observation_space(self, agent: str) -> spaces.Space[Any]:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space[Any]:
        return self.action_spaces[agent]

    # ---- engine access (read only)
    @property
    def deal(self) -> Deal:
        """The deal in progress (the last one once the episode is over)."""
        if self._table.deal is None:
            raise not_reset_error("deal")
        return self._table.deal

    @property
    def match(self) -> Match | None:
        """The match (match episodes) or ``None``."""
        if self._table.deal is None:
            raise not_reset_error("match")
        return self._table.match

    def seat_view(self, agent: str) -> SeatView:
        """What ``agent`` knows now, structured (the same as decoding its observation)."""
        if self._table.deal is None:
            raise not_reset_error("seat_view()")
        return seat_view(self.deal, self._seat_of[agent], self._table.match)

    # ---- reset
    def check_reset_options(self, options: Mapping[str, Any] | None) -> dict[str, Any]:
        """The known ``reset`` options, checked and normalised (cards as ids, seats and totals as
        ``int``); ``ValueError`` naming the option for a bad one. Unknown keys are left out."""
        return check_reset_options(self.rules, options)

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        checked = self.check_reset_options(options)  # before anything changes: a bad option leaves the env as it was
        unknown = sorted(set(options or {}) - _RESET_OPTIONS)
        if unknown:
            warnings.warn(
                f"reset ignores unknown options {unknown}; known: {', '.join(sorted(_RESET_OPTIONS))}", stacklevel=2
            )
        if seed is not None:
            stream = random.Random(f"hearts_env reset stream {seed}")
            episode_seed = seed
        else:
            stream = self._rng
            episode_seed = stream.getrandbits(63)
        self._begin(episode_seed, checked)
        self._rng = stream

    def _begin(self, episode_seed: Any, options: dict[str, Any]) -> None:
        """Start the episode of ``episode_seed`` with checked ``options``; nothing changes if it raises."""
        rules = self.rules
        if self.episode == "deal":
            game: Deal | Match = seeded_deal(rules, episode_seed, **{k: options[k] for k in _DEAL_PINS if k in options})
        else:
            script = [{"hands": options["hands"], "kitty": options.get("kitty")}] if "hands" in options else []
            match = Match(rules, seed=episode_seed, first_dealer=options.get("dealer"), scripted_deals=script)
            if "totals" in options or "pass_kind" in options:
                # Match has no way to start from given totals or a given pass kind: deal the first
                # deal again with them (same seed, hands and dealer).
                if "totals" in options:
                    match.totals = list(options["totals"])
                match.deal = Deal(
                    rules,
                    seed=match.deal.seed,
                    hands=options.get("hands"),
                    kitty=options.get("kitty"),
                    dealer=match.dealer,
                    pass_kind=options.get("pass_kind", match.deal.cycle_kind),
                    totals=match.totals,
                )
                if match.deal.is_terminal():
                    raise ValueError("these options cancel the first deal at once; a match cannot start with it")
            game = match
        self._episode_seed = episode_seed
        self._options = options
        self._history: list[int | None] = []
        self.agents = list(self.possible_agents)
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos: dict[str, dict[str, Any]] = {a: {} for a in self.agents}
        self._dirty = False
        self._skip_agent_selection = None
        table = self._table
        table.start(game)
        assert table.deal is not None
        if table.deal.is_terminal():  # only with pinned hands that cancel the deal at once
            self._end_of_deal(table.deal)
            self.agent_selection = self.agents[0]
            return
        self.agent_selection = self.possible_agents[table.deal.current_player]

    # ---- snapshots
    def save_state(self) -> dict[str, Any]:
        """The episode so far as plain, JSON-ready data: the rules, the episode's seed and reset
        options, every step's action since the reset and the reset stream (so a later ``reset()``
        without a seed continues it). ``load_state`` replays it. ``copy.deepcopy(env)`` is the
        other snapshot (any env, wrapped or Gymnasium; in memory only)."""
        if self._table.deal is None:
            raise not_reset_error("save_state()")
        version, internal, gauss = self._rng.getstate()
        return {
            "format": STATE_FORMAT,
            "rules": self.rules.to_dict(),
            "episode": self.episode,
            "seed": self._episode_seed,
            "options": copy.deepcopy(self._options),
            "actions": list(self._history),
            "stream": [version, list(internal), gauss],
        }

    def load_state(self, state: Mapping[str, Any]) -> None:
        """Put this env where ``save_state`` was called, by replaying it: ``state`` must come from an
        env of the same rules and episode kind. A bad state raises ``ValueError`` and leaves the env
        as it was. On a wrapped env call ``env.reset()`` once, then ``env.unwrapped.load_state(state)``
        and ``env.last()`` before the next step (as every AEC loop does)."""
        if not isinstance(state, Mapping) or state.get("format") != STATE_FORMAT:
            raise ValueError(f"not an env state of format {STATE_FORMAT!r} (made by raw_env.save_state)")
        if state.get("rules") != self.rules.to_dict():
            raise ValueError("the state was saved under other rules than this env's")
        if state.get("episode") != self.episode:
            raise ValueError(f"the state is of a {state.get('episode')!r} episode, this env plays {self.episode!r}")
        actions = state.get("actions")
        if not isinstance(actions, list) or not all(a is None or type(a) is int for a in actions):
            raise ValueError("the state's actions must be a list of integers (and None for the steps after the end)")
        try:
            version, internal, gauss = state["stream"]
            stream = random.Random()
            stream.setstate((version, tuple(internal), gauss))
        except (KeyError, TypeError, ValueError) as err:
            raise ValueError(f"the state's reset stream is not a random.Random state: {err}") from None
        scratch = type(self)(
            rules=self.rules,
            episode=self.episode,
            reward_scale=self.reward_scale,
            zero_sum=self.zero_sum,
            final_rank_reward=self.final_rank_reward,
            render_seat=self.render_seat,
        )
        try:
            scratch._begin(state.get("seed"), scratch.check_reset_options(state.get("options")))
            for i, action in enumerate(actions):
                scratch.step(action)
                if not scratch.agents and i + 1 < len(actions):
                    raise ValueError("there are actions after the episode's end")
        except (ValueError, TypeError, AssertionError) as err:
            raise ValueError(f"the state does not replay: {err}") from None
        scratch._rng = stream
        for key in _EPISODE_STATE:
            setattr(self, key, getattr(scratch, key))

    # ---- observe
    def observe(self, agent: str) -> dict[str, np.ndarray]:
        if self._table.deal is None:
            raise not_reset_error("observe()")
        return self._table.observation(self._seat_of[agent])

    def last(self, observe: bool = True) -> tuple[dict[str, np.ndarray] | None, float, bool, bool, dict[str, Any]]:
        """As PettingZoo's: the agent to move's observation, return so far, flags and info."""
        try:
            agent = self.agent_selection
            done = self.terminations[agent], self.truncations[agent]
        except NotResetError:
            raise not_reset_error("last()") from None
        except KeyError:
            raise episode_over_error("last()") from None
        observation = self.observe(agent) if observe else None
        return observation, self._cumulative_rewards[agent], done[0], done[1], self.infos[agent]

    def state(self) -> np.ndarray:
        """The full state, privileged (see the module docstring): every seat's observation, then the
        kitty's dealt cards. For centralised critics only: it shows every hand."""
        if self._table.deal is None:
            raise not_reset_error("state()")
        table = self._table
        deal = self.deal
        out = np.zeros(STATE_SIZE, np.float32)
        for seat in range(deal.num_players):
            out[seat * OBSERVATION_SIZE : (seat + 1) * OBSERVATION_SIZE] = table.vector(seat)
        kitty = MAX_SEATS * OBSERVATION_SIZE
        for card in deal.kitty_cards:
            out[kitty + card] = 1.0
        return out

    # ---- step
    def step(self, action: int | np.integer | None) -> None:
        try:
            agent = self.agent_selection
            done = self.terminations[agent] or self.truncations[agent]
        except NotResetError:
            raise not_reset_error("step()") from None
        except KeyError:  # every agent has been stepped out
            raise episode_over_error("step()") from None
        if done:
            self._was_dead_step(action)
            self._history.append(None)
            return
        table = self._table
        deal = table.deal
        assert deal is not None
        if type(action) is not int:
            action = as_action(action, deal.legal_mask())
        seat = deal.current_player
        deal_over = table.apply(action)  # the engine rejects an illegal action, the game unchanged
        self._history.append(action)
        if self._dirty:
            self._clear_step()
        self._cumulative_rewards[agent] = 0.0
        if deal_over:
            self._end_of_deal(deal)
        if self.terminations[agent]:
            self.agent_selection = self.possible_agents[(seat + 1) % len(self.possible_agents)]
        else:
            self.agent_selection = self.possible_agents[self.deal.current_player]
        if self.render_mode == "human":
            self.render()

    def illegal_move_reward(self, agent: str | None = None) -> float:
        """The default ``illegal_reward`` of ``agent`` (default: the agent to move) now: no legal
        continuation of the episode gives it less (``illegal_move_reward`` of the module, with its
        match total before the deal in progress)."""
        if self._table.deal is None:
            raise not_reset_error("illegal_move_reward()")
        seat = self._seat_of[self.agent_selection if agent is None else agent]
        match = self._table.match
        total = match.totals[seat] if match is not None else 0
        return illegal_move_reward(self.rules, self.episode, self.reward_scale, self.final_rank_reward, total)

    def _was_dead_step(self, action: Any) -> None:
        # PettingZoo's, whose wrappers call it too: a done agent's action must be None
        if action is not None:
            raise done_agent_error(self.agent_selection, action)
        super()._was_dead_step(None)

    def _clear_step(self) -> None:
        for a in self.rewards:
            self.rewards[a] = 0.0
        for a in self.infos:
            self.infos[a] = {}
        self._dirty = False

    def _end_of_deal(self, deal: Deal) -> None:
        """Rewards and infos for a finished deal; the next deal of a match, or the episode's end."""
        n = deal.num_players
        scores = deal.scores
        mean = sum(scores) / n if self.zero_sum else 0.0
        scale = self.reward_scale
        rewards = [-(s - mean) * scale for s in scores]
        match = self._table.match
        done = True
        if match is not None:
            done = match.over
            if done and self.final_rank_reward is not None:
                for p, bonus in enumerate(rank_rewards(match.totals, match.winners, self.final_rank_reward)):
                    rewards[p] += bonus
        info: dict[str, Any] = {"deal_scores": tuple(scores), "cancelled": deal.cancelled}
        if match is not None:
            info["totals"] = tuple(match.totals)
            info["deal_number"] = match.deals_counted
        for p, a in enumerate(self.possible_agents):
            self.rewards[a] = rewards[p]
            self._cumulative_rewards[a] += rewards[p]
            self.infos[a] = dict(info)
        self._dirty = True
        if done:
            self._table.finish()
            for a in self.possible_agents:
                self.terminations[a] = True
        else:
            assert match is not None
            self._table.next_deal()

    # ---- render / close
    def render(self) -> str | None:
        if self.render_mode is None:
            warnings.warn("render() called without a render_mode; pass render_mode='ansi' or 'human'", stacklevel=2)
            return None
        if self._table.deal is None:
            raise not_reset_error("render()")
        text = render_text(
            self.deal,
            self.possible_agents,
            match=self._table.match,
            rules_name=self.rules_label,
            view=self.render_seat,
        )
        if self.render_mode == "ansi":
            return text
        print(text)
        return None

    def close(self) -> None:
        pass
