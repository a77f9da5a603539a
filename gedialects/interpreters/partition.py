"""Interpreter semantics of the `partition` dialect.

`partition.partitioned_call` calls its graph. `partition.end` / `partition.place_holder` pass a
value through a channel keyed by `peerIndex`, kept per interpreter: End sends, PlaceHolder
receives (and empties the channel, as each GE End/PlaceHolder pair stands for one edge). So the
subgraph holding the End must run first; a PlaceHolder with nothing to receive is an error.
"""

from __future__ import annotations

import numpy as np
from xdsl.dialects.builtin import SymbolRefAttr, TensorType, UnrankedTensorType
from xdsl.interpreter import (
    Interpreter,
    InterpreterFunctions,
    PythonValues,
    impl,
    register_impls,
)
from xdsl.ir import Attribute, Operation
from xdsl.utils.exceptions import InterpretationError

from gedialects.base import shapes_compatible, tensor_shape
from gedialects.partition import EndOp, PartitionedCallOp, PlaceHolderOp
from gedialects.tensors import dtype_matches, numpy_dtype


def _fits(value: np.ndarray, t: Attribute) -> bool:
    if not isinstance(t, TensorType | UnrankedTensorType):
        return True
    return dtype_matches(value.dtype, numpy_dtype(t.element_type)) and shapes_compatible(
        value.shape, tensor_shape(t)
    )


def call_graph(
    interpreter: Interpreter, op: Operation, callee: SymbolRefAttr, args: PythonValues
) -> PythonValues:
    """Calls `callee` for `op`, refusing a graph that is already running: GE graphs do not
    recurse, and a cycle of calls (which the verifier reports when it runs) would otherwise
    recurse until Python's stack runs out. Shared by every op that calls a graph."""
    stack: list[str] = interpreter.get_data(PartitionFunctions, "calls", list)
    name = callee.root_reference.data
    if name in stack:
        cycle = " -> ".join(f"@{n}" for n in (*stack[stack.index(name) :], name))
        raise InterpretationError(
            f"'{op.name}' calls @{name}, which is already running: a cycle of calls {cycle} "
            "(GE graphs do not recurse)"
        )
    stack.append(name)
    try:
        return interpreter.call_op(callee, args)
    finally:
        stack.pop()


@register_impls
class PartitionFunctions(InterpreterFunctions):
    @staticmethod
    def channels(interpreter: Interpreter) -> dict[int, np.ndarray]:
        """The values sent by `partition.end` and not yet received, by `peerIndex`."""
        return interpreter.get_data(PartitionFunctions, "channels", dict)

    @impl(PartitionedCallOp)
    def run_partitioned_call(
        self, interpreter: Interpreter, op: PartitionedCallOp, args: PythonValues
    ) -> PythonValues:
        return call_graph(interpreter, op, op.callee, args)

    @impl(EndOp)
    def run_end(self, interpreter: Interpreter, op: EndOp, args: PythonValues) -> PythonValues:
        self.channels(interpreter)[op.peerIndex.value.data] = np.asarray(args[0])
        return ()

    @impl(PlaceHolderOp)
    def run_place_holder(
        self, interpreter: Interpreter, op: PlaceHolderOp, args: PythonValues
    ) -> PythonValues:
        peer = op.peerIndex.value.data
        channels = self.channels(interpreter)
        if peer not in channels:
            raise InterpretationError(
                f"'partition.place_holder' peerIndex {peer}: no 'partition.end' with this "
                "peerIndex has run (unpaired PlaceHolder, or its End's graph did not run first)"
            )
        value = channels.pop(peer)
        if not _fits(value, op.y.type):
            raise InterpretationError(
                f"'partition.place_holder' peerIndex {peer}: received {value.dtype} "
                f"{list(value.shape)}, incompatible with its type {op.y.type}"
            )
        return (value,)
