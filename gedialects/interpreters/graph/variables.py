"""Kernels of the variable writers (Assign, AssignAdd, AssignSub): the new value of the
variable from its old value (input 0, the ref port) and `value`, in the dtype of the ref.

The graph interpreter stores the result as the session's value of the variable; an ascend
kernel task writes it over its ref input's bytes (its output is the variable's memory, GE's
`ref_var_src_var_name`). `ge-sink-loop`'s loop counter (GE's FlowCtrlPass AssignAdd of
`npu_runconfig/iterations_per_loop`'s counter) runs the same AssignAdd.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np
from xdsl.ir import Attribute

from gedialects.interpreters.graph.common import Arrays
from gedialects.interpreters.kernels import KernelAttrs, KernelError, kernel


def _ref_and_value(ge_type: str, inputs: Sequence[np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    if len(inputs) != 2:
        raise KernelError(f"{ge_type}: expected 2 inputs (ref, value), got {len(inputs)}")
    ref, value = inputs
    if np.broadcast_shapes(ref.shape, value.shape) != ref.shape:
        raise KernelError(
            f"{ge_type}: value of shape {list(value.shape)} does not broadcast to ref of shape "
            f"{list(ref.shape)}"
        )
    return ref, value


@kernel("Assign")
def assign(
    inputs: Sequence[np.ndarray], attrs: KernelAttrs, result_types: Sequence[Attribute]
) -> Arrays:
    """`value` as the new variable. Assign only overwrites its ref, so a task may pass just
    `(value,)` (the lowering does: the task does not read the variable's bytes); the shape
    and dtype are then the result type's."""
    if len(inputs) == 1:
        from gedialects.tensors import numpy_dtype

        (rtype,) = result_types
        shape = tuple(rtype.get_shape())  # pyright: ignore[reportAttributeAccessIssue]
        dtype = numpy_dtype(rtype.element_type)  # pyright: ignore[reportAttributeAccessIssue]
        return (np.broadcast_to(inputs[0], shape).astype(dtype, copy=True),)
    ref, value = _ref_and_value("Assign", inputs)
    return (np.broadcast_to(value, ref.shape).astype(ref.dtype, copy=True),)


def _combining(ge_type: str, ufunc: Callable[..., np.ndarray]) -> None:
    def run(
        inputs: Sequence[np.ndarray], attrs: KernelAttrs, result_types: Sequence[Attribute]
    ) -> Arrays:
        ref, value = _ref_and_value(ge_type, inputs)
        return (ufunc(ref, value, dtype=ref.dtype),)

    run.__name__ = run.__qualname__ = ge_type
    run.__doc__ = f"GE {ge_type}: `ref {'+' if ufunc is np.add else '-'} value`."
    kernel(ge_type)(run)


_combining("AssignAdd", np.add)
_combining("AssignSub", np.subtract)
