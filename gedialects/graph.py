"""The `graph` dialect: GE operators on tensors.

This is the top level of gedialects, the equivalent of a GE `ComputeGraph` before partitioning.
A `graph.graph` is a named graph whose entry-block arguments are GE's `Data` nodes (their names
are the `node_name` argument attributes, or the SSA names) and whose terminator `graph.net_output`
is GE's `NetOutput`. Every other op is one GE node, printed as
`%y = graph.<type> %operands (property value)* {discardable} : (operand types) -> result types`.
Op classes are named after GE's op type (`Conv2DOp` for `Conv2D`) and carry it in `GE_TYPE`.

Tensor types are builtin tensors: GE's -1 (unknown dim) is `?`, -2 (unknown rank) `tensor<*xf32>`.
Discardable GE node attributes (`_stream_label`, `_stage_level`, `_force_unknown_shape`,
`_specified_engine_name`, `_engine_name`, `node_name`) may appear on any op.

Ops appear in a graph in topological order (the verifier checks it): passes and the interpreter
rely on it.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import ClassVar, NoReturn

from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    I64,
    ArrayAttr,
    BoolAttr,
    DenseArrayBase,
    DenseIntOrFPElementsAttr,
    DictionaryAttr,
    FloatAttr,
    FunctionType,
    IntegerAttr,
    StringAttr,
    SymbolNameConstraint,
    TensorType,
    UnrankedTensorType,
    f32,
    i32,
    i64,
)
from xdsl.dialects.utils import parse_func_op_like, print_func_op_like
from xdsl.ir import Attribute, Block, Dialect, Operation, Region, SSAValue
from xdsl.irdl import (
    irdl_op_definition,
    operand_def,
    opt_operand_def,
    opt_prop_def,
    prop_def,
    region_def,
    result_def,
    traits_def,
    var_operand_def,
)
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.traits import (
    CallableOpInterface,
    ConstantLike,
    HasParent,
    IsolatedFromAbove,
    IsTerminator,
    Pure,
    ReturnLike,
    SymbolOpInterface,
)
from xdsl.utils.exceptions import VerifyException

from gedialects.base import (
    NODE_NAME,
    GEOp,
    NodeSyntax,
    element_type,
    int_array,
    int_array_values,
    is_static,
    shapes_compatible,
    tensor_shape,
    types_compatible,
)

# --------------------------------------------------------------------------------------------
# Graph structure
# --------------------------------------------------------------------------------------------


class GraphCallable(CallableOpInterface):
    """Lets `partition.partitioned_call`, `multibatch.case` and the interpreter call a graph."""

    @classmethod
    def get_callable_region(cls, op: Operation) -> Region:
        assert isinstance(op, GraphOp)
        return op.body

    @classmethod
    def get_argument_types(cls, op: Operation) -> tuple[Attribute, ...]:
        assert isinstance(op, GraphOp)
        return op.function_type.inputs.data

    @classmethod
    def get_result_types(cls, op: Operation) -> tuple[Attribute, ...]:
        assert isinstance(op, GraphOp)
        return op.function_type.outputs.data


def _names(attrs: ArrayAttr[DictionaryAttr] | None, index: int) -> str | None:
    if attrs is None or index >= len(attrs.data):
        return None
    name = attrs.data[index].data.get(NODE_NAME)
    return name.data if isinstance(name, StringAttr) else None


@irdl_op_definition
class GraphOp(GEOp):
    """GE ComputeGraph: a named graph; block arguments are its Data inputs.

    Input `i` is named by the `node_name` argument attribute, else by its SSA name, else
    `arg<i>`; outputs likewise by `node_name` result attributes, else `output<i>`. The names are
    the keys of `ge-run`'s npz files.

        graph.graph @main(%x: tensor<1x4xf32>) -> (tensor<1x4xf32> {node_name = "y"}) {
          %y = graph.relu %x : (tensor<1x4xf32>) -> tensor<1x4xf32>
          graph.net_output %y : tensor<1x4xf32>
        }
    """

    name = "graph.graph"
    GE_TYPE: ClassVar[str] = "ComputeGraph"

    sym_name = prop_def(SymbolNameConstraint())
    function_type = prop_def(FunctionType)
    arg_attrs = opt_prop_def(ArrayAttr[DictionaryAttr])
    res_attrs = opt_prop_def(ArrayAttr[DictionaryAttr])
    body = region_def("single_block")

    traits = traits_def(IsolatedFromAbove(), SymbolOpInterface(), GraphCallable())

    def __init__(
        self,
        name: str,
        inputs: Sequence[Attribute],
        outputs: Sequence[Attribute],
        body: Region | None = None,
        *,
        input_names: Sequence[str] | None = None,
        output_names: Sequence[str] | None = None,
    ) -> None:
        body = body if body is not None else Region(Block(arg_types=inputs))
        props: dict[str, Attribute] = {
            "sym_name": StringAttr(name),
            "function_type": FunctionType.from_lists(inputs, outputs),
        }
        if input_names is not None:
            props["arg_attrs"] = _name_attrs(input_names)
        if output_names is not None:
            props["res_attrs"] = _name_attrs(output_names)
        super().__init__(regions=[body], properties=props)

    @classmethod
    def parse(cls, parser: Parser) -> GraphOp:
        name, ins, outs, region, extra, arg_attrs, res_attrs = parse_func_op_like(
            parser, reserved_attr_names=("sym_name", "function_type", "arg_attrs", "res_attrs")
        )
        op = cls(name, ins, outs, region)
        op.arg_attrs = arg_attrs
        op.res_attrs = res_attrs
        if extra is not None:
            op.attributes |= extra.data
        return op

    def print(self, printer: Printer) -> None:
        print_func_op_like(
            printer,
            self.sym_name,
            self.function_type,
            self.body,
            self.attributes,
            arg_attrs=self.arg_attrs,
            res_attrs=self.res_attrs,
            reserved_attr_names=("sym_name", "function_type", "arg_attrs", "res_attrs"),
        )

    @property
    def input_names(self) -> tuple[str, ...]:
        args = self.body.block.args
        return tuple(
            _names(self.arg_attrs, i) or args[i].name_hint or f"arg{i}" for i in range(len(args))
        )

    @property
    def output_names(self) -> tuple[str, ...]:
        count = len(self.function_type.outputs.data)
        return tuple(_names(self.res_attrs, i) or f"output{i}" for i in range(count))

    def verify_(self) -> None:
        block = self.body.block
        if tuple(block.arg_types) != self.function_type.inputs.data:
            raise VerifyException(
                f"'graph.graph' @{self.sym_name.data}: entry block argument types "
                "must match the function type inputs"
            )
        for attrs, count, what in (
            (self.arg_attrs, len(block.args), "arg_attrs"),
            (self.res_attrs, len(self.function_type.outputs.data), "res_attrs"),
        ):
            if attrs is not None and len(attrs.data) != count:
                raise VerifyException(
                    f"'graph.graph' @{self.sym_name.data}: {what} has {len(attrs.data)} "
                    f"entries for {count} values"
                )
        for names, what in ((self.input_names, "input"), (self.output_names, "output")):
            if len(set(names)) != len(names):
                dup = next(n for n in names if names.count(n) > 1)
                raise VerifyException(
                    f"'graph.graph' @{self.sym_name.data}: duplicate {what} name '{dup}'"
                )
        _verify_topological(self)


def _name_attrs(names: Sequence[str]) -> ArrayAttr[DictionaryAttr]:
    return ArrayAttr([DictionaryAttr({NODE_NAME: StringAttr(n)}) for n in names])


def _verify_topological(graph: GraphOp) -> None:
    """Every operand is a graph input or the result of an earlier op (linear time)."""
    defined: set[SSAValue] = set(graph.body.block.args)
    for op in graph.body.block.ops:
        for operand in op.operands:
            if operand not in defined:
                raise VerifyException(
                    f"'graph.graph' @{graph.sym_name.data}: operand of '{op.name}' is used "
                    "before it is defined; graph ops must be in topological order"
                )
        defined.update(op.results)


@irdl_op_definition
class NetOutputOp(GEOp):
    """GE NetOutput: the outputs of the enclosing graph, in order.

    Its operand types are exactly the result types of the graph.

        graph.net_output %a, %b : tensor<2xf32>, tensor<3xi32>
    """

    name = "graph.net_output"
    GE_TYPE: ClassVar[str] = "NetOutput"

    outputs = var_operand_def(TensorType)

    traits = traits_def(IsTerminator(), ReturnLike(), HasParent(GraphOp))

    assembly_format = "attr-dict ($outputs^ `:` type($outputs))?"

    def __init__(self, outputs: Sequence[SSAValue | Operation]) -> None:
        super().__init__(operands=[outputs])

    def verify_(self) -> None:
        graph = self.parent_op()
        assert isinstance(graph, GraphOp)
        expected = graph.function_type.outputs.data
        if tuple(self.outputs.types) != expected:
            raise VerifyException(
                f"'graph.net_output' types ({', '.join(map(str, self.outputs.types))}) do not "
                f"match the outputs of @{graph.sym_name.data} ({', '.join(map(str, expected))})"
            )


# --------------------------------------------------------------------------------------------
# Constants
# --------------------------------------------------------------------------------------------


@irdl_op_definition
class ConstOp(GEOp):
    """GE Const: a weight or other constant tensor, its bytes held in a dense attribute.

    The result type is the type of the value.

        %w = graph.const dense<[1.0, 2.0]> : tensor<2xf32>
    """

    name = "graph.const"
    GE_TYPE: ClassVar[str] = "Const"

    value = prop_def(DenseIntOrFPElementsAttr)
    y = result_def(TensorType)

    traits = traits_def(Pure(), ConstantLike())

    def __init__(self, value: DenseIntOrFPElementsAttr) -> None:
        super().__init__(properties={"value": value}, result_types=[value.type])

    @classmethod
    def parse(cls, parser: Parser) -> ConstOp:
        pos = parser.pos
        value = parser.parse_attribute()
        if not isinstance(value, DenseIntOrFPElementsAttr):
            parser.raise_error("'graph.const' expects a dense<...> : tensor<...> value", pos)
        op = cls(value)
        op.attributes |= parser.parse_optional_attr_dict()
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_attribute(self.value)
        printer.print_op_attributes(self.attributes)

    def verify_(self) -> None:
        if self.y.type != self.value.type:
            raise VerifyException(
                f"'graph.const' result type {self.y.type} differs from its value's "
                f"type {self.value.type}"
            )


# --------------------------------------------------------------------------------------------
# Shape helpers and abstract bases of the compute ops
# --------------------------------------------------------------------------------------------

AnyTensor = TensorType | UnrankedTensorType
"""Operand/result constraint of compute ops: GE tensors may have unknown dims or unknown rank."""

DATA_FORMATS = ("NCHW", "NHWC")


def _fail(op: Operation, message: str) -> NoReturn:
    raise VerifyException(f"'{op.name}' {message}")


def format_shape(shape: Sequence[int]) -> str:
    """`[2, ?, 3]`: a shape as diagnostics print it."""
    return "[" + ", ".join("?" if d < 0 else str(d) for d in shape) + "]"


def tensor_of(elem: Attribute, shape: Sequence[int] | None) -> TensorType | UnrankedTensorType:
    """A tensor type from dims that use any negative value for `?`; None gives `tensor<*x...>`."""
    if shape is None:
        return UnrankedTensorType(elem)
    return TensorType(elem, [d if d >= 0 else DYNAMIC_INDEX for d in shape])


def broadcast_shape(a: Sequence[int] | None, b: Sequence[int] | None) -> tuple[int, ...] | None:
    """numpy broadcasting of two shapes (None when either rank is unknown).

    A `?` dim against 1 or `?` stays `?` (-1); against n > 1 it becomes n, the only value
    that can broadcast. Raises ValueError when two known dims disagree.
    """
    if a is None or b is None:
        return None
    rank = max(len(a), len(b))
    out: list[int] = []
    for x, y in zip(
        (1,) * (rank - len(a)) + tuple(a), (1,) * (rank - len(b)) + tuple(b), strict=True
    ):
        if x == 1 or (x < 0 and y > 1):
            out.append(y if y >= 0 else -1)
        elif y == 1 or y < 0 or x == y:
            out.append(x if x >= 0 else -1)
        else:
            raise ValueError(f"shapes {format_shape(a)} and {format_shape(b)} do not broadcast")
    return tuple(out)


def reshape_shape(shape: Sequence[int], target: Sequence[int]) -> tuple[int, ...]:
    """The shape GE/ONNX Reshape gives `shape` for the requested `target`.

    A 0 in `target` copies the input dim at that position, one -1 takes the remaining element
    count; `?` input dims make the inferred dim `?` (-1). Raises ValueError when impossible.
    """
    if sum(1 for d in target if d == -1) > 1:
        raise ValueError(f"shape {list(target)} has more than one -1")
    dims: list[int] = []
    for i, d in enumerate(target):
        if d == 0:
            if i >= len(shape):
                raise ValueError(f"shape {list(target)} copies dim {i} of a rank {len(shape)} x")
            dims.append(shape[i] if shape[i] >= 0 else -1)
        elif d < -1:
            raise ValueError(f"shape {list(target)} has the negative dim {d}")
        else:
            dims.append(d)
    if any(d < 0 for d in shape):
        return tuple(dims)
    count = _product(shape)
    known = _product(d for d in dims if d != -1)
    if -1 in dims:
        if known == 0 or count % known:
            raise ValueError(f"cannot reshape {count} elements into {list(target)}")
        dims[dims.index(-1)] = count // known
    elif known != count:
        raise ValueError(f"cannot reshape {count} elements into {list(target)}")
    return tuple(dims)


def _product(dims: Iterable[int]) -> int:
    result = 1
    for d in dims:
        result *= d
    return result


def _verify_element_types(op: Operation, types: Sequence[Attribute], what: str) -> None:
    elems = [element_type(t) for t in types]
    if any(e != elems[0] for e in elems):
        _fail(op, f"requires one element type for {what}, got {', '.join(map(str, elems))}")


def _verify_rank(op: Operation, what: str, t: Attribute, *ranks: int) -> tuple[int, ...] | None:
    """The shape of `t` after checking its rank is one of `ranks` (None when unranked)."""
    shape = tensor_shape(t)
    if shape is not None and len(shape) not in ranks:
        expected = " or ".join(f"{r}-D" for r in ranks)
        _fail(op, f"{what} must be {expected}, got {t}")
    return shape


def _verify_result_shape(op: Operation, expected: Sequence[int] | None, what: str) -> None:
    actual = tensor_shape(op.results[0].type)
    if not shapes_compatible(actual, expected):
        assert actual is not None and expected is not None
        actual_text, expected_text = format_shape(actual), format_shape(expected)
        _fail(op, f"result shape {actual_text} differs from {what} {expected_text}")


def _verify_data_format(op: Operation, data_format: StringAttr) -> None:
    if data_format.data not in DATA_FORMATS:
        _fail(op, f'data_format must be "NCHW" or "NHWC", got "{data_format.data}"')


def _bool(value: bool) -> BoolAttr:
    return BoolAttr.from_bool(value)


_FALSE = _bool(False)


class ElementwiseBinaryOp(GEOp, NodeSyntax):
    """Base of GE's broadcasting binary ops `y = x1 <op> x2` (elewise_calculation_ops.h).

    Operands and result share one element type; the result shape is the numpy broadcast of
    the operand shapes (`?` matches anything, unranked tensors are accepted).
    """

    x1 = operand_def(AnyTensor)
    x2 = operand_def(AnyTensor)
    y = result_def(AnyTensor)

    traits = traits_def(Pure())

    def __init__(
        self,
        x1: SSAValue | Operation,
        x2: SSAValue | Operation,
        *,
        result_type: Attribute | None = None,
    ) -> None:
        if result_type is None:
            t1, t2 = SSAValue.get(x1).type, SSAValue.get(x2).type
            shape = broadcast_shape(tensor_shape(t1), tensor_shape(t2))
            result_type = tensor_of(element_type(t1), shape)
        super().__init__(operands=[x1, x2], result_types=[result_type])

    def verify_(self) -> None:
        types = (self.x1.type, self.x2.type, self.y.type)
        _verify_element_types(self, types, "operands and result")
        try:
            shape = broadcast_shape(tensor_shape(self.x1.type), tensor_shape(self.x2.type))
        except ValueError as e:
            _fail(self, f"operand {e}")
        _verify_result_shape(self, shape, "the broadcast shape")


class ElementwiseUnaryOp(GEOp, NodeSyntax):
    """Base of GE's unary elementwise ops `y = f(x)`: the result type is the operand type."""

    x = operand_def(AnyTensor)
    y = result_def(AnyTensor)

    traits = traits_def(Pure())

    def __init__(self, x: SSAValue | Operation, *, result_type: Attribute | None = None) -> None:
        if result_type is None:
            result_type = SSAValue.get(x).type
        super().__init__(operands=[x], result_types=[result_type])

    def verify_(self) -> None:
        if not types_compatible(self.x.type, self.y.type):
            _fail(self, f"result type {self.y.type} differs from the operand type {self.x.type}")


# --------------------------------------------------------------------------------------------
# Elementwise (elewise_calculation_ops.h)
# --------------------------------------------------------------------------------------------


@irdl_op_definition
class AddOp(ElementwiseBinaryOp):
    """GE Add: elementwise sum with numpy broadcasting.

    See `ElementwiseBinaryOp` for the typing rules.

        %y = graph.add %a, %b : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
    """

    name = "graph.add"
    GE_TYPE: ClassVar[str] = "Add"


@irdl_op_definition
class MulOp(ElementwiseBinaryOp):
    """GE Mul: elementwise product with numpy broadcasting.

    See `ElementwiseBinaryOp` for the typing rules.

        %y = graph.mul %a, %b : (tensor<2x3xf32>, tensor<1x3xf32>) -> tensor<2x3xf32>
    """

    name = "graph.mul"
    GE_TYPE: ClassVar[str] = "Mul"


@irdl_op_definition
class SubOp(ElementwiseBinaryOp):
    """GE Sub: elementwise difference `x1 - x2` with numpy broadcasting.

    See `ElementwiseBinaryOp` for the typing rules.

        %y = graph.sub %a, %b : (tensor<?x3xf32>, tensor<3xf32>) -> tensor<?x3xf32>
    """

    name = "graph.sub"
    GE_TYPE: ClassVar[str] = "Sub"


# --------------------------------------------------------------------------------------------
# Activations (nonlinear_fuc_ops.h)
# --------------------------------------------------------------------------------------------


@irdl_op_definition
class ReluOp(ElementwiseUnaryOp):
    """GE Relu: `max(x, 0)` elementwise.

    `Relu` is the IR prototype's type (`REG_OP(Relu)`); GE's types.h also has the Caffe-style
    alias constant `RELU = "ReLU"`, which graphs built through the IR API do not use.

        %y = graph.relu %x : (tensor<1x8xf32>) -> tensor<1x8xf32>
    """

    name = "graph.relu"
    GE_TYPE: ClassVar[str] = "Relu"


# --------------------------------------------------------------------------------------------
# Matrix (matrix_calculation_ops.h)
# --------------------------------------------------------------------------------------------


@irdl_op_definition
class MatMulOp(GEOp, NodeSyntax):
    """GE MatMul: 2-D matrix product `op(x1) @ op(x2) + bias`.

    `op` transposes its operand when `transpose_x1`/`transpose_x2` is set; `x1` is then [M, K]
    and `x2` [K, N] after transposition, the optional `bias` is 1-D of length N (or 1) and the
    result is [M, N]. Batched products are GE's BatchMatMul, not this op.

        %y = graph.matmul %a, %b, %bias transpose_x2 true
            : (tensor<4x8xf32>, tensor<16x8xf32>, tensor<16xf32>) -> tensor<4x16xf32>
    """

    name = "graph.matmul"
    GE_TYPE: ClassVar[str] = "MatMul"

    x1 = operand_def(AnyTensor)
    x2 = operand_def(AnyTensor)
    bias = opt_operand_def(AnyTensor)
    y = result_def(AnyTensor)

    transpose_x1 = prop_def(BoolAttr, default_value=_FALSE)
    transpose_x2 = prop_def(BoolAttr, default_value=_FALSE)

    traits = traits_def(Pure())

    def __init__(
        self,
        x1: SSAValue | Operation,
        x2: SSAValue | Operation,
        bias: SSAValue | Operation | None = None,
        *,
        transpose_x1: bool = False,
        transpose_x2: bool = False,
        result_type: Attribute | None = None,
    ) -> None:
        if result_type is None:
            t1, t2 = SSAValue.get(x1).type, SSAValue.get(x2).type
            s1, s2 = tensor_shape(t1), tensor_shape(t2)
            shape = None
            if s1 is not None and s2 is not None and len(s1) == len(s2) == 2:
                shape = (s1[1] if transpose_x1 else s1[0], s2[0] if transpose_x2 else s2[1])
            result_type = tensor_of(element_type(t1), shape)
        super().__init__(
            operands=[x1, x2, [] if bias is None else [bias]],
            result_types=[result_type],
            properties={
                "transpose_x1": _bool(transpose_x1),
                "transpose_x2": _bool(transpose_x2),
            },
        )

    def verify_(self) -> None:
        types = [self.x1.type, self.x2.type, self.y.type]
        if self.bias is not None:
            types.append(self.bias.type)
        _verify_element_types(self, types, "operands and result")
        s1 = _verify_rank(self, "x1", self.x1.type, 2)
        s2 = _verify_rank(self, "x2", self.x2.type, 2)
        _verify_rank(self, "the result", self.y.type, 2)
        m = k1 = k2 = n = -1
        if s1 is not None:
            m, k1 = reversed(s1) if self.transpose_x1.value.data else s1
        if s2 is not None:
            k2, n = reversed(s2) if self.transpose_x2.value.data else s2
        if k1 >= 0 and k2 >= 0 and k1 != k2:
            _fail(self, f"contracts K = {k1} of x1 with K = {k2} of x2")
        _verify_result_shape(self, (m, n), "[M, N] =")
        if self.bias is not None:
            bias = _verify_rank(self, "bias", self.bias.type, 1)
            if bias is not None and bias[0] >= 0 and n >= 0 and bias[0] not in (1, n):
                _fail(self, f"bias has length {bias[0]}, expected N = {n} (or 1)")


# --------------------------------------------------------------------------------------------
# NN (nn_calculation_ops.h, nn_batch_norm_ops.h)
# --------------------------------------------------------------------------------------------


def channel_axis(data_format: str, rank: int) -> int:
    """Axis of C: 1 for NCHW and for 2-D [N, C] tensors, the last one for NHWC."""
    return rank - 1 if data_format == "NHWC" and rank == 4 else 1


@irdl_op_definition
class BatchNormOp(GEOp, NodeSyntax):
    """GE BatchNorm, inference form: `y = scale * (x - mean) / sqrt(variance + epsilon) + offset`.

    The 1-D `scale`, `offset`, `mean` and `variance` (length C) apply along the channel axis of
    `x` (4-D in `data_format`, or 2-D [N, C]). Only inference is modelled: `is_training` must
    be false, so GE's training-only outputs `batch_mean`, `batch_variance` and
    `reserve_space_*` do not exist here and `y` is the single result. GE's defaults differ
    for `data_format` ("NHWC") and `is_training` (true); ONNX BatchNormalization imports as
    this form.

        %y = graph.batch_norm %x, %scale, %offset, %mean, %var epsilon 0.001
            : (tensor<1x3x8x8xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>)
            -> tensor<1x3x8x8xf32>
    """

    name = "graph.batch_norm"
    GE_TYPE: ClassVar[str] = "BatchNorm"

    x = operand_def(AnyTensor)
    scale = operand_def(AnyTensor)
    offset = operand_def(AnyTensor)
    mean = operand_def(AnyTensor)
    variance = operand_def(AnyTensor)
    y = result_def(AnyTensor)

    epsilon = prop_def(FloatAttr.constr(f32), default_value=FloatAttr(1e-4, f32))
    data_format = prop_def(StringAttr, default_value=StringAttr("NCHW"))
    is_training = prop_def(BoolAttr, default_value=_FALSE)

    traits = traits_def(Pure())

    def __init__(
        self,
        x: SSAValue | Operation,
        scale: SSAValue | Operation,
        offset: SSAValue | Operation,
        mean: SSAValue | Operation,
        variance: SSAValue | Operation,
        *,
        epsilon: float = 1e-4,
        data_format: str = "NCHW",
        result_type: Attribute | None = None,
    ) -> None:
        super().__init__(
            operands=[x, scale, offset, mean, variance],
            result_types=[SSAValue.get(x).type if result_type is None else result_type],
            properties={
                "epsilon": FloatAttr(epsilon, f32),
                "data_format": StringAttr(data_format),
            },
        )

    def verify_(self) -> None:
        if self.is_training.value.data:
            _fail(self, "is_training = true is not supported: only inference BatchNorm is modelled")
        _verify_data_format(self, self.data_format)
        if not self.epsilon.value.data >= 0:
            _fail(self, f"epsilon must be non-negative, got {self.epsilon.value.data}")
        if not types_compatible(self.x.type, self.y.type):
            _fail(self, f"result type {self.y.type} differs from the type {self.x.type} of x")
        params = (self.scale, self.offset, self.mean, self.variance)
        _verify_element_types(self, [p.type for p in params], "scale, offset, mean and variance")
        shape = _verify_rank(self, "x", self.x.type, 4, 2)
        channels = -1 if shape is None else shape[channel_axis(self.data_format.data, len(shape))]
        for param, what in zip(params, ("scale", "offset", "mean", "variance"), strict=True):
            pshape = _verify_rank(self, what, param.type, 1)
            if pshape is not None and not shapes_compatible(pshape, (channels,)):
                _fail(self, f"{what} has length {pshape[0]}, expected C = {channels}")


def conv2d_output_shape(
    x: Sequence[int],
    filter: Sequence[int],
    strides: Sequence[int],
    pads: Sequence[int],
    dilations: Sequence[int],
    data_format: str,
) -> tuple[int, ...]:
    """Result shape of Conv2D in `data_format` order, -1 where an input dim is unknown.

    Spatial dims: `(in + pad_before + pad_after - dilation * (k - 1) - 1) // stride + 1`, or 0
    when the dilated kernel is larger than the padded input (the verifier rejects that).
    """
    n, c, h, w = (0, 3, 1, 2) if data_format == "NHWC" else (0, 1, 2, 3)
    o, kh, kw = (3, 0, 1) if data_format == "NHWC" else (0, 2, 3)
    out = [x[n] if x[n] >= 0 else -1, 0, 0, 0]
    out[c] = filter[o] if filter[o] >= 0 else -1
    for axis, k, (before, after) in ((h, kh, pads[0:2]), (w, kw, pads[2:4])):
        if x[axis] < 0 or filter[k] < 0:
            out[axis] = -1
        else:
            extent = x[axis] + before + after - dilations[axis] * (filter[k] - 1)
            out[axis] = max(extent - 1, -1) // strides[axis] + 1
    return tuple(out)


@irdl_op_definition
class Conv2DOp(GEOp, NodeSyntax):
    """GE Conv2D: 2-D convolution with groups, strides, dilations and explicit padding.

    `strides` and `dilations` have 4 entries in `data_format` order (the N and C entries must
    be 1, as in GE); `pads` is [top, bottom, left, right]. For NCHW the filter is OIHW, for
    NHWC it is HWIO (GE's and TensorFlow's HWCN); I = C_in / groups and O = C_out. The optional
    `bias` is 1-D of length C_out. GE's default `data_format` is NHWC and `pads` is required;
    here NCHW (ONNX's layout) and zero pads are the defaults. GE's quantization inputs
    (`offset_w`, `offset_x`) are not modelled.

        %y = graph.conv2d %x, %w, %b strides [1, 1, 2, 2] pads [1, 1, 1, 1]
            : (tensor<1x3x8x8xf32>, tensor<16x3x3x3xf32>, tensor<16xf32>) -> tensor<1x16x4x4xf32>
    """

    name = "graph.conv2d"
    GE_TYPE: ClassVar[str] = "Conv2D"

    x = operand_def(AnyTensor)
    filter = operand_def(AnyTensor)
    bias = opt_operand_def(AnyTensor)
    y = result_def(AnyTensor)

    strides = prop_def(DenseArrayBase.constr(i64))
    pads = prop_def(DenseArrayBase.constr(i64), default_value=int_array((0, 0, 0, 0)))
    dilations = prop_def(DenseArrayBase.constr(i64), default_value=int_array((1, 1, 1, 1)))
    groups = prop_def(IntegerAttr[I64], default_value=IntegerAttr(1, i64))
    data_format = prop_def(StringAttr, default_value=StringAttr("NCHW"))

    traits = traits_def(Pure())

    def __init__(
        self,
        x: SSAValue | Operation,
        filter: SSAValue | Operation,
        bias: SSAValue | Operation | None = None,
        *,
        strides: Sequence[int],
        pads: Sequence[int] = (0, 0, 0, 0),
        dilations: Sequence[int] = (1, 1, 1, 1),
        groups: int = 1,
        data_format: str = "NCHW",
        result_type: Attribute | None = None,
    ) -> None:
        if result_type is None:
            tx, tf = SSAValue.get(x).type, SSAValue.get(filter).type
            sx, sf = tensor_shape(tx), tensor_shape(tf)
            shape = None
            if sx is not None and sf is not None:
                shape = conv2d_output_shape(sx, sf, strides, pads, dilations, data_format)
            result_type = tensor_of(element_type(tx), shape)
        super().__init__(
            operands=[x, filter, [] if bias is None else [bias]],
            result_types=[result_type],
            properties={
                "strides": int_array(strides),
                "pads": int_array(pads),
                "dilations": int_array(dilations),
                "groups": IntegerAttr(groups, i64),
                "data_format": StringAttr(data_format),
            },
        )

    def verify_(self) -> None:
        _verify_data_format(self, self.data_format)
        nhwc = self.data_format.data == "NHWC"
        strides = int_array_values(self.strides)
        pads = int_array_values(self.pads)
        dilations = int_array_values(self.dilations)
        for what, values in (("strides", strides), ("pads", pads), ("dilations", dilations)):
            if len(values) != 4:
                _fail(self, f"{what} must have 4 values, got {list(values)}")
        for what, values in (("strides", strides), ("dilations", dilations)):
            if any(v < 1 for v in values):
                _fail(self, f"{what} must be positive, got {list(values)}")
            if values[0] != 1 or values[3 if nhwc else 1] != 1:
                _fail(self, f"{what} must be 1 in the N and C dims, got {list(values)}")
        if any(p < 0 for p in pads):
            _fail(self, f"pads must be non-negative, got {list(pads)}")
        groups = self.groups.value.data
        if groups < 1:
            _fail(self, f"groups must be positive, got {groups}")
        types = [self.x.type, self.filter.type, self.y.type]
        if self.bias is not None:
            types.append(self.bias.type)
        _verify_element_types(self, types, "operands and result")
        x = _verify_rank(self, "x", self.x.type, 4)
        filt = _verify_rank(self, "filter", self.filter.type, 4)
        _verify_rank(self, "the result", self.y.type, 4)
        c_in = -1 if x is None else x[3 if nhwc else 1]
        c_out = -1 if filt is None else filt[3 if nhwc else 0]
        f_in = -1 if filt is None else filt[2 if nhwc else 1]
        if c_in >= 0 and c_in % groups:
            _fail(self, f"groups = {groups} does not divide the {c_in} input channels")
        if c_out >= 0 and c_out % groups:
            _fail(self, f"groups = {groups} does not divide the {c_out} output channels")
        if c_in >= 0 and f_in >= 0 and f_in * groups != c_in:
            expected = c_in // groups
            _fail(self, f"filter has {f_in} input channels, expected C_in / groups = {expected}")
        if self.bias is not None:
            bias = _verify_rank(self, "bias", self.bias.type, 1)
            if bias is not None and not shapes_compatible(bias, (c_out,)):
                _fail(self, f"bias has length {bias[0]}, expected C_out = {c_out}")
        if x is not None and filt is not None:
            shape = conv2d_output_shape(x, filt, strides, pads, dilations, self.data_format.data)
            hw = (1, 2) if nhwc else (2, 3)
            if 0 in (shape[hw[0]], shape[hw[1]]):
                kh, kw = (filt[0], filt[1]) if nhwc else (filt[2], filt[3])
                kernel = (dilations[hw[0]] * (kh - 1) + 1, dilations[hw[1]] * (kw - 1) + 1)
                padded = (x[hw[0]] + pads[0] + pads[1], x[hw[1]] + pads[2] + pads[3])
                _fail(
                    self,
                    f"dilated {kernel[0]}x{kernel[1]} kernel exceeds the padded "
                    f"{padded[0]}x{padded[1]} input",
                )
            _verify_result_shape(self, shape, "the computed shape")


# --------------------------------------------------------------------------------------------
# Shape manipulation (array_ops.h, transformation_ops.h)
# --------------------------------------------------------------------------------------------


@irdl_op_definition
class ReshapeOp(GEOp, NodeSyntax):
    """GE Reshape: the elements of `x` in a new shape read from the 1-D int32/int64 `shape`.

    As in GE and ONNX, a 0 in `shape` copies the input dim at that position and one -1 takes
    the remaining element count. The result type must agree with the shape values at run time;
    the verifier checks what the types alone decide (rank, element count).

        %s = graph.const dense<[0, -1]> : tensor<2xi64>
        %y = graph.reshape %x, %s : (tensor<2x3x4xf32>, tensor<2xi64>) -> tensor<2x12xf32>
    """

    name = "graph.reshape"
    GE_TYPE: ClassVar[str] = "Reshape"

    x = operand_def(AnyTensor)
    shape = operand_def(AnyTensor)
    y = result_def(AnyTensor)

    traits = traits_def(Pure())

    def __init__(
        self,
        x: SSAValue | Operation,
        shape: SSAValue | Operation,
        *,
        result_type: Attribute | None = None,
    ) -> None:
        """Infers the result type when `shape` is a `graph.const`; otherwise pass `result_type`."""
        if result_type is None:
            shape_value = SSAValue.get(shape)
            if not isinstance(shape_value.owner, ConstOp):
                raise ValueError("ReshapeOp needs a result_type unless shape is a graph.const")
            tx = SSAValue.get(x).type
            dims = tensor_shape(tx)
            target = _const_ints(shape_value.owner.value)
            result_type = tensor_of(
                element_type(tx),
                [-1] * len(target) if dims is None else reshape_shape(dims, target),
            )
        super().__init__(operands=[x, shape], result_types=[result_type])

    def verify_(self) -> None:
        _verify_element_types(self, (self.x.type, self.y.type), "x and result")
        shape_type = self.shape.type
        if (
            not isinstance(shape_type, TensorType)
            or shape_type.get_num_dims() != 1
            or shape_type.element_type not in (i32, i64)
        ):
            _fail(self, f"shape must be a 1-D int32 or int64 tensor, got {shape_type}")
        length = shape_type.get_shape()[0]
        result = tensor_shape(self.y.type)
        if length >= 0 and result is not None and len(result) != length:
            _fail(self, f"result rank {len(result)} differs from the length {length} of shape")
        if is_static(self.x.type) and is_static(self.y.type):
            count, result_count = _product(tensor_shape(self.x.type) or ()), _product(result or ())
            if count != result_count:
                _fail(self, f"x has {count} elements but the result has {result_count}")


def _const_ints(value: DenseIntOrFPElementsAttr) -> tuple[int, ...]:
    values = tuple(int(v) for v in value.get_values())
    count = _product(value.get_shape() or ())
    return values * count if len(values) == 1 and count != 1 else values


@irdl_op_definition
class TransposeOp(GEOp, NodeSyntax):
    """GE Transpose: permutes the dims of `x`, result dim i being input dim `perm[i]`.

    GE's Transpose takes `perm` as a second (usually constant) input; this op keeps it as a
    property, which is GE's TransposeD form, so the result shape is known statically.

        %y = graph.transpose %x perm [0, 2, 3, 1] : (tensor<1x3x8x8xf32>) -> tensor<1x8x8x3xf32>
    """

    name = "graph.transpose"
    GE_TYPE: ClassVar[str] = "Transpose"

    x = operand_def(AnyTensor)
    y = result_def(AnyTensor)

    perm = prop_def(DenseArrayBase.constr(i64))

    traits = traits_def(Pure())

    def __init__(
        self,
        x: SSAValue | Operation,
        perm: Sequence[int],
        *,
        result_type: Attribute | None = None,
    ) -> None:
        if result_type is None:
            tx = SSAValue.get(x).type
            dims = tensor_shape(tx)
            if dims is not None and sorted(perm) != list(range(len(dims))):
                raise ValueError(f"perm {list(perm)} does not permute the dims of {tx}")
            result_type = tensor_of(
                element_type(tx), None if dims is None else [dims[p] for p in perm]
            )
        super().__init__(
            operands=[x], result_types=[result_type], properties={"perm": int_array(perm)}
        )

    def verify_(self) -> None:
        _verify_element_types(self, (self.x.type, self.y.type), "x and result")
        perm = int_array_values(self.perm)
        x, y = tensor_shape(self.x.type), tensor_shape(self.y.type)
        rank = len(perm) if x is None and y is None else len(x if x is not None else y)
        if sorted(perm) != list(range(rank)):
            _fail(self, f"perm {list(perm)} is not a permutation of the {rank} dims")
        if x is not None:
            _verify_result_shape(self, [x[p] for p in perm], "the permuted shape")


Graph = Dialect(
    "graph",
    [
        # Structure
        GraphOp,
        NetOutputOp,
        # Constants
        ConstOp,
        # Elementwise
        AddOp,
        MulOp,
        SubOp,
        # Activations
        ReluOp,
        # Matrix
        MatMulOp,
        # NN
        BatchNormOp,
        Conv2DOp,
        # Shape manipulation
        ReshapeOp,
        TransposeOp,
    ],
    [],
)
