"""Embedding: our dialects and passes inside a plain xDSL context and inside stock xdsl-opt."""

from __future__ import annotations

import importlib.metadata
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
from xdsl.context import Context
from xdsl.dialects import get_all_dialects
from xdsl.parser import Parser
from xdsl.universe import Universe

import gedialects
from gedialects.ascend import ModelOp
from gedialects.interpreters.run import run
from gedialects.passes import get_all_passes
from gedialects.passes.convert_graph_to_ascend import ConvertGraphToAscendPass
from tests.conftest import BIN, EXAMPLES, ROOT, run_tool

RELU = """
graph.graph @main(%x: tensor<4xf32>) -> tensor<4xf32> {
  %y = graph.relu %x : (tensor<4xf32>) -> tensor<4xf32>
  graph.net_output %y : tensor<4xf32>
}
"""


def test_dialect_objects_and_register_all() -> None:
    assert [gedialects.Graph.name, gedialects.Partition.name] == ["graph", "partition"]
    assert [gedialects.Multibatch.name, gedialects.Ascend.name] == ["multibatch", "ascend"]
    ctx = Context()
    for name, factory in get_all_dialects().items():  # every stock xDSL dialect ...
        ctx.register_dialect(name, factory)
    gedialects.register_all(ctx)  # ... plus ours, without clashes
    assert {"graph", "partition", "multibatch", "ascend", "func", "linalg"} <= set(
        ctx.registered_dialect_names
    )
    gedialects.register_all(ctx)  # idempotent


def test_run_our_pass_in_a_plain_xdsl_context() -> None:
    ctx = Context()
    for name in ("builtin", "func", "arith"):
        ctx.register_dialect(name, get_all_dialects()[name])
    gedialects.register_all(ctx)
    module = Parser(ctx, RELU).parse_module()
    pass_cls = get_all_passes()["ge-convert-graph-to-ascend"]()
    assert pass_cls is ConvertGraphToAscendPass and pass_cls.name == "ge-convert-graph-to-ascend"
    pass_cls().apply(ctx, module)
    module.verify()
    assert isinstance(module.body.block.first_op, ModelOp)
    out = run(module, {"x": np.array([-1, 2, -3, 4], np.float32)})
    np.testing.assert_array_equal(out["output0"], [0, 2, 0, 4])


def test_multiverse_sees_our_entry_point_without_clashes() -> None:
    multiverse = Universe.get_multiverse()  # raises on a dialect or pass name clash
    assert {"graph", "partition", "multibatch", "ascend"} <= set(multiverse.all_dialects)
    assert set(get_all_passes()) <= set(multiverse.all_passes)


def test_stock_xdsl_opt_runs_our_pass() -> None:
    result = run_tool("xdsl-opt", str(EXAMPLES / "conv_block.mlir"), "-p", "ge-compile")
    assert result.returncode == 0, result.stderr
    assert "ascend.model @conv_block" in result.stdout
    assert "graph.graph" not in result.stdout


def test_a_users_own_passes_and_tools_packages_do_not_shadow_ours(tmp_path: Path) -> None:
    """Issue 15 part 5: xDSL projects often have top-level `passes/` and `tools/` folders; with
    those first on the path, ge-opt, stock xdsl-opt through our entry point and the Session
    still find ours (everything installs under `gedialects`)."""
    for name in ("passes", "tools"):
        (tmp_path / name).mkdir()
        (tmp_path / name / "__init__.py").write_text("", encoding="utf-8")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(tmp_path), str(ROOT)])}
    env.pop("GE_DEBUG", None)
    example = str(EXAMPLES / "conv_block.mlir")

    def run_in_user_project(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            args, capture_output=True, text=True, cwd=tmp_path, env=env, timeout=300
        )

    for tool in ("ge-opt", "xdsl-opt"):
        done = run_in_user_project(str(BIN / tool), example, "-p", "ge-compile")
        assert done.returncode == 0, f"{tool}: {done.stderr}"
        assert "ascend.model @conv_block" in done.stdout
    session = (
        "import passes, tools\n"
        f"assert passes.__file__.startswith({str(tmp_path)!r}), passes.__file__\n"
        "import numpy as np\n"
        "from gedialects import Session\n"
        "s = Session()\n"
        f"s.add_graph(1, {example!r})\n"
        "image = np.random.default_rng(0).standard_normal((1, 3, 16, 16), np.float32)\n"
        "print(sorted(s.run_graph(1, {'image': image})))\n"
    )
    done = run_in_user_project(sys.executable, "-c", session)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "['logits']"


def test_the_distribution_installs_one_top_level_package() -> None:
    top_level = importlib.metadata.distribution("gedialects").read_text("top_level.txt")
    assert top_level is not None and top_level.split() == ["gedialects"]


def test_the_package_ships_py_typed_for_downstream_type_checkers() -> None:
    """PEP 561: the marker is in the package and setuptools puts it in the wheel."""
    import tomllib

    assert (Path(gedialects.__file__).parent / "py.typed").is_file()
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())
    assert "py.typed" in config["tool"]["setuptools"]["package-data"]["gedialects"]
