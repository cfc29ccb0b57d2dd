"""The training app, installed as ``hearts_env.training``: PPO on the batched engine (``ppo``), the
imitation warm start (``imitate``), the torch network (``network``), checkpoints (``checkpoint``)
and the export of a trained policy to ``models/<name>`` (``export``). Needs the ``train`` extra.

The folder sits at the top of the repository; ``hearts_env/training`` links to it, so the wheel
installs it inside the ``hearts_env`` package and claims no top-level name of its own.

May import: everything in ``hearts_env`` below the command line (``core``, ``obs``, ``nets``,
``bots``, ``batched``, ``tournament``), torch and the training extra's packages.
"""

if __name__ != "hearts_env.training":  # imported as a top-level ``training`` from the checkout
    raise ImportError(f"import hearts_env.training, not {__name__}: the training app lives inside hearts_env")
