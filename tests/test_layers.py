"""The layers (docs/architecture.md): import-linter's contracts hold, catch what they forbid,
and no registry reaches up a layer by a string import."""

from __future__ import annotations

import ast
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import ROOT

pytest.importorskip("importlinter", reason="import-linter is in the test extra")

LINT = [sys.executable, "-c", "import sys; from importlinter.cli import lint_imports_command; "]
LINT[-1] += "sys.exit(lint_imports_command())"


def lint_imports(cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(cwd)}
    return subprocess.run(
        [*LINT, "--no-cache"], cwd=cwd, env=env, capture_output=True, text=True, timeout=300
    )


def test_import_contracts_hold() -> None:
    result = lint_imports(ROOT)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "0 broken" in result.stdout


def test_contracts_catch_lazy_upward_imports_and_cycles(tmp_path: Path) -> None:
    """A copy of the package with three probes, each a lazy import inside a function: each
    contract names the import that breaks it."""
    shutil.copytree(ROOT / "gedialects", tmp_path / "gedialects", ignore=_no_caches)
    shutil.copy(ROOT / "pyproject.toml", tmp_path / "pyproject.toml")
    probes = {
        "graph/common.py": "from gedialects.ascend import ModelOp",
        "passes/analysis/liveness.py": "from gedialects.passes import sink_loop",
        "interpreters/entry.py": "from gedialects.interpreters.run import run",
        "frontend/onnx/importer.py": "from gedialects.passes import fold_constants",
    }
    for path, line in probes.items():
        with (tmp_path / "gedialects" / path).open("a", encoding="utf-8") as f:
            f.write(f"\n\ndef _probe() -> None:\n    {line}  # noqa: F401\n")
    result = lint_imports(tmp_path)
    out = result.stdout
    assert result.returncode == 1, out + result.stderr
    assert "0 kept, 4 broken" in out
    assert "gedialects.frontend is not allowed to import gedialects.passes" in out
    assert "gedialects.graph is not allowed to import gedialects.ascend" in out
    assert "gedialects.passes.analysis is not allowed to import gedialects.passes.sink_loop" in out
    assert "No cycles are allowed in gedialects.interpreters" in out
    assert re.search(r"\.entry -> \.run", out)


def _no_caches(folder: str, names: list[str]) -> list[str]:
    return [n for n in names if n == "__pycache__"]


MODULE_NAME = re.compile(r"gedialects(\.[a-z_0-9]+)+(:[A-Za-z_]\w*)?")


def _layer_package(module: str) -> str:
    """`gedialects.<child>`: the unit the contracts place (a module or a package)."""
    return ".".join(module.split(".")[:2])


def test_no_string_import_reaches_up_a_layer() -> None:
    """Registries import by name (passes, kernels, ONNX converters): each names modules of its
    own package. A string naming another package would hide an import from the contracts, as
    `SIGNATURE_ADAPTERS` once hid interpreters.run -> gears. The package root (lazy dialects,
    `gedialects.Session`) and the tools (the top layer) may name anything."""
    offenders = []
    for path in sorted((ROOT / "gedialects").rglob("*.py")):
        module = ".".join(path.relative_to(ROOT).with_suffix("").parts)
        if module == "gedialects.__init__" or module.startswith("gedialects.tools"):
            continue
        own = _layer_package(module)
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if not (isinstance(node, ast.Constant) and isinstance(node.value, str)):
                continue
            if MODULE_NAME.fullmatch(node.value):
                target = node.value.partition(":")[0]
                if _layer_package(target) != own:
                    offenders.append(f"{path.relative_to(ROOT)}:{node.lineno}: {node.value}")
    assert not offenders, "string imports across packages:\n" + "\n".join(offenders)
