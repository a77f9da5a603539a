"""The kernel library: numpy semantics of every GE op type, shared by both interpreter levels.

A kernel takes the input arrays, the op's attributes (its IRDL properties, or the `attrs` of an
`ascend.kernel` task, which task generation copies from them) and the result types, and returns
the output arrays. The `graph` interpreter calls the kernel of each op's `GE_TYPE`; the `ascend`
interpreter calls the kernel named by each kernel task. One implementation for both levels means
a difference between them is a lowering bug, never a kernel difference.

Kernels are defined next to the interpreter of their dialect with `@kernel("Conv2D")`.

An op type may also have an out-variant, `@kernel_into("Relu")`: it writes its results into
arrays the caller preallocated with the static result shapes and dtypes (the compiled
executor's arena views), so a result costs no allocation and no copy. An out-variant computes
the very numbers of its kernel (the kernel's dtype promotion, then one cast into the output);
`run_kernel_into` runs it, or the kernel and a copy where an op type has none.
"""

from __future__ import annotations

import functools
import importlib
import re
import threading
from collections.abc import Callable, Mapping, Sequence
from typing import TypeVar

import numpy as np
from xdsl.dialects.builtin import ArrayAttr, TensorType
from xdsl.ir import Attribute

from gedialects import budget
from gedialects.formats import INPUT_DESC, c0_of, format_of
from gedialects.interpreters.layouts import (
    LayoutError,
    from_origin,
    pack_into,
    to_origin,
    unpack_into,
)

KernelAttrs = Mapping[str, Attribute]
Kernel = Callable[[Sequence[np.ndarray], KernelAttrs, Sequence[Attribute]], tuple[np.ndarray, ...]]

KernelInto = Callable[
    [Sequence[np.ndarray], KernelAttrs, Sequence[Attribute], Sequence[np.ndarray]], None
]
"""(inputs, attrs, result types, outputs): writes every output, whose shape and dtype are those
of its static result type."""

FormattedInto = Callable[
    [
        Sequence[np.ndarray],
        KernelAttrs,
        Sequence[Attribute],
        Sequence[Attribute],
        Sequence[np.ndarray],
    ],
    bool,
]
"""(inputs as stored, attrs, the inputs' types, result types, outputs): an out-variant of a
heavy op that reads and writes the heavy formats (NC1HWC0) itself, so that no unpacked copy
of a feature map is made and none is packed again; False, having written nothing, when it
does not take these formats (the adapter then unpacks and packs as for any heavy kernel)."""

_KERNELS: dict[str, Kernel] = {}
_KERNELS_INTO: dict[str, KernelInto] = {}
_KERNELS_FORMATTED: dict[str, FormattedInto] = {}
_F = TypeVar("_F", Kernel, KernelInto, FormattedInto)
_KERNEL_MODULES = (
    "gedialects.interpreters.graph",
    "gedialects.interpreters.multibatch",
    "gedialects.interpreters.formats",
    "gedialects.interpreters.getnext",
)
_loaded = False


class KernelError(ValueError):
    """A kernel cannot run on the inputs it was given (bad shapes, unknown kernel)."""


class InputDataError(KernelError):
    """The values of a kernel's input cannot be processed (corrupt encoded image bytes):
    `ge-run` adds the op that hit them, as for `known_failure`s."""


def _registrar(table: dict[str, _F], what: str, ge_type: str) -> Callable[[_F], _F]:
    def register(fn: _F) -> _F:
        if ge_type in table:
            raise ValueError(f"{what} for GE type '{ge_type}' registered twice")
        table[ge_type] = fn
        return fn

    return register


def kernel(ge_type: str) -> Callable[[Kernel], Kernel]:
    """Registers the decorated function as the kernel of GE op type `ge_type`."""
    return _registrar(_KERNELS, "kernel", ge_type)


def kernel_into(ge_type: str) -> Callable[[KernelInto], KernelInto]:
    """Registers the decorated function as the out-variant of GE op type `ge_type`."""
    return _registrar(_KERNELS_INTO, "out-variant kernel", ge_type)


def kernel_into_formatted(ge_type: str) -> Callable[[FormattedInto], FormattedInto]:
    """Registers the decorated function as the heavy-format out-variant of `ge_type`."""
    return _registrar(_KERNELS_FORMATTED, "heavy-format out-variant", ge_type)


_LOAD_LOCK = threading.RLock()
_loading = False


def _load_all() -> None:
    """Imports every kernel module once, then adapts the heavy-format kernels. `_loaded` is
    set only when all is done: a second thread (hybrid mode compiles two graphs at once) waits
    on the lock instead of seeing a half-filled registry ("no kernel implements GE type
    MapIndex"); a kernel module that asks again while this thread imports it (`_loading`)
    returns at once."""
    global _loaded, _loading
    if _loaded:
        return
    with _LOAD_LOCK:
        if _loaded or _loading:
            return
        _loading = True
        try:
            for module in _KERNEL_MODULES:
                importlib.import_module(module)
            from gedialects.base import GEOp
            from gedialects.graph import Graph

            heavy = [
                op.GE_TYPE for op in Graph.operations if issubclass(op, GEOp) and op.HEAVY_PORTS
            ]
            _adapt_heavy_kernels(heavy)
            _loaded = True
        finally:
            _loading = False


def get_kernel(ge_type: str) -> Kernel:
    """The kernel of GE op type `ge_type` (KernelError when it has none)."""
    _load_all()
    if ge_type not in _KERNELS:
        raise KernelError(f"no kernel for GE op type '{ge_type}'")
    return _KERNELS[ge_type]


def get_kernel_into(ge_type: str) -> KernelInto | None:
    """The out-variant of `ge_type`, or None: the caller then runs `get_kernel` and copies."""
    _load_all()
    return _KERNELS_INTO.get(ge_type)


ALIAS_SAFE_INTO = frozenset(
    {"Relu", "Add", "Sub", "Mul", "Div", "Maximum", "Minimum", "Sigmoid", "Tanh", "Erf", "Gelu"}
)
"""Out-variants whose output may be exactly the bytes of an input (an in-place elementwise
task of the memory plan): each is ufunc calls that read every element before writing it,
numpy buffering any other overlap (Gelu's scratch when it overlaps x)."""


def kernel_into_types() -> tuple[str, ...]:
    """The GE op types that have an out-variant."""
    _load_all()
    return tuple(sorted(_KERNELS_INTO))


def kernel_types() -> tuple[str, ...]:
    """The GE op types that have a kernel."""
    _load_all()
    return tuple(sorted(_KERNELS))


@functools.cache
def _result_spec(rtype: Attribute) -> tuple[np.dtype, tuple[int, ...] | None] | None:
    """numpy dtype and static shape (None if not static) of a tensor result type, cached: this
    runs once per executed op."""
    from xdsl.dialects.builtin import TensorType, UnrankedTensorType

    from gedialects.tensors import numpy_dtype

    if isinstance(rtype, TensorType):
        shape = tuple(rtype.get_shape())
        return numpy_dtype(rtype.element_type), shape if all(d >= 0 for d in shape) else None
    if isinstance(rtype, UnrankedTensorType):
        return numpy_dtype(rtype.element_type), None
    return None


@functools.cache
def _static_nbytes(rtype: Attribute) -> int:
    """Bytes of a static tensor result type (0 when its shape is not static)."""
    from gedialects.tensors import UnsupportedDtypeError

    try:
        spec = _result_spec(rtype)
    except UnsupportedDtypeError:
        return 0  # run_kernel reports it after the kernel
    if spec is None or spec[1] is None:
        return 0
    return budget.shape_nbytes(spec[1], spec[0].itemsize)


SMALL_OUTPUTS = 1 << 20
"""Outputs up to this many bytes in all skip the budget look-up (it reads the environment)."""


SCRATCH_KEEP = 256 << 20
"""Scratch buffers up to this many bytes are kept between kernel calls (see `scratch`)."""

_scratch = threading.local()


def scratch(key: str, shape: Sequence[int], dtype: np.dtype | type) -> np.ndarray:
    """A temporary array of `shape` for a kernel's intermediate (Conv2D's columns), kept per
    `key` and thread between calls: a fresh large array costs a page fault per 4 KiB on first
    touch, more than the copy that fills it. Its contents are undefined and it is valid until
    the next `scratch(key, ...)` on the thread, so two live intermediates need two keys.
    Checked against the memory budget like an output; above `SCRATCH_KEEP` bytes it is not
    kept."""
    dtype = np.dtype(dtype)
    dims = [int(d) for d in shape]
    nbytes = budget.shape_nbytes(dims, dtype.itemsize)
    if nbytes > SMALL_OUTPUTS:
        budget.check(nbytes, f"{key} scratch {dtype}{dims}")
    if nbytes > SCRATCH_KEEP:
        return np.empty(dims, dtype)
    buffers: dict[str, np.ndarray] | None = getattr(_scratch, "buffers", None)
    if buffers is None:
        buffers = _scratch.buffers = {}
    buf = buffers.get(key)
    if buf is None or buf.nbytes < nbytes:
        buf = buffers[key] = np.empty(max(nbytes, 64), np.uint8)
    return buf[:nbytes].view(dtype).reshape(dims)


def check_output(
    ge_type: str, shape: Sequence[int], dtype: np.dtype, scratch_per_element: int = 0
) -> None:
    """Before a kernel allocates an output whose shape it computed from its input data
    (Range's count, Tile's multiples): MemoryBudgetError if it does not fit the budget.
    `scratch_per_element`: bytes of temporaries per output element (a mask, a stacked copy)."""
    dims = [int(d) for d in shape]
    nbytes = budget.shape_nbytes(dims, np.dtype(dtype).itemsize + scratch_per_element)
    if nbytes > SMALL_OUTPUTS:
        budget.check(nbytes, f"{ge_type} output {np.dtype(dtype)}{dims}")


@functools.cache
def _broadcasting_types() -> frozenset[str]:
    """GE types of the binary elementwise ops: their output is the broadcast of the inputs."""
    from gedialects.graph import ElementwiseBinaryOp, Graph

    return frozenset(op.GE_TYPE for op in Graph.operations if issubclass(op, ElementwiseBinaryOp))


def _check_broadcast(ge_type: str, inputs: Sequence[np.ndarray]) -> None:
    """A result of unknown shape from broadcasting ([N, 1] + [1, M]) is sized before numpy
    allocates it; inputs that do not broadcast are left for the kernel to report."""
    try:
        shape = np.broadcast_shapes(*(np.shape(x) for x in inputs))
        dtype = np.result_type(*inputs)
    except (ValueError, TypeError):
        return
    check_output(ge_type, shape, dtype)


def run_kernel(
    ge_type: str,
    inputs: Sequence[np.ndarray],
    attrs: KernelAttrs,
    result_types: Sequence[Attribute],
) -> tuple[np.ndarray, ...]:
    """Runs the kernel of `ge_type`; outputs are cast to the result element types.

    Static result types are checked against the memory budget before the kernel runs (the one
    check for every kernel); kernels whose output shape comes from data call `check_output`."""
    total = sum(_static_nbytes(t) for t in result_types)
    if total > SMALL_OUTPUTS:
        budget.check(total, f"{ge_type} outputs ({', '.join(map(str, result_types))})")
    if ge_type in _broadcasting_types() and not all(_static_nbytes(t) for t in result_types):
        _check_broadcast(ge_type, inputs)
    outputs = get_kernel(ge_type)(inputs, attrs, result_types)
    return _cast_outputs(ge_type, outputs, [_result_spec(t) for t in result_types])


_Spec = tuple[np.dtype, tuple[int, ...] | None] | None


def _cast_outputs(
    ge_type: str, outputs: Sequence[np.ndarray], specs: Sequence[_Spec]
) -> tuple[np.ndarray, ...]:
    """A kernel's outputs in its result types' dtypes, their count and static shapes checked."""
    if len(outputs) != len(specs):
        raise KernelError(
            f"kernel '{ge_type}' returned {len(outputs)} outputs, expected {len(specs)}"
        )
    pairs = zip(outputs, specs, strict=True)
    return tuple([_cast_output(ge_type, out, spec) for out, spec in pairs])


def _cast_output(ge_type: str, out: np.ndarray, spec: _Spec) -> np.ndarray:
    arr = np.asarray(out)
    if spec is not None:
        dtype, shape = spec
        if arr.dtype is not dtype:  # numpy's dtypes of a kind are one object: `is` is the test
            arr = arr.astype(dtype, copy=False)
        if shape is not None and arr.shape != shape:
            raise KernelError(
                f"kernel '{ge_type}' produced shape {list(arr.shape)}, "
                f"its result type says {list(shape)}"
            )
    return arr


def run_kernel_into(
    ge_type: str,
    inputs: Sequence[np.ndarray],
    attrs: KernelAttrs,
    result_types: Sequence[Attribute],
    outputs: Sequence[np.ndarray],
) -> None:
    """Runs `ge_type` writing into `outputs`: its out-variant, else its kernel and a copy.

    Each output must have the static shape and the dtype of its result type (KernelError if
    not, or if a result type is not static): the checks `run_kernel` makes of what a kernel
    returned are made of the outputs once, before the kernel runs."""
    if len(outputs) != len(result_types):
        raise KernelError(
            f"kernel '{ge_type}' was given {len(outputs)} outputs, expected {len(result_types)}"
        )
    for out, rtype in zip(outputs, result_types, strict=True):
        spec = _result_spec(rtype)
        shape = None if spec is None else spec[1]
        if spec is None or shape is None:
            raise KernelError(f"kernel '{ge_type}': result type {rtype} has no static shape")
        dtype = spec[0]
        if out.shape != shape or out.dtype != dtype:
            raise KernelError(
                f"kernel '{ge_type}' was given an output {out.dtype}{list(out.shape)}, "
                f"its result type says {dtype}{list(shape)}"
            )
    fn = get_kernel_into(ge_type)
    if fn is not None:
        fn(inputs, attrs, result_types, outputs)
        return
    for out, result in zip(outputs, run_kernel(ge_type, inputs, attrs, result_types), strict=True):
        np.copyto(out, result)


def into(ge_type: str, out: np.ndarray, result: np.ndarray | np.generic) -> None:
    """Writes a kernel result computed out of place into `out`, as `run_kernel` casts it:
    KernelError if its shape is not `out`'s (numpy would broadcast it silently)."""
    if np.shape(result) != out.shape:
        raise KernelError(
            f"kernel '{ge_type}' produced shape {list(np.shape(result))}, "
            f"its result type says {list(out.shape)}"
        )
    np.copyto(out, result, casting="unsafe")


def in_place_target(
    out: np.ndarray | None, shape: Sequence[int], dtype: np.dtype | type
) -> np.ndarray:
    """`out` if a kernel can compute in it step by step (it has the result's shape and the
    dtype the kernel computes in, so no step rounds differently), else a new array: the
    kernel then ends with `finish_into`."""
    if out is not None and out.shape == tuple(shape) and out.dtype == dtype:
        return out
    return np.empty(shape, dtype)


def finish_into(ge_type: str, out: np.ndarray, result: np.ndarray) -> None:
    """The end of an out-variant that computed via `in_place_target`: nothing if it computed
    in `out`, else the cast copy (KernelError if the shapes differ)."""
    if result is not out:
        into(ge_type, out, result)


def check_broadcast_into(ge_type: str, out: np.ndarray, *inputs: np.ndarray) -> None:
    """KernelError unless `inputs` broadcast to exactly `out`'s shape: a ufunc given `out=`
    would also broadcast inputs up to a larger output, where `run_kernel` reports a mismatch."""
    shape = out.shape
    for x in inputs:
        if x.shape == shape:
            return  # the ufunc checks that the others broadcast to it
    try:
        got = np.broadcast_shapes(*(x.shape for x in inputs))
    except ValueError:
        return  # the ufunc raises numpy's message, which `known_failure` words for users
    if got != shape:
        shapes = " and ".join(str(list(x.shape)) for x in inputs)
        raise KernelError(f"{ge_type}: inputs {shapes} do not broadcast to {list(shape)}")


BROADCAST_ERROR = re.compile(
    r"could not be broadcast together with shapes \(([0-9, ]*)\) \(([0-9, ]*)\)"
)
"""numpy's message for operands whose shapes do not broadcast (shapes known only at run time)."""


def _shape_text(numpy_shape: str) -> str:
    return "[" + ",".join(d.strip() for d in numpy_shape.split(",") if d.strip()) + "]"


def known_failure(error: BaseException) -> str | None:
    """What a kernel failure means for the user, when it is one the input causes and numpy
    words for programmers: `unsupported element type bf16`, `broadcast of [3] and [4]`. The
    caller adds `in op X`. None for any other error."""
    from gedialects.tensors import UnsupportedDtypeError

    if isinstance(error, UnsupportedDtypeError) and error.element_type:
        return f"unsupported element type {error.element_type}"
    if isinstance(error, ValueError):
        shapes = BROADCAST_ERROR.search(str(error))
        if shapes is not None:
            a, b = (_shape_text(s) for s in shapes.groups())
            return f"broadcast of {a} and {b}"
    return None


def bind_kernel(
    ge_type: str, result_types: Sequence[Attribute]
) -> Callable[[Sequence[np.ndarray], KernelAttrs], tuple[np.ndarray, ...]]:
    """`run_kernel` of one op, with what depends only on the op decided once: the kernel
    function, the budget check of its static outputs, whether a broadcast is sized first and
    each result's dtype and shape (the compiled executors call this per op, once per module).
    The bound function gives what `run_kernel` gives and raises what it raises, at the same
    point (an unknown kernel when it runs)."""
    types = tuple(result_types)
    total = sum(_static_nbytes(t) for t in types)
    broadcast = ge_type in _broadcasting_types() and not all(_static_nbytes(t) for t in types)
    if total > SMALL_OUTPUTS or broadcast:
        return lambda inputs, attrs: run_kernel(ge_type, inputs, attrs, types)
    try:
        fn = get_kernel(ge_type)
    except KernelError:
        return lambda inputs, attrs: run_kernel(ge_type, inputs, attrs, types)
    specs = tuple(_result_spec(t) for t in types)

    if len(specs) != 1:

        def bound(inputs: Sequence[np.ndarray], attrs: KernelAttrs) -> tuple[np.ndarray, ...]:
            return _cast_outputs(ge_type, fn(inputs, attrs, types), specs)

        return bound
    spec = specs[0]

    def bound_one(inputs: Sequence[np.ndarray], attrs: KernelAttrs) -> tuple[np.ndarray, ...]:
        """`bound` of a one-result op, without the loop (most ops; 1.8 -> 0.5 us a call)."""
        outputs = fn(inputs, attrs, types)
        if len(outputs) != 1:
            return _cast_outputs(ge_type, outputs, specs)  # raises the count's error
        return (_cast_output(ge_type, outputs[0], spec),)

    return bound_one


# --------------------------------------------------------------------------------------------
# Heavy formats: kernels of heavy ops (GEOp.HEAVY_PORTS) take them by unpack, compute, pack
# --------------------------------------------------------------------------------------------


def _input_types(attrs: KernelAttrs) -> tuple[Attribute, ...] | None:
    desc = attrs.get(INPUT_DESC)
    return tuple(desc.data) if isinstance(desc, ArrayAttr) else None


def heavy_kernel(fn: Kernel) -> Kernel:
    """`fn` (a heavy op's kernel on origin formats) taking heavy formats too."""

    def run(
        inputs: Sequence[np.ndarray], attrs: KernelAttrs, result_types: Sequence[Attribute]
    ) -> tuple[np.ndarray, ...]:
        types = _input_types(attrs)
        if types is None:
            return fn(inputs, attrs, result_types)
        if len(types) != len(inputs):
            raise KernelError(f"{INPUT_DESC} names {len(types)} inputs, got {len(inputs)}")
        try:
            plain_in = [to_origin(np.asarray(x), t) for x, t in zip(inputs, types, strict=True)]
        except LayoutError as e:
            raise KernelError(str(e)) from None
        plain_types = [
            TensorType(t.element_type, e.shape)
            if isinstance(t, TensorType) and (e := format_of(t)) is not None
            else t
            for t in result_types
        ]
        outs = fn(plain_in, {k: v for k, v in attrs.items() if k != INPUT_DESC}, plain_types)
        return tuple(from_origin(np.asarray(y), t) for y, t in zip(outs, result_types, strict=True))

    run.__doc__ = fn.__doc__
    return run


def heavy_kernel_into(
    fn: KernelInto, whole: Kernel, formatted: FormattedInto | None = None
) -> KernelInto:
    """`fn` (an out-variant) taking heavy formats: the operands unpacked as `heavy_kernel`
    does, `fn` writing each formatted result's origin tensor into a scratch buffer (a fresh
    array would cost a page fault per 4 KiB each run), which is then packed straight into
    the output (`layouts.pack_into`: one strided copy, no packed temporary). `whole` (the
    adapted kernel) and a copy where the types are not the plain tensors this needs.
    `formatted`, the op type's heavy-format out-variant, is tried first."""

    def run(
        inputs: Sequence[np.ndarray],
        attrs: KernelAttrs,
        result_types: Sequence[Attribute],
        outputs: Sequence[np.ndarray],
    ) -> None:
        types = _input_types(attrs)
        if types is None:
            fn(inputs, attrs, result_types, outputs)
            return
        if (
            formatted is not None
            and len(types) == len(inputs)
            and formatted(inputs, attrs, types, result_types, outputs)
        ):
            return
        plain_types: list[Attribute] = []
        plain_out: list[np.ndarray] = []
        for k, (t, out) in enumerate(zip(result_types, outputs, strict=True)):
            e = format_of(t) if isinstance(t, TensorType) else None
            if e is None:
                plain_types.append(t)
                plain_out.append(out)
                continue
            assert isinstance(t, TensorType)
            plain_types.append(TensorType(t.element_type, e.shape))
            plain_out.append(scratch(f"heavy_out{k}", e.shape, out.dtype))
        if len(types) != len(inputs):
            for out, y in zip(outputs, whole(inputs, attrs, result_types), strict=True):
                np.copyto(out, y, casting="unsafe")
            return
        try:
            plain_in = [
                _unpacked(np.asarray(x), t, f"heavy_in{k}")
                for k, (x, t) in enumerate(zip(inputs, types, strict=True))
            ]
        except LayoutError as e:
            raise KernelError(str(e)) from None
        fn(plain_in, {k: v for k, v in attrs.items() if k != INPUT_DESC}, plain_types, plain_out)
        for out, y, t in zip(outputs, plain_out, result_types, strict=True):
            if y is not out:
                pack_into(y, t, out)

    return run


def _unpacked(x: np.ndarray, t: Attribute, key: str) -> np.ndarray:
    """`to_origin(x, t)`; an NC1HWC0 feature map of an NCHW origin is unpacked into the
    scratch `key` (one strided copy per channel block) instead of a fresh array."""
    enc = format_of(t)
    if (
        enc is None
        or enc.fmt != "NC1HWC0"
        or enc.origin != "NCHW"
        or len(enc.shape) != 4
        or not isinstance(t, TensorType)
    ):
        return to_origin(x, t)
    n, c, h, w = enc.shape
    c0 = c0_of(t.element_type)
    c1 = -(-c // c0)
    if x.shape != (n, c1, h, w, c0):
        return to_origin(x, t)  # its LayoutError
    y = scratch(key, enc.shape, x.dtype)
    unpack_into(x, y)
    return y


def _adapt_heavy_kernels(heavy: Sequence[str]) -> None:
    """Wraps the kernels of the heavy op types `heavy` in place (the registry calls this once
    all kernel modules are loaded)."""
    for ge_type in heavy:
        fn = _KERNELS.get(ge_type)
        if fn is None:
            continue
        _KERNELS[ge_type] = heavy_kernel(fn)
        into = _KERNELS_INTO.get(ge_type)
        if into is not None:
            _KERNELS_INTO[ge_type] = heavy_kernel_into(
                into, _KERNELS[ge_type], _KERNELS_FORMATTED.get(ge_type)
            )
