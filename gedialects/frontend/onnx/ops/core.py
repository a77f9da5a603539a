"""ONNX converters: core ops with no graph op of their own (Constant, Identity)."""

from __future__ import annotations

import numpy as np
from onnx import helper

from gedialects.frontend.onnx.importer import (
    element_type,
    initializer_array,
    sparse_initializer_array,
)
from gedialects.frontend.onnx.registry import NodeContext, Outputs, converter, unicode_array


@converter("Constant")
def constant(ctx: NodeContext) -> Outputs:
    """Constant -> `graph.const` named after the node; every value attribute of opsets 11-28."""
    if len(ctx.node.attribute) != 1:
        ctx.fail(f"expects exactly one value attribute, got {len(ctx.node.attribute)}")
    a = ctx.node.attribute[0]
    what = f"value attribute '{a.name}'"
    if a.name == "value":
        element_type(a.t.data_type, what)
        array = initializer_array(a.t)
    elif a.name == "sparse_value":
        element_type(a.sparse_tensor.values.data_type, what)
        array = sparse_initializer_array(a.sparse_tensor)
    elif a.name == "value_float":
        array = np.array(a.f, dtype=np.float32)
    elif a.name == "value_floats":
        array = np.array(a.floats, dtype=np.float32)
    elif a.name == "value_int":
        array = np.array(a.i, dtype=np.int64)
    elif a.name == "value_ints":
        array = np.array(a.ints, dtype=np.int64)
    elif a.name == "value_string":
        array = unicode_array(np.array(a.s, dtype=object), what)
    elif a.name == "value_strings":
        array = unicode_array(np.array(list(a.strings), dtype=object), what)
    else:
        ctx.fail(f"unknown attribute '{a.name}' ({helper.printable_attribute(a)})")
    return [ctx.const(array, suffix="")]


@converter("Identity")
def identity(ctx: NodeContext) -> Outputs:
    """Identity is the value itself: no op, the output name aliases the input."""
    return [ctx.input(0)]
