"""``python -m hearts_env`` runs the ``hearts`` command line."""

from .cli import main

raise SystemExit(main())
