"""Fixtures shared by several test modules."""

from __future__ import annotations

from collections.abc import Iterator

import pytest


@pytest.fixture
def one_torch_thread() -> Iterator[None]:
    """One intra-op torch thread for the test: on a shared 2-core machine a second thread makes every large
    operation wait for a busy core (the batched-engine tests use it)."""
    import torch

    before = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(before)


@pytest.fixture(autouse=True)
def models_folder(tmp_path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every test's user models folder (``$HEARTS_MODELS_DIR``) is ``models/`` in its own ``tmp_path``: exports
    (``hearts export``, ``hearts train --export-name``) never land in the home folder."""
    monkeypatch.setenv("HEARTS_MODELS_DIR", str(tmp_path / "models"))
