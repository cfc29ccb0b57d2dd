"""Sections of a model's README (``models/<name>/README.md``) written after export: the robustness
table of ``hearts tournament MODEL --robustness --write-card``.

``write_card_section(model_dir, heading, body)`` puts ``body`` under ``heading`` (a ``## `` line),
replacing the section of that heading if the README has one (up to the next ``#``/``##`` heading
outside code fences) and appending it otherwise; every other line is kept as it was. Plain text
only, no torch: the command line writes a card without the training extra. ``model.json`` and the
weights are not touched (the README is not part of the weights' checksum).
"""

from __future__ import annotations

import os
from pathlib import Path

from hearts_env.nets import README_FILE, is_model_dir

#: The heading of the robustness section.
ROBUSTNESS_HEADING = "## Robustness"


def replace_section(text: str, heading: str, body: str) -> str:
    """``text`` with the section under ``heading`` replaced by ``body`` (appended if there is none)."""
    lines = text.splitlines()
    level = len(heading) - len(heading.lstrip("#"))
    start = end = None
    fenced = False
    for i, line in enumerate(lines):
        if line.lstrip().startswith("```"):
            fenced = not fenced
            continue
        if fenced:
            continue
        if start is None and line.strip() == heading.strip():
            start = i
            continue
        if start is not None and line.startswith("#"):
            depth = len(line) - len(line.lstrip("#"))
            if depth <= level and line[depth : depth + 1] == " ":
                end = i
                break
    section = [heading, "", *body.strip("\n").splitlines()]
    if start is None:
        kept = lines
        while kept and not kept[-1].strip():
            kept = kept[:-1]
        return "\n".join([*kept, "", *section]) + "\n"
    after = lines[end:] if end is not None else []
    return "\n".join([*lines[:start], *section, *(["", *after] if after else [])]) + "\n"


def write_card_section(model_dir: str | Path, heading: str, body: str) -> Path:
    """Write ``body`` under ``heading`` in ``model_dir``'s README (atomically); returns the README's path.
    ``ValueError`` if ``model_dir`` is not a model directory."""
    directory = Path(model_dir)
    if not is_model_dir(directory):
        raise ValueError(f"{directory} is not a model directory (one with a model.json)")
    readme = directory / README_FILE
    old = readme.read_text(encoding="utf-8") if readme.is_file() else ""
    tmp = readme.with_name(f".{README_FILE}.{os.getpid()}.tmp")
    tmp.write_text(replace_section(old, heading, body), encoding="utf-8")
    tmp.replace(readme)
    return readme


def write_robustness_card(model_dir: str | Path, table: str, command: str | None = None) -> Path:
    """The robustness table (``RobustnessReport.table()``) under ``## Robustness`` in the model's README."""
    body = table if command is None else f"{table}\n\nMeasured with `{command}`."
    return write_card_section(model_dir, ROBUSTNESS_HEADING, body)
