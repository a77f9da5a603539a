"""Kernels of the data-flow ops (Stack, StackPush, StackPop, StackClose) and the stacks of a run.

A stack is a resource of one run (`stacks()`: `run_entry` opens a fresh set per launch, a
context variable, so each thread has its own); its handle is its id, an int64 scalar. Both
levels run these kernels: the graph interpreter in block order, the ascend interpreter from
kernel tasks that also take and give a *token*, a copy of the handle: each task on a stack
reads the token the previous one wrote (`convert-graph-to-ascend` chains them), so every
schedule runs them in the graph's order. A task gives its token first, then the op's results.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field

import numpy as np
from xdsl.dialects.builtin import StringAttr, TensorType
from xdsl.ir import Attribute

from gedialects.interpreters.graph.common import Arrays
from gedialects.interpreters.kernels import KernelAttrs, KernelError, kernel
from gedialects.tensors import numpy_dtype

_IDS = itertools.count(1)


@dataclass
class Stack:
    name: str
    max_size: int
    elements: list[np.ndarray] = field(default_factory=list)


@dataclass
class Stacks:
    """The stacks of one run, by handle."""

    open: dict[int, Stack] = field(default_factory=dict)

    def create(self, name: str, max_size: int) -> int:
        handle = next(_IDS)
        self.open[handle] = Stack(name, max_size)
        return handle

    def find(self, who: str, handle: np.ndarray) -> tuple[int, Stack]:
        key = int(np.asarray(handle).reshape(()))
        found = self.open.get(key)
        if found is None:
            raise KernelError(
                f"{who}: handle {key} is no open stack of this run (closed, or not made by a Stack)"
            )
        return key, found


_CURRENT: ContextVar[Stacks | None] = ContextVar("gedialects_stacks", default=None)
_DEFAULT = Stacks()


@contextmanager
def stacks() -> Iterator[Stacks]:
    """Runs inside use a fresh set of stacks, dropped when the block ends."""
    token = _CURRENT.set(Stacks())
    try:
        yield _CURRENT.get() or _DEFAULT
    finally:
        _CURRENT.reset(token)


def _current() -> Stacks:
    found = _CURRENT.get()
    return found if found is not None else _DEFAULT


def _with_token(
    handle: np.ndarray, results: tuple[np.ndarray, ...], result_types: Sequence[Attribute]
) -> Arrays:
    """The op's results, after the token when the task asks for one (one result more)."""
    if len(result_types) == len(results) + 1:
        return (np.array(np.asarray(handle).reshape(()), np.int64), *results)
    return results


def _str(attrs: KernelAttrs, name: str) -> str:
    value = attrs.get(name)
    return value.data if isinstance(value, StringAttr) else ""


def _label(stack: Stack) -> str:
    return f"stack '{stack.name}'" if stack.name else "the stack"


@kernel("Stack")
def stack(
    inputs: Sequence[np.ndarray], attrs: KernelAttrs, result_types: Sequence[Attribute]
) -> Arrays:
    """A new empty stack; its handle."""
    (max_size,) = inputs
    handle = _current().create(_str(attrs, "stack_name"), int(np.asarray(max_size).reshape(())))
    return (np.array(handle, np.int64),)


@kernel("StackPush")
def stack_push(
    inputs: Sequence[np.ndarray], attrs: KernelAttrs, result_types: Sequence[Attribute]
) -> Arrays:
    """A copy of the element onto the stack; the element (TF: overflow past max_size > 0)."""
    handle, element = inputs
    _, found = _current().find("StackPush", handle)
    if 0 < found.max_size <= len(found.elements):
        raise KernelError(
            f"StackPush: {_label(found)} is full: it holds its max_size of {found.max_size} "
            "elements"
        )
    value = np.array(element, copy=True)
    found.elements.append(value)
    return _with_token(handle, (value.copy(),), result_types)


@kernel("StackPop")
def stack_pop(
    inputs: Sequence[np.ndarray], attrs: KernelAttrs, result_types: Sequence[Attribute]
) -> Arrays:
    """The top element, removed; an empty stack, or a top of another type than the result's,
    is an error."""
    (handle,) = inputs
    _, found = _current().find("StackPop", handle)
    if not found.elements:
        raise KernelError(f"StackPop: {_label(found)} is empty: nothing was pushed to pop")
    want = result_types[-1]
    top = found.elements[-1]
    if isinstance(want, TensorType):
        shape = want.get_shape()
        dtype = numpy_dtype(want.element_type)
        fits = len(shape) == top.ndim and all(
            d < 0 or d == n for d, n in zip(shape, top.shape, strict=True)
        )
        if not fits or top.dtype != dtype:
            raise KernelError(
                f"StackPop: the top of {_label(found)} is {top.dtype} {list(top.shape)}, the pop "
                f"returns {want}"
            )
    found.elements.pop()
    return _with_token(handle, (top,), result_types)


@kernel("StackClose")
def stack_close(
    inputs: Sequence[np.ndarray], attrs: KernelAttrs, result_types: Sequence[Attribute]
) -> Arrays:
    """Drops the stack."""
    (handle,) = inputs
    key, _ = _current().find("StackClose", handle)
    del _current().open[key]
    return _with_token(handle, (), result_types)


__all__ = ["Stacks", "stacks"]
