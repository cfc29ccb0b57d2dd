"""``hearts serve``: a local web table against the bots (``server.create_app``), spectating, and
replaying game records in the browser.

The server holds every game (``game.WebGame`` in a ``game.GameStore``); the browser gets only what
its seat may know (``hearts_env.obs.seat_view``) and the narration ``hearts play`` prints
(``hearts_env.narrate``). Static files live in ``static/``: no build step, nothing from a CDN.
What a client may read and send is bounded in ``server`` (requests), ``origin`` (the table's own page
only), ``records`` (the records folder) and ``models`` (one loaded copy of each network).

May import: ``hearts_env.tournament``, ``bots``, ``nets``, ``obs``, ``narrate``, ``core``, and the
optional ``starlette``/``uvicorn`` (the ``[web]`` extra). Not ``cli``, not ``envs``.
"""
