"""Training Hearts agents: networks, PPO self-play, evaluation, checkpoints and model export.

Needs the ``train`` extra (torch). Submodules are imported on their own (``training.network``,
``training.export``, ``training.checkpoint``...), so importing this package loads nothing heavy.
Playing an exported model needs none of this: ``hearts_env.policy`` runs it with numpy only.
"""
