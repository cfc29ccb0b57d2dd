"""Reading ``weights.npz`` without trusting it: bounded in memory and time before any data is read.

``np.load`` decompresses a member whole before anyone sees its name or shape, so a small hostile
archive (a zip bomb, a header declaring a huge shape) costs gigabytes and minutes to refuse, and
the sha256 in ``model.json`` does not help (whoever writes one file writes both). Here the archive
is checked from the outside in, each step bounded by what the network config expects:

1. the file's size against the most the expected arrays can take;
2. the zip directory: exactly one member ``<name>.npy`` per parameter (no extra, none missing,
   no duplicate), stored or deflated, each declaring at most its array's bytes plus a header;
3. each member's ``.npy`` header (``numpy.lib.format``), read before its data: a float32 dtype
   and the shape ``parameter_shapes(config)`` gives;
4. the data: exactly the expected number of bytes, and nothing after them.

Decompression happens only as bytes are read, so no step reads more than the arrays need.
"""

from __future__ import annotations

import math
import zipfile
import zlib
from collections.abc import Mapping
from pathlib import Path
from typing import IO

import numpy as np
from numpy.lib import format as npy_format

from .spec import ModelError

#: The most bytes an ``.npy`` header may take (``numpy.lib.format``'s own default bound).
MAX_HEADER_BYTES = 10_000
#: Room per member for the zip's local and central headers and its name, and for the archive's end record.
_ZIP_OVERHEAD_PER_MEMBER = 1024
_ZIP_OVERHEAD = 65_536
_COMPRESSIONS = (zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED)


def array_bytes(shape: tuple[int, ...]) -> int:
    """The data bytes of a float32 array of ``shape``."""
    return 4 * math.prod(shape)


def max_weights_bytes(shapes: Mapping[str, tuple[int, ...]]) -> int:
    """The largest ``weights.npz`` the arrays of ``shapes`` can make (uncompressed, with headers)."""
    return _ZIP_OVERHEAD + sum(
        array_bytes(s) + MAX_HEADER_BYTES + _ZIP_OVERHEAD_PER_MEMBER + len(k) for k, s in shapes.items()
    )


class _Refusal(Exception):
    """Why the archive is refused; ``mismatch``: it is readable but does not fit the config."""

    def __init__(self, reason: str, *, mismatch: bool = False) -> None:
        super().__init__(reason)
        self.mismatch = mismatch


def read_weights(model: Path, weights_path: Path, shapes: Mapping[str, tuple[int, ...]]) -> dict[str, np.ndarray]:
    """The arrays of ``weights_path`` (a model's ``weights.npz``), each float32 of the shape ``shapes``
    gives, read with every check above; ``ModelError`` (naming ``model`` and the file) otherwise."""
    name = weights_path.name
    try:
        return _read(weights_path, shapes)
    except _Refusal as refusal:
        if refusal.mismatch:
            raise ModelError(model, f"{name} does not match the network config: {refusal}") from None
        raise ModelError(model, f"{name} is corrupt (not a readable .npz of plain arrays): {refusal}") from None
    except (OSError, EOFError, ValueError, RuntimeError, NotImplementedError, zipfile.BadZipFile, zlib.error) as err:
        raise ModelError(model, f"{name} is corrupt (not a readable .npz of plain arrays): {err}") from None


def _read(path: Path, shapes: Mapping[str, tuple[int, ...]]) -> dict[str, np.ndarray]:
    size = path.stat().st_size
    limit = max_weights_bytes(shapes)
    if size > limit:
        raise _Refusal(f"it has {size} bytes, more than the {limit} the network config's arrays can take")
    if not zipfile.is_zipfile(path):
        raise _Refusal("it is not a zip archive (an .npz); a plain .npy or another file is not read")
    with zipfile.ZipFile(path) as archive:
        members = _check_directory(archive.infolist(), shapes)
        return {key: _read_member(archive, info, key, shapes[key]) for key, info in members.items()}


def _check_directory(infos: list[zipfile.ZipInfo], shapes: Mapping[str, tuple[int, ...]]) -> dict[str, zipfile.ZipInfo]:
    """The member of each parameter, from the zip directory alone (nothing decompressed yet)."""
    names = [info.filename for info in infos]
    duplicates = sorted({n for n in names if names.count(n) > 1})
    if duplicates:
        raise _Refusal(f"members appear twice: {', '.join(duplicates)}")
    by_key = {n[: -len(".npy")]: info for n, info in zip(names, infos, strict=True) if n.endswith(".npy")}
    missing = [k for k in shapes if k not in by_key]
    if missing:
        raise _Refusal(f"weights lack arrays the network config needs: {', '.join(missing)}", mismatch=True)
    extra = sorted(n for n in names if not (n.endswith(".npy") and n[: -len(".npy")] in shapes))
    if extra:
        shown = ", ".join(n[: -len(".npy")] if n.endswith(".npy") else n for n in extra[:10])
        raise _Refusal(f"weights have arrays the network config does not use: {shown}", mismatch=True)
    for key, info in by_key.items():
        if info.compress_type not in _COMPRESSIONS:
            raise _Refusal(
                f"member {info.filename} uses zip compression method {info.compress_type}; "
                "only stored and deflated members (what numpy writes) are read"
            )
        most = array_bytes(shapes[key]) + MAX_HEADER_BYTES
        if info.file_size > most:
            raise _Refusal(
                f"array {key!r} declares {info.file_size} bytes, more than its shape {shapes[key]} "
                f"can take ({most} with the largest header)",
                mismatch=True,
            )
    return {key: by_key[key] for key in shapes}


def _read_member(archive: zipfile.ZipFile, info: zipfile.ZipInfo, key: str, shape: tuple[int, ...]) -> np.ndarray:
    with archive.open(info) as f:
        dtype, fortran = _read_header(f, key, shape)
        expected = array_bytes(shape)
        data = _read_exactly(f, expected)
        if len(data) != expected:
            raise _Refusal(f"array {key!r} is truncated: {len(data)} of its {expected} bytes")
        if f.read(1):
            raise _Refusal(f"array {key!r} has more data than its shape {shape} holds")
    array = np.frombuffer(data, dtype=dtype).reshape(shape, order="F" if fortran else "C")
    return np.ascontiguousarray(array, dtype=np.float32)


def _read_header(f: IO[bytes], key: str, shape: tuple[int, ...]) -> tuple[np.dtype, bool]:
    version = npy_format.read_magic(f)
    if version == (1, 0):
        header_shape, fortran, dtype = npy_format.read_array_header_1_0(f, max_header_size=MAX_HEADER_BYTES)
    elif version == (2, 0):
        header_shape, fortran, dtype = npy_format.read_array_header_2_0(f, max_header_size=MAX_HEADER_BYTES)
    else:
        raise _Refusal(f"array {key!r} has .npy format version {version}; versions 1.0 and 2.0 are read")
    if dtype.hasobject:
        raise _Refusal(f"array {key!r} holds Python objects (dtype {dtype}); only plain arrays are read")
    if dtype.kind != "f" or dtype.itemsize != 4:
        raise _Refusal(f"array {key!r} has dtype {dtype}, expected float32", mismatch=True)
    if tuple(header_shape) != tuple(shape):
        raise _Refusal(
            f"array {key!r} has shape {tuple(header_shape)}, the network config needs {tuple(shape)}", mismatch=True
        )
    return dtype, bool(fortran)


def _read_exactly(f: IO[bytes], count: int) -> bytes:
    """Up to ``count`` bytes (fewer only at the end of the member), read in bounded blocks."""
    chunks = []
    left = count
    while left > 0:
        block = f.read(min(left, 1 << 20))
        if not block:
            break
        chunks.append(block)
        left -= len(block)
    return b"".join(chunks)
