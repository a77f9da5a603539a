"""One-node ONNX models imported, run at graph level and compared with onnx's reference.

Shared by the op-category tests: `check(node, feeds)` builds a model around `node` with the
feeds as graph inputs (or initializers), imports it, runs the graph interpreter and compares
each output with `onnx.reference.ReferenceEvaluator` (exact for ints and bools).
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import onnx
from onnx import helper, numpy_helper
from onnx.reference import ReferenceEvaluator
from xdsl.dialects.builtin import ModuleOp

from gedialects.frontend.onnx import import_model
from gedialects.interpreters.run import run


def one_node_model(
    node: onnx.NodeProto,
    feeds: Mapping[str, np.ndarray],
    consts: Mapping[str, np.ndarray],
    outputs: Mapping[str, np.ndarray] | None,
    opset: int,
) -> onnx.ModelProto:
    inputs = [
        helper.make_tensor_value_info(k, helper.np_dtype_to_tensor_dtype(v.dtype), list(v.shape))
        for k, v in feeds.items()
    ]
    outs = [
        helper.make_tensor_value_info(
            name,
            helper.np_dtype_to_tensor_dtype(outputs[name].dtype)
            if outputs
            else onnx.TensorProto.FLOAT,
            None,
        )
        for name in node.output
        if name
    ]
    inits = [numpy_helper.from_array(v, k) for k, v in consts.items()]
    graph = helper.make_graph([node], "net", inputs, outs, inits)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])


def reference(
    node: onnx.NodeProto,
    feeds: Mapping[str, np.ndarray],
    consts: Mapping[str, np.ndarray] | None = None,
    opset: int = 18,
) -> dict[str, np.ndarray]:
    model = one_node_model(node, feeds, consts or {}, None, opset)
    results = ReferenceEvaluator(model).run(None, dict(feeds))
    names = [n for n in node.output if n]
    return {n: np.asarray(r) for n, r in zip(names, results, strict=True)}


def imported(
    node: onnx.NodeProto,
    feeds: Mapping[str, np.ndarray],
    consts: Mapping[str, np.ndarray] | None = None,
    opset: int = 18,
) -> ModuleOp:
    expected = reference(node, feeds, consts, opset)
    return import_model(one_node_model(node, feeds, consts or {}, expected, opset))


def check(
    node: onnx.NodeProto,
    feeds: Mapping[str, np.ndarray],
    consts: Mapping[str, np.ndarray] | None = None,
    opset: int = 18,
) -> dict[str, np.ndarray]:
    """Imports and runs the one-node model and asserts its outputs equal the reference's."""
    expected = reference(node, feeds, consts, opset)
    module = import_model(one_node_model(node, feeds, consts or {}, expected, opset))
    got = run(module, dict(feeds))
    for name, want in expected.items():
        have = got[name]
        assert have.shape == want.shape, f"{name}: shape {have.shape} != {want.shape}"
        assert have.dtype == want.dtype, f"{name}: dtype {have.dtype} != {want.dtype}"
        if want.dtype.kind in "fc":
            np.testing.assert_allclose(have, want, rtol=1e-5, atol=1e-6, err_msg=name)
        else:
            np.testing.assert_array_equal(have, want, err_msg=name)
    return got
