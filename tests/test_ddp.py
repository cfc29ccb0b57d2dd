"""Data-parallel PPO (``training.distributed``): two gloo ranks on the CPU average their gradients to
exactly one process's gradient on the union of their batches, start from rank 0's weights, and agree on
the counts that keep their steps in lockstep; ``hearts train`` under ``torchrun`` with two ranks runs,
rank 0 alone writing."""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
from pathlib import Path

import pytest
import torch
import torch.multiprocessing as mp

from hearts_env.obs import OBSERVATION_SIZE
from hearts_env.training.distributed import Distributed, check_share, setup
from hearts_env.training.network import build_network, mlp_config

ROOT = Path(__file__).resolve().parents[1]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _batch() -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    g = torch.Generator().manual_seed(5)
    obs = torch.rand(64, OBSERVATION_SIZE, generator=g)
    actions = torch.randint(0, 68, (64,), generator=g)
    returns = torch.randn(64, generator=g)
    return obs, actions, returns


def _loss(net: torch.nn.Module, obs: torch.Tensor, actions: torch.Tensor, returns: torch.Tensor) -> torch.Tensor:
    logits, value = net(obs)
    policy = torch.nn.functional.cross_entropy(logits, actions)
    return policy + 0.5 * ((value - returns) ** 2).mean()


def _rank(rank: int, world: int, port: int, out: str) -> None:
    os.environ.update(MASTER_ADDR="127.0.0.1", MASTER_PORT=str(port), RANK=str(rank), WORLD_SIZE=str(world))
    os.environ["LOCAL_RANK"] = str(rank)
    torch.set_num_threads(1)
    ddp = setup("cpu")
    try:
        torch.manual_seed(100 + rank)  # different starts: the broadcast makes them rank 0's
        net = build_network(mlp_config(hidden=[16]), 4)
        ddp.broadcast([net, None])
        obs, actions, returns = _batch()
        half = slice(rank * 32, (rank + 1) * 32)
        _loss(net, obs[half], actions[half], returns[half]).backward()
        ddp.average_gradients(net.parameters())
        torch.save(
            {
                "weights": {k: v.clone() for k, v in net.state_dict().items()},
                "grads": {k: p.grad.clone() for k, p in net.named_parameters()},
                "minimum": ddp.minimum(10 + rank),
                "others": ddp.others(3 + rank),
                "mean": ddp.mean(float(rank)),
                "seed": ddp.seed(7),
                "share": ddp.share(64),
            },
            Path(out) / f"rank{rank}.pt",
        )
    finally:
        ddp.close()


def test_two_gloo_ranks_average_to_the_gradient_on_the_union(tmp_path: Path) -> None:
    mp.start_processes(_rank, args=(2, _free_port(), str(tmp_path)), nprocs=2, join=True, start_method="spawn")
    got = [torch.load(tmp_path / f"rank{r}.pt") for r in range(2)]
    torch.manual_seed(100)  # rank 0's start
    net = build_network(mlp_config(hidden=[16]), 4)
    for k, v in net.state_dict().items():
        assert torch.equal(got[0]["weights"][k], v) and torch.equal(got[1]["weights"][k], v)
    _loss(net, *_batch()).backward()  # one process, the union of both batches (equal halves: the mean of means)
    for name, p in net.named_parameters():
        for rank in range(2):
            torch.testing.assert_close(got[rank]["grads"][name], p.grad, rtol=1e-5, atol=1e-6)
    assert [g["minimum"] for g in got] == [10, 10]
    assert [g["others"] for g in got] == [4, 3]
    assert [g["mean"] for g in got] == [0.5, 0.5]
    assert got[0]["seed"] == 7 and got[1]["seed"] != 7
    assert [g["share"] for g in got] == [32, 32]


def test_one_rank_is_a_plain_run(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("WORLD_SIZE", raising=False)
    ddp = setup("cpu")
    assert ddp == Distributed() and ddp.is_main and not ddp.active
    net = build_network(mlp_config(hidden=[8]), 4)
    _loss(net, *_batch()).backward()
    before = {k: p.grad.clone() for k, p in net.named_parameters()}
    ddp.average_gradients(net.parameters())
    assert all(torch.equal(before[k], p.grad) for k, p in net.named_parameters())
    assert (ddp.minimum(5), ddp.others(5), ddp.mean(2.0), ddp.seed(3), ddp.share(10)) == (5, 0, 2.0, 3, 10)
    assert check_share(10, 1) is None and check_share(64, 2) is None
    assert "split evenly" in str(check_share(65, 2))


@pytest.mark.slow
def test_hearts_train_under_torchrun_with_two_gloo_ranks(tmp_path: Path) -> None:
    """``torchrun --nproc_per_node 2 -m hearts_env train``: the smoke settings on two CPU ranks, half the tables
    each; rank 0 alone writes one metrics line per update, counting both ranks' decisions, and the checkpoint;
    the run resumes under torchrun as a plain run does."""
    torchrun = shutil.which("torchrun") or str(Path(sys.executable).with_name("torchrun"))
    runs = tmp_path / "runs"
    common = ["--standalone", "--nproc_per_node", "2", "-m", "hearts_env", "train"]
    settings = ["--config", str(ROOT / "configs/train/smoke.toml"), "--num-envs", "32", "--num-steps", "32"]
    settings += ["--eval-every", "0", "--eval-deals", "16", "--progress", "false", "--threads", "1"]
    env = {**os.environ, "PYTHONPATH": str(ROOT), "OMP_NUM_THREADS": "1"}
    first = [*settings, "--total-decisions", "4096", "--runs-dir", str(runs), "--run-name", "ddp"]
    done = subprocess.run([torchrun, *common, *first], capture_output=True, text=True, timeout=600, env=env)
    assert done.returncode == 0, done.stderr[-3000:]
    run = runs / "ddp"
    metrics = [json.loads(line) for line in (run / "metrics.jsonl").read_text().splitlines()]
    assert [m["update"] for m in metrics] == [1, 2, 3, 4]  # 4096 decisions / (2 ranks x 16 tables x 32 steps)
    assert [m["decisions"] for m in metrics] == [1024, 2048, 3072, 4096]
    assert all(m["learner_decisions"] > 0 for m in metrics) and (run / "checkpoint.pt").is_file()
    more = ["--resume", str(run), "--total-decisions", "6144"]
    done = subprocess.run([torchrun, *common, *more], capture_output=True, text=True, timeout=600, env=env)
    assert done.returncode == 0, done.stderr[-3000:]
    metrics = [json.loads(line) for line in (run / "metrics.jsonl").read_text().splitlines()]
    assert [m["update"] for m in metrics] == [1, 2, 3, 4, 5, 6]


def test_reseed_gives_every_stream_a_fresh_start_that_depends_on_the_seed_alone() -> None:
    """A resumed rank other than 0 reseeds its streams: the same seed gives the same draws whatever they were
    before, another seed other draws (so a resume never replays the tables of the run's start)."""
    import numpy as np

    from hearts_env.training.distributed import reseed

    def draws(before: int, seed: int) -> tuple[float, float]:
        streams = {"sampler": torch.Generator().manual_seed(before), "tables": np.random.default_rng(before)}
        reseed(streams, seed)
        return float(torch.rand(1, generator=streams["sampler"])), float(streams["tables"].random())

    assert draws(1, 5) == draws(2, 5)
    assert draws(1, 5)[0] != draws(1, 6)[0] and draws(1, 5)[1] != draws(1, 6)[1]
