"""``HeartsVectorEnv`` (``hearts_env.envs.vector``): the Gymnasium vector env on the batched engine.

Checked: the spaces and the returned data (the vector-env parts of ``gymnasium.utils.env_checker``:
observations in the space, seeded reset and step determinism, no reuse of returned arrays), masks
never all False through many autoresets (the crash of an all-zero mask after autoreset), every
sub-env's observations, masks and rewards equal to ``HeartsGymEnv``'s on the same seeded deals
(``reset(seed=[...])`` deals ``seeded_deal(rules, s_i)``), rewards at a deal's end equal to minus the
learner's deal points, the illegal-action modes, torch arrays, opponents (heuristic, random, an
exported model, a torch module, a per-seat mixture) and ``gymnasium.make_vec``.
"""

from __future__ import annotations

import gymnasium
import numpy as np
import pytest
import torch

from hearts_env.batched import BatchedActionError, HeuristicPolicy, sample_uniform
from hearts_env.core.errors import NotResetError
from hearts_env.core.rules import Rules
from hearts_env.envs import HeartsGymEnv
from hearts_env.envs.vector import HeartsVectorEnv, RecordEpisodeStatistics
from hearts_env.obs import OBSERVATION_SIZE

pytestmark = pytest.mark.usefixtures("one_torch_thread")


def _random_actions(info: dict, generator: torch.Generator) -> torch.Tensor:
    mask = torch.as_tensor(info["action_mask"])
    assert mask.shape[1] == 68
    assert bool(mask.any(1).all()), "a sub-env has an all-False action mask"
    return sample_uniform(mask, generator)


def test_spaces_reset_and_step_shapes() -> None:
    env = HeartsVectorEnv(6, "standard")
    assert env.metadata["autoreset_mode"] == gymnasium.vector.AutoresetMode.SAME_STEP
    assert env.single_action_space == gymnasium.spaces.Discrete(68)
    assert env.action_space.shape == (6,)
    assert env.observation_space.shape == (6, OBSERVATION_SIZE)
    obs, info = env.reset(seed=0)
    assert obs.dtype == np.float32 and obs.shape == (6, OBSERVATION_SIZE)
    assert env.observation_space.contains(obs)
    assert info["action_mask"].dtype == bool and info["action_mask"].shape == (6, 68)
    assert np.array_equal(env.action_masks(), info["action_mask"])
    assert (info["seat"] == 0).all()
    gen = torch.Generator().manual_seed(0)
    obs2, reward, terminated, truncated, info = env.step(_random_actions(info, gen))
    assert reward.shape == terminated.shape == truncated.shape == (6,)
    assert terminated.dtype == bool and not truncated.any()
    assert obs2 is not obs and not np.shares_memory(obs, obs2)  # returned data is not reused
    assert env.observation_space.contains(obs2)
    env.action_space.seed(0)
    with pytest.raises(NotResetError, match="call reset"):  # the envs' own error for a call out of order
        HeartsVectorEnv(2).step(np.zeros(2, np.int64))
    with pytest.raises(NotResetError, match="call reset"):
        HeartsVectorEnv(2).action_masks()


@pytest.mark.parametrize("rules", ["standard", "omnibus", "three_player_kitty", "five_player", "spot_hearts"])
def test_masks_never_empty_in_a_long_random_loop(rules: str) -> None:
    """A masked random loop over many deals and autoresets never sees an empty mask."""
    env = HeartsVectorEnv(16, rules, seat="random", opponents="random")
    obs, info = env.reset(seed=1)
    gen = torch.Generator().manual_seed(1)
    episodes = 0
    n = Rules.load(rules).num_players
    for _ in range(160):
        obs, reward, terminated, _truncated, info = env.step(_random_actions(info, gen))
        assert np.isfinite(obs).all()
        assert ((info["seat"] >= 0) & (info["seat"] < n)).all()
        if terminated.any():
            episodes += int(terminated.sum())
            final = info["final_info"]
            assert np.array_equal(info["_final_obs"], terminated)
            assert np.allclose(reward[terminated], -final["points"][terminated])
            assert np.array_equal(
                final["points"][terminated],
                final["scores"][terminated, final["seat"][terminated]],
            )
        assert np.all(reward[~terminated] == 0)
    assert episodes >= 16


def _play_rows(env: HeartsVectorEnv, seeds: list[int], steps: int, seed: int = 5):
    """Random masked play from ``reset(seed=seeds)``: per row, its first episode's observations, masks,
    actions and reward sum."""
    obs, info = env.reset(seed=seeds)
    gen = torch.Generator().manual_seed(seed)
    b = env.num_envs
    record = [{"obs": [], "mask": [], "actions": [], "reward": 0.0, "done": False} for _ in range(b)]
    for _ in range(steps):
        actions = _random_actions(info, gen)
        for i in range(b):
            if not record[i]["done"]:
                record[i]["obs"].append(obs[i].copy())
                record[i]["mask"].append(info["action_mask"][i].copy())
                record[i]["actions"].append(int(actions[i]))
        obs, reward, terminated, _, info = env.step(actions)
        for i in range(b):
            if not record[i]["done"]:
                record[i]["reward"] += float(reward[i])
                record[i]["done"] = bool(terminated[i])
                if terminated[i]:
                    assert np.array_equal(info["final_obs"][i], record[i]["obs"][-1])
        if all(r["done"] for r in record):
            break
    assert all(r["done"] for r in record)
    return record


@pytest.mark.parametrize(
    ("rules", "seat", "opponents", "options"),
    [
        ("standard", 0, "heuristic", {}),
        ("standard", 2, "heuristic", {"reward_scale": 0.1}),
        ("omnibus", 1, "heuristic", {"zero_sum": True}),
        ("three_player", 2, "heuristic", {}),
    ],
)
def test_equal_to_the_gym_env_on_the_same_seeds(rules: str, seat: int, opponents: str, options: dict) -> None:
    """Every observation, mask and the episode's reward sum of each sub-env equal ``HeartsGymEnv``'s
    played with the same learner actions on the same seeded deal (the reference engine and bots)."""
    seeds = [11, 12, 13, 14, 15, 16]
    env = HeartsVectorEnv(len(seeds), rules, seat=seat, opponents=opponents, **options)
    record = _play_rows(env, seeds, 200)
    for i, s in enumerate(seeds):
        ref = HeartsGymEnv(rules, seat=seat, opponents=opponents, **options)
        obs, info = ref.reset(seed=s)
        total = 0.0
        for t, action in enumerate(record[i]["actions"]):
            assert np.array_equal(obs, record[i]["obs"][t]), f"row {i} step {t}: observations differ"
            assert np.array_equal(info["action_mask"], record[i]["mask"][t]), f"row {i} step {t}: masks differ"
            obs, reward, terminated, _, info = ref.step(action)
            total += reward
            assert terminated == (t == len(record[i]["actions"]) - 1)
        assert total == pytest.approx(record[i]["reward"], abs=1e-5)


def test_seeded_reset_is_reproducible() -> None:
    def run() -> list[np.ndarray]:
        env = HeartsVectorEnv(8, "standard", seat="random", opponents=["random", "heuristic", "random"])
        obs, info = env.reset(seed=42)
        gen = torch.Generator().manual_seed(0)
        out = [obs, info["seat"]]
        for _ in range(40):
            obs, reward, terminated, _, info = env.step(_random_actions(info, gen))
            out += [obs, reward, terminated, info["seat"]]
        return out

    first, second = run(), run()
    assert all(np.array_equal(a, b) for a, b in zip(first, second, strict=True))
    env = HeartsVectorEnv(8, "standard")
    a, _ = env.reset(seed=1)
    b, _ = env.reset(seed=2)
    assert not np.array_equal(a, b)


def test_illegal_actions_raise_or_terminate() -> None:
    env = HeartsVectorEnv(4, "standard")
    _, info = env.reset(seed=0)
    actions = info["action_mask"].argmax(1)
    illegal = int(np.flatnonzero(~info["action_mask"][2])[0])
    bad = actions.copy()
    bad[2] = illegal
    with pytest.raises(BatchedActionError) as err:
        env.step(bad)
    assert err.value.rows == [2] and "row 2" in str(err.value) and "legal:" in str(err.value)
    env.step(actions)  # the state was unchanged: legal actions still step
    with pytest.raises(ValueError):
        env.step(np.zeros(3, np.int64))
    with pytest.raises(ValueError):
        env.step(np.zeros(4, np.float32))

    env = HeartsVectorEnv(4, "standard", illegal_action="terminate")
    _, info = env.reset(seed=0)
    bad = info["action_mask"].argmax(1)
    bad[1] = 99
    _obs, reward, terminated, _, info = env.step(bad)
    assert terminated[1] and reward[1] == -26.0 and info["illegal_action"][1]
    assert not info["illegal_action"][[0, 2, 3]].any()
    assert info["action_mask"].any(1).all()
    assert int(env.engine.state.trick_number[1]) == 0  # a fresh deal, at the learner's first decision


def test_torch_arrays() -> None:
    env = HeartsVectorEnv(4, "standard", array_type="torch")
    obs, info = env.reset(seed=0)
    assert isinstance(obs, torch.Tensor) and obs.dtype == torch.float32
    assert isinstance(info["action_mask"], torch.Tensor) and info["action_mask"].dtype == torch.bool
    obs, reward, terminated, truncated, info = env.step(sample_uniform(info["action_mask"]))
    assert all(isinstance(x, torch.Tensor) for x in (obs, reward, terminated, truncated))
    assert isinstance(env.action_masks(), torch.Tensor)


class _TinyNet(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        torch.manual_seed(0)
        self.linear = torch.nn.Linear(OBSERVATION_SIZE, 68)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.linear(x)


@pytest.mark.parametrize(
    "opponents",
    [
        "heuristic",
        "random",
        "models/ppo-standard",
        _TinyNet(),
        ["heuristic", "random", _TinyNet()],
        HeuristicPolicy(),
    ],
    ids=["heuristic", "random", "model", "module", "mixed", "batch-policy"],
)
def test_opponents(opponents) -> None:
    env = HeartsVectorEnv(8, "standard", seat="random", opponents=opponents)
    _, info = env.reset(seed=3)
    gen = torch.Generator().manual_seed(3)
    done = 0
    for _ in range(30):
        _, _reward, terminated, _, info = env.step(_random_actions(info, gen))
        done += int(terminated.sum())
    assert done >= 8


def test_exported_model_opponent_plays_like_its_bot() -> None:
    """A model opponent is the model bot's greedy choice: equal to ``HeartsGymEnv`` with the same model."""
    seeds = [3, 4]
    env = HeartsVectorEnv(2, "standard", opponents="models/ppo-standard")
    record = _play_rows(env, seeds, 60)
    for i, s in enumerate(seeds):
        ref = HeartsGymEnv("standard", opponents="models/ppo-standard")
        obs, _ = ref.reset(seed=s)
        total = 0.0
        for t, action in enumerate(record[i]["actions"]):
            assert np.array_equal(obs, record[i]["obs"][t])
            obs, reward, _, _, _ = ref.step(action)
            total += reward
        assert total == pytest.approx(record[i]["reward"])


def test_bad_options() -> None:
    with pytest.raises(TypeError, match="per-decision"):
        HeartsVectorEnv(2, opponents=object())
    with pytest.raises(ValueError, match="seat"):
        HeartsVectorEnv(2, seat=4)
    with pytest.raises(ValueError, match="opponents"):
        HeartsVectorEnv(2, opponents=["heuristic"])
    with pytest.raises(NotImplementedError):
        HeartsVectorEnv(2, episode="match")
    with pytest.raises(ValueError, match="array_type"):
        HeartsVectorEnv(2, array_type="jax")
    with pytest.raises(ValueError, match="seeds"):
        HeartsVectorEnv(2).reset(seed=[1, 2, 3])


def test_make_vec_and_record_episode_statistics() -> None:
    import hearts_env.envs  # noqa: F401  (registers hearts_env/HeartsVector-v0)

    env = gymnasium.make_vec("hearts_env/HeartsVector-v0", num_envs=4, opponents="random")
    assert isinstance(env, HeartsVectorEnv) and env.num_envs == 4
    env = gymnasium.make_vec("hearts_env/HeartsVector-v0", num_envs=3, rules="three_player")
    assert isinstance(env, HeartsVectorEnv) and env.num_players == 3
    env = RecordEpisodeStatistics(env)
    _, info = env.reset(seed=0)
    gen = torch.Generator().manual_seed(0)
    steps, summed = np.zeros(3, dtype=int), np.zeros(3)
    lengths, returns = [], []
    for _ in range(60):
        _, reward, terminated, _, info = env.step(_random_actions(info, gen))
        steps += 1
        summed += np.asarray(reward)
        if "episode" in info:
            rows = np.flatnonzero(info["_episode"])
            assert np.array_equal(rows, np.flatnonzero(terminated))
            assert np.array_equal(info["episode"]["l"][rows], steps[rows])  # every step of each episode, counted
            np.testing.assert_allclose(info["episode"]["r"][rows], summed[rows])
            lengths += list(steps[rows])
            returns += list(summed[rows])
            steps[rows], summed[rows] = 0, 0.0
    assert len(lengths) >= 6 and all(r <= 0 for r in returns)  # rows' second and later episodes included
    assert list(env.length_queue) == lengths and env.episode_count == len(lengths)
    with pytest.raises(ValueError, match="SAME_STEP"):
        RecordEpisodeStatistics(gymnasium.make_vec("CartPole-v1", num_envs=2, vectorization_mode="sync"))


def _legal_choice(mask: np.ndarray) -> np.ndarray:
    """A deterministic legal action per row: the highest legal action id."""
    return (mask.shape[1] - 1 - np.argmax(mask[:, ::-1], axis=1)).astype(np.int64)


@pytest.mark.parametrize("rules", ["standard", "three_player"])
def test_next_step_autoreset_shows_the_same_deals_one_step_later(rules: str) -> None:
    """``autoreset_mode="next_step"`` on a fixed seat: every row's deals end at the same steps, so the
    stream with the step after each end removed equals ``SAME_STEP``'s exactly; the ended step shows the
    learner's last decision (``SAME_STEP``'s ``final_obs``), the next one the next deal's start, reward 0,
    not terminated, its action ignored (even an illegal one)."""
    same = HeartsVectorEnv(5, rules, seat=1)
    nxt = HeartsVectorEnv(5, rules, seat=1, autoreset_mode="next_step")
    assert same.metadata["autoreset_mode"] == gymnasium.vector.AutoresetMode.SAME_STEP
    assert nxt.metadata["autoreset_mode"] == gymnasium.vector.AutoresetMode.NEXT_STEP
    assert type(nxt).metadata["autoreset_mode"] == gymnasium.vector.AutoresetMode.SAME_STEP  # per instance
    obs_s, info_s = same.reset(seed=11)  # one seed: every row's deal has the same pass kind
    obs_n, info_n = nxt.reset(seed=11)
    np.testing.assert_array_equal(obs_s, obs_n)
    ends = 0
    for _ in range(60):
        actions = _legal_choice(info_s["action_mask"])
        obs_s, rew_s, term_s, _, info_s = same.step(actions)
        obs_n, rew_n, term_n, trunc_n, info_n = nxt.step(actions)
        np.testing.assert_array_equal(rew_s, rew_n)
        np.testing.assert_array_equal(term_s, term_n)
        assert not trunc_n.any()
        if not term_s.any():
            np.testing.assert_array_equal(obs_s, obs_n)
            np.testing.assert_array_equal(info_s["action_mask"], info_n["action_mask"])
            continue
        assert term_s.all(), "a fixed seat's deals all end at the same step"
        ends += 1
        assert "final_obs" not in info_n and info_n["_final_info"].all()
        np.testing.assert_array_equal(obs_n, info_s["final_obs"])  # the learner's last decision of the deal
        np.testing.assert_array_equal(info_n["final_info"]["scores"], info_s["final_info"]["scores"])
        assert info_n["action_mask"].any(1).all()
        np.testing.assert_array_equal(nxt.action_masks(), info_n["action_mask"])
        illegal = np.where(info_s["action_mask"][:, 0], 67, 0)  # ignored: the rows only show the next deal
        obs_n, rew_n, term_n, _, info_n = nxt.step(illegal)
        assert not term_n.any() and (rew_n == 0).all()
        np.testing.assert_array_equal(obs_n, obs_s)
        np.testing.assert_array_equal(info_n["action_mask"], info_s["action_mask"])
    assert ends >= 2


def test_next_step_autoreset_with_random_seats_and_mixed_opponents() -> None:
    """Random seats (deals ending at different steps, so rows move while others show a fresh deal): every
    ended row shows its next deal one step later with reward 0, rewards come only with a deal's end and equal
    minus the learner's deal points, and every action taken is legal under the mask shown."""
    env = HeartsVectorEnv(
        7, "standard", seat="random", opponents=["heuristic", "random", "heuristic"], autoreset_mode="next_step"
    )
    _, info = env.reset(seed=4)
    held = np.zeros(7, bool)
    gen = torch.Generator().manual_seed(0)
    deals = 0
    for _ in range(150):
        actions = _random_actions(info, gen).numpy()
        _, rewards, term, _, info = env.step(actions)
        assert not (term & held).any() and (rewards[held] == 0).all()
        assert (rewards[~term] == 0).all()
        if term.any():
            points = info["final_info"]["points"]
            np.testing.assert_allclose(rewards[term], -points[term])
            deals += int(term.sum())
        held = term
    assert deals >= 7
    with pytest.raises(ValueError, match="autoreset_mode"):
        HeartsVectorEnv(2, "standard", autoreset_mode="disabled")
