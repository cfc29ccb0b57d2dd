"""The training app, installed as ``hearts_env.training``. Needs the ``train`` extra. Its rooms:

- ``config``: the ``Args`` of a run (read by tyro from ``--config`` TOML and flags) and their checks;
- ``engines``: the engines training plays on (``make_engine``), their generators and reward scales;
- ``opponents``: the pool's opponents (``BatchPolicy``s): random, snapshots, the heuristic bot, a
  frozen exported model (``model:<path>``) and the scripted adversaries (``moon``, ...);
- ``ppo``: the algorithm in one scroll, ``train`` and ``hearts train`` (``main``);
- ``imitate``: the imitation warm start; ``network``: the torch network; ``checkpoint``: checkpoints;
- ``plotting``: progress and the learning curve; ``export``: a trained policy to ``models/<name>``;
- ``reference_vec``: many reference-engine tables behind the batched engine's interface;
- ``best_response``: learned best responses (PPO against a frozen model, and against the heuristic
  bot); ``model_card``: the robustness section of a model's README;
- ``rllib``: the RLlib backend (``hearts train --backend rllib``; the ``rllib`` extra).

The folder sits at the top of the repository; ``hearts_env/training`` links to it, so the wheel
installs it inside the ``hearts_env`` package and claims no top-level name of its own.

May import: everything in ``hearts_env`` below the command line (``core``, ``obs``, ``nets``,
``bots``, ``batched``, ``envs``, ``tournament``), torch, the training extra's packages and (``rllib``
only) Ray.
"""

if __name__ != "hearts_env.training":  # imported as a top-level ``training`` from the checkout
    raise ImportError(f"import hearts_env.training, not {__name__}: the training app lives inside hearts_env")
