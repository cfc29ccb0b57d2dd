"""The RLlib backend (``hearts train --backend rllib``; the ``rllib`` extra: Ray RLlib 2.60, new API stack).

PPO self-play on ``hearts_env.envs.rllib.HeartsMultiAgentEnv`` (turn based: only the seat to move
acts), on an embedded local Ray or an existing cluster. Its rooms:

- ``config``: ``RLlibArgs`` (read by tyro from ``--config`` TOML and flags) and their checks;
- ``modules``: ``MaskedPPOModule`` (the trained "main": the project's MLP, illegal logits masked
  before the action distribution, so probability zero in sampling, loss and entropy),
  ``FrozenSnapshotModule`` and ``HeuristicModule`` (the heuristic bot on observation vectors);
- ``selfplay``: the per-episode seat mapping (selfplay, snapshot or heuristic opponents) and the
  callback that adds a frozen snapshot of "main" every ``snapshot_every`` iterations;
- ``train``: the PPO config, Ray start or join, the run loop, checkpoints (``algo.save_to_path`` plus
  this project's sidecar), metrics, TensorBoard, ``main``;
- ``export``: a checkpoint's "main" module to ``models/<name>`` (reads only the sidecar; needs no Ray).

May import: what ``hearts_env.training`` may, ``hearts_env.envs`` and ray.
"""
