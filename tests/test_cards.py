"""Card ids, parsing and formatting (RULES.md §0 card notation: ``2C`` is ♣2, ``QS`` is ♠Q, ``TD`` is ♦10)."""

from __future__ import annotations

import pytest

from hearts_env.core.cards import (
    CLUBS,
    DIAMONDS,
    HEARTS,
    NUM_CARDS,
    QS,
    SPADES,
    TWO_CLUBS,
    card_id,
    card_name,
    card_symbol,
    cards_of,
    format_cards,
    mask_of,
    parse_card,
    parse_cards,
    rank_of,
    suit_of,
)


@pytest.mark.parametrize("text", ["QS", "qs", "Qs", "♠Q", "Q♠", "q♠", " QS ", "♤Q"])
def test_queen_of_spades_spellings(text):
    """ "`QS` is ♠Q": every documented spelling of the queen of spades is the same card."""
    assert parse_card(text) == QS
    assert card_name(parse_card(text)) == "QS"


@pytest.mark.parametrize("text", ["TD", "td", "10D", "10d", "♦10", "10♦", "T♦", "♢10"])
def test_ten_of_diamonds_spellings(text):
    """ "`TD` is ♦10": T and 10 both name the ten, with letter or symbol suits, either order."""
    assert parse_card(text) == card_id(8, DIAMONDS)
    assert card_name(parse_card(text)) == "TD"


@pytest.mark.parametrize(
    ("text", "rank", "suit"),
    [
        ("2C", 0, CLUBS),
        ("JD", 9, DIAMONDS),
        ("AH", 12, HEARTS),
        ("KS", 11, SPADES),
        ("♥A", 12, HEARTS),
        ("3♣", 1, CLUBS),
    ],
)
def test_parse_rank_and_suit(text, rank, suit):
    """Each suit ranks A K Q J 10 9 8 7 6 5 4 3 2 (A high): rank 0 is the 2, rank 12 the ace."""
    card = parse_card(text)
    assert rank_of(card) == rank
    assert suit_of(card) == suit


@pytest.mark.parametrize("text", ["", "Q", "1D", "11D", "QX", "XS", "QSS", "10", "♠", "ZZ", "CD"])
def test_parse_rejects_non_cards(text):
    """Text that is not a card raises ``ValueError`` naming the text."""
    with pytest.raises(ValueError, match="is not a card"):
        parse_card(text)


def test_parse_cards_list_and_string():
    """Several cards may be given as a list, or one string separated by spaces or commas."""
    assert parse_cards("2C, QS TD") == [TWO_CLUBS, QS, card_id(8, DIAMONDS)]
    assert parse_cards(["2c", "Q♠"]) == [TWO_CLUBS, QS]


def test_every_card_round_trips_through_name_and_symbol():
    """The canonical ASCII name and the display symbol both parse back to the same card id."""
    for card in range(NUM_CARDS):
        assert parse_card(card_name(card)) == card
        assert parse_card(card_symbol(card)) == card


def test_names_and_symbols():
    """Card notation: `2C` is ♣2, `QS` is ♠Q, `TD` is ♦10, `JD` is ♦J, `AH` is ♥A."""
    assert card_name(TWO_CLUBS) == "2C"
    assert card_symbol(QS) == "Q♠"
    assert card_symbol(parse_card("TD")) == "10♦"
    assert card_symbol(parse_card("JD")) == "J♦"
    assert card_symbol(parse_card("AH")) == "A♥"


def test_card_name_out_of_range():
    """Only ids 0..51 are cards."""
    with pytest.raises(ValueError, match="out of range"):
        card_name(52)
    with pytest.raises(ValueError, match="out of range"):
        card_name(-1)


def test_ids_are_suit_major_and_rank_ascending():
    """Ids order the suits clubs, diamonds, spades, hearts, and ranks 2..A within a suit, so the
    highest card of a suit is its largest id."""
    assert [card_name(c) for c in (0, 12, 13, 25, 26, 38, 39, 51)] == ["2C", "AC", "2D", "AD", "2S", "AS", "2H", "AH"]
    assert parse_card("AS") > parse_card("KS") > QS > parse_card("JS")


def test_masks_and_formatting():
    """Hands are 52-bit masks; ``cards_of`` lists a mask ascending, ``format_cards`` sorts."""
    hand = parse_cards("QS 2C AH TD")
    mask = mask_of(hand)
    assert cards_of(mask) == sorted(hand)
    assert format_cards(hand) == "2C TD QS AH"
    assert format_cards(hand, symbols=True) == "2♣ 10♦ Q♠ A♥"
