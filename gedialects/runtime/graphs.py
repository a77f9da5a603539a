"""A Session's graphs: what `add_graph` reads (ONNX, IR text or file, a module) and the state
of each graph it holds (options, gears, the compiled module, its stages)."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from gedialects import budget
from gedialects.errors import GraphError

if TYPE_CHECKING:
    from xdsl.dialects.builtin import ModuleOp

    from gedialects.gear_options import GearConfig
    from gedialects.interpreters.gears import GearInfo
    from gedialects.interpreters.run import Signature


@dataclass
class GraphState:
    """One added graph: the imported module, its merged options and gears, and once compiled
    the module that runs, the printed IR after each stage, its signature and gear table."""

    module: ModuleOp
    options: dict[str, str]
    gears: GearConfig | None
    stages: dict[str, str] = field(default_factory=dict)
    compiled: ModuleOp | None = None
    level: str = ""
    signature: Signature | None = None
    info: GearInfo | None = None
    notes: list[str] = field(default_factory=list)
    """Notes of the last compile (hybrid mode asked for and not taken, and why)."""
    jit: Any = None
    """JIT mode: the slice chain and its caches (a `runtime.jit.Jit`; `Any` here because
    jit.py builds on this module, and the import contracts forbid the cycle)."""
    interpreters: list[tuple[ModuleOp, Any]] = field(default_factory=list)
    """Idle interpreters of `compiled` (`interpreters.make_interpreter`), each with the
    executor's programs decoded once: a run takes one (or makes one) and gives it back."""


def print_module(module: ModuleOp) -> str:
    from io import StringIO

    from xdsl.printer import Printer

    out = StringIO()
    Printer(stream=out).print_op(module)
    out.write("\n")
    return out.getvalue()


def parse_ir(text: str, label: str) -> ModuleOp:
    from xdsl.utils.exceptions import DiagnosticException, ParseError

    from gedialects import make_context
    from gedialects.locations import located_message, parse_text
    from gedialects.nesting import check_nesting

    try:
        check_nesting(text, label)
        module = parse_text(make_context(), text, label)
    except ParseError as e:
        raise GraphError(f"{e.span.get_location()}: cannot parse the IR: {e.msg}") from None
    except DiagnosticException as e:
        raise GraphError(f"{label}: {first_line(e)}") from None
    try:
        module.verify()
        from gedialects.passes.verify_model import verify_models

        verify_models(module)
    except DiagnosticException as e:
        # `file:line:col: error: 'graph.relu' op %y (node_name "relu1"): ...`, as ge-run says
        raise GraphError(located_message(e, module, label)) from None
    return module


def load_binary(path: str) -> ModuleOp:
    """A binary IR file (.gebc, or an offline model .om), verified as `parse_ir` verifies."""
    from xdsl.utils.exceptions import DiagnosticException

    from gedialects import make_context
    from gedialects.bytecode import BinaryFormatError, load

    try:
        data = budget.read_file(path)
    except OSError as e:
        raise GraphError(f"cannot read {path}: {e}") from None
    except budget.MemoryBudgetError as e:
        raise GraphError(str(e)) from None
    try:
        module = load(data, make_context(), path)
        module.verify()
        from gedialects.passes.verify_model import verify_models

        verify_models(module)
    except BinaryFormatError as e:
        raise GraphError(f"{path}: {e}") from None
    except budget.MemoryBudgetError as e:
        raise GraphError(f"{path}: {e}") from None
    except DiagnosticException as e:
        raise GraphError(f"{path}: {first_line(e)}") from None
    return module


def first_line(error: BaseException) -> str:
    lines = [line for line in str(error).strip().splitlines() if line.strip()]
    return lines[0] if lines else type(error).__name__


def load_graph(graph: Any) -> ModuleOp:
    """An ONNX path or ModelProto, an IR file path (text .mlir, binary .gebc or .om), IR text,
    or a ModuleOp (copied) -> module."""
    from xdsl.dialects.builtin import ModuleOp

    if isinstance(graph, ModuleOp):
        return graph.clone()
    if isinstance(graph, os.PathLike) or (
        isinstance(graph, str)
        and "\n" not in graph
        and graph.endswith((".onnx", ".mlir", ".gebc", ".om"))
    ):
        path = os.fspath(graph)
        if path.endswith(".onnx"):
            return import_onnx(path)
        if path.endswith((".gebc", ".om")):
            return load_binary(path)
        try:
            text = budget.read_file(path).decode("utf-8")
        except (OSError, UnicodeDecodeError) as e:
            raise GraphError(f"cannot read {path}: {e}") from None
        except budget.MemoryBudgetError as e:
            raise GraphError(str(e)) from None
        return parse_ir(text, path)
    if isinstance(graph, str):
        return parse_ir(graph, "<graph text>")
    if type(graph).__name__ == "ModelProto":
        return import_onnx(graph)
    raise GraphError(
        f"add_graph takes an ONNX path or ModelProto, an .mlir, .gebc or .om path, IR text or a "
        f"ModuleOp, "
        f"not {type(graph).__name__}"
    )


def import_onnx(model: Any) -> ModuleOp:
    from gedialects.frontend.onnx import OnnxImportError, import_model

    try:
        return import_model(model)
    except OnnxImportError as e:
        raise GraphError(str(e)) from None


def root_inputs(module: ModuleOp) -> tuple[str, list[str], list[tuple[int, ...] | None]]:
    from xdsl.dialects.builtin import TensorType

    from gedialects.graph import GraphOp
    from gedialects.interpreters.run import RunError, find_entry

    try:
        root = find_entry(module)
    except RunError as e:
        raise GraphError(str(e)) from None
    if not isinstance(root, GraphOp):
        raise GraphError(f"@{root.sym_name.data} is a '{root.name}', not a graph.graph")
    dims = [
        tuple(t.get_shape()) if isinstance(t, TensorType) else None
        for t in root.function_type.inputs.data
    ]
    return root.sym_name.data, list(root.input_names), dims
