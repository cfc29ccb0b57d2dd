"""Narration: the table in words (cards, names, passes, tricks, scores, menus, refusals), shared by
every front end. Text only, no terminal I/O.

May import: ``hearts_env.core`` and ``hearts_env.obs``.
"""
