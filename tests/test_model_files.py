"""Hostile model files: every one is refused with a ``ModelError`` naming the file and the reason,
fast and in bounded memory, before its data is decompressed or its sizes are allocated.

The sha256 in ``model.json`` is no defence (whoever writes the weights writes the card too), so
every file here has a card that records its true size and hash."""

from __future__ import annotations

import io
import json
import shutil
import struct
import time
import tracemalloc
import zipfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from hearts_env.bots import make_bot
from hearts_env.nets import CARD_FILE, SHIPPED_MODELS_DIR, WEIGHTS_FILE, ModelError, load_policy, parameter_shapes
from hearts_env.nets.store import sha256_file
from hearts_env.obs import OBSERVATION_SIZE

CONFIG = {"kind": "mlp", "obs_dim": OBSERVATION_SIZE, "num_actions": 68, "hidden": [64], "activation": "relu"}
MB = 1 << 20


def npy_bytes(array: np.ndarray) -> bytes:
    buf = io.BytesIO()
    np.lib.format.write_array(buf, array, allow_pickle=False)
    return buf.getvalue()


def good_arrays(seed: int = 0) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(seed)
    # a few distinct values: they compress well, so a deflated archive leaves room for a bomb
    return {k: (rng.integers(-3, 4, size=s) / 30).astype(np.float32) for k, s in parameter_shapes(CONFIG).items()}


def record(path: Path) -> None:
    """Record the weights' true size and hash in the card (so only the content can be wrong)."""
    weights = path / WEIGHTS_FILE
    edit_card(path, weights_bytes=weights.stat().st_size, weights_sha256=sha256_file(weights))


def edit_card(path: Path, **changes: Any) -> None:
    card = json.loads((path / CARD_FILE).read_text())
    card.update(changes)
    (path / CARD_FILE).write_text(json.dumps(card))


def write_members(path: Path, members: list[tuple[str, bytes | Iterator[bytes], int]]) -> None:
    """``weights.npz`` with exactly these members (name, data or chunks, compression), recorded in the card."""
    with zipfile.ZipFile(path / WEIGHTS_FILE, "w") as archive:
        for name, data, method in members:
            info = zipfile.ZipInfo(name)
            info.compress_type = method
            with archive.open(info, "w", force_zip64=False) as f:
                for chunk in [data] if isinstance(data, bytes) else data:
                    f.write(chunk)
    record(path)


@pytest.fixture
def model(tmp_path: Path) -> Path:
    """A small, valid model on the real encoding: the shipped card with a 64-unit network (660 kB of
    weights: room for a zip bomb to pass the file's size bound and reach the member checks)."""
    path = tmp_path / "m"
    path.mkdir()
    shutil.copy(SHIPPED_MODELS_DIR / "ppo-standard" / CARD_FILE, path / CARD_FILE)
    edit_card(path, network=CONFIG, name="m")
    write_members(path, [(f"{k}.npy", npy_bytes(v), zipfile.ZIP_STORED) for k, v in good_arrays().items()])
    return path


def refused(path: Path, match: str, *, seconds: float = 3.0, megabytes: float = 40.0) -> ModelError:
    """``load_policy`` refuses ``path`` with ``match``, within ``seconds`` (of CPU: the machine may be
    busy) and ``megabytes`` of allocations."""
    tracemalloc.start()
    start = time.process_time()
    try:
        with pytest.raises(ModelError, match=match) as err:
            load_policy(path, "standard")
        elapsed = time.process_time() - start
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert err.value.path == str(path)
    assert elapsed < seconds, f"took {elapsed:.1f} s to refuse"
    assert peak < megabytes * MB, f"allocated {peak / MB:.0f} MB to refuse"
    return err.value


def test_the_fixture_model_loads_and_plays(model: Path) -> None:
    policy = load_policy(model, "standard")
    assert np.isfinite(policy.logits(np.zeros(OBSERVATION_SIZE, np.float32))).all()
    bot = make_bot(str(model), "standard")
    assert bot.act({"observation": np.zeros(OBSERVATION_SIZE, np.float32), "action_mask": np.ones(68, np.int8)}) < 68


# ---- the weights archive ----------------------------------------------------------------------


def zeros(total: int, chunk: int = 8 * MB) -> Iterator[bytes]:
    block = bytes(chunk)
    while total > 0:
        yield block[: min(chunk, total)]
        total -= chunk


def bomb_members(extra: int, method: int = zipfile.ZIP_DEFLATED) -> list[tuple[str, Any, int]]:
    """The good members, but ``layers.0.weight`` followed by ``extra`` bytes of zeros."""
    arrays = good_arrays()
    members: list[tuple[str, Any, int]] = []
    for k, v in arrays.items():
        data = npy_bytes(v)
        if k == "layers.0.weight":
            members.append((f"{k}.npy", iter([data, *zeros(extra)]), method))
        else:
            members.append((f"{k}.npy", data, zipfile.ZIP_STORED))
    return members


def test_a_zip_bomb_member_is_refused_from_the_directory(model: Path) -> None:
    """200 MB of zeros deflate to 200 kB; the zip directory says so, and nothing is decompressed."""
    write_members(model, bomb_members(200 * MB))
    assert (model / WEIGHTS_FILE).stat().st_size < 2 * MB
    refused(model, r"weights\.npz does not match the network config: array 'layers\.0\.weight' declares \d+ bytes")


def patch_declared_size(path: Path, member: str, size: int) -> None:
    """Rewrite ``member``'s uncompressed size in the zip's local and central headers (a lying directory)."""
    data = bytearray(path.read_bytes())
    name = member.encode()
    for signature, size_at, name_at in ((b"PK\x03\x04", 22, 30), (b"PK\x01\x02", 24, 46)):
        at = data.find(signature)
        while at >= 0 and data[at + name_at : at + name_at + len(name)] != name:
            at = data.find(signature, at + 1)
        assert at >= 0
        data[at + size_at : at + size_at + 4] = struct.pack("<I", size)
    path.write_bytes(bytes(data))


def test_a_zip_bomb_with_a_lying_directory_is_read_only_as_far_as_the_array(model: Path) -> None:
    """The directory declares the right size, the stream decompresses to 200 MB more: only the
    array's bytes are read, and the check of what follows refuses it."""
    write_members(model, bomb_members(200 * MB))
    expected = len(npy_bytes(good_arrays()["layers.0.weight"]))
    patch_declared_size(model / WEIGHTS_FILE, "layers.0.weight.npy", expected)
    record(model)
    refused(model, r"weights\.npz is corrupt")


def test_a_bzip2_member_is_refused_before_decompressing(model: Path) -> None:
    write_members(model, bomb_members(50 * MB, zipfile.ZIP_BZIP2))
    refused(model, r"weights\.npz is corrupt .*compression method 12")


def test_a_plain_npy_as_weights_is_refused(model: Path) -> None:
    (model / WEIGHTS_FILE).write_bytes(npy_bytes(good_arrays()["policy.bias"]))
    record(model)
    refused(model, r"weights\.npz is corrupt .*not a zip archive")


def test_a_huge_declared_shape_is_refused_before_reading(model: Path) -> None:
    header = io.BytesIO()
    np.lib.format.write_array_header_1_0(header, {"descr": "<f4", "fortran_order": False, "shape": (10**9, 10**9)})
    arrays = good_arrays()
    members = [(f"{k}.npy", npy_bytes(v), zipfile.ZIP_STORED) for k, v in arrays.items() if k != "policy.bias"]
    members.append(("policy.bias.npy", header.getvalue() + bytes(68 * 4), zipfile.ZIP_STORED))
    write_members(model, members)
    refused(model, r"array 'policy\.bias' has shape \(1000000000, 1000000000\), the network config needs \(68,\)")


@pytest.mark.parametrize(
    ("edit", "match"),
    [
        (lambda m: [*m, ("notes.txt", b"hello", zipfile.ZIP_STORED)], "does not use: notes.txt"),
        (lambda m: [*m, ("bonus.npy", npy_bytes(np.zeros(3, np.float32)), 0)], "does not use: bonus"),
        (lambda m: m[:-1], r"lack arrays the network config needs: value\.bias"),
        (lambda m: [*m, m[-1]], "appear twice"),
    ],
    ids=["extra-file", "extra-array", "missing", "duplicate"],
)
def test_the_members_are_exactly_the_expected_set(model: Path, edit: Callable[[list], list], match: str) -> None:
    members = [(f"{k}.npy", npy_bytes(v), zipfile.ZIP_STORED) for k, v in good_arrays().items()]
    with pytest.warns(UserWarning, match="Duplicate") if match == "appear twice" else _nothing():
        write_members(model, edit(members))
    refused(model, match)


class _nothing:
    def __enter__(self) -> None:
        return None

    def __exit__(self, *exc: object) -> None:
        return None


def test_a_member_with_data_past_its_array_is_refused(model: Path) -> None:
    arrays = good_arrays()
    members = [(f"{k}.npy", npy_bytes(v), zipfile.ZIP_STORED) for k, v in arrays.items()]
    members[-1] = (members[-1][0], members[-1][1] + b"\0" * 64, zipfile.ZIP_STORED)
    write_members(model, members)
    refused(model, r"array 'value\.bias' has more data than its shape")


def test_a_truncated_member_is_refused(model: Path) -> None:
    arrays = good_arrays()
    members = [(f"{k}.npy", npy_bytes(v), zipfile.ZIP_STORED) for k, v in arrays.items()]
    members[0] = (members[0][0], members[0][1][:-40], zipfile.ZIP_STORED)
    write_members(model, members)
    refused(model, r"array 'layers\.0\.weight' is truncated")


def test_object_arrays_are_refused_without_unpickling(model: Path) -> None:
    arrays = good_arrays()
    buf = io.BytesIO()
    np.lib.format.write_array(buf, np.array([{"code": "runs on unpickle"}], dtype=object), allow_pickle=True)
    members = [(f"{k}.npy", npy_bytes(v), zipfile.ZIP_STORED) for k, v in arrays.items() if k != "value.bias"]
    members.append(("value.bias.npy", buf.getvalue(), zipfile.ZIP_STORED))
    write_members(model, members)
    refused(model, r"weights\.npz is corrupt .*holds Python objects")


def test_compressed_fortran_and_big_endian_arrays_load(model: Path) -> None:
    """What numpy itself may write (``savez_compressed``, a transposed array, another byte order) loads."""
    arrays = good_arrays()
    members = []
    for k, v in arrays.items():
        if k == "layers.0.weight":
            data = npy_bytes(np.asfortranarray(v))
        elif k == "policy.weight":
            data = npy_bytes(v.astype(">f4"))
        else:
            data = npy_bytes(v)
        members.append((f"{k}.npy", data, zipfile.ZIP_DEFLATED))
    write_members(model, members)
    policy = load_policy(model, "standard")
    for k, v in arrays.items():
        assert np.array_equal(policy.params[k], v) and policy.params[k].dtype == np.float32


def test_huge_finite_weights_that_overflow_are_refused(model: Path) -> None:
    """3e38 is finite float32, but the logits overflow to inf and NaN: the load's self-check refuses it."""
    arrays = good_arrays()
    arrays["policy.weight"] = np.full_like(arrays["policy.weight"], 3e38)
    arrays["layers.0.bias"] = np.ones_like(arrays["layers.0.bias"])
    write_members(model, [(f"{k}.npy", npy_bytes(v), zipfile.ZIP_STORED) for k, v in arrays.items()])
    refused(model, r"weights\.npz gives non-finite outputs .* on a zero observation")


def test_a_weights_file_larger_than_its_arrays_can_be_is_refused_before_hashing(model: Path) -> None:
    with open(model / WEIGHTS_FILE, "ab") as f:
        f.write(bytes(8 * MB))
    record(model)
    refused(model, r"weights\.npz has \d+ bytes, more than the \d+ the network config's arrays can take")


# ---- the model card ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("network", "match"),
    [
        ({**CONFIG, "obs_dim": 10**9}, r"'obs_dim' must be an integer in 1\.\.65536, got 1000000000"),
        ({**CONFIG, "hidden": [10**7]}, r"'hidden' must be an integer in 1\.\.16384"),
        ({**CONFIG, "hidden": [16384] * 64}, "parameters, more than the"),
        ({**CONFIG, "hidden": [8] * 10**5}, r"'hidden' must be a list of 1\.\.64"),
        (
            {
                "kind": "cardset",
                "obs_dim": 10**9,
                "num_actions": 68,
                "hidden": [8],
                "card_dim": 8,
                "card_layers": 1,
                "card_planes": [0],
                "global_ranges": [],
            },
            "'obs_dim' must be an integer",
        ),
        (
            {
                "kind": "cardset",
                "obs_dim": OBSERVATION_SIZE,
                "num_actions": 68,
                "hidden": [8],
                "card_dim": 8,
                "card_layers": 1,
                "card_planes": list(range(10**4)),
                "global_ranges": [],
            },
            "'card_planes' must be a list of 1..49 offsets",
        ),
        ({**CONFIG, "kind": "cardset", "card_dim": 8, "card_layers": 10**6}, r"'card_layers' must be an integer"),
        (
            {**CONFIG, "kind": "cardset", "card_dim": 8, "card_layers": 1, "card_planes": [0], "global_ranges": [5]},
            "pairs",
        ),
    ],
    ids=["obs_dim", "width", "parameters", "layers", "cardset-obs_dim", "planes", "card_layers", "ranges"],
)
def test_config_numbers_are_bounded_before_allocating(model: Path, network: dict, match: str) -> None:
    edit_card(model, network=network, obs_dim=network["obs_dim"])
    refused(model, "invalid network config: .*" + match, seconds=2.0, megabytes=10.0)


def test_a_model_card_with_a_5000_digit_number_is_refused(model: Path) -> None:
    text = (model / CARD_FILE).read_text().replace('"obs_dim": 2577', '"obs_dim": ' + "9" * 5000)
    (model / CARD_FILE).write_text(text)
    refused(model, r"model\.json is unreadable: an integer of 5000 digits")


def test_an_oversized_or_nested_model_card_is_refused(model: Path) -> None:
    card = json.loads((model / CARD_FILE).read_text())
    card["padding"] = "x" * (2 * MB)
    (model / CARD_FILE).write_text(json.dumps(card))
    refused(model, r"model\.json is larger than 1048576 bytes")
    (model / CARD_FILE).write_text("[" * 100_000 + "]" * 100_000)
    refused(model, r"model\.json is unreadable")
    (model / CARD_FILE).write_text('{"format": NaN}')
    refused(model, r"model\.json is unreadable: NaN is not JSON")


@pytest.mark.parametrize("rules", [[], [5], [{"num_players": "four"}]], ids=["empty", "not-a-dict", "bad-value"])
def test_bad_rules_on_the_card_are_a_model_error(model: Path, rules: list) -> None:
    edit_card(model, rules=rules)
    refused(model, "rules")
