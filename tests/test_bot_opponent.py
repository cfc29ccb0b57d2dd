"""Any bot as a training opponent (pool kind ``bot:<spec>``, ``training.opponents.BotOpponent``): it plays
exactly the bot's choices on the reference engine, the same whatever the rows' split or the order of the
calls, refuses what it cannot play with the option named, and a learned best response trains against a
search bot or the moon guard through it."""

from __future__ import annotations

import json
import random
from dataclasses import replace

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from test_ppo import _crash_then_resume  # noqa: E402
from test_robustness import _tiny_args, record_pool  # noqa: E402

from hearts_env import Rules  # noqa: E402
from hearts_env.bots import make_bot  # noqa: E402
from hearts_env.training import best_response, imitate, opponents, ppo  # noqa: E402
from hearts_env.training import config as training_config  # noqa: E402
from hearts_env.training.opponents import BotOpponent, decision_seed, pool_opponent  # noqa: E402
from hearts_env.training.reference_vec import ReferenceVecHearts  # noqa: E402

RULES = Rules.preset("standard")


def _advance(engine: ReferenceVecHearts, steps: int, rng: random.Random) -> None:
    """Random legal play for ``steps`` steps on every table (deals end and restart on their own)."""
    for _ in range(steps):
        mask = engine.legal_mask().numpy()
        engine.step(torch.as_tensor([rng.choice(np.flatnonzero(row).tolist()) for row in mask]))


def _act(opponent: BotOpponent, engine: ReferenceVecHearts, rows: list[int]) -> list[int]:
    index = torch.as_tensor(rows)
    obs, mask = engine.observe()[index], engine.legal_mask()[index]
    return opponent.act(engine, index, obs, mask).tolist()


def test_a_bot_kind_plays_the_bots_own_choice_from_the_seats_observation():
    """``bot:heuristic`` chooses what the engine's heuristic bot chooses, at every stage of many deals."""
    engine = ReferenceVecHearts(RULES, 8, seed=5)
    opponent = pool_opponent("bot:heuristic", [RULES], torch.device("cpu"), 4)
    assert isinstance(opponent, BotOpponent) and opponent.name == "bot:heuristic"
    rng = random.Random(0)
    for _ in range(20):
        assert _act(opponent, engine, list(range(8))) == engine.heuristic_actions().tolist()
        _advance(engine, 5, rng)


@pytest.mark.parametrize("spec", ["pimc:worlds=4", "guard:base=ppo-robust,worlds=4,points=1"])
def test_a_seeded_bot_opponent_chooses_alike_however_the_rows_are_split(spec):
    """Each decision resets the bot with ``decision_seed`` (deal seed, seat, actions played): one call on
    every row, one call per row in reverse order, and a fresh opponent all choose the same, which is the
    bot's own choice after that reset. So a resumed run draws as an uninterrupted one."""
    engine = ReferenceVecHearts(RULES, 6, seed=2)
    _advance(engine, 17, random.Random(1))  # mid-deal: the search has a real choice to make
    together = _act(BotOpponent(spec, [RULES]), engine, list(range(6)))
    apart = BotOpponent(spec, [RULES])
    one_by_one = [_act(apart, engine, [row])[0] for row in reversed(range(6))][::-1]
    assert together == one_by_one == _act(BotOpponent(spec, [RULES]), engine, list(range(6)))
    bot = make_bot(spec, RULES)
    for row, action in enumerate(together):
        table = engine.tables[row]
        bot.reset(decision_seed(engine.seeds[row], table.current_player, len(table.deal.actions)))
        assert bot.act(table.observation(table.current_player)) == action


def test_a_bot_opponent_in_worker_processes_chooses_what_one_process_chooses():
    """``workers=2``: the rows' decisions go to two spawned processes, each with its own bot, and come back
    in the rows' order, the same actions as in this process; ``close()`` stops them, a later call starts
    new ones."""
    spec = "guard:base=ppo-robust,worlds=4"
    engine = ReferenceVecHearts(RULES, 7, seed=4)
    _advance(engine, 23, random.Random(2))
    alone = _act(BotOpponent(spec, [RULES]), engine, list(range(7)))
    spread = BotOpponent(spec, [RULES], workers=2)
    try:
        assert _act(spread, engine, list(range(7))) == alone
        assert spread._pool is not None
        spread.close()
        assert spread._pool is None
        _advance(engine, 9, random.Random(3))
        assert _act(spread, engine, [6, 0, 3]) == _act(BotOpponent(spec, [RULES]), engine, [6, 0, 3])
    finally:
        spread.close()
    with pytest.raises(ValueError, match="workers must be at least 1"):
        BotOpponent(spec, [RULES], workers=0)


def test_decision_seeds_differ_by_deal_seat_and_moment():
    seeds = {decision_seed(d, s, k) for d in (0, 1, 2**62) for s in range(4) for k in (0, 1, 51)}
    assert len(seeds) == 3 * 4 * 3 and all(0 <= x < 2**64 for x in seeds)


@pytest.mark.parametrize(
    ("pool", "engine", "reason"),
    [
        (["bot:pimc"], "batched", "bot:pimc plays on the reference engine's tables; add --engine reference"),
        (["bot:"], "reference", "names no bot"),
        (["bot:no-such-bot"], "reference", "bot:no-such-bot"),
        (["bot:pimc:worlds=0"], "reference", "worlds"),
    ],
)
def test_a_bot_kind_that_cannot_play_is_refused_naming_it(tmp_path, pool, engine, reason):
    with pytest.raises(ppo.ConfigError, match=reason) as err:
        training_config.check_args(_tiny_args(tmp_path, pool=pool, pool_weights=[1.0], engine=engine))
    assert str(err.value).startswith("--pool") and "\n" not in str(err.value)


def test_a_bot_opponent_on_the_batched_engine_says_what_it_needs():
    from hearts_env.batched import BatchedHearts

    engine = BatchedHearts(RULES, batch_size=2, seed=0)
    with pytest.raises(ValueError, match="needs engine = reference"):
        BotOpponent("heuristic", [RULES]).act(engine, torch.arange(2), engine.observe(), engine.legal_mask())


def test_the_best_response_trains_each_kind_of_target_where_it_can_play():
    assert best_response.pool_kind("heuristic") == "heuristic"
    assert best_response.pool_kind("ppo-standard") == "model:ppo-standard"
    assert best_response.pool_kind("models/ppo-robust") == "model:models/ppo-robust"
    for spec in ("pimc", "ismcts:iterations=50", "guard:base=ppo-robust", "moon:giveup=late", "duck"):
        kind = best_response.pool_kind(spec)
        assert kind == f"bot:{spec}" and best_response.run_engine(kind, best_response.BEST_RESPONSE_SETTINGS) == (
            "reference"
        )
    assert best_response.run_engine("model:ppo-standard", best_response.BEST_RESPONSE_SETTINGS) == "batched"


@pytest.mark.slow
def test_training_against_a_bot_plays_every_opponent_decision_through_it_and_resumes_exactly(tmp_path, monkeypatch):
    """``pool = ["bot:guard:base=ppo-robust,worlds=4"]`` on the reference engine, no self-play: every
    opponent decision is the guard's; a run killed after its second checkpoint and resumed ends with the
    uninterrupted run's weights, bit for bit, though the killed run played the guard in two worker
    processes (``bot_workers=2``) and the uninterrupted one in its own."""
    spec = "bot:guard:base=ppo-robust,worlds=4"
    settings = {
        "engine": "reference",
        "pool": [spec],
        "pool_weights": [1.0],
        "selfplay_fraction": 0.0,
        "checkpoint_every": 1,
        "total_decisions": 16 * 64 * 3,
    }
    real = opponents.pool_opponent
    made = record_pool(monkeypatch)
    final = ppo.train(_tiny_args(tmp_path / "a", **settings))
    assert made[spec].decisions == final["decisions"] - final["learner_decisions"] > 0
    monkeypatch.setattr(opponents, "pool_opponent", real)

    run_b = _crash_then_resume(_tiny_args(tmp_path / "b", **settings, bot_workers=2), monkeypatch)
    a = torch.load(tmp_path / "a" / "runs" / "tiny" / "checkpoint.pt", weights_only=True)
    b = torch.load(run_b / "checkpoint.pt", weights_only=True)
    assert a["update"] == b["update"] == 3
    for key, tensor in a["model"].items():
        assert torch.equal(tensor, b["model"][key]), key


@pytest.mark.slow
def test_a_tiny_learned_best_response_to_the_moon_guard_trains_on_the_reference_engine(tmp_path, capsys, monkeypatch):
    """``hearts tournament guard:... --robustness --learned 2048 --learned-start moon-late``: the run
    against the guard plays it as itself on the reference engine, the baseline's on the batched engine,
    both from the same moon-seeking warm start."""
    from hearts_env.cli import tournament

    tiny = {"num_envs": 16, "num_steps": 64, "hidden": [32], "imitation_samples": 1, "eval_deals": 4}
    for key, value in tiny.items():
        monkeypatch.setitem(best_response.BEST_RESPONSE_SETTINGS, key, value)
    teachers: list[str] = []
    real_imitate = imitate.imitate

    def imitate_recording(network, rules, settings, *a, **kw):
        teachers.append(settings.teacher)
        return real_imitate(network, rules, replace(settings, num_envs=16, num_steps=32), *a, **kw)

    monkeypatch.setattr(imitate, "imitate", imitate_recording)
    target = "guard:base=ppo-robust,worlds=4"
    out = tmp_path / "learned.json"
    argv = [target, "--robustness", "--adversaries", "duck", "--deals", "2", "--no-progress"]
    learned_argv = ["--learned", "2048", "--learned-start", "moon-late", "--output", str(out)]
    assert tournament.main([*argv, *learned_argv]) == 0
    learned = json.loads(out.read_text(encoding="utf-8"))["learned"]
    assert teachers == ["moon-late", "moon-late"] and "imitating the moon-late bot" in learned["start"]
    assert learned["target"].startswith("guard") and learned["baseline"] == "heuristic"
    assert learned["against_target"]["training"]["engine"] == "reference"
    assert learned["against_baseline"]["training"]["engine"] == "batched"
    for key in ("against_target", "against_baseline"):
        row = learned[key]
        assert row["training"]["decisions"] == 2048
        assert row["gain"]["mean"] == pytest.approx(row["opponent_points"]["mean"] - row["points"]["mean"], abs=1e-5)
    assert "Learned best response: PPO for 2,048 decisions" in capsys.readouterr().out


@pytest.mark.slow
def test_a_best_response_kept_in_a_directory_continues_after_a_kill_and_is_not_trained_twice(tmp_path, monkeypatch):
    """``runs_dir`` (``--learned-dir``): a call killed after the target run's second checkpoint, called
    again, continues that run and reports what an uninterrupted call reports; a third call trains nothing
    (no checkpoint written) and gives the same figures; another budget on the same directory is refused."""
    tiny = {"num_envs": 16, "num_steps": 64, "hidden": [32], "imitation_samples": 0, "eval_deals": 4}
    for key, value in tiny.items():
        monkeypatch.setitem(best_response.BEST_RESPONSE_SETTINGS, key, value)
    budget = 16 * 64 * 3

    def call(runs_dir):
        report = best_response.learned_best_response(
            "duck", "standard", budget, seed=1, deals=2, runs_dir=runs_dir, progress=False
        )
        report.pop("seconds", None)
        for key in ("against_target", "against_baseline"):
            for field in ("seconds", "ppo_seconds", "continued"):
                report[key]["training"].pop(field)
        return report

    whole = call(tmp_path / "whole")
    real_save = ppo.save_checkpoint
    saves: list[int] = []

    def save_then_die(*a, **kw):
        real_save(*a, **kw)
        saves.append(1)
        if len(saves) == 2:
            raise KeyboardInterrupt("killed")

    monkeypatch.setattr(ppo, "save_checkpoint", save_then_die)
    kept = tmp_path / "kept"
    with pytest.raises(KeyboardInterrupt):
        call(kept)
    monkeypatch.setattr(ppo, "save_checkpoint", real_save)
    first = torch.load(kept / "runs" / "best-response-to-duck" / "checkpoint.pt", weights_only=True)
    assert first["update"] == 2  # killed part way
    assert call(kept) == whole

    def no_save(*a, **kw):
        raise AssertionError("a finished best response trained again")

    monkeypatch.setattr(ppo, "save_checkpoint", no_save)
    assert call(kept) == whole
    with pytest.raises(ValueError, match=f"--learned 6144: .* holds a best response of {budget:,} decisions"):
        best_response.learned_best_response("duck", "standard", 6144, seed=1, deals=2, runs_dir=kept, progress=False)
