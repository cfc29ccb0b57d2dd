"""The records folder as clients see it: the list of records (``list_records``) and one record read
(``read_record``).

Only regular files directly in the folder are listed or read: a symbolic link (to a file or folder
anywhere) is neither, and a refusal names the record, never a path of the server. The records of
matches still in progress (``hidden``) are left out: such a record holds the match's seed, which
deals every hand to come, and the next deal's hands.
"""

from __future__ import annotations

import json
import os
import re
import stat
from collections.abc import Callable, Collection
from pathlib import Path
from typing import Any

from ..core.record import MAX_RECORD_BYTES
from .game import GameError

RECORD_NAME = re.compile(r"[A-Za-z0-9._-]{1,200}\.json")
MAX_LISTED = 200
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_OPEN_FLAGS = os.O_RDONLY | _NOFOLLOW | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)


def list_records(
    folder: Path | None, hidden: Callable[[], Collection[str]], limit: int = MAX_LISTED
) -> list[dict[str, Any]]:
    """The records in ``folder``, newest first: ``{"name", "size"}`` each, at most ``limit``; ``hidden()``
    names the ones to leave out (asked after the folder is read, so a record that appears while it is read
    is still left out)."""
    if folder is None:
        return []
    found: list[tuple[float, str, int]] = []
    try:
        with os.scandir(folder) as entries:
            for entry in entries:
                if RECORD_NAME.fullmatch(entry.name) and entry.is_file(follow_symlinks=False):
                    info = entry.stat(follow_symlinks=False)
                    found.append((info.st_mtime, entry.name, info.st_size))
    except OSError:
        return []
    left_out = hidden()
    found.sort(reverse=True)
    return [{"name": name, "size": size} for _, name, size in found if name not in left_out][:limit]


def read_record(folder: Path | None, name: str, hidden: Callable[[], Collection[str]]) -> dict[str, Any]:
    """The JSON object in the regular file ``folder/name``; ``GameError`` 404 for anything else (a symbolic
    link, a folder, a hidden record, a name with a path in it), 422 for a file that is not a record's JSON."""
    missing = GameError(f"No game record named {name[:60]!r} in the records folder.", 404)
    if folder is None or not RECORD_NAME.fullmatch(name):
        raise missing
    path = folder / name
    try:
        if not _NOFOLLOW and path.is_symlink():
            raise missing
        fd = os.open(path, _OPEN_FLAGS)  # O_NOFOLLOW: a symbolic link is refused, not followed
    except OSError:
        raise missing from None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise missing
        with os.fdopen(os.dup(fd), "rb") as file:
            data = file.read(MAX_RECORD_BYTES + 1)
        if len(data) > MAX_RECORD_BYTES:
            raise GameError(f"The game record {name} is larger than a record may be.", 422)
    except OSError:
        raise missing from None
    finally:
        os.close(fd)
    if name in hidden():  # a match in progress: as if it were not there
        raise missing
    try:
        record = json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError):
        raise GameError(f"The game record {name} is not JSON.", 422) from None
    if not isinstance(record, dict):
        raise GameError(f"The game record {name} is not a game record (not a JSON object).", 422)
    return record
