"""ONNX ops imported as their ONNX function bodies: LinearAttention, CausalConvWithState,
FlexAttention (ai.onnx.preview) and CenterCropPad.

GE has no single kernel for these; a framework op without one is expanded into the ops that
define it (GE's parser does this for ONNX function ops; onnxruntime inlines the function of an
op it has no kernel for). The body comes from the op's schema: the context-dependent
function, built for the node's attributes and input types, or the plain one; attributes the
node leaves out take their schema defaults, as onnx's own expansion does. The body's nodes are
then converted one by one by their own converters, with names prefixed by the node's name.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterator
from typing import Any

import onnx
from onnx import helper
from xdsl.dialects.builtin import TensorType, UnrankedTensorType
from xdsl.ir import SSAValue

from gedialects.frontend.onnx.registry import NodeContext, Outputs, converter
from gedialects.tensors import UnsupportedDtypeError, numpy_dtype

FUNCTION_OPS: tuple[tuple[str, str], ...] = (
    ("LinearAttention", ""),
    ("CausalConvWithState", ""),
    ("FlexAttention", "ai.onnx.preview"),
    ("CenterCropPad", ""),
)
"""(op type, domain) of the ops imported through their function bodies."""


def _type_proto(ctx: NodeContext, value: SSAValue | None) -> onnx.TypeProto:
    """The ONNX type of an input (what a context-dependent function is built for)."""
    if value is None:
        return onnx.TypeProto()
    t = value.type
    if not isinstance(t, TensorType | UnrankedTensorType):
        ctx.fail(f"input of type {t} is not a tensor")
    try:
        code = helper.np_dtype_to_tensor_dtype(numpy_dtype(t.element_type))
    except (UnsupportedDtypeError, KeyError, TypeError) as e:
        ctx.fail(f"input element type {t.element_type}: {e}")
    if isinstance(t, UnrankedTensorType):
        return helper.make_tensor_type_proto(code, None)
    dims = [d if d >= 0 else None for d in t.get_shape()]
    return helper.make_tensor_type_proto(code, dims)


def _function(ctx: NodeContext) -> onnx.FunctionProto:
    node = ctx.node
    domain = "" if node.domain in ("", "ai.onnx") else node.domain
    version = ctx.opset if domain == "" else None
    try:
        schema = (
            onnx.defs.get_schema(node.op_type, version, domain)
            if version is not None
            else onnx.defs.get_schema(node.op_type, domain=domain)
        )
    except onnx.defs.SchemaError as e:
        ctx.fail(f"no schema: {e}")
    # onnx's stubs leave out the versioned function accessors of OpSchema (onnx 1.23 has them)
    functions: Any = schema
    plain = [v for v in functions.function_opset_versions if version is None or v <= version]
    dependent = [
        v
        for v in functions.context_dependent_function_opset_versions
        if version is None or v <= version
    ]
    function = onnx.FunctionProto()
    if dependent and (not plain or max(dependent) >= max(plain)):
        types = [_type_proto(ctx, v).SerializeToString() for v in ctx.inputs]
        data = functions.get_context_dependent_function_with_opset_version(
            max(dependent), node.SerializeToString(), types
        )
        if not data:
            ctx.fail("the op's function cannot be built for these inputs")
    elif plain:
        data = functions.get_function_with_opset_version(max(plain))
    else:
        ctx.fail(f"the op has no function body at opset {ctx.opset}")
    function.ParseFromString(data)
    return function


def _renamed(
    node: onnx.NodeProto,
    rename: Callable[[str], str],
    attributes: dict[str, onnx.AttributeProto],
    prefix: str,
    serial: Iterator[int],
) -> onnx.NodeProto:
    """`node` of a function body with its edges renamed and `ref_attr_name`s resolved."""
    out = onnx.NodeProto()
    out.CopyFrom(node)
    out.name = f"{prefix}{node.name or node.op_type}_{next(serial)}"
    del out.input[:], out.output[:], out.attribute[:]
    out.input.extend(rename(n) for n in node.input)
    out.output.extend(rename(n) for n in node.output)
    for attr in node.attribute:
        if attr.HasField("ref_attr_name"):
            if attr.ref_attr_name in attributes:
                new = onnx.AttributeProto()
                new.CopyFrom(attributes[attr.ref_attr_name])
                new.name = attr.name
                out.attribute.append(new)
            continue
        new = onnx.AttributeProto()
        new.CopyFrom(attr)
        graphs = [new.g] if new.HasField("g") else list(new.graphs)
        for g in graphs:
            _rename_graph(g, rename, attributes, prefix, serial)
        out.attribute.append(new)
    return out


def _rename_graph(
    graph: onnx.GraphProto,
    rename: Callable[[str], str],
    attributes: dict[str, onnx.AttributeProto],
    prefix: str,
    serial: Iterator[int],
) -> None:
    """A subgraph of a body node: its own names get the prefix, outer names `rename`."""
    own: dict[str, str] = {}
    for v in (*graph.input, *graph.output, *graph.initializer):
        own[v.name] = v.name = prefix + v.name
    for s in graph.sparse_initializer:
        own[s.values.name] = s.values.name = prefix + s.values.name
        own[s.indices.name] = s.indices.name = prefix + s.indices.name

    def inner(name: str) -> str:
        return own.get(name) or rename(name)

    nodes = [_renamed(n, inner, attributes, prefix, serial) for n in graph.node]
    del graph.node[:]
    graph.node.extend(nodes)


def expand_function(ctx: NodeContext) -> Outputs:
    """The node as its function body, each body node converted by its converter."""
    node = ctx.node
    function = _function(ctx)
    schema_domain = "" if node.domain in ("", "ai.onnx") else node.domain
    schema = onnx.defs.get_schema(node.op_type, domain=schema_domain)
    attributes = {a.name: a for a in node.attribute}
    for name, spec in schema.attributes.items():
        if name not in attributes and spec.default_value.name:
            attributes[name] = spec.default_value
    prefix = f"{ctx.name}/"
    names: dict[str, str] = {}
    for i, formal in enumerate(function.input):
        names[formal] = node.input[i] if i < len(node.input) else ""

    def rename(name: str) -> str:
        return names.get(name, prefix + name) if name else ""

    serial = itertools.count()  # body node names are unique (an op type may recur)
    body = [_renamed(n, rename, attributes, prefix, serial) for n in function.node]
    ctx.host.convert_nodes(body)
    results: list[SSAValue | None] = []
    for i, formal in enumerate(function.output):
        if i < len(node.output):
            present = bool(node.output[i])
            results.append(ctx.host.lookup(rename(formal), ctx.name) if present else None)
    return results


for _op, _domain in FUNCTION_OPS:
    converter(_op, _domain)(expand_function)
