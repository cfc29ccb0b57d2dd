"""The ``hearts`` command line (``main``): the parser and dispatch (``main``), the rules options
(``options``), ``hearts play`` (``play``), ``replay``, ``rules`` (``rules_cmd``) and ``tournament``.
Terminal I/O lives here; what is said comes from ``hearts_env.narrate``.

May import: anything below it (``training`` only lazily, in ``main``: torch is optional); not
``hearts_env.web``, its sibling.
"""

from .main import main

__all__ = ["main"]
