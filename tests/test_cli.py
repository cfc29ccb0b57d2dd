"""The ``hearts`` command: ``play`` driven as a person would, in a real pseudo-terminal (pexpect),
and ``tournament``, ``rules``, ``replay``, ``train``/``export`` through the command line."""

from __future__ import annotations

import io
import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pexpect
import pytest

from hearts_env import PRESETS, Match, Rules
from hearts_env.bots import make_bot
from hearts_env.cli.main import main
from hearts_env.cli.options import parse_setting
from hearts_env.cli.play import PlaySession, QuitGame
from hearts_env.core import load_record, parse_card, replay_record
from hearts_env.core.rulesets import sample_rules
from hearts_env.narrate.style import Style
from hearts_env.obs import encode

PASS = r"Pass (\d+) cards?[^\r\n]*> "
PLAY = r"Your play> "
MENU = r"Choose 1-(\d+)> "
NEXT = r"Press Enter for the next deal \(q to quit\)> "
CARD = re.compile(r"(?:(\d+):)?((?:10|[2-9JQKA])[♣♦♠♥])")


def spawn(args: list[str], tmp_path: Path, *, colour: bool = False, columns: int = 200) -> pexpect.spawn:
    env = {**os.environ, "HEARTS_GAMES_DIR": str(tmp_path / "games"), "TERM": "xterm", "PYTHONUTF8": "1"}
    env.pop("NO_COLOR", None)
    env.pop("COLUMNS", None)  # the width is the terminal's
    if not colour:
        env["NO_COLOR"] = "1"
    return pexpect.spawn(
        sys.executable,
        ["-m", "hearts_env", "play", *args],
        env=env,
        encoding="utf-8",
        timeout=45,  # a loaded machine: the first prompt waits for imports and the bots
        dimensions=(60, columns),
    )


def hand_cards(screen: str) -> tuple[list[str], list[str]]:
    """The (numbered = legal, unnumbered = illegal) cards of the last hand shown on ``screen``."""
    block = screen[screen.rindex("Your hand") :]
    legal, other = [], []
    for number, card in CARD.findall(block):
        (legal if number else other).append(card)
    return legal, other


def play_on(child: pexpect.spawn, max_steps: int = 400, stop_at_next: bool = False) -> str:
    """Answer every prompt with the first legal choice until the program ends; the whole screen."""
    screen = ""
    for _ in range(max_steps):
        i = child.expect([PASS, PLAY, MENU, NEXT, pexpect.EOF])
        screen += child.before + (child.after if isinstance(child.after, str) else "")
        if i == 0:
            count = int(child.match.group(1))
            child.sendline(" ".join(str(k) for k in range(1, count + 1)))
        elif i in (1, 2):
            child.sendline("1")
        elif i == 3:
            if stop_at_next:
                return screen
            child.sendline("")
        else:
            return screen
    raise AssertionError("the game did not end")


def test_a_whole_deal_with_passing_and_wrong_input(tmp_path: Path) -> None:
    record = tmp_path / "deal.json"
    child = spawn(["--seed", "3", "--deal", "--opponents", "heuristic", "--record", str(record)], tmp_path)
    child.expect(PASS)
    assert "pass left (3 cards to West)" in child.before
    legal, _ = hand_cards(child.before)
    assert len(legal) == 13
    # a wrong number of pass cards, a card not held, a mistyped card: each refused, the prompt repeats
    child.sendline("1")
    child.expect("Pass exactly 3 cards; you gave 1")
    child.expect(PASS)
    held = {parse_card(c) for c in legal}
    missing = next(c for c in ("AS", "KS", "QS", "2H", "3D") if parse_card(c) not in held)
    child.sendline(f"{legal[0]} {legal[1]} {missing.lower()}")
    child.expect("You do not hold")
    child.expect(PASS)
    child.sendline("zz 1 2")
    child.expect("'zz' is not a card")
    child.expect(PASS)
    child.sendline("?")
    child.expect("How to answer")
    child.expect(PASS)
    # passing by name, in the three spellings
    chosen = legal[-3:]
    spelled = [chosen[0], chosen[1].replace("10", "T").replace("♠", "S").replace("♥", "H").replace("♦", "D")]
    spelled.append(chosen[2].replace("♣", "c").replace("♦", "d").replace("♠", "s").replace("♥", "h").lower())
    child.sendline(" ".join(spelled))
    child.expect(r"You pass (.*) to West\.")
    assert sorted(child.match.group(1).split()) == sorted(chosen)
    child.expect(r"You receive .* from East\.")
    # the first play: an illegal card is refused with the reason and the legal choices
    child.expect(PLAY)
    legal, illegal = hand_cards(child.before)
    assert "Trick 1 of 13" in child.before and "hearts not broken" in child.before
    assert illegal, "seed 3 leaves a card seat 0 may not play on the first trick"
    child.sendline(illegal[0])
    child.expect("You must follow suit|The first trick must be led with the 2♣")
    child.expect("Legal: 1:")
    child.expect(PLAY)
    child.sendline("99")
    child.expect("There is no card numbered 99")
    child.expect(PLAY)
    child.sendline(legal[0])
    screen = play_on(child)
    assert "Deal scores:" in screen and "Total" in screen
    assert re.search(r"takes? the trick", screen)
    assert f"Game record saved to {record}" in screen
    child.close()
    assert child.exitstatus == 0
    match = replay_record(load_record(record))
    assert match.history and match.history[0].deal.is_terminal()


def test_end_of_input_mid_deal_saves_a_replayable_record(tmp_path: Path) -> None:
    child = spawn(["--seed", "8", "--opponents", "random", "heuristic", "random"], tmp_path)
    child.expect(PASS)
    child.sendline("1 2 3")
    for _ in range(3):
        child.expect([PLAY, MENU])
        child.sendline("1")
    child.expect(PLAY)
    child.sendeof()
    child.expect(r"End of input\. Game record saved to (\S+\.json)")
    path = Path(child.match.group(1))
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0
    assert path.parent == tmp_path / "games"
    record = load_record(path)
    assert record["complete"] is False
    match = replay_record(record)
    assert not match.over and len(match.deal.actions) > 12  # passes and a few plays of deal 1


def test_ctrl_c_ends_cleanly_and_saves(tmp_path: Path) -> None:
    child = spawn(["--seed", "2", "--opponents", "heuristic"], tmp_path)
    child.expect(PASS)
    child.sendintr()  # even if this test runs with SIGINT ignored (a worker may be), which the child inherits
    child.expect(r"Interrupted\. Game record saved to (\S+\.json)")
    path = Path(child.match.group(1))
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 130
    assert "Traceback" not in child.before
    replay_record(load_record(path))


def test_quit_and_colours(tmp_path: Path) -> None:
    child = spawn(["--seed", "4", "--opponents", "random", "--no-save"], tmp_path, colour=True)
    child.expect(PASS)
    assert "\x1b[" in child.before  # colour on a terminal by default
    child.sendline("q")
    child.expect("You quit. The game was not saved")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0
    plain = spawn(["--seed", "4", "--opponents", "random", "--no-save", "--no-color"], tmp_path, colour=True)
    plain.expect(PASS)
    assert "\x1b[" not in plain.before and "♠" in plain.before
    plain.sendline("q")
    plain.expect(pexpect.EOF)


def test_five_player_omnibus_deal(tmp_path: Path) -> None:
    record = tmp_path / "omnibus.json"
    child = spawn(["--rules", "omnibus", "--players", "5", "--seed", "1", "--deal", "--record", str(record)], tmp_path)
    child.expect(PASS)
    assert "5 players" in child.before and "P1: heuristic" in child.before and "P4" in child.before
    legal, _ = hand_cards(child.before)
    assert len(legal) == 10  # 50 cards (2C and 2D removed) for 5 players
    child.sendline("1 2 3")
    screen = play_on(child)
    assert "Trick 10 of 10" in screen and "Deal scores:" in screen
    child.close()
    assert child.exitstatus == 0
    match = replay_record(load_record(record))
    assert match.rules == Rules.preset("omnibus", num_players=5)
    deal = match.history[0].deal
    if any(deal.won[p] >> parse_card("JD") & 1 for p in range(5)):
        assert "took the bonus card J♦ (-10)" in screen


def test_a_whole_match_to_a_low_threshold(tmp_path: Path) -> None:
    child = spawn(["--seed", "6", "--opponents", "random", "--set", "game_end_threshold=30", "--no-save"], tmp_path)
    screen = play_on(child, max_steps=1000)
    child.close()
    assert child.exitstatus == 0
    assert "Match over after" in screen and screen.count("Deal scores:") >= 2
    assert "Deal 2" in screen and "Total" in screen


# ---------------------------------------------------------------------------------------------
# The play session without a terminal: opponents see only their own observation
# ---------------------------------------------------------------------------------------------


class Spy:
    def __init__(self, session_ref: list[PlaySession], rules: Rules, seat: int) -> None:
        self.ref = session_ref
        self.inner = make_bot("heuristic", rules)
        self.seat = seat
        self.calls = 0

    def act(self, observation: dict[str, np.ndarray]) -> int:
        session = self.ref[0]
        deal = session.match.deal
        assert deal.current_player == self.seat
        np.testing.assert_array_equal(observation["observation"], encode(deal, self.seat, session.match))
        assert observation["action_mask"].dtype == np.int8
        assert np.flatnonzero(observation["action_mask"]).tolist() == deal.legal_actions()
        self.calls += 1
        return self.inner.act(observation)


@pytest.mark.parametrize("preset", ["standard", "pagat_main", "three_player_kitty"])
def test_opponents_only_see_their_own_observation(preset: str) -> None:
    rules = Rules.preset(preset, game_end_threshold=40)
    n = rules.num_players
    ref: list[PlaySession] = []
    bots = {p: Spy(ref, rules, p) for p in range(1, n)}
    out = io.StringIO()

    def answer(prompt: str) -> str:
        out.write(prompt)
        if prompt.startswith("Pass"):
            return " ".join(str(k) for k in range(1, int(prompt.split()[1]) + 1))
        return "1" if "Press Enter" not in prompt else ""

    session = PlaySession(rules, 0, bots, seed=9, read_line=answer, write=lambda t: out.write(t + "\n"))
    ref.append(session)
    session.run()
    assert session.match.over and all(b.calls > 20 for b in bots.values())
    assert "Match over" in out.getvalue()


def test_dealer_choice_and_pass_through_menus(tmp_path: Path) -> None:
    args = ["--seed", "1", "--deal", "--opponents", "heuristic", "--no-save", "--set", "first_dealer=0"]
    args += ["--set", 'pass_cycle=["dealer_choice"]', "--set", "allow_pass_through=true"]
    child = spawn(args, tmp_path)
    child.expect(MENU)
    assert "You are the dealer: choose this deal's pass." in child.before and "1) pass left" in child.before
    assert "dealer's choice of pass (You choose)" in child.before
    child.sendline("9")
    child.expect("'9' is not one of the choices")
    child.expect(MENU)
    child.sendline("1")
    child.expect("You choose: pass left")
    screen = ""
    for _ in range(5):  # the other seats declare first; then it is our turn to declare
        i = child.expect([MENU, PASS, PLAY])
        screen += child.before
        if i == 0:
            break
    assert "Pass from your hand, or pass through" in screen + child.before
    child.sendline("2")
    child.expect("You will pass through")
    screen = play_on(child)
    assert "Deal scores:" in screen
    child.close()
    assert child.exitstatus == 0


def test_void_deal_moon_choice_and_reset_are_announced() -> None:
    """A scripted deal: seat 0 (the person) holds every heart and leads: the void-the-deal menu,
    then every trick, the moon choice, and an exact-score reset of the others' +26."""
    rules = Rules(
        first_lead="eldest_any_card",
        all_hearts_leader_unbroken="leader_may_void",
        pass_cycle=["hold"],
        first_dealer=3,
        moon_mode="shooter_choice",
        exact_score_resets={"26": 0},
    )
    hearts_hand = [f"{r}H" for r in "23456789TJQKA"]
    rest = [c for c in (f"{r}{s}" for s in "CDS" for r in "23456789TJQKA")]
    hands = [hearts_hand, rest[0:13], rest[13:26], rest[26:39]]
    bots = {p: make_bot("heuristic", rules) for p in (1, 2, 3)}
    out = io.StringIO()
    answers = iter(["2"] + ["1"] * 12 + ["2", "q"])  # the 13th heart is forced: played without asking
    prompts: list[str] = []

    def answer(prompt: str) -> str:
        prompts.append(prompt)
        out.write(prompt + "\n")
        return next(answers)

    session = PlaySession(rules, 0, bots, seed=1, read_line=answer, write=lambda t: out.write(t + "\n"))
    session.match = Match(rules, seed=1, scripted_deals=[{"hands": hands}])
    with pytest.raises(QuitGame):
        session.run()
    text = out.getvalue()
    assert "You lead and hold only hearts before hearts are broken." in text
    assert "1) void the deal" in text and "2) keep the deal and lead a heart" in text
    assert "You hold only hearts and will lead a heart." in text
    assert "You shot the moon! Choose how it scores." in text and "2) +26 to everyone else" in text
    assert "You shot the moon! (+26 to everyone else)" in text
    assert "hits 26 exactly and resets to 0" in text
    assert session.match.totals == [0, 0, 0, 0]


def first_choice(out: io.StringIO) -> Any:
    """A person who always takes the first shown choice (all the cards a pass needs)."""

    def answer(prompt: str) -> str:
        out.write(prompt + "\n")
        if prompt.startswith("Pass"):
            return " ".join(str(k) for k in range(1, int(prompt.split()[1]) + 1))
        return "" if "Press Enter" in prompt else "1"

    return answer


RULES_FOR_SESSIONS = [Rules.preset(p) for p in PRESETS] + [sample_rules(seed) for seed in range(12)]


@pytest.mark.parametrize("rules", RULES_FOR_SESSIONS, ids=lambda r: f"{r.num_players}p")
def test_a_deal_of_every_preset_and_random_rules_is_narrated_and_saved(rules: Rules, tmp_path: Path) -> None:
    n = rules.num_players
    human = n - 1
    bots = {p: make_bot("random" if p % 2 else "heuristic", rules, seed=p) for p in range(n) if p != human}
    out = io.StringIO()
    record = tmp_path / "g.json"
    session = PlaySession(
        rules,
        human,
        bots,
        seed=3,
        single_deal=True,
        read_line=first_choice(out),
        write=lambda t: out.write(t + "\n"),
        record_path=record,
    )
    session.run()
    text = out.getvalue()
    assert "Deal scores:" in text or "The deal is void" in text
    assert not re.search(r"(to|:) \?", text)  # every seat and pass target has a name
    match = replay_record(load_record(record))
    assert match.history[0].deal.actions == session.match.history[0].deal.actions


def test_rules_options() -> None:
    assert parse_setting("game_end_threshold=50") == ("game_end_threshold", 50)
    assert parse_setting("moon_mode=add_to_others") == ("moon_mode", "add_to_others")
    assert parse_setting('pass_cycle=["left", "hold"]') == ("pass_cycle", ["left", "hold"])
    assert Rules.load("omnibus", num_players=5) == Rules.preset("omnibus", num_players=5)
    assert Rules.load("configs/rules/standard.toml", num_players=5).num_players == 5
    assert Style(False).card(parse_card("TH")) == "10♥" and Style(False, symbols=False).card(parse_card("QS")) == "QS"


# ---------------------------------------------------------------------------------------------
# The other subcommands, through the command line
# ---------------------------------------------------------------------------------------------


def hearts(*args: str, tmp_path: Path | None = None, input: str | None = None) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "NO_COLOR": "1"}
    if tmp_path is not None:
        env["HEARTS_GAMES_DIR"] = str(tmp_path)
    return subprocess.run(
        [sys.executable, "-m", "hearts_env", *args],
        capture_output=True,
        text=True,
        env=env,
        input=input,
        timeout=120,
    )


def test_every_subcommand_has_help(capsys: pytest.CaptureFixture[str]) -> None:
    """In this process (the entry point itself is run as a process by the other tests)."""
    for command in ("play", "bots", "bench", "rules", "replay", "selfplay", "serve", "tournament"):
        with pytest.raises(SystemExit) as done:
            main([command, "--help"])
        assert done.value.code == 0
        assert "usage:" in capsys.readouterr().out
    with pytest.raises(SystemExit):
        main(["--help"])
    top = capsys.readouterr().out
    assert all(c in top for c in ("play", "bots", "bench", "tournament", "train", "export", "rules", "replay"))


def test_tournament_json_and_table() -> None:
    result = hearts("tournament", "heuristic", "random", "--deals", "30", "--json", "--no-progress")
    assert result.returncode == 0, result.stderr
    data = json.loads(result.stdout)
    assert [b["label"] for b in data["bots"]] == ["heuristic", "random"] and data["games"] == 120
    h, r = data["bots"]
    assert h["ci_high"] < r["ci_low"]
    table = hearts("tournament", "random", "--rules", "three_player", "--deals", "5")
    assert table.returncode == 0 and "points/deal" in table.stdout and "95% CI" in table.stdout
    assert "games" in table.stderr  # the progress bar
    bad = hearts("tournament", "random", "--set", "moon_mode=sideways", "--deals", "1")
    assert bad.returncode != 0 and "moon_mode" in bad.stderr


def test_tournament_paired_compares_two_bots_on_the_same_deals(capsys: pytest.CaptureFixture[str]) -> None:
    """``--paired B``: the same deals with B in the first seat; the difference is the mean of the per-set
    differences of two separate tournaments, and the JSON carries it."""
    from hearts_env.tournament import mean_interval, paired_difference, run_tournament

    assert (
        main(
            [
                "tournament",
                "random",
                "heuristic",
                "--deals",
                "12",
                "--paired",
                "heuristic",
                "--json",
                "--no-progress",
            ]
        )
        == 2
    )  # the paired bot may not also fill the other seats
    assert "one seat" in capsys.readouterr().err
    code = main(
        [
            "tournament",
            "random",
            "heuristic",
            "--deals",
            "12",
            "--seed",
            "3",
            "--paired",
            "moon",
            "--json",
            "--no-progress",
        ]
    )
    assert code == 0
    data = json.loads(capsys.readouterr().out)
    first = run_tournament(["random", "heuristic"], deals=12, seed=3, progress=False)
    second = run_tournament(["moon", "heuristic"], deals=12, seed=3, progress=False)
    want = np.asarray(first.set_samples["random"]) - np.asarray(second.set_samples["moon"])
    mean, _, low, high = mean_interval(want)
    got = data["paired"]["difference"]
    assert got["label"] == "random" and got["versus"] == "moon"
    assert got["mean"] == pytest.approx(mean, abs=1e-6) and got["ci_low"] == pytest.approx(low, abs=1e-6)
    assert data["paired"]["bot"]["mean"] == pytest.approx(second.bots[0].mean, abs=1e-6)
    assert paired_difference(first, second).ci_high == pytest.approx(high)
    with pytest.raises(ValueError, match="same seed"):
        paired_difference(first, run_tournament(["moon", "heuristic"], deals=12, seed=4, progress=False))
    assert main(["tournament", "random", "--paired", "heuristic", "--ladder", "--no-progress"]) == 2
    assert "--paired" in capsys.readouterr().err
    assert (
        main(["tournament", "random", "heuristic", "--deals", "3", "--paired", "models/ppo-tuned", "--no-progress"])
        == 0
    )
    assert "Paired over the same 3 duplicate sets: ppo-tuned" in capsys.readouterr().out


def in_process(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    """``hearts ARGS`` run in this process: (status, stdout, stderr)."""
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def test_rules_list_show_check(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, listing, _ = in_process(capsys, "rules")
    assert code == 0 and "standard" in listing and "omnibus" in listing
    assert "Omnibus Hearts" in listing
    code, show, _ = in_process(capsys, "rules", "show", "omnibus")
    assert code == 0 and 'bonus_card = "JD"' in show
    good = tmp_path / "good.toml"
    good.write_text(show)
    assert Rules.from_file(good) == Rules.preset("omnibus")
    code, check, _ = in_process(capsys, "rules", "check", str(good))
    assert code == 0 and "valid" in check
    bad = tmp_path / "bad.toml"
    bad.write_text('preset = "standard"\npass_count = 0\n')
    code, _, err = in_process(capsys, "rules", "check", str(bad))
    assert code != 0 and "pass_count" in err
    unknown = tmp_path / "unknown.toml"
    unknown.write_text("hearts_points = 2\n")
    code, _, err = in_process(capsys, "rules", "check", str(unknown))
    assert code != 0 and "hearts_points" in err
    assert in_process(capsys, "rules", "check", str(tmp_path / "missing.toml"))[0] != 0
    assert in_process(capsys, "rules", "show", "no_such_preset")[0] != 0


def test_replay_prints_every_trick_and_hand(tmp_path: Path) -> None:
    record = tmp_path / "game.json"
    child = spawn(["--seed", "3", "--deal", "--opponents", "heuristic", "--record", str(record)], tmp_path)
    play_on(child)
    child.close()
    data = json.loads(record.read_text())
    assert len(data["deals"]) == 1 and data["single_deal"] is True  # not the next deal, dealt but never played
    result = hearts("replay", str(record))  # no terminal: prints everything without pausing
    assert result.returncode == 0, result.stderr
    out = result.stdout
    assert "1 deal(s) played · one-deal game, complete" in out and "unfinished" not in out
    assert "Dealt hands:" in out and out.count("Trick ") == 13 and "Deal scores:" in out
    assert "South passes" in out and out.count("East   ♣") >= 13  # all hands before every trick
    assert hearts("replay", "--all", str(record)).stdout == out
    broken = tmp_path / "broken.json"
    data = json.loads(record.read_text())
    data["deals"][0]["scores"][0] += 1
    broken.write_text(json.dumps(data))
    bad = hearts("replay", str(broken))
    assert bad.returncode != 0 and "scores" in bad.stderr


def test_replay_steps_on_a_terminal(tmp_path: Path) -> None:
    record = tmp_path / "game.json"
    hearts("selfplay")  # smoke: still works
    child = spawn(["--seed", "5", "--deal", "--opponents", "random", "--record", str(record)], tmp_path)
    play_on(child)
    child.close()
    env = {**os.environ, "NO_COLOR": "1"}
    viewer = pexpect.spawn(
        sys.executable, ["-m", "hearts_env", "replay", str(record)], env=env, encoding="utf-8", timeout=30
    )
    viewer.expect(r"\[Enter: next trick")
    assert "Trick 2 of 13" not in viewer.before
    viewer.sendline("")
    viewer.expect(r"\[Enter: next trick")
    assert "Trick 2 of 13" in viewer.before
    viewer.sendline("a")
    viewer.expect(pexpect.EOF)
    assert "Deal scores:" in viewer.before


def test_train_and_export_are_front_ends(monkeypatch: pytest.MonkeyPatch) -> None:
    from hearts_env.training import export, ppo

    calls: list[Any] = []
    monkeypatch.setattr(ppo, "main", lambda argv: calls.append(("ppo", argv)) or 0)
    monkeypatch.setattr(export, "main", lambda argv: calls.append(("export", argv)) or 0)
    assert main(["train", "--preset", "standard", "--updates", "2"]) == 0
    assert main(["export", "runs/x", "--name", "y"]) == 0
    assert calls == [("ppo", ["--preset", "standard", "--updates", "2"]), ("export", ["runs/x", "--name", "y"])]


def test_train_without_torch_names_the_extra() -> None:
    result = subprocess.run(
        [
            sys.executable,
            "-c",
            "import sys; sys.modules['torch'] = None\n"
            "from hearts_env.cli.main import main\n"
            "raise SystemExit(main(['train', '--help']))",
        ],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 3
    assert "hearts train" in result.stderr and "pip install 'hearts-env[train]'" in result.stderr


def test_model_opponents_and_the_shipped_model_default(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from test_evaluate import export_tiny_model

    from hearts_env.bots import GuardedBot
    from hearts_env.cli.play import default_opponent, split_opponents

    model = export_tiny_model(tmp_path / "models" / "ppo-standard")
    monkeypatch.chdir(tmp_path)
    # the default is the roster's strongest bot: on the standard rules the shipped ppo-tuned under the guard that
    # waits and shoots (test_roster.py checks every preset)
    default = default_opponent(Rules.preset("standard"))
    assert default == "strongest"
    bot = make_bot(default, Rules.preset("standard"))
    assert isinstance(bot, GuardedBot) and bot.wins == 2 and bot.margin == 1 and bot.threat == 0.03
    assert bot.shoot == 2
    # --opponents: commas separate bots, but a key=value after a comma is the spec's own option
    assert split_opponents(["guard:base=ppo-tuned,margin=1,threat=0.03,wins=2"]) == [
        "guard:base=ppo-tuned,margin=1,threat=0.03,wins=2"
    ]
    assert split_opponents(["heuristic,random", "pimc:prior=ppo-tuned,confident=0.9,moon:giveup=late x"]) == [
        "heuristic",
        "random",
        "pimc:prior=ppo-tuned,confident=0.9",
        "moon:giveup=late",
        "x",
    ]
    guarded = f"guard:base={model}:worlds=4"  # a guard around a model path is labelled by the model's name
    child = spawn(["--seed", "2", "--deal", "--no-save", "--opponents", guarded, "random", "heuristic"], tmp_path)
    child.expect(PASS)
    assert "West: guard:base=ppo-standard:worlds=4, North: random, East: heuristic" in child.before
    child.close()
    child = spawn(["--seed", "2", "--deal", "--no-save", "--opponents", str(model), "random", "heuristic"], tmp_path)
    child.expect(PASS)
    assert "West: ppo-standard, North: random, East: heuristic" in child.before
    child.sendline("1 2 3")
    assert "Deal scores:" in play_on(child)
    bad = hearts("play", "--opponents", str(tmp_path / "nothing-here"), "--no-save")
    assert bad.returncode == 2 and "nothing-here" in bad.stderr


# ---------------------------------------------------------------------------------------------
# Error messages, pipes and small things of the command line
# ---------------------------------------------------------------------------------------------


def flat(text: str) -> str:
    """Help text with argparse's line wrapping undone."""
    return " ".join(text.split())


def test_play_fills_the_remaining_seats_with_the_last_opponent(tmp_path: Path) -> None:
    args = ["--rules", "omnibus", "--players", "5", "--opponents", "heuristic", "random", "--no-save", "--seed", "1"]
    result = hearts("play", *args, tmp_path=tmp_path, input="q\n")
    assert result.returncode == 0, result.stderr
    assert "P1: heuristic, P2: random, P3: random, P4: random" in result.stdout
    too_many = hearts("play", "--opponents", "heuristic", "random", "random", "random", "--no-save", input="q\n")
    assert too_many.returncode == 2 and "4 bots for the 3 other seats" in too_many.stderr
    play_help, tournament_help = flat(hearts("play", "--help").stdout), flat(hearts("tournament", "--help").stdout)
    assert "the last fills the remaining seats" in play_help and "the last fills the remaining seats" in tournament_help


def test_help_texts() -> None:
    text = flat(hearts("tournament", "--help").stdout)
    assert "95% confidence intervals" in text and "%%" not in text
    assert "%%" not in hearts("--help").stdout


def test_record_path_is_checked_before_the_game(tmp_path: Path) -> None:
    result = hearts("play", "--deal", "--record", str(tmp_path), input="q\n")
    assert result.returncode == 2 and "Traceback" not in result.stderr
    assert f"cannot save the game record to {tmp_path}: it is a directory" in result.stderr
    assert "Deal 1" not in result.stdout  # refused before the game started
    blocked = tmp_path / "file"
    blocked.write_text("")
    result = hearts("play", "--deal", "--record", str(blocked / "game.json"), input="q\n")
    assert result.returncode == 2 and "cannot create the directory" in result.stderr


def test_a_failed_save_is_not_reported_as_no_save(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import hearts_env.cli.play as cli

    def refuse(*args: Any, **kwargs: Any) -> Path:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(cli, "save_record", refuse)
    monkeypatch.setattr(sys, "stdin", io.StringIO("q\n"))
    record = tmp_path / "g.json"
    code = main(["play", "--deal", "--no-color", "--opponents", "random", "--record", str(record)])
    out = flat(capsys.readouterr().out)  # long lines are wrapped at the width
    assert code == 1
    assert "Could not save the game record" in out and "No space left on device" in out
    assert f"You quit. The game record could not be saved to {record}." in out and "--no-save" not in out


@pytest.mark.parametrize(
    "args",
    [["rules", "show", "omnibus"], ["tournament", "heuristic", "random", "--deals", "2", "--json", "--no-progress"]],
    ids=["rules", "tournament"],
)
def test_a_closed_pipe_ends_quietly(args: list[str]) -> None:
    """``hearts ... | head``: the reader is gone before the output is written."""
    read_end, write_end = os.pipe()
    os.close(read_end)
    try:
        result = subprocess.run(
            [sys.executable, "-m", "hearts_env", *args],
            stdout=write_end,
            stderr=subprocess.PIPE,
            text=True,
            timeout=120,
        )
    finally:
        os.close(write_end)
    assert result.returncode == 1
    assert "Traceback" not in result.stderr and "BrokenPipe" not in result.stderr and "Exception" not in result.stderr


def test_rules_check_of_a_directory(tmp_path: Path) -> None:
    result = hearts("rules", "check", str(tmp_path))
    assert result.returncode == 2 and "is a directory" in result.stderr and "no such file" not in result.stderr


@pytest.mark.parametrize("visible", [True, False])
def test_cards_forwarded_through_a_pass_through_seat_are_shown_when_visible(visible: bool) -> None:
    from hearts_env.obs import seat_view

    rules = Rules(allow_pass_through=True, pass_through_visible=visible, pass_cycle=["left"])
    bots = {p: make_bot("heuristic", rules, seed=p) for p in (1, 2, 3)}
    out = io.StringIO()

    def answer(prompt: str) -> str:
        out.write(prompt + "\n")
        if prompt.startswith("Choose"):
            return "2"  # pass through
        return "1 2 3" if prompt.startswith("Pass") else "1"

    session = PlaySession(
        rules, 0, bots, seed=5, single_deal=True, read_line=answer, write=lambda t: out.write(t + "\n")
    )
    session.run()
    deal = session.match.history[0].deal
    assert deal.pass_through[0]
    text = out.getvalue()
    assert "You passed through." in text
    forwarded = seat_view(deal, 0).forwarded  # what the observation shows the seat
    lines = re.findall(r"You forward (.*) from East to West\.", text)
    if visible:
        assert forwarded and len(lines) == 1
        assert sorted(parse_card(c) for c in lines[0].split()) == sorted(forwarded)
    else:
        assert not forwarded and not lines and "You forward" not in text


def test_arrow_keys_edit_the_line(tmp_path: Path) -> None:
    pytest.importorskip("readline")
    child = spawn(["--seed", "4", "--deal", "--opponents", "random", "--no-save"], tmp_path)
    child.expect(PASS)
    child.send("2 3" + "\x1b[D" * 3 + "1 \r")  # type "2 3", go back to the start, insert "1 "
    child.expect(r"You pass (.*) to West\.")
    assert "[D" not in child.before
    child.sendline("q")
    child.expect(pexpect.EOF)


# ---- hearts train / export: one line and status 2 for a user error, nothing left behind


@pytest.fixture(scope="module")
def tiny_standard_model(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from test_evaluate import export_tiny_model

    return Path(export_tiny_model(tmp_path_factory.mktemp("models") / "tiny"))


TRAIN_ERRORS: list[tuple[list[str], str]] = [
    (["--config", "nope.toml"], "--config nope.toml: no such file"),
    (["--rules", "nope"], "--rules nope: invalid rules: unknown preset 'nope'"),
    (["--init-from", "models/nope"], "--init-from models/nope: not a model directory"),
    (["--resume", "runs/nope"], "--resume runs/nope: no such run directory"),
    (["--num-envs", "0"], "--num-envs must be at least 1, got 0"),
    (["--more-rules", "three_player"], "every rule set must have the same number of players"),
    (["--hidden", "0"], "--hidden: layer sizes must be at least 1, got [0]"),
    (["--device", "gpu"], "--device gpu: not a torch device"),
    (["--init-from", "TINY", "--rules", "microsoft"], "rules mismatch"),
    (["--pool", "snapshot", "robot"], "--pool: unknown opponent kind(s) robot"),
]


@pytest.mark.parametrize("extra,message", TRAIN_ERRORS, ids=[" ".join(a) for a, _ in TRAIN_ERRORS])
def test_train_refuses_bad_settings_in_one_line_before_writing_anything(
    extra: list[str],
    message: str,
    tmp_path: Path,
    tiny_standard_model: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    pytest.importorskip("torch")
    extra = [str(tiny_standard_model) if a == "TINY" else a for a in extra]
    runs = tmp_path / "runs"
    code = main(["train", "--runs-dir", str(runs), "--run-name", "x", "--progress", "false", *extra])
    err = capsys.readouterr().err
    assert code == 2
    assert err.startswith("hearts train: ") and err.count("\n") == 1 and message in err, err
    assert not runs.exists()  # no empty run directory left behind


def test_train_refuses_cuda_without_cuda_and_bad_files(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    torch = pytest.importorskip("torch")
    runs = ["--runs-dir", str(tmp_path / "runs"), "--run-name", "x"]
    if not torch.cuda.is_available():
        assert main(["train", *runs, "--device", "cuda"]) == 2
        assert "--device cuda: CUDA is not available" in capsys.readouterr().err
    bad_type = tmp_path / "bad.toml"
    bad_type.write_text('num_envs = "many"\n')
    assert main(["train", *runs, "--config", str(bad_type)]) == 2
    err = capsys.readouterr().err
    assert "--num-envs" in err and "'many'" in err and str(bad_type) in err and len(err.strip().splitlines()) == 1
    unknown = tmp_path / "unknown.toml"
    unknown.write_text("num_env = 3\n")
    assert main(["train", *runs, "--config", str(unknown)]) == 2
    assert "hearts train:" in capsys.readouterr().err
    run = tmp_path / "runs" / "old"
    run.mkdir(parents=True)
    assert main(["train", "--resume", str(run)]) == 2
    assert "no checkpoint.pt there" in capsys.readouterr().err
    (run / "checkpoint.pt").write_bytes(b"not a checkpoint")
    assert main(["train", "--resume", str(run)]) == 2
    err = capsys.readouterr().err
    assert "not a valid checkpoint" in err and "weights_only" not in err
    assert not (tmp_path / "runs" / "x").exists()


def test_export_errors_are_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    torch = pytest.importorskip("torch")
    from fractions import Fraction

    models = ["--models-dir", str(tmp_path / "models")]
    garbage = tmp_path / "garbage.pt"
    garbage.write_bytes(os.urandom(2000))
    pickled = tmp_path / "pickled.pt"
    torch.save({"x": Fraction(1, 3)}, pickled)  # a Python object: loading it would need weights_only=False
    other = tmp_path / "other.pt"
    torch.save({"weights": torch.zeros(2)}, other)
    for path, reason in [
        (garbage, "unreadable"),
        (pickled, "it holds Python objects (fractions.Fraction)"),
        (other, "unknown format"),
        (tmp_path / "nope.pt", "no such file"),
        (tmp_path, "is a directory"),
    ]:
        assert main(["export", str(path), "--name", "m", *models]) == 2
        err = capsys.readouterr().err
        assert err.startswith("hearts export: ") and err.count("\n") == 1, err
        assert reason in err and "weights_only" not in err and "Traceback" not in err
        if path.is_file():
            assert f"{path}: not a valid checkpoint: " in err
    (tmp_path / "models" / "m").mkdir(parents=True)
    assert main(["export", str(garbage), "--name", "m", *models]) == 2
    err = capsys.readouterr().err
    assert "exists; pass --overwrite to replace it" in err and "overwrite=True" not in err
    assert main(["export", str(garbage), "--name", "../m", *models]) == 2
    assert "a model name is a plain directory name" in capsys.readouterr().err


# ---- newcomers' checks: ASCII terminals, forced cards, one naming, one-line errors


def test_an_ascii_terminal_gets_ascii_suits(tmp_path: Path) -> None:
    """``PYTHONIOENCODING=ascii``: play and replay write S H D C instead of crashing."""
    record = tmp_path / "g.json"
    env = {**os.environ, "PYTHONIOENCODING": "ascii", "NO_COLOR": "1", "HEARTS_GAMES_DIR": str(tmp_path)}
    answers = "?\n1 2 3\n" + "1\n" * 13
    args = ["play", "--deal", "--seed", "3", "--opponents", "heuristic", "--record", str(record)]
    for command in (args, ["replay", str(record)]):
        result = subprocess.run(
            [sys.executable, "-m", "hearts_env", *command],
            capture_output=True,
            env=env,
            input=answers.encode(),
            timeout=120,
        )
        out = result.stdout.decode("ascii")  # every byte is ASCII
        assert result.returncode == 0 and b"Traceback" not in result.stderr, result.stderr
        assert "Deal scores:" in out and re.search(r"\b(10|[2-9JQKA])[SHDC]\b", out)
        if command is args:
            assert "QS, qs, 10h, TH" in out  # the help's examples, each once
    assert "2C" in out and "South" in out
    tournament = subprocess.run(  # other subcommands' text: spelled in ASCII by the output stream
        [sys.executable, "-m", "hearts_env", "tournament", "heuristic", "random", "--deals", "2", "--no-progress"],
        capture_output=True,
        env=env,
        timeout=120,
    )
    assert tournament.returncode == 0, tournament.stderr
    assert "Tournament - standard - 4 seats - 2 duplicate deals x 4 rotations" in tournament.stdout.decode("ascii")


def scripted_all_hearts(confirm_forced: bool) -> tuple[PlaySession, list[str], io.StringIO]:
    """Seat 0 (the person) holds every heart and leads all 13 tricks (keeping the deal)."""
    rules = Rules(
        first_lead="eldest_any_card", all_hearts_leader_unbroken="leader_may_void", pass_cycle=["hold"], first_dealer=3
    )
    hearts_hand = [f"{r}H" for r in "23456789TJQKA"]
    rest = [f"{r}{s}" for s in "CDS" for r in "23456789TJQKA"]
    bots = {p: make_bot("heuristic", rules) for p in (1, 2, 3)}
    out = io.StringIO()
    prompts: list[str] = []

    def answer(prompt: str) -> str:
        prompts.append(prompt)
        return "2" if prompt.startswith("Choose") else "1"

    session = PlaySession(
        rules,
        0,
        bots,
        seed=1,
        single_deal=True,
        read_line=answer,
        write=lambda t: out.write(t + "\n"),
        confirm_forced=confirm_forced,
    )
    session.match = Match(rules, seed=1, scripted_deals=[{"hands": [hearts_hand, rest[:13], rest[13:26], rest[26:]]}])
    return session, prompts, out


@pytest.mark.parametrize("confirm", [False, True], ids=["forced", "confirm-forced"])
def test_a_forced_card_is_played_for_the_person(confirm: bool) -> None:
    session, prompts, out = scripted_all_hearts(confirm)
    session.run()
    plays = prompts.count("Your play> ")
    text = out.getvalue()
    if confirm:
        assert plays == 13 and "Forced" not in text
    else:
        assert plays == 12  # the 13th card is the only one left: played, not asked
        assert "Forced: you play A♥" in text and text.index("Forced: you play A♥") < text.index("Deal scores:")
    assert session.match.history[0].deal.is_terminal()


def test_confirm_forced_option(tmp_path: Path) -> None:
    answers = "1 2 3\n" + "1\n" * 13
    base = ["play", "--deal", "--seed", "3", "--opponents", "random", "--no-save"]
    asked = hearts(*base, "--confirm-forced", tmp_path=tmp_path, input=answers)
    forced = hearts(*base, tmp_path=tmp_path, input=answers)
    assert asked.returncode == forced.returncode == 0, asked.stderr + forced.stderr
    assert asked.stdout.count("Your play> ") == 13 and "Forced: you play" not in asked.stdout
    assert forced.stdout.count("Your play> ") < 13 and "Forced: you play" in forced.stdout
    assert "--confirm-forced" in hearts("play", "--help").stdout


def test_replay_names_the_seats_as_play_does(tmp_path: Path) -> None:
    record = tmp_path / "g.json"
    args = ["play", "--deal", "--seed", "3", "--opponents", "heuristic", "--record", str(record)]
    play = hearts(*args, input="1 2 3\n" + "1\n" * 13)
    assert play.returncode == 0, play.stderr
    replay = hearts("replay", str(record)).stdout
    for name in ("West", "North", "East"):  # the bots' names in play, the same in the replay
        assert f"{name} passes" in replay and f"{name}: heuristic" in play.stdout
    assert "South passes" in replay and "Seat " not in replay  # the person's seat, by its compass point
    assert "You pass" in play.stdout
    assert re.search(r"^winners: (South|West|North|East)", hearts("selfplay").stdout, re.M)


def one_line_error(result: subprocess.CompletedProcess[str], prog: str) -> str:
    assert result.returncode == 2, (result.returncode, result.stdout, result.stderr)
    assert "Traceback" not in result.stderr and result.stderr.count("\n") == 1, result.stderr
    assert re.match(rf"{prog}( (show|check))?: ", result.stderr), result.stderr  # the command, then why
    return result.stderr


BAD_COMMANDS: list[tuple[list[str], str]] = [
    (["replay", "MISSING"], "No such file or directory"),
    (["replay", "DIR"], "not a regular file"),
    (["play", "--deal", "--record", "DIR"], "it is a directory"),
    (["play", "--no-save", "--opponents", "robot"], "unknown bot 'robot'"),
    (["tournament", "robot", "--deals", "1", "--no-progress"], "unknown bot 'robot'"),
    (["play", "--no-save", "--set", "moon_mode"], "--set expects option=value"),
    (["play", "--no-save", "--set", "moon_mode=sideways"], "moon_mode"),
    (["selfplay", "--set", "nonsense=1"], "nonsense: unknown option"),
    (["tournament", "random", "--set", "x", "--deals", "1"], "--set expects option=value"),
    (["play", "--no-save", "--players", "9"], "num_players: must be 3..8, got 9"),
    (["selfplay", "--players", "9"], "num_players: must be 3..8, got 9"),
    (["tournament", "random", "--players", "9", "--deals", "1", "--no-progress"], "num_players: must be 3..8"),
    (["rules", "check", "MISSING"], "no such file"),
    (["rules", "show", "nope"], "unknown preset 'nope'"),
    (["play", "--no-save", "--seat", "7"], "--seat must be a seat 0..3"),
    (["replay"], "the following arguments are required: record"),
    (["tournament", "random", "--deals", "1", "--no-progress", "--output", "MISSING/x.json"], "no directory"),
    (["tournament", "random", "--deals", "1", "--no-progress", "--output", "DIR"], "is a directory"),
]


@pytest.mark.parametrize("args,message", BAD_COMMANDS, ids=[" ".join(a) for a, _ in BAD_COMMANDS])
def test_every_subcommand_refuses_bad_input_in_one_line(args: list[str], message: str, tmp_path: Path) -> None:
    args = [str(tmp_path / "missing.json") if a == "MISSING" else str(tmp_path) if a == "DIR" else a for a in args]
    err = one_line_error(hearts(*args, tmp_path=tmp_path, input="q\n"), f"hearts {args[0]}")
    assert message in err


@pytest.mark.parametrize("command", [["replay"], ["rules", "check"]], ids=["replay", "rules check"])
@pytest.mark.parametrize("kind", ["fifo", "/dev/zero"])
def test_a_fifo_or_a_device_is_refused_without_hanging(kind: str, command: list[str], tmp_path: Path) -> None:
    if kind == "fifo":
        path = tmp_path / "record.json"
        os.mkfifo(path)  # nobody ever writes to it: reading it would wait forever
    else:
        path = Path(kind)
        if not path.exists():
            pytest.skip("no /dev/zero here")
    result = subprocess.run(  # a hang raises TimeoutExpired: the test fails
        [sys.executable, "-m", "hearts_env", *command, str(path)], capture_output=True, text=True, timeout=30
    )
    err = one_line_error(result, f"hearts {command[0]}")
    assert str(path) in err and "not a regular file" in err


def test_play_fits_a_narrow_terminal(tmp_path: Path) -> None:
    """A 50-column terminal, five players: every line of the screen fits; nothing relies on the
    terminal wrapping it."""
    args = ["--rules", "omnibus", "--players", "5", "--seed", "1", "--deal", "--no-save", "--opponents", "random"]
    child = spawn(args, tmp_path, columns=50)
    screen = play_on(child)
    child.close()
    assert child.exitstatus == 0 and "Deal scores:" in screen
    lines = screen.replace("\r\n", "\n").split("\n")
    too_long = [line for line in lines if len(line) > 50]
    assert not too_long, too_long


def test_hearts_serve_is_a_subcommand(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as stop:
        main(["serve", "--help"])
    assert stop.value.code == 0
    out = capsys.readouterr().out
    assert "--port" in out and "--host" in out and "--open" in out


def test_export_goes_to_the_user_models_folder_under_a_short_name(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``hearts export`` writes to ``$HEARTS_MODELS_DIR``, else ``$XDG_DATA_HOME/hearts-env/models``, never the
    checkout's shipped models; without ``--name`` the model is ``my-model``, then ``my-model-2``, ..."""
    pytest.importorskip("torch")
    from hearts_env.nets import user_models_dir
    from hearts_env.training.export import free_name

    monkeypatch.delenv("HEARTS_MODELS_DIR", raising=False)
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    assert user_models_dir() == tmp_path / "data" / "hearts-env" / "models"
    monkeypatch.setenv("HEARTS_MODELS_DIR", str(tmp_path / "mine"))
    assert user_models_dir() == tmp_path / "mine"
    assert free_name(tmp_path / "mine") == "my-model"
    (tmp_path / "mine" / "my-model").mkdir(parents=True)
    (tmp_path / "mine" / "my-model-2").mkdir()
    assert free_name(tmp_path / "mine") == "my-model-3"
