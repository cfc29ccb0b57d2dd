"""Networks, masked distributions, model export/loading (numpy only) and training checkpoints."""

from __future__ import annotations

import json
import random
from pathlib import Path

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from hearts_env import NUM_ACTIONS, Rules  # noqa: E402
from hearts_env.bots import ModelBot, load_bot  # noqa: E402
from hearts_env.nets import (  # noqa: E402
    CARD_FILE,
    MODEL_FORMAT,
    WEIGHTS_FILE,
    ModelError,
    NumpyPolicy,
    choose_action,
    load_policy,
    parameter_shapes,
    sha256_file,
    validate_config,
)
from hearts_env.training.checkpoint import load_checkpoint, save_checkpoint  # noqa: E402
from hearts_env.training.export import export_model  # noqa: E402
from hearts_env.training.network import (  # noqa: E402
    CARD_SEGMENTS,
    MLPNetwork,
    build_network,
    cardset_config,
    evaluate_actions,
    greedy_actions,
    masked_entropy,
    masked_log_probs,
    mlp_config,
    network_arrays,
    parameter_count,
    sample_actions,
)

# A small synthetic encoding: five 52-card planes at scattered offsets and 40 other entries.
OBS_DIM = 5 * 52 + 40
PLANES = [0, 52, 110, 162, 214]
ENC_VERSION = 7


def small_config(kind: str) -> dict:
    if kind == "mlp":
        return mlp_config(OBS_DIM, hidden=(32, 24))
    return cardset_config(OBS_DIM, card_planes=PLANES, card_dim=16, card_layers=2, hidden=(32,))


def make_net(kind: str, seed: int = 0) -> torch.nn.Module:
    """A network with weights scaled up from the (near-zero-head) init, so outputs are O(1..10)."""
    torch.manual_seed(seed)
    net = build_network(small_config(kind))
    with torch.no_grad():
        for p in net.parameters():
            p.add_(torch.randn_like(p) * 0.3)
    return net


def random_obs(n: int, dim: int = OBS_DIM, seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    x = (rng.random((n, dim)) < 0.3).astype(np.float32)
    x[:, -10:] = rng.normal(size=(n, 10)).astype(np.float32)  # some non-binary features too
    return x


def export(net: torch.nn.Module, tmp_path: Path, name: str = "m", rules: object = "standard") -> Path:
    return export_model(
        net,
        tmp_path / name,
        name=name,
        rules=rules,
        encoding_version=ENC_VERSION,
        obs_dim=OBS_DIM,
        training_info={"decisions": 1234, "wall_time_s": 5.5, "seed": 1},
        evaluation={"vs_heuristic": {"mean": 6.1, "ci95": [5.9, 6.3]}},
    )


def load(path: Path, rules: object = "standard", **kw: object) -> NumpyPolicy:
    kw.setdefault("encoding_version", ENC_VERSION)
    kw.setdefault("obs_dim", OBS_DIM)
    return load_policy(path, rules, **kw)  # type: ignore[arg-type]


def edit_card(path: Path, **changes: object) -> None:
    card = json.loads((path / CARD_FILE).read_text())
    card.update(changes)
    (path / CARD_FILE).write_text(json.dumps(card))


def rewrite_weights(path: Path, arrays: dict[str, np.ndarray], **savez_kw: object) -> None:
    """Replace the weights and re-record their size and hash (so only the content is wrong)."""
    weights = path / WEIGHTS_FILE
    with open(weights, "wb") as f:
        np.savez(f, **arrays, **savez_kw)
    edit_card(path, weights_bytes=weights.stat().st_size, weights_sha256=sha256_file(weights))


# ---------------------------------------------------------------------------------------------
# Networks: torch and numpy agree
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("kind", ["mlp", "cardset"])
def test_numpy_forward_equals_torch(kind: str) -> None:
    net = make_net(kind)
    assert {k: tuple(v.shape) for k, v in net.state_dict().items()} == parameter_shapes(net.config)
    policy = NumpyPolicy(net.config, network_arrays(net))
    x = random_obs(257)
    with torch.no_grad():
        logits, value = net(torch.from_numpy(x))
    np_logits, np_value = policy.forward(x)
    assert np_logits.shape == (257, NUM_ACTIONS) and np_value.shape == (257,)
    assert np_logits.dtype == np.float32
    assert np.abs(logits.numpy()).max() > 1.0  # the comparison is not between near-zero outputs
    np.testing.assert_allclose(np_logits, logits.numpy(), atol=1e-5, rtol=1e-5)
    np.testing.assert_allclose(np_value, value.numpy(), atol=1e-5, rtol=1e-5)
    one_logits, one_value = policy.forward(x[3])  # a single vector gives unbatched results
    np.testing.assert_allclose(one_logits, logits[3].numpy(), atol=1e-5, rtol=1e-5)
    assert np.ndim(one_value) == 0


def test_networks_stay_small_on_the_real_encoding() -> None:
    from hearts_env.obs import spec as encoding

    for config in (mlp_config(), cardset_config()):
        assert config["obs_dim"] == encoding.OBSERVATION_SIZE
        net = build_network(config)
        assert parameter_count(net) * 4 <= 2_000_000  # at most ~2 MB of float32 weights
    layout = cardset_config()
    covered = np.zeros(encoding.OBSERVATION_SIZE, int)
    for p in layout["card_planes"]:
        covered[p : p + 52] += 1
    for start, stop in layout["global_ranges"]:
        covered[start:stop] += 1
    assert (covered == 1).all()  # every entry is read exactly once
    assert len(layout["card_planes"]) == sum(s.rows for s in encoding.SEGMENTS if s.name in CARD_SEGMENTS)


def test_invalid_configs_are_refused() -> None:
    with pytest.raises(ValueError, match="kind"):
        validate_config({"kind": "transformer", "obs_dim": 10, "num_actions": 68, "hidden": [8]})
    with pytest.raises(ValueError, match="hidden"):
        validate_config({"kind": "mlp", "obs_dim": 10, "num_actions": 68, "hidden": []})
    with pytest.raises(ValueError, match="does not fit"):
        cardset_config(60, card_planes=[20])
    with pytest.raises(ValueError, match="overlap"):
        cardset_config(OBS_DIM, card_planes=[0, 26])


# ---------------------------------------------------------------------------------------------
# Masking
# ---------------------------------------------------------------------------------------------


def random_masks(n: int, seed: int) -> torch.Tensor:
    g = torch.Generator().manual_seed(seed)
    density = torch.rand(n, 1, generator=g)  # from nearly empty to nearly full
    mask = torch.rand(n, NUM_ACTIONS, generator=g) < density
    mask[torch.arange(n), torch.randint(0, NUM_ACTIONS, (n,), generator=g)] = True  # at least one legal
    return mask


def test_masked_sampling_never_picks_an_illegal_action() -> None:
    n = 20_000
    mask = random_masks(n, 0)
    g = torch.Generator().manual_seed(1)
    # adversarial logits: illegal actions get the largest values
    logits = torch.randn(n, NUM_ACTIONS, generator=g) * 5 + (~mask).float() * 1e6
    for actions in (sample_actions(logits, mask, g), greedy_actions(logits, mask)):
        assert mask[torch.arange(n), actions].all()
    logp = masked_log_probs(logits, mask)
    assert torch.isfinite(logp).all()
    assert torch.allclose(logp.exp().sum(-1), torch.ones(n), atol=1e-5)
    assert (logp.exp()[~mask] == 0).all()
    # numpy: greedy and sampled choices too
    rng = np.random.default_rng(2)
    np_logits, np_mask = logits.numpy(), mask.numpy()
    for i in range(2_000):
        assert np_mask[i, choose_action(np_logits[i], np_mask[i])]
        assert np_mask[i, choose_action(np_logits[i], np_mask[i], greedy=False, rng=rng)]
    with pytest.raises(ValueError, match="no legal action"):
        choose_action(np_logits[0], np.zeros(NUM_ACTIONS, np.int8))


def test_masked_sampling_follows_the_masked_softmax() -> None:
    logits = torch.tensor([[2.0, 1.0, 0.0, 5.0] + [0.0] * (NUM_ACTIONS - 4)]).repeat(40_000, 1)
    mask = torch.zeros_like(logits, dtype=torch.bool)
    mask[:, :3] = True
    actions = sample_actions(logits, mask, torch.Generator().manual_seed(0))
    freq = torch.bincount(actions, minlength=NUM_ACTIONS).float() / len(actions)
    want = torch.softmax(torch.tensor([2.0, 1.0, 0.0]), 0)
    assert torch.allclose(freq[:3], want, atol=0.01)
    assert freq[3:].sum() == 0


def test_masked_entropy_counts_only_legal_actions() -> None:
    mask = random_masks(500, 3)
    logits = torch.randn(500, NUM_ACTIONS, requires_grad=True)
    ent = masked_entropy(logits, mask)
    for i in range(0, 500, 37):
        p = torch.softmax(logits[i][mask[i]], 0)
        assert torch.allclose(ent[i], -(p * p.log()).sum(), atol=1e-5)
    ent.sum().backward()
    assert torch.isfinite(logits.grad).all()
    assert (logits.grad[~mask] == 0).all()
    one = torch.zeros(1, NUM_ACTIONS, dtype=torch.bool)
    one[0, 5] = True
    assert masked_entropy(torch.randn(1, NUM_ACTIONS), one).item() == 0.0


@pytest.mark.parametrize("kind", ["mlp", "cardset"])
def test_evaluate_actions_shapes(kind: str) -> None:
    net = make_net(kind)
    x = torch.from_numpy(random_obs(9))
    mask = random_masks(9, 4)
    actions = greedy_actions(net(x)[0], mask)
    log_prob, entropy, value = evaluate_actions(net, x, mask, actions)
    assert log_prob.shape == entropy.shape == value.shape == (9,)
    assert (log_prob <= 0).all() and torch.isfinite(log_prob).all()


# ---------------------------------------------------------------------------------------------
# Export and loading
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("kind", ["mlp", "cardset"])
def test_export_load_roundtrip(kind: str, tmp_path: Path) -> None:
    net = make_net(kind)
    path = export(net, tmp_path)
    assert sorted(p.name for p in path.iterdir()) == ["README.md", "model.json", "weights.npz"]
    assert [p.name for p in tmp_path.iterdir()] == ["m"]  # no staging directory left behind
    assert path.stat().st_mode & 0o777 == 0o755
    card = json.loads((path / CARD_FILE).read_text())
    assert card["format"] == MODEL_FORMAT and card["name"] == "m"
    assert Rules.from_dict(card["rules"]) == Rules.preset("standard")
    assert card["presets"] == ["standard"]
    assert card["encoding_version"] == ENC_VERSION and card["obs_dim"] == OBS_DIM
    assert card["network"] == net.config
    assert card["parameters"] == parameter_count(net)
    assert card["weights_sha256"] == sha256_file(path / WEIGHTS_FILE)
    assert card["training"]["decisions"] == 1234
    assert card["evaluation"]["vs_heuristic"]["ci95"] == [5.9, 6.3]
    assert "git_commit" in card
    assert "m" in (path / "README.md").read_text()
    # the weights are plain arrays: numpy reads them without pickle
    with np.load(path / WEIGHTS_FILE, allow_pickle=False) as npz:
        assert set(npz.files) == set(parameter_shapes(net.config))

    policy = load(path)
    x = random_obs(64, seed=5)
    with torch.no_grad():
        logits, value = net(torch.from_numpy(x))
    np.testing.assert_allclose(policy.logits(x), logits.numpy(), atol=1e-5, rtol=1e-5)
    np.testing.assert_allclose(policy.value(x), value.numpy(), atol=1e-5, rtol=1e-5)
    # Rules() spells the standard game differently ("auto", "total") but is the same game
    load(path, Rules())
    load(path, None)  # no rules asked: play the card's own

    with pytest.raises(FileExistsError):
        export(net, tmp_path)
    export_model(net, path, name="m", rules="standard", encoding_version=ENC_VERSION, obs_dim=OBS_DIM, overwrite=True)
    assert [p.name for p in tmp_path.iterdir()] == ["m"]


def test_model_bot_plays_legal_actions_greedy_and_seeded(tmp_path: Path) -> None:
    path = export(make_net("mlp"), tmp_path)
    policy = load(path)
    x = random_obs(50, seed=6)
    masks = random_masks(50, 7).numpy().astype(np.int8)
    greedy, sampled = ModelBot(policy), ModelBot(policy, seed=3, greedy=False)
    picks = []
    for obs, mask in zip(x, masks, strict=True):
        a = greedy.act({"observation": obs, "action_mask": mask})
        assert mask[a] and a == int(np.argmax(np.where(mask > 0, policy.logits(obs), -np.inf)))
        b = sampled.act({"observation": obs, "action_mask": mask})
        assert mask[b]
        picks.append(b)
    sampled.reset(3)
    again = [sampled.act({"observation": o, "action_mask": m}) for o, m in zip(x, masks, strict=True)]
    assert again == picks  # reset(seed) replays the same choices


def test_refuses_tampered_weights(tmp_path: Path) -> None:
    path = export(make_net("mlp"), tmp_path)
    weights = path / WEIGHTS_FILE
    data = bytearray(weights.read_bytes())
    data[len(data) // 2] ^= 0x01  # one flipped bit inside an array
    weights.write_bytes(bytes(data))
    with pytest.raises(ModelError, match=r"weights\.npz sha256 mismatch: the model card records '[0-9a-f]{64}'"):
        load(path)


def test_refuses_truncated_weights(tmp_path: Path) -> None:
    path = export(make_net("mlp"), tmp_path)
    weights = path / WEIGHTS_FILE
    weights.write_bytes(weights.read_bytes()[:-100])
    with pytest.raises(ModelError, match=r"weights\.npz is truncated or altered: it has \d+ bytes"):
        load(path)


def test_refuses_corrupt_weights_even_with_a_matching_hash(tmp_path: Path) -> None:
    path = export(make_net("mlp"), tmp_path)
    weights = path / WEIGHTS_FILE
    weights.write_bytes(b"not a zip file at all")
    edit_card(path, weights_bytes=weights.stat().st_size, weights_sha256=sha256_file(weights))
    with pytest.raises(ModelError, match=r"weights\.npz is corrupt"):
        load(path)


def test_refuses_pickled_arrays(tmp_path: Path) -> None:
    net = make_net("mlp")
    path = export(net, tmp_path)
    arrays: dict[str, np.ndarray] = dict(network_arrays(net))
    arrays["policy.bias"] = np.array([{"code": "would run on unpickle"}], dtype=object)
    rewrite_weights(path, arrays)
    with pytest.raises(ModelError, match=r"weights\.npz is corrupt"):
        load(path)


def test_refuses_missing_extra_and_misshapen_arrays(tmp_path: Path) -> None:
    net = make_net("cardset")
    path = export(net, tmp_path)
    arrays = network_arrays(net)

    rewrite_weights(path, {k: v for k, v in arrays.items() if k != "special.bias"})
    with pytest.raises(ModelError, match=r"lack arrays the network config needs: special\.bias"):
        load(path)

    rewrite_weights(path, {**arrays, "bonus.weight": np.zeros(3, np.float32)})
    with pytest.raises(ModelError, match=r"arrays the network config does not use: bonus\.weight"):
        load(path)

    rewrite_weights(path, {**arrays, "value.weight": np.zeros((1, 5), np.float32)})
    with pytest.raises(
        ModelError, match=r"array 'value.weight' has shape \(1, 5\), the network config needs \(1, 32\)"
    ):
        load(path)

    rewrite_weights(path, {**arrays, "value.bias": np.zeros(1, np.float64)})
    with pytest.raises(ModelError, match="has dtype float64, expected float32"):
        load(path)

    rewrite_weights(path, {**arrays, "value.bias": np.full(1, np.nan, np.float32)})
    with pytest.raises(ModelError, match="non-finite"):
        load(path)


def test_refuses_wrong_encoding_version(tmp_path: Path) -> None:
    path = export(make_net("mlp"), tmp_path)
    with pytest.raises(
        ModelError, match=r"encoding version mismatch: the model was trained on observation encoding version 7, "
    ):
        load(path, encoding_version=8)
    edit_card(path, encoding_version=6)
    with pytest.raises(ModelError, match="encoding version 6, this hearts_env encodes version 7"):
        load(path)


def test_refuses_wrong_obs_dim(tmp_path: Path) -> None:
    path = export(make_net("mlp"), tmp_path)
    with pytest.raises(ModelError, match=rf"observation size mismatch: the model expects obs_dim={OBS_DIM}, "):
        load(path, obs_dim=OBS_DIM + 1)
    edit_card(path, obs_dim=OBS_DIM + 1)
    with pytest.raises(ModelError, match="obs_dim mismatch inside the model card"):
        load(path)


def test_refuses_mismatched_rules(tmp_path: Path) -> None:
    path = export(make_net("mlp"), tmp_path)
    with pytest.raises(
        ModelError, match=r"rules mismatch: .*moon_mode: model 'subtract_from_shooter', asked 'add_to_others'"
    ):
        load(path, "microsoft")
    with pytest.raises(ModelError, match=r"rules mismatch: .*num_players: model 4, asked 5"):
        load(path, Rules.preset("standard", num_players=5))
    with pytest.raises(ModelError, match="rules mismatch"):
        load(path, Rules.preset("standard", queen_breaks_hearts=True))


def test_a_model_for_several_rule_sets(tmp_path: Path) -> None:
    path = export(make_net("mlp"), tmp_path, rules=[Rules.preset("standard"), Rules.preset("microsoft")])
    load(path, "standard")
    load(path, "microsoft")
    with pytest.raises(ModelError, match="rules mismatch"):
        load(path, "omnibus")


def test_refuses_what_is_not_a_model(tmp_path: Path) -> None:
    with pytest.raises(ModelError, match="not a model directory"):
        load(tmp_path / "nothing")
    (tmp_path / "empty").mkdir()
    with pytest.raises(ModelError, match=r"has no model\.json"):
        load(tmp_path / "empty")
    path = export(make_net("mlp"), tmp_path)
    edit_card(path, format="hearts_env.model/99")
    with pytest.raises(ModelError, match=r"unknown model format 'hearts_env\.model/99'"):
        load(path)
    (path / CARD_FILE).write_text("{truncated")
    with pytest.raises(ModelError, match=r"model\.json is unreadable"):
        load(path)


def test_export_and_play_a_deal_on_the_real_encoding(tmp_path: Path) -> None:
    from hearts_env.core.deal import Deal
    from hearts_env.obs import ENCODING_VERSION, OBSERVATION_SIZE, encode

    rules = Rules.preset("standard")
    for kind, config in (("mlp", mlp_config()), ("cardset", cardset_config())):
        torch.manual_seed(0)
        net = build_network(config)
        path = export_model(net, tmp_path / kind, name=kind, rules=rules)
        card = json.loads((path / CARD_FILE).read_text())
        assert (card["encoding_version"], card["obs_dim"]) == (ENCODING_VERSION, OBSERVATION_SIZE)
        bot = load_bot(path, rules)  # checks against the current encoding
        deal = Deal(rules, seed=11)
        observations = []
        while not deal.is_terminal():
            seat = deal.current_player
            mask = np.zeros(NUM_ACTIONS, np.int8)
            mask[deal.legal_actions()] = 1
            obs = encode(deal, seat)
            observations.append(obs)
            action = bot.act({"observation": obs, "action_mask": mask})
            assert mask[action]
            deal.apply_action(action)
        x = np.stack(observations)
        with torch.no_grad():
            logits, _ = net(torch.from_numpy(x))
        np.testing.assert_allclose(bot.policy.logits(x), logits.numpy(), atol=1e-5, rtol=1e-5)
        for i in (0, len(x) // 2, len(x) - 1):  # the single-vector (sparse) path the bot uses
            np.testing.assert_allclose(bot.policy.logits(x[i]), logits[i].numpy(), atol=1e-5, rtol=1e-5)
        with pytest.raises(ModelError, match="encoding version mismatch"):
            load_policy(path, rules, encoding_version=ENCODING_VERSION + 1)


# ---------------------------------------------------------------------------------------------
# Checkpoints
# ---------------------------------------------------------------------------------------------


def train_steps(net: torch.nn.Module, opt: torch.optim.Optimizer, gen: np.random.Generator, steps: int) -> list[float]:
    """A few optimizer steps whose data come from every random source a run uses."""
    losses = []
    for _ in range(steps):
        x = torch.from_numpy(random_obs(16, seed=int(gen.integers(1 << 30))))
        x = x + torch.randn_like(x) * 0.01 + float(np.random.rand()) + random.random()
        mask = random_masks(16, int(torch.randint(0, 1 << 30, ())))
        logits, value = net(x)
        actions = sample_actions(logits.detach(), mask)
        logp = masked_log_probs(logits, mask).gather(1, actions[:, None]).squeeze(1)
        loss = -(logp * value.detach()).mean() + value.pow(2).mean() - 0.01 * masked_entropy(logits, mask).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(loss.item())
    return losses


def seed_all(seed: int) -> None:
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)


def test_checkpoint_resume_matches_an_uninterrupted_run(tmp_path: Path) -> None:
    ckpt = tmp_path / "run" / "checkpoint.pt"
    args = {"lr": 1e-3, "hidden": (32, 24), "name": "t", "out": tmp_path}
    seed_all(0)
    net = build_network(small_config("cardset"))
    opt = torch.optim.Adam(net.parameters(), lr=1e-3)
    gen = np.random.default_rng(5)
    train_steps(net, opt, gen, 3)
    save_checkpoint(ckpt, model=net, optimizer=opt, args=args, update=3, generators={"env": gen}, extra={"pool": [1]})
    uninterrupted = train_steps(net, opt, gen, 3)
    final = {k: v.clone() for k, v in net.state_dict().items()}
    after = (random.random(), np.random.rand(), torch.rand(()).item(), gen.random())

    seed_all(123)  # a fresh process: different states everywhere
    net2 = build_network(small_config("cardset"))
    opt2 = torch.optim.Adam(net2.parameters(), lr=1e-3)
    gen2 = np.random.default_rng(999)
    record = load_checkpoint(ckpt, model=net2, optimizer=opt2, generators={"env": gen2})
    assert record["update"] == 3
    assert record["args"] == {"lr": 1e-3, "hidden": (32, 24), "name": "t", "out": str(tmp_path)}
    assert record["extra"] == {"pool": [1]}
    assert record["network"] == net2.config
    resumed = train_steps(net2, opt2, gen2, 3)
    assert resumed == uninterrupted
    for k, v in net2.state_dict().items():
        assert torch.equal(v, final[k]), k
    assert (random.random(), np.random.rand(), torch.rand(()).item(), gen2.random()) == after


def test_checkpoint_write_failure_keeps_the_old_one(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    ckpt = tmp_path / "checkpoint.pt"
    net = make_net("mlp")
    save_checkpoint(ckpt, model=net, optimizer=None, args={"a": 1}, update=1)
    before = ckpt.read_bytes()
    real_save = torch.save

    def dies_mid_write(obj: object, f: object, *a: object, **kw: object) -> None:
        f.write(b"PK\x03\x04 half a checkpoint")  # type: ignore[attr-defined]
        raise OSError("disk full")

    monkeypatch.setattr(torch, "save", dies_mid_write)
    with torch.no_grad():
        next(net.parameters()).add_(1.0)
    with pytest.raises(OSError, match="disk full"):
        save_checkpoint(ckpt, model=net, optimizer=None, args={"a": 2}, update=2)
    monkeypatch.setattr(torch, "save", real_save)
    assert ckpt.read_bytes() == before
    assert [p.name for p in tmp_path.iterdir()] == ["checkpoint.pt"]  # the temporary file is gone
    record = load_checkpoint(ckpt, model=build_network(small_config("mlp")), restore_rng=False)
    assert record["update"] == 1 and record["args"] == {"a": 1}


def test_checkpoint_refuses_damage_and_mismatch(tmp_path: Path) -> None:
    ckpt = tmp_path / "checkpoint.pt"
    save_checkpoint(ckpt, model=make_net("mlp"), optimizer=None, args={}, update=0)
    with pytest.raises(ValueError, match="network config"):
        load_checkpoint(ckpt, model=build_network(mlp_config(OBS_DIM, hidden=(8,))))
    ckpt.write_bytes(ckpt.read_bytes()[:200])
    with pytest.raises(ValueError, match="not a valid checkpoint"):
        load_checkpoint(ckpt)
    with pytest.raises(TypeError, match="cannot store"):
        save_checkpoint(ckpt, model=make_net("mlp"), optimizer=None, args={"f": object()}, update=0)


@pytest.mark.parametrize("num_players", [3, 4, 6])
def test_mlp_reading_live_columns_equals_the_full_network(num_players: int) -> None:
    """``build_network(config, N)`` skips the padded seats' entries: same outputs, same gradients on
    every weight (the skipped columns get none either way), same exported parameters."""
    from hearts_env.batched import BatchedHearts, UniformRandomPolicy
    from hearts_env.obs import live_columns

    engine = BatchedHearts(Rules.preset("standard", num_players=num_players), 32, seed=num_players)
    policy = UniformRandomPolicy(engine.device, seed=1)
    observations = []
    for _ in range(40):
        observations.append(engine.observe())
        engine.step(policy(engine))
    obs = torch.cat(observations)
    config = mlp_config(hidden=(32, 24))
    torch.manual_seed(0)
    full = build_network(config)
    live = build_network(config, num_players)
    live.load_state_dict(full.state_dict())
    assert live.input_columns is not None and len(live.input_columns) == len(live_columns(num_players))
    assert live.input_size == len(live_columns(num_players)) and full.input_size == obs.shape[1]
    compact = live.select_inputs(obs)  # what training stores: forward reads it the same
    assert compact.shape == (obs.shape[0], live.input_size)
    outputs = [net(obs) for net in (full, live)]
    for a, b, c in zip(outputs[0], outputs[1], live(compact), strict=True):
        torch.testing.assert_close(a, b, atol=1e-5, rtol=1e-5)
        torch.testing.assert_close(b, c)
    for logits, value in outputs:
        (logits.square().sum() + value.sum()).backward()
    for (name, a), b in zip(full.named_parameters(), live.parameters(), strict=True):
        torch.testing.assert_close(a.grad, b.grad, atol=1e-4, rtol=1e-5, msg=name)
    dead = np.setdiff1d(np.arange(obs.shape[1]), live_columns(num_players))
    assert not full.layers[0].weight.grad[:, dead].any()
    assert set(live.state_dict()) == set(full.state_dict())  # the column list is derived, not saved


def test_mlp_input_columns_out_of_range_are_refused() -> None:
    with pytest.raises(ValueError, match="input_columns"):
        MLPNetwork(mlp_config(OBS_DIM, hidden=(8,)), input_columns=[0, OBS_DIM])


def test_refuses_a_card_whose_num_actions_contradicts_its_network(tmp_path: Path) -> None:
    path = export(make_net("mlp"), tmp_path)
    edit_card(path, num_actions=10)
    with pytest.raises(ModelError, match=r"num_actions mismatch inside the model card: num_actions=10, network"):
        load(path)
    card = json.loads((path / CARD_FILE).read_text())
    del card["num_actions"]
    (path / CARD_FILE).write_text(json.dumps(card))
    with pytest.raises(ModelError, match="num_actions mismatch inside the model card: num_actions=None"):
        load(path)


def test_rules_that_change_neither_observation_nor_play_do_not_count(tmp_path: Path) -> None:
    from hearts_env.nets import rules_difference

    path = export(make_net("mlp"), tmp_path)
    standard = Rules.preset("standard")
    load(path, Rules.preset("standard", first_dealer=2))  # who deals first
    load(path, Rules.preset("standard", bonus_card_points=-5))  # a bonus card's points, with no bonus card
    load(path, Rules.preset("standard", kitty_taker="one_card_per_trick"))  # a kitty taker, with no kitty
    assert rules_difference(standard, Rules.preset("standard", first_dealer=0)) == []
    # ... but every option the observation or the play depends on still does
    for changed in (
        {"bonus_card": "JD", "bonus_card_points": -5},
        {"dealer_rotation": "counterclockwise"},
        {"sun_value": 40},
        {"pass_cycle": ["left", "right"]},
    ):
        with pytest.raises(ModelError, match="rules mismatch"):
            load(path, Rules.preset("standard", **changed))
    kitty = Rules.preset("three_player_kitty")
    assert rules_difference(kitty, kitty.replace(kitty_taker="one_card_per_trick"))
    no_pass = Rules.preset("standard", passing_enabled=False)
    assert rules_difference(no_pass, no_pass.replace(pass_count=2)) == []
    assert rules_difference(standard, standard.replace(pass_count=2))


def test_ignored_rule_options_are_not_in_the_observation() -> None:
    from hearts_env.nets import IGNORED_OPTIONS
    from hearts_env.obs import rules_block

    standard = Rules.preset("standard")
    assert {"first_dealer"} == IGNORED_OPTIONS
    for rules in (
        standard.replace(first_dealer=1),
        standard.replace(bonus_card_points=-3),
        standard.replace(kitty_taker="first_penalty_taker"),
        standard.replace(passing_enabled=False).replace(pass_count=1),
    ):
        base = standard.replace(passing_enabled=False) if not rules.passing_enabled else standard
        for match in (False, True):
            assert np.array_equal(rules_block(rules, match), rules_block(base, match))


def test_mlp_inference_follows_every_weight_change() -> None:
    """Without gradients the live-column MLP keeps its selected first-layer weights between calls; an
    optimizer step or a load must still show in the very next output."""
    config = mlp_config(hidden=(16,))
    torch.manual_seed(3)
    net = build_network(config, 4)
    obs = torch.rand(5, net.config["obs_dim"])
    with torch.no_grad():
        before = net(obs)[0]
    optimizer = torch.optim.SGD(net.parameters(), lr=0.5)
    net(obs)[0].square().sum().backward()
    optimizer.step()
    with torch.no_grad():
        stepped = net(obs)[0]
    fresh = build_network(config, 4)
    fresh.load_state_dict(net.state_dict())
    with torch.no_grad():
        torch.testing.assert_close(stepped, fresh(obs)[0])
    assert not torch.allclose(before, stepped)
    net.load_state_dict(build_network(config, 4).state_dict())  # new weights copied in place
    with torch.no_grad():
        assert not torch.allclose(stepped, net(obs)[0])


def test_an_mlp_reading_live_columns_exports_the_function_it_computes(tmp_path: Path) -> None:
    """A network that reads only ``input_columns`` ignores the other first-layer columns, which may
    hold anything (a fine-tuned model inherits them); the export writes them as zeros, so the numpy
    model equals the torch network on every input, not only on real observations."""
    net = build_network(mlp_config(hidden=[16]), 4)
    assert net.input_columns is not None and net.input_columns.numel() < net.config["obs_dim"]
    with torch.no_grad():
        net.layers[0].weight.normal_()  # every column nonzero, the dead ones included
    path = export_model(net, tmp_path / "m", name="m", rules="standard")  # its own check passes
    arrays = network_arrays(net)
    dead = np.ones(net.config["obs_dim"], dtype=bool)
    dead[net.input_columns.numpy()] = False
    assert not arrays["layers.0.weight"][:, dead].any()
    x = np.random.default_rng(1).random((8, net.config["obs_dim"]), dtype=np.float32)
    with torch.no_grad():
        logits, _ = net(torch.from_numpy(x))
    np_logits, _ = load_policy(path, "standard").forward(x)
    assert np.allclose(np_logits, logits.numpy(), atol=1e-4)
