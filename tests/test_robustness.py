"""The exploitability suite: the robustness report's arithmetic on a real run, ``hearts tournament
--robustness`` (table, JSON, bad input), the model-card writer, the training pool's ``model:`` and
scripted kinds, and a tiny learned best response."""

from __future__ import annotations

import json
import tomllib
from pathlib import Path

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from hearts_env import Rules  # noqa: E402
from hearts_env.training import config as training_config  # noqa: E402
from hearts_env.training import opponents, ppo  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]


def _tiny_args(tmp_path: Path, **overrides) -> ppo.Args:
    args = ppo.Args(
        rules="standard",
        seed=3,
        hidden=[32],
        total_decisions=16 * 64 * 2,
        num_envs=16,
        num_steps=64,
        minibatch_size=256,
        update_epochs=1,
        eval_every=0,
        eval_deals=8,
        checkpoint_every=100,
        runs_dir=str(tmp_path / "runs"),
        run_name="tiny",
        progress=False,
    )
    for key, value in overrides.items():
        setattr(args, key, value)
    return args


# ---------------------------------------------------------------------------------------------------------------
# The training pool: model:<path> and the scripted adversaries
# ---------------------------------------------------------------------------------------------------------------


@pytest.mark.slow
def test_the_smoke_config_trains_exactly_as_before_the_new_pool_kinds():
    """``configs/train/smoke.toml``, seeded: every logged metric of every update equals the figures
    recorded before the ``model:`` and scripted kinds existed (``tests/data/smoke_metrics.json``)."""
    import tempfile

    data = tomllib.loads((ROOT / "configs/train/smoke.toml").read_text(encoding="utf-8"))
    # two intra-op threads, as when the figures were recorded: the order of a sum follows the thread
    # count, and a policy loss near zero shows that in its sixth digit
    before = torch.get_num_threads()
    try:
        with tempfile.TemporaryDirectory() as tmp:
            settings = {**data, "runs_dir": tmp, "run_name": "smoke", "progress": False, "threads": 2}
            ppo.train(ppo.args_from_dict(settings, "test"))
            lines = (Path(tmp) / "smoke" / "metrics.jsonl").read_text(encoding="utf-8").splitlines()
    finally:
        torch.set_num_threads(before)
    got = [json.loads(line) for line in lines]
    want = json.loads((ROOT / "tests/data/smoke_metrics.json").read_text(encoding="utf-8"))
    assert len(got) == len(want)
    for g, w in zip(got, want, strict=True):
        for key, value in w.items():
            if isinstance(value, int):
                assert g[key] == value, (w["update"], key)
            else:
                # Float rounding differs between CPUs (vector widths change the order of float32 sums).
                # These metrics are means of terms of order one, so rounding moves them by about 1e-7
                # absolute, a large relative error where a mean is near zero (the policy loss, the
                # explained variance early on). A changed random stream (seed 2 for seed 1) moved the
                # value loss, the entropy or the explained variance of every update by 1e-4 or more.
                assert g[key] == pytest.approx(value, rel=1e-5, abs=1e-6), (w["update"], key)


def test_unknown_pool_kinds_are_named_with_the_valid_kinds_listed(tmp_path):
    with pytest.raises(ppo.ConfigError) as err:
        training_config.check_args(_tiny_args(tmp_path, pool=["heuristic", "robot"], pool_weights=[1.0, 1.0]))
    message = str(err.value)
    assert "unknown opponent kind(s) robot" in message
    for kind in ("snapshot", "heuristic", "random", "model:", *opponents.scripted_adversaries()):
        assert kind in message
    assert "\n" not in message


@pytest.mark.parametrize(
    ("kind", "reason"),
    [("model:", "names no model"), ("model:no-such-model", "no-such-model"), ("model:ppo-mixed", "rules")],
)
def test_a_model_kind_that_cannot_play_is_refused_naming_it(tmp_path, kind, reason):
    rules = "standard" if kind != "model:ppo-mixed" else "spot_hearts"
    with pytest.raises(ppo.ConfigError, match=reason) as err:
        training_config.check_args(_tiny_args(tmp_path, rules=rules, pool=[kind], pool_weights=[1.0]))
    assert str(err.value).startswith("--pool")


class _Recording:
    """Wraps a pool opponent: every call's observations, masks and actions."""

    def __init__(self, inner) -> None:
        self.inner = inner
        self.name = inner.name
        self.calls: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = []

    def act(self, engine, rows, obs, mask, generator=None):
        actions = self.inner.act(engine, rows, obs, mask, generator)
        self.calls.append((obs.numpy().copy(), mask.numpy().copy(), actions.numpy().copy()))
        return actions

    @property
    def decisions(self) -> int:
        return sum(len(a) for _, _, a in self.calls)


def record_pool(monkeypatch) -> dict[str, _Recording]:
    """Make every pool opponent ``ppo.train``'s ``OpponentPool`` builds a ``_Recording``; the dict fills with them
    by kind."""
    made: dict[str, _Recording] = {}
    real = opponents.pool_opponent

    def recording(kind, *a, **kw):
        made[kind] = _Recording(real(kind, *a, **kw))
        return made[kind]

    monkeypatch.setattr(opponents, "pool_opponent", recording)
    return made


@pytest.mark.slow
def test_a_pool_of_a_shipped_model_and_a_moon_seeker_plays_exactly_those(tmp_path, monkeypatch):
    """``pool = ["model:ppo-standard", "moon"]``, no self-play: every opponent decision of the run is
    made by one of the two, the model's are ppo-standard's greedy choices (its numpy forward pass on the
    same observations), and the moon seeker's are the scripted bot's."""
    from hearts_env.bots import make_bot
    from hearts_env.bots.scripted import ADVERSARIES
    from hearts_env.nets import load_policy

    made = record_pool(monkeypatch)
    final = ppo.train(
        _tiny_args(tmp_path, pool=["model:ppo-standard", "moon"], pool_weights=[1.0, 1.0], selfplay_fraction=0.0)
    )
    assert set(made) == {"model:ppo-standard", "moon"}
    assert made["model:ppo-standard"].decisions > 0 and made["moon"].decisions > 0
    assert sum(r.decisions for r in made.values()) == final["decisions"] - final["learner_decisions"]

    policy = load_policy("ppo-standard", "standard")
    for obs, mask, actions in made["model:ppo-standard"].calls:
        expected = [policy.choose(o, m.astype(np.int8), greedy=True) for o, m in zip(obs, mask, strict=True)]
        assert actions.tolist() == expected

    rules = Rules.preset("standard")
    bot = make_bot(ADVERSARIES["moon"], rules, seed=0)
    for obs, mask, actions in made["moon"].calls:
        expected = [
            bot.act({"observation": o, "action_mask": m.astype(np.int8)}) for o, m in zip(obs, mask, strict=True)
        ]
        assert actions.tolist() == expected


# ---------------------------------------------------------------------------------------------------------------
# The report: its arithmetic recomputed from the deals themselves
# ---------------------------------------------------------------------------------------------------------------


def _replay_set(rules, set_seed: int, adversary, field_bot) -> tuple[float, float, int, int]:
    """One duplicate set played here by the engine alone: the adversary in seat ``r`` of rotation ``r``,
    the field elsewhere; ``(adversary's mean points, the field's mean points, adversary moons, field moons)``."""
    from hearts_env.obs import encode
    from hearts_env.tournament import deal_for_seed

    n = rules.num_players
    own, others, own_moons, field_moons = 0.0, 0.0, 0, 0
    for r in range(n):
        deal = deal_for_seed(rules, set_seed)
        while not deal.is_terminal():
            seat = deal.current_player
            mask = np.zeros(68, dtype=np.int8)
            mask[deal.legal_actions()] = 1
            bot = adversary if seat == r else field_bot
            deal.apply_action(int(bot.act({"observation": encode(deal, seat), "action_mask": mask})))
        scores = deal.result.scores
        own += scores[r] / n
        others += (sum(scores) - scores[r]) / (n - 1) / n
        own_moons += int(deal.result.shooter == r)
        field_moons += int(deal.result.shooter is not None and deal.result.shooter != r)
    return own, others, own_moons, field_moons


def _t_interval(samples: np.ndarray) -> tuple[float, float, float]:
    from hearts_env.tournament import t_quantile

    half = t_quantile(0.975, len(samples) - 1) * samples.std(ddof=1) / np.sqrt(len(samples))
    return float(samples.mean()), float(samples.mean() - half), float(samples.mean() + half)


def test_the_report_is_the_arithmetic_of_the_deals_it_played():
    """Deterministic bots (two scripted adversaries, the greedy shipped model, the heuristic bot), so every
    deal can be replayed here: points, gains, the paired gain difference and the moon counts of the
    report equal those recomputed from the replayed deals."""
    from hearts_env.bots import make_bot
    from hearts_env.tournament import deal_seeds
    from hearts_env.tournament.robustness import robustness

    rules = Rules.preset("standard")
    chosen = {"moon": "moon:giveup=never", "duck": "duck"}
    deals, seed = 5, 11
    report = robustness("ppo-standard", rules, deals=deals, seed=seed, adversaries=chosen, progress=False)
    assert [r.adversary for r in report.rows] == list(chosen)
    field_bots = {"ppo-standard": make_bot("ppo-standard", rules), "heuristic": make_bot("heuristic", rules)}
    for row in report.rows:
        adversary = make_bot(chosen[row.adversary], rules)
        gains = {}
        for table, field_name in ((row.model, "ppo-standard"), (row.baseline, "heuristic")):
            assert table.field == field_name
            replayed = [_replay_set(rules, s, adversary, field_bots[field_name]) for s in deal_seeds(seed, deals)]
            own = np.array([x[0] for x in replayed])
            others = np.array([x[1] for x in replayed])
            gains[field_name] = others - own
            for got, want in ((table.adversary_points, own), (table.field_points, others), (table.gain, others - own)):
                assert (got.mean, got.low, got.high) == pytest.approx(_t_interval(want))
            games = deals * rules.num_players
            assert table.games == games
            assert table.adversary_moons.mean == pytest.approx(sum(x[2] for x in replayed) / games)
            assert table.field_moons.mean == pytest.approx(sum(x[3] for x in replayed) / games)
            assert table.adversary_moons.low <= table.adversary_moons.mean <= table.adversary_moons.high
        difference = _t_interval(gains["ppo-standard"] - gains["heuristic"])
        d = row.gain_difference
        assert (d.mean, d.low, d.high) == pytest.approx(difference)
        expected = "more exploitable" if d.low > 0 else "less exploitable" if d.high < 0 else "no difference shown"
        assert row.verdict == expected
    data = json.loads(json.dumps(report.to_dict()))  # JSON-ready
    assert data["adversaries"][0]["model"]["gain"]["mean"] == pytest.approx(report.rows[0].model.gain.mean, abs=1e-6)
    assert data["adversaries"][1]["verdict"] == report.rows[1].verdict


def test_an_adversary_that_is_the_model_itself_is_refused():
    from hearts_env.tournament.robustness import robustness

    with pytest.raises(ValueError, match=r"'probe'.*is the model or the baseline"):
        robustness("random", "standard", deals=2, adversaries={"probe": "heuristic"}, progress=False)


# ---------------------------------------------------------------------------------------------------------------
# hearts tournament MODEL --robustness
# ---------------------------------------------------------------------------------------------------------------


def test_the_command_prints_the_table_and_writes_the_same_figures_as_json(tmp_path, capsys):
    from hearts_env.cli import tournament

    out = tmp_path / "robustness.json"
    argv = ["ppo-standard", "--robustness", "--adversaries", "moon", "duck", "--deals", "3", "--no-progress"]
    assert tournament.main([*argv, "--output", str(out)]) == 0
    table = capsys.readouterr().out
    data = json.loads(out.read_text(encoding="utf-8"))
    assert [a["adversary"] for a in data["adversaries"]] == ["moon", "duck"]
    assert data["model"] == "ppo-standard" and data["baseline"] == "heuristic" and data["duplicate_sets"] == 3
    for row in data["adversaries"]:
        gain = row["model"]["gain"]
        assert f"| {row['adversary']} | ppo-standard |" in table
        assert f"{gain['mean']:+.2f} [{gain['low']:+.2f}, {gain['high']:+.2f}]" in table
        difference = row["gain_difference"]
        assert f"| {row['adversary']} | {difference['mean']:+.2f} [" in table
        assert row["model"]["gain"]["mean"] == pytest.approx(
            row["model"]["field_points"]["mean"] - row["model"]["adversary_points"]["mean"], abs=1e-5
        )
    assert tournament.main([*argv, "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["adversaries"] == data["adversaries"]  # same seed, same figures
    from hearts_env.tournament.robustness import RobustnessReport

    assert RobustnessReport.from_dict(data).table() in table  # a saved report renders the printed table again
    with pytest.raises(ValueError, match="not a robustness report: KeyError 'adversaries'"):
        RobustnessReport.from_dict({k: v for k, v in data.items() if k != "adversaries"})


@pytest.mark.parametrize(
    ("argv", "reason"),
    [
        (["ppo-standard", "heuristic", "--robustness"], "--robustness measures one model: give it as the only BOT"),
        (["ppo-standard", "--learned", "1000"], "--learned needs --robustness"),
        (["ppo-standard", "--robustness", "--matches"], "--robustness plays deals, not --matches"),
        (["ppo-standard", "--robustness", "--learned", "0"], "--learned 0: the budget must be at least 1"),
        (
            ["ppo-standard", "--robustness", "--adversaries", "robot"],
            "--adversaries: unknown adversary robot; use moon",
        ),
        (["ppo-standard", "--robustness", "--write-card"], "--write-card: ppo-standard is not a model directory"),
        (["ppo-standard", "--learned-start", "moon-late"], "--learned-start needs --robustness"),
        (["ppo-standard", "--learned-dir", "br"], "--learned-dir needs --robustness"),
        (["ppo-standard", "--robustness", "--learned-dir", "br"], "--learned-dir needs --learned"),
        (["ppo-standard", "--robustness", "--learned-start", "moon-late"], "--learned-start needs --learned"),
        (
            ["ppo-standard", "--robustness", "--learned", "9", "--learned-start", "nobody"],
            "--learned-start nobody: unknown teacher; use heuristic, duck",
        ),
        (["no-such-model", "--robustness", "--deals", "2", "--no-progress"], "unknown bot 'no-such-model'"),
    ],
)
def test_bad_robustness_input_is_one_line_naming_the_option(tmp_path, capsys, monkeypatch, argv, reason):
    from hearts_env.cli import tournament

    monkeypatch.chdir(tmp_path)  # ppo-standard is a shipped name here, not a directory
    assert tournament.main(argv) == 2
    captured = capsys.readouterr()
    assert reason in captured.err and captured.err.count("\n") == 1 and not captured.out


def test_learned_without_torch_names_the_extra_to_install(capsys, monkeypatch):
    from hearts_env.cli import tournament

    monkeypatch.setitem(__import__("sys").modules, "torch", None)  # as if torch were not installed
    argv = ["ppo-standard", "--robustness", "--learned", "1000", "--adversaries", "duck", "--deals", "2"]
    assert tournament.main(argv) == 2
    err = capsys.readouterr().err
    assert "pip install 'hearts-env[train]'" in err and err.count("\n") == 1


# ---------------------------------------------------------------------------------------------------------------
# The model card
# ---------------------------------------------------------------------------------------------------------------


def _model_copy(tmp_path: Path) -> Path:
    import shutil

    model = tmp_path / "models" / "copy"
    shutil.copytree(ROOT / "models" / "ppo-standard-early", model)
    return model


def test_the_card_writer_replaces_its_section_and_keeps_the_rest(tmp_path):
    from hearts_env.bots import make_bot
    from hearts_env.training.model_card import ROBUSTNESS_HEADING, write_robustness_card

    model = _model_copy(tmp_path)
    readme = model / "README.md"
    original = readme.read_text(encoding="utf-8")
    write_robustness_card(model, "| first | table |")
    once = readme.read_text(encoding="utf-8")
    assert once.startswith(original.rstrip("\n")) and once.count(ROBUSTNESS_HEADING) == 1
    readme.write_text(once + "\n## Later\n\nkept\n", encoding="utf-8")  # a section after it
    write_robustness_card(model, "| second | table |", "hearts tournament x --robustness")
    twice = readme.read_text(encoding="utf-8")
    assert "first" not in twice and "| second | table |" in twice and "Measured with `hearts tournament" in twice
    assert twice.count(ROBUSTNESS_HEADING) == 1 and twice.endswith("## Later\n\nkept\n")
    assert twice.startswith(original.rstrip("\n"))
    make_bot(str(model), "standard")  # the model still loads: the card's checksum is untouched
    with pytest.raises(ValueError, match="not a model directory"):
        write_robustness_card(tmp_path, "x")


def test_write_card_puts_the_printed_table_into_the_models_readme(tmp_path, capsys):
    from hearts_env.cli import tournament

    model = _model_copy(tmp_path)
    argv = [str(model), "--robustness", "--adversaries", "duck", "--deals", "2", "--no-progress", "--write-card"]
    assert tournament.main(argv) == 0
    table = capsys.readouterr().out.strip()
    readme = (model / "README.md").read_text(encoding="utf-8")
    assert "## Robustness\n\n" + table in readme
    assert f"hearts tournament {model} --robustness --deals 2 --seed 0 --adversaries duck" in readme


# ---------------------------------------------------------------------------------------------------------------
# The learned best response
# ---------------------------------------------------------------------------------------------------------------


@pytest.mark.slow
def test_a_tiny_learned_best_response_trains_against_each_opponent_and_reports_its_gains(tmp_path, capsys, monkeypatch):
    """``--learned 4096`` (tiny settings): one PPO run against three frozen ppo-standard models and one
    against three heuristic bots, alike but for the pool, from the same start; the rows' arithmetic."""
    from hearts_env.cli import tournament
    from hearts_env.training import best_response

    tiny = {"num_envs": 32, "num_steps": 64, "hidden": [32], "imitation_samples": 0, "eval_deals": 8}
    for key, value in tiny.items():
        monkeypatch.setitem(best_response.BEST_RESPONSE_SETTINGS, key, value)
    runs: list[tuple[ppo.Args, dict[str, torch.Tensor]]] = []
    real_train, real_build = ppo.train, ppo.build_network
    starts: list[dict[str, torch.Tensor]] = []

    def build(*a, **kw):  # the learner's initial weights
        network = real_build(*a, **kw)
        starts.append({k: v.clone() for k, v in network.state_dict().items()})
        return network

    def train(args, *a, **kw):
        final = real_train(args, *a, **kw)
        runs.append((args, starts[-1]))
        return final

    monkeypatch.setattr(ppo, "build_network", build)
    monkeypatch.setattr(ppo, "train", train)
    out = tmp_path / "learned.json"
    argv = ["ppo-standard", "--robustness", "--adversaries", "duck", "--deals", "4", "--no-progress"]
    assert tournament.main([*argv, "--learned", "4096", "--output", str(out)]) == 0
    table = capsys.readouterr().out
    learned = json.loads(out.read_text(encoding="utf-8"))["learned"]

    assert [r[0].pool for r in runs] == [["model:ppo-standard"], ["heuristic"]]
    for args, _ in runs:
        assert args.selfplay_fraction == 0.0 and args.total_decisions == 4096
    for key, tensor in runs[0][1].items():
        assert torch.equal(tensor, runs[1][1][key]), key  # the same start for both
    assert learned["target"] == "ppo-standard" and learned["baseline"] == "heuristic" and learned["decisions"] == 4096
    for key in ("against_target", "against_baseline"):
        row = learned[key]
        assert row["training"]["decisions"] == 4096 and row["training"]["learner_decisions"] == 1024
        assert row["gain"]["mean"] == pytest.approx(row["opponent_points"]["mean"] - row["points"]["mean"], abs=1e-5)
        assert row["gain"]["low"] < row["gain"]["mean"] < row["gain"]["high"]
        gain = row["gain"]
        assert f"| {row['opponent']} | " in table and f"{gain['mean']:+.2f} [{gain['low']:+.2f}" in table
    difference = learned["against_target"]["gain"]["mean"] - learned["against_baseline"]["gain"]["mean"]
    assert learned["gain_difference"]["mean"] == pytest.approx(difference, abs=1e-5)  # paired: same deals
    assert "Learned best response: PPO for 4,096 decisions" in table


def test_the_baseline_measured_against_itself_plays_each_table_once(capsys):
    from hearts_env.cli import tournament

    argv = ["heuristic", "--robustness", "--adversaries", "duck", "moon", "--deals", "2", "--no-progress"]
    assert tournament.main(argv) == 0
    table = capsys.readouterr().out
    assert table.count("| duck | heuristic |") == 1 and table.count("| moon | heuristic |") == 1
    assert "heuristic is the baseline: no gain difference to show." in table and "gain difference |" not in table
