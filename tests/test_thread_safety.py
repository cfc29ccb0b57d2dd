"""First use of the library from several threads at once: module-level tables built on first use
must not be built twice or half-seen. Each check runs in a fresh interpreter (the tables are built
at most once per process) with its threads released together from a barrier and a tiny switch
interval, so that a lazily filled table would be raced reliably."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

import pytest

THREADS = 8


def run_fresh(body: str) -> object:
    """Run ``body`` in a fresh interpreter and return the JSON it prints last."""
    prelude = textwrap.dedent(
        f"""
        import json, sys, threading
        sys.setswitchinterval(1e-6)
        THREADS = {THREADS}
        barrier = threading.Barrier(THREADS)
        results = [None] * THREADS
        errors = []

        def in_threads(work):
            def run(k):
                try:
                    barrier.wait()
                    results[k] = work(k)
                except BaseException as err:  # reported to the test, not lost in the thread
                    errors.append(repr(err))
            threads = [threading.Thread(target=run, args=(k,)) for k in range(THREADS)]
            for t in threads:
                t.start()
            for t in threads:
                t.join()
            return list(results)
        """
    )
    proc = subprocess.run(
        [sys.executable, "-c", prelude + textwrap.dedent(body)],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    return json.loads(proc.stdout.strip().splitlines()[-1])


def bits(mask: int) -> list[int]:
    return [a for a in range(68) if mask >> a & 1]


MASKS = [
    (1 << 13) | (1 << 14),  # two diamonds (one suit: the single look-up path)
    0b111 | (1 << 30) | (1 << 51),  # three suits
    (1 << 52) | (1 << 53),  # specials only
    (1 << 2) | (1 << 13 + 5) | (1 << 26 + 12) | (1 << 39) | (1 << 64) | (1 << 65),
    ((1 << 52) - 1),
]


@pytest.mark.parametrize("attempt", range(3))
def test_concurrent_first_mask_queries_are_right(attempt: int) -> None:
    out = run_fresh(
        f"""
        from hearts_env.core.deal import mask_to_actions
        masks = {MASKS!r}
        per_thread = in_threads(lambda k: [mask_to_actions(masks[(k + i) % len(masks)]) for i in range(len(masks))])
        after = [mask_to_actions(m) for m in masks]
        print(json.dumps({{"errors": errors, "per_thread": per_thread, "after": after}}))
        """
    )
    assert isinstance(out, dict)
    assert out["errors"] == []
    n = len(MASKS)
    for k, got in enumerate(out["per_thread"]):
        assert got == [bits(MASKS[(k + i) % n]) for i in range(n)], f"thread {k}"
    assert out["after"] == [bits(m) for m in MASKS]


@pytest.mark.parametrize("attempt", range(3))
def test_concurrent_first_legal_actions_are_right(attempt: int) -> None:
    """The engine's own hot path (``Deal.legal_actions``), each thread playing a seeded deal."""
    out = run_fresh(
        """
        import random
        from hearts_env.core.deal import Deal
        from hearts_env.core.rules import Rules

        def play(k):
            deal = Deal(Rules(), seed=k)
            rng = random.Random(k)
            trace = []
            while not deal.is_terminal():
                legal = deal.legal_actions()
                trace.append([legal, deal.legal_mask()])
                deal.apply_action(rng.choice(legal))
            return trace

        print(json.dumps({"errors": errors, "traces": in_threads(play)}))
        """
    )
    assert isinstance(out, dict)
    assert out["errors"] == []
    for trace in out["traces"]:
        assert trace
        for legal, mask in trace:
            assert legal == bits(mask)


@pytest.mark.slow
def test_concurrent_first_use_of_env_obs_and_bots_matches_serial() -> None:
    """Envs (their incremental encoder and its index tables, the rules block), the reference encoder
    and the heuristic bot used first from eight threads at once give what one thread gives."""
    body = """
        import hashlib
        import numpy as np
        from hearts_env.bots import HeuristicBot
        from hearts_env.envs import hearts_v1
        from hearts_env.obs import encode, live_columns

        def play(k):
            env = hearts_v1.env(rules="standard" if k % 2 else "omnibus", episode="deal")
            env.reset(seed=100 + k)
            raw = env.unwrapped
            bot = HeuristicBot(raw.rules)
            digest = hashlib.sha256()
            for agent in env.agent_iter():
                obs, reward, term, trunc, info = env.last()
                digest.update(obs["observation"].tobytes())
                digest.update(obs["action_mask"].tobytes())
                if term or trunc:
                    env.step(None)
                    continue
                assert np.array_equal(encode(raw.deal, raw.possible_agents.index(agent)), obs["observation"])
                env.step(bot.act(obs))
            digest.update(live_columns(3 + k % 6).tobytes())
            return digest.hexdigest()

        if sys.argv[-1] == "serial":
            out = [play(k) for k in range(THREADS)]
        else:
            out = in_threads(play)
        print(json.dumps({"errors": errors, "digests": out}))
        """
    threaded = run_fresh(body)
    serial = run_fresh(body.replace('sys.argv[-1] == "serial"', "True"))
    assert isinstance(threaded, dict) and isinstance(serial, dict)
    assert threaded["errors"] == []
    assert threaded["digests"] == serial["digests"]


def test_tables_shared_across_threads_are_immutable() -> None:
    """Every module-level table or cached value shared by all callers (and so all threads) cannot be
    changed through one of them."""
    import numpy as np

    from hearts_env.core import deal
    from hearts_env.core.rules import Rules
    from hearts_env.obs import encoder, live_columns, rules_block

    assert isinstance(deal._SUIT_TABLES, tuple)
    assert all(isinstance(t, tuple) and all(isinstance(ids, tuple) for ids in t) for t in deal._SUIT_TABLES)
    play, rel, rows, voids = encoder._index_tables(4)
    arrays = [rel, rows, voids, live_columns(4), rules_block(Rules())]
    assert isinstance(play, tuple) and all(isinstance(p, tuple) for p in play)
    for per_pos in play:
        for per_card in per_pos:
            assert isinstance(per_card, tuple)
            arrays.extend(per_card)
    for array in arrays:
        assert isinstance(array, np.ndarray)
        assert not array.flags.writeable
