"""The ONNX op converter registry and the per-node context converters work with.

A converter turns one ONNX node into graph-dialect ops:

    @converter("Relu")
    def relu(ctx: NodeContext) -> Outputs:
        return [ctx.emit(ReluOp(ctx.input(0))).results[0]]

It returns one value per node output, `None` for an optional output the node does not use.
Opset-dependent behaviour (attributes that became inputs, changed defaults) is handled inside
the converter by looking at `ctx.opset`. Converters live in `gedialects/frontend/onnx/ops/`,
one module per op category, next to the graph ops they build.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from typing import Any, NoReturn, Protocol

import numpy as np
import onnx
from onnx import helper, numpy_helper
from xdsl.dialects.builtin import DenseIntOrFPElementsAttr, StringAttr, TensorType
from xdsl.ir import Attribute, Block, Operation, SSAValue

from gedialects.base import NODE_NAME, GEOp
from gedialects.budget import MemoryBudgetError
from gedialects.fast_text import remember
from gedialects.frontend.errors import OnnxImportError
from gedialects.graph import ConstOp, GraphOp
from gedialects.interpreters.kernels import KernelError, get_kernel, run_kernel
from gedialects.strings import StringsAttr
from gedialects.tensors import const_from_numpy, numpy_from_dense

Outputs = Sequence[SSAValue | None]
Converter = Callable[["NodeContext"], Outputs]

_CONVERTERS: dict[tuple[str, str], Converter] = {}
_CONVERTER_MODULES = (
    "gedialects.frontend.onnx.ops.core",
    "gedialects.frontend.onnx.ops.elementwise",
    "gedialects.frontend.onnx.ops.nn",
    "gedialects.frontend.onnx.ops.matrix",
    "gedialects.frontend.onnx.ops.array",
    "gedialects.frontend.onnx.ops.indexing",
    "gedialects.frontend.onnx.ops.reduction",
    "gedialects.frontend.onnx.ops.control",
    "gedialects.frontend.onnx.ops.loss",
    "gedialects.frontend.onnx.ops.attention",
    "gedialects.frontend.onnx.ops.detection",
    "gedialects.frontend.onnx.ops.recurrent",
    "gedialects.frontend.onnx.ops.quant",
    "gedialects.frontend.onnx.ops.sampling",
    "gedialects.frontend.onnx.ops.generators",
    "gedialects.frontend.onnx.ops.functions",
    "gedialects.frontend.onnx.ops.spectral",
    "gedialects.frontend.onnx.ops.selection",
    "gedialects.frontend.onnx.ops.training",
    "gedialects.frontend.onnx.ops.ml",
    "gedialects.frontend.onnx.ops.text",
    "gedialects.frontend.onnx.ops.image",
)
_loaded = False

KNOWN_VALUE_LIMIT = 4096
"""Largest tensor (elements) that `NodeContext.known` computes at import time."""


def converter(op_type: str, domain: str = "") -> Callable[[Converter], Converter]:
    """Registers the decorated function as the converter of ONNX `op_type` in `domain`."""

    def register(fn: Converter) -> Converter:
        key = (domain, op_type)
        if key in _CONVERTERS:
            raise ValueError(
                f"converter for ONNX {domain or 'ai.onnx'}::{op_type} registered twice"
            )
        _CONVERTERS[key] = fn
        return fn

    return register


def _load_all() -> None:
    global _loaded
    if not _loaded:
        _loaded = True
        for module in _CONVERTER_MODULES:
            importlib.import_module(module)


def get_converter(op_type: str, domain: str = "") -> Converter | None:
    _load_all()
    return _CONVERTERS.get(("" if domain == "ai.onnx" else domain, op_type))


def supported_ops() -> tuple[str, ...]:
    """The ONNX op types (default domain) that have a converter."""
    _load_all()
    return tuple(sorted(op for domain, op in _CONVERTERS if domain == ""))


_REQUIRED = object()


class SubgraphHost(Protocol):
    """What the importer of one graph offers converters of nodes with subgraphs (If, Loop,
    Scan): names of outer scope, values of its scope, and building subgraphs."""

    def lookup(self, name: str, what: str | None) -> SSAValue: ...

    def free_names(self, graphs: Sequence[onnx.GraphProto]) -> list[str]: ...

    def graph_name(self, node: str, index: int, attr: str) -> str: ...

    def subgraph(
        self,
        proto: onnx.GraphProto,
        name: str,
        inputs: Sequence[tuple[str | None, Attribute]],
        parent_index: Sequence[int],
        finish: Callable[[NodeContext, list[SSAValue], list[SSAValue]], list[SSAValue]]
        | None = None,
        node: onnx.NodeProto | None = None,
        prologue: Callable[[NodeContext, list[SSAValue]], dict[str, SSAValue]] | None = None,
    ) -> GraphOp: ...

    def keep(self, graphs: Sequence[GraphOp]) -> None: ...

    def convert_nodes(self, nodes: Sequence[onnx.NodeProto]) -> None: ...

    def trial(self) -> AbstractContextManager[None]: ...


@dataclass
class ImportState:
    """What the importer shares across nodes: the block being filled and known values."""

    block: Block
    known_values: dict[SSAValue, np.ndarray | None] = field(default_factory=dict)
    counter: int = 0
    host: SubgraphHost | None = None
    """The importer filling `block` (for converters of nodes with subgraphs)."""


def unicode_array(array: np.ndarray, what: str) -> np.ndarray:
    """`array` with an ONNX STRING tensor's object elements (str, or UTF-8 bytes) as a numpy
    unicode array, the interpreter's and npz's form of `!graph.string`; other arrays as they
    are. Bytes that are not UTF-8 are an OnnxImportError naming `what`."""
    if array.dtype != object:
        return array
    values = array.reshape(-1).tolist()
    for i, v in enumerate(values):
        if isinstance(v, bytes):
            try:
                values[i] = v.decode("utf-8")
            except UnicodeDecodeError:
                raise OnnxImportError(
                    f"{what} holds a string that is not UTF-8 (element {i}: {v[:20]!r})"
                ) from None
        elif not isinstance(v, str):
            raise OnnxImportError(f"{what} holds a {type(v).__name__}, not a string")
    return np.array(values, dtype=np.str_).reshape(array.shape)


@dataclass
class NodeContext:
    """One ONNX node being converted."""

    node: onnx.NodeProto
    inputs: list[SSAValue | None]
    opset: int
    """The model's ai.onnx opset version."""
    state: ImportState
    _name: str = ""

    @property
    def name(self) -> str:
        """The node name, or `<op_type>_<n>` for an unnamed node (the model is not changed)."""
        if not self._name:
            self._name = self.node.name or f"{self.node.op_type}_{self.state.counter}"
            self.state.counter += not self.node.name
        return self._name

    def fail(self, message: str) -> NoReturn:
        raise OnnxImportError(
            f"node '{self.name}' ({self.node.op_type}, opset {self.opset}): {message}"
        )

    # Inputs and attributes ------------------------------------------------------------------

    def input(self, index: int) -> SSAValue:
        """A required input."""
        value = self.optional_input(index)
        if value is None:
            self.fail(f"input {index} is required")
        return value

    def optional_input(self, index: int) -> SSAValue | None:
        """An optional input: None when absent or given as the empty name."""
        return self.inputs[index] if index < len(self.inputs) else None

    def has_attr(self, name: str) -> bool:
        return any(a.name == name for a in self.node.attribute)

    def attr(self, name: str, default: Any = _REQUIRED) -> Any:
        """An attribute as Python data: ints, floats, str (from bytes), lists, numpy tensors."""
        for a in self.node.attribute:
            if a.name == name:
                value = helper.get_attribute_value(a)
                if isinstance(value, bytes):
                    return value.decode()
                if isinstance(value, onnx.TensorProto):
                    return unicode_array(numpy_helper.to_array(value), f"attribute '{name}'")
                if isinstance(value, list) and value and isinstance(value[0], bytes):
                    return [v.decode() for v in value]
                return value
        if default is _REQUIRED:
            self.fail(f"attribute '{name}' is required")
        return default

    @property
    def host(self) -> SubgraphHost:
        host = self.state.host
        assert host is not None, "every ImportState of the importer has its host"
        return host

    # Building ---------------------------------------------------------------------------------

    def emit(self, op: Operation, suffix: str = "") -> Operation:
        """Appends `op` to the graph, named after the node (`name/suffix` for helper ops)."""
        name = f"{self.name}/{suffix}" if suffix else self.name
        op.attributes[NODE_NAME] = StringAttr(name)
        self.state.block.add_op(op)
        return op

    def const(self, array: np.ndarray, suffix: str = "const") -> SSAValue:
        """A `graph.const` holding `array` (its bytes; no Python lists; strings as
        `#graph.strings`)."""
        op = ConstOp(_const_value(np.asarray(array)))
        self.state.known_values[op.y] = np.asarray(array)
        return self.emit(op, suffix).results[0]

    # Values known at import time -----------------------------------------------------------

    def known(self, value: SSAValue | None) -> np.ndarray | None:
        """The value of `value` when the import can compute it: constants, shapes of static
        tensors, and small ops over known values (Shape -> Gather -> Concat -> Reshape chains).
        """
        return known_value(self.state, value)


SMALL_CONST_BYTES = 64
"""Helper constants up to this size share their value attribute (`_const_value`)."""

_CONSTS: dict[tuple[str, tuple[int, ...], bytes], DenseIntOrFPElementsAttr | StringsAttr] = {}


def _const_value(array: np.ndarray) -> DenseIntOrFPElementsAttr | StringsAttr:
    """The value of a helper constant (a Split's sizes and axis, a scalar's shape), one
    attribute object per distinct small value: the verifier keys an op that reads constants
    by the ids of their values, so a fresh one per node missed its table for every Split
    (attributes are immutable: sharing one changes nothing else). Bounded by
    `fast_text.remember`."""
    if array.dtype.kind not in "biuf" or array.nbytes > SMALL_CONST_BYTES:
        return const_from_numpy(array)
    key = (array.dtype.str, array.shape, array.tobytes())
    found = _CONSTS.get(key)
    if found is None:
        found = remember(_CONSTS, key, const_from_numpy(array))
    return found


def known_value(state: ImportState, value: SSAValue | None) -> np.ndarray | None:
    if value is None:
        return None
    if value in state.known_values:
        return state.known_values[value]
    result = _compute_known(state, value)
    state.known_values[value] = result
    return result


def _compute_known(state: ImportState, value: SSAValue) -> np.ndarray | None:
    op = value.owner
    if isinstance(op, ConstOp):
        return numpy_from_dense(op.value)
    if not isinstance(op, GEOp):
        return None
    if op.GE_TYPE in ("Shape", "Size") and len(op.operands) == 1:
        t = op.operands[0].type
        if isinstance(t, TensorType) and all(d >= 0 for d in t.get_shape()):
            shape = np.array(t.get_shape(), dtype=np.int64)
            data = shape if op.GE_TYPE == "Shape" else np.array(np.prod(shape), np.int64)
            out_t = value.type
            if isinstance(out_t, TensorType):
                from gedialects.tensors import numpy_dtype

                data = data.astype(numpy_dtype(out_t.element_type))
            return data
        return None
    if len(op.results) != 1:
        return None
    out_t = value.type
    if not isinstance(out_t, TensorType) or any(d < 0 for d in out_t.get_shape()):
        return None
    if int(np.prod(out_t.get_shape())) > KNOWN_VALUE_LIMIT:
        return None
    known = (known_value(state, v) for v in op.operands)
    args = [a for a in known if a is not None]
    if len(args) != len(op.operands):
        return None
    try:
        get_kernel(op.GE_TYPE)
        return run_kernel(op.GE_TYPE, args, op.properties, op.result_types)[0]
    except (KernelError, MemoryBudgetError):
        return None
