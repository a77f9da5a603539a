"""Shared pieces of the gedialects dialects: GE attribute names, the `GEOp` base and syntax helpers.

Kept free of numpy so that importing a dialect stays cheap (every lit RUN line starts a process).
"""

from __future__ import annotations

import gc
import math
import re
import struct
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from typing import Any, ClassVar, Generic, Literal, TypeGuard, TypeVar, cast, overload

from immutabledict import immutabledict
from xdsl.dialects.builtin import (
    I64,
    UNKNOWN_LOC,
    ArrayAttr,
    BFloat16Type,
    BoolAttr,
    DenseArrayBase,
    DenseIntOrFPElementsAttr,
    DictionaryAttr,
    Float16Type,
    Float32Type,
    Float64Type,
    FloatAttr,
    IndexType,
    IntAttr,
    IntegerAttr,
    IntegerType,
    StringAttr,
    TensorType,
    UnrankedTensorType,
    f32,
    i1,
    i64,
)
from xdsl.ir import (
    Attribute,
    Block,
    ErasedSSAValue,
    Operation,
    OpResult,
    Region,
    SSAValue,
    SSAValues,
    Use,
)
from xdsl.irdl import IRDLOperation
from xdsl.irdl.declarative_assembly_format import (
    AttributeVariable,
    CustomDirective,
    ParsingState,
    PrintingState,
    irdl_custom_directive,
)
from xdsl.irdl.operations import (
    BeforeVariadicSingleAccessor,
    OptionalDef,
    PropertyDef,
    VariadicDef,
    VarIRConstruct,
)
from xdsl.parser import Parser, UnresolvedOperand
from xdsl.printer import Printer
from xdsl.traits import ConstantLike
from xdsl.utils.exceptions import VerifyException
from xdsl.utils.hints import isa

from gedialects import exact_text, fast_text, lexer_workaround
from gedialects.formats import FormatAttr, verify_op_formats

exact_text.install()  # dense literals parse and print exactly once any of our dialects loads
lexer_workaround.install()  # and the lexer is linear on unterminated strings (see there)
fast_text.install()

# Discardable GE node attributes (names as in GE's ge_attr_define.cc), accepted on every op.
INT32_MAX = 2**31 - 1
INT64_MAX = 2**63 - 1


def ascii_int(text: str) -> int | None:
    """`text` as an integer when it is an optional sign and ASCII digits, else None. Option text
    goes through this, not int(): int() also takes any Unicode digit (`int("\u0661")` is 1), `_`
    separators and blanks, which GE's option parsers refuse."""
    body = text[1:] if text[:1] in ("+", "-") else text
    if not body or not body.isascii() or not body.isdigit():
        return None
    return int(text)


NODE_NAME = "node_name"
"""The GE node name (ONNX node name on import); used in task names and diagnostics."""
STREAM_LABEL = "_stream_label"
USER_STREAM_LABEL = "_user_stream_label"
STAGE_LEVEL = "_stage_level"
FORCE_UNKNOWN_SHAPE = "_force_unknown_shape"
IS_UNKNOWN_SHAPE = "_is_unknown_shape"
SPECIFIED_ENGINE_NAME = "_specified_engine_name"
"""Engine the user pins an op to (GE's `_specified_engine_name`)."""
ENGINE_NAME = "_engine_name"
"""Engine chosen by placement; read by partitioning and task generation."""
PARENT_NODE_INDEX = "_parent_node_index"
BATCH_LABEL = "_batch_label"

# GE engine names (engine_conf.json), in GE's cost order.
AICORE_ENGINE = "AIcoreEngine"
VECTOR_ENGINE = "VectorEngine"
AICPU_ENGINE = "DNN_VM_AICPU"
DVPP_ENGINE = "DNN_VM_DVPP"
HOST_CPU_ENGINE = "DNN_VM_HOST_CPU"
GE_LOCAL_ENGINE = "DNN_VM_GE_LOCAL"
RTS_ENGINE = "DNN_VM_RTS"
ENGINES: tuple[str, ...] = (
    AICORE_ENGINE,
    VECTOR_ENGINE,
    AICPU_ENGINE,
    DVPP_ENGINE,
    HOST_CPU_ENGINE,
    GE_LOCAL_ENGINE,
    RTS_ENGINE,
)


OperandValues = Callable[[int], tuple[int | float, ...] | None]
"""`values(i)`: the flattened value of operand `i` when it is a known small constant, else None."""

SMALL_CONSTANT_LIMIT = 4096
"""Largest constant (elements) whose values shape inference reads (shape-like operands)."""


_V = TypeVar("_V")


class IdentityMemo(Generic[_V]):
    """`fn(obj)` kept per object, by identity: a graph has few distinct type objects, so a
    question asked of every value's type (a size, an element kind: ABC `isinstance` tests and
    shape walks) is answered once per type. The table holds each object, so its id cannot be
    reused while its entry lives, and starts over at `limit` entries (a long session's types
    would otherwise stay alive)."""

    __slots__ = ("fn", "limit", "table")

    def __init__(self, fn: Callable[[Any], _V], limit: int = 1 << 16) -> None:
        self.fn = fn
        self.limit = limit
        self.table: dict[int, tuple[object, _V]] = {}

    def __call__(self, obj: object) -> _V:
        found = self.table.get(id(obj))
        if found is None or found[0] is not obj:
            if len(self.table) >= self.limit:
                self.table.clear()
            found = self.table[id(obj)] = (obj, self.fn(obj))
        return found[1]


def _in_format(t: Attribute) -> bool:
    return isinstance(t, TensorType) and isinstance(t.encoding, FormatAttr)


_formatted = IdentityMemo(_in_format)
"""A tensor type in a storage format, by type object: `GEOp.verify` asks it of every operand
and result, and the two ABC isinstance tests per type were a tenth of verifying an op."""


class GEOp(IRDLOperation):
    """Base of every op that stands for a GE node type; `GE_TYPE` is GE's exact type string."""

    GE_TYPE: ClassVar[str]

    FORMAT_AGNOSTIC: ClassVar[bool] = False
    """GE's `_format_agnostic`: the op computes the same on any storage layout of its tensors
    (elementwise), so heavy formats propagate through it (`gedialects/formats.py`)."""

    HEAVY_PORTS: ClassVar[Mapping[str, str]] = {}
    """Port name -> the heavy format the op's AI Core kernel takes there (op-info `format`)."""

    OWN_FORMATS: ClassVar[bool] = False
    """The op's own verifier checks its storage formats (TransData, Const)."""

    def verify(self, verify_nested_ops: bool = True) -> None:
        block = self.parent
        if self.regions or self._successors or (block is not None and block.last_op is self):
            super().verify(verify_nested_ops)
        else:
            self._verify_inner_op()
        if self.OWN_FORMATS or not (
            any(_formatted(v.type) for v in self._operands)
            or any(_formatted(r.type) for r in self.results)
        ):
            return
        try:
            verify_op_formats(self.name, self.ports(), self.FORMAT_AGNOSTIC, self.HEAVY_PORTS)
        except VerifyException as err:
            self.emit_error(f"Operation does not verify: {err}", err)

    def _verify_inner_op(self) -> None:
        """xDSL's `Operation.verify` (0.74) for an op with no regions or successors that does
        not end its block, i.e. nearly every node of a graph: of its checks only two apply, no
        erased operand and the op's own verifier, and checking just those skips the successor,
        terminator and region tests that `ge-verify-graph` paid per node."""
        for operand in self._operands:
            if isinstance(operand, ErasedSSAValue):
                raise ValueError("Erased SSA value is used by the operation")
        try:
            self.verify_()
        except VerifyException as err:
            self.emit_error(f"Operation does not verify: {err}", err)

    def ports(self) -> list[tuple[str, Attribute]]:
        """(operand or result name, type) of every tensor of the op, in declaration order."""
        defn = type(self).get_irdl_definition()
        out: list[tuple[str, Attribute]] = []
        for name, _ in (*defn.operands, *defn.results):
            value = getattr(self, name)
            if isinstance(value, SSAValue):
                out.append((name, value.type))
            elif isinstance(value, Sequence):
                out.extend((f"{name}#{i}", v.type) for i, v in enumerate(value))
        return out

    @classmethod
    def infer_result_types(
        cls,
        operand_types: Sequence[Attribute],
        properties: Mapping[str, Attribute],
        values: OperandValues,
    ) -> tuple[Attribute, ...] | None:
        """The result types GE's InferShape gives this op, or None when it has no rule.

        Uses GE's -1 / -2 semantics: a dim it cannot know is `?`, an unknown rank is
        `tensor<*x...>`. `properties` holds the op's properties (defaults included), and
        `values(i)` the value of operand `i` when it is a known small constant (shape-like
        operands: Reshape's shape, Slice's starts, ...). Builders call this when no result type
        is given; `ge-infer-shapes` calls it to refine types. Raises ValueError when the
        operands cannot go together (the verifier then names the problem).
        """
        return None

    def infer_types(self) -> tuple[Attribute, ...] | None:
        """`infer_result_types` on this op's current operands, reading constants it is fed.

        A rule is a function of its arguments, so its result is kept (`_INFERRED`) for the
        next op of the same class, operand types and properties, unless it read a constant:
        the verifier checks every op's types against its rule, and a graph repeats few."""
        return infer_kept(
            type(self),
            tuple(v.type for v in self.operands),
            self.properties,
            lambda i: const_values(self.operands[i]),
        )


def infer_kept(
    cls: type[GEOp],
    types: tuple[Attribute, ...],
    props: Mapping[str, Attribute],
    values: OperandValues,
) -> tuple[Attribute, ...] | None:
    """`cls.infer_result_types(types, props, values)`, kept for the same class, types and
    properties (by identity) when the rule read no value (`values` not called)."""
    key = (cls, *map(id, types), -1, *props, *map(id, props.values()))
    hit = _INFERRED.get(key)
    if hit is not None:
        return hit[2]
    read = False

    def reading(i: int) -> tuple[int | float, ...] | None:
        nonlocal read
        read = True
        return values(i)

    inferred = cls.infer_result_types(types, props, reading)
    if not read:
        if len(_INFERRED) >= INFER_CACHE_LIMIT:
            _INFERRED.clear()
        # the entry holds the key's objects: their ids stay theirs while it lives
        _INFERRED[key] = (types, tuple(props.values()), inferred)
    return inferred


INFER_CACHE_LIMIT = 1 << 14
"""Entries of `_INFERRED`; a full table starts again (no unbounded growth)."""

_INFERRED: dict[
    tuple[object, ...],
    tuple[tuple[Attribute, ...], tuple[Attribute, ...], tuple[Attribute, ...] | None],
] = {}
"""(op class, ids of the operand types, property names and ids of their values) -> the
rule's result, with the objects whose ids the key holds."""


_const_reads = 0
"""Calls of `const_values` so far: a verifier that read a constant has a verdict that depends
on more than the op's own types and attributes (`fast_verify.install` keys it by the
constants too)."""


def const_reads() -> int:
    return _const_reads


def const_values(value: SSAValue) -> tuple[int | float, ...] | None:
    """The flattened values of a small constant (`ConstantLike` op), else None."""
    global _const_reads
    _const_reads += 1
    owner = value.owner
    if not isinstance(owner, Operation) or not owner.has_trait(ConstantLike):
        return None
    attr = owner.properties.get("value")
    if not isinstance(attr, DenseIntOrFPElementsAttr):
        return None
    count = element_count(attr.get_shape() or ())
    if count > SMALL_CONSTANT_LIMIT:
        return None
    values = attr.get_values()
    if len(values) == 1 and count != 1:
        return tuple(values) * count
    return tuple(values)


I64_MIN, I64_MAX = -(1 << 63), (1 << 63) - 1
"""GE's int64_t properties; xDSL's signless i64 would also take [2**63, 2**64) and wrap it."""


def _parse_i64(parser: Parser, value: int, pos: int) -> int:
    """`value`, read at `pos`, if it fits an i64; a parse error there otherwise."""
    if not I64_MIN <= value <= I64_MAX:
        text = str(value)
        spelled = parser.lexer.input.content.startswith(text, pos)  # else hex: mark its start
        parser.raise_error(f"value {text} out of range for i64", pos, pos + len(text) * spelled)
    return value


def _parse_f32(parser: Parser, value: float, pos: int) -> float:
    """`value`, read at `pos`, if f32 can hold it (a finite value beyond f32's largest is a
    parse error there, not the OverflowError of packing it)."""
    try:
        struct.pack("<f", value)
    except OverflowError:
        parser.raise_error(f"value {value!r} out of range for f32", pos)
    return value


def _parse_i64_item(parser: Parser) -> int:
    pos = parser.pos
    return _parse_i64(parser, parser.parse_integer(), pos)


def int_array(values: Iterable[int]) -> DenseArrayBase[I64]:
    """An `array<i64: ...>` property from Python ints, interned when short: the verifier's
    and the rules' tables key an op by the ids of its properties, so a fresh `perm` per
    Transpose missed them all (attributes are immutable: sharing one changes nothing else)."""
    items = tuple(values)
    if len(items) > _INT_ARRAY_MAX or any(type(v) is not int for v in items):
        return DenseArrayBase.from_list(i64, items)
    found = _INT_ARRAYS.get(items)
    if found is None:
        found = fast_text.remember(_INT_ARRAYS, items, DenseArrayBase[I64].from_list(i64, items))
    return found


_INT_ARRAY_MAX = 16
_INT_ARRAYS: dict[tuple[int, ...], DenseArrayBase[I64]] = {}
"""Short `int_array`s by their values (`fast_text.remember` bounds it)."""


UNKNOWN_DIM = -1
"""GE's `UNKNOWN_DIM`: how a GE attribute (`_dynamic_output_dims`, `_mbatch_origin_input_dims`,
`shape_info`, ...) spells a dim known only at run time."""


def ge_dims(dims: Iterable[int]) -> tuple[int, ...]:
    """`dims` as GE writes them into attributes: every unknown dim is GE's -1, never xDSL's
    `?` marker (`DYNAMIC_INDEX`, -9223372036854775808), which a shape read off a `TensorType`
    carries. Every GE attribute built from a type's dims goes through here (issue 19 part 6:
    a direct graph output leaked the marker into `_dynamic_output_dims`)."""
    return tuple(UNKNOWN_DIM if d < 0 else d for d in dims)


def ge_dims_array(dims: Iterable[int]) -> DenseArrayBase[I64]:
    """`int_array(ge_dims(dims))`: a dims attribute in GE's spelling."""
    return int_array(ge_dims(dims))


def int_array_values(attr: DenseArrayBase[IntegerType]) -> tuple[int, ...]:
    return tuple(int(v) for v in attr.get_values())


@irdl_custom_directive
class IntList(CustomDirective):
    """Prints an i64 dense-array property as `[1, 2, 3]` instead of `array<i64: 1, 2, 3>`."""

    values: AttributeVariable

    def parse(self, parser: Parser, state: ParsingState) -> None:
        items = parser.parse_comma_separated_list(
            parser.Delimiter.SQUARE, lambda: _parse_i64_item(parser)
        )
        self.values.set(state, DenseArrayBase[I64].from_list(i64, items))

    def print(self, printer: Printer, state: PrintingState, op: IRDLOperation) -> None:
        state.print_whitespace(printer)
        attr = self.values.get(op)
        assert isa(attr, DenseArrayBase[IntegerType])
        printer.print_string("[" + ", ".join(str(v) for v in attr.get_values()) + "]")


def element_count(dims: Iterable[int]) -> int:
    """The number of elements of a tensor with these dims (1 for a scalar): the one product of
    dims in the code base. A `?` (negative) dim gives a meaningless count, so callers that may
    see one check it first or use `static_element_count`."""
    return math.prod(dims)


def static_element_count(t: Attribute) -> int | None:
    """Element count of a static tensor type; None for `?` dims, unranked or non-tensor types."""
    if not isinstance(t, TensorType):
        return None
    shape = t.get_shape()
    if any(d < 0 for d in shape):
        return None
    return element_count(shape)


def symbol_name(op: Operation) -> str | None:
    """The `sym_name` of a graph, model or function op; None for other ops."""
    name = getattr(op, "sym_name", None)
    return name.data if isinstance(name, StringAttr) else None


_T = TypeVar("_T")

_OF_CLASS: dict[tuple[type, type | tuple[type, ...]], bool] = {}


@overload
def of_class(obj: object, classes: type[_T]) -> TypeGuard[_T]: ...
@overload
def of_class(obj: object, classes: tuple[type, ...]) -> bool: ...
def of_class(obj: object, classes: type | tuple[type, ...]) -> bool:
    """`isinstance(obj, classes)`, decided once per class of `obj`: xDSL's ops and attributes
    are ABCs, whose `isinstance` runs abc's Python-level check on every call (a few us; a
    chain of them per op was most of a walk's cost at 10k nodes). `classes` must be a class
    or a tuple of classes, hashable, and not change what it accepts (no registered virtual
    subclasses after the first test)."""
    key = (obj.__class__, classes)
    found = _OF_CLASS.get(key)
    if found is None:
        found = _OF_CLASS[key] = isinstance(obj, classes)
    return found


def is_static(t: Attribute) -> bool:
    """True for a ranked tensor type without `?` dims."""
    return isinstance(t, TensorType) and all(d >= 0 for d in t.get_shape())


def element_type(t: Attribute) -> Attribute:
    if isinstance(t, TensorType | UnrankedTensorType):
        return t.element_type
    return t


def dims_agree(dim: int, want: int) -> bool:
    """Whether two dims can be the same size: equal, or either unknown (`?`, any negative
    value: xDSL's DYNAMIC_INDEX, not only -1)."""
    return dim < 0 or want < 0 or dim == want


def shapes_compatible(a: Sequence[int] | None, b: Sequence[int] | None) -> bool:
    """GE shape compatibility: unknown rank (None) matches anything, `?` (<0) matches any dim."""
    if a is None or b is None:
        return True
    if len(a) != len(b):
        return False
    return all(dims_agree(x, y) for x, y in zip(a, b, strict=True))


def _tensor_shape(t: Attribute) -> tuple[int, ...] | None:
    if isinstance(t, TensorType):
        if isinstance(t.encoding, FormatAttr):
            return t.encoding.shape
        return tuple(t.get_shape())
    return None


_shapes = IdentityMemo(_tensor_shape)


def tensor_shape(t: Attribute) -> tuple[int, ...] | None:
    """Dims of a ranked tensor type (negative for `?`), None when unranked; of a tensor in a
    storage format (`#graph.format`), its origin shape: what the op means, not its bytes.
    Kept per type object (`IdentityMemo`): the inference rules ask it of every operand, and
    the ABC tests and the walk over the shape's dims were a tenth of ge-infer-shapes."""
    return _shapes(t)


def types_compatible(a: Attribute, b: Attribute) -> bool:
    """Same element type and compatible shapes (`?` and `*` act as wildcards)."""
    if element_type(a) != element_type(b):
        return False
    return shapes_compatible(tensor_shape(a), tensor_shape(b))


# --------------------------------------------------------------------------------------------
# Node syntax: `mnemonic %a, %b (keyword value)* attr-dict : (A, B) -> R`
# --------------------------------------------------------------------------------------------


def _group_by_defs(values: Sequence, defs: Sequence, what: str, parser: Parser) -> list:
    """Split a flat operand/result list over IRDL defs; at most one def may be variadic."""
    variadic = [i for i, (_, d) in enumerate(defs) if isinstance(d, VariadicDef)]
    if len(variadic) > 1:  # pragma: no cover - node ops are defined with at most one
        raise ValueError("node syntax supports at most one variadic/optional def")
    fixed = len(defs) - len(variadic)
    extra = len(values) - fixed
    if (
        extra < 0
        or (not variadic and extra)
        or (variadic and isinstance(defs[variadic[0]][1], OptionalDef) and extra > 1)
    ):
        parser.raise_error(f"expected {fixed}{'+' if variadic else ''} {what}, got {len(values)}")
    groups: list = []
    pos = 0
    for i, _ in enumerate(defs):
        if variadic and i == variadic[0]:
            groups.append(list(values[pos : pos + extra]))
            pos += extra
        else:
            groups.append(values[pos])
            pos += 1
    return groups


def f32_literal(x: float) -> str:
    """Shortest decimal that reads back as the same f32 (`0.001`, not `0.0010000000474974513`);
    inf and NaN as their bit pattern, `0x7F800000`, as MLIR writes them (see exact_text)."""
    if x != x or x in (float("inf"), float("-inf")):
        return f"0x{struct.unpack('<I', struct.pack('<f', x))[0]:08X}"
    shortest = (f"{x:.{digits}g}" for digits in range(6, 10))
    text = next(
        (t for t in shortest if struct.unpack("<f", struct.pack("<f", float(t)))[0] == x),
        f"{x:.9g}",
    )
    mantissa, e, exponent = text.partition("e")
    if "." not in mantissa and mantissa not in ("inf", "-inf", "nan"):
        mantissa += ".0"  # MLIR float literals need a dot: `1.0e-05`, not `1e-05`
    return mantissa + e + exponent


def _parse_number_or_bits(parser: Parser, wants_f32: bool) -> int | float:
    """A number; for an f32 property a hex integer is the f32 bit pattern (inf, NaN)."""
    token = parser._current_token  # pyright: ignore[reportPrivateUsage]
    if wants_f32 and token.text[:2] in ("0x", "0X"):
        pos = parser.pos
        bits = parser.parse_integer(allow_negative=False, allow_boolean=False)
        if bits >> 32:
            parser.raise_error(f"f32 bit pattern 0x{bits:X} does not fit 32 bits", pos)
        return struct.unpack("<f", struct.pack("<I", bits))[0]
    return parser.parse_number()


def _parse_prop_value(parser: Parser, wants_f32: bool = False) -> Attribute:
    if parser.parse_optional_punctuation("[") is not None:
        if parser.parse_optional_punctuation("]") is not None:
            return int_array(())
        if (first := parser.parse_optional_str_literal()) is not None:  # ["a", "b"]
            strings = [StringAttr(first)]
            while parser.parse_optional_punctuation(",") is not None:
                strings.append(StringAttr(parser.parse_str_literal()))
            parser.parse_punctuation("]")
            return ArrayAttr(strings)
        spans = [(parser.pos, _parse_number_or_bits(parser, wants_f32))]
        while parser.parse_optional_punctuation(",") is not None:
            spans.append((parser.pos, _parse_number_or_bits(parser, wants_f32)))
        parser.parse_punctuation("]")
        ints = [(pos, v) for pos, v in spans if isinstance(v, int)]
        if len(ints) == len(spans):
            return int_array(_parse_i64(parser, v, pos) for pos, v in ints)
        return DenseArrayBase.from_list(f32, [_parse_f32(parser, float(v), p) for p, v in spans])
    if (b := parser.parse_optional_boolean()) is not None:
        return BoolAttr.from_bool(b)
    if (s := parser.parse_optional_str_literal()) is not None:
        return StringAttr(s)
    token = parser._current_token  # pyright: ignore[reportPrivateUsage]
    if wants_f32 and token.text[:2] in ("0x", "0X"):
        return FloatAttr(_parse_number_or_bits(parser, True), f32)
    pos = parser.pos
    if (n := parser.parse_optional_number()) is not None:
        if isinstance(n, int):
            return IntegerAttr(_parse_i64(parser, n, pos), i64)
        return FloatAttr(_parse_f32(parser, n, pos), f32)
    return parser.parse_attribute()


_F32_SAMPLES = (FloatAttr(0.0, f32), DenseArrayBase.from_list(f32, (0.0,)))


_WANTS_F32: dict[int, bool] = {}
"""id of a property definition (they live as long as their op class) -> `_wants_f32`."""


def _wants_f32(prop: PropertyDef) -> bool:
    """Whether a property holds an f32 or an f32 array (so `0x7F800000` there is +inf)."""
    known = _WANTS_F32.get(id(prop))
    if known is not None:
        return known
    from xdsl.irdl import VerificationContext
    from xdsl.utils.exceptions import VerifyException

    wants = False
    for sample in _F32_SAMPLES:
        try:
            prop.constr.verify(sample, VerificationContext())
            wants = True
            break
        except VerifyException:
            pass
    _WANTS_F32[id(prop)] = wants
    return wants


def _prop_value_text(value: Attribute) -> str | None:
    """A property value's text in the node syntax, None for what the printer itself prints
    (strings with escapes, any other attribute)."""
    if isinstance(value, DenseArrayBase) and value.elt_type == i64:
        return "[" + ", ".join(str(v) for v in value.get_values()) + "]"
    if isinstance(value, DenseArrayBase) and value.elt_type == f32 and len(value) > 0:
        items = ", ".join(f32_literal(float(v)) for v in value.get_values())
        return f"[{items}]"
    if isinstance(value, IntegerAttr) and value.type == i1:
        return "true" if value.value.data else "false"
    if isinstance(value, IntegerAttr) and value.type == i64:
        return str(value.value.data)
    if isinstance(value, FloatAttr) and value.type == f32:
        return f32_literal(float(value.value.data))
    if isinstance(value, StringAttr):
        return fast_text.string_text(value.data)
    return None


def _print_prop_value(printer: Printer, value: Attribute) -> None:
    text = _prop_value_text(value)
    if text is not None:
        printer.print_string(text)
    elif isinstance(value, StringAttr):
        printer.print_string_literal(value.data)
    else:
        printer.print_attribute(value)


_I64_TEXT = r"-?(?:0|[1-9][0-9]{0,18})"
_KEY_TEXT = r"[a-zA-Z_][a-zA-Z0-9_$.]*"
_NODE = re.compile(
    '(?: (?P<ops>%(?:[0-9]+|[a-zA-Z_$.-][a-zA-Z0-9_$.-]*)(?:, %(?:[0-9]+|[a-zA-Z_$.-][a-zA-Z0-9_$.-]*))*))?(?P<props>(?: [a-zA-Z_][a-zA-Z0-9_$.]* (?:\\[(?:-?(?:0|[1-9][0-9]{0,18})(?:, -?(?:0|[1-9][0-9]{0,18}))*)?\\]|-?(?:0|[1-9][0-9]{0,18})|true|false|"([ !#-\\[\\]-~]*)"))*)(?: \\{(?P<attrs>[a-zA-Z_][a-zA-Z0-9_$.]* = "([ !#-\\[\\]-~]*)"(?:, [a-zA-Z_][a-zA-Z0-9_$.]* = "([ !#-\\[\\]-~]*)")*)\\})? : \\((?P<ins>(?:tensor<(?:\\*x|(?:(?:[0-9]+|\\?)x)*)[a-z][a-z0-9]*>(?:, tensor<(?:\\*x|(?:(?:[0-9]+|\\?)x)*)[a-z][a-z0-9]*>)*)?)\\) -> (?P<outs>tensor<(?:\\*x|(?:(?:[0-9]+|\\?)x)*)[a-z][a-z0-9]*>|\\((?:tensor<(?:\\*x|(?:(?:[0-9]+|\\?)x)*)[a-z][a-z0-9]*>(?:, tensor<(?:\\*x|(?:(?:[0-9]+|\\?)x)*)[a-z][a-z0-9]*>)*)?\\))'  # noqa: E501
)
"""The node syntax as the printer writes it: single spaces, i64 / i64-list / bool / plain
string properties, a dict of plain strings, canonical tensor types."""
_PROP = re.compile(
    ' ([a-zA-Z_][a-zA-Z0-9_$.]*) (?:\\[(?P<list>[-0-9, ]*)\\]|(?P<int>-?(?:0|[1-9][0-9]{0,18}))|(?P<bool>true|false)|(?P<str>"([ !#-\\[\\]-~]*)"))'  # noqa: E501
)
_ENTRY = re.compile('([a-zA-Z_][a-zA-Z0-9_$.]*) = ("([ !#-\\[\\]-~]*)")')


_I64_ATTRS: dict[int, IntegerAttr] = {}
_I64_LOW, _I64_HIGH = -(1 << 63), 1 << 63


# Attributes built without xDSL's generic verification (`__post_init__`), for the builders the
# passes call once per node: each checks here what that verification would, or leaves the
# case to xDSL's constructor so that it raises as before.


def new_int(value: int) -> IntAttr:
    """`IntAttr(value)` of an int (xDSL's check is only that it is one)."""
    if type(value) is not int:
        return IntAttr(value)
    data = IntAttr.__new__(IntAttr)
    object.__setattr__(data, "data", value)
    return data


def new_string(text: str) -> StringAttr:
    """`StringAttr(text)` of a str (a `Data` of `str` checks nothing but that it is an
    attribute, through an ABC `isinstance`): the partitioners name every End, PlaceHolder
    and subgraph they make."""
    if type(text) is not str:
        return StringAttr(text)
    attr = StringAttr.__new__(StringAttr)
    object.__setattr__(attr, "data", text)
    return attr


_AttrT = TypeVar("_AttrT", bound=Attribute)


def new_array(items: Iterable[_AttrT]) -> ArrayAttr[_AttrT]:
    """`ArrayAttr(items)` of attributes (an ArrayAttr of attributes has nothing else to
    check): ge-plan-memory's rewrite makes two per task, the partitioners two per graph."""
    array = cast("ArrayAttr[_AttrT]", ArrayAttr.__new__(ArrayAttr))
    object.__setattr__(array, "data", tuple(items))
    return array


def new_dict(entries: Mapping[str, Attribute]) -> DictionaryAttr:
    """`DictionaryAttr(entries)` of str keys and attribute values, checked here (one class
    test per value class) instead of by xDSL's generic verification, which costs seven
    `new_string`s: the lowering makes one per kernel with parameters. Anything else takes
    xDSL's constructor, which raises as before."""
    if not all(type(k) is str and of_class(v, Attribute) for k, v in entries.items()):
        return DictionaryAttr(entries)
    attr = DictionaryAttr.__new__(DictionaryAttr)
    object.__setattr__(attr, "data", immutabledict(entries))
    return attr


def new_i64(value: int) -> IntegerAttr:
    """`IntegerAttr(value, i64)`, the range checked here instead of by xDSL's generic
    verification (five times the cost of the object: 13 -> 2.6 us): the value passes, or
    raises, as it would there. For the unique values the passes number things with (a
    partition's peer indices, events); repeated ones are interned by the callers."""
    if not _I64_LOW <= value < _I64_HIGH:
        return IntegerAttr(value, i64)  # xDSL's own error
    data = new_int(value)
    attr = IntegerAttr.__new__(IntegerAttr)
    object.__setattr__(attr, "value", data)
    object.__setattr__(attr, "type", i64)
    return attr


_NO_VALUES: SSAValues[Any] = SSAValues()
OpT = TypeVar("OpT", bound=Operation)


def init_op(
    op: Operation,
    operands: Sequence[SSAValue] = (),
    result_types: Sequence[Attribute] = (),
    properties: dict[str, Attribute] | None = None,
    attributes: dict[str, Attribute] | None = None,
    location: Attribute | None = None,
    successors: Sequence[Block] = (),
    regions: Sequence[Region] = (),
) -> None:
    """`Operation.__init__(op, ...)` taking the caller's fresh dicts as they are: what it
    does, less its generic paths (the operand and successor setters unlink old uses, the
    results come from a generator, the dicts are copied, the default location is imported
    anew), which were half of building an op; the class's `__post_init__` (IRDL's defaults)
    runs as there. The binary loader builds every op so, the partitioners every End,
    PlaceHolder, call and subgraph (tests/test_partition_builders.py checks the builders
    against the generic build)."""
    if operands:
        uses = tuple([Use(op, i) for i in range(len(operands))])
        for value, use in zip(operands, uses, strict=True):
            value.add_use(use)
        op._operands = SSAValues(operands)  # pyright: ignore[reportPrivateUsage]
        op._operand_uses = uses  # pyright: ignore[reportPrivateUsage]
    else:
        op._operands = _NO_VALUES  # pyright: ignore[reportPrivateUsage]
        op._operand_uses = ()  # pyright: ignore[reportPrivateUsage]
    op.results = (
        SSAValues([OpResult(t, op, i) for i, t in enumerate(result_types)])
        if result_types
        else _NO_VALUES
    )
    op.properties = {} if properties is None else properties
    op.attributes = {} if attributes is None else attributes
    op.location = location or UNKNOWN_LOC  # pyright: ignore[reportAttributeAccessIssue]
    if successors:
        uses = tuple([Use(op, i) for i in range(len(successors))])
        for block, use in zip(successors, uses, strict=True):
            block.add_use(use)
        op._successors = tuple(successors)  # pyright: ignore[reportPrivateUsage]
        op._successor_uses = uses  # pyright: ignore[reportPrivateUsage]
    else:
        op._successors = ()  # pyright: ignore[reportPrivateUsage]
        op._successor_uses = ()  # pyright: ignore[reportPrivateUsage]
    op.regions = ()
    for region in regions:
        op.add_region(region)
    cls = type(op)
    defaults = _DEFAULTS.get(cls)
    if defaults is None:
        defaults = _DEFAULTS[cls] = _post_init_defaults(cls)
    if defaults is False:
        op.__post_init__()
        return
    props, attrs = defaults
    for name, value in props:
        if name not in op.properties:
            op.properties[name] = value
    for name, value in attrs:
        if name not in op.attributes:
            op.attributes[name] = value


_Defaults = tuple[tuple[tuple[str, Attribute], ...], tuple[tuple[str, Attribute], ...]]
_DEFAULTS: dict[type[Operation], _Defaults | Literal[False]] = {}
"""Per op class: the defaults IRDL's `__post_init__` fills in (properties, attributes), or
False for a class with its own `__post_init__` (run as it is). Its scan of the definition
per op was a third of building an End or PlaceHolder (227k at 100k bench nodes)."""


def _post_init_defaults(cls: type[Operation]) -> _Defaults | Literal[False]:
    """IRDL's `__post_init__` as data: the non-optional defaults of `cls`'s definition, when
    `cls` keeps IRDL's `__post_init__` (and Operation's, which only asserts the name)."""
    if not issubclass(cls, IRDLOperation) or cls.__post_init__ is not IRDLOperation.__post_init__:
        return False
    if not isinstance(cls.name, str) or cls.name == "":
        return False  # Operation's assertions fail in `__post_init__`, as they would
    op_def = cls.get_irdl_definition()

    def filled(defs: Mapping[str, Any]) -> tuple[tuple[str, Attribute], ...]:
        return tuple(
            (name, d.default_value)
            for name, d in defs.items()
            if not isinstance(d, OptionalDef) and d.default_value is not None
        )

    return filled(op_def.properties), filled(op_def.attributes)


def new_op(
    cls: type[OpT],
    operands: Sequence[SSAValue] = (),
    result_types: Sequence[Attribute] = (),
    properties: dict[str, Attribute] | None = None,
    attributes: dict[str, Attribute] | None = None,
    location: Attribute | None = None,
    successors: Sequence[Block] = (),
    regions: Sequence[Region] = (),
) -> OpT:
    """`cls.create(...)` by `init_op` (the caller's fresh dicts taken as they are)."""
    op = cls.__new__(cls)
    init_op(op, operands, result_types, properties, attributes, location, successors, regions)
    return op


def _operand_reader(index: int) -> property:
    return property(lambda op: tuple.__getitem__(op._operands, index))


def _result_reader(index: int) -> property:
    return property(lambda op: tuple.__getitem__(op.results, index))


def fast_single_accessors(op_classes: Iterable[type[Operation]]) -> None:
    """Makes each named operand and result of `op_classes` that comes before any variadic one
    (IRDL's `BeforeVariadicSingleAccessor`: `op.x`, `op.y` of most ops) a property that reads
    the op's tuple at its index: the same value, without the accessor's generic path (a
    `match` over the construct kind, `index`, the `operands` view and `SSAValues.__getitem__`,
    about 1 us a read; ge-fuse alone reads 630k of them on the 100k-node bench graph)."""
    for cls in op_classes:
        for name, accessor in list(vars(cls).items()):
            if type(accessor) is not BeforeVariadicSingleAccessor:
                continue
            if accessor.construct is VarIRConstruct.OPERAND:
                setattr(cls, name, _operand_reader(accessor.idx))
            elif accessor.construct is VarIRConstruct.RESULT:
                setattr(cls, name, _result_reader(accessor.idx))


def i64_interned(value: int) -> IntegerAttr:
    """`IntegerAttr(value, i64)`, interned (its verification costs as much as a node's scan;
    and the verifier's and the rules' tables key an op by the ids of its properties, so a
    fresh one per node misses them all: 60 of the 70 us of a Concat's verification)."""
    if type(value) is not int:  # a bool or an int subclass: not the same key's attribute
        return IntegerAttr(value, i64)
    attr = _I64_ATTRS.get(value)
    if attr is None:
        attr = fast_text.remember(_I64_ATTRS, value, new_i64(value))
    return attr


def block_ops(block: Block) -> list[Operation]:
    """The block's ops in order, as a list: one walk along the ops' links. `list(block.ops)`
    walks the block twice (the list asks `BlockOps.__len__`, itself a walk, for its size),
    each step a Python `__next__` and a `next_op` property call."""
    out: list[Operation] = []
    add = out.append
    op = block._first_op  # pyright: ignore[reportPrivateUsage]
    while op is not None:
        add(op)
        op = op._next_op  # pyright: ignore[reportPrivateUsage]
    return out


def walk_ops(root: Operation) -> list[Operation]:
    """`list(root.walk())`: the same ops in the same order (`root`, then pre-order), listed
    with `block_ops` and entering only ops that have regions (the walk's nested generators
    cost a frame per op and nesting level: most of a pass that only looks for a few op
    kinds)."""
    out: list[Operation] = [root]

    def enter(op: Operation) -> None:
        for region in op.regions:
            for block in region.blocks:
                for inner in block_ops(block):
                    out.append(inner)
                    if inner.regions:
                        enter(inner)

    enter(root)
    return out


_OpT = TypeVar("_OpT", bound=Operation)


def walk_holders(root: Operation, cls: type[_OpT]) -> Iterator[_OpT]:
    """The ops of class `cls` (one that holds regions: graphs, models) that `root.walk()`
    yields, in its order, entering only ops that have regions: a graph's nodes or a model's
    tasks are not visited one by one (100k of them in a merged root graph)."""
    if isinstance(root, cls):
        yield root
    for region in root.regions:
        for block in region.blocks:
            for inner in block_ops(block):
                if inner.regions:
                    yield from walk_holders(inner, cls)


def detach_ops(ops: Iterable[Operation]) -> None:
    """`op.detach()` for each of `ops`, by direct edits of the links (xDSL's `detach_op`
    reads the neighbours through properties and checks the block per op: the dynamic-shape
    partitioner moves every node of a graph into a subgraph, 100k at 100k bench nodes)."""
    for op in ops:
        block = op.parent
        if block is None:
            raise ValueError("Cannot detach a toplevel operation.")
        prev, after = op._prev_op, op._next_op  # pyright: ignore[reportPrivateUsage]
        if prev is None:
            block._first_op = after  # pyright: ignore[reportPrivateUsage]
        else:
            prev._next_op = after  # pyright: ignore[reportPrivateUsage]
        if after is None:
            block._last_op = prev  # pyright: ignore[reportPrivateUsage]
        else:
            after._prev_op = prev  # pyright: ignore[reportPrivateUsage]
        op.parent = None
        op._prev_op = op._next_op = None  # pyright: ignore[reportPrivateUsage]


def set_block_ops(block: Block, ops: Iterable[Operation]) -> None:
    """Makes `ops` the block's ops, in this order: what detaching every op of the block and
    then `block.add_ops(ops)` leaves, without xDSL's per-op list surgery and ancestry walk
    (ge-assign-streams rewrites a model's whole task list: 18k ops at 10k bench nodes, a
    tenth of the pass). Each op is one of the block's own or attached nowhere, and comes once;
    xDSL's two errors are kept (an op with regions is checked for holding the block)."""
    for op in block_ops(block):
        op.parent = None
        op._prev_op = op._next_op = None  # pyright: ignore[reportPrivateUsage]
    prev: Operation | None = None
    for op in ops:
        if op.parent is not None:
            raise ValueError("Can't add to a block an operation already attached to a block.")
        if op.regions and op.is_ancestor(block):
            raise ValueError("Can't add an operation to a block contained in the operation.")
        op.parent = block
        op._prev_op = prev  # pyright: ignore[reportPrivateUsage]
        if prev is None:
            block._first_op = op  # pyright: ignore[reportPrivateUsage]
        else:
            prev._next_op = op  # pyright: ignore[reportPrivateUsage]
        prev = op
    if prev is None:
        block._first_op = None  # pyright: ignore[reportPrivateUsage]
    block._last_op = prev  # pyright: ignore[reportPrivateUsage]


def _scan_node(
    parser: Parser, properties: Mapping[str, object]
) -> (
    tuple[
        list[UnresolvedOperand],
        dict[str, Attribute],
        dict[str, Attribute],
        tuple[list[Attribute], list[Attribute]],
    ]
    | None
):
    """The whole node syntax in one regular expression when it is spelled as printed, else
    None with the parser untouched: the ordinary path then reads (and reports on) the same
    text (other spacing, comments, f32 or other attribute values, an unknown or repeated
    property, a value out of range, an invalid type, an operand count that differs)."""
    m = fast_text.match_after_name(parser, _NODE)
    if m is None:
        return None
    text = m.string
    props: dict[str, Attribute] = {}
    if m.start("props") != m.end("props"):
        for p in _PROP.finditer(text, m.start("props"), m.end("props")):
            key = p.group(1)
            if key not in properties or key in props:
                return None
            value: Attribute
            if (items_text := p.group("list")) is not None:
                items = tuple(int(s) for s in items_text.split(", ")) if items_text else ()
                cached = _INT_ARRAYS.get(items)  # int_array's table: one lookup when known
                if cached is None:
                    if not all(I64_MIN <= v <= I64_MAX for v in items):
                        return None  # the ordinary path reports it at its line and column
                    cached = int_array(items)
                value = cached
            elif (n := p.group("int")) is not None:
                number = int(n)
                if not I64_MIN <= number <= I64_MAX:
                    return None
                value = i64_interned(number)
            elif (b := p.group("bool")) is not None:
                value = BoolAttr.from_bool(b == "true")
            else:
                value = fast_text.string_attr(p.group("str")[1:-1])
            props[key] = value
    attrs: dict[str, Attribute] = {}
    if m.group("attrs") is not None:
        for e in _ENTRY.finditer(text, m.start("attrs"), m.end("attrs")):
            if e.group(1) in attrs:
                return None
            attrs[e.group(1)] = fast_text.string_attr(e.group(2)[1:-1])
    ins = fast_text.tensor_types(text, m.start("ins"), m.end("ins"))
    outs = fast_text.tensor_types(text, m.start("outs"), m.end("outs"))
    if ins is None or outs is None:
        return None
    operands = (
        [] if m.group("ops") is None
        else fast_text.unresolved_operands(parser, m.start("ops"), m.end("ops"))
    )  # fmt: skip
    if len(ins) != len(operands):
        return None
    fast_text.commit_at(parser, m.end())
    return operands, props, attrs, (ins, outs)


_FLAT_COUNTS: dict[type, tuple[int, bool, int, bool] | None] = {}


def _flat_counts(op_type: type[IRDLOperation]) -> tuple[int, bool, int, bool] | None:
    """(operand defs, one is variadic, result defs, one is variadic) when `create` with the
    flat lists is what `build` makes of the groups: no IRDL option (segment sizes), at most
    one variadic and no optional def per list; None otherwise."""
    if op_type in _FLAT_COUNTS:
        return _FLAT_COUNTS[op_type]
    op_def = op_type.get_irdl_definition()
    out: tuple[int, bool, int, bool] | None = None
    if not op_def.options:
        kinds = [
            [d for _, d in defs if isinstance(d, VariadicDef)]
            for defs in (op_def.operands, op_def.results)
        ]
        if all(len(v) <= 1 and not any(isinstance(d, OptionalDef) for d in v) for v in kinds):
            out = (len(op_def.operands), bool(kinds[0]), len(op_def.results), bool(kinds[1]))
    _FLAT_COUNTS[op_type] = out
    return out


def _counts_fit(n: int, defs: int, variadic: bool) -> bool:
    """`n` values fill `defs` defs: one each, and any number (0 or more) for a variadic."""
    return n >= defs - 1 if variadic else n == defs


class NodeSyntax(IRDLOperation):
    """Readable syntax shared by GE node ops.

    `%y = graph.conv2d %x, %w strides [1, 1, 2, 2] pads [1, 1, 1, 1] : (A, B) -> C`: operands,
    then every property that differs from its default as `name value` in declaration order,
    the discardable attributes, and the functional type. Values: `[1, 2]` (i64 array),
    `[0.5, 2.0]` (f32 array), `3` (i64), `0.5` (f32), `"NCHW"`, `true`/`false`, and any other
    attribute verbatim (`dense<...>`, `array<i32: ...>`, `f16`).
    """

    @classmethod
    def parse(cls, parser: Parser) -> NodeSyntax:
        op_def = cls.get_irdl_definition()
        fast = _scan_node(parser, op_def.properties)
        if fast is not None:
            operands, props, attrs, (inputs, outputs) = fast
        else:
            operands = fast_text.parse_operands(parser)
            props = {}
            while (key := parser.parse_optional_identifier()) is not None:
                if key not in op_def.properties:
                    parser.raise_error(f"'{cls.name}' has no property '{key}'")
                props[key] = _parse_prop_value(parser, _wants_f32(op_def.properties[key]))
            attrs = fast_text.parse_optional_attr_dict(parser)
            parser.parse_punctuation(":")
            pos = parser.pos
            types = fast_text.parse_function_type_fast(parser)
            if types is None:
                ftype = parser.parse_function_type()
                types = list(ftype.inputs.data), list(ftype.outputs.data)
            inputs, outputs = types
            if len(inputs) != len(operands):
                parser.raise_error(f"{len(operands)} operands but {len(inputs)} operand types", pos)
        resolved = parser.resolve_operands(operands, inputs, parser.pos)
        flat = _flat_counts(cls)
        if (
            flat is not None
            and _counts_fit(len(resolved), flat[0], flat[1])
            and _counts_fit(len(outputs), flat[2], flat[3])
        ):
            return cls.create(
                operands=resolved,
                result_types=outputs,
                properties=props,
                attributes=attrs,
                location=UNKNOWN_LOC,  # create's default, without its import per op
            )
        return cls.build(
            operands=_group_by_defs(resolved, op_def.operands, "operands", parser),
            result_types=_group_by_defs(outputs, op_def.results, "results", parser),
            properties=props,
            attributes=attrs,
        )

    def print(self, printer: Printer) -> None:
        text = self._text(printer) if fast_text.enabled() else None
        if text is not None:
            printer.print_string(text)
            return
        op_def = self.get_irdl_definition()
        if self.operands:
            printer.print_string(" ")
            printer.print_list(self.operands, printer.print_operand)
        for key, prop_def in op_def.properties.items():
            value = self.properties.get(key)
            if value is None or value == prop_def.default_value:
                continue
            printer.print_string(f" {key} ")
            _print_prop_value(printer, value)
        fast_text.print_attr_dict(printer, self.attributes)
        if fast_text.enabled():
            text = fast_text.function_type_text(self.operand_types, self.result_types)
            printer.print_string(" : " + text)
        else:
            printer.print_string(" : ")
            printer.print_function_type(self.operand_types, self.result_types)

    def _text(self, printer: Printer) -> str | None:
        """The whole syntax as one string when every operand already has its name in this
        printer (defined above, as in a graph printed in order) and every value has a plain
        text; None otherwise (`print` then writes it piece by piece, naming operands)."""
        names = printer._ssa_values  # pyright: ignore[reportPrivateUsage]
        parts: list[str] = []
        operands = self.operands
        if operands:
            try:
                parts.append(" %" + ", %".join([names[v] for v in operands]))
            except KeyError:
                return None
        props = self.properties
        for key, prop_def in self.get_irdl_definition().properties.items():
            value = props.get(key)
            if value is None or value == prop_def.default_value:
                continue
            text = _prop_value_text(value)
            if text is None:
                return None
            parts.append(f" {key} {text}")
        attrs = fast_text.attr_dict_text(self.attributes)
        if attrs is None:
            return None
        parts.append(attrs)
        operand_types = [v.type for v in operands]
        parts.append(" : " + fast_text.function_type_text(operand_types, self.result_types))
        return "".join(parts)


def element_nbytes(element_type: Attribute) -> int | None:
    """Bytes per element in memory (i1 takes a byte), None for types with no memory layout."""
    if isinstance(element_type, Float16Type | BFloat16Type):
        return 2
    if isinstance(element_type, Float32Type):
        return 4
    if isinstance(element_type, Float64Type):
        return 8
    if isinstance(element_type, IntegerType):
        return max(1, (element_type.width.data + 7) // 8)
    if isinstance(element_type, IndexType):
        return 8
    return None


def tensor_nbytes(t: TensorType) -> int:
    """Byte size of a static tensor type."""
    size = element_nbytes(t.element_type)
    if size is None:
        raise ValueError(f"element type {t.element_type} has no byte size")
    return element_count(t.get_shape()) * size


@contextmanager
def paused_gc() -> Iterator[None]:
    """The cyclic garbage collector paused, and what the body allocated handed to the oldest
    generation when it resumes. Building or rewriting 100k ops allocates millions of objects
    that stay alive, and the collections their count triggers walk the whole growing heap
    again and again (68 us/op when loading 100k ops, 3.7 of the ONNX import's 34 s). Merely
    re-enabling it leaves the body's objects (a million at 100k bench nodes in
    ge-partition-engine) young: the next allocation collects them all, a later one again in
    the middle generation, and their move to the oldest triggers a full collection of the
    whole heap (at 100k bench nodes: 0.9 s when ge-partition-engine resumed it, 4.8 s more in
    the full collection that followed). `gc.freeze()` + `gc.unfreeze()` moves every tracked
    object to the oldest generation without visiting one; cycles among them are collected by
    the next full collection, as any old object's, and reference counting frees the rest as
    ever. Skipped when someone else froze objects (`gc.unfreeze` would release theirs)."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            if gc.get_freeze_count() == 0:
                gc.freeze()
                gc.unfreeze()
            gc.enable()
