"""The `multibatch` dialect: GE's multi-batch ("gear") execution of one model at a few shapes.

With `--dynamic_batch_size`, `--dynamic_image_size` or `--dynamic_dims`, GE's
MultiBatchClonePass turns the root graph into one branch per gear and rebuilds the root as

    current dims (int32[k]) --> multibatch.map_index <-- gear table (graph.const, int32[n*k])
                                       |
                                 branch index --> multibatch.case [@Batch_0, ..., @Batch_<n-1>]

`multibatch.map_index` finds the gear equal to the current dims, `multibatch.case` runs that
branch (a `graph.graph` compiled for that gear's static shapes). With GetNext sink the current
dims come from `multibatch.get_dynamic_dims`, which gathers the unknown dims out of the actual
input shapes. The Case carries GE's discardable attributes `_batch_num`, `_pred_value_<i>`,
`mbatch_dynamic_type` and `user_designate_shape_order`.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from enum import IntEnum
from fractions import Fraction
from typing import ClassVar

from xdsl.dialects.builtin import (
    I64,
    ArrayAttr,
    BoolAttr,
    DenseArrayBase,
    DictionaryAttr,
    FlatSymbolRefAttrConstr,
    IntegerAttr,
    StringAttr,
    SymbolRefAttr,
    TensorType,
    i32,
    i64,
)
from xdsl.ir import Attribute, Dialect, Operation, SSAValue
from xdsl.irdl import (
    irdl_op_definition,
    operand_def,
    prop_def,
    result_def,
    traits_def,
    var_operand_def,
    var_result_def,
)
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.traits import SymbolOpInterface, SymbolTable, SymbolUserOpInterface
from xdsl.utils.exceptions import VerifyException

from gedialects import fast_verify
from gedialects.base import (
    NODE_NAME,
    GEOp,
    NodeSyntax,
    const_reads,
    fast_single_accessors,
    ge_dims,
    ge_dims_array,
    int_array,
    int_array_values,
)
from gedialects.graph import GraphOp
from gedialects.partition import GE_TENSOR, check_signature, lookup_graph

MIN_GEAR_COUNT = 2
"""GE's kMinShapesCount: at least 2 gears (E10035)."""
MAX_GEAR_COUNT = 100
"""GE's kMaxShapesCount: at most 100 gears (E10036)."""

# --------------------------------------------------------------------------------------------
# GE's names (the one copy of each; every layer imports them from here)
# --------------------------------------------------------------------------------------------

# Discardable attributes GE's MultiBatchClonePass puts on the Case (ge_attr_define.cc).
BATCH_NUM = "_batch_num"
PRED_VALUE_PREFIX = "_pred_value_"
DYNAMIC_TYPE = "mbatch_dynamic_type"
USER_DESIGNATE_SHAPE_ORDER = "user_designate_shape_order"

# GE node and attribute names of MultiBatchClonePass (multi_batch_clone_pass.cc, ge_attr_define.cc)
SHAPE_DATA_NAME = "ascend_mbatch_shape_data"
SHAPE_CONST_NAME = "ascend_mbatch_shape_const"
MAP_INDEX_NAME = "ascend_mbatch_shape_mapindex"
CASE_NAME = "ascend_mbatch_shape_case"
GET_DYNAMIC_DIMS_NAME = "ascend_mbatch_get_dynamic_dims_node"
BRANCH_NODE_POSTFIX = "_ascend_mbatch_batch_"
INSERT_BY_MBATCH = "mbatch-inserted-node"
IS_MULTI_BATCH_SHAPE_DATA = "_is_multi_batch_shape_data"
LOWERING_FUNC = "_ge_attr_lowering_func"
MBATCH_SWITCH_NAME = "mbatch-switch-name"
ORIGIN_INPUT_DIMS = "_mbatch_origin_input_dims"
UNKNOWN_DIM_INDEX = "_dynamic_batch_unknown_dim_index"
UNKNOWN_DATA_INDEX = "_dynamic_batch_unknown_data_index"
DYNAMIC_OUTPUT_DIMS = "_dynamic_output_dims"
ENABLE_DYNAMIC_BATCH = "_enable_dynamic_batch"
MAX_INPUT_DIMS = "_mbatch_max_input_dims"
"""gedialects' spelling of GE's "root Data takes the largest gear" (E.4): the root input type
keeps `?` so that shape inference can meet it with every branch; the buffer size lives here."""
HYBRID_GRAPH = "_hybrid_dynamic_graph"
"""Hybrid mode (GE UserHybridGraphManager): on the expanded root and its model, the symbol of
the fully dynamic graph that runs shapes of no gear."""
HYBRID_SUFFIX = "_dynamic"
SHAPE_ENV = "_shape_env"
"""The gear symbols (GE's ShapeEnvAttr on the graph: each symbol and the input dims it comes
from): `["s0 = x[0] = y[0]"]`, gear value `j` is symbol `s<j>`."""
SYMBOLIC_OUTPUT_SHAPE = "_symbolic_output_shape"
"""Each output's dims over the gear symbols (GE's SymbolicDescAttr `origin_symbol_shape` of the
NetOutput inputs): `[["s0", "3"], ["s0 + 2", "3"], ["1", "s0 * 3"]]`; `?` for a dim no
affine function of one gear value explains (or only the run knows)."""
UNKNOWN_EXPR = "?"
"""The dynamic graph of hybrid mode is the root's name with this suffix."""


def branch_name(index: int) -> str:
    """GE's name of gear `index`'s branch graph and its `_batch_label`."""
    return f"Batch_{index}"


class DynamicType(IntEnum):
    """GE's `mbatch_dynamic_type` values (MultiBatchPass::GetDynamicType)."""

    FIXED = 0
    BATCH = 1
    IMAGE_SIZE = 2
    DIMS = 3

    @property
    def option(self) -> str:
        """The atc option that sets this type (`--dynamic_batch_size`, ...)."""
        return _OPTION_OF[self]


_OPTION_OF = {
    DynamicType.FIXED: "input_shape",
    DynamicType.BATCH: "dynamic_batch_size",
    DynamicType.IMAGE_SIZE: "dynamic_image_size",
    DynamicType.DIMS: "dynamic_dims",
}


# --------------------------------------------------------------------------------------------
# Attribute codecs: what the expansion writes and the gear table reads back
# --------------------------------------------------------------------------------------------


def output_dims_entry(gear: int, index: int, dims: Sequence[int]) -> StringAttr:
    """One `_dynamic_output_dims` string: `"<gear>,<output>,<d0>,<d1>,..."` (an unknown dim
    is GE's -1, `base.ge_dims`)."""
    return StringAttr(",".join(str(v) for v in (gear, index, *ge_dims(dims))))


def parse_output_dims(attr: Attribute | None) -> dict[int, dict[int, tuple[int, ...]]]:
    """Reads `_dynamic_output_dims` back: gear (-1 = any gear) -> output index -> dims."""
    result: dict[int, dict[int, tuple[int, ...]]] = {}
    if not isinstance(attr, ArrayAttr):
        return result
    for item in attr.data:
        if not isinstance(item, StringAttr):
            continue
        gear, index, *dims = (int(v) for v in item.data.split(",") if v)
        result.setdefault(gear, {})[index] = tuple(dims)
    return result


@dataclass(frozen=True)
class Affine:
    """One dim as a function of the gear: `a * s<j> + b`, or the constant `b` (j None)."""

    a: Fraction
    b: Fraction
    j: int | None

    def at(self, gear: Sequence[int]) -> Fraction:
        return self.b if self.j is None else self.a * gear[self.j] + self.b

    def __str__(self) -> str:
        if self.j is None:
            return str(self.b)
        term = f"s{self.j}" if self.a == 1 else f"s{self.j} * {self.a}"
        if self.b:
            term += f" {'+' if self.b > 0 else '-'} {abs(self.b)}"
        return term

    @classmethod
    def parse(cls, text: str) -> Affine:
        """The inverse of `str`: `7`, `s0`, `s1 * 16`, `s0 * 1/2 - 3`; ValueError otherwise."""
        match = _AFFINE.fullmatch(text)
        if match is None:
            raise ValueError(f'"{text}" is no gear expression (`s<j> * a + b` or an integer)')
        const, j, a, sign, b = match.groups()
        if const is not None:
            return cls(Fraction(0), Fraction(const), None)
        slope = Fraction(a) if a is not None else Fraction(1)
        offset = Fraction(b) if b is not None else Fraction(0)
        if slope == 0:
            raise ValueError(f'"{text}" has a zero coefficient')
        return cls(slope, -offset if sign == "-" else offset, int(j))


_AFFINE = re.compile(r"(-?\d+(?:/\d+)?)|s(\d+)(?: \* (-?\d+(?:/\d+)?))?(?: ([+-]) (\d+(?:/\d+)?))?")
"""A constant, or `s<j>` with an optional ` * a` and ` + b` / ` - b` (numbers: integers or
fractions `p/q`)."""


def fit_gear_dim(gears: Sequence[Sequence[int]], values: Sequence[int]) -> Affine | None:
    """The dim taking `values[g]` at gear `g` as a function of one gear value: a constant, or
    `a * s<j> + b` exact at every gear, for the first gear value `j` that takes at least
    three values (a value of two only is never fitted: two points fit any line, as the
    probes of `passes.multibatch.symbolic` refuse it); None when no such function exists."""
    if any(v < 0 for v in values):
        return None
    if all(v == values[0] for v in values):
        return Affine(Fraction(0), Fraction(values[0]), None)
    for j in range(len(gears[0])):
        xs = [g[j] for g in gears]
        if len(set(xs)) < 3:
            continue
        far = max(range(len(xs)), key=lambda k: abs(xs[k] - xs[0]))
        a = Fraction(values[far] - values[0], xs[far] - xs[0])
        b = values[0] - a * xs[0]
        if all(a * x + b == v for x, v in zip(xs, values, strict=True)):
            return Affine(a, b, j)
    return None


def symbolic_output_shape(
    gears: Sequence[Sequence[int]], entries: Mapping[int, Mapping[int, Sequence[int]]]
) -> ArrayAttr[ArrayAttr[StringAttr]] | None:
    """`_symbolic_output_shape` of `_dynamic_output_dims` `entries` (`parse_output_dims`):
    each output's dims fitted over every gear (`fit_gear_dim`); None without entries."""
    count = 1 + max((o for per in entries.values() for o in per), default=-1)
    if count == 0:
        return None
    outputs: list[ArrayAttr[StringAttr]] = []
    for o in range(count):
        per_gear = [
            entries.get(g, {}).get(o, entries.get(-1, {}).get(o)) for g in range(len(gears))
        ]
        if (
            any(d is None for d in per_gear)
            or len({len(d) for d in per_gear if d is not None}) != 1
        ):
            return None
        rank = len(per_gear[0] or ())
        dims: list[StringAttr] = []
        for d in range(rank):
            fit = fit_gear_dim(gears, [dims_g[d] for dims_g in per_gear if dims_g is not None])
            dims.append(StringAttr(UNKNOWN_EXPR if fit is None else str(fit)))
        outputs.append(ArrayAttr(dims))
    return ArrayAttr(outputs)


def parse_symbolic_output_shape(attr: Attribute) -> list[list[Affine | None]]:
    """Reads `_symbolic_output_shape` back (None for `?`); ValueError when malformed."""
    if not isinstance(attr, ArrayAttr) or not all(isinstance(o, ArrayAttr) for o in attr.data):
        raise ValueError("must be an array of arrays of strings, one per output")
    result: list[list[Affine | None]] = []
    for output in attr.data:
        assert isinstance(output, ArrayAttr)
        dims: list[Affine | None] = []
        for dim in output.data:
            if not isinstance(dim, StringAttr):
                raise ValueError("must be an array of arrays of strings, one per output")
            dims.append(None if dim.data == UNKNOWN_EXPR else Affine.parse(dim.data))
        result.append(dims)
    return result


def shape_env(symbols: Sequence[Sequence[tuple[str, int]]]) -> ArrayAttr[StringAttr]:
    """`_shape_env`: symbol `s<j>` with the input dims (name, dim) gear value `j` fills."""
    return ArrayAttr(
        [
            StringAttr(" = ".join([f"s{j}", *(f"{name}[{d}]" for name, d in dims)]))
            for j, dims in enumerate(symbols)
        ]
    )


def input_attrs(name: str, dims: Sequence[int], max_dims: Sequence[int]) -> DictionaryAttr:
    """Root input attributes of a user Data (GE's SetMaxShapeToData and the clone pass);
    `dims` as `--input_shape` gives them (-1: set per gear)."""
    attrs: dict[str, Attribute] = {NODE_NAME: StringAttr(name)}
    unknown = [i for i, d in enumerate(dims) if d < 0]
    if unknown:
        attrs[ORIGIN_INPUT_DIMS] = ge_dims_array(dims)
        attrs[MAX_INPUT_DIMS] = ge_dims_array(max_dims)
        attrs[UNKNOWN_DIM_INDEX] = int_array(unknown)
        attrs[MBATCH_SWITCH_NAME] = StringAttr(CASE_NAME)
    return DictionaryAttr(attrs)


def shape_data_attrs(unknown_inputs: Sequence[int]) -> DictionaryAttr:
    """Attributes of the `ascend_mbatch_shape_data` input (CreateIndexDataNode)."""
    return DictionaryAttr(
        {
            NODE_NAME: StringAttr(SHAPE_DATA_NAME),
            IS_MULTI_BATCH_SHAPE_DATA: BoolAttr.from_bool(True),
            INSERT_BY_MBATCH: BoolAttr.from_bool(True),
            LOWERING_FUNC: StringAttr("multi_batch_shape_data"),
            UNKNOWN_DATA_INDEX: int_array(unknown_inputs),
        }
    )


def _is_index_scalar(t: Attribute) -> bool:
    """`tensor<i32>` or `tensor<1xi32>`: how GE passes a branch or gear index."""
    return isinstance(t, TensorType) and t.element_type == i32 and t.get_shape() in ((), (1,))


def _static_length(t: TensorType) -> int | None:
    (n,) = t.get_shape()
    return n if n >= 0 else None


def _check_vector(op: Operation, what: str, t: Attribute, dtypes: Sequence[Attribute]) -> None:
    if not isinstance(t, TensorType) or t.get_num_dims() != 1 or t.element_type not in dtypes:
        allowed = " or ".join(f"1-D {d}" for d in dtypes)
        raise VerifyException(f"'{op.name}' {what} must be a {allowed} tensor, got {t}")


# --------------------------------------------------------------------------------------------
# Branch selection
# --------------------------------------------------------------------------------------------


def _symbols_near(op: Operation) -> dict[str, Operation]:
    """The symbols of `op`'s nearest symbol table, first definition per name, as
    `SymbolTable.lookup_symbol` finds them: one scan for all branches (a lookup per branch
    scans the module each time, quadratic in the gear count)."""
    anchor = op.parent_op()
    while anchor is not None and not anchor.has_trait(SymbolTable):
        anchor = anchor.parent_op()
    symbols: dict[str, Operation] = {}
    if anchor is None:
        return symbols
    for o in anchor.regions[0].block.ops:
        interface = o.get_trait(SymbolOpInterface)
        name = interface.get_sym_attr_name(o) if interface is not None else None
        if name is not None:
            symbols.setdefault(name.data, o)
    return symbols


class CaseSymbolUser(SymbolUserOpInterface):
    """Every branch is a `graph.graph` taking the Case inputs and producing its results."""

    def verify(self, op: Operation) -> None:
        assert isinstance(op, CaseOp)
        symbols = _symbols_near(op)
        for i, branch in enumerate(op.branches.data):
            graph = symbols.get(branch.root_reference.data)
            if not isinstance(graph, GraphOp) or branch.nested_references.data:
                graph = lookup_graph(op, branch, f"branch {i}")  # raises its message
            ftype = graph.function_type
            where = f"branch {i} {branch}"
            check_signature(op, where, "input", op.inputs.types, ftype.inputs.data)
            check_signature(op, where, "result", op.output.types, ftype.outputs.data)


@irdl_op_definition
class CaseOp(GEOp):
    """GE Case: runs branch number `branch_index` on `inputs`; its outputs are the results.

    `branch_index` is an int32 tensor holding one element. In multi-batch models branch `i` is
    the graph compiled for gear `i` (`_pred_value_<i>` holds its dims, `_batch_num` the count).
    An out-of-range index is an error here; GE's hybrid executor takes the last branch.

        %r = multibatch.case %idx, %x branches [@Batch_0, @Batch_1] {_batch_num = 2 : i64}
            : (tensor<i32>, tensor<?x3xf32>) -> tensor<?x3xf32>
    """

    name = "multibatch.case"
    GE_TYPE: ClassVar[str] = "Case"

    branch_index = operand_def(TensorType)
    inputs = var_operand_def(GE_TENSOR)
    output = var_result_def(GE_TENSOR)
    branches = prop_def(ArrayAttr.constr(FlatSymbolRefAttrConstr))

    traits = traits_def(CaseSymbolUser())

    def __init__(
        self,
        branch_index: SSAValue | Operation,
        inputs: Sequence[SSAValue | Operation],
        branches: Sequence[str | SymbolRefAttr],
        result_types: Sequence[Attribute],
    ) -> None:
        refs = [SymbolRefAttr(b) if isinstance(b, str) else b for b in branches]
        super().__init__(
            operands=[branch_index, inputs],
            result_types=[result_types],
            properties={"branches": ArrayAttr(refs)},
        )

    def called_graphs(self) -> list[str]:
        """For the call-cycle module rule of `gedialects.graph.structure`."""
        return [b.root_reference.data for b in self.branches.data]

    @classmethod
    def parse(cls, parser: Parser) -> CaseOp:
        operands = parser.parse_comma_separated_list(
            parser.Delimiter.NONE, parser.parse_unresolved_operand
        )
        parser.parse_keyword("branches")
        branches = parser.parse_comma_separated_list(
            parser.Delimiter.SQUARE, lambda: SymbolRefAttr(parser.parse_symbol_name())
        )
        attrs = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        pos = parser.pos
        ftype = parser.parse_function_type()
        if len(ftype.inputs.data) != len(operands):
            parser.raise_error(
                f"{len(operands)} operands but {len(ftype.inputs.data)} operand types", pos
            )
        index, *inputs = parser.resolve_operands(operands, ftype.inputs.data, pos)
        op = cls(index, inputs, branches, ftype.outputs.data)
        op.attributes |= attrs
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_list(self.operands, printer.print_operand)
        printer.print_string(" branches [")
        printer.print_list(self.branches.data, printer.print_attribute)
        printer.print_string("]")
        printer.print_op_attributes(self.attributes)
        printer.print_string(" : ")
        printer.print_function_type(self.operand_types, self.result_types)

    def verify_(self) -> None:
        if not _is_index_scalar(self.branch_index.type):
            raise VerifyException(
                f"'multibatch.case' branch_index must be tensor<i32> or tensor<1xi32>, "
                f"got {self.branch_index.type}"
            )
        if not self.branches.data:
            raise VerifyException("'multibatch.case' needs at least one branch")


# --------------------------------------------------------------------------------------------
# Gear lookup
# --------------------------------------------------------------------------------------------


@irdl_op_definition
class MapIndexOp(NodeSyntax, GEOp):
    """GE MapIndex: the index of the gear in `data_seq` equal to the current dims `x`.

    `data_seq` holds the gears concatenated row-major, `len(x)` values each, so
    `y = i` such that `data_seq[i*k:(i+1)*k] == x` with `k = len(x)`. Dims that match no gear
    are a runtime error (GE's E13025). GE's optional `level_index` input is not modelled.

        %i = multibatch.map_index %dims, %gears : (tensor<2xi32>, tensor<6xi32>) -> tensor<i32>
    """

    name = "multibatch.map_index"
    GE_TYPE: ClassVar[str] = "MapIndex"

    x = operand_def(TensorType)
    data_seq = operand_def(TensorType)
    y = result_def(TensorType)

    def __init__(
        self,
        x: SSAValue | Operation,
        data_seq: SSAValue | Operation,
        result_type: Attribute | None = None,
    ) -> None:
        result_type = TensorType(i32, []) if result_type is None else result_type
        super().__init__(operands=[x, data_seq], result_types=[result_type])

    def verify_(self) -> None:
        x_type, seq_type = self.x.type, self.data_seq.type
        _check_vector(self, "x", x_type, (i32,))
        _check_vector(self, "data_seq", seq_type, (i32,))
        assert isinstance(x_type, TensorType) and isinstance(seq_type, TensorType)
        if not _is_index_scalar(self.y.type):
            raise VerifyException(
                f"'multibatch.map_index' result must be tensor<i32> or tensor<1xi32>, "
                f"got {self.y.type}"
            )
        k, total = _static_length(x_type), _static_length(seq_type)
        if k == 0:
            raise VerifyException("'multibatch.map_index' x must hold at least one dim")
        if k is None or total is None:
            return
        if total == 0 or total % k:
            raise VerifyException(
                f"'multibatch.map_index' data_seq length {total} is not a non-zero multiple "
                f"of the x length {k}"
            )
        if total // k > MAX_GEAR_COUNT:
            raise VerifyException(
                f"'multibatch.map_index' data_seq holds {total // k} gears, more than the "
                f"maximum {MAX_GEAR_COUNT}"
            )


# --------------------------------------------------------------------------------------------
# Dims from input shapes
# --------------------------------------------------------------------------------------------


def parse_shape_info(values: Sequence[int]) -> list[tuple[int, ...]] | str:
    """Splits GE's `shape_info` (`[rank, d0, ..., d(rank-1)]` per input) into per-input dims.

    Returns an error message instead when the list does not split cleanly.
    """
    groups: list[tuple[int, ...]] = []
    pos = 0
    while pos < len(values):
        rank = values[pos]
        if rank < 0:
            return f"input {len(groups)} has negative rank {rank}"
        dims = tuple(values[pos + 1 : pos + 1 + rank])
        if len(dims) != rank:
            return f"input {len(groups)} has rank {rank} but only {len(dims)} dims are left"
        if any(d < -1 for d in dims):
            return f"input {len(groups)} has dims {list(dims)}; a dim is -1 or >= 0"
        groups.append(dims)
        pos += 1 + rank
    return groups


@irdl_op_definition
class GetDynamicDimsOp(NodeSyntax, GEOp):
    """GE GetDynamicDims: gathers the unknown (-1) dims of the model inputs from their shapes.

    Operand `i` is the shape of model input `i` (what GetNext produced); `shape_info` lists, for
    each input, `[rank, d0, ..., d(rank-1)]` with -1 for unknown dims (`[0]` for a scalar). The
    result holds the actual values of the -1 dims, input by input, in order.

        %d = multibatch.get_dynamic_dims %s0, %s1 shape_info [2, -1, 3, 1, -1] N 2
            : (tensor<2xi64>, tensor<1xi64>) -> tensor<2xi32>
    """

    name = "multibatch.get_dynamic_dims"
    GE_TYPE: ClassVar[str] = "GetDynamicDims"

    input = var_operand_def(TensorType)
    dims = result_def(TensorType)
    shape_info = prop_def(DenseArrayBase.constr(i64))
    N = prop_def(IntegerAttr[I64])

    def __init__(
        self,
        inputs: Sequence[SSAValue | Operation],
        *,
        shape_info: Sequence[int],
        result_type: Attribute | None = None,
    ) -> None:
        if result_type is None:
            result_type = TensorType(i32, [len(_unknown_dims(shape_info))])
        super().__init__(
            operands=[inputs],
            result_types=[result_type],
            properties={
                "shape_info": ge_dims_array(shape_info),
                "N": IntegerAttr(len(inputs), i64),
            },
        )

    def verify_(self) -> None:
        count = len(self.input)
        if self.N.value.data != count:
            raise VerifyException(
                f"'multibatch.get_dynamic_dims' N is {self.N.value.data} but it has {count} inputs"
            )
        groups = parse_shape_info(int_array_values(self.shape_info))
        if isinstance(groups, str):
            raise VerifyException(f"'multibatch.get_dynamic_dims' shape_info: {groups}")
        if len(groups) != count:
            raise VerifyException(
                f"'multibatch.get_dynamic_dims' shape_info describes {len(groups)} inputs, "
                f"expected {count}"
            )
        for i, (operand, dims) in enumerate(zip(self.input, groups, strict=True)):
            t = operand.type
            _check_vector(self, f"input {i}", t, (i32, i64))
            assert isinstance(t, TensorType)
            length = _static_length(t)
            if length is not None and length != len(dims):
                raise VerifyException(
                    f"'multibatch.get_dynamic_dims' input {i} has {length} dims but shape_info "
                    f"gives rank {len(dims)}"
                )
        _check_vector(self, "result", self.dims.type, (i32,))
        unknown = sum(d == -1 for dims in groups for d in dims)
        assert isinstance(self.dims.type, TensorType)
        length = _static_length(self.dims.type)
        if length is not None and length != unknown:
            raise VerifyException(
                f"'multibatch.get_dynamic_dims' result has {length} elements but shape_info "
                f"has {unknown} unknown (-1) dims"
            )


def _unknown_dims(shape_info: Sequence[int]) -> list[int]:
    groups = parse_shape_info(shape_info)
    if isinstance(groups, str):
        return []
    return [d for dims in groups for d in dims if d == -1]


Multibatch = Dialect(
    "multibatch",
    [
        # Branch selection
        CaseOp,
        # Gear lookup
        MapIndexOp,
        # Dims from input shapes
        GetDynamicDimsOp,
    ],
    [],
)
fast_single_accessors(Multibatch.operations)
fast_verify.install(Multibatch, const_reads)  # compiled IRDL checks, kept verdicts
