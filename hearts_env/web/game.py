"""One game at the web table (``WebGame``) and the bounded set of live games (``GameStore``).

A ``WebGame`` drives a ``Match`` through a ``SeatedTable`` the way ``hearts play`` does: the person
answers when their seat is to move, the bots act when the browser asks the game to ``advance`` (one
bot decision at a time, so the browser can show each card). ``state()`` is the only thing the
browser sees: built from ``seat_view`` of the person's seat (in a spectated game with hidden hands,
from public facts only), plus the narration of the deal so far. Every change publishes a fresh
``snapshot`` of it, so reading a game never waits for a bot that is thinking.
"""

from __future__ import annotations

import asyncio
import logging
import random
import secrets
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..bots.make import lineup_of, make_bot, spec_label
from ..bots.roster import DEFAULT_BOT
from ..core import PRESETS, HeartsError, Match, Rules, record_of, save_record
from ..core.actions import NUM_ACTIONS, parse_action
from ..core.cards import NUM_CARDS, card_name, card_symbol, cards_of
from ..core.deal import DONE, MOON_CHOICE, PASSING, PHASE_NAMES, PLAYING, Deal
from ..narrate.narrator import (
    Narrator,
    illegal_reason,
    menu_text,
    menu_title,
    points_taken,
    seat_names,
    trick_points,
)
from ..narrate.style import Style
from ..nets.spec import ModelError
from ..obs import SeatedTable, seat_view

STYLE = Style(colour=False, symbols=True)  # the narration's text: suit symbols, no terminal colour
MAX_LOG = 400  # narration lines kept for the deal in progress
LOG = logging.getLogger("hearts_env.web")

#: Builds a seat's bot: ``(spec, rules, seed) -> bot`` (``hearts_env.web.models.SharedModels.bot``).
BotMaker = Callable[[str, Rules, int], Any]


class GameError(Exception):
    """A request the game refuses: the message says why; the game is unchanged. ``status`` is the HTTP status."""

    def __init__(self, message: str, status: int = 400) -> None:
        super().__init__(message)
        self.message = message
        self.status = status


def names_for(num_players: int, human: int | None) -> list[str]:
    """Seat names: ``You``/West/North/East around the person, ``Seat k`` when watching bots."""
    return seat_names(num_players, human)


@dataclass(frozen=True)
class GameSetup:
    """What the new-game form asks for, checked."""

    rules: Rules
    rules_label: str
    bots: tuple[str, ...]  # one spec per seat; the person's seat holds "" (ignored)
    human: int | None  # None: spectate
    single_deal: bool
    seed: int
    show_hands: bool = True
    scripted_deals: tuple[Mapping[str, Any], ...] = ()  # deals to deal first, as ``Match`` takes them (tests)


class WebGame:
    """A match (or one deal) at the web table, with the person at ``human`` (``None``: bots only).

    ``turn`` is held (on the event loop) by the request changing the game, ``lock`` (in the worker thread)
    while it changes; ``snapshot`` is the state as of the last change, read without either."""

    def __init__(
        self,
        game_id: str,
        setup: GameSetup,
        records_dir: Path | None = None,
        make: BotMaker = make_bot,
        owner: str = "",
    ) -> None:
        self.id = game_id
        self.owner = owner  # the client that started it (its address): games are counted per client
        self.setup = setup
        self.rules = rules = setup.rules
        self.human = setup.human
        self.single_deal = setup.single_deal
        self.seed = setup.seed
        self.show_hands = setup.show_hands or setup.human is not None
        n = rules.num_players
        rng = random.Random(setup.seed)
        self.bots: dict[int, Any] = {}
        self.labels: list[str] = []
        for seat, spec in enumerate(setup.bots):
            if seat == self.human:
                self.labels.append("you")
                continue
            try:
                self.bots[seat] = make(spec, rules, rng.getrandbits(32))
            except ModelError as err:  # its message names the model's folder: the reason alone, if it names none
                LOG.warning("hearts serve: bot %r: %s", spec, err)
                shown = err.reason if err.reason.startswith("rules mismatch") else "its model could not be loaded"
                raise GameError(f"bot {spec!r} for seat {seat}: {shown}") from None
            except (ValueError, NotImplementedError, HeartsError) as err:
                raise GameError(f"bot {spec!r} for seat {seat}: {err}") from None
            except OSError as err:
                LOG.warning("hearts serve: bot %r: %s", spec, err)
                raise GameError(f"bot {spec!r} for seat {seat}: it could not be loaded") from None
            self.labels.append(spec_label(spec))
        self.names = names_for(n, self.human)
        # a spectator with hidden hands hears what seat 0 hears (kitty face down), passes left out
        viewer = self.human if self.human is not None else None if self.show_hands else 0
        self.narrator = Narrator(rules, self.names, STYLE, viewer)
        self.lock = threading.Lock()
        self.turn = asyncio.Lock()
        self.touched = time.monotonic()
        self.match = Match(rules, seed=setup.seed, scripted_deals=setup.scripted_deals)
        self.table = SeatedTable(rules, match_episode=True)
        self.log: list[str] = []
        self.version = 0  # bumped on every change: the browser can tell a fresh state from an old one
        self.pending_next = False  # a deal just ended and the match goes on: ``advance`` seats the next one
        self.finished = False
        self.records_dir = records_dir
        self.record_path: Path | None = None
        self.record_error = ""
        self._history_before = 0
        self._start_deal()
        self.snapshot = self.state()

    def run(self, change: Callable[[], None]) -> dict[str, Any]:
        """Apply ``change`` (``act``, ``advance``) under the game's lock and publish the new ``snapshot``;
        a refused change raises ``GameError`` and leaves both as they were."""
        with self.lock:
            change()
            self.snapshot = self.state()
            return self.snapshot

    # ---- driving the game
    @property
    def deal(self) -> Deal:
        assert self.table.deal is not None
        return self.table.deal

    def _say(self, lines: Sequence[str]) -> None:
        self.log.extend(line for line in lines if line is not None)
        del self.log[:-MAX_LOG]

    def _start_deal(self) -> None:
        match = self.match
        if self.table.deal is None:
            self.table.start(match)
        else:
            self.table.next_deal()
        self.pending_next = False
        self._history_before = len(match.history)
        self.log = []
        deal = self.deal
        self._say([line for line in self.narrator.deal_header(deal, match.deals_counted + 1, match.totals) if line])
        if deal.phase == PLAYING:
            self._say([self.narrator.trick_header(deal)])

    def _apply(self, action: int) -> None:
        deal = self.deal
        seat, phase = deal.current_player, deal.phase
        ended = self.table.apply(action)
        lines = self.narrator.after_action(deal, seat, action, phase)
        if not self.show_hands and phase == PASSING:
            lines = [line for line in lines if line.startswith(STYLE.rule)]  # the trick header only
        self._say(lines)
        self.version += 1
        if ended:
            self._end_deal()

    def _end_deal(self) -> None:
        match = self.match
        deal = self.deal
        new = match.history[self._history_before :]
        self._say(["", *self.narrator.deal_end(deal, new[0] if new else None)])
        for extra in new[1:]:  # deals cancelled as they were dealt
            self._say(self.narrator.deal_end(extra.deal, extra))
        if match.over or (self.single_deal and match.deals_counted >= 1):  # a void deal is dealt again
            self.finished = True
            if match.over and not self.single_deal and match.deals_counted > 1:
                winners = ", ".join(self.names[p] for p in match.winners)
                self._say(["", f"Match over after {match.deals_counted} deals: {winners} ({match.end_reason})."])
            self.table.finish()
            self.save()
        else:
            self.pending_next = True
            self.save()  # the match so far, as ``hearts play`` saves after every deal

    def save(self) -> None:
        if self.records_dir is None:
            return
        if self.record_path is None:  # named by neither the seed nor the game's id: the list of records is public
            stamp = time.strftime("%Y%m%d-%H%M%S")
            self.record_path = self.records_dir / f"web-{stamp}-{secrets.token_hex(4)}.json"
        try:
            save_record(self.match, self.record_path, single_deal=self.single_deal)
            self.record_error = ""
        except OSError as err:  # the browser is told why, not where: the path is the server's
            LOG.warning("hearts serve: could not save %s: %s", self.record_path, err)
            self.record_error = f"Could not save the game record: {err.strerror or type(err).__name__}."

    def record(self) -> dict[str, Any]:
        """The game record (only once the game is over: before that it would show every hand)."""
        if not self.finished:
            raise GameError("The record can be downloaded once the game is over.", 409)
        return record_of(self.match, single_deal=self.single_deal)

    def advance(self, steps: int = 1, seconds: float = 2.0) -> None:
        """Let the bots make up to ``steps`` decisions (stopping at the person's turn, and once ``seconds``
        have passed, so no request holds a game and a bot thread for long: the page asks again); after a
        deal that ended, the first step seats the next deal."""
        if self.finished:
            raise GameError("The game is over.", 409)
        until = time.monotonic() + seconds
        for _ in range(steps):
            if time.monotonic() > until:
                return
            if self.finished:
                return
            if self.pending_next:
                self._start_deal()
                self.version += 1
                continue
            seat = self.deal.current_player
            if seat == self.human:
                return
            action = self.bots[seat].act(self.table.observation(seat))
            self._apply(int(action))

    def act(self, seat: object, actions: object) -> None:
        """The person's decision: one action, or (passing) the cards still to pass, all at once.
        A refused request raises ``GameError`` and leaves the game as it was."""
        if self.human is None:
            raise GameError("This game is played by bots only: there is no seat for you.", 403)
        if self.finished:
            raise GameError("The game is over.", 409)
        if isinstance(seat, bool) or not isinstance(seat, int):
            raise GameError("'seat' must be a whole number.")
        if seat != self.human:
            raise GameError(f"You play seat {self.human}; seat {seat} is not yours.", 403)
        if self.pending_next:
            raise GameError("The deal is over: start the next deal first.", 409)
        deal = self.deal
        if deal.current_player != self.human:
            raise GameError(f"It is not your turn: {self.names[deal.current_player]} is to move.", 409)
        if not isinstance(actions, list) or not actions:
            raise GameError("'actions' must be a non-empty list of actions (card names such as 'QS', or numbers).")
        if len(actions) > NUM_CARDS:
            raise GameError(f"'actions' lists at most {NUM_CARDS} cards; you gave {len(actions)}.")
        chosen = [_action_of(a) for a in actions]
        legal = deal.legal_actions()
        if legal[0] >= NUM_CARDS:  # a menu
            if len(chosen) != 1 or chosen[0] not in legal:
                choices = "; ".join(menu_text(deal, a) for a in legal)
                raise GameError(f"Choose one of: {choices}.")
            self._apply(chosen[0])
            return
        if deal.phase == PASSING:
            count = self.rules.pass_count - len(deal.chosen[self.human])
            held = deal.hands[self.human]
            missing = sorted({c for c in chosen if c >= NUM_CARDS or not held >> c & 1})
            if missing:
                raise GameError(f"You do not hold {_cards_text(missing)}.")
            if len(set(chosen)) != len(chosen):
                raise GameError("You named the same card twice.")
            if len(chosen) != count:
                raise GameError(f"Pass exactly {count} card{'s' if count != 1 else ''}; you gave {len(chosen)}.")
            for card in chosen:
                self._apply(card)
            return
        if len(chosen) != 1:
            raise GameError("Play one card at a time.")
        card = chosen[0]
        if card not in legal:
            if card >= NUM_CARDS:
                raise GameError("Play a card.")
            raise GameError(illegal_reason(deal, card, STYLE))
        self._apply(card)

    # ---- what the browser sees
    @property
    def seed_public(self) -> bool:
        """Whether the state may carry the seed: it deals every hand of the match, so only once the match is
        over or at a table that shows every hand anyway (spectating with ``show_hands``)."""
        return self.finished or (self.human is None and self.show_hands)

    def state(self) -> dict[str, Any]:
        deal = self.deal
        match = self.match
        n = deal.num_players
        human = self.human
        viewer = human if human is not None else 0
        view = seat_view(deal, viewer, match)

        def ab(r: int | None) -> int | None:
            return None if r is None else (viewer + r) % n

        if human is not None:
            hands = {str(human): [card_name(c) for c in view.hand]}
        elif self.show_hands:
            hands = {str(p): [card_name(c) for c in cards_of(deal.hands[p])] for p in range(n)}
        else:
            hands = {}
        trick = [{"seat": ab(view.seat_of_trick_position(i)), "card": card_name(c)} for i, c in enumerate(view.trick)]
        last_trick = None
        if deal.trick_winners:
            t = len(deal.trick_winners) - 1
            plays = deal.play_order[t * n : (t + 1) * n]
            last_trick = {
                "plays": [{"seat": p, "card": card_name(c)} for p, c in plays],
                "winner": deal.trick_winners[-1],
                "points": trick_points(deal, [c for _, c in plays]),
                "number": t + 1,
            }
        to_move = None if self.pending_next or self.finished else ab(view.to_move)
        your_turn = human is not None and to_move == human
        decision: dict[str, Any] | None = None
        if your_turn:
            assert human is not None
            legal = deal.legal_actions()
            if legal[0] >= NUM_CARDS:
                decision = {
                    "kind": "menu",
                    "title": menu_title(deal, legal),
                    "choices": [{"action": a, "text": menu_text(deal, a)} for a in legal],
                }
            elif deal.phase == PASSING:
                count = self.rules.pass_count - len(deal.chosen[human])
                decision = {
                    "kind": "pass",
                    "count": count,
                    "prompt": self.narrator.pass_prompt(deal, human, count).rstrip("> "),
                    "legal": [card_name(c) for c in legal],
                }
            else:
                decision = {"kind": "play", "legal": [card_name(c) for c in legal]}
        if human is not None or not self.show_hands:
            pts = [view.points_taken[(p - viewer) % n] for p in range(n)]
        else:
            pts = points_taken(deal, kitty=True)
        history = [
            {
                "label": f"Deal {h.number}" if not h.deal.cancelled else "(void)",
                "scores": list(h.scores),
                "totals": list(h.totals),
                "reset": bool(h.resets),
            }
            for h in match.history
        ]
        own_pass = None
        if human is not None and deal.pass_kind not in (None, "hold"):
            own_pass = {
                "passed": [{"card": card_name(c), "to": ab(r)} for c, r in view.passed],
                "received": [{"card": card_name(c), "from": ab(r)} for c, r in view.received],
                "forwarded": [card_name(c) for c in view.forwarded],
            }
        finished_deal = deal.phase == DONE
        return {
            "id": self.id,
            "version": self.version,
            "mode": "play" if human is not None else "spectate",
            "rules_label": self.setup.rules_label,
            "num_players": n,
            "seat": human,
            "names": self.names,
            "labels": self.labels,
            "show_hands": self.show_hands,
            "single_deal": self.single_deal,
            "seed": self.seed if self.seed_public else None,
            "deal_number": match.deals_counted + (0 if finished_deal else 1),
            "threshold": self.rules.game_end_threshold,
            "phase": PHASE_NAMES[deal.phase],
            "pass_text": self.narrator.pass_description(deal)
            if deal.pass_kind is not None or deal.cycle_kind != "dealer_choice"
            else "dealer's choice of pass",
            "dealer": deal.dealer,
            "to_move": to_move,
            "your_turn": your_turn,
            "decision": decision,
            "hands": hands,
            "hand_counts": [deal.hands[p].bit_count() for p in range(n)],
            "pass_through": [bool(x) for x in (ab_list(view.pass_through, viewer))],
            "own_pass": own_pass,
            "trick": trick,
            "trick_number": deal.trick_number + (0 if finished_deal else 1),
            "num_tricks": self.rules.tables.num_tricks,
            "last_trick": last_trick,
            "hearts_broken": deal.hearts_broken,
            "moon_choice": deal.phase == MOON_CHOICE,
            "points_taken": pts,
            "tricks_won": list(deal.tricks_won),
            "totals": list(match.totals),
            "history": history,
            "deal_over": self.pending_next or (self.finished and finished_deal),
            "deal_scores": list(deal.scores) if finished_deal and not deal.cancelled else None,
            "finished": self.finished,
            "winners": list(match.winners) if self.finished and match.over else None,
            "end_reason": match.end_reason if self.finished else "",
            "record_file": self.record_path.name
            if self.finished and self.record_path and not self.record_error
            else None,
            "record_error": self.record_error,
            "log": list(self.log),
        }


def ab_list(values: Sequence[Any], viewer: int) -> list[Any]:
    """A seat-relative per-seat tuple in absolute seat order."""
    n = len(values)
    return [values[(p - viewer) % n] for p in range(n)]


def _action_of(value: object) -> int:
    if isinstance(value, bool):
        raise GameError(f"{value!r} is not an action: give a card name such as 'QS', or a number.")
    if isinstance(value, int):
        if not 0 <= value < NUM_ACTIONS:
            raise GameError(f"action {value} is outside 0..{NUM_ACTIONS - 1}.")
        return value
    if isinstance(value, str) and len(value) <= 20:
        try:
            return parse_action(value)
        except ValueError:
            raise GameError(f"{value!r} is not a card: write it like QS, 10H or Q♠.") from None
    raise GameError(f"{str(value)[:40]!r} is not an action: give a card name such as 'QS', or a number.")


def _cards_text(cards: Sequence[int]) -> str:
    return " ".join(card_symbol(c) if c < NUM_CARDS else str(c) for c in sorted(cards))


# ---------------------------------------------------------------------------------------------
# The new-game form
# ---------------------------------------------------------------------------------------------


def parse_setup(data: Mapping[str, Any], bot_choices: Sequence[str]) -> GameSetup:
    """The new-game form's fields, checked: ``rules`` (a preset name), ``players``, ``set``
    (``{"option": value}``), ``bots`` (one spec per other seat, from the person's left, the last
    repeated), ``seat``, ``spectate``, ``show_hands``, ``single_deal``, ``seed``."""
    preset = data.get("rules", "standard")
    if not isinstance(preset, str) or preset not in PRESETS:
        raise GameError(f"unknown rules preset {str(preset)[:40]!r}; choose one of: {', '.join(PRESETS)}.")
    overrides: dict[str, Any] = {}
    settings = data.get("set", {})
    if settings is None:
        settings = {}
    if not isinstance(settings, dict) or not all(isinstance(k, str) for k in settings):
        raise GameError('\'set\' must be an object of rule options, such as {"moon_mode": "add_to_others"}.')
    overrides.update(settings)
    players = data.get("players")
    if players not in (None, ""):
        if isinstance(players, bool) or not isinstance(players, int):
            raise GameError("'players' must be a whole number from 3 to 8.")
        overrides["num_players"] = players
    try:
        rules = Rules.load(preset, **overrides)
    except (HeartsError, TypeError, ValueError) as err:
        raise GameError(f"rules: {err}") from None
    n = rules.num_players
    spectate = data.get("spectate", False)
    if not isinstance(spectate, bool):
        raise GameError("'spectate' must be true or false.")
    seat = data.get("seat", 0)
    if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < n:
        raise GameError(f"'seat' must be a seat 0..{n - 1}.")
    human = None if spectate else seat
    specs = data.get("bots", [DEFAULT_BOT])
    if not isinstance(specs, list) or not specs or not all(isinstance(s, str) for s in specs):
        raise GameError("'bots' must be a non-empty list of bot names.")
    for spec in specs:
        if spec not in bot_choices:
            raise GameError(f"unknown bot {spec[:40]!r}: choose one of the bots /api/options lists.")
    others = n if human is None else n - 1
    try:
        lineup = lineup_of(specs, others)
    except ValueError as err:
        raise GameError(str(err)) from None
    if human is None:
        bots = tuple(lineup)
    else:
        by_seat = {(human + k + 1) % n: spec for k, spec in enumerate(lineup)}
        bots = tuple(by_seat.get(p, "") for p in range(n))
    seed = data.get("seed")
    if seed in (None, ""):
        # The whole range: a seed from a small space could be found from the person's own hand, and with it
        # every other hand.
        seed = secrets.randbelow(2**63)
    if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed < 2**63:
        raise GameError("'seed' must be a whole number from 0, or empty for a random one.")
    single = data.get("single_deal", False)
    show = data.get("show_hands", True)
    if not isinstance(single, bool) or not isinstance(show, bool):
        raise GameError("'single_deal' and 'show_hands' must be true or false.")
    label = preset
    if overrides:
        label += " (" + ", ".join(f"{k}={v}" for k, v in overrides.items()) + ")"
    return GameSetup(rules, label, bots, human, single or rules.game_end_threshold is None, seed, show)


# ---------------------------------------------------------------------------------------------
# The live games
# ---------------------------------------------------------------------------------------------


class GameStore:
    """The live games under unguessable ids: at most ``max_games`` in all and ``max_per_client`` unfinished
    ones per client. A game untouched for ``idle_seconds`` is dropped (on every new game); when the table is
    full, finished games are dropped first, and a client at its bound has its own games idle for
    ``replace_seconds`` dropped (a game it walked away from). ``make`` builds the bots (shared networks)."""

    def __init__(
        self,
        max_games: int = 200,
        idle_seconds: float = 3600.0,
        records_dir: Path | None = None,
        *,
        max_per_client: int = 20,
        replace_seconds: float = 300.0,
        make: BotMaker = make_bot,
    ) -> None:
        self.max_games = max_games
        self.max_per_client = max_per_client
        self.idle_seconds = idle_seconds
        self.replace_seconds = replace_seconds
        self.records_dir = records_dir
        self.make = make
        self._games: dict[str, WebGame | None] = {}  # None: a seat held while its game is built
        self._owners: dict[str, str] = {}
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return len(self._games)

    def expire(self) -> None:
        now = time.monotonic()
        with self._lock:
            for key in [k for k, g in self._games.items() if g is not None and now - g.touched > self.idle_seconds]:
                self._drop(key)

    def _drop(self, key: str) -> None:
        del self._games[key]
        del self._owners[key]

    def _unfinished(self, owner: str) -> list[str]:
        """The ids of ``owner``'s games in progress (and being built), longest idle first."""
        mine = [k for k, o in self._owners.items() if o == owner and not getattr(self._games[k], "finished", False)]
        return sorted(mine, key=lambda k: getattr(self._games[k], "touched", float("inf")))

    def _make_room(self, owner: str) -> None:
        """Refuse a new game for ``owner`` (``GameError`` 429 or 503) unless there is room; make room first by
        dropping finished games, then ``owner``'s own games idle for ``replace_seconds``."""
        now = time.monotonic()
        mine = self._unfinished(owner)
        for key in mine[: max(0, len(mine) - self.max_per_client + 1)]:
            game = self._games[key]
            if game is not None and now - game.touched > self.replace_seconds:
                self._drop(key)
        mine = self._unfinished(owner)
        if len(mine) >= self.max_per_client:
            minutes = max(1, round(self.replace_seconds / 60))
            raise GameError(
                f"You have {len(mine)} games in progress, the most one client may have: finish one, or start "
                f"a new game once one has been left for {minutes} minute{'s' if minutes != 1 else ''}.",
                429,
            )
        finished = sorted(
            (g for g in self._games.values() if g is not None and g.finished), key=lambda g: g.touched, reverse=True
        )
        while len(self._games) >= self.max_games and finished:
            self._drop(finished.pop().id)
        if len(self._games) >= self.max_games:
            raise GameError(
                f"The table is full: too many games in progress ({len(self._games)}, the most this server holds). "
                "Try again later.",
                503,
            )

    def create(self, setup: GameSetup, owner: str = "") -> WebGame:
        self.expire()
        with self._lock:
            self._make_room(owner)
            game_id = secrets.token_urlsafe(18)
            while game_id in self._games:
                game_id = secrets.token_urlsafe(18)
            self._games[game_id] = None
            self._owners[game_id] = owner
        try:
            game = WebGame(game_id, setup, self.records_dir, self.make, owner)
        except BaseException:
            with self._lock:
                self._drop(game_id)
            raise
        with self._lock:
            self._games[game_id] = game
        return game

    def get(self, game_id: object) -> WebGame:
        if not isinstance(game_id, str):
            raise GameError("Unknown game.", 404)
        with self._lock:
            game = self._games.get(game_id)
        if game is None:
            raise GameError("Unknown game (it may have expired): start a new one.", 404)
        game.touched = time.monotonic()
        return game

    def live_records(self) -> set[str]:
        """The file names of the records of matches still in progress: they hold the match's seed and the
        next deal, so no client may read them."""
        with self._lock:
            games = [g for g in self._games.values() if g is not None]
        return {g.record_path.name for g in games if g.record_path is not None and not g.finished}
