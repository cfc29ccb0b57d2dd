"""The RLlib backend: the turn-based MultiAgentEnv, the masking module, self-play mapping, the
``hearts train/export --backend rllib`` commands end to end, the example, and every refusal."""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
from pathlib import Path

import gymnasium
import numpy as np
import pytest
import ray  # the rllib extra; CI installs it
import torch
from ray.rllib.core.columns import Columns
from ray.rllib.env.single_agent_env_runner import SingleAgentEnvRunner
from ray.rllib.utils.pre_checks.env import check_multiagent_environments

from hearts_env.bots import HeuristicBot
from hearts_env.cli.main import main as hearts
from hearts_env.core import IllegalActionError, Rules
from hearts_env.envs.rllib import HeartsMultiAgentEnv, HeartsRLlibVectorEnv
from hearts_env.nets import load_policy
from hearts_env.tournament import run_tournament
from hearts_env.training.network import build_network
from hearts_env.training.rllib.config import RLlibArgs, check_args, parse_args, tables_per_runner
from hearts_env.training.rllib.export import SIDECAR, CheckpointError, read_checkpoint
from hearts_env.training.rllib.modules import HeuristicModule, MaskedPPOModule, network_config
from hearts_env.training.rllib.pool import VECTOR_MODULE, PoolVectorEnv, env_pool
from hearts_env.training.rllib.selfplay import SeatMapping
from hearts_env.training.rllib.train import build_config, connect, module_weights, save_checkpoint

ROOT = Path(__file__).resolve().parents[1]


def _legal(observation: dict) -> np.ndarray:
    return np.flatnonzero(observation["action_mask"])


def _play_episode(env: HeartsMultiAgentEnv, seed: int, rng: np.random.Generator) -> dict:
    """One episode of random legal play, checking every step's contract; returns what it saw."""
    obs, _ = env.reset(seed=seed)
    raw = env.raw
    returns: dict[str, float] = {}
    acted: set[str] = set()
    steps = 0
    while True:
        assert len(obs) == 1, f"only the seat to move observes, got {sorted(obs)}"
        ((agent, observation),) = obs.items()
        assert agent == f"seat_{raw.deal.current_player}"
        assert observation["observations"].dtype == np.float32 and observation["action_mask"].dtype == np.float32
        assert set(np.unique(observation["action_mask"])) <= {0.0, 1.0}
        assert _legal(observation).tolist() == sorted(raw.deal.legal_actions())
        assert env.observation_spaces[agent].contains(observation)
        action = int(rng.choice(_legal(observation)))
        acted.add(agent)
        obs, rewards, terminateds, truncateds, _infos = env.step({agent: np.int64(action)})
        steps += 1
        for a, r in rewards.items():
            returns[a] = returns.get(a, 0.0) + r
        assert truncateds == {"__all__": False}
        if terminateds["__all__"]:
            break
        assert set(rewards) == set(obs), "a reward goes with the seat's next observation"
    assert set(obs) == acted and set(rewards) == acted, "every seat that acted gets its last observation and reward"
    assert all(terminateds[a] for a in acted)
    return {"returns": returns, "steps": steps, "points": env.last_episode["points"], "acted": acted}


@pytest.mark.parametrize("rules", ["standard", "three_player", "omnibus"])
def test_env_passes_rllibs_check_and_plays_turn_by_turn(rules: str) -> None:
    env = HeartsMultiAgentEnv({"rules": rules})
    check_multiagent_environments(env)  # RLlib's own check, with its sampled action (legal: see LegalActions)
    n = Rules.load(rules).num_players
    assert env.possible_agents == [f"seat_{p}" for p in range(n)]
    rng = np.random.default_rng(0)
    for seed in range(3):
        seen = _play_episode(env, seed, rng)
        scale = env.reward_scale
        assert scale == pytest.approx(1 / Rules.load(rules).tables.penalty_total)
        for p, points in enumerate(seen["points"]):
            assert seen["returns"].get(f"seat_{p}", 0.0) == pytest.approx(-points * scale)
        assert env.last_episode["decisions"] == seen["steps"]
    assert env.illegal_actions == 0 and env.actions_checked > 0


def test_match_episode_rewards_accumulate_between_turns() -> None:
    env = HeartsMultiAgentEnv({"rules": "standard", "episode": "match", "reward_scale": 1.0})
    rng = np.random.default_rng(1)
    seen = _play_episode(env, 5, rng)
    match = env.raw.match
    assert match is not None and match.over and len(match.history) > 1
    for p in range(4):  # every deal's reward reached the seat, once
        assert seen["returns"][f"seat_{p}"] == pytest.approx(-match.totals[p])


def test_illegal_action_raises_and_is_counted_game_unchanged() -> None:
    env = HeartsMultiAgentEnv({"rules": "standard"})
    obs, _ = env.reset(seed=3)
    ((agent, observation),) = obs.items()
    illegal = int(np.flatnonzero(observation["action_mask"] == 0)[0])
    before = env.raw.save_state()
    with pytest.raises(IllegalActionError):
        env.step({agent: illegal})
    assert env.illegal_actions == 1
    assert env.raw.save_state() == before, "an illegal action leaves the game as it was"
    with pytest.raises(ValueError, match="seat"):
        env.step({"seat_9": 0})
    space = env.get_action_space(agent)
    assert all(observation["action_mask"][space.sample()] == 1 for _ in range(50)), "sample() is legal"
    env.step({agent: int(space.sample())})  # the game goes on
    assert env.illegal_actions == 1


def test_env_config_refuses_unknown_keys_and_bad_options() -> None:
    with pytest.raises(ValueError, match=r"unknown key.*rulez"):
        HeartsMultiAgentEnv({"rulez": "standard"})
    with pytest.raises(ValueError, match="reward_scale"):
        HeartsMultiAgentEnv({"reward_scale": "big"})
    with pytest.raises(ValueError, match="dealer"):
        HeartsMultiAgentEnv({"reset_options": {"dealer": 9}})
    env = HeartsMultiAgentEnv({"rules": "standard", "reset_options": {"pass_kind": "hold"}})
    env.reset(seed=0)
    assert env.raw.deal.pass_kind == "hold"


# ---------------------------------------------------------------------------------------------------------------
# The modules
# ---------------------------------------------------------------------------------------------------------------


def _module(cls: type, **model_config: object):
    env = HeartsMultiAgentEnv({"rules": "standard"})
    return cls(
        observation_space=env.observation_spaces["seat_0"],
        action_space=env.action_spaces["seat_0"],
        model_config={"hidden": [32], "num_players": 4, **model_config},
    )


def test_masking_module_gives_illegal_actions_zero_probability_everywhere() -> None:
    torch.manual_seed(0)
    module = _module(MaskedPPOModule)
    batch_size = 6
    x = torch.rand(batch_size, 2577) * 2
    mask = torch.zeros(batch_size, 68)
    legal_sets = [[0], [3, 7], [12, 13, 50], list(range(52)), [52, 53], [66, 67]]  # hand-made masks
    for row, legal in enumerate(legal_sets):
        mask[row, legal] = 1.0
    batch = {Columns.OBS: {"observations": x, "action_mask": mask}}
    dist_cls = module.get_train_action_dist_cls()
    for forward in (module.forward_exploration, module.forward_inference, module.forward_train):
        logits = forward(batch)[Columns.ACTION_DIST_INPUTS]
        dist = dist_cls.from_logits(logits)
        samples = torch.stack([dist.sample() for _ in range(300)])  # (300, B)
        assert bool((mask.gather(1, samples.T) == 1).all()), "a sampled action is illegal"
        all_actions = torch.arange(68).unsqueeze(1).expand(68, batch_size)
        probs = torch.stack([dist.logp(a).exp() for a in all_actions]).T  # (B, 68)
        assert bool((probs[mask == 0] == 0).all()), "an illegal action has probability > 0"
        assert torch.allclose(probs.sum(1), torch.ones(batch_size), atol=1e-5)
        legal_p = probs.clamp_min(1e-30)
        manual = -(torch.where(mask == 1, probs * legal_p.log(), torch.zeros_like(probs))).sum(1)
        assert torch.allclose(dist.entropy(), manual, atol=1e-5), "the entropy counts illegal actions"
        assert float(dist.entropy()[0].detach()) == pytest.approx(0.0, abs=1e-6)  # one legal action: no entropy
        assert bool((mask.gather(1, dist.to_deterministic().sample().unsqueeze(1)) == 1).all())
    train_out = module.forward_train(batch)
    values = module.compute_values(batch, train_out[Columns.EMBEDDINGS])
    assert torch.allclose(values, module.compute_values(batch)), "the value rides along as the embedding"
    # the loss's gradient never reaches an illegal logit through the policy
    logits = module.forward_train(batch)[Columns.ACTION_DIST_INPUTS]
    loss = -dist_cls.from_logits(logits).entropy().sum()
    logits.retain_grad()
    loss.backward()
    assert bool((logits.grad[mask == 0] == 0).all())


def test_heuristic_module_plays_the_heuristic_bot() -> None:
    module = _module(HeuristicModule, rules=Rules.load("standard").to_dict())
    env = HeartsMultiAgentEnv({"rules": "standard"})
    bot = HeuristicBot(Rules.load("standard"))
    rows, masks, wanted = [], [], []
    for seed in range(5):
        obs, _ = env.reset(seed=seed)
        for _ in range(20):
            ((agent, o),) = obs.items()
            rows.append(o["observations"])
            masks.append(o["action_mask"])
            wanted.append(bot.act({"observation": o["observations"], "action_mask": o["action_mask"]}))
            obs, *_ = env.step({agent: wanted[-1]})
    batch = {
        Columns.OBS: {
            "observations": torch.from_numpy(np.stack(rows)),
            "action_mask": torch.from_numpy(np.stack(masks)),
        }
    }
    assert module.forward_exploration(batch)[Columns.ACTIONS].tolist() == wanted


def test_seat_mapping_is_one_draw_per_episode() -> None:
    mapping = SeatMapping(["selfplay", "snapshot", "heuristic"], [1, 1, 1], ["main_v1", "main_v2"], 4)
    kinds = {"selfplay": 0, "heuristic": 0, "snapshot": 0}
    for i in range(300):
        table = mapping.table(f"episode-{i}")
        assert table == mapping.table(f"episode-{i}"), "every seat of an episode sees the same draw"
        assert "main" in table
        if table.count("main") == 4:
            kinds["selfplay"] += 1
        else:
            assert table.count("main") == 1 and len(set(table)) == 2
            kinds["heuristic" if "heuristic" in table else "snapshot"] += 1
    assert all(60 < k < 140 for k in kinds.values()), kinds
    early = SeatMapping(["snapshot"], [1], [], 4)  # before the first snapshot: self-play
    assert early.table("x") == ["main"] * 4


# ---------------------------------------------------------------------------------------------------------------
# The commands
# ---------------------------------------------------------------------------------------------------------------


@pytest.mark.slow
def test_train_export_load_and_tournament_through_the_commands(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    runs = tmp_path / "runs"
    code = hearts(
        [
            "train",
            "--backend",
            "rllib",
            "--config",
            str(ROOT / "configs/train/rllib_standard.toml"),
            "--num-env-runners",
            "2",
            "--iterations",
            "2",
            "--envs-per-runner",
            "2",
            "--train-batch-size",
            "600",
            "--minibatch-size",
            "300",
            "--num-epochs",
            "1",
            "--hidden",
            "32",
            "--snapshot-every",
            "1",
            "--runs-dir",
            str(runs),
            "--run-name",
            "tiny",
        ]
    )
    out = capsys.readouterr()
    assert code == 0, out.err[-2000:]
    assert "iteration 2/2" in out.err
    run = runs / "tiny"
    metrics = [json.loads(line) for line in (run / "metrics.jsonl").read_text().splitlines()]
    assert [m["iteration"] for m in metrics] == [1, 2]
    last = metrics[-1]
    assert last["decisions"] >= 1200
    assert last["illegal_actions"] == 0 and last["illegal_samples"] == 0, "a sampled action was illegal"
    assert last["decisions_checked"] > 0, "no finished episode was checked"
    assert last["snapshots"] == 2  # one frozen snapshot of main per iteration, held by the learner
    modules = run / "checkpoint" / "learner_group" / "learner" / "rl_module"
    assert {p.name for p in modules.iterdir() if p.is_dir()} == {"main", "main_v1", "main_v2", "heuristic"}
    assert any((run / "tb").iterdir())
    checkpoint = run / "checkpoint"
    assert (checkpoint / SIDECAR).is_file() and (checkpoint / "rllib_checkpoint.json").is_file()

    models = tmp_path / "models"
    export = ["export", "--backend", "rllib", str(checkpoint), "--models-dir", str(models)]
    assert hearts([*export, "--name", "rl-tiny"]) == 0
    policy = load_policy(models / "rl-tiny", "standard")
    assert policy.config["hidden"] == [32]
    card = json.loads((models / "rl-tiny" / "model.json").read_text())
    assert card["training"]["backend"] == "rllib" and card["training"]["decisions"] == last["decisions"]
    result = run_tournament([str(models / "rl-tiny"), "heuristic"], "standard", deals=20, progress=False)
    assert result.sets == 20 and all(math.isfinite(b.mean) for b in result.bots)

    # the exporter refuses other rules, another encoding version and a directory without the sidecar
    capsys.readouterr()
    args = [*export, "--name", "x"]
    assert hearts([*args, "--rules", "three_player"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "other rules" in err and "num_players: model 4, asked 3" in err
    card_path = checkpoint / SIDECAR
    sidecar = json.loads(card_path.read_text())
    card_path.write_text(json.dumps({**sidecar, "encoding_version": sidecar["encoding_version"] + 1}))
    with pytest.raises(CheckpointError, match="encoding version"):
        read_checkpoint(checkpoint)
    card_path.unlink()
    assert hearts(args) == 2
    assert "not a hearts-env RLlib checkpoint" in capsys.readouterr().err
    assert not (models / "x").exists()


def test_unreachable_address_fails_in_one_line_writing_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    runs = tmp_path / "runs"
    for address in ("127.0.0.1:1", "ray://127.0.0.1:1", "nonsense"):
        code = hearts(["train", "--backend", "rllib", "--address", address, "--runs-dir", str(runs), "--run-name", "r"])
        err = capsys.readouterr().err
        assert code == 2 and err.count("\n") == 1 and err.startswith(f"hearts train: --address {address}: "), err
    assert not runs.exists()
    assert not ray.is_initialized()
    assert hearts(["train", "--backend", "tensorflow"]) == 2
    assert "unknown backend" in capsys.readouterr().err
    assert hearts(["train", "--backend", "rllib", "--iterations", "0", "--runs-dir", str(runs)]) == 2
    assert "--iterations must be at least 1" in capsys.readouterr().err
    assert not runs.exists()


def test_missing_ray_names_the_extra() -> None:
    code = (
        "import sys; sys.modules['ray'] = None\n"
        "from hearts_env.cli.main import main\n"
        "raise SystemExit(main(['train', '--backend', 'rllib']))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 3
    assert "pip install 'hearts-env[rllib]'" in done.stderr and "Traceback" not in done.stderr


@pytest.mark.slow
def test_example_runs(tmp_path: Path) -> None:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run(
        [sys.executable, str(ROOT / "examples/rllib_selfplay.py"), "--iterations", "1", "--tiny"],
        capture_output=True,
        text=True,
        timeout=240,
        cwd=tmp_path,
        env=env,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    assert "illegal actions: 0" in done.stdout
    assert "points per deal" in done.stdout


def test_evaluate_takes_an_rllib_module_directly() -> None:
    """``hearts_env.tournament.evaluate`` plays an RLModule as it is: greedy on its masked logits, legal
    every time (an illegal choice would raise), the same choices as its own forward pass."""
    import numpy as np
    import torch

    from hearts_env.tournament.evaluate import PolicyBot, evaluate

    module = _module(MaskedPPOModule)
    result = evaluate(module, "standard", opponents="heuristic", deals=3, name="rllib-module")
    assert result.bots[0].label == "rllib-module" and result.sets == 3
    env = HeartsMultiAgentEnv({"rules": "standard"})
    obs, _ = env.reset(seed=5)
    view = next(iter(obs.values()))
    bot = PolicyBot(module)
    action = bot.act({"observation": view["observations"], "action_mask": view["action_mask"].astype(np.int8)})
    with torch.no_grad():
        batch = {k: torch.as_tensor(v)[None] for k, v in view.items()}
        logits = module.forward_inference({"obs": batch})["action_dist_inputs"][0].numpy()
    assert action == int(np.argmax(np.where(view["action_mask"] > 0, logits, -np.inf)))
    assert view["action_mask"][action] == 1


# ---------------------------------------------------------------------------------------------------------------
# The vector env path: single-agent env runners on HeartsRLlibVectorEnv, the pool inside the env
# ---------------------------------------------------------------------------------------------------------------


def _vector_args(**changes: object) -> RLlibArgs:
    base = {
        "num_env_runners": 0,
        "envs_per_runner": 6,
        "train_batch_size": 256,
        "minibatch_size": 128,
        "num_epochs": 1,
        "hidden": [32],
        "progress": False,
    }
    return RLlibArgs(**{**base, **changes})  # type: ignore[arg-type]


def _random_weights(hidden: list[int], seed: int) -> dict[str, np.ndarray]:
    torch.manual_seed(seed)
    net = build_network(network_config({"hidden": hidden}), 4)
    return {k: v.detach().numpy().copy() for k, v in net.state_dict().items()}


def _find(env: object, kind: type) -> object:
    while not isinstance(env, kind):
        env = env.env  # type: ignore[attr-defined]
    return env


def test_vector_env_transitions_reach_rllib_intact() -> None:
    """Every deal the vector env plays reaches RLlib's single-agent env runner as one episode, intact:
    the same observations, actions and rewards, in order, across the sample calls that cut it, the reward
    summing to minus the learner's deal points; the step after a deal's end starts the next episode."""
    args = _vector_args(pool=["heuristic", "selfplay"], pool_weights=[0.5, 0.5])
    rules = check_args(args)
    runner = SingleAgentEnvRunner(config=build_config(args, rules))
    assert runner.env.unwrapped.metadata["autoreset_mode"] == gymnasium.vector.AutoresetMode.NEXT_STEP
    env_pool(runner.env).install(_random_weights([32], 0), [])
    wrapper = _find(runner.env, HeartsRLlibVectorEnv)
    b = wrapper.num_envs
    recorded: list[list[dict]] = [[] for _ in range(b)]  # per row, its deals: obs, actions, rewards
    complete: list[dict] = []
    reset, step = wrapper.reset, wrapper.step

    def record_reset(**kwargs: object) -> tuple:
        obs, info = reset(**kwargs)
        for row in range(b):
            recorded[row] = [{"obs": [obs["observations"][row].copy()], "actions": [], "rewards": []}]
        return obs, info

    held = np.zeros(b, bool)

    def record_step(actions: np.ndarray) -> tuple:
        nonlocal held
        obs, rewards, term, trunc, info = step(actions)
        for row in range(b):
            if held[row]:  # the step after a deal's end: the next deal's first observation
                recorded[row].append({"obs": [obs["observations"][row].copy()], "actions": [], "rewards": []})
                continue
            deal = recorded[row][-1]
            deal["obs"].append(obs["observations"][row].copy())
            deal["actions"].append(int(actions[row]))
            deal["rewards"].append(float(rewards[row]))
            if term[row]:
                deal["points"] = int(info["points"][row])
                complete.append(deal)
        held = np.asarray(term, bool)
        return obs, rewards, term, trunc, info

    wrapper.reset, wrapper.step = record_reset, record_step
    chunks: dict[str, list] = {}
    done: set[str] = set()
    for _ in range(4):
        for episode in runner.sample(num_timesteps=60):
            chunks.setdefault(episode.id_, []).append(episode)
            if episode.is_done:
                done.add(episode.id_)
    assert len(complete) >= b and len(done) == len(complete)
    scale = 1 / rules.tables.penalty_total
    seen = []
    for eid in done:
        parts = chunks[eid]
        obs = list(parts[0].get_observations()["observations"])
        for part in parts[1:]:
            obs.extend(part.get_observations()["observations"][1:])  # a continuation repeats the cut's observation
        actions = [int(a) for part in parts for a in part.get_actions()]
        rewards = [float(r) for part in parts for r in part.get_rewards()]
        seen.append((np.stack(obs), actions, rewards))
    for deal in complete:
        assert sum(deal["rewards"]) == pytest.approx(-deal["points"] * scale)
        assert all(r == 0 for r in deal["rewards"][:-1])
        matches = [s for s in seen if s[1] == deal["actions"] and np.array_equal(s[0], np.stack(deal["obs"]))]
        assert len(matches) == 1, "a deal the env played is missing from RLlib's episodes, or changed"
        np.testing.assert_allclose(matches[0][2], deal["rewards"], rtol=1e-6)


def test_pool_plays_one_member_per_deal_and_names_it() -> None:
    """The pool draws one member per deal, before any opponent moves in it, and ``finished_kind`` names
    the member of the deal that has just ended; a heuristic-only pool plays exactly as the heuristic opponents."""
    config = {"num_envs": 8, "pool": ["heuristic", "selfplay", "snapshot"], "pool_weights": [1.0, 1.0, 1.0]}
    env = PoolVectorEnv({**config, "network": network_config({"hidden": [16]})})
    env.pool.install(_random_weights([16], 1), [("main_v1", _random_weights([16], 2))])
    engine = env.hearts.engine
    kinds: dict[tuple[int, int], set[str]] = {}
    act = env.pool.act

    def spy(engine_: object, rows: torch.Tensor, *a: object) -> torch.Tensor:
        out = act(engine_, rows, *a)  # type: ignore[arg-type]
        for row in rows.tolist():
            key = (row, int(engine.state.dealt[row, 0]))
            kinds.setdefault(key, set()).add(env.pool.slot_kind(int(env.pool._slot[row])))
        return out

    env.pool.act = spy  # type: ignore[method-assign]
    obs, _ = env.reset(seed=3)
    played: list[str] = []
    for _ in range(80):
        obs, _, term, _, _ = env.step(_legal_last(obs["action_mask"]))
        for row in np.flatnonzero(term):
            played.append(env.pool.finished_kind(engine, int(row)))
    assert all(len(k) == 1 for k in kinds.values()), "a deal's opponents changed member mid-deal"
    assert set(played) == {"heuristic", "selfplay", "snapshot"}

    plain = HeartsRLlibVectorEnv(8, "standard", seat="random", opponents="heuristic")
    heuristic_pool = PoolVectorEnv({"num_envs": 8, "pool": ["heuristic"], "pool_weights": [1.0]})
    a, _ = plain.reset(seed=9)
    b, _ = heuristic_pool.reset(seed=9)
    for _ in range(40):
        np.testing.assert_array_equal(a["observations"], b["observations"])
        actions = _legal_last(a["action_mask"])
        a, ra, *_ = plain.step(actions)
        b, rb, *_ = heuristic_pool.step(actions)
        np.testing.assert_array_equal(ra, rb)


def test_pool_gets_observations_of_its_network_rows_only_and_plays_the_same() -> None:
    """The env builds observations and masks only for the rows the pool plays by a network (``input_rows``);
    those rows' inputs are exact, and the whole run equals one where every row's inputs are built."""
    config = {
        "num_envs": 16,
        "pool": ["heuristic", "selfplay", "snapshot"],
        "pool_weights": [1.0, 1.0, 1.0],
        "network": network_config({"hidden": [16]}),
    }
    envs = [PoolVectorEnv(config) for _ in range(2)]
    for env in envs:
        env.pool.install(_random_weights([16], 1), [("main_v1", _random_weights([16], 2))])
    envs[1].pool.input_rows = None  # type: ignore[assignment,method-assign]  # the env builds every row's inputs
    seen: list[tuple[torch.Tensor, torch.Tensor]] = []
    engine = envs[0].hearts.engine
    act = envs[0].pool.act

    def spy(engine_: object, rows: torch.Tensor, obs: torch.Tensor, mask: torch.Tensor, *a: object) -> torch.Tensor:
        reads = envs[0].pool._slot.index_select(0, rows) != 0  # type: ignore[union-attr]
        sub = engine.state.rows(rows)
        full_obs, full_mask = engine.observation_builder.observe(sub), engine.kernel.legal_mask(sub)
        assert torch.equal(obs[reads], full_obs[reads]) and torch.equal(mask[reads], full_mask[reads])
        assert not obs[~reads].any() and not mask[~reads].any()
        seen.append((reads, rows))
        return act(engine_, rows, obs, mask, *a)  # type: ignore[arg-type]

    envs[0].pool.act = spy  # type: ignore[method-assign]
    a, _ = envs[0].reset(seed=5)
    b, _ = envs[1].reset(seed=5)
    for _ in range(60):
        np.testing.assert_array_equal(a["observations"], b["observations"])
        np.testing.assert_array_equal(a["action_mask"], b["action_mask"])
        actions = _legal_last(a["action_mask"])
        a, ra, ta, _, ia = envs[0].step(actions)
        b, rb, tb, _, ib = envs[1].step(actions)
        np.testing.assert_array_equal(ra, rb)
        np.testing.assert_array_equal(ta, tb)
        assert ia.keys() == ib.keys() and all(np.array_equal(ia[k], ib[k]) for k in ia)
    assert envs[0].pool.decisions == envs[1].pool.decisions
    reads_all = torch.cat([r for r, _ in seen])
    assert reads_all.any() and not reads_all.all(), "the run should mix heuristic and network rows"


def _legal_last(mask: np.ndarray) -> np.ndarray:
    return (mask.shape[1] - 1 - np.argmax(mask[:, ::-1] > 0, axis=1)).astype(np.int64)


@pytest.mark.slow
def test_vector_training_on_two_env_runners_pushes_the_pool_and_exports(tmp_path: Path) -> None:
    """Two env runners on a local Ray: PPO iterations on the vector env, the learner's weights and a
    snapshot pushed to both runners' pools by the callback, no sampled action outside its mask, and the
    checkpoint's sidecar exports a model that plays."""
    args = _vector_args(num_env_runners=2, envs_per_runner=8, snapshot_every=1, iterations=2)
    rules = check_args(args)
    started = connect(None, num_cpus=3)
    try:
        algo = build_config(args, rules).build_algo()
        try:
            for _ in range(2):
                result = algo.train()
            runners = result["env_runners"]
            assert runners["num_env_steps_sampled_lifetime"] >= 2 * args.train_batch_size
            assert runners["hearts/opponent_decisions"] > runners["num_env_steps_sampled_lifetime"]
            assert runners["hearts/illegal_samples"] == 0
            weights = module_weights(algo, VECTOR_MODULE)
            pushed = algo.env_runner_group.foreach_env_runner(
                lambda r: (
                    {k: v.detach().numpy() for k, v in env_pool(r.env).latest.network.state_dict().items()},
                    [name for name, _ in env_pool(r.env).snapshots],
                ),
                local_env_runner=False,
            )
            assert len(pushed) == 2
            for latest, snapshots in pushed:
                assert snapshots == ["main_v1", "main_v2"]
                assert set(latest) == set(weights)
                for k in weights:
                    np.testing.assert_array_equal(latest[k], weights[k])
            checkpoint = save_checkpoint(
                algo, tmp_path / "checkpoint", rules, args.hidden, {"iteration": 2}, VECTOR_MODULE
            )
        finally:
            algo.stop()
    finally:
        if started:
            ray.shutdown()
    models = tmp_path / "models"
    assert hearts(["export", "--backend", "rllib", str(checkpoint), "--models-dir", str(models), "--name", "vec"]) == 0
    policy = load_policy(models / "vec", "standard")
    assert policy.config["hidden"] == [32]
    result = run_tournament([str(models / "vec"), "heuristic"], "standard", deals=8, progress=False)
    assert result.sets == 8


@pytest.mark.parametrize("name", ["rllib_local", "rllib_cluster", "rllib_standard"])
def test_configs_parse_and_pass_the_checks(name: str) -> None:
    launch = parse_args(["--config", str(ROOT / "configs/train" / f"{name}.toml")])
    assert check_args(launch.args).num_players == 4
    assert launch.args.env == ("multi-agent" if name == "rllib_standard" else "vector")
    assert tables_per_runner(launch.args) == launch.args.envs_per_runner
    default = parse_args([]).args
    assert default.env == "vector" and tables_per_runner(default) == 512
    assert tables_per_runner(parse_args(["--env", "multi-agent"]).args) == 4


def test_threads_flag_is_checked_and_parsed() -> None:
    """``--threads`` sets the torch threads of the driver's learner (0: torch's default); negative is refused."""
    from hearts_env.training.config import ConfigError

    assert parse_args([]).args.threads == 0
    assert parse_args(["--threads", "1"]).args.threads == 1
    with pytest.raises(ConfigError, match="--threads"):
        check_args(RLlibArgs(threads=-1))
