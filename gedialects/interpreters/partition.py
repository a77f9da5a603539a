"""Interpreter semantics of the `partition` dialect.

`partition.partitioned_call` calls its graph. `partition.end` / `partition.place_holder` pass a
value through a channel keyed by `peerIndex`, kept per interpreter: End sends, PlaceHolder
receives (and empties the channel, as each GE End/PlaceHolder pair stands for one edge). So the
subgraph holding the End must run first; a PlaceHolder with nothing to receive is an error.
"""

from __future__ import annotations

import numpy as np
from xdsl.dialects.builtin import TensorType, UnrankedTensorType
from xdsl.interpreter import (
    Interpreter,
    InterpreterFunctions,
    PythonValues,
    impl,
    register_impls,
)
from xdsl.ir import Attribute
from xdsl.utils.exceptions import InterpretationError

from gedialects.base import shapes_compatible, tensor_shape
from gedialects.partition import EndOp, PartitionedCallOp, PlaceHolderOp
from gedialects.tensors import numpy_dtype


def _fits(value: np.ndarray, t: Attribute) -> bool:
    if not isinstance(t, TensorType | UnrankedTensorType):
        return True
    return value.dtype == numpy_dtype(t.element_type) and shapes_compatible(
        value.shape, tensor_shape(t)
    )


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
        return interpreter.call_op(op.callee, args)

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
