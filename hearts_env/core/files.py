"""Reading a user's file (a rule file, a game record) safely: regular files only, with a size bound.

A FIFO would block ``open`` forever and ``/dev/zero`` would be read until memory runs out; both are
refused with a reason, as are files over the bound and bytes that are not UTF-8.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Callable
from pathlib import Path

_OPEN_FLAGS = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_BINARY", 0)


def read_text_file(path: str | Path, what: str, limit: int, error: Callable[[str], Exception]) -> str:
    """The UTF-8 text of the regular file ``path`` (at most ``limit`` bytes). Anything else raises
    ``error(message)``, the message naming ``what`` (``"game record"``), the file and the reason."""
    path = Path(path)
    try:
        # non-blocking, so opening a FIFO with no writer returns at once (and is refused below)
        fd = os.open(path, _OPEN_FLAGS)
    except OSError as err:
        raise error(f"cannot read {what} {path}: {err.strerror}") from None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise error(f"cannot read {what} {path}: not a regular file")
        if info.st_size > limit:
            raise error(f"cannot read {what} {path}: {info.st_size} bytes, more than the {limit} a {what} may have")
        chunks, size = [], 0
        while size <= limit:  # the file may grow while it is read: stop one byte past the bound
            chunk = os.read(fd, min(1 << 20, limit + 1 - size))
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
    except OSError as err:
        raise error(f"cannot read {what} {path}: {err.strerror}") from None
    finally:
        os.close(fd)
    if size > limit:
        raise error(f"cannot read {what} {path}: more than the {limit} bytes a {what} may have")
    data = b"".join(chunks)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as err:
        raise error(f"{what} {path} is not UTF-8 text: byte {data[err.start]:#04x} at offset {err.start}") from None


__all__ = ["read_text_file"]
