"""Interpreter semantics of the gedialects dialects, one module per dialect (numpy lives here).

`register_all_implementations(interpreter)` adds all of them to an `xdsl.interpreter.Interpreter`;
`make_interpreter(module)` builds one ready to `call_op` a graph or an ascend model by name.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from xdsl.dialects.builtin import ModuleOp
    from xdsl.interpreter import Interpreter


def register_all_implementations(interpreter: Interpreter) -> None:
    from gedialects.interpreters.ascend import AscendFunctions
    from gedialects.interpreters.graph import GraphFunctions
    from gedialects.interpreters.multibatch import MultibatchFunctions
    from gedialects.interpreters.partition import PartitionFunctions

    for functions in (
        GraphFunctions(),
        PartitionFunctions(),
        MultibatchFunctions(),
        AscendFunctions(),
    ):
        interpreter.register_implementations(functions)


def make_interpreter(module: ModuleOp) -> Interpreter:
    from xdsl.interpreter import Interpreter

    interpreter = Interpreter(module)
    register_all_implementations(interpreter)
    return interpreter
