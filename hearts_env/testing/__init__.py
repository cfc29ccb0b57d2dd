"""Differential harnesses users can run on their own engines and bots (like ``pettingzoo.test``).

May import: ``hearts_env.batched``, ``hearts_env.bots``, ``hearts_env.envs``, ``hearts_env.obs``, ``hearts_env.core``.
"""
