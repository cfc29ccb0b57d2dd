"""How narration looks as text (``Style``): cards with suit symbols or ASCII letters, optional ANSI
colour, headings and notes, and lines fitted to a width. Text in, text out: a front end decides
where it goes."""

from __future__ import annotations

import os
import re
import shutil
from collections.abc import Sequence
from typing import Any

from ..core.cards import HEARTS, RANK_LETTERS, SUIT_LETTERS, SUIT_MASKS, SUIT_SYMBOLS, card_symbol, cards_of

#: every non-ASCII character the narration writes, spelled in ASCII for an output that cannot encode it
ASCII_SPELLING = str.maketrans(
    {
        "♣": "C",
        "♦": "D",
        "♠": "S",
        "♥": "H",
        "·": "-",
        "─": "-",
        "═": "=",
        "→": "->",
        "—": "-",
        "…": "...",
        "×": "x",
        "±": "+/-",
    }
)
SEPARATORS = ("·", "-")  # between the items of a line, as written and in ASCII: a line breaks after one
_SGR = re.compile(r"\x1b\[[0-9;]*m")


def spell_unencodable(err: UnicodeError) -> tuple[str, int]:
    """A codec error handler (``codecs.register_error``): what an output cannot encode, spelled as
    :meth:`Style.text` does (``♠`` as ``S``, ``·`` as ``-``), anything else as ``?``."""
    if not isinstance(err, UnicodeEncodeError):
        raise err
    bad = err.object[err.start : err.end]
    return bad.translate(ASCII_SPELLING).encode("ascii", "replace").decode("ascii"), err.end


def visible_len(text: str) -> int:
    """The width ``text`` takes on a screen: its length without ANSI colour codes."""
    return len(_SGR.sub("", text))


class Style:
    """Cards and emphasis as text: suit symbols unless the output cannot encode them (then S H D C),
    ANSI colour only when wanted, and lines wrapped at ``width`` (``None``: never wrapped)."""

    def __init__(self, colour: bool, symbols: bool = True, width: int | None = None) -> None:
        self.colour = colour
        self.symbols = symbols
        self.width = width

    @staticmethod
    def detect(stream: Any, no_color: bool) -> Style:
        """The style for text written to ``stream`` (looked at, never read or written): symbols when
        its encoding has them, colour on a terminal without ``--no-color``/``NO_COLOR``/``TERM=dumb``,
        the terminal's width (``COLUMNS``, else 80 off a terminal)."""
        encoding = getattr(stream, "encoding", None) or "ascii"
        try:
            "♣♦♠♥─═→·".encode(encoding)
            symbols = True
        except (UnicodeEncodeError, LookupError):
            symbols = False
        isatty = getattr(stream, "isatty", lambda: False)()
        colour = (
            isatty and not no_color and "NO_COLOR" not in os.environ and os.environ.get("TERM", "") not in ("dumb", "")
        )
        return Style(colour, symbols, max(40, shutil.get_terminal_size((80, 24)).columns))

    def _sgr(self, text: str, code: str) -> str:
        return f"\x1b[{code}m{text}\x1b[0m" if self.colour and text else text

    def card(self, card: int, width: int = 0, dim: bool = False) -> str:
        text = card_symbol(card) if self.symbols else card_symbol(card).translate(ASCII_SPELLING)  # 10♥ or 10H
        text = text.ljust(width)
        if not self.colour:
            return text
        code = "31" if card // 13 in (1, HEARTS) else ""
        if dim:
            code = "2;" + code if code else "2"
        return self._sgr(text, code) if code else text

    def cards(self, cards: Sequence[int]) -> str:
        return " ".join(self.card(c) for c in sorted(cards)) if cards else "-"

    def suit(self, suit: int) -> str:
        text = SUIT_SYMBOLS[suit] if self.symbols else SUIT_LETTERS[suit]
        return self._sgr(text, "31") if suit in (1, HEARTS) else text

    def bold(self, text: str) -> str:
        return self._sgr(text, "1")

    def head(self, text: str) -> str:
        return self._sgr(text, "1;36")

    def note(self, text: str) -> str:
        return self._sgr(text, "1;33")

    def error(self, text: str) -> str:
        return self._sgr(text, "31")

    @property
    def rule(self) -> str:
        return "─" if self.symbols else "-"

    @property
    def double(self) -> str:
        return "═" if self.symbols else "="

    @property
    def arrow(self) -> str:
        return "→" if self.symbols else "->"

    def suit_line(self, mask: int) -> str:
        """A hand as ``♣ 2 5 K  ♦ 4 Q  ♠ -  ♥ 3 A`` (one token per suit, ranks ascending)."""
        parts = []
        for suit in range(4):
            ranks = [RANK_LETTERS[c % 13] for c in cards_of(mask & SUIT_MASKS[suit])]
            ranks = ["10" if r == "T" else r for r in ranks]
            parts.append(f"{self.suit(suit)} {' '.join(ranks) if ranks else '-'}")
        return "   ".join(parts)

    def text(self, text: str) -> str:
        """``text`` as this output can show it: unchanged with symbols; else in ASCII (suits as
        S H D C, ``·`` as ``-``, anything else unknown as ``?``)."""
        if self.symbols:
            return text
        return text.translate(ASCII_SPELLING).encode("ascii", "replace").decode("ascii")

    def wrap(self, line: str, hang: int | None = None) -> list[str]:
        """``line`` broken at spaces into lines of at most ``width`` visible characters, the next
        lines indented by ``hang`` (default: the line's own indent plus 4). It breaks after a ``·``
        (or its ASCII ``-``) where it can, so ``West 0`` stays together; a word longer than the
        width gets its own line."""
        if self.width is None or visible_len(line) <= self.width:
            return [line]
        body = line.lstrip(" ")
        indent = " " * (hang if hang is not None else len(line) - len(body) + 4)
        words = re.findall(r" *\S+", body)  # each word with the spaces before it
        out: list[str] = []
        current = [line[: len(line) - len(body)] + words[0]]
        for word in words[1:]:
            if visible_len("".join(current) + word) <= self.width:
                current.append(word)
                continue
            # the last break after a "·" in the line, else break before this word
            cut = max((i for i in range(1, len(current)) if current[i - 1].strip() in SEPARATORS), default=len(current))
            out.append("".join(current[:cut]))
            current = [indent + w.lstrip(" ") if k == 0 else w for k, w in enumerate([*current[cut:], word])]
            if len(current) > 1 and visible_len("".join(current)) > self.width:  # the carried words do not fit
                out.append("".join(current[:-1]))
                current = [indent + word.lstrip(" ")]
        out.append("".join(current))
        return out

    def fit(self, text: str, hang: int | None = None) -> str:
        """``text`` (one or more lines) ready for the output: :meth:`text`, then :meth:`wrap`."""
        return "\n".join(part for line in self.text(text).split("\n") for part in self.wrap(line, hang))
