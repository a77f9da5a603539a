"""Interpreter semantics of the gedialects dialects, one module per dialect (numpy lives here).

`register_all_implementations(interpreter)` adds all of them to an `xdsl.interpreter.Interpreter`;
`make_interpreter(module)` builds one ready to `call_op` a graph or an ascend model by name.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from xdsl.interpreter import Interpreter
from xdsl.ir import Operation

if TYPE_CHECKING:
    from xdsl.dialects.builtin import ModuleOp


def register_all_implementations(interpreter: Interpreter) -> None:
    from gedialects.interpreters.ascend import AscendFunctions
    from gedialects.interpreters.control import ControlFunctions
    from gedialects.interpreters.graph import GraphFunctions
    from gedialects.interpreters.multibatch import MultibatchFunctions
    from gedialects.interpreters.partition import PartitionFunctions

    for functions in (
        GraphFunctions(),
        PartitionFunctions(),
        MultibatchFunctions(),
        ControlFunctions(),
        AscendFunctions(),
    ):
        interpreter.register_implementations(functions)


def make_interpreter(module: ModuleOp) -> Interpreter:
    interpreter = Interpreter(module, listeners=(OpTracker(),))
    register_all_implementations(interpreter)
    return interpreter


class OpTracker(Interpreter.Listener):
    """Keeps the ops being interpreted (xDSL's listener hooks), so that an error raised deep in
    a kernel (an element type numpy lacks, shapes that do not broadcast) can name its op."""

    def __init__(self) -> None:
        self.running: list[Operation] = []

    def will_interpret_op(self, op: Operation, args: tuple[object, ...]) -> None:
        self.running.append(op)

    def did_interpret_op(self, op: Operation, results: tuple[object, ...]) -> None:
        self.running.pop()


def failing_op(interpreter: Interpreter) -> Operation | None:
    """The innermost op that was running when the last run failed (None if none was)."""
    for listener in interpreter.listeners:
        if isinstance(listener, OpTracker) and listener.running:
            return listener.running[-1]
    return None


def describe_op(op: Operation) -> str:
    """`'graph.add' (node 'add_1') in @main`: the op's name, its GE node name (else its first
    result, `(%z)`) and its graph or model."""
    from xdsl.dialects.builtin import StringAttr

    from gedialects.base import symbol_name

    describe = getattr(op, "describe", None)
    text = str(describe()) if callable(describe) else f"'{op.name}'"
    node = op.attributes.get("node_name")
    if not callable(describe) and isinstance(node, StringAttr):
        text += f" (node '{node.data}')"
    elif not callable(describe) and op.results and op.results[0].name_hint:
        text += f" (%{op.results[0].name_hint})"
    parent = op.parent_op()
    while parent is not None and symbol_name(parent) is None:
        parent = parent.parent_op()
    if parent is not None:
        text += f" in @{symbol_name(parent)}"
    return text
