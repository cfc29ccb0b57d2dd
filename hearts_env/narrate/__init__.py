"""Narration: the table in words, shared by every front end (``hearts play``, ``hearts replay``, the
web table). ``style`` (how cards and emphasis look as text, ASCII fallback, fitting lines to a
width), ``narrator`` (seat names, headers, passes, plays, scores, menus, refusals), ``replay`` (a
replayed match step by step, narrated) and ``render`` (the environments' text render). Text in,
text out: no terminal I/O here.

May import: ``hearts_env.core`` and ``hearts_env.obs``.
"""
