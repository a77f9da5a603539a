"""The graph dialect from Python: builders and their type inference, verification, printing and
re-parsing, interpretation, and the op <-> GE type mapping."""

from __future__ import annotations

import re
from io import StringIO

import numpy as np
import pytest
from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    BoolAttr,
    ModuleOp,
    StringAttr,
    TensorType,
    UnrankedTensorType,
    f32,
    i64,
)
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.utils.exceptions import VerifyException

from gedialects import make_context
from gedialects.base import STREAM_LABEL
from gedialects.graph import (
    AddOp,
    BatchNormOp,
    ConstOp,
    Conv2DOp,
    Graph,
    GraphOp,
    MatMulOp,
    MulOp,
    NetOutputOp,
    ReluOp,
    ReshapeOp,
    SubOp,
    TransposeOp,
    broadcast_shape,
    reshape_shape,
)
from gedialects.interpreters import make_interpreter
from gedialects.interpreters.graph import kernel_ops
from gedialects.interpreters.kernels import kernel_types
from gedialects.tensors import dense_from_numpy

Q = DYNAMIC_INDEX


def tensor(*dims: int) -> TensorType:
    return TensorType(f32, dims)


# --------------------------------------------------------------------------------------------
# A graph that uses every compute op, built with the builders
# --------------------------------------------------------------------------------------------

RNG = np.random.default_rng(3)
W = RNG.standard_normal((4, 3, 3, 3)).astype(np.float32)
B = RNG.standard_normal(4).astype(np.float32)
SCALE, OFFSET, MEAN = (RNG.standard_normal(4).astype(np.float32) for _ in range(3))
VAR = RNG.uniform(0.5, 2.0, 4).astype(np.float32)
WM = RNG.standard_normal((5, 4)).astype(np.float32)
ROW = RNG.standard_normal(5).astype(np.float32)


def build_module() -> ModuleOp:
    """image -> conv -> bn -> relu ("features") -> NHWC -> [36, 4] -> matmul -> sub/mul/add."""
    block = Block(arg_types=[tensor(1, 3, 6, 6)])
    (x,) = block.args
    ops: list[Operation] = []

    def add(op: Operation) -> SSAValue:
        ops.append(op)
        return op.results[0]

    def const(array: np.ndarray) -> SSAValue:
        return add(ConstOp(dense_from_numpy(array)))

    conv = add(Conv2DOp(x, const(W), const(B), strides=(1, 1, 1, 1), pads=(1, 1, 1, 1)))
    conv.owner.attributes[STREAM_LABEL] = StringAttr("s0")
    bn = add(BatchNormOp(conv, const(SCALE), const(OFFSET), const(MEAN), const(VAR), epsilon=1e-3))
    features = add(ReluOp(bn))
    nhwc = add(TransposeOp(features, (0, 2, 3, 1)))
    rows = add(ReshapeOp(nhwc, const(np.array([-1, 4], dtype=np.int64))))
    mm = add(MatMulOp(rows, const(WM), const(ROW), transpose_x2=True))
    centered = add(SubOp(mm, const(ROW)))
    squared = add(MulOp(centered, centered))
    logits = add(AddOp(squared, mm))
    ops.append(NetOutputOp([features, logits]))
    block.add_ops(ops)
    graph = GraphOp(
        "main",
        [tensor(1, 3, 6, 6)],
        [features.type, logits.type],
        Region(block),
        input_names=["image"],
        output_names=["features", "logits"],
    )
    return ModuleOp([graph])


def reference(image: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The same computation in plain numpy; the convolution as a sum over its 9 taps."""
    padded = np.pad(image, ((0, 0), (0, 0), (1, 1), (1, 1)))
    conv = np.zeros((1, 4, 6, 6), dtype=np.float64)
    for p in range(3):
        for q in range(3):
            conv += np.einsum("nchw,oc->nohw", padded[:, :, p : p + 6, q : q + 6], W[:, :, p, q])
    conv += B.reshape(1, 4, 1, 1)

    def per_channel(v: np.ndarray) -> np.ndarray:
        return v.reshape(1, 4, 1, 1)

    eps = float(np.float32(1e-3))
    bn = per_channel(SCALE) * (conv - per_channel(MEAN)) / np.sqrt(per_channel(VAR) + eps)
    features = np.maximum(bn + per_channel(OFFSET), 0)
    rows = features.transpose(0, 2, 3, 1).reshape(36, 4)
    mm = rows @ WM.T + ROW
    logits = (mm - ROW) ** 2 + mm
    return features.astype(np.float32), logits.astype(np.float32)


def print_generic(module: ModuleOp) -> str:
    stream = StringIO()
    Printer(stream=stream, print_generic_format=True).print_op(module)
    return stream.getvalue()


def test_built_graph_verifies_and_has_inferred_types() -> None:
    module = build_module()
    module.verify()
    graph = module.body.block.first_op
    assert isinstance(graph, GraphOp)
    assert graph.input_names == ("image",)
    assert graph.output_names == ("features", "logits")
    assert graph.function_type.outputs.data == (tensor(1, 4, 6, 6), tensor(36, 5))


def test_print_parse_round_trip() -> None:
    module = build_module()
    text = str(module)
    assert 'strides [1, 1, 1, 1] pads [1, 1, 1, 1] {_stream_label = "s0"} :' in text
    assert "dilations" not in text  # defaults are not printed
    ctx = make_context()
    reparsed = Parser(ctx, text).parse_module()
    reparsed.verify()
    assert str(reparsed) == text
    from_generic = Parser(ctx, print_generic(module)).parse_module()
    from_generic.verify()
    assert str(from_generic) == text
    assert reparsed.is_structurally_equivalent(module)


def test_interpret_built_graph() -> None:
    image = np.random.default_rng(5).standard_normal((1, 3, 6, 6)).astype(np.float32)
    features, logits = make_interpreter(build_module()).call_op("main", (image,))
    want_features, want_logits = reference(image)
    assert features.dtype == np.float32 and logits.dtype == np.float32
    np.testing.assert_allclose(features, want_features, rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(logits, want_logits, rtol=1e-4, atol=1e-3)


def test_interpret_reparsed_graph_gives_the_same_outputs() -> None:
    image = np.random.default_rng(6).standard_normal((1, 3, 6, 6)).astype(np.float32)
    module = build_module()
    reparsed = Parser(make_context(), str(module)).parse_module()
    for a, b in zip(
        make_interpreter(module).call_op("main", (image,)),
        make_interpreter(reparsed).call_op("main", (image,)),
        strict=True,
    ):
        np.testing.assert_array_equal(a, b)


# --------------------------------------------------------------------------------------------
# Builders: result type inference
# --------------------------------------------------------------------------------------------


def value(t: Attribute) -> SSAValue:
    """A block argument of type `t`, standing for any producer."""
    return Block(arg_types=[t]).args[0]


@pytest.mark.parametrize(
    ("a", "b", "expected"),
    [
        (tensor(2, 3), tensor(3), tensor(2, 3)),
        (tensor(2, 1), tensor(1, 3), tensor(2, 3)),
        (tensor(Q, 3), tensor(3), tensor(Q, 3)),
        (tensor(Q, 1), tensor(4, 1, 5), tensor(4, Q, 5)),
        (tensor(Q), tensor(7), tensor(7)),
        (UnrankedTensorType(f32), tensor(3), UnrankedTensorType(f32)),
    ],
)
@pytest.mark.parametrize("op_type", [AddOp, SubOp, MulOp])
def test_elementwise_infers_broadcast_type(
    op_type: type[AddOp], a: Attribute, b: Attribute, expected: Attribute
) -> None:
    op = op_type(value(a), value(b))
    assert op.y.type == expected
    op.verify()


@pytest.mark.parametrize(
    ("a", "b", "expected"),
    [
        ((2, 3), (3,), (2, 3)),
        ((), (4,), (4,)),
        ((-1, 1), (1, -1), (-1, -1)),
        ((-1,), (1,), (-1,)),
        ((5, -1), (5, 1), (5, -1)),
        (None, (3,), None),
    ],
)
def test_broadcast_shape(a, b, expected) -> None:
    assert broadcast_shape(a, b) == expected


def test_broadcast_shape_rejects_mismatch() -> None:
    with pytest.raises(ValueError, match=r"shapes \[2, 3\] and \[4\] do not broadcast"):
        broadcast_shape((2, 3), (4,))


def test_reshape_shape_with_unknown_dims() -> None:
    assert reshape_shape((-1, 3, 4), (0, -1)) == (-1, -1)
    assert reshape_shape((-1, 3, 4), (0, 0, 2, 2)) == (-1, 3, 2, 2)


@pytest.mark.parametrize(
    ("t1", "t2", "transpose_x1", "transpose_x2", "expected"),
    [
        (False, False, (2, 3), (3, 4), (2, 4)),
        (True, False, (3, 2), (3, 4), (2, 4)),
        (False, True, (2, 3), (4, 3), (2, 4)),
        (True, True, (3, 2), (4, 3), (2, 4)),
    ],
)
def test_matmul_infers_mn(t1: bool, t2: bool, transpose_x1, transpose_x2, expected) -> None:
    op = MatMulOp(
        value(tensor(*transpose_x1)),
        value(tensor(*transpose_x2)),
        transpose_x1=t1,
        transpose_x2=t2,
    )
    assert op.y.type == tensor(*expected)
    op.verify()


@pytest.mark.parametrize(
    ("x", "w", "kwargs", "expected"),
    [
        (
            (1, 3, 8, 8),
            (16, 3, 3, 3),
            {"strides": (1, 1, 2, 2), "pads": (1, 1, 1, 1)},
            (1, 16, 4, 4),
        ),
        ((2, 4, 7, 9), (6, 2, 3, 3), {"strides": (1, 1, 1, 2), "groups": 2}, (2, 6, 5, 4)),
        (
            (1, 9, 9, 4),
            (3, 3, 2, 8),
            {
                "strides": (1, 2, 2, 1),
                "pads": (0, 1, 2, 3),
                "dilations": (1, 2, 2, 1),
                "groups": 2,
                "data_format": "NHWC",
            },
            (1, 3, 5, 8),
        ),
        ((Q, 3, Q, 8), (16, 3, 3, 3), {"strides": (1, 1, 1, 1)}, (Q, 16, Q, 6)),
    ],
)
def test_conv2d_infers_output_shape(x, w, kwargs, expected) -> None:
    op = Conv2DOp(value(tensor(*x)), value(tensor(*w)), **kwargs)
    assert op.y.type == tensor(*expected)
    op.verify()


def test_transpose_infers_and_checks_perm() -> None:
    op = TransposeOp(value(tensor(1, Q, 5)), (2, 0, 1))
    assert op.y.type == tensor(5, 1, Q)
    with pytest.raises(ValueError, match="does not permute"):
        TransposeOp(value(tensor(1, 2)), (0, 0))


def test_reshape_infers_from_a_const_shape_only() -> None:
    shape = ConstOp(dense_from_numpy(np.array([0, -1], dtype=np.int64)))
    assert ReshapeOp(value(tensor(2, 3, 4)), shape).y.type == tensor(2, 12)
    assert ReshapeOp(value(UnrankedTensorType(f32)), shape).y.type == tensor(Q, Q)
    # a shape computed at run time: only its length is known
    assert ReshapeOp(value(tensor(2, 3)), value(TensorType(i64, [2]))).y.type == tensor(Q, Q)
    explicit = ReshapeOp(value(tensor(2, 3)), value(TensorType(i64, [2])), result_type=tensor(3, 2))
    explicit.verify()


def test_builder_with_explicit_wrong_type_fails_verification() -> None:
    op = AddOp(value(tensor(2, 3)), value(tensor(3)), result_type=tensor(3, 3))
    with pytest.raises(VerifyException, match=r"'graph.add' result shape \[3, 3\] differs"):
        op.verify()


def _fields(op: Operation) -> tuple[object, ...]:
    return (
        type(op),
        tuple(op.operands),
        tuple(op.result_types),
        list(op.properties.items()),
        list(op.attributes.items()),
        op.regions,
        op.successors,
    )


def test_node_builders_fast_path_builds_what_irdl_builds() -> None:
    """init_node's plain-signature path (values only, one result, no segments) and the
    IRDL builder it skips give the same op; an op with an optional operand (MatMul's bias)
    or an Operation for a value takes the IRDL path."""
    from xdsl.irdl import IRDLOperation

    a, b = value(tensor(2, 3)), value(tensor(3))
    add = AddOp(a, b)
    generic = AddOp.__new__(AddOp)
    IRDLOperation.__init__(generic, operands=[a, b], result_types=[tensor(2, 3)])
    assert _fields(add) == _fields(generic)
    assert {use.operation for use in a.uses} == {add, generic}
    relu = ReluOp(add)  # an Operation operand: the IRDL path
    assert relu.operands[0] is add.results[0]
    mm = MatMulOp(value(tensor(2, 3)), value(tensor(3, 4)), transpose_x1=False)
    assert mm.y.type == tensor(2, 4) and len(mm.operands) == 2
    assert mm.transpose_x1 == BoolAttr.from_bool(False)
    for op in (add, generic, relu, mm):
        op.verify()


def test_const_builder_and_shared_tensor_types() -> None:
    """ConstOp's direct build equals IRDL's; constants of one dtype and shape share their
    type object, others do not."""
    from xdsl.irdl import IRDLOperation

    from gedialects.tensors import tensor_type_of

    value_attr = dense_from_numpy(np.arange(6, dtype=np.float32).reshape(2, 3))
    const = ConstOp(value_attr)
    generic = ConstOp.__new__(ConstOp)
    IRDLOperation.__init__(generic, properties={"value": value_attr}, result_types=[tensor(2, 3)])
    assert _fields(const) == _fields(generic)
    const.verify()
    same = tensor_type_of(np.zeros((2, 3), np.float32))
    assert same is value_attr.type and same == tensor(2, 3)
    assert tensor_type_of(np.zeros((3, 2), np.float32)) == tensor(3, 2)
    assert tensor_type_of(np.zeros((2, 3), np.int64)) == TensorType(i64, [2, 3])


def test_batch_norm_builder_keeps_x_type_and_properties() -> None:
    p = value(tensor(3))
    op = BatchNormOp(value(tensor(2, 3)), p, p, p, p, epsilon=1e-5, data_format="NHWC")
    assert op.y.type == tensor(2, 3)
    assert op.epsilon.value.data == pytest.approx(1e-5)
    assert op.data_format.data == "NHWC"
    assert not op.is_training.value.data
    op.verify()


# --------------------------------------------------------------------------------------------
# The op <-> GE type mapping and the interpreter's coverage
# --------------------------------------------------------------------------------------------

MNEMONIC_EXCEPTIONS = {
    "MatMul": "matmul",
    "ComputeGraph": "graph",
    "Conv2DTranspose": "conv2d_transpose",
    "Conv3DTranspose": "conv3d_transpose",
}
CLASS_NAME_EXCEPTIONS = {"ComputeGraph": "GraphOp"}


def test_ge_type_is_a_bijection() -> None:
    ops = list(Graph.operations)
    types = [op.GE_TYPE for op in ops]
    assert len(set(types)) == len(types), f"duplicate GE types: {types}"
    assert len({op.name for op in ops}) == len(ops)


@pytest.mark.parametrize("op", list(Graph.operations), ids=lambda op: op.name)
def test_names_follow_the_ge_type(op: type[Operation]) -> None:
    ge_type = op.GE_TYPE
    mnemonic = re.sub(r"(?<=[a-z])(?=[A-Z])", "_", ge_type).lower()
    assert op.name == f"graph.{MNEMONIC_EXCEPTIONS.get(ge_type, mnemonic)}"
    assert op.__name__ == CLASS_NAME_EXCEPTIONS.get(ge_type, f"{ge_type}Op")
    assert op.__doc__ is not None and op.__doc__.startswith(f"GE {ge_type}")


def test_every_kernel_dispatched_op_has_a_kernel() -> None:
    dispatched = {op.GE_TYPE for op in kernel_ops()}
    structure = {"ComputeGraph", "NetOutput", "Const"}  # interpreted by their own impls
    structure |= {"If", "While", "For"}  # run their subgraphs (interpreters/control.py)
    structure |= {"Variable", "RefData", "VariableRef"}  # read the session's variables
    structure |= {"Assign", "AssignAdd", "AssignSub"}  # their kernel, then store the result
    assert dispatched == {op.GE_TYPE for op in Graph.operations} - structure
    assert dispatched <= set(kernel_types())
    assert {"Assign", "AssignAdd", "AssignSub"} <= set(kernel_types())
