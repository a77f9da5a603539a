"""Shared fixtures: paths, the parsing context, and a runner for the console scripts."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.parser import Parser

from gedialects import make_context

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"
BIN = Path(sys.executable).parent


@pytest.fixture
def ctx() -> Context:
    return make_context()


def parse(text: str, ctx: Context | None = None) -> ModuleOp:
    module = Parser(ctx or make_context(), text).parse_module()
    module.verify()
    return module


def run_tool(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    """Runs an installed console script (ge-opt, ge-run, xdsl-opt) of this environment."""
    env = dict(os.environ)
    env.pop("GE_DEBUG", None)
    return subprocess.run(
        [str(BIN / args[0]), *args[1:]],
        capture_output=True,
        text=True,
        cwd=cwd or ROOT,
        env=env,
        timeout=120,
    )
