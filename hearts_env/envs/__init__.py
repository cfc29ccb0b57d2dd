"""The environments: Hearts for PettingZoo and Gymnasium.

- ``hearts_v1`` (``from hearts_env.envs import hearts_v1``): the PettingZoo AEC environment,
  ``hearts_v1.env(**options)`` with the standard wrappers and ``hearts_v1.raw_env`` bare. Its doc
  page and version history are ``hearts_env.envs.aec``. ``hearts_env.env()`` is the latest version.
- ``gym_env.HeartsGymEnv``: one learning seat, the others played by bots, registered with Gymnasium
  as ``hearts_env/Hearts-v1`` when this package is imported (or use
  ``gymnasium.make("hearts_env.envs:hearts_env/Hearts-v1")``, which imports it first).
- ``vector.HeartsVectorEnv``: a ``gymnasium.vector.VectorEnv`` of B tables on the batched engine,
  opponents played on the same device, registered as ``hearts_env/HeartsVector-v0``
  (``gymnasium.make_vec("hearts_env/HeartsVector-v0", num_envs=1024)``; needs torch, imported only
  when made).
- ``rllib.HeartsMultiAgentEnv``: a native RLlib ``MultiAgentEnv`` (turn based; the ``rllib``
  extra; import ``hearts_env.envs.rllib`` explicitly: this package never imports Ray).
- ``aec`` (the bare env), ``wrappers`` (PettingZoo's classic chain, made fast), ``rewards``.

May import: ``hearts_env.core``, ``hearts_env.obs``, ``hearts_env.bots`` (the Gymnasium env's
opponents), ``hearts_env.nets``, ``hearts_env.batched`` and torch (``vector`` only),
``hearts_env.narrate`` (``render``), PettingZoo and Gymnasium, and Ray (``rllib`` only).
"""

from __future__ import annotations

import gymnasium

from . import hearts_v1
from .gym_env import HeartsGymEnv

GYM_ID = "hearts_env/Hearts-v1"
VECTOR_GYM_ID = "hearts_env/HeartsVector-v0"
VECTOR_ENTRY_POINT = "hearts_env.envs.vector:HeartsVectorEnv"  # torch: imported only when made

if GYM_ID not in gymnasium.registry:
    gymnasium.register(id=GYM_ID, entry_point="hearts_env.envs.gym_env:HeartsGymEnv")
if VECTOR_GYM_ID not in gymnasium.registry:
    gymnasium.register(id=VECTOR_GYM_ID, vector_entry_point=VECTOR_ENTRY_POINT)

__all__ = ["GYM_ID", "VECTOR_ENTRY_POINT", "VECTOR_GYM_ID", "HeartsGymEnv", "hearts_v1"]
