"""sb3-contrib's ``MaskablePPO`` on ``HeartsGymEnv`` (one learning seat against the heuristic bot), then
evaluated over duplicate deals against the standard opponents (``hearts_env.tournament.evaluate``).

``HeartsGymEnv.action_masks()`` is the method ``MaskablePPO`` asks for, so no wrapper is needed; the
evaluation passes the mask to ``model.predict(obs, action_masks=...)``.

    python examples/sb3_maskable_ppo.py --total-timesteps 256 --eval-deals 2     # a few seconds
    python examples/sb3_maskable_ppo.py --total-timesteps 1000000 --eval-deals 1000

The last line printed is ``final: ...`` (timesteps, the policy's points per deal with its 95% interval).

What to expect, measured on this project's 2-core machine (``/usr/bin/time -v python
examples/sb3_maskable_ppo.py``, the defaults: 100,000 timesteps, 100 duplicate sets): 417 s of CPU,
so about 7 minutes on an idle machine (22 minutes of wall time with the machine shared five ways),
ending with ``final: timesteps=100096 points_per_deal=12.78 ci95=[11.72, 13.83] deals=100`` against
three heuristic bots (which take 3.89). That is no better than a random player on the same deals
(``hearts tournament random heuristic --deals 100``: 12.93 [11.81, 14.06]): at this budget the run
checks the plumbing (masks, learning, the evaluation), not strength. The first command above takes
7 s of CPU (18 s of wall time here).
"""

from __future__ import annotations

import argparse

import torch
from sb3_contrib import MaskablePPO

from hearts_env.envs import HeartsGymEnv
from hearts_env.tournament.evaluate import evaluate


def main() -> None:
    p = argparse.ArgumentParser(description="MaskablePPO on HeartsGymEnv")
    p.add_argument("--total-timesteps", type=int, default=100_000)
    p.add_argument("--rules", default="standard")
    p.add_argument("--opponents", default="heuristic")
    p.add_argument("--n-steps", type=int, default=256)
    p.add_argument("--eval-deals", type=int, default=100, help="duplicate sets of the evaluation (0: none)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--save", default=None, help="save the model to this path")
    args = p.parse_args()
    torch.set_num_threads(1)  # a small MLP: more threads only contend on a small or shared machine

    env = HeartsGymEnv(args.rules, seat="random", opponents=args.opponents, reward_scale=0.1)
    model = MaskablePPO(
        "MlpPolicy",
        env,
        n_steps=args.n_steps,
        batch_size=min(64, args.n_steps),
        gamma=1.0,
        seed=args.seed,
        verbose=0,
        device="cpu",
    )
    model.learn(total_timesteps=args.total_timesteps)
    if args.save:
        model.save(args.save)
    line = f"final: timesteps={model.num_timesteps}"
    if args.eval_deals > 0:
        result = evaluate(model, args.rules, opponents=args.opponents, deals=args.eval_deals, seed=0, name="maskable")
        print(result.table())
        me = result.bots[0]
        line += f" points_per_deal={me.mean:.2f} ci95=[{me.ci_low:.2f}, {me.ci_high:.2f}] deals={args.eval_deals}"
    print(line)


if __name__ == "__main__":
    main()
