"""A compiled graph's inputs and outputs described as onnxruntime describes a session's
(`InferenceSession.get_inputs()` / `get_outputs()`: `NodeArg`s with name, shape and type), for
`Session.get_inputs` / `Session.get_outputs`."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from gedialects.runtime.graphs import GraphState

if TYPE_CHECKING:
    from xdsl.ir import Attribute, Operation

ONNX_TYPE_NAMES = {"float32": "float", "float64": "double"}
"""numpy dtype names that ONNX spells otherwise in `tensor(...)` (the others are the same:
float16, int8 ... int64, uint8 ... uint64, bool)."""


@dataclass(frozen=True)
class NodeArg:
    """One input or output, as onnxruntime's `NodeArg`: `shape` has None for a dim that is
    not fixed (a `?` dim, or a gear dim that differs between gears) and is None for an
    unranked tensor; `type` is ONNX's spelling (`tensor(float)`), `dtype` numpy's."""

    name: str
    shape: tuple[int | None, ...] | None
    type: str
    dtype: Any
    """numpy dtype (`Any` here: the run-time layer imports numpy only where it runs)."""


def node_arg(name: str, ttype: Attribute, shape: tuple[int | None, ...] | None = None) -> NodeArg:
    """The NodeArg of a tensor type; `shape` overrides the type's dims (gear outputs)."""
    from xdsl.dialects.builtin import TensorType, UnrankedTensorType

    from gedialects.tensors import numpy_dtype

    if isinstance(ttype, TensorType):
        dims = tuple(None if d < 0 else d for d in ttype.get_shape())
        element = ttype.element_type
    elif isinstance(ttype, UnrankedTensorType):
        dims, element = None, ttype.element_type
    else:
        raise TypeError(f"{name}: {ttype} is not a tensor type")
    dtype = numpy_dtype(element)
    onnx_name = ONNX_TYPE_NAMES.get(dtype.name, dtype.name)
    return NodeArg(name, dims if shape is None else shape, f"tensor({onnx_name})", dtype)


def _output_types(entry: Operation) -> tuple[Attribute, ...]:
    from gedialects.ascend import ModelOp
    from gedialects.graph import GraphOp

    if isinstance(entry, GraphOp):
        return entry.function_type.outputs.data
    assert isinstance(entry, ModelOp)
    return tuple(op.buffer.type for op in entry.outputs())


def describe(graph: GraphState) -> tuple[tuple[NodeArg, ...], tuple[NodeArg, ...]]:
    """The inputs and outputs of a compiled `graph` (inputs as `run_graph` takes them; a gear
    output's dims are fixed where every gear agrees, None elsewhere)."""
    from gedialects.interpreters.run import find_entry

    sig, module = graph.signature, graph.compiled
    assert sig is not None and module is not None
    inputs = tuple(
        node_arg(name, ttype) for name, ttype in zip(sig.input_names, sig.input_types, strict=True)
    )
    types = _output_types(find_entry(module, sig.entry))
    outputs: list[NodeArg] = []
    info = graph.info
    count = len(sig.output_names)  # GetNext sink: the hidden dims output is not described
    for name, ttype in zip(sig.output_names, types[:count], strict=True):
        shape: tuple[int | None, ...] | None = None
        if info is not None:
            per_gear = [info.output_dims_of(g).get(name) for g in range(info.gear_count)]
            known = [dims for dims in per_gear if dims is not None]
            if known and len(known) == len(per_gear):
                shape = tuple(
                    dims[0] if len(set(dims)) == 1 else None for dims in zip(*known, strict=True)
                )
        outputs.append(node_arg(name, ttype, shape))
    return inputs, tuple(outputs)
