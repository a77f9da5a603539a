"""Kernels of GE's flow-control ops for the loop sink (`gedialects.passes.sink_loop`).

They have no `graph` op: `ge-sink-loop` emits them as kernel tasks of the `ascend` model (GE's
FlowCtrlPass adds them as graph nodes with the variables `npu_runconfig/*`).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from xdsl.ir import Attribute

from gedialects.interpreters.kernels import KernelAttrs, KernelError, kernel


@kernel("AssignAdd")
def assign_add(
    inputs: Sequence[np.ndarray], attrs: KernelAttrs, result_types: Sequence[Attribute]
) -> tuple[np.ndarray, ...]:
    """`ref + value` in the dtype of `ref`; the task writes it over `ref` (GE's AssignAdd)."""
    if len(inputs) != 2:
        raise KernelError(f"AssignAdd: expected 2 inputs (ref, value), got {len(inputs)}")
    ref, value = inputs
    if np.broadcast_shapes(ref.shape, value.shape) != ref.shape:
        raise KernelError(
            f"AssignAdd: value of shape {list(value.shape)} does not broadcast to ref of shape "
            f"{list(ref.shape)}"
        )
    return (np.add(ref, value, dtype=ref.dtype),)
