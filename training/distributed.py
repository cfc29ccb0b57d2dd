"""Data-parallel PPO with ``torch.distributed``: ``torchrun --nproc_per_node N -m hearts_env.cli.main train ...``
(or ``torchrun ... $(which hearts) train ...``), one process per rank, each with its own batched engine on its
own device and its own share of the tables; their gradients are averaged before every optimizer step, so
the ranks' networks stay equal. Multi-node runs use torchrun's rendezvous (``--nnodes``, ``--rdzv-backend
c10d``, ``--rdzv-endpoint HOST:PORT``).

``setup`` reads torchrun's environment (``RANK``, ``WORLD_SIZE``, ``LOCAL_RANK``, ``MASTER_ADDR``/``PORT``)
and starts the process group: NCCL on CUDA, gloo on the CPU. Without torchrun (``WORLD_SIZE`` unset or 1)
it starts nothing and every helper is a no-op, so one rank is exactly a plain run. Only rank 0 writes
(checkpoints, metrics, TensorBoard, the export): ``Distributed.is_main``.
"""

from __future__ import annotations

import datetime
import os
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

import torch
import torch.distributed as dist

#: How far apart the ranks' seeds are (rank 0 keeps the run's seed).
RANK_SEED_STRIDE = 1_000_003
#: How long a rank waits at a collective: rank 0 alone evaluates, checkpoints and exports meanwhile.
GROUP_TIMEOUT = datetime.timedelta(hours=2)
_CPU = torch.device("cpu")


@dataclass(frozen=True)
class Distributed:
    """This process's place in the run: its rank, the number of ranks and its device."""

    rank: int = 0
    world_size: int = 1
    local_rank: int = 0
    device: torch.device = _CPU

    @property
    def is_main(self) -> bool:
        """Rank 0: the one that writes."""
        return self.rank == 0

    @property
    def active(self) -> bool:
        """More than one rank (a process group is running)."""
        return self.world_size > 1

    def seed(self, seed: int) -> int:
        """This rank's seed for its tables and samples (rank 0: ``seed`` itself)."""
        return seed + RANK_SEED_STRIDE * self.rank

    def share(self, tables: int) -> int:
        """This rank's tables of ``tables`` in all (an equal share; ``check_share`` refuses a remainder)."""
        return tables // self.world_size

    def broadcast(self, modules: Iterable[torch.nn.Module | None]) -> None:
        """Copy rank 0's parameters and buffers into every rank's ``modules`` (an equal start)."""
        if not self.active:
            return
        for module in modules:
            if module is None:
                continue
            for tensor in [*module.parameters(), *module.buffers()]:
                dist.broadcast(tensor.data, src=0)

    def average_gradients(self, parameters: Iterable[torch.nn.Parameter]) -> None:
        """Replace each gradient by its mean over the ranks (one all-reduce of all of them, flattened)."""
        if not self.active:
            return
        params = [p for p in parameters if p.grad is not None]
        if not params:
            return
        flat = torch.cat([p.grad.reshape(-1) for p in params])  # type: ignore[union-attr]
        dist.all_reduce(flat, op=dist.ReduceOp.SUM)
        flat /= self.world_size
        offset = 0
        for p in params:
            grad = p.grad
            assert grad is not None
            n = grad.numel()
            grad.copy_(flat[offset : offset + n].view_as(grad))
            offset += n

    def _reduce(self, value: float, op: Any) -> float:
        if not self.active:
            return value
        t = torch.tensor([value], dtype=torch.float64, device=self.device)
        dist.all_reduce(t, op=op)
        return float(t.item())

    def minimum(self, count: int) -> int:
        """The smallest ``count`` over the ranks (so every rank takes the same number of gradient steps)."""
        return int(self._reduce(float(count), dist.ReduceOp.MIN))

    def mean(self, value: float) -> float:
        """The mean of ``value`` over the ranks (a decision all ranks must take alike, e.g. an early stop)."""
        return self._reduce(value, dist.ReduceOp.SUM) / self.world_size

    def others(self, count: int) -> int:
        """The sum of ``count`` over the other ranks (0 with one rank)."""
        return int(self._reduce(float(count), dist.ReduceOp.SUM)) - count if self.active else 0

    def close(self) -> None:
        """End the process group (when one was started)."""
        if self.active and dist.is_initialized():
            dist.destroy_process_group()


def setup(device: str = "cpu") -> Distributed:
    """This process's ``Distributed`` from torchrun's environment; starts the process group when there are
    several ranks (NCCL for ``cuda`` devices, each rank on ``cuda:LOCAL_RANK``; gloo on the CPU)."""
    world = int(os.environ.get("WORLD_SIZE", "1"))
    if world <= 1:
        return Distributed(device=torch.device(device))
    rank, local = int(os.environ["RANK"]), int(os.environ.get("LOCAL_RANK", "0"))
    cuda = torch.device(device).type == "cuda"
    where = torch.device("cuda", local) if cuda else torch.device(device)
    if cuda:
        torch.cuda.set_device(where)
    if not dist.is_initialized():
        dist.init_process_group(backend="nccl" if cuda else "gloo", timeout=GROUP_TIMEOUT)
    return Distributed(rank=rank, world_size=world, local_rank=local, device=where)


def check_share(tables: int, world_size: int) -> str | None:
    """Why ``tables`` cannot be split between ``world_size`` ranks (``None``: they can)."""
    if world_size > 1 and tables % world_size:
        return f"{tables} tables do not split evenly between {world_size} ranks; give a multiple of {world_size}"
    return None


def reseed(generators: dict[str, Any], seed: int) -> None:
    """Seed every stream of ``generators`` (torch generators and numpy ``Generator``s) afresh from ``seed``."""
    for k, name in enumerate(sorted(generators)):
        generator = generators[name]
        if isinstance(generator, torch.Generator):
            generator.manual_seed(seed * 31 + k)
        else:
            generator.bit_generator.state = type(generator.bit_generator)(seed * 31 + k).state


class NullWriter:
    """A TensorBoard writer that writes nothing (the ranks other than 0)."""

    def add_scalar(self, *args: Any, **kwargs: Any) -> None:
        """Nothing."""

    def add_text(self, *args: Any, **kwargs: Any) -> None:
        """Nothing."""

    def close(self) -> None:
        """Nothing."""


__all__ = ["GROUP_TIMEOUT", "RANK_SEED_STRIDE", "Distributed", "NullWriter", "check_share", "reseed", "setup"]
