"""Recurrent layers over a whole sequence (GE rnn.h): DynamicRNN (LSTM), DynamicGRUV2 (GRU)
and RNN (Elman). GE places them on AI Core; each runs its time loop inside one kernel."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import ClassVar

from xdsl.dialects.builtin import (
    I64,
    BoolAttr,
    DenseArrayBase,
    FloatAttr,
    IntegerAttr,
    StringAttr,
    f32,
)
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.irdl import (
    irdl_op_definition,
    operand_def,
    opt_operand_def,
    prop_def,
    result_def,
    traits_def,
)
from xdsl.traits import Pure

from gedialects.base import GEOp, NodeSyntax, OperandValues, dims_agree, element_type, tensor_shape
from gedialects.graph.common import (
    AnyTensor,
    Shape,
    bool_attr,
    build_result_types,
    fail,
    format_shape,
    i64_attr,
    prop_bool,
    prop_int,
    prop_str,
    tensor_of,
    verify_element_types,
    verify_index_tensor,
    verify_inferred,
)
from gedialects.graph.elementwise import is_float

DIRECTIONS = ("forward", "reverse", "bidirectional")
ACTIVATIONS = (
    "Relu", "Tanh", "Sigmoid", "Affine", "LeakyRelu", "ThresholdedRelu", "ScaledTanh",
    "HardSigmoid", "Elu", "Softsign", "Softplus",
)  # fmt: skip
"""The activation functions ONNX's recurrent ops name (alpha/beta per entry)."""


def _join(a: int, b: int, what: str) -> int:
    if a >= 0 and b >= 0 and a != b:
        raise ValueError(f"{what}: {a} and {b} differ")
    return a if a >= 0 else b


class RecurrentOpBase(GEOp, NodeSyntax):
    """Shared rule and checks. Operands `x, w, r, b, init_h, [init_c, p], [seq_length]`."""

    GATES: ClassVar[int]
    CELL: ClassVar[bool] = False
    ACTIVATION_COUNT: ClassVar[int]

    hidden_size = prop_def(IntegerAttr[I64])
    direction = prop_def(StringAttr, default_value=StringAttr("forward"))
    activations = prop_def(StringAttr)
    activation_alpha = prop_def(DenseArrayBase.constr(f32))
    activation_beta = prop_def(DenseArrayBase.constr(f32))
    cell_clip = prop_def(FloatAttr.constr(f32), default_value=FloatAttr(-1.0, f32))
    time_major = prop_def(BoolAttr, default_value=bool_attr(True))

    traits = traits_def(Pure())

    @staticmethod
    def base_properties(
        hidden_size: int,
        direction: str,
        activations: Sequence[str],
        alpha: Sequence[float],
        beta: Sequence[float],
        cell_clip: float,
        time_major: bool,
    ) -> dict[str, Attribute]:
        return {
            "hidden_size": i64_attr(hidden_size),
            "direction": StringAttr(direction),
            "activations": StringAttr(",".join(activations)),
            "activation_alpha": DenseArrayBase.from_list(f32, list(alpha)),
            "activation_beta": DenseArrayBase.from_list(f32, list(beta)),
            "cell_clip": FloatAttr(cell_clip, f32),
            "time_major": bool_attr(time_major),
        }

    @classmethod
    def fixed_operands(cls) -> int:
        return 7 if cls.CELL else 5

    @classmethod
    def infer_result_types(
        cls,
        operand_types: Sequence[Attribute],
        properties: Mapping[str, Attribute],
        values: OperandValues,
    ) -> tuple[Attribute, ...]:
        """Y `[S, dirs, B, H]` (`[B, S, dirs, H]` batch-major), the last states `[dirs, B, H]`
        (`[B, dirs, H]`)."""
        fixed = cls.fixed_operands()
        if len(operand_types) not in (fixed, fixed + 1):
            raise ValueError(f"'{cls.name}' takes {fixed} or {fixed + 1} operands")
        hidden = prop_int(cls, properties, "hidden_size")
        if hidden <= 0:
            raise ValueError(f"hidden_size must be positive, got {hidden}")
        direction = prop_str(cls, properties, "direction")
        if direction not in DIRECTIONS:
            raise ValueError('direction must be "forward", "reverse" or "bidirectional"')
        dirs = 2 if direction == "bidirectional" else 1
        names = prop_str(cls, properties, "activations").split(",")
        if len(names) != cls.ACTIVATION_COUNT * dirs:
            raise ValueError(
                f"activations must name {cls.ACTIVATION_COUNT * dirs} functions, got {len(names)}"
            )
        bad = [n for n in names if n not in ACTIVATIONS]
        if bad:
            raise ValueError(f'activation "{bad[0]}" is not one of {", ".join(ACTIVATIONS)}')
        for key in ("activation_alpha", "activation_beta"):
            attr = properties.get(key)
            if isinstance(attr, DenseArrayBase) and len(attr) != len(names):
                raise ValueError(f"{key} must have one value per activation")
        major = prop_bool(cls, properties, "time_major")
        elem = element_type(operand_types[0])
        x = tensor_shape(operand_types[0])
        steps, batch = -1, -1
        if x is not None:
            if len(x) != 3:
                raise ValueError(f"x must be 3-D, got {format_shape(x)}")
            steps, batch = (x[0], x[1]) if major else (x[1], x[0])
        g = cls.GATES * hidden
        expect: list[tuple[str, int, Shape]] = [
            ("w", 1, (dirs, g, -1 if x is None else x[2])),
            ("r", 2, (dirs, g, hidden)),
            ("b", 3, (dirs, 2 * g)),
        ]
        if cls.CELL:
            expect.append(("p", 6, (dirs, 3 * hidden)))
        for what, i, dims in expect:
            shape = tensor_shape(operand_types[i])
            if shape is not None and (
                len(shape) != len(dims)
                or any(a >= 0 and b >= 0 and a != b for a, b in zip(shape, dims, strict=True))
            ):
                raise ValueError(f"{what} must be {format_shape(dims)}, got {format_shape(shape)}")
        states = [("init_h", 4)] + ([("init_c", 5)] if cls.CELL else [])
        for what, i in states:
            shape = tensor_shape(operand_types[i])
            if shape is None:
                continue
            d, bt = (shape[0], shape[1]) if major and len(shape) == 3 else (-1, -1)
            if not major and len(shape) == 3:
                bt, d = shape[0], shape[1]
            if len(shape) != 3 or (d >= 0 and d != dirs) or not dims_agree(shape[2], hidden):
                raise ValueError(f"{what} must be [dirs, batch, hidden], got {format_shape(shape)}")
            if bt >= 0 and bt != 1:
                batch = _join(batch, bt, f"{what} batch and x batch")
        if len(operand_types) > fixed:
            lengths = tensor_shape(operand_types[fixed])
            if lengths is not None:
                if len(lengths) != 1:
                    raise ValueError(f"seq_length must be [batch], got {format_shape(lengths)}")
                batch = _join(batch, lengths[0], "seq_length and x batch")
        y: Shape = (steps, dirs, batch, hidden) if major else (batch, steps, dirs, hidden)
        last: Shape = (dirs, batch, hidden) if major else (batch, dirs, hidden)
        results = [tensor_of(elem, y), tensor_of(elem, last)]
        if cls.CELL:
            results.append(tensor_of(elem, last))
        return tuple(results)

    def verify_(self) -> None:
        fixed = self.fixed_operands()
        verify_element_types(
            self, [v.type for v in self.operands[:fixed]] + list(self.result_types), "tensors"
        )
        if not is_float(element_type(self.operands[0].type)):
            fail(self, f"x must be a floating-point tensor, got {self.operands[0].type}")
        if len(self.operands) > fixed:
            verify_index_tensor(self, "seq_length", self.operands[fixed].type)
        verify_inferred(self, "the sequence shape")


def _operands(
    fixed: Sequence[SSAValue | Operation], seq_length: SSAValue | Operation | None
) -> list[SSAValue | Operation | list[SSAValue | Operation]]:
    return [*fixed, [] if seq_length is None else [seq_length]]


@irdl_op_definition
class DynamicRNNOp(RecurrentOpBase):
    """GE DynamicRNN: an LSTM over the sequence (GE's `cell_type` "LSTM"), ONNX LSTM's math.

    Gates in ONNX's order i, o, f, c: `w` `[dirs, 4H, I]`, `r` `[dirs, 4H, H]`, `b` `[dirs,
    8H]` (input then recurrent biases), peepholes `p` `[dirs, 3H]` (i, o, f; GE's wci, wco,
    wcf). `init_h`/`init_c` are `[dirs, B or 1, H]` (batch-major: `[B or 1, dirs, H]`; 1
    broadcasts). `activations` names f, g, h per direction, with `activation_alpha`/`_beta`;
    `cell_clip` >= 0 clips the gate inputs; `input_forget` couples f = 1 - i. `seq_length`
    `[B]` stops each sequence early (its later outputs are 0). `time_major` false is ONNX's
    layout 1. Results: Y, the last hidden and the last cell state.

        %y, %h, %c = graph.dynamic_rnn %x, %w, %r, %b, %h0, %c0, %p hidden_size 3
            activations "Sigmoid,Tanh,Tanh" activation_alpha [0.0, 0.0, 0.0]
            activation_beta [0.0, 0.0, 0.0]
            : (tensor<2x1x4xf32>, tensor<1x12x4xf32>, tensor<1x12x3xf32>, tensor<1x24xf32>,
               tensor<1x1x3xf32>, tensor<1x1x3xf32>, tensor<1x9xf32>)
            -> (tensor<2x1x1x3xf32>, tensor<1x1x3xf32>, tensor<1x1x3xf32>)
    """

    name = "graph.dynamic_rnn"
    GE_TYPE: ClassVar[str] = "DynamicRNN"
    GATES: ClassVar[int] = 4
    CELL: ClassVar[bool] = True
    ACTIVATION_COUNT: ClassVar[int] = 3

    x = operand_def(AnyTensor)
    w = operand_def(AnyTensor)
    r = operand_def(AnyTensor)
    b = operand_def(AnyTensor)
    init_h = operand_def(AnyTensor)
    init_c = operand_def(AnyTensor)
    p = operand_def(AnyTensor)
    seq_length = opt_operand_def(AnyTensor)
    y = result_def(AnyTensor)
    output_h = result_def(AnyTensor)
    output_c = result_def(AnyTensor)

    input_forget = prop_def(BoolAttr, default_value=bool_attr(False))

    def __init__(
        self,
        operands: Sequence[SSAValue | Operation],
        seq_length: SSAValue | Operation | None,
        properties: Mapping[str, Attribute],
        *,
        input_forget: bool = False,
    ) -> None:
        """`operands`: x, w, r, b, init_h, init_c, p; `properties` from base_properties."""
        props = {**properties, "input_forget": bool_attr(input_forget)}
        groups = _operands(operands, seq_length)
        types = build_result_types(type(self), groups, props)
        super().__init__(operands=groups, result_types=types, properties=props)


@irdl_op_definition
class DynamicGRUV2Op(RecurrentOpBase):
    """GE DynamicGRUV2: a GRU over the sequence, ONNX GRU's math.

    Gates in ONNX's order z, r, h: `w` `[dirs, 3H, I]`, `r` `[dirs, 3H, H]`, `b` `[dirs,
    6H]`. `reset_after` (GE's name; ONNX's linear_before_reset) applies the reset gate after
    the recurrent product. The other properties and operands are as in `graph.dynamic_rnn`
    (no cell state); `activations` names f, g per direction.

        %y, %h = graph.dynamic_gruv2 %x, %w, %r, %b, %h0 hidden_size 3
            activations "Sigmoid,Tanh" activation_alpha [0.0, 0.0]
            activation_beta [0.0, 0.0]
            : (tensor<2x1x4xf32>, tensor<1x9x4xf32>, tensor<1x9x3xf32>, tensor<1x18xf32>,
               tensor<1x1x3xf32>) -> (tensor<2x1x1x3xf32>, tensor<1x1x3xf32>)
    """

    name = "graph.dynamic_gruv2"
    GE_TYPE: ClassVar[str] = "DynamicGRUV2"
    GATES: ClassVar[int] = 3
    ACTIVATION_COUNT: ClassVar[int] = 2

    x = operand_def(AnyTensor)
    w = operand_def(AnyTensor)
    r = operand_def(AnyTensor)
    b = operand_def(AnyTensor)
    init_h = operand_def(AnyTensor)
    seq_length = opt_operand_def(AnyTensor)
    y = result_def(AnyTensor)
    output_h = result_def(AnyTensor)

    reset_after = prop_def(BoolAttr, default_value=bool_attr(False))

    def __init__(
        self,
        operands: Sequence[SSAValue | Operation],
        seq_length: SSAValue | Operation | None,
        properties: Mapping[str, Attribute],
        *,
        reset_after: bool = False,
    ) -> None:
        """`operands`: x, w, r, b, init_h; `properties` from base_properties."""
        props = {**properties, "reset_after": bool_attr(reset_after)}
        groups = _operands(operands, seq_length)
        types = build_result_types(type(self), groups, props)
        super().__init__(operands=groups, result_types=types, properties=props)


@irdl_op_definition
class RNNOp(RecurrentOpBase):
    """GE RNN: an Elman network over the sequence, `H_t = f(X_t W^T + H_{t-1} R^T + b)`.

    GE's RNN is Caffe's recurrent layer with this recurrence; here with ONNX RNN's operands:
    `w` `[dirs, H, I]`, `r` `[dirs, H, H]`, `b` `[dirs, 2H]`, one activation per direction;
    the rest as in `graph.dynamic_rnn` (no cell state).

        %y, %h = graph.rnn %x, %w, %r, %b, %h0 hidden_size 3 activations "Tanh"
            activation_alpha [0.0] activation_beta [0.0]
            : (tensor<2x1x4xf32>, tensor<1x3x4xf32>, tensor<1x3x3xf32>, tensor<1x6xf32>,
               tensor<1x1x3xf32>) -> (tensor<2x1x1x3xf32>, tensor<1x1x3xf32>)
    """

    name = "graph.rnn"
    GE_TYPE: ClassVar[str] = "RNN"
    GATES: ClassVar[int] = 1
    ACTIVATION_COUNT: ClassVar[int] = 1

    x = operand_def(AnyTensor)
    w = operand_def(AnyTensor)
    r = operand_def(AnyTensor)
    b = operand_def(AnyTensor)
    init_h = operand_def(AnyTensor)
    seq_length = opt_operand_def(AnyTensor)
    y = result_def(AnyTensor)
    output_h = result_def(AnyTensor)

    def __init__(
        self,
        operands: Sequence[SSAValue | Operation],
        seq_length: SSAValue | Operation | None,
        properties: Mapping[str, Attribute],
    ) -> None:
        """`operands`: x, w, r, b, init_h; `properties` from base_properties."""
        groups = _operands(operands, seq_length)
        types = build_result_types(type(self), groups, properties)
        super().__init__(operands=groups, result_types=types, properties=dict(properties))


__all__ = [
    "ACTIVATIONS",
    "DIRECTIONS",
    "DynamicGRUV2Op",
    "DynamicRNNOp",
    "RNNOp",
    "RecurrentOpBase",
]

OPS = (DynamicRNNOp, DynamicGRUV2Op, RNNOp)
"""The ops of this module, in the order the dialect lists them."""
