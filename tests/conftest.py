"""Shared fixtures: paths, the parsing context, and a runner for the console scripts."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import settings
from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.parser import Parser

from gedialects import make_context

# CI (CI=true) replays the same examples on every run, so a red CI is always reproducible;
# locally every run explores new ones.
settings.register_profile("ci", derandomize=True, deadline=None, print_blob=True)
settings.register_profile("dev", deadline=None)
settings.load_profile("ci" if os.environ.get("CI") else "dev")

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
