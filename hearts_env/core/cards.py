"""Cards: integer ids, bitmask helpers, parsing and formatting.

A card id is ``suit * 13 + rank`` with suits ordered clubs, diamonds, spades, hearts
(the order most Hearts programs sort a hand in) and ranks ``0 = 2`` up to ``12 = A``.
Because ids are suit-major and rank-ascending, the winner of a trick is simply the
largest id among the cards of the led suit, and a hand is a 52-bit integer mask.
"""

from __future__ import annotations

from collections.abc import Iterable

from .errors import brief

NUM_CARDS = 52
NUM_SUITS = 4
NUM_RANKS = 13

CLUBS, DIAMONDS, SPADES, HEARTS = 0, 1, 2, 3
SUIT_LETTERS = "CDSH"
SUIT_SYMBOLS = "♣♦♠♥"
SUIT_NAMES = ("clubs", "diamonds", "spades", "hearts")
RANK_LETTERS = "23456789TJQKA"

SUIT_MASK_BITS = (1 << NUM_RANKS) - 1
SUIT_MASKS = tuple(SUIT_MASK_BITS << (NUM_RANKS * s) for s in range(NUM_SUITS))
HEARTS_MASK = SUIT_MASKS[HEARTS]
FULL_DECK_MASK = (1 << NUM_CARDS) - 1


def card_id(rank: int, suit: int) -> int:
    """The id of the card of ``rank`` (0 = 2 .. 12 = A) and ``suit``."""
    return suit * NUM_RANKS + rank


def suit_of(card: int) -> int:
    return card // NUM_RANKS


def rank_of(card: int) -> int:
    return card % NUM_RANKS


QS = card_id(10, SPADES)
KS = card_id(11, SPADES)
AS = card_id(12, SPADES)
TWO_CLUBS = card_id(0, CLUBS)
QS_BIT = 1 << QS
HIGHER_THAN_QUEEN_MASK = (1 << KS) | (1 << AS)

_RANK_ALIASES = {"10": 8, "T": 8, "J": 9, "Q": 10, "K": 11, "A": 12}
_SUIT_ALIASES = {
    **{letter: i for i, letter in enumerate(SUIT_LETTERS)},
    **{symbol: i for i, symbol in enumerate(SUIT_SYMBOLS)},
    "♧": CLUBS,
    "♢": DIAMONDS,
    "♤": SPADES,
    "♡": HEARTS,
}


def parse_card(text: str) -> int:
    """Parse ``QS``, ``qs``, ``TD``, ``10D``, ``Q♠`` or ``♠Q`` into a card id.

    Raises ``ValueError`` naming the text when it is not a card.
    """
    if not isinstance(text, str):
        raise ValueError(f"{brief(text)} is not a card (write it like QS, 10D, TD or Q♠)")
    raw = text.strip().upper()
    if 2 <= len(raw) <= 4:
        for rank_text, suit_text in ((raw[:-1], raw[-1]), (raw[1:], raw[0])):
            suit = _SUIT_ALIASES.get(suit_text)
            if suit is None:
                continue
            if rank_text in _RANK_ALIASES:
                return card_id(_RANK_ALIASES[rank_text], suit)
            if len(rank_text) == 1 and rank_text in RANK_LETTERS:
                return card_id(RANK_LETTERS.index(rank_text), suit)
    raise ValueError(f"{brief(text)} is not a card (write it like QS, 10D, TD or Q♠)")


def parse_cards(texts: Iterable[str] | str) -> list[int]:
    """Parse several cards, given as a list or as one string separated by spaces or commas."""
    if isinstance(texts, str):
        texts = texts.replace(",", " ").split()
    return [parse_card(t) for t in texts]


def card_name(card: int) -> str:
    """ASCII name such as ``QS`` or ``TD`` (the canonical form used in files)."""
    if not 0 <= card < NUM_CARDS:
        raise ValueError(f"card id {card} is out of range 0..51")
    return RANK_LETTERS[card % NUM_RANKS] + SUIT_LETTERS[card // NUM_RANKS]


def card_symbol(card: int) -> str:
    """Display name such as ``Q♠`` or ``10♦``."""
    rank = RANK_LETTERS[card % NUM_RANKS]
    return ("10" if rank == "T" else rank) + SUIT_SYMBOLS[card // NUM_RANKS]


CARD_NAMES = tuple(card_name(c) for c in range(NUM_CARDS))


def mask_of(cards: Iterable[int]) -> int:
    mask = 0
    for card in cards:
        mask |= 1 << card
    return mask


def cards_of(mask: int) -> list[int]:
    """The card ids in ``mask``, ascending."""
    out = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return out


def popcount(mask: int) -> int:
    return mask.bit_count()


def lowest_card(mask: int) -> int:
    return (mask & -mask).bit_length() - 1


def format_cards(cards: Iterable[int], symbols: bool = False) -> str:
    fmt = card_symbol if symbols else card_name
    return " ".join(fmt(c) for c in sorted(cards))
