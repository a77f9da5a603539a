"""Interpreter semantics and kernels of the `multibatch` dialect.

The MapIndex and GetDynamicDims kernels are shared with the `ascend` interpreter, which runs them
from kernel tasks. `multibatch.case` refuses an out-of-range branch index where GE's hybrid
executor would silently take the last branch: a wrong gear is a bug worth seeing.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import numpy as np
from xdsl.dialects.builtin import DenseArrayBase, IntegerAttr, TensorType
from xdsl.interpreter import (
    Interpreter,
    InterpreterFunctions,
    PythonValues,
    impl,
    register_impls,
)
from xdsl.ir import Attribute
from xdsl.utils.exceptions import InterpretationError

from gedialects.base import int_array_values
from gedialects.interpreters.kernels import KernelAttrs, KernelError, kernel, run_kernel
from gedialects.multibatch import CaseOp, GetDynamicDimsOp, MapIndexOp, parse_shape_info


def _dims_text(values: Iterable[int] | np.ndarray) -> str:
    return "[" + ",".join(str(int(v)) for v in values) + "]"


def _index_result(index: int, result_types: Sequence[Attribute]) -> np.ndarray:
    """`index` shaped like the result type (`tensor<i32>` or `tensor<1xi32>`)."""
    rtype = result_types[0]
    shape = tuple(rtype.get_shape()) if isinstance(rtype, TensorType) else ()
    return np.full(shape, index, dtype=np.int32)


@kernel("MapIndex")
def map_index(
    inputs: Sequence[np.ndarray], attrs: KernelAttrs, result_types: Sequence[Attribute]
) -> tuple[np.ndarray, ...]:
    """y = i such that gear i (row i of `data_seq` viewed as [n, len(x)]) equals x."""
    x = np.asarray(inputs[0]).reshape(-1)
    seq = np.asarray(inputs[1]).reshape(-1)
    if x.size == 0 or seq.size == 0 or seq.size % x.size:
        raise KernelError(
            f"MapIndex: data_seq length {seq.size} is not a non-zero multiple of x length {x.size}"
        )
    gears = seq.reshape(-1, x.size)
    found = np.flatnonzero((gears == x).all(axis=1))
    if found.size == 0:
        table = "[" + ",".join(_dims_text(g) for g in gears) + "]"
        raise KernelError(
            f"E13025: The input tensor dimension {_dims_text(x)} is not in the dynamic "
            f"dimension list {table} configured by dynamic_dims"
        )
    return (_index_result(int(found[0]), result_types),)


@kernel("GetDynamicDims")
def get_dynamic_dims(
    inputs: Sequence[np.ndarray], attrs: KernelAttrs, result_types: Sequence[Attribute]
) -> tuple[np.ndarray, ...]:
    """The values of the -1 dims of `shape_info`, read from the input shape tensors in order.

    A known dim that differs from the actual shape is refused: the model was compiled for it.
    """
    shape_info = attrs["shape_info"]
    count = attrs["N"]
    assert isinstance(shape_info, DenseArrayBase) and isinstance(count, IntegerAttr)
    groups = parse_shape_info(int_array_values(shape_info))
    if isinstance(groups, str):
        raise KernelError(f"GetDynamicDims: shape_info: {groups}")
    if len(groups) != len(inputs) or count.value.data != len(inputs):
        raise KernelError(
            f"GetDynamicDims: {len(inputs)} inputs, shape_info describes {len(groups)}, "
            f"N is {count.value.data}"
        )
    dims: list[int] = []
    for i, (shape, expected) in enumerate(zip(inputs, groups, strict=True)):
        actual = np.asarray(shape).reshape(-1)
        if actual.size != len(expected):
            raise KernelError(
                f"GetDynamicDims: input {i} has shape {_dims_text(actual)}, "
                f"expected rank {len(expected)}"
            )
        for j, (want, got) in enumerate(zip(expected, actual, strict=True)):
            if want == -1:
                dims.append(int(got))
            elif want != got:
                raise KernelError(
                    f"GetDynamicDims: input {i} has shape {_dims_text(actual)}, but dim {j} "
                    f"is fixed to {want} by shape_info {_dims_text(expected)}"
                )
    return (np.array(dims, dtype=np.int32),)


@register_impls
class MultibatchFunctions(InterpreterFunctions):
    @impl(CaseOp)
    def run_case(self, interpreter: Interpreter, op: CaseOp, args: PythonValues) -> PythonValues:
        index_array = np.asarray(args[0]).reshape(-1)
        if index_array.size != 1:
            raise InterpretationError(
                f"'multibatch.case' branch_index holds {index_array.size} values, expected 1"
            )
        index = int(index_array[0])
        branches = op.branches.data
        if not 0 <= index < len(branches):
            raise InterpretationError(
                f"'multibatch.case' branch_index {index} is out of range for {len(branches)} "
                "branches (GE's hybrid executor would take the last branch; gedialects refuses)"
            )
        from gedialects.interpreters.partition import call_graph

        return call_graph(interpreter, op, branches[index], args[1:])

    @impl(MapIndexOp)
    def run_map_index(
        self, interpreter: Interpreter, op: MapIndexOp, args: PythonValues
    ) -> PythonValues:
        return run_kernel(op.GE_TYPE, args, op.properties, op.result_types)

    @impl(GetDynamicDimsOp)
    def run_get_dynamic_dims(
        self, interpreter: Interpreter, op: GetDynamicDimsOp, args: PythonValues
    ) -> PythonValues:
        return run_kernel(op.GE_TYPE, args, op.properties, op.result_types)
