"""docs/tutorial.md cannot rot: every marked shell and Python block runs, in order.

Fenced blocks are marked in their info string: ```sh test / ```python test run and must exit 0,
`test=fails:CODE` must fail with one error line naming GE's CODE, `test=torch` runs only when
torch is installed, and `file=PATH` blocks are written to PATH before the blocks after them
run. The one `setup` block (make demo) is what the test itself stands for. Everything runs in
a scratch folder holding a copy of the files the tutorial reads, with the venv's tools first
on PATH.
"""

from __future__ import annotations

import importlib.util
import os
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.conftest import BIN, ROOT

TUTORIAL = ROOT / "docs" / "tutorial.md"
FENCE = re.compile(r"^```(\w+)([^\n]*)\n(.*?)^```$", re.MULTILINE | re.DOTALL)
NEEDED = (
    "tests/models/cnn.onnx",
    "tests/models/cnn.inputs.npz",
    "tests/models/cnn.expected.npz",
    "tests/models/nonzero.onnx",
    "tests/models/nonzero.inputs.npz",
)


@dataclass(frozen=True)
class Block:
    lang: str
    marks: dict[str, str]
    body: str
    line: int

    @property
    def where(self) -> str:
        return f"docs/tutorial.md:{self.line} ({self.lang})"


def blocks(text: str) -> list[Block]:
    found = []
    for m in FENCE.finditer(text):
        marks = {}
        for word in m.group(2).split():
            key, _, value = word.partition("=")
            marks[key] = value
        line = text.count("\n", 0, m.start()) + 1
        found.append(Block(m.group(1), marks, m.group(3), line))
    return found


def test_every_command_block_is_marked() -> None:
    """A sh/python block without a mark would silently escape the test."""
    found = blocks(TUTORIAL.read_text())
    unmarked = [
        b.where
        for b in found
        if b.lang in ("sh", "python") and not ({"test", "file", "setup"} & set(b.marks))
    ]
    assert not unmarked, f"unmarked command blocks: {unmarked}"
    assert [b.body.split()[:2] for b in found if "setup" in b.marks] == [["make", "demo"]]
    assert sum("test" in b.marks for b in found) >= 15


def _env(tmp: Path) -> dict[str, str]:
    env = dict(os.environ)
    env["PATH"] = f"{BIN}{os.pathsep}{env.get('PATH', '')}"
    env["PYTHONPATH"] = os.pathsep.join([str(tmp), str(ROOT)])
    env.pop("GE_DEBUG", None)
    return env


def test_tutorial_runs(tmp_path: Path) -> None:
    for rel in NEEDED:
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(ROOT / rel, tmp_path / rel)
    env = _env(tmp_path)
    has_torch = importlib.util.find_spec("torch") is not None
    ran = 0
    for block in blocks(TUTORIAL.read_text()):
        if "file" in block.marks:
            path = tmp_path / block.marks["file"]
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(block.body)
            continue
        if "test" not in block.marks:
            continue
        mode = block.marks["test"]
        if mode == "torch" and not has_torch:
            continue
        if block.lang == "sh":
            argv = ["bash", "-e", "-o", "pipefail", "-c", block.body]
        elif block.lang == "python":
            argv = [sys.executable, "-c", block.body]
        else:
            pytest.fail(f"{block.where}: cannot run a '{block.lang}' block")
        result = subprocess.run(
            argv, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120
        )
        log = f"{block.where}\n--- stdout\n{result.stdout}\n--- stderr\n{result.stderr}"
        if mode.startswith("fails"):
            code = mode.partition(":")[2]
            assert result.returncode != 0, f"expected a failure: {log}"
            assert result.stderr.count("\n") == 1 and "error:" in result.stderr, log
            assert f"error: {code}" in result.stderr or f": {code}: " in result.stderr, log
        else:
            assert result.returncode == 0, log
        ran += 1
    assert ran >= 15
