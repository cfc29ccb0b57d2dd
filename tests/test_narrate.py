"""The narration room: seat names, the ASCII fallback of ``Style``, lines fitted to a width, and the
env's text render written with the narration's cards and points."""

from __future__ import annotations

import codecs
import io
import random

import pytest

from hearts_env import Match, Rules
from hearts_env.bots import make_bot
from hearts_env.cli.play import PlaySession, QuitGame
from hearts_env.core import parse_card
from hearts_env.core.cards import QS
from hearts_env.narrate.narrator import COMPASS, Narrator, seat_names
from hearts_env.narrate.render import render_text
from hearts_env.narrate.replay import replay_steps
from hearts_env.narrate.style import Style, spell_unencodable, visible_len


def test_one_naming_of_seats_for_play_and_replay() -> None:
    assert seat_names(4, None) == ["South", "West", "North", "East"] == list(COMPASS)
    assert seat_names(4, 0) == ["You", "West", "North", "East"]  # the person sits South
    assert seat_names(4, 2) == ["North", "East", "You", "West"]  # West is always on the person's left
    assert seat_names(5, None) == ["P0", "P1", "P2", "P3", "P4"]
    assert seat_names(5, 0) == ["You", "P1", "P2", "P3", "P4"]
    assert seat_names(3, 1) == ["P2", "You", "P1"]


class FakeStream:
    """An output stream of any encoding name, even one Python does not know."""

    def __init__(self, encoding: str) -> None:
        self.encoding = encoding

    def isatty(self) -> bool:
        return False


@pytest.mark.parametrize(
    "encoding,symbols", [("utf-8", True), ("ascii", False), ("latin-1", False), ("no-such-codec", False)]
)
def test_style_detect_falls_back_to_ascii_suits(encoding: str, symbols: bool) -> None:
    stream = io.TextIOWrapper(io.BytesIO(), encoding="utf-8") if encoding == "utf-8" else FakeStream(encoding)
    style = Style.detect(stream, no_color=False)
    assert style.symbols is symbols and not style.colour
    ten = parse_card("TH")
    assert style.card(ten) == ("10♥" if symbols else "10H") and style.card(QS) == ("Q♠" if symbols else "QS")
    assert style.suit(0) == ("♣" if symbols else "C")


def test_ascii_text_encodes_in_ascii() -> None:
    style = Style(False, symbols=False)
    line = "═══ Deal 1 · dealer You ═══ Q♠ → 10♥ — ok … é"
    text = style.text(line)
    text.encode("ascii")  # no UnicodeEncodeError
    assert text == "=== Deal 1 - dealer You === QS -> 10H - ok ... ?"
    assert Style(False).text(line) == line  # with symbols: untouched


def test_detect_takes_the_terminal_width(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", "57")
    assert Style.detect(io.StringIO(), no_color=True).width == 57
    monkeypatch.setenv("COLUMNS", "10")
    assert Style.detect(io.StringIO(), no_color=True).width == 40  # never narrower than 40


def test_wrap_breaks_after_separators_and_keeps_colour_out_of_the_count() -> None:
    style = Style(False, width=40)
    line = "── Trick 1 of 13 ── hearts not broken · points: You 0 · West 0 · North 0 · East 0"
    lines = style.wrap(line)
    assert len(lines) > 1 and all(len(x) <= 40 for x in lines)
    assert " ".join(x.strip() for x in lines) == line  # nothing lost
    assert all(x.rstrip().endswith("·") for x in lines[:-1])  # broken after a separator: "West 0" stays together
    assert lines[1].startswith("    ")  # continuation indented
    plain = "a " * 30
    assert all(len(x) <= 40 for x in style.wrap(plain.strip()))
    assert style.wrap("x" * 60 + " y") == ["x" * 60, "    y"]  # a long word gets its own line
    coloured = Style(True, width=40)
    bold = coloured.bold("word") + " " + coloured.bold("word")
    assert coloured.wrap(bold) == [bold] and visible_len(bold) == 9
    assert Style(False).wrap(line) == [line]  # no width: never wrapped


def test_a_play_session_fits_every_line_to_a_narrow_width() -> None:
    """Eight players (long headers and score lines) and a 44-column screen: every line written fits."""
    rules = Rules.preset("six_to_eight", num_players=8)
    bots = {p: make_bot("heuristic", rules, seed=p) for p in range(1, 8)}
    written: list[str] = []

    def answer(prompt: str) -> str:
        if prompt.startswith("Pass"):
            return " ".join(str(k) for k in range(1, int(prompt.split()[1]) + 1))
        return "?" if prompt == "Your play> " and not any("How to answer" in w for w in written) else "1"

    session = PlaySession(
        rules,
        0,
        bots,
        seed=2,
        single_deal=True,
        style=Style(False, True, width=44),
        read_line=answer,
        write=written.append,
    )
    session.run()
    lines = [line for text in written for line in text.split("\n")]
    assert "Deal scores:" in "\n".join(lines) and any("How to answer" in x for x in lines)
    too_long = [x for x in lines if len(x) > 44]
    assert not too_long, too_long


def test_a_long_suit_wraps_under_its_first_card() -> None:
    rules = Rules(first_lead="eldest_any_card", pass_cycle=["hold"], first_dealer=3)
    clubs = [f"{r}C" for r in "23456789TJQKA"]
    rest = [f"{r}{s}" for s in "DSH" for r in "23456789TJQKA"]
    written: list[str] = []
    session = PlaySession(
        rules,
        0,
        {p: make_bot("heuristic", rules) for p in (1, 2, 3)},
        seed=1,
        single_deal=True,
        style=Style(False, True, width=40),
        read_line=lambda prompt: "q",
        write=written.append,
    )
    session.match = Match(rules, seed=1, scripted_deals=[{"hands": [clubs, rest[:13], rest[13:26], rest[26:]]}])
    with pytest.raises(QuitGame):
        session.run()
    hand = "\n".join(written).split("Your hand")[1].split("\n")
    club_rows = hand[1:4]
    assert club_rows[0].startswith("  ♣   1:2♣") and all(len(x) <= 40 for x in club_rows)
    assert club_rows[1].startswith("      ") and club_rows[1].split()[0].endswith("♣")  # under the first card
    assert sum(row.count("♣") for row in club_rows) == 13 + 1  # the suit sign once, every club once


def test_render_text_writes_cards_and_points_as_the_narration() -> None:
    rules = Rules.preset("standard")
    match = Match(rules, seed=4)
    text = render_text(match.deal, [f"player_{p}" for p in range(4)], match=match, rules_name="standard")
    style = Style(False)
    for p in range(4):
        assert style.cards(sorted(c for c in range(52) if match.deal.hands[p] >> c & 1)) in text
    assert "deal 1 (match)" in text and text.count("\n") == 6


def test_a_wide_score_table_goes_in_blocks_of_seats() -> None:
    rules = Rules.preset("six_to_eight", num_players=8, game_end_threshold=1)
    match = Match(rules, seed=3)
    while not match.history:
        match.apply_action(match.legal_actions()[0])
    names = seat_names(8, 0)
    wide = Narrator(rules, names, Style(False), 0).score_table(match.history, match.totals)
    assert len(wide) == 3 and all(name in wide[0] for name in names)  # head, deal 1, total
    narrow = Narrator(rules, names, Style(False, width=44), 0).score_table(match.history, match.totals)
    assert all(len(line) <= 44 for line in narrow)
    blocks = "\n".join(narrow).split("\n\n")
    assert len(blocks) == 2 and all(block.split("\n")[-1].startswith("Total") for block in blocks)
    assert [name for block in blocks for name in block.split("\n")[0].split()] == names
    totals = [int(x) for block in blocks for x in block.split("\n")[-1].split()[1:]]
    assert totals == list(match.totals)


def random_match(rules: Rules, seed: int, stop: int | None = None) -> Match:
    rng = random.Random(seed)
    match = Match(rules, seed=seed)
    while not match.is_terminal() and (stop is None or len(match.history) < stop or len(match.deal.actions) < 20):
        match.apply_action(rng.choice(match.legal_actions()))
    return match


def test_replay_steps_replay_every_action_of_a_match() -> None:
    rules = Rules.preset("omnibus", game_end_threshold=40)
    match = random_match(rules, 5)
    narrator = Narrator(rules, seat_names(4, None), Style(False), None)
    steps = list(replay_steps(match, narrator))
    assert [s.kind for s in steps if s.kind != "action"] == ["deal", "end"] * len(match.history) + ["over"]
    assert sum(s.kind == "action" for s in steps) == sum(len(h.deal.actions) for h in match.history)
    ends = [s for s in steps if s.kind == "end"]
    for end, summary in zip(ends, match.history, strict=True):
        assert end.deal is not summary.deal and end.deal.scores == summary.deal.scores  # replayed, not reused
        assert end.totals == list(summary.totals)
        assert end.lines[-1] == narrator.totals_line(summary.totals) or summary.deal.cancelled
    assert sum(s.trick_done for s in steps) == sum(len(h.deal.trick_winners) for h in match.history)
    assert steps[-1].lines[0].startswith("Match over: ")


def test_replay_steps_of_a_record_that_stops_inside_a_deal() -> None:
    rules = Rules.preset("standard")
    match = random_match(rules, 2, stop=1)
    assert not match.over and match.deal.actions
    narrator = Narrator(rules, seat_names(4, None), Style(False), None)
    steps = list(replay_steps(match, narrator))
    assert steps[-1].kind == "unfinished" and "the record ends here" in steps[-1].lines[0]
    assert steps[-1].deal.hands == match.deal.hands and steps[-1].number == 2


def test_an_output_stream_spells_what_it_cannot_encode() -> None:
    codecs.register_error("hearts-ascii", spell_unencodable)
    raw = io.BytesIO()
    stream = io.TextIOWrapper(raw, encoding="ascii", errors="hearts-ascii")
    stream.write("3 deals × 4 · Q♠ 10♥ é\n")
    stream.flush()
    assert raw.getvalue() == b"3 deals x 4 - QS 10H ?\n"
