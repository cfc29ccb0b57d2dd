"""``hearts play``: one person against bots in the terminal (``PlaySession``, ``play_command``), the
default opponent, and where game records go."""

from __future__ import annotations

import argparse
import contextlib
import random
import secrets
import signal
import sys
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from ..bots.make import lineup_of, make_bot, spec_label
from ..bots.roster import DEFAULT_BOT, ROSTER, default_bot_spec
from ..core import Deal, HeartsError, Match, Rules
from ..core.actions import PASS_FROM_HAND, VOID_DEAL
from ..core.cards import NUM_CARDS, cards_of, parse_card
from ..core.deal import DEALER_CHOICE, DONE, MOON_CHOICE, PASSING, PLAYING
from ..core.record import default_record_dir, save_record
from ..narrate.narrator import Narrator, illegal_reason, menu_text, menu_title, seat_names
from ..narrate.style import Style
from ..nets.spec import ModelError
from ..obs import SeatedTable
from .options import describe_rules, rules_overrides


def default_opponent(rules: Rules) -> str:
    """The roster's default bot (``strongest``) for ``rules``, by name; by its spec where that is a bot of any
    rules (``heuristic`` on rules no shipped network plays), and ``heuristic`` where its shipped model does not
    load."""
    spec = default_bot_spec(rules)
    if spec in ROSTER:
        return spec
    try:
        make_bot(spec, rules)
    except (ModelError, OSError, ValueError):
        return "heuristic"
    return DEFAULT_BOT


def split_opponents(items: Sequence[str]) -> list[str]:
    """The bot specs of ``--opponents``: separated by spaces or commas, except that a ``key=value`` word
    (no ``:`` of a bot kind) after a comma belongs to the spec before it, so that
    ``guard:base=ppo-tuned,margin=1,heuristic`` is two bots, the guard with its options and the heuristic."""
    specs: list[str] = []
    for word in " ".join(items).split():
        for i, part in enumerate(word.split(",")):
            if not part:
                continue
            if i and specs and "=" in part and ":" not in part.partition("=")[0]:
                specs[-1] += "," + part
            else:
                specs.append(part)
    return specs


class QuitGame(Exception):
    """The player typed ``q``."""


HELP_TEXT = """\
How to answer:
  a card         QS, qs, Q♠, 10h, TH ... (rank then suit; T or 10 for ten)
  a number       the number shown next to a card (only legal cards are numbered)
  passing        all the cards at once: QS KS AH, or 1 5 9
  menus          the number of a choice
  ?              this help
  q              quit (the game record is saved)
Hearts: follow suit if you can; the highest card of the suit led takes the trick. Every heart
costs points, the Q♠ 13; the lowest total wins. Take every point card to shoot the moon."""


class PlaySession:
    """One person against bots. I/O goes through ``read_line(prompt)`` (raises ``EOFError`` at the
    end of input) and ``write(text)``, so tests can drive it without a terminal; every line is fitted
    to the style (ASCII suits, the terminal's width). A card that is the only legal play is played
    for the person with a note, unless ``confirm_forced``."""

    def __init__(
        self,
        rules: Rules,
        human: int,
        bots: Mapping[int, Any],
        *,
        seed: int,
        single_deal: bool = False,
        style: Style | None = None,
        read_line: Callable[[str], str] | None = None,
        write: Callable[[str], None] | None = None,
        record_path: Path | None = None,
        labels: Mapping[int, str] | None = None,
        rules_label: str = "",
        confirm_forced: bool = False,
    ) -> None:
        self.rules = rules
        self.human = human
        self.bots = dict(bots)
        self.seed = seed
        self.single_deal = single_deal
        self.style = style or Style(False, True)
        self.read_line = read_line or _read_line
        self.write = write or (lambda text: print(text, flush=True))
        self.record_path = record_path
        self.labels = dict(labels or {})
        self.rules_label = rules_label
        self.confirm_forced = confirm_forced
        n = rules.num_players
        self.names = seat_names(n, human)
        self.narrator = Narrator(rules, self.names, self.style, human)
        self.match = Match(rules, seed=seed)
        self.table = SeatedTable(rules, match_episode=True)
        self.saved: Path | None = None
        self.save_failed = False

    # ---- output
    def say(self, *lines: str) -> None:
        for line in lines:
            self.write(self.style.fit(line))

    def save(self) -> Path | None:
        """Write the game record; ``None`` with ``--no-save``, or when writing failed (said on screen,
        and ``save_failed`` set)."""
        if self.record_path is None:
            return None
        try:
            self.saved = save_record(self.match, self.record_path, single_deal=self.single_deal)
        except OSError as err:
            self.save_failed = True
            self.say(self.style.error(f"Could not save the game record to {self.record_path}: {err.strerror or err}"))
            return None
        self.save_failed = False
        return self.saved

    # ---- the game
    def run(self) -> None:
        s = self.style
        n = self.rules.num_players
        threshold = self.rules.game_end_threshold
        mode = "one deal" if self.single_deal or threshold is None else f"a match to {threshold}"
        self.say(s.head(f"Hearts · {self.rules_label or 'custom rules'} · {n} players · {mode} · seed {self.seed}"))
        label = {p: self.labels.get(p) or spec_label(bot) for p, bot in self.bots.items()}
        others = ", ".join(f"{self.names[p]}: {label[p]}" for p in range(n) if p != self.human)
        left = self.names[(self.human + 1) % n]
        self.say(f"You play seat {self.human}; {others}. Play runs clockwise ({left} is on your left).")
        self.say("Type ? for help, q to quit.")
        while True:
            self.play_deal()
            self.save()
            if self.single_deal or self.match.over:
                break
            answer = self.ask_line("Press Enter for the next deal (q to quit)> ").strip().lower()
            if answer in ("q", "quit", "exit"):
                raise QuitGame
        if self.match.over and not self.single_deal:
            winners = ", ".join(self.names[p] for p in self.match.winners)
            verb = "win" if winners == "You" else "wins" if len(self.match.winners) == 1 else "share the win"
            self.say(
                "",
                s.note(
                    f"Match over after {self.match.deals_counted} deals: {winners} {verb} ({self.match.end_reason})."
                ),
            )

    def observation(self, seat: int) -> dict[str, np.ndarray]:
        """Exactly what the AEC env gives ``seat`` when it is to move: its own view, nothing more."""
        return self.table.observation(seat)

    def play_deal(self) -> None:
        match = self.match
        deal = match.deal
        history_before = len(match.history)
        self.table.start(match)
        self.say(*self.narrator.deal_header(deal, match.deals_counted + 1, match.totals))
        if deal.phase == PLAYING:
            self.say(self.narrator.trick_header(deal))
        while deal.phase != DONE:
            seat = deal.current_player
            phase = deal.phase
            if seat == self.human:
                action = self.ask(deal)
            else:
                action = self.bots[seat].act(self.observation(seat))
                if type(action) is not int:
                    action = int(action)
            self.table.apply(action)
            lines = self.narrator.after_action(deal, seat, action, phase)
            if lines:
                self.say(*lines)
        new = match.history[history_before:]
        summary = new[0] if new else None
        self.say("", *self.narrator.deal_end(deal, summary))
        for extra in new[1:]:  # deals cancelled as they were dealt
            self.say(*self.narrator.deal_end(extra.deal, extra))
        if not deal.cancelled:
            self.say("", *self.narrator.score_table([h for h in match.history if not h.deal.cancelled], match.totals))

    # ---- the person's decisions
    def ask_line(self, prompt: str) -> str:
        """One line from the person, after ``prompt`` (as the output can show it)."""
        return self.read_line(self.style.text(prompt))

    def ask(self, deal: Deal) -> int:
        legal = deal.legal_actions()
        if deal.phase == PLAYING and len(legal) == 1 and legal[0] < NUM_CARDS and not self.confirm_forced:
            self.say(self.narrator.forced_play(legal[0]))
            return legal[0]
        if legal[0] >= NUM_CARDS:
            return self.ask_menu(deal, legal)
        if deal.phase == PASSING:
            return self.ask_pass(deal, legal)
        return self.ask_play(deal, legal)

    def show_hand(self, deal: Deal, numbered: Sequence[int], title: str) -> None:
        s = self.style
        hand = cards_of(deal.hands[self.human])
        number = {c: i + 1 for i, c in enumerate(numbered)}
        lines = [title]
        for suit in range(4):
            cells = []
            for c in hand:
                if c // 13 != suit:
                    continue
                if c in number:
                    cells.append(f"{s.bold(str(number[c]).rjust(2))}:{s.card(c, 3)}")
                else:
                    cells.append(f"   {s.card(c, 3, dim=True)}")
            per_line = max(1, ((s.width or 80) - 5 + 1) // 7)  # a cell is 6 wide, then a space
            rows = [cells[i : i + per_line] for i in range(0, len(cells), per_line)] or [["  -"]]
            for k, row in enumerate(rows):  # a long suit goes on under its first card
                lead = f"  {s.suit(suit)}  " if k == 0 else "     "
                lines.append((lead + " ".join(row)).rstrip())
        self.say(*lines)

    def prompt(self, text: str) -> str:
        """One line of input; ``?`` shows the help and asks again, ``q`` quits."""
        while True:
            line = self.ask_line(text).strip()
            low = line.lower()
            if low in ("q", "quit", "exit"):
                raise QuitGame
            if low in ("?", "h", "help"):
                self.say(HELP_TEXT if self.style.symbols else HELP_TEXT.replace(" Q♠,", ""))  # not QS twice
                continue
            if not line:
                self.say("Type a card (like QS or 10h), a number from the list, ? for help or q to quit.")
                continue
            return line

    def refuse(self, reason: str, choices: str) -> None:
        self.say(self.style.error(reason) + f" Legal: {choices}")

    def read_card(self, token: str, numbered: Sequence[int]) -> int:
        """A card from ``QS``/``Q♠``/``10h`` or a number of the shown list; ``ValueError`` says why not."""
        if token.isdigit():
            k = int(token)
            if not 1 <= k <= len(numbered):
                raise ValueError(f"There is no card numbered {k}: the numbers go from 1 to {len(numbered)}.")
            return numbered[k - 1]
        try:
            return parse_card(token)
        except ValueError:
            raise ValueError(
                f"{token!r} is not a card: write it like QS, qs, Q♠, 10h or TH, or give its number."
            ) from None

    def ask_pass(self, deal: Deal, legal: list[int]) -> int:
        s = self.style
        seat = self.human
        count = self.rules.pass_count - len(deal.chosen[seat])
        self.show_hand(deal, legal, "Your hand (choose the cards to pass):")
        choices = "any " + (f"{count} cards of your hand" if count > 1 else "card of your hand")
        while True:
            line = self.prompt(self.narrator.pass_prompt(deal, seat, count))
            tokens = line.replace(",", " ").split()
            try:
                cards = [self.read_card(t, legal) for t in tokens]
            except ValueError as err:
                self.refuse(str(err), choices)
                continue
            held = deal.hands[seat]
            missing = [c for c in cards if not held >> c & 1]
            if missing:
                self.refuse(f"You do not hold {s.cards(missing)}.", choices)
                continue
            if len(set(cards)) != len(cards):
                self.refuse("You named the same card twice.", choices)
                continue
            if len(cards) != count:
                self.refuse(f"Pass exactly {count} card{'s' if count != 1 else ''}; you gave {len(cards)}.", choices)
                continue
            # all but the last are applied here; the caller applies the last one
            for card in cards[:-1]:
                self.table.apply(card)
            return cards[-1]

    def ask_play(self, deal: Deal, legal: list[int]) -> int:
        s = self.style
        self.show_hand(deal, legal, "Your hand (legal cards are numbered):")
        choices = " ".join(f"{i + 1}:{s.card(c)}" for i, c in enumerate(legal))
        while True:
            line = self.prompt("Your play> ")
            tokens = line.replace(",", " ").split()
            if len(tokens) != 1:
                self.refuse("Play one card at a time.", choices)
                continue
            try:
                card = self.read_card(tokens[0], legal)
            except ValueError as err:
                self.refuse(str(err), choices)
                continue
            if card in legal:
                return card
            self.refuse(illegal_reason(deal, card, s), choices)

    def ask_menu(self, deal: Deal, legal: list[int]) -> int:
        s = self.style
        items = [menu_text(deal, a) for a in legal]
        self.say(s.bold(menu_title(deal, legal)))
        if deal.phase == MOON_CHOICE:
            self.say(self.narrator.totals_line(self.match.totals, "Totals before this deal"))
        if legal[0] in (PASS_FROM_HAND, VOID_DEAL) or deal.phase == DEALER_CHOICE:
            self.show_hand(deal, [], "Your hand:")
        for i, text in enumerate(items, 1):
            self.say(f"  {i}) {text}")
        choices = " ".join(f"{i}" for i in range(1, len(items) + 1))
        while True:
            line = self.prompt(f"Choose 1-{len(items)}> ")
            if line.isdigit() and 1 <= int(line) <= len(items):
                return legal[int(line) - 1]
            self.refuse(f"{line!r} is not one of the choices.", choices)


def _read_line(prompt: str) -> str:
    if sys.stdin.isatty() and sys.stdout.isatty():
        return input(prompt)  # line editing and history when ``readline`` is loaded (``hearts play`` loads it)
    sys.stdout.write(prompt)
    sys.stdout.flush()
    line = sys.stdin.readline()
    if not line:
        raise EOFError
    return line


def record_path_problem(path: Path) -> str | None:
    """Why a game record cannot be written to ``path`` (checked before the game starts), or ``None``.
    Creates the directory the record goes to, as saving would."""
    if path.is_dir():
        return "it is a directory; give a file name, such as " + str(path / "game.json")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except OSError as err:
        return f"cannot create the directory {path.parent}: {err.strerror or err}"
    probe = path.with_name(path.name + ".tmp")  # the file saving writes first
    try:
        existed = probe.exists()
        with open(probe, "a", encoding="utf-8"):
            pass
        if not existed:
            probe.unlink()
    except OSError as err:
        return f"cannot write there: {err.strerror or err}"
    return None


def new_record_path(seed: int) -> Path:
    base = default_record_dir()
    stamp = time.strftime("%Y%m%d-%H%M%S")
    path = base / f"game-{stamp}-seed{seed}.json"
    k = 1
    while path.exists():
        k += 1
        path = base / f"game-{stamp}-seed{seed}-{k}.json"
    return path


def play_command(args: argparse.Namespace) -> int:
    """``hearts play``: check every option (one line and status 2 for a bad one), then play."""
    overrides = rules_overrides(args.players, args.set)
    rules = Rules.load(args.rules, **overrides)
    n = rules.num_players
    if not 0 <= args.seat < n:
        print(f"hearts play: --seat must be a seat 0..{n - 1}", file=sys.stderr)
        return 2
    seed = args.seed if args.seed is not None else secrets.randbelow(10**6)
    specs = split_opponents(args.opponents or [])
    seats = [(args.seat + k) % n for k in range(1, n)]  # the opponents, from the person's left
    if not specs:
        specs = [default_opponent(rules)]
    if len(specs) > n - 1:
        print(
            f"hearts play: --opponents: {len(specs)} bots for the {n - 1} other seats: give at most one per seat",
            file=sys.stderr,
        )
        return 2

    specs = lineup_of(specs, n - 1)  # as hearts tournament: the last bot fills the remaining seats
    rng = random.Random(seed)
    bots: dict[int, Any] = {}
    labels: dict[int, str] = {}
    for seat, spec in zip(seats, specs, strict=True):
        try:
            bots[seat] = make_bot(spec, rules, rng.getrandbits(32))
        except (ValueError, NotImplementedError, HeartsError, OSError) as err:
            print(f"hearts play: opponent {spec!r}: {err}", file=sys.stderr)
            return 2
        labels[seat] = spec_label(spec)
    record = None if args.no_save else (Path(args.record) if args.record else new_record_path(seed))
    if record is not None:
        problem = record_path_problem(record)
        if problem:
            print(
                f"hearts play: cannot save the game record to {record}: {problem} (or play with --no-save)",
                file=sys.stderr,
            )
            return 2
    if sys.stdin.isatty():
        with contextlib.suppress(ImportError):  # not on every platform
            import readline  # noqa: F401  (arrow keys and history at the prompts)
    style = Style.detect(sys.stdout, args.no_color)
    session = PlaySession(
        rules,
        args.seat,
        bots,
        seed=seed,
        single_deal=args.deal,
        style=style,
        record_path=record,
        labels=labels,
        rules_label=describe_rules(args.rules, overrides),
        confirm_forced=args.confirm_forced,
    )
    code = 0
    ending = ""
    # ^C ends the game with its record saved, even when a parent started us with SIGINT ignored
    # (ignored signals survive exec, and Python then installs no KeyboardInterrupt handler)
    signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        session.run()
    except QuitGame:
        ending = "You quit."
    except EOFError:
        ending = "End of input."
    except KeyboardInterrupt:
        ending = "Interrupted."
        code = 130
    except BaseException:
        session.save()  # whatever went wrong, the game so far is kept
        raise
    saved = session.save()
    if saved:
        where = f"Game record saved to {saved}"
    elif session.save_failed:
        where = f"The game record could not be saved to {record}."
        code = code or 1
    else:
        where = "The game was not saved (--no-save)."
    print(f"\n{ending + ' ' if ending else ''}{where}", flush=True)
    if saved:
        print(f"Replay it with: hearts replay {saved}", flush=True)
    return code
