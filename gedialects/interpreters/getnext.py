"""GetNext sink at run time: the queue of input sets a GetNext pulls from.

`feeding(queue)` makes an `InputQueue` the current one for the runs inside it (a context
variable: each thread has its own); `graph.get_next` (graph level) and the `GetNext` kernel
task (task level) pull the next set from it. The task-level kernel writes each tensor packed
at the start of its buffer, which is sized for the largest gear (the layout every gear branch
views), and the actual shapes into the shape buffers `GetDynamicDims` reads.
"""

from __future__ import annotations

import dataclasses
import math
from collections import deque
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from contextvars import ContextVar

import numpy as np
from xdsl.dialects.builtin import ArrayAttr, StringAttr, TensorType
from xdsl.ir import Attribute, Operation

from gedialects.graph.getnext import GETNEXT_SINK_DYNAMIC, GetNextOp
from gedialects.interpreters.entry import RunError, Signature
from gedialects.interpreters.kernels import KernelAttrs, KernelError, kernel
from gedialects.tensors import numpy_dtype


class InputQueue:
    """The input sets (name -> array) a model's GetNext pulls, in order."""

    def __init__(self, sets: Sequence[Mapping[str, np.ndarray]]) -> None:
        self.sets: deque[Mapping[str, np.ndarray]] = deque(sets)
        self.pulled = 0

    def __len__(self) -> int:
        return len(self.sets)

    def pull(self, where: str) -> Mapping[str, np.ndarray]:
        if not self.sets:
            raise KernelError(
                f"{where}: end of sequence: the input queue is empty after {self.pulled} "
                "input set(s) (a launch of a model sunk with iterations_per_loop N pulls N)"
            )
        self.pulled += 1
        return self.sets.popleft()


_CURRENT: ContextVar[InputQueue | None] = ContextVar("gedialects_getnext_queue", default=None)


@contextmanager
def feeding(queue: InputQueue) -> Iterator[InputQueue]:
    """Runs inside pull their GetNext inputs from `queue`."""
    token = _CURRENT.set(queue)
    try:
        yield queue
    finally:
        _CURRENT.reset(token)


def _pull(names: Sequence[str], where: str) -> list[np.ndarray]:
    queue = _CURRENT.get()
    if queue is None:
        raise KernelError(
            f"{where}: no input queue feeds this GetNext (run the model through run() or "
            "ge-run, which queue the input sets)"
        )
    found = queue.pull(where)
    missing = [n for n in names if n not in found]
    if missing:
        raise KernelError(
            f"{where}: input set {queue.pulled} has no '{missing[0]}' (it holds "
            f"{', '.join(found) or 'nothing'})"
        )
    return [np.asarray(found[n]) for n in names]


def _check(name: str, array: np.ndarray, t: Attribute, where: str) -> None:
    assert isinstance(t, TensorType)
    dtype = numpy_dtype(t.element_type)
    if array.dtype != dtype:
        raise KernelError(f"{where}: input '{name}' has dtype {array.dtype}, expected {dtype}")
    dims = t.get_shape()
    if array.ndim != len(dims):
        raise KernelError(f"{where}: input '{name}' has rank {array.ndim}, expected {len(dims)}")


def _names(attrs: KernelAttrs) -> list[str]:
    names = attrs.get("output_names")
    if not isinstance(names, ArrayAttr):
        raise KernelError("GetNext: no output_names")
    return [n.data for n in names.data if isinstance(n, StringAttr)]


def getnext_signature(entry: Operation, sig: Signature) -> Signature | None:
    """The signature of an entry fed by a GetNext without gears (`gears.gear_signature`
    covers one with gears): its GetNext's outputs are its last inputs, queued per run."""
    from gedialects.ascend import ModelOp, TaskOp
    from gedialects.graph import GraphOp

    names: tuple[str, ...] = ()
    types: tuple[Attribute, ...] = ()
    hidden = False
    if isinstance(entry, GraphOp):
        op = next((o for o in entry.body.block.ops if isinstance(o, GetNextOp)), None)
        if op is None:
            return None
        names, types = op.names, tuple(r.type for r in op.outputs[: op.count])
        last = entry.body.block.last_op
        hidden = last is not None and GETNEXT_SINK_DYNAMIC in last.attributes
    elif isinstance(entry, ModelOp):
        task = next(  # not `entry.tasks()`: no list of every task for the usual no-GetNext
            (
                t
                for t in entry.body.block.ops
                if isinstance(t, TaskOp) and t.effects().kernel == GetNextOp.GE_TYPE
            ),
            None,
        )
        if task is None:
            return None
        attrs = getattr(task, "attrs", None)
        found = attrs.data.get("output_names") if attrs is not None else None
        if not isinstance(found, ArrayAttr):
            raise RunError(f"@{entry.sym_name.data}: its GetNext task has no output_names")
        names = tuple(n.data for n in found.data if isinstance(n, StringAttr))
        types = tuple(b.type for b in task.effects().outs[: len(names)])
        hidden = GETNEXT_SINK_DYNAMIC in entry.attributes
    else:
        return None
    outputs = sig.output_names[:-1] if hidden else sig.output_names
    return dataclasses.replace(
        sig,
        input_names=(*sig.input_names, *names),
        input_types=(*sig.input_types, *types),
        output_names=outputs,
        getnext=len(names),
    )


@kernel("GetNext")
def get_next(
    inputs: Sequence[np.ndarray], attrs: KernelAttrs, result_types: Sequence[Attribute]
) -> tuple[np.ndarray, ...]:
    """The next input set: each tensor packed at the start of its (largest-gear) buffer, then
    the int32 shapes."""
    names = _names(attrs)
    arrays = _pull(names, "GetNext")
    data: list[np.ndarray] = []
    shapes: list[np.ndarray] = []
    for name, array, t in zip(names, arrays, result_types, strict=False):
        _check(name, array, t, "GetNext")
        assert isinstance(t, TensorType)
        buffer = tuple(t.get_shape())
        if any(d < 0 for d in buffer):  # a dynamic task: its buffer takes the actual shape
            data.append(array.copy())
            shapes.append(np.array(array.shape, dtype=np.int32))
            continue
        if array.size > math.prod(buffer):
            raise KernelError(
                f"GetNext: input '{name}' of shape {list(array.shape)} does not fit its buffer "
                f"{list(buffer)} (the largest gear)"
            )
        packed = np.zeros(math.prod(buffer), dtype=array.dtype)
        packed[: array.size] = array.reshape(-1)
        data.append(packed.reshape(buffer))
        shapes.append(np.array(array.shape, dtype=np.int32))
    return (*data, *shapes)
