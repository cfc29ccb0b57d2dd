"""The bot roster: every name resolves and plays on the presets it names, ``hearts bots`` lists it with the
figures of the model cards, and the help texts name the roster's default."""

from __future__ import annotations

import json

import numpy as np
import pytest

import hearts_env
from hearts_env.bots import (
    BONUS_CRITIC_OPTIONS,
    CRITIC_OPTIONS,
    DEFAULT_BOT,
    ROSTER,
    SHOOTING_OPTIONS,
    GuardedBot,
    HeuristicBot,
    ModelBot,
    make_bot,
    roster_spec,
)
from hearts_env.bots.roster import NET, ROSTER_PRESETS, figures, preset_of
from hearts_env.cli.main import build_parser, main
from hearts_env.core import Rules
from hearts_env.nets.store import read_model_card, resolve_model


def _play_one_decision(bot: object, rules: str) -> int:
    env = hearts_env.env(rules=rules, episode="deal")
    env.reset(seed=3)
    observation = env.last()[0]
    action = bot.act(observation)  # type: ignore[attr-defined]
    assert observation["action_mask"][action] == 1
    return int(action)


@pytest.mark.parametrize("preset", ROSTER_PRESETS)
def test_net_and_strongest_resolve_on_every_roster_preset(preset: str) -> None:
    rules = Rules.preset(preset)
    net = make_bot("net", rules, seed=1)
    assert isinstance(net, ModelBot)
    assert net.name == NET[preset]
    strongest = make_bot("strongest", rules, seed=1)
    assert isinstance(strongest, GuardedBot) and strongest.shoot == 2 and strongest.wins == 2
    expected = {"standard": SHOOTING_OPTIONS, "microsoft": CRITIC_OPTIONS, "omnibus": BONUS_CRITIC_OPTIONS}[preset]
    assert roster_spec("strongest", rules).endswith(expected)
    for bot in (net, strongest):
        _play_one_decision(bot, preset)


def test_every_roster_name_builds_and_plays_where_it_has_a_spec() -> None:
    for preset in ROSTER_PRESETS:
        for name, entry in ROSTER.items():
            if preset not in entry.specs:
                continue
            _play_one_decision(make_bot(name, preset, seed=0), preset)


def test_rules_outside_the_presets() -> None:
    spot = Rules.preset("spot_hearts")
    assert preset_of(spot) is None
    assert isinstance(make_bot("strongest", spot), HeuristicBot)  # no shipped network plays these rules
    with pytest.raises(ValueError, match="'net': no shipped bot for these rules"):
        make_bot("net", spot)
    # an option that changes neither the observation nor the play keeps the preset's bots
    assert preset_of(Rules.preset("standard", first_dealer=2)) == "standard"


def test_unknown_bot_names_the_roster() -> None:
    with pytest.raises(ValueError, match=r"roster name .*strongest"):
        make_bot("strongset", "standard")


def test_roster_names_work_inside_specs_and_envs() -> None:
    guarded = make_bot("guard:base=net,margin=1", "standard")  # a roster name as a guard's base
    assert isinstance(guarded, GuardedBot)
    import gymnasium

    import hearts_env.envs  # noqa: F401  registers the Gymnasium env

    env = gymnasium.make("hearts_env/Hearts-v1", rules="standard", opponents="net")
    _, info = env.reset(seed=0)
    env.step(int(np.flatnonzero(info["action_mask"])[0]))


def test_figures_come_from_the_model_cards() -> None:
    """``hearts bots``'s figures are the cards' ``results`` entries for the spec each name seats."""
    for preset in ROSTER_PRESETS:
        spec = roster_spec("strongest", preset)
        model = spec.split("base=")[1].split(",")[0]
        results = read_model_card(resolve_model(model))["results"]
        entry = next(r for r in results if r["bot"] == spec and r["rules"] == preset)
        got = figures("strongest", preset)
        assert got.pimc_margin == entry["vs_pimc"]["margin"]
        assert got.heuristic_points == entry["vs_heuristic"]["points_per_deal"]
        low, high = entry["vs_pimc"]["ci95"]
        assert low <= got.pimc_margin <= high
    assert figures("net", "spot_hearts").heuristic_points is None  # nothing measured: no figure, not a zero


def test_hearts_bots_lists_the_roster(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["bots"]) == 0
    out = capsys.readouterr().out
    lines = out.splitlines()
    for name, entry in ROSTER.items():
        assert any(line.startswith(name + " ") for line in lines) == entry.main
    strongest = next(line for line in lines if line.startswith("strongest "))
    assert "2.75 [2.53, 2.98]" in strongest and "+0.79 [+0.47, +1.11]" in strongest
    assert main(["bots", "--all", "--rules", "microsoft", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert [b["name"] for b in data["bots"]] == list(ROSTER)
    by_name = {b["name"]: b for b in data["bots"]}
    assert by_name["net"]["spec"] == NET["microsoft"]
    assert by_name["strongest"]["figures"]["pimc_margin"] == figures("strongest", "microsoft").pimc_margin
    assert main(["bots", "--rules", "spot_hearts"]) == 0
    assert "net (none)" in capsys.readouterr().out


def test_help_texts_name_the_roster_default() -> None:
    parser = build_parser()
    play = parser._subparsers._group_actions[0].choices["play"]  # type: ignore[union-attr]
    opponents = next(a for a in play._actions if a.dest == "opponents")
    assert f"default: {DEFAULT_BOT}" in (opponents.help or "")
    serve = parser._subparsers._group_actions[0].choices["serve"]  # type: ignore[union-attr]
    assert f"roster's {DEFAULT_BOT} bot" in (serve.description or "")
    from hearts_env.cli.play import default_opponent

    assert default_opponent(Rules.preset("standard")) == DEFAULT_BOT
    assert default_opponent(Rules.preset("spot_hearts")) == "heuristic"
