"""Terminal text: cards with suit symbols and colours, headings, notes (``Style``)."""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Any

from ..core.cards import (
    HEARTS,
    RANK_LETTERS,
    SUIT_MASKS,
    SUIT_SYMBOLS,
    card_name,
    card_symbol,
    cards_of,
)


class Style:
    """Cards and emphasis as terminal text: suit symbols when the output can encode them, ANSI
    colour only when wanted (a terminal, no ``--no-color``, no ``NO_COLOR``)."""

    def __init__(self, colour: bool, symbols: bool = True) -> None:
        self.colour = colour
        self.symbols = symbols

    @staticmethod
    def detect(stream: Any, no_color: bool) -> Style:
        encoding = getattr(stream, "encoding", None) or "ascii"
        try:
            "♣♦♠♥─═→".encode(encoding)
            symbols = True
        except (UnicodeEncodeError, LookupError):
            symbols = False
        isatty = getattr(stream, "isatty", lambda: False)()
        colour = (
            isatty and not no_color and "NO_COLOR" not in os.environ and os.environ.get("TERM", "") not in ("dumb", "")
        )
        return Style(colour, symbols)

    def _sgr(self, text: str, code: str) -> str:
        return f"\x1b[{code}m{text}\x1b[0m" if self.colour and text else text

    def card(self, card: int, width: int = 0, dim: bool = False) -> str:
        text = card_symbol(card) if self.symbols else card_name(card)
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
        text = SUIT_SYMBOLS[suit] if self.symbols else "CDSH"[suit]
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
