"""The `ascend` dialect: a static GE model as loaded by the runtime, i.e. streams, events and tasks.

This is the lowest level of gedialects, the equivalent of GE's `DavinciModel` (the static,
"known-shape" executor): the graph has been placed on engines, assigned to streams, given events
for cross-stream edges and labels for control flow, its memory has been planned, and every node
has become one or more runtime tasks (`domi::TaskDef`). `ge-convert-graph-to-ascend` produces it;
`gedialects.interpreters.ascend` runs it.

Memory is addressed ONLY by offsets into one byte arena per model run (`arena[1024] : tensor<...>`,
the `#ascend.buffer` attribute): no SSA values flow between tasks. Weights occupy
`[0, weight_size)` and are copied in when the model loads; inputs, outputs and intermediates live
above. The interpreter therefore executes the memory plan itself: an overlap or a missing event
changes the numbers instead of going unnoticed.

    ascend.model @main arena_size 4096 weight_size 1024 {
      ascend.stream 0 engine "AIcoreEngine"
      ascend.weight arena[0] = dense<1.0> : tensor<2x2xf32>
      ascend.input "x" arena[1024] : tensor<1x2xf32>
      ascend.output "y" arena[2048] : tensor<1x2xf32>
      ascend.kernel "MatMul" "mm1" engine "AIcoreEngine" stream 0
          ins(arena[1024] : tensor<1x2xf32>, arena[0] : tensor<2x2xf32>)
          outs(arena[2048] : tensor<1x2xf32>)
      ascend.end_graph stream 0
    }

(the kernel task is one line in the IR). A model body lists declarations (streams, events,
weights, inputs, outputs) first, then tasks. Each task runs on one stream; a stream runs its
tasks in program order, streams run concurrently and synchronise only through events
(`event_record` / `event_wait`). Labels are per stream: `label_switch_by_index` and
`label_goto` jump to a `label_set` of the same stream. A stream ends at `end_graph` or after
its last task (GE emits `end_graph` for the root NetOutput; it is not required here). A stream
named by an `ascend.stream_active` (one per such stream) starts only when that task runs: a
case branch's body runs on streams its branch activates (GE's CaseOpLabelMaker), a While's
cond and body on streams they activate every iteration (WhileOpLabelMaker's CondStreamActive
and EnterStreamActive), each ended before it runs again.

Session variables (`graph.variable`) live in a variable region apart from the arena (GE's
VarManager memory, logical base `kVarMemoryLogicBase` = 128 GiB, 512-byte aligned): the
model declares each one (`ascend.variable "w" var[0] : tensor<2xf32>`), tasks address it as
`var[k]` like the arena, and a run starts from the session's values and leaves its writes
there for the next run.

Values of unknown-shape partitions (GE's hybrid model: shapes known only at run time) live in
dynamic buffers, `dyn[3] : tensor<?x2xi64>`: a slot number instead of an offset. An
`ascend.dynamic_kernel` task writes them; the interpreter computes their shapes, places them
in the arena above `arena_size` when they are written and frees them after their last reader,
as GE's hybrid executor allocates at run time. A static `ascend.kernel` never touches them: a
copy (`ascend.memcpy_async`, shapes checked at run time) brings such a value into the planned
arena where a known partition reads it.
"""

from __future__ import annotations

import functools
import itertools
import re
from bisect import bisect_right
from collections.abc import Callable, Mapping, Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, replace
from typing import Any, ClassVar, NamedTuple, NoReturn

from xdsl.dialects.builtin import (
    I64,
    ArrayAttr,
    ArrayOfConstraint,
    DenseArrayBase,
    DenseIntOrFPElementsAttr,
    DictionaryAttr,
    IntAttr,
    IntegerAttr,
    StringAttr,
    SymbolNameConstraint,
    SymbolRefAttr,
    TensorType,
    UnitAttr,
    UnrankedTensorType,
    i32,
    i64,
)
from xdsl.ir import Attribute, Block, Dialect, Operation, ParametrizedAttribute, Region
from xdsl.irdl import (
    IRDLOperation,
    OptionalDef,
    irdl_attr_definition,
    irdl_op_definition,
    opt_prop_def,
    prop_def,
    region_def,
    traits_def,
)
from xdsl.irdl.constraints import AnyOf, AttrConstraint, BaseAttr, RangeOf, VerificationContext
from xdsl.irdl.declarative_assembly_format import (
    AttributeVariable,
    CustomDirective,
    FormatProgram,
    ParsingState,
    PrintingState,
    irdl_custom_directive,
)
from xdsl.parser import AttrParser, Parser
from xdsl.printer import Printer
from xdsl.traits import (
    CallableOpInterface,
    EffectInstance,
    HasParent,
    MemoryEffect,
    MemoryEffectKind,
    NoTerminator,
    Resource,
    SymbolOpInterface,
    SymbolTable,
)
from xdsl.utils.exceptions import VerifyException
from xdsl.utils.hints import isa

from gedialects import exact_text, fast_text, fast_verify
from gedialects.base import (
    BATCH_LABEL,
    GEOp,
    IntList,
    const_reads,
    element_count,
    element_nbytes,
    element_type,
    fast_single_accessors,
    i64_interned,
    infer_kept,
    int_array,
    int_array_values,
    new_array,
    new_dict,
    new_int,
    new_string,
    of_class,
    paused_gc,
)
from gedialects.dense_hex import parse_large_hex_dense, print_dense

# --------------------------------------------------------------------------------------------
# Buffers
# --------------------------------------------------------------------------------------------


VAR_BASE = 128 << 30
"""Where the variable region starts in a model's address space: GE's `kVarMemoryLogicBase`
(128 GiB, `graph_var_manager.h`), the logical base of the per-session variable memory, apart
from the feature-map arena. `var[k]` is the buffer at offset `VAR_BASE + k`."""

VAR_ALIGNMENT = 512
"""GE's `kSessionMemAlignSize`: every variable starts on a 512-byte boundary of its region."""


@irdl_attr_definition
class BufferAttr(ParametrizedAttribute):
    """A tensor stored at a byte offset of the model's arena, or of its variable region.

    Generic form `#ascend.buffer<1024, tensor<1x4xf32>>`; inside ascend ops it is written
    `arena[1024] : tensor<1x4xf32>`. The tensor is dense, row-major, little-endian. Offsets
    from `VAR_BASE` on address the session's variable region: `var[0] : tensor<2xf32>` is
    `#ascend.buffer<137438953472, tensor<2xf32>>`.
    """

    name = "ascend.buffer"

    offset: IntAttr
    type: TensorType

    def __init__(self, offset: int | IntAttr, type: TensorType) -> None:
        super().__init__(IntAttr(offset) if isinstance(offset, int) else offset, type)

    @classmethod
    def get(cls, offset: int, type: TensorType) -> BufferAttr:
        return cls(offset, type)

    @classmethod
    def placed(cls, offset: int, type: TensorType, nbytes: int | None) -> BufferAttr:
        """The buffer `cls(offset, type)` builds, for a caller that knows `type` static with
        byte size `nbytes` (`memory_plan.type_facts`): only the offset is checked, as `at`
        does; the generic build (parameter constraints, `verify`) was a third of the
        lowering. Any other case (`nbytes` None, a negative offset) takes the generic
        build, which raises as before."""
        if nbytes is None or offset < 0 or type.__class__ is not TensorType:
            return cls(offset, type)
        data = new_int(offset)
        made = cls.__new__(cls)
        object.__setattr__(made, "offset", data)
        object.__setattr__(made, "type", type)
        object.__setattr__(made, "_nbytes", nbytes)
        return made

    def at(self, offset: int) -> BufferAttr:
        """This buffer's tensor at another offset (a new memory plan): only the offset is
        checked (`verify`'s rules of the type held for this buffer), and its byte size is
        carried over; a fresh attribute's generic verification was most of a plan's
        rewrite."""
        if offset < 0:
            raise VerifyException(f"#ascend.buffer offset {offset} is negative")
        data = new_int(offset)
        moved = BufferAttr.__new__(BufferAttr)
        object.__setattr__(moved, "offset", data)
        object.__setattr__(moved, "type", self.type)
        known = getattr(self, "_nbytes", None)
        if known is not None:
            object.__setattr__(moved, "_nbytes", known)
        return moved

    @property
    def offset_value(self) -> int:
        return self.offset.data

    @property
    def tensor_type(self) -> TensorType:
        return self.type

    @property
    def num_elements(self) -> int:
        return element_count(self.type.get_shape())

    @property
    def nbytes(self) -> int:
        """Kept on the attribute once computed (attributes are immutable; the model verifier
        reads each buffer's size several times after every stage)."""
        known: int | None = getattr(self, "_nbytes", None)
        if known is None:
            size = element_nbytes(self.type.element_type)
            assert size is not None, "verified by BufferAttr.verify"
            known = self.num_elements * size
            object.__setattr__(self, "_nbytes", known)  # not a parameter: eq and hash ignore it
        return known

    @property
    def end(self) -> int:
        """One past the last byte."""
        return self.offset.data + self.nbytes

    @property
    def is_variable(self) -> bool:
        """In the variable region (`var[k]`), not the arena."""
        return self.offset.data >= VAR_BASE

    def __str__(self) -> str:
        offset = self.offset.data
        return f"var[{offset - VAR_BASE}]" if offset >= VAR_BASE else f"arena[{offset}]"

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> Sequence[Attribute]:
        with parser.in_angle_brackets():
            offset = parser.parse_integer(allow_boolean=False)
            parser.parse_punctuation(",")
            type = parser.parse_type()
        return (IntAttr(offset), type)

    def print_parameters(self, printer: Printer) -> None:
        with printer.in_angle_brackets():
            printer.print_string(f"{self.offset.data}, ")
            printer.print_attribute(self.type)

    def verify(self) -> None:
        if self.offset.data < 0:
            raise VerifyException(f"#ascend.buffer offset {self.offset.data} is negative")
        if not all(d >= 0 for d in self.type.get_shape()):
            raise VerifyException(f"#ascend.buffer type {self.type} is not static")
        if element_nbytes(self.type.element_type) is None:
            raise VerifyException(
                f"#ascend.buffer element type {self.type.element_type} has no byte size"
            )


def parse_buffer(parser: Parser) -> BufferAttr:
    """`arena[1024] : tensor<1x4xf32>` or `var[0] : tensor<2xf32>`"""
    base = VAR_BASE if parser.parse_optional_keyword("var") is not None else 0
    if not base:
        parser.parse_keyword("arena")
    parser.parse_punctuation("[")
    pos = parser.pos
    offset = parser.parse_integer(allow_boolean=False)
    if base and not 0 <= offset < VAR_BASE:
        parser.raise_error(f"variable region offset {offset} is outside [0, {VAR_BASE})", pos)
    offset += base
    parser.parse_punctuation("]")
    parser.parse_punctuation(":")
    pos = parser.pos
    type = parser.parse_type()
    if not isinstance(type, TensorType):
        parser.raise_error(f"expected a tensor type for an arena buffer, got {type}", pos)
    return BufferAttr(offset, type)


@irdl_attr_definition
class DynBufferAttr(ParametrizedAttribute):
    """A tensor of an unknown-shape partition: its shape and arena offset are decided at run time.

    Generic form `#ascend.dyn_buffer<3, tensor<?x2xi64>>`; inside ascend ops `dyn[3] :
    tensor<?x2xi64>`. The slot number names the value (one writer per slot); the type gives
    its element type and rank, and the dims every run must have (`?` for the others); an
    unranked `tensor<*xf32>` (a Squeeze without axes of an unknown dim) fixes only the
    element type.
    """

    name = "ascend.dyn_buffer"

    slot: IntAttr
    type: TensorType | UnrankedTensorType

    def __init__(self, slot: int | IntAttr, type: TensorType | UnrankedTensorType) -> None:
        super().__init__(IntAttr(slot) if isinstance(slot, int) else slot, type)

    @property
    def slot_value(self) -> int:
        return self.slot.data

    def __str__(self) -> str:
        return f"dyn[{self.slot.data}]"

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> Sequence[Attribute]:
        with parser.in_angle_brackets():
            slot = parser.parse_integer(allow_boolean=False)
            parser.parse_punctuation(",")
            type = parser.parse_type()
        return (IntAttr(slot), type)

    def print_parameters(self, printer: Printer) -> None:
        with printer.in_angle_brackets():
            printer.print_string(f"{self.slot.data}, ")
            printer.print_attribute(self.type)

    def verify(self) -> None:
        if self.slot.data < 0:
            raise VerifyException(f"#ascend.dyn_buffer slot {self.slot.data} is negative")
        if element_nbytes(self.type.element_type) is None:
            raise VerifyException(
                f"#ascend.dyn_buffer element type {self.type.element_type} has no byte size"
            )


AnyBuffer = BufferAttr | DynBufferAttr
"""Where a task may read (or an input/output may live in) a buffer of either kind."""


def parse_any_buffer(parser: Parser) -> BufferAttr | DynBufferAttr:
    """`arena[1024] : tensor<4xf32>` or `dyn[3] : tensor<?xf32>`"""
    if parser.parse_optional_keyword("dyn") is None:
        return parse_buffer(parser)
    parser.parse_punctuation("[")
    slot = parser.parse_integer(allow_boolean=False)
    parser.parse_punctuation("]")
    parser.parse_punctuation(":")
    pos = parser.pos
    type = parser.parse_type()
    if not isinstance(type, TensorType | UnrankedTensorType):
        parser.raise_error(f"expected a tensor type for a dynamic buffer, got {type}", pos)
    return DynBufferAttr(slot, type)


def print_buffer(printer: Printer, buffer: BufferAttr | DynBufferAttr) -> None:
    printer.print_string(f"{buffer} : ")
    printer.print_attribute(buffer.type)


@irdl_custom_directive
class Buffer(CustomDirective):
    """A buffer property printed `arena[1024] : tensor<1x4xf32>` (or `dyn[3] : ...`; the
    property's constraint says which kinds the op takes)."""

    buffer: AttributeVariable

    def parse(self, parser: Parser, state: ParsingState) -> None:
        self.buffer.set(state, parse_any_buffer(parser))

    def print(self, printer: Printer, state: PrintingState, op: IRDLOperation) -> None:
        state.print_whitespace(printer)
        buffer = self.buffer.get(op)
        assert isinstance(buffer, BufferAttr | DynBufferAttr)
        print_buffer(printer, buffer)


@irdl_custom_directive
class BufferList(CustomDirective):
    """A buffer array property printed `(arena[0] : tensor<2xf32>, dyn[1] : ...)`."""

    buffers: AttributeVariable

    def parse(self, parser: Parser, state: ParsingState) -> None:
        items = parser.parse_comma_separated_list(
            parser.Delimiter.PAREN, lambda: parse_any_buffer(parser)
        )
        self.buffers.set(state, ArrayAttr(items))

    def print(self, printer: Printer, state: PrintingState, op: IRDLOperation) -> None:
        buffers = self.buffers.get(op)
        assert isa(buffers, ArrayAttr[BufferAttr | DynBufferAttr])
        printer.print_string("(")
        printer.print_list(buffers.data, lambda b: print_buffer(printer, b))
        printer.print_string(")")


def _parse_weight_value(parser: Parser) -> tuple[DenseIntOrFPElementsAttr, TensorType]:
    """A weight's value after `arena[N] =` and its tensor type: the large-hex fast path, else
    xDSL's attribute."""
    pos = parser.pos
    value: Attribute | None = parse_large_hex_dense(parser) or exact_text.parse_dense_value(parser)
    if value is None:
        value = parser.parse_attribute()
    if not isinstance(value, DenseIntOrFPElementsAttr) or not isinstance(value.type, TensorType):
        parser.raise_error("'ascend.weight' expects a dense<...> : tensor<...> value", pos)
    return value, value.type


@irdl_custom_directive
class WeightValue(CustomDirective):
    """`arena[0] = dense<...> : tensor<2xf32>`: the buffer type is the value's type."""

    buffer: AttributeVariable
    value: AttributeVariable

    def parse(self, parser: Parser, state: ParsingState) -> None:
        parser.parse_keyword("arena")
        parser.parse_punctuation("[")
        offset = parser.parse_integer(allow_boolean=False)
        parser.parse_punctuation("]")
        parser.parse_punctuation("=")
        value, value_type = _parse_weight_value(parser)
        self.buffer.set(state, BufferAttr(offset, value_type))
        self.value.set(state, value)

    def print(self, printer: Printer, state: PrintingState, op: IRDLOperation) -> None:
        state.print_whitespace(printer)
        buffer = self.buffer.get(op)
        assert isinstance(buffer, BufferAttr)
        printer.print_string(f"arena[{buffer.offset.data}] = ")
        value = self.value.get(op)
        assert isinstance(value, DenseIntOrFPElementsAttr)
        print_dense(printer, value)


# --------------------------------------------------------------------------------------------
# Fast syntax: the declarative formats, read and written without the declarative machinery
# --------------------------------------------------------------------------------------------

_PRESENT = StringAttr("")
"""The value a matched keyword step yields (anything but None)."""


def _make_buffer(kind: str, number: int, type: Attribute) -> BufferAttr | DynBufferAttr:
    if not isinstance(type, TensorType):
        raise ValueError("not a ranked tensor")
    if kind == "var":
        if number >= VAR_BASE:
            raise ValueError("outside the variable region")
        return BufferAttr(VAR_BASE + number, type)
    return BufferAttr(number, type) if kind == "arena" else DynBufferAttr(number, type)


def _buffer_text(buffer: Attribute) -> str:
    assert isinstance(buffer, BufferAttr | DynBufferAttr)  # as the op's constraint says
    return f"{buffer} : {fast_text.type_text(buffer.type)}"


def _class_check(
    constr: AttrConstraint[Any],
) -> tuple[tuple[type[Attribute], ...] | None, bool]:
    """(classes, is_array) when `constr` checks only the class of a value or of an array's
    elements (`BufferAttr`, `ArrayAttr[BufferAttr | DynBufferAttr]`): then `isinstance` is its
    whole verification (`BaseAttr.verify`); (None, False) for any other constraint."""
    array = False
    if isinstance(constr, ArrayOfConstraint) and isinstance(constr.elem_range_constraint, RangeOf):
        constr, array = constr.elem_range_constraint.constr, True
    members = constr.attr_constrs if isinstance(constr, AnyOf) else (constr,)
    if all(type(c) is BaseAttr for c in members):
        return tuple(c.attr for c in members if isinstance(c, BaseAttr)), array
    return None, False


_FORMAT_ITEM = re.compile(
    r"\s*(?:`(?P<kw>\w+)`|\$(?P<var>\w+)|custom<(?P<custom>\w+)>\((?P<args>[$\w, ]+)\)"
    r"|\(`(?P<optkw>\w+)` \$(?P<optvar>\w+)\^\)\?|(?P<attrdict>attr-dict))"
)


class _Syntax:
    """One op's `TEXT_FORMAT`, as a list of steps read from canonical text or written at once.

    The format string is the op's declarative assembly format (the syntax is defined there);
    xDSL compiles the same string into the fallback parser. Steps: `kw` (a keyword), `str` and
    `int` (a StringAttr / i64 property), `buf` and `bufs` (`custom<Buffer>`,
    `custom<BufferList>`), `weight` (`custom<WeightValue>`), `opt` (`(`kw` $dict^)?`) and
    `attr-dict`.
    """

    def __init__(self, op_type: type[IRDLOperation], fmt: str) -> None:
        self.op_type = op_type
        self.op_def = op_type.get_irdl_definition()
        self.fmt = fmt
        self.steps: list[tuple[str, ...]] = []
        pos = 0
        while pos < len(fmt.rstrip()):
            m = _FORMAT_ITEM.match(fmt, pos)
            if m is None:  # pragma: no cover - the formats are ours
                raise ValueError(f"{op_type.name}: unsupported TEXT_FORMAT at {fmt[pos:]!r}")
            pos = m.end()
            if m["kw"]:
                self.steps.append(("kw", m["kw"]))
            elif m["var"]:
                bases = self.op_def.properties[m["var"]].constr.get_bases() or set()
                kind = "str" if StringAttr in bases else "int"
                self.steps.append((kind, m["var"]))
            elif m["custom"]:
                names = [a.strip().removeprefix("$") for a in m["args"].split(",")]
                kind = {"Buffer": "buf", "BufferList": "bufs", "WeightValue": "weight"}
                self.steps.append((kind[m["custom"]], *names))
            elif m["optkw"]:
                self.steps.append(("opt", m["optkw"], m["optvar"]))
            else:
                self.steps.append(("attr-dict",))
        names = [s[2] for s in self.steps if s[0] == "opt"] + [
            n for s in self.steps if s[0] in ("buf", "bufs") for n in s[1:]
        ]
        self.checked_props = [
            (n, c := self.op_def.properties[n].constr, *_class_check(c)) for n in names
        ]
        self._program: FormatProgram | None = None

    def fallback(self, parser: Parser) -> IRDLOperation:
        """The declarative parser of the same format: any text the fast path does not read."""
        if self._program is None:
            self._program = FormatProgram.from_str(self.fmt, self.op_def)
        return self._program.parse(parser, self.op_type)

    def parse(self, parser: Parser) -> IRDLOperation:
        scan = fast_text.Scan(parser)
        if not scan.ok:
            return self.fallback(parser)
        props: dict[str, Attribute] = {}
        attributes: dict[str, Attribute] = {}
        steps = self.steps
        i, committed = 0, False
        # Steps read from the text; a mismatch leaves the parser untouched for the fallback.
        while i < len(steps):
            kind, name = steps[i][0], steps[i][-1]
            i += 1
            if kind == "opt":
                if not scan.keyword(steps[i - 1][1]):
                    continue
                items = scan.attr_dict()
                value = None if items is None else DictionaryAttr(items)
            elif kind == "attr-dict":
                if scan.text.startswith("{", scan._skip()):  # pyright: ignore[reportPrivateUsage]
                    found = scan.string_dict()
                    if found is None:
                        return self.fallback(parser)
                    attributes = found
                continue
            elif kind == "kw":
                value: Attribute | None = None if not scan.keyword(name) else _PRESENT
            elif kind == "str":
                value = scan.string_attr()
            elif kind == "int":
                n = scan.integer()
                value = None if n is None else i64_interned(n)
            elif kind == "buf":
                value = scan.buffer(_make_buffer)
            elif kind == "bufs":
                value = self._scan_buffers(scan)
            else:  # weight: `arena[N] =`, then the value through the parser
                offset = scan.integer() if scan.keyword("arena") and scan.punct("[") else None
                if offset is None or offset < 0 or not (scan.punct("]") and scan.punct("=")):
                    return self.fallback(parser)
                scan.commit()
                committed = True
                weight, weight_type = _parse_weight_value(parser)
                props[steps[i - 1][1]] = BufferAttr(offset, weight_type)
                props[name] = weight
                break
            if value is None:
                return self.fallback(parser)
            if kind != "kw":
                props[name] = value
        if not committed:
            scan.commit()
        # Steps after a weight's value, read by the parser with the declarative primitives.
        for step in steps[i:]:
            if step[0] == "opt":
                if parser.parse_optional_keyword(step[1]) is not None:
                    props[step[2]] = parser.parse_attribute()
            else:
                # the format binds properties only: xDSL reserves no attribute name
                attributes = parser.parse_optional_attr_dict()
        # As the declarative parser: the buffer kinds an op takes are its constraints', and
        # an optional group's value is checked against its property's constraint.
        for name, constr, classes, array in self.checked_props:
            value = props.get(name)
            if value is None:
                continue
            if classes is not None and (
                all(isinstance(b, classes) for b in value.data)
                if array and isinstance(value, ArrayAttr)
                else not array and isinstance(value, classes)
            ):
                continue  # what the constraint's verify checks, without walking it
            constr.verify(value, VerificationContext())
        return self.op_type.create(properties=props, attributes=attributes)

    @staticmethod
    def _scan_buffers(scan: fast_text.Scan) -> ArrayAttr | None:
        if not scan.punct("("):
            return None
        items: list[Attribute] = []
        if scan.punct(")"):
            return ArrayAttr(items)
        while True:
            b = scan.buffer(_make_buffer)
            if b is None:
                return None
            items.append(b)
            if scan.punct(")"):
                return ArrayAttr(items)
            if not scan.punct(","):
                return None

    def print(self, op: IRDLOperation, printer: Printer) -> None:
        if not fast_text.enabled():
            if self._program is None:
                self._program = FormatProgram.from_str(self.fmt, self.op_def)
            self._program.print(printer, op)
            return
        out: list[str] = []
        props = op.properties
        for step in self.steps:
            kind = step[0]
            if kind == "kw":
                out.append(" " + step[1])
            # each step's property has the kind its constraint gives (the op is verified)
            elif kind == "str":
                string = props[step[1]]
                assert isinstance(string, StringAttr)
                text = fast_text.string_text(string.data)
                if text is None:
                    printer.print_string("".join(out) + " ")
                    out.clear()
                    printer.print_string_literal(string.data)
                else:
                    out.append(" " + text)
            elif kind == "int":
                number = props[step[1]]
                assert isinstance(number, IntegerAttr)
                out.append(f" {number.value.data}")
            elif kind == "buf":
                out.append(" " + _buffer_text(props[step[1]]))
            elif kind == "bufs":
                buffers = props[step[1]]
                assert isinstance(buffers, ArrayAttr)  # isa() would rebuild a constraint
                out.append("(" + ", ".join(map(_buffer_text, buffers.data)) + ")")
            elif kind == "weight":
                buffer, value = props[step[1]], props[step[2]]
                assert isinstance(buffer, BufferAttr)
                assert isinstance(value, DenseIntOrFPElementsAttr)
                out.append(f" arena[{buffer.offset.data}] = ")
                printer.print_string("".join(out))
                out.clear()
                print_dense(printer, value)
            elif kind == "opt":
                value = props.get(step[2])
                if value is not None and value != self.op_def.properties[step[2]].default_value:
                    printer.print_string("".join(out) + f" {step[1]} ")
                    out.clear()
                    printer.print_attribute(value)
            else:
                attrs = op.attributes
                text = fast_text.attr_dict_text(attrs)
                if text is None:
                    printer.print_string("".join(out))
                    out.clear()
                    printer.print_op_attributes(attrs)
                else:
                    out.append(text)
        printer.print_string("".join(out))


_SYNTAX: dict[type, _Syntax] = {}


def _init_properties(op: IRDLOperation, properties: dict[str, Attribute]) -> None:
    """What `IRDLOperation.__init__(properties=...)` does for an op of properties only (no
    operands, results, regions or successors; no None value). The first op of a class is
    built by `Operation.__init__` (which runs IRDL's defaults, `__post_init__`); every later
    one copies that op's empty operand, result, successor and region tuples and location
    (all immutable) and gets fresh property and attribute dicts with the same defaults
    filled: a tenth of the generic build's cost, and the builders of the tasks and
    declarations make one per node and per sync (25k at 10k nodes: the lowering and
    `ge-assign-streams`)."""
    template = _TEMPLATES.get(type(op))
    if template is None:
        Operation.__init__(op, properties=properties)
        op_def = op.get_irdl_definition()
        shared = {k: v for k, v in vars(op).items() if k not in ("properties", "attributes")}
        _TEMPLATES[type(op)] = (
            shared,
            _defaults(op_def.properties),
            _defaults(op_def.attributes),
        )
        return
    shared, prop_defaults, attr_defaults = template
    state = vars(op)
    state.update(shared)
    props = dict(properties)
    for name, value in prop_defaults:
        if name not in props:
            props[name] = value
    state["properties"] = props
    state["attributes"] = dict(attr_defaults)


def _defaults(defs: Mapping[str, Any]) -> tuple[tuple[str, Attribute], ...]:
    """The (name, default) pairs IRDL's `__post_init__` fills when missing: the required
    definitions with a default value."""
    return tuple(
        (name, d.default_value)
        for name, d in defs.items()
        if not isinstance(d, OptionalDef) and d.default_value is not None
    )


_TEMPLATES: dict[
    type,
    tuple[dict[str, Any], tuple[tuple[str, Attribute], ...], tuple[tuple[str, Attribute], ...]],
] = {}
"""Per op class built by `_init_properties`: its first op's immutable fields, the property
defaults and the attribute defaults."""


_NO_ATTRS = DictionaryAttr({})


class FastSyntax(IRDLOperation):
    """Ops whose `TEXT_FORMAT` (a declarative assembly format) is read by `_Syntax`.

    The hot ascend ops (one per task and declaration, 7.5k in a 10k-node model) spent most
    of their load time in xDSL's declarative parser and printer. The format string stays
    the definition of the syntax: canonical text, as the printer writes it, is read with
    `fast_text.Scan` and written as one string; any other text goes to the declarative
    parser compiled from the same string, so accepted syntax and diagnostics do not change.
    """

    TEXT_FORMAT: ClassVar[str]

    @classmethod
    def _syntax(cls) -> _Syntax:
        syntax = _SYNTAX.get(cls)
        if syntax is None:
            syntax = _SYNTAX[cls] = _Syntax(cls, cls.TEXT_FORMAT)
        return syntax

    @classmethod
    def parse(cls, parser: Parser) -> IRDLOperation:
        return cls._syntax().parse(parser)

    def print(self, printer: Printer) -> None:
        self._syntax().print(self, printer)


def _count(t: TensorType) -> int:
    return element_count(t.get_shape())


def _i64(value: int) -> IntegerAttr:
    """Interned: the builders make one per stream, event and id of every task, and a fresh
    IntegerAttr verifies its value each time (most of `ge-assign-streams`' op building)."""
    return i64_interned(value)


# --------------------------------------------------------------------------------------------
# Model
# --------------------------------------------------------------------------------------------


_MODEL_FORMAT: dict[type, FormatProgram] = {}


class ModelCallable(CallableOpInterface):
    """Lets `Interpreter.call_op` run a model: arguments and results in InputOp/OutputOp order."""

    @classmethod
    def get_callable_region(cls, op: Operation) -> Region:
        assert isinstance(op, ModelOp)
        return op.body

    @classmethod
    def get_argument_types(cls, op: Operation) -> tuple[Attribute, ...]:
        assert isinstance(op, ModelOp)
        return tuple(i.buffer.type for i in op.inputs())

    @classmethod
    def get_result_types(cls, op: Operation) -> tuple[Attribute, ...]:
        assert isinstance(op, ModelOp)
        return tuple(o.buffer.type for o in op.outputs())


ITERATIONS_PER_LOOP = "iterations_per_loop"
"""Model attribute: the iterations `ge-sink-loop` sank into one launch (GE's option
`iterations_per_loop`); the interpreter's step budget scales with it."""

LABEL_NUM = "label_num"
"""Model attribute: how many labels its tasks number (GE's graph attribute `label_num`, the
total of LabelAllocator's running index; the runtime creates that many labels)."""

MAX_ITERATIONS_PER_LOOP = 1_000_000
"""The most iterations a model may sink. GE sinks the training steps between two host syncs
(loss logging, checkpoints), at most an epoch's worth: ResNet-50 on ImageNet at batch 256 has
about 5,000 steps per epoch, so a million covers 200 epochs. The interpreter runs at least 5
tasks per sunk iteration (head label, AssignAdd, Less, Cast, switch; a few microseconds each):
a million iterations of the smallest model already take about half a minute."""


@irdl_op_definition
class ModelOp(GEOp):
    """GE DavinciModel: a static model, its memory arena, streams, events and task lists.

    `arena_size` is the byte size of the arena a run allocates (zeroed); `weight_size` the
    size of its weight region at offset 0. The body holds declarations, then tasks.

    The verifier proves what a run assumes: every buffer inside the arena, weights inside
    their region and tasks writing above it; inputs and outputs disjoint (the same range bound
    twice is one buffer), task buffers using them whole or as a prefix; each kernel typed as
    its GE op (the `graph` op's rule: one element type where GE requires it, no silent
    conversion into an output). Whether tensors sharing bytes are ever live at once needs the
    liveness analysis of the pass layer: `ge-verify-model`, which the tools run on load.

        ascend.model @main arena_size 16384 weight_size 1024 {
          ascend.stream 0 engine "AIcoreEngine"
          ascend.input "x" arena[1024] : tensor<4xf32>
          ascend.output "y" arena[2048] : tensor<4xf32>
          ascend.memcpy_async stream 0 arena[1024] : tensor<4xf32> to arena[2048] : tensor<4xf32>
        }
    """

    name = "ascend.model"
    GE_TYPE: ClassVar[str] = "DavinciModel"

    sym_name = prop_def(SymbolNameConstraint())
    arena_size = prop_def(IntegerAttr[I64])
    weight_size = prop_def(IntegerAttr[I64])
    body = region_def("single_block")

    traits = traits_def(
        fast_verify.BodyIsolatedFromAbove(), SymbolOpInterface(), NoTerminator(), ModelCallable()
    )

    TEXT_FORMAT: ClassVar[str] = (
        "$sym_name `arena_size` $arena_size `weight_size` $weight_size attr-dict-with-keyword $body"
    )
    """A declarative assembly format, compiled by `_format()`: kept out of `assembly_format`
    (which would make it the op's `parse`) so that the body's ops are read with
    `fast_text.parse_block_body`."""

    @classmethod
    def _format(cls) -> FormatProgram:
        program = _MODEL_FORMAT.get(cls)
        if program is None:
            program = _MODEL_FORMAT[cls] = FormatProgram.from_str(
                cls.TEXT_FORMAT, cls.get_irdl_definition()
            )
        return program

    @classmethod
    def parse(cls, parser: Parser) -> ModelOp:
        with fast_text.fast_block_bodies(parser):
            op = cls._format().parse(parser, cls)
        assert isinstance(op, ModelOp)
        return op

    def print(self, printer: Printer) -> None:
        self._format().print(printer, self)

    def __init__(
        self, name: str, arena_size: int, weight_size: int, ops: Sequence[Operation] = ()
    ) -> None:
        super().__init__(
            regions=[Region(Block(ops))],
            properties={
                "sym_name": StringAttr(name),
                "arena_size": _i64(arena_size),
                "weight_size": _i64(weight_size),
            },
        )

    # One class test per op class (`of_class`), not an ABC isinstance per op: the passes
    # list a model's declarations and tasks among its 180k ops at 100k bench nodes.

    def inputs(self) -> list[InputOp]:
        return [op for op in self.body.block.ops if of_class(op, InputOp)]

    def outputs(self) -> list[OutputOp]:
        return [op for op in self.body.block.ops if of_class(op, OutputOp)]

    @property
    def input_names(self) -> tuple[str, ...]:
        """As `graph.graph`'s: the names a run takes its inputs by, in order."""
        return tuple(op.input_name.data for op in self.inputs())

    @property
    def output_names(self) -> tuple[str, ...]:
        return tuple(op.output_name.data for op in self.outputs())

    def weights(self) -> list[WeightOp]:
        return [op for op in self.body.block.ops if of_class(op, WeightOp)]

    def streams(self) -> list[StreamOp]:
        return [op for op in self.body.block.ops if of_class(op, StreamOp)]

    def events(self) -> list[EventOp]:
        return [op for op in self.body.block.ops if of_class(op, EventOp)]

    def tasks(self) -> list[TaskOp]:
        return [op for op in self.body.block.ops if of_class(op, TaskOp)]

    def verify_(self) -> None:
        # what the checks cache on the tasks (their effects) lives as long as the model:
        # collections would only walk the model's objects again (2.5 of the 4.5 s that the
        # verification of a freshly loaded 180k-op model took at 100k bench nodes)
        with paused_gc():
            _ModelVerifier(self).run()


def _other_gears(first: Operation, op: Operation, labels: dict[int, set[str]], slot: int) -> bool:
    """Whether `op` and every earlier writer of dynamic `slot` are copies of distinct gear
    branches (`_batch_label`): gears are exclusive, so each run writes the slot once (GE's
    memory blocks of different batch labels never hold values of one run together)."""
    mine, theirs = first.attributes.get(BATCH_LABEL), op.attributes.get(BATCH_LABEL)
    if not isinstance(mine, StringAttr) or not isinstance(theirs, StringAttr):
        return False
    seen = labels.setdefault(slot, {mine.data})
    if theirs.data in seen:
        return False
    seen.add(theirs.data)
    return True


class _ModelVerifier:
    """The model-wide rules, in one pass over the body plus a pass over collected references."""

    def __init__(self, model: ModelOp) -> None:
        self.model = model
        self.arena_size = model.arena_size.value.data
        self.weight_size = model.weight_size.value.data
        self.streams: set[int] = set()
        self.events: set[int] = set()
        self.recorded: set[int] = set()
        self.waits: list[tuple[TaskOp, int]] = []
        self.labels: dict[int, set[int]] = {}
        self.jumps: list[tuple[TaskOp, int]] = []
        self.activations: dict[int, TaskOp] = {}
        self.weights: list[WeightOp] = []
        self.names: dict[str, set[str]] = {"input": set(), "output": set()}
        self.dyn_writer: dict[int, DeclarationOp | TaskOp] = {}
        self.dyn_labels: dict[int, set[str]] = {}  # gear labels of a slot's writers
        self.dyn_type: dict[int, TensorType | UnrankedTensorType] = {}
        self.dyn_reads: list[tuple[DeclarationOp | TaskOp, DynBufferAttr]] = []
        self.io: list[tuple[int, int, InputOp | OutputOp]] = []
        """(offset, end, op) of each input/output in a planned buffer, sorted once the
        declarations are read (`check_io`)."""
        self.io_starts: list[int] = []
        self.io_span = (0, 0)
        """The first byte of any input or output and one past the last: a buffer outside it
        touches none (most of them; `io_view`'s search is skipped for those)."""
        self.inputs: list[InputOp] = []
        self.outputs: list[OutputOp] = []
        """The model's inputs and outputs in order, as the declarations are read (the checks
        of the I/O and the gears need them; `ModelOp.inputs()` walks the whole body)."""
        self.variables: dict[int, VariableOp] = {}
        """Offset -> the variable declared there (tasks use a variable whole)."""
        self.variable_names: dict[str, VariableOp] = {}

    def fail(self, message: str) -> NoReturn:
        raise VerifyException(message)

    def run(self) -> None:
        here = f"'ascend.model' @{self.model.sym_name.data}"
        if self.arena_size < 0 or self.weight_size < 0:
            self.fail(f"{here}: arena_size and weight_size must be non-negative")
        if self.weight_size > self.arena_size:
            self.fail(
                f"{here}: weight_size {self.weight_size} exceeds arena_size {self.arena_size}"
            )
        first_task: TaskOp | None = None
        for op in self.model.body.block.ops:
            if of_class(op, TaskOp):
                if first_task is None:
                    first_task = op
                    self.check_io()
                self.task(op)
            elif of_class(op, DeclarationOp):
                if first_task is not None:
                    self.fail(
                        f"{op.describe()} follows the task {first_task.describe()}; "
                        "declarations must precede tasks"
                    )
                self.declaration(op)
            else:
                self.fail(f"{here}: '{op.name}' is neither an ascend declaration nor a task")
        if first_task is None:
            self.check_io()
        self.check_weights()
        self.check_gears(here)
        for wait, event in self.waits:
            if event not in self.recorded:
                self.fail(f"{wait.describe()} waits on event {event}, which no task records")
        for op, buffer in self.dyn_reads:
            if buffer.slot_value not in self.dyn_writer:
                self.fail(f"{op.describe()} reads {buffer}, which no input or task writes")
        for target, op in self.activations.items():
            if target not in self.streams:
                self.fail(f"{op.describe()} activates undeclared stream {target}")
        for task, label in self.jumps:
            stream = task.stream.value.data
            if label not in self.labels.get(stream, ()):
                self.fail(
                    f"{task.describe()} targets label {label}, which no 'ascend.label_set' "
                    f"on stream {stream} defines"
                )

    def dyn_type_of(self, op: DeclarationOp | TaskOp, buffer: DynBufferAttr) -> None:
        slot = buffer.slot_value
        known = self.dyn_type.setdefault(slot, buffer.type)
        if known != buffer.type:
            self.fail(f"{op.describe()} uses {buffer} as {buffer.type}, elsewhere {known}")

    def read(
        self, op: DeclarationOp | TaskOp, what: str, buffer: BufferAttr | DynBufferAttr
    ) -> None:
        if isinstance(buffer, BufferAttr):
            self.in_arena(op, what, buffer)
            return
        self.dyn_type_of(op, buffer)
        self.dyn_reads.append((op, buffer))

    def write(
        self, op: DeclarationOp | TaskOp, what: str, buffer: BufferAttr | DynBufferAttr
    ) -> None:
        if isinstance(buffer, BufferAttr):
            self.writable(op, what, buffer)
            return
        self.dyn_type_of(op, buffer)
        writer = self.dyn_writer.setdefault(buffer.slot_value, op)
        if writer is not op and not _other_gears(writer, op, self.dyn_labels, buffer.slot_value):
            self.fail(f"{op.describe()} writes {buffer}, already written by {writer.describe()}")

    def in_arena(self, op: DeclarationOp | TaskOp, what: str, buffer: BufferAttr) -> None:
        start = buffer.offset.data
        if start >= VAR_BASE:  # `is_variable`
            self.in_variable(op, what, buffer)
            return
        end = start + buffer.nbytes
        if end > self.arena_size:
            self.fail(
                f"{op.describe()} {what} {buffer} ends at {end}, outside the arena "
                f"[0, {self.arena_size})"
            )
        if start < self.io_span[1] and self.io_span[0] < end and of_class(op, TaskOp):
            self.io_view(op, what, buffer)

    def in_variable(self, op: DeclarationOp | TaskOp, what: str, buffer: BufferAttr) -> None:
        """A buffer of the variable region is one declared variable, whole: the region holds
        the session's variables and nothing else."""
        declared = self.variables.get(buffer.offset_value)
        if declared is None or declared.buffer.type != buffer.type:
            found = (
                ""
                if declared is None
                else f" ({declared.describe()} there is {declared.buffer.type})"
            )
            self.fail(
                f"{op.describe()} {what} {buffer} : {buffer.type} is not a variable the model "
                f"declares{found}; tasks use a variable's buffer whole"
            )
        if isinstance(op, InputOp | OutputOp):
            self.fail(f"{op.describe()} lies in the variable region ({buffer})")

    def check_io(self) -> None:
        """Inputs and outputs do not overlap (GE's zero-copy I/O binds each to its own user
        blob): a partial overlap lets one output clobber another or a task overwrite an input
        it does not own. Exactly the same range bound twice is one buffer: an output that is
        its input's buffer is a state the model updates in place (a loop counter)."""
        io: list[tuple[int, int, InputOp | OutputOp]] = []
        for op in (*self.inputs, *self.outputs):
            if isinstance(op.buffer, BufferAttr) and op.buffer.nbytes:
                io.append((op.buffer.offset_value, op.buffer.end, op))
        io.sort(key=lambda e: (e[0], e[1]))
        for (start, end, a), (next_start, next_end, b) in itertools.pairwise(io):
            if next_start < end and (next_start, next_end) != (start, end):
                self.fail(
                    f"{b.describe()} {b.buffer} overlaps {a.describe()} {a.buffer} (bytes "
                    f"[{next_start}, {min(end, next_end)})); inputs and outputs need their own "
                    "bytes"
                )
        self.io = io
        self.io_starts = [start for start, _, _ in io]
        if io:
            self.io_span = (io[0][0], max(end for _, end, _ in io))

    def io_view(self, op: TaskOp, what: str, buffer: BufferAttr) -> None:
        """A task buffer that touches an input's or output's bytes is a view of it: it starts
        where the I/O buffer starts and fits inside (a gear's batch of a multi-batch input is
        such a prefix). One that straddles its edge mixes it with other data."""
        if not self.io or buffer.nbytes == 0:
            return
        start, end = buffer.offset_value, buffer.end
        k = bisect_right(self.io_starts, start) - 1
        for j in (k, k + 1):
            if not 0 <= j < len(self.io):
                continue
            io_start, io_end, decl = self.io[j]
            if start < io_end and io_start < end and (start != io_start or end > io_end):
                self.fail(
                    f"{op.describe()} {what} {buffer} : {buffer.type} (bytes [{start}, {end})) "
                    f"straddles {decl.describe()} {decl.buffer} (bytes [{io_start}, {io_end})); "
                    "a task may only use an input or output buffer whole or as its prefix"
                )

    def writable(self, op: DeclarationOp | TaskOp, what: str, buffer: BufferAttr) -> None:
        self.in_arena(op, what, buffer)
        if buffer.offset.data < self.weight_size:
            self.fail(
                f"{op.describe()} {what} {buffer} lies in the weight region [0, {self.weight_size})"
            )

    def declaration(self, op: DeclarationOp) -> None:
        if of_class(op, StreamOp):
            if op.id.value.data in self.streams:
                self.fail(f"{op.describe()} is declared twice")
            self.streams.add(op.id.value.data)
        elif of_class(op, EventOp):
            if op.id.value.data in self.events:
                self.fail(f"{op.describe()} is declared twice")
            self.events.add(op.id.value.data)
        elif of_class(op, WeightOp):
            self.weights.append(op)
        elif of_class(op, VariableOp):
            self.variable(op)
        elif isinstance(op, InputOp | OutputOp):
            kind = "input" if isinstance(op, InputOp) else "output"
            name = op.input_name.data if isinstance(op, InputOp) else op.output_name.data
            if name in self.names[kind]:
                self.fail(f"{op.describe()} is declared twice")
            self.names[kind].add(name)
            if isinstance(op, InputOp):
                self.inputs.append(op)
                self.write(op, "buffer", op.buffer)
                return
            self.outputs.append(op)
            if isinstance(op.buffer, BufferAttr):
                self.writable(op, "buffer", op.buffer)
            else:
                self.read(op, "buffer", op.buffer)

    def variable(self, op: VariableOp) -> None:
        earlier = self.variable_names.setdefault(op.variable, op)
        if earlier is not op:
            self.fail(f"{op.describe()} is declared twice")
        start, end = op.buffer.offset_value, op.buffer.offset_value + max(op.buffer.nbytes, 1)
        for other in self.variables.values():
            o_start = other.buffer.offset_value
            if start < o_start + max(other.buffer.nbytes, 1) and o_start < end:
                self.fail(f"{op.describe()} {op.buffer} overlaps {other.describe()} {other.buffer}")
        self.variables[start] = op

    def check_weights(self) -> None:
        previous: WeightOp | None = None
        for op in sorted(self.weights, key=lambda w: w.buffer.offset_value):
            if op.buffer.end > self.weight_size:
                self.fail(
                    f"{op.describe()} ends at {op.buffer.end}, outside the weight region "
                    f"[0, {self.weight_size})"
                )
            if previous is not None and previous.buffer.end > op.buffer.offset_value:
                self.fail(
                    f"{op.describe()} overlaps {previous.describe()} "
                    f"(bytes [{previous.buffer.offset_value}, {previous.buffer.end}))"
                )
            previous = op

    def check_gears(self, here: str) -> None:
        """A multi-batch model: inputs sized for their largest gear, per-gear output dims that
        name an output and fit its buffer (the runtime returns that prefix)."""
        from gedialects.multibatch import DYNAMIC_OUTPUT_DIMS, MAX_INPUT_DIMS

        for op in self.inputs:
            dims = op.attributes.get(MAX_INPUT_DIMS)
            t = op.buffer.type
            shape = tuple(t.get_shape()) if isinstance(t, TensorType) else None
            if isinstance(dims, DenseArrayBase) and int_array_values(dims) != shape:
                self.fail(
                    f"{op.describe()} has {MAX_INPUT_DIMS} {list(int_array_values(dims))} but "
                    f"its buffer is {op.buffer.type}"
                )
        entries = self.model.attributes.get(DYNAMIC_OUTPUT_DIMS)
        if entries is None:
            self.check_symbolic_shapes(here)
            return
        outputs = self.outputs
        if not isinstance(entries, ArrayAttr) or not all(
            isinstance(e, StringAttr) for e in entries.data
        ):
            self.fail(f"{here}: {DYNAMIC_OUTPUT_DIMS} must be an array of strings")
        for entry in entries.data:
            assert isinstance(entry, StringAttr)  # checked above
            text = entry.data
            try:
                _, index, *dims = (int(v) for v in text.split(","))
            except ValueError:
                index, dims = -1, []
            # -1: a dim only the run knows (a gear branch with data-dependent ops), GE's
            # unknown dim; only a dynamic buffer, which the runtime places, can hold it
            unknown = 0 <= index < len(outputs) and isinstance(outputs[index].buffer, DynBufferAttr)
            if not 0 <= index < len(outputs) or any(d < (-1 if unknown else 0) for d in dims):
                self.fail(
                    f'{here}: {DYNAMIC_OUTPUT_DIMS} entry "{text}" is not '
                    f'"<gear>,<output index>,<dims>" for one of its {len(outputs)} outputs'
                )
            buffer = outputs[index].buffer
            if unknown or not isinstance(buffer, BufferAttr):
                continue
            count = element_count(dims)
            if count > _count(buffer.type):
                self.fail(
                    f'{here}: {DYNAMIC_OUTPUT_DIMS} entry "{text}" does not fit the buffer '
                    f"{buffer} : {buffer.type} of {outputs[index].describe()}"
                )
        self.check_symbolic_shapes(here)

    def check_symbolic_shapes(self, here: str) -> None:
        """`_shape_env` names the gear symbols `s0`, `s1`, ... in order; each expression of
        `_symbolic_output_shape` names a known symbol, and at every gear (`_pred_value_<g>`)
        gives the dims that gear's branch has (`_dynamic_output_dims`)."""
        from gedialects.multibatch import (
            BATCH_NUM,
            DYNAMIC_OUTPUT_DIMS,
            PRED_VALUE_PREFIX,
            SHAPE_ENV,
            SYMBOLIC_OUTPUT_SHAPE,
            parse_output_dims,
            parse_symbolic_output_shape,
        )

        attrs = self.model.attributes
        env, shapes = attrs.get(SHAPE_ENV), attrs.get(SYMBOLIC_OUTPUT_SHAPE)
        if env is None and shapes is None:
            return
        symbols: list[str] = []
        if env is not None:
            if not isinstance(env, ArrayAttr) or not all(
                isinstance(e, StringAttr) for e in env.data
            ):
                self.fail(f"{here}: {SHAPE_ENV} must be an array of strings")
            for j, entry in enumerate(env.data):
                assert isinstance(entry, StringAttr)
                name = entry.data.split(" = ", 1)[0]
                if name != f"s{j}":
                    self.fail(f'{here}: {SHAPE_ENV} entry "{entry.data}" does not define s{j}')
                symbols.append(name)
        if shapes is None:
            return
        try:
            exprs = parse_symbolic_output_shape(shapes)
        except ValueError as e:
            self.fail(f"{here}: {SYMBOLIC_OUTPUT_SHAPE} {e}")
        count = attrs.get(BATCH_NUM)
        gears: list[tuple[int, ...]] = []
        for g in range(count.value.data if isinstance(count, IntegerAttr) else 0):
            value = attrs.get(f"{PRED_VALUE_PREFIX}{g}")
            if not isinstance(value, DenseArrayBase):
                self.fail(f"{here}: {SYMBOLIC_OUTPUT_SHAPE} needs {PRED_VALUE_PREFIX}{g}")
            gears.append(int_array_values(value))
        entries = parse_output_dims(attrs.get(DYNAMIC_OUTPUT_DIMS))
        if len(exprs) > len(self.outputs):
            self.fail(
                f"{here}: {SYMBOLIC_OUTPUT_SHAPE} has {len(exprs)} outputs, the model "
                f"{len(self.outputs)}"
            )
        for o, dims in enumerate(exprs):
            for d, expr in enumerate(dims):
                if expr is not None and expr.j is not None and expr.j >= len(symbols):
                    self.fail(
                        f'{here}: {SYMBOLIC_OUTPUT_SHAPE} output {o} dim {d} "{expr}" names '
                        f"s{expr.j}, no symbol of {SHAPE_ENV} ({', '.join(symbols) or 'none'})"
                    )
            for g, gear in enumerate(gears):
                want = entries.get(g, {}).get(o, entries.get(-1, {}).get(o))
                if want is None or len(want) != len(dims):
                    self.fail(
                        f"{here}: {SYMBOLIC_OUTPUT_SHAPE} output {o} has {len(dims)} dims but "
                        f"{DYNAMIC_OUTPUT_DIMS} gives gear {g} {list(want or [])}"
                    )
                for d, expr in enumerate(dims):
                    if expr is not None and expr.at(gear) != want[d]:
                        self.fail(
                            f'{here}: {SYMBOLIC_OUTPUT_SHAPE} output {o} dim {d} "{expr}" is '
                            f"{expr.at(gear)} at gear {g} {list(gear)}, but that gear's output "
                            f"is {list(want)}"
                        )

    def task(self, op: TaskOp) -> None:
        stream = op.stream.value.data
        if stream not in self.streams:
            self.fail(f"{op.describe()} runs on undeclared stream {stream}")
        effects = op.effects()
        for buffer, role in zip(effects.ins, effects.in_roles, strict=True):
            if type(buffer) is BufferAttr:  # most buffers: `read`'s planned case, no ABC test
                self.in_arena(op, role, buffer)
            else:
                self.read(op, role, buffer)
        for buffer, role in zip(effects.outs, effects.out_roles, strict=True):
            if type(buffer) is BufferAttr:  # `write`'s planned case
                self.writable(op, role, buffer)
            else:
                self.write(op, role, buffer)
        op.verify_in_model()
        if effects.records or effects.waits:
            for verb, events in (("records", effects.records), ("waits on", effects.waits)):
                for event in events:
                    if event not in self.events:
                        self.fail(f"{op.describe()} {verb} undeclared event {event}")
            self.recorded.update(effects.records)
            self.waits.extend((op, event) for event in effects.waits)
        for label in effects.labels:
            labels = self.labels.setdefault(stream, set())
            if label in labels:
                self.fail(f"{op.describe()} sets label {label}, already set on stream {stream}")
            labels.add(label)
        self.jumps.extend((op, label) for label in effects.jumps)
        for target in effects.activates:
            earlier = self.activations.setdefault(target, op)
            if earlier is not op:
                self.fail(
                    f"{op.describe()} activates stream {target}, already activated by "
                    f"{earlier.describe()}; a stream has one activation point"
                )


@functools.cache
def _graph_ops() -> dict[str, type[GEOp]]:
    """GE type -> the `graph` op of that type (imported on first use: `ge-opt` on a graph
    file never needs it)."""
    from gedialects.graph import Graph

    return {
        op.GE_TYPE: op for op in Graph.operations if issubclass(op, GEOp) and hasattr(op, "GE_TYPE")
    }


def check_kernel_types(op: KernelOp | DynamicKernelOp) -> None:
    """A kernel task's buffers obey the typing rule of its GE op, the one the `graph` op of
    that type verifies with: the same operands in one element type where GE requires it, the
    result element types GE produces (a kernel's result is cast into its output buffer, so
    a wrong one would convert silently; a change of type needs an explicit Cast). Shapes are
    left to the run, which checks them; kernels with no graph op (loop control) have no rule.
    """
    ins = tuple(b.type for b in op.inputs.data)
    out_types = tuple(b.type for b in op.outputs.data)
    attrs = op.attrs.data
    # the verdict is a function of these values (immutable, kept alive by the entry); the
    # attrs by value: each kernel of a compiled model has its own dictionary (a Transpose's
    # perm, a SplitV's sizes), and keyed by id every such kernel missed (19k of 88k at 100k
    # bench nodes, a fifth of the compiled model's verification)
    key = (op.kernel.data, *map(id, ins), -1, *map(id, out_types), op.attrs if attrs else 0)
    if key in _KERNEL_TYPES_PASSED:
        return
    _check_kernel_types(op, ins)
    if len(_KERNEL_TYPES_PASSED) >= 1 << 12:  # a full table starts again
        _KERNEL_TYPES_PASSED.clear()
    _KERNEL_TYPES_PASSED[key] = (ins, out_types, op.attrs)


_KERNEL_TYPES_PASSED: dict[tuple[object, ...], tuple[object, ...]] = {}
"""(kernel, ids of the input and output types and of the attrs) -> those objects, for the
kernel tasks `check_kernel_types` passed: a model repeats few (a 10k-task model, a dozen)."""


def _check_kernel_types(op: KernelOp | DynamicKernelOp, ins: tuple[Attribute, ...]) -> None:
    rule = _graph_ops().get(op.kernel.data)
    if rule is None:
        return
    definition = rule.get_irdl_definition()
    props: dict[str, Attribute] = {
        k: p.default_value for k, p in definition.properties.items() if p.default_value is not None
    }
    props.update(op.attrs.data)
    outs = op.outputs.data
    try:
        inferred = infer_kept(rule, ins, props, lambda i: None)
    except ValueError as e:
        if "element type" not in str(e):
            return  # arity and shapes are the run's to check (a kernel may take attrs instead)
        raise VerifyException(f"{op.describe()} ({op.kernel.data}): {e}") from None
    except (KeyError, TypeError, IndexError):
        return
    if inferred is None:
        return
    if len(inferred) != len(outs):
        raise VerifyException(
            f"{op.describe()} ({op.kernel.data}) has {len(outs)} outputs, GE's "
            f"{op.kernel.data} gives {len(inferred)}"
        )
    for i, (buffer, expected) in enumerate(zip(outs, inferred, strict=True)):
        want = element_type(expected)
        if buffer.type.element_type != want:
            raise VerifyException(
                f"{op.describe()} ({op.kernel.data}) output {i} {buffer} : {buffer.type} has "
                f"element type {buffer.type.element_type}, but {op.kernel.data} of "
                f"({', '.join(str(t) for t in ins)}) gives {want}; a conversion needs an "
                "explicit Cast"
            )


# --------------------------------------------------------------------------------------------
# Declarations
# --------------------------------------------------------------------------------------------


class DeclarationOp(GEOp):
    """Base of the ops that declare model resources; they precede every task."""

    traits = traits_def(HasParent(ModelOp))

    def describe(self) -> str:
        return f"'{self.name}'"


@irdl_op_definition
class EventOp(FastSyntax, DeclarationOp):
    """GE Event: declares a runtime event (`rtEvent_t`) used to order two streams.

    ascend.event 0
    """

    name = "ascend.event"
    GE_TYPE: ClassVar[str] = "Event"

    id = prop_def(IntegerAttr[I64])

    TEXT_FORMAT: ClassVar[str] = "$id attr-dict"

    def __init__(self, id: int) -> None:
        _init_properties(self, {"id": _i64(id)})

    def describe(self) -> str:
        return f"'ascend.event' {self.id.value.data}"

    def verify_(self) -> None:
        if self.id.value.data < 0:
            raise VerifyException(f"{self.describe()}: event ids must be non-negative")


@irdl_op_definition
class InputOp(FastSyntax, DeclarationOp):
    """GE InputData: a model input, written into its buffer before the tasks run.

    Named after the runtime's `InputData` (the user blob a Data node receives); the graph-level
    counterpart is a `graph.graph` block argument (GE Data).

        ascend.input "x" arena[1024] : tensor<1x2xf32>

    An input with `?` dims (of an unknown-shape graph) lives in a dynamic buffer, placed when
    the run starts: `ascend.input "x" dyn[0] : tensor<?x2xf32>`.
    """

    name = "ascend.input"
    GE_TYPE: ClassVar[str] = "InputData"

    input_name = prop_def(StringAttr)
    buffer = prop_def(AnyBuffer)

    TEXT_FORMAT: ClassVar[str] = "$input_name custom<Buffer>($buffer) attr-dict"
    custom_directives = (Buffer,)

    def __init__(self, name: str, buffer: BufferAttr | DynBufferAttr) -> None:
        super().__init__(properties={"input_name": StringAttr(name), "buffer": buffer})

    def describe(self) -> str:
        return f"'ascend.input' \"{self.input_name.data}\""


@irdl_op_definition
class OutputOp(FastSyntax, DeclarationOp):
    """GE OutputData: a model output, read from its buffer after every stream finished.

    Named after the runtime's `OutputData`; the graph-level counterpart is `graph.net_output`.

        ascend.output "y" arena[2048] : tensor<1x2xf32>

    An output in a dynamic buffer is returned with the shape its writer gave it.
    """

    name = "ascend.output"
    GE_TYPE: ClassVar[str] = "OutputData"

    output_name = prop_def(StringAttr)
    buffer = prop_def(AnyBuffer)

    TEXT_FORMAT: ClassVar[str] = "$output_name custom<Buffer>($buffer) attr-dict"
    custom_directives = (Buffer,)

    def __init__(self, name: str, buffer: BufferAttr | DynBufferAttr) -> None:
        super().__init__(properties={"output_name": StringAttr(name), "buffer": buffer})

    def describe(self) -> str:
        return f"'ascend.output' \"{self.output_name.data}\""


@irdl_op_definition
class StreamOp(FastSyntax, DeclarationOp):
    """GE Stream: declares a runtime stream (`rtStream_t`) and the engine whose tasks it runs.

    ascend.stream 0 engine "AIcoreEngine"
    """

    name = "ascend.stream"
    GE_TYPE: ClassVar[str] = "Stream"

    id = prop_def(IntegerAttr[I64])
    engine = prop_def(StringAttr)

    TEXT_FORMAT: ClassVar[str] = "$id `engine` $engine attr-dict"

    def __init__(self, id: int, engine: str) -> None:
        _init_properties(self, {"id": _i64(id), "engine": fast_text.string_attr(engine)})

    def describe(self) -> str:
        return f"'ascend.stream' {self.id.value.data}"

    def verify_(self) -> None:
        if self.id.value.data < 0:
            raise VerifyException(f"{self.describe()}: stream ids must be non-negative")


@irdl_op_definition
class WeightOp(FastSyntax, DeclarationOp):
    """GE WeightData: weight bytes copied into the arena when the model loads.

    The model-level form of a `graph.const` (GE Const): its bytes live in the weight region.

        ascend.weight arena[0] = dense<[1.0, 2.0]> : tensor<2xf32>
    """

    name = "ascend.weight"
    GE_TYPE: ClassVar[str] = "WeightData"

    buffer = prop_def(BufferAttr)
    value = prop_def(DenseIntOrFPElementsAttr)

    TEXT_FORMAT: ClassVar[str] = "custom<WeightValue>($buffer, $value) attr-dict"
    custom_directives = (WeightValue,)

    def __init__(self, buffer: BufferAttr | int, value: DenseIntOrFPElementsAttr) -> None:
        """`buffer` may be just the offset: the buffer type is then the value's type."""
        if isinstance(buffer, int):
            assert isinstance(value.type, TensorType)
            buffer = BufferAttr(buffer, value.type)
        _init_properties(self, {"buffer": buffer, "value": value})  # one per constant

    def describe(self) -> str:
        return f"'ascend.weight' {self.buffer}"

    def verify_(self) -> None:
        if self.buffer.type != self.value.type:
            raise VerifyException(
                f"{self.describe()} buffer type {self.buffer.type} differs from its value's "
                f"type {self.value.type}"
            )


@irdl_op_definition
class VariableOp(DeclarationOp):
    """GE VarAddrMgr: a session variable's place in the model's variable region (GE's record
    of a variable in `VarResource::var_addr_mgr_map_`, `graph_var_manager.h`: desc, offset).

    The region (`var[k]`, from GE's logical base `kVarMemoryLogicBase`) is apart from the
    arena and belongs to the session (GE's VarManager): a run copies nothing into it but the
    session's current value of each variable, entered from `value` the first time the session
    meets the variable; tasks read and write it by offset like the arena, and what they leave
    there is the variable's value for the next run. `assigned_first`: the model overwrites
    the variable whole before anything reads it (an Assign initialises it), so it may start
    without a value.

        ascend.variable "w" var[0] : tensor<2xf32> = dense<[1.0, 2.0]> : tensor<2xf32>
        ascend.variable "step" var[512] : tensor<i64> assigned_first
    """

    name = "ascend.variable"
    GE_TYPE: ClassVar[str] = "VarAddrMgr"

    var_name = prop_def(StringAttr)
    buffer = prop_def(BufferAttr)
    value = opt_prop_def(DenseIntOrFPElementsAttr)
    assigned_first = opt_prop_def(UnitAttr)

    def __init__(
        self,
        name: str,
        buffer: BufferAttr,
        value: DenseIntOrFPElementsAttr | None = None,
        assigned_first: bool = False,
    ) -> None:
        props: dict[str, Attribute] = {"var_name": StringAttr(name), "buffer": buffer}
        if value is not None:
            props["value"] = value
        if assigned_first:
            props["assigned_first"] = UnitAttr()
        super().__init__(properties=props)

    @classmethod
    def parse(cls, parser: Parser) -> VariableOp:
        name = parser.parse_str_literal()
        pos = parser.pos
        buffer = parse_buffer(parser)
        if not buffer.is_variable:
            parser.raise_error(
                f"'ascend.variable' \"{name}\" must lie in the variable region "
                f"(var[k]), not {buffer}",
                pos,
            )
        value: DenseIntOrFPElementsAttr | None = None
        if parser.parse_optional_punctuation("=") is not None:
            pos = parser.pos
            parsed = exact_text.parse_dense_value(parser) or parser.parse_attribute()
            if not isinstance(parsed, DenseIntOrFPElementsAttr):
                parser.raise_error(
                    "'ascend.variable' expects a dense<...> : tensor<...> value", pos
                )
            value = parsed
        first = parser.parse_optional_keyword("assigned_first") is not None
        op = cls(name, buffer, value, first)
        op.attributes |= fast_text.parse_optional_attr_dict(parser)
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_string_literal(self.var_name.data)
        printer.print_string(" " + _buffer_text(self.buffer))
        if self.value is not None:
            printer.print_string(" = ")
            print_dense(printer, self.value)
        if self.assigned_first is not None:
            printer.print_string(" assigned_first")
        fast_text.print_attr_dict(printer, self.attributes)

    @property
    def variable(self) -> str:
        return self.var_name.data

    def describe(self) -> str:
        return f"'ascend.variable' \"{self.var_name.data}\""

    def verify_(self) -> None:
        buffer = self.buffer
        if not buffer.is_variable:
            raise VerifyException(
                f"{self.describe()} lies at {buffer}, outside the variable region (var[k])"
            )
        if (buffer.offset_value - VAR_BASE) % VAR_ALIGNMENT:
            raise VerifyException(
                f"{self.describe()} at {buffer} is not aligned to {VAR_ALIGNMENT} bytes "
                "(GE's kSessionMemAlignSize)"
            )
        if self.value is not None and self.value.type != buffer.type:
            raise VerifyException(
                f"{self.describe()} initial value has type {self.value.type}, its buffer "
                f"{buffer.type}"
            )


# --------------------------------------------------------------------------------------------
# Tasks
# --------------------------------------------------------------------------------------------


class TaskEffects(NamedTuple):
    """What one task touches, as every pass and the interpreter read it.

    MLIR's MemoryEffectOpInterface names the values an op reads and writes; a GE task touches
    more than memory: GE's `TaskInfo` subclasses each know their own (`KernelTaskInfo` its
    kernel's input and output addresses, `MemcpyAsyncTaskInfo` its src and dst,
    `EventRecordTaskInfo` / `EventWaitTaskInfo` an event, `LabelSetTaskInfo`,
    `LabelGotoExTaskInfo` and `LabelSwitchByIndexTaskInfo` labels, `StreamActiveTaskInfo` a
    stream, `EndGraphTaskInfo` the end of its stream). This is that knowledge, declared once by
    the op (`TaskOp.EFFECTS`) so that the verifier, the task graph, liveness, memory planning,
    stream assignment, sink-loop, the cost model and the interpreter need no list of task
    classes: a new task type is its op class, its `@impl` and its cost entry.

    A named tuple, immutable as the cache that shares it needs: a frozen dataclass of these
    20 fields cost 2.3 us to build (one `object.__setattr__` per field), a fresh computation of
    every task's effects 0.3 s at 100k bench nodes, paid by the stream and memory planners and
    the verifier after each rewrite of the plan; this costs 0.3 us.
    """

    ins: tuple[BufferAttr | DynBufferAttr, ...] = ()
    """Every buffer read, planned or dynamic, in operand order."""
    in_props: tuple[str, ...] = ()
    """Per `ins` entry: the property it comes from (`inputs`, `src`, `index`)."""
    in_roles: tuple[str, ...] = ()
    """Per `ins` entry: what it is to the task, for messages (`input`, `source`, `index`)."""
    outs: tuple[BufferAttr | DynBufferAttr, ...] = ()
    """Every buffer written, in operand order; written after all `ins` were read."""
    out_props: tuple[str, ...] = ()
    out_roles: tuple[str, ...] = ()
    reads: tuple[BufferAttr, ...] = ()
    """The planned buffers of `ins` (what memory planning and liveness see)."""
    writes: tuple[BufferAttr, ...] = ()
    dyn_reads: tuple[int, ...] = ()
    """The dynamic slots of `ins`, in operand order (a slot read twice is listed twice)."""
    dyn_writes: tuple[int, ...] = ()
    records: tuple[int, ...] = ()
    """Events it records (sets)."""
    waits: tuple[int, ...] = ()
    """Events it waits on; running it consumes (resets) them."""
    labels: tuple[int, ...] = ()
    """Labels it sets on its stream (jump targets)."""
    jumps: tuple[int, ...] = ()
    """Labels of its stream where it may continue instead of at the next task."""
    conditional: bool = False
    """The jump target is chosen by a value it reads (a switch); else it always jumps."""
    activates: tuple[int, ...] = ()
    """Streams it starts at their first task."""
    ends_stream: bool = False
    """Its stream ends after it (GE's end of graph)."""
    engine: str | None = None
    """The engine whose kernel it runs; None for a runtime (RTS) task."""
    kernel: str | None = None
    """The GE op type of the kernel it runs."""
    hybrid: bool = False
    """Run by GE's hybrid executor: output shapes and placement are decided when it runs."""

    @property
    def buffer_props(self) -> tuple[str, ...]:
        """The properties that hold its buffers, each once (what a rewrite of buffers maps)."""
        return tuple(dict.fromkeys((*self.in_props, *self.out_props)))

    @property
    def control(self) -> bool:
        """It is part of its stream's control flow (sets or jumps to a label)."""
        return bool(self.labels or self.jumps)

    @property
    def sync_only(self) -> bool:
        """It only synchronises streams (records or waits events, touches nothing else)."""
        return (
            bool(self.records or self.waits)
            and not (self.ins or self.outs or self.control or self.activates)
            and self.engine is None
        )


@dataclass(frozen=True)
class EffectSpec:
    """How a task op class declares its effects: which of its properties mean what.

    Buffer properties (a buffer or an array of buffers) are given as (property, role) pairs;
    event, label and stream properties (an i64, or an array of them for `jumps`) by name.
    `TaskOp.effects` reads them into a `TaskEffects`; an op whose effects do not follow from
    its properties alone overrides `effects` instead.
    """

    reads: tuple[tuple[str, str], ...] = ()
    writes: tuple[tuple[str, str], ...] = ()
    records: str | None = None
    waits: str | None = None
    labels: str | None = None
    jumps: str | None = None
    conditional: bool = False
    activates: str | None = None
    ends_stream: bool = False
    engine: str | None = None
    kernel: str | None = None
    hybrid: bool = False

    @functools.cached_property
    def props(self) -> tuple[str, ...]:
        """Every property the declaration reads (the cache of `TaskOp.effects` checks them)."""
        names = [p for p, _ in (*self.reads, *self.writes)]
        names += [
            p
            for p in (
                self.records,
                self.waits,
                self.labels,
                self.jumps,
                self.activates,
                self.engine,
                self.kernel,
            )
            if p is not None
        ]
        return tuple(dict.fromkeys(names))


def _ints(value: Attribute) -> tuple[int, ...]:
    if isinstance(value, IntegerAttr):
        return (value.value.data,)
    assert isinstance(value, DenseArrayBase), "an event, label or stream property"
    return int_array_values(value)


def _buffers(value: Attribute) -> tuple[BufferAttr | DynBufferAttr, ...]:
    if isinstance(value, ArrayAttr):
        return value.data
    assert isinstance(value, BufferAttr | DynBufferAttr), "a buffer property"
    return (value,)


def _side(
    props: dict[str, Attribute], declared: tuple[tuple[str, str], ...]
) -> tuple[tuple[BufferAttr | DynBufferAttr, ...], tuple[str, ...], tuple[str, ...]]:
    """The buffers of the declared (property, role) pairs, with each one's property and role."""
    if len(declared) == 1:  # every task class but one: its array or buffer as it is
        prop, role = declared[0]
        found = _buffers(props[prop])
        return found, (prop,) * len(found), (role,) * len(found)
    buffers: list[BufferAttr | DynBufferAttr] = []
    names: list[str] = []
    roles: list[str] = []
    for prop, role in declared:
        found = _buffers(props[prop])
        buffers.extend(found)
        names.extend([prop] * len(found))
        roles.extend([role] * len(found))
    return tuple(buffers), tuple(names), tuple(roles)


def _planned_and_slots(
    buffers: tuple[BufferAttr | DynBufferAttr, ...],
) -> tuple[tuple[BufferAttr, ...], tuple[int, ...]]:
    """The planned buffers and the dynamic slots, in order, in one pass (the exact class
    first: an ABC `isinstance` that fails costs a microsecond, and tasks have ~4 buffers)."""
    planned: list[BufferAttr] = []
    slots: list[int] = []
    for b in buffers:
        if type(b) is BufferAttr or isinstance(b, BufferAttr):
            planned.append(b)
        elif isinstance(b, DynBufferAttr):
            slots.append(b.slot.data)
    return tuple(planned), tuple(slots)


def _int_prop(props: dict[str, Attribute], prop: str | None) -> tuple[int, ...]:
    return () if prop is None else _ints(props[prop])


def _text_prop(props: dict[str, Attribute], prop: str | None) -> str | None:
    if prop is None:
        return None
    value = props[prop]
    assert isinstance(value, StringAttr)
    return value.data


def _effects_of(op: TaskOp, spec: EffectSpec) -> TaskEffects:
    props = op.properties
    ins, in_props, in_roles = _side(props, spec.reads)
    outs, out_props, out_roles = _side(props, spec.writes)
    reads, dyn_reads = _planned_and_slots(ins)
    writes, dyn_writes = _planned_and_slots(outs)
    return TaskEffects(  # positional, in field order: a third of the keywords' cost
        ins,
        in_props,
        in_roles,
        outs,
        out_props,
        out_roles,
        reads,
        writes,
        dyn_reads,
        dyn_writes,
        _int_prop(props, spec.records),
        _int_prop(props, spec.waits),
        _int_prop(props, spec.labels),
        _int_prop(props, spec.jumps),
        spec.conditional,
        _int_prop(props, spec.activates),
        spec.ends_stream,
        _text_prop(props, spec.engine),
        _text_prop(props, spec.kernel),
        spec.hybrid,
    )


@dataclass(frozen=True)
class TaskResource(Resource):
    """What an xDSL `EffectInstance` of a task acts on: `arena` (planned buffers), `dyn`
    (dynamic buffers), `event` or `control` (its stream's program counter and activation)."""

    kind: str

    def name(self) -> str:
        return f"ascend.{self.kind}"


_ARENA, _DYN, _EVENT, _CONTROL = (TaskResource(k) for k in ("arena", "dyn", "event", "control"))
_READ, _WRITE = MemoryEffectKind.READ, MemoryEffectKind.WRITE


class TaskMemoryEffect(MemoryEffect):
    """xDSL's memory-effect interface of the tasks, read from their `TaskEffects`.

    xDSL's generic machinery (`get_effects`, dead-code elimination) sees a task through it:
    reads and writes of the arena and dynamic buffers, events (a wait reads and consumes one),
    and control (a label, jump, activation or end of stream writes the stream's control). Every
    task writes something, so no generic pass deletes one. The passes and the interpreter read
    `TaskOp.effects()` itself: one call per task instead of a trait lookup and a set.
    """

    @classmethod
    def get_effects(cls, op: Operation) -> AbstractSet[EffectInstance]:
        assert isinstance(op, TaskOp)
        e = op.effects()
        found: set[EffectInstance] = set()
        for buffers, kind in ((e.ins, _READ), (e.outs, _WRITE)):
            for b in buffers:
                found.add(
                    EffectInstance(kind, resource=_ARENA if isinstance(b, BufferAttr) else _DYN)
                )
        if e.records:
            found.add(EffectInstance(_WRITE, resource=_EVENT))
        if e.waits:
            found.update(
                (EffectInstance(_READ, resource=_EVENT), EffectInstance(_WRITE, resource=_EVENT))
            )
        if e.control or e.activates or e.ends_stream or e.engine is not None:
            found.add(EffectInstance(_WRITE, resource=_CONTROL))
        if not found:  # a task without declared effects still has its place in the stream
            found.add(EffectInstance(_WRITE, resource=_CONTROL))
        return found


class TaskOp(GEOp):
    """Base of runtime tasks: each runs on one stream, in program order within that stream.

    Each task op class declares what it touches in `EFFECTS` (see `TaskEffects`); `effects()`
    reads it, cached per op until a property it reads is replaced (a rewrite of the plan).
    """

    stream = prop_def(IntegerAttr[I64])

    traits = traits_def(HasParent(ModelOp), TaskMemoryEffect())

    EFFECTS: ClassVar[EffectSpec]
    """What the task's properties mean (every concrete task op declares its own)."""

    def effects(self) -> TaskEffects:
        """The task's effects: called per task by every analysis, so cached while the
        properties it was read from are the same objects (attributes are immutable; a pass
        that moves a buffer replaces the property)."""
        props = self.properties
        cached: tuple[tuple[tuple[str, Attribute], ...], TaskEffects] | None = vars(self).get(
            "_effects_cache"
        )
        if cached is not None:
            for name, value in cached[0]:
                if props[name] is not value:
                    break
            else:
                return cached[1]
        spec = type(self).EFFECTS
        key = tuple([(name, props[name]) for name in spec.props])
        found = _effects_of(self, spec)
        vars(self)["_effects_cache"] = (key, found)
        return found

    def verify_in_model(self) -> None:
        """Rules a task obeys that need more than its own properties (run by `ModelOp`'s
        verifier after the model-wide checks of its effects)."""

    def map_buffers(self, fn: Callable[[BufferAttr | DynBufferAttr], Attribute]) -> None:
        """Replaces every buffer of the task by `fn(buffer)` (a new memory plan)."""
        for prop in self.effects().buffer_props:
            value = self.properties[prop]
            if isinstance(value, ArrayAttr):
                self.properties[prop] = ArrayAttr([fn(b) for b in _buffers(value)])
            else:
                self.properties[prop] = fn(_buffers(value)[0])

    def trace_name(self) -> str:
        """The task's name in a timeline (a span's `name`)."""
        return self.name.removeprefix("ascend.")

    def trace_category(self) -> str:
        """The task's category in a timeline: its kernel's type, else its mnemonic."""
        return self.name.removeprefix("ascend.")

    def describe(self) -> str:
        return f"'{self.name}' on stream {self.stream.value.data}"


class EventTaskOp(FastSyntax, TaskOp):
    """Base of the tasks that act on one event: `<mnemonic> <event> stream <stream>`."""

    event = prop_def(IntegerAttr[I64])

    TEXT_FORMAT: ClassVar[str] = "$event `stream` $stream attr-dict"

    def __init__(self, event: int, stream: int) -> None:
        _init_properties(self, {"event": _i64(event), "stream": _i64(stream)})

    def trace_name(self) -> str:
        return f"{self.name.removeprefix('ascend.')} {self.event.value.data}"


class LabelTaskOp(FastSyntax, TaskOp):
    """Base of the tasks that name one label: `<mnemonic> <label> stream <stream>`."""

    label = prop_def(IntegerAttr[I64])

    TEXT_FORMAT: ClassVar[str] = "$label `stream` $stream attr-dict"

    def __init__(self, label: int, stream: int) -> None:
        _init_properties(self, {"label": _i64(label), "stream": _i64(stream)})

    def trace_name(self) -> str:
        return f"{self.name.removeprefix('ascend.')} {self.label.value.data}"


@irdl_op_definition
class EndGraphOp(FastSyntax, TaskOp):
    """GE MODEL_TASK_END_GRAPH: ends its stream (the task GE emits for the root NetOutput).

    ascend.end_graph stream 0
    """

    name = "ascend.end_graph"
    GE_TYPE: ClassVar[str] = "MODEL_TASK_END_GRAPH"
    EFFECTS: ClassVar[EffectSpec] = EffectSpec(ends_stream=True)

    TEXT_FORMAT: ClassVar[str] = "`stream` $stream attr-dict"

    def __init__(self, stream: int) -> None:
        _init_properties(self, {"stream": _i64(stream)})


@irdl_op_definition
class EventRecordOp(EventTaskOp):
    """GE MODEL_TASK_EVENT_RECORD: records (sets) an event once the earlier tasks of its stream ran.

    ascend.event_record 0 stream 0
    """

    name = "ascend.event_record"
    GE_TYPE: ClassVar[str] = "MODEL_TASK_EVENT_RECORD"
    EFFECTS: ClassVar[EffectSpec] = EffectSpec(records="event")


@irdl_op_definition
class EventWaitOp(EventTaskOp):
    """GE MODEL_TASK_EVENT_WAIT: blocks its stream until the event is recorded, then resets it.

    ascend.event_wait 0 stream 1
    """

    name = "ascend.event_wait"
    GE_TYPE: ClassVar[str] = "MODEL_TASK_EVENT_WAIT"
    EFFECTS: ClassVar[EffectSpec] = EffectSpec(waits="event")


def _buffer_list(buffers: Sequence[BufferAttr | DynBufferAttr]) -> ArrayAttr[Attribute]:
    """`ArrayAttr(buffers)`, built without xDSL's per-element ABC check when every element is
    a buffer (a lowered model makes two per task); anything else takes the checked build,
    which raises as before."""
    items = tuple(buffers)
    if all(b.__class__ in _BUFFER_CLASSES for b in items):
        return new_array(items)
    return ArrayAttr(items)


_BUFFER_CLASSES = frozenset((BufferAttr, DynBufferAttr))


class EngineTaskOp(FastSyntax, TaskOp):
    """Base of the tasks that run a GE op's kernel on an engine.

    `kernel` is the GE op type, `node_name` the graph node it came from, `attrs` the node's
    attributes (the kernel's parameters). Outputs are written after all inputs were read.
    """

    kernel = prop_def(StringAttr)
    node_name = prop_def(StringAttr)
    engine = prop_def(StringAttr)
    attrs = prop_def(DictionaryAttr, default_value=DictionaryAttr({}))

    TEXT_FORMAT: ClassVar[str] = (
        "$kernel $node_name `engine` $engine `stream` $stream "
        "`ins` custom<BufferList>($inputs) `outs` custom<BufferList>($outputs) "
        "(`attrs` $attrs^)? attr-dict"
    )
    custom_directives = (BufferList,)

    def __init__(
        self,
        kernel: str,
        node_name: str,
        engine: str,
        stream: int,
        inputs: Sequence[BufferAttr | DynBufferAttr],
        outputs: Sequence[BufferAttr | DynBufferAttr],
        attrs: Mapping[str, Attribute] | None = None,
    ) -> None:
        _init_properties(
            self,
            {
                "kernel": fast_text.string_attr(kernel),
                "node_name": new_string(node_name),
                "engine": fast_text.string_attr(engine),
                "stream": _i64(stream),
                "inputs": _buffer_list(inputs),
                "outputs": _buffer_list(outputs),
                "attrs": new_dict(attrs) if attrs else _NO_ATTRS,
            },
        )

    def describe(self) -> str:
        return f"'{self.name}' \"{self.node_name.data}\""

    def trace_name(self) -> str:
        return self.node_name.data

    def trace_category(self) -> str:
        return self.kernel.data

    def verify_(self) -> None:
        if not self.kernel.data:
            raise VerifyException(f"{self.describe()} has an empty kernel name")

    def verify_in_model(self) -> None:
        assert isinstance(self, KernelOp | DynamicKernelOp)  # the two engine task ops
        check_kernel_types(self)


_KERNEL_EFFECTS = EffectSpec(
    reads=(("inputs", "input"),),
    writes=(("outputs", "output"),),
    engine="engine",
    kernel="kernel",
)
_HYBRID_KERNEL_EFFECTS = replace(_KERNEL_EFFECTS, hybrid=True)
"""A kernel's effects, run by the hybrid executor (GE's NodeTask / ControlOpNodeTask)."""


@irdl_op_definition
class DynamicKernelOp(EngineTaskOp):
    """GE NodeTask: a kernel of an unknown-shape partition, run by the hybrid executor.

    Its output shapes are decided when it runs (by the kernel: a data-dependent op such as
    NonZero knows them only then), and its outputs are placed in the arena at that moment; the
    inputs may be planned or dynamic buffers. On one line in the IR:

        ascend.dynamic_kernel "NonZero" "nz" engine "DNN_VM_AICPU" stream 0
            ins(arena[1024] : tensor<4x6xi1>) outs(dyn[2] : tensor<2x?xi64>)
    """

    name = "ascend.dynamic_kernel"
    GE_TYPE: ClassVar[str] = "NodeTask"
    EFFECTS: ClassVar[EffectSpec] = _HYBRID_KERNEL_EFFECTS

    inputs = prop_def(ArrayAttr[BufferAttr | DynBufferAttr])
    outputs = prop_def(ArrayAttr[DynBufferAttr])


@irdl_op_definition
class DynamicControlOp(EngineTaskOp):
    """GE ControlOpNodeTask (the hybrid executor's CONTROL_OP, ControlOpExecutor): an If,
    While or Case of an unknown-shape partition, run on the host with the shapes of this run.

    `kernel` is the GE type (`If`, `While`, `Case`), `attrs` the node's, among them its
    subgraphs by their IR names (`then_branch`/`else_branch`, `cond`/`body`, `branches`), each
    an `ascend.model` of the module whose tasks are dynamic; the task runs them as the graph
    level runs the op (GE's truthiness, a Case index out of range takes the last branch, the
    loop bound). Outputs are placed when it ends. On one line in the IR:

        ascend.dynamic_control "If" "pick" engine "DNN_VM_GE_LOCAL" stream 0
            ins(arena[512] : tensor<i32>, dyn[0] : tensor<?xf32>) outs(dyn[1] : tensor<?xf32>)
            attrs {then_branch = @then, else_branch = @else}
    """

    name = "ascend.dynamic_control"
    GE_TYPE: ClassVar[str] = "ControlOpNodeTask"
    EFFECTS: ClassVar[EffectSpec] = _HYBRID_KERNEL_EFFECTS

    SUBGRAPHS: ClassVar[dict[str, tuple[str, ...]]] = {
        "If": ("then_branch", "else_branch"),
        "While": ("cond", "body"),
        "Case": ("branches",),
    }
    """Per GE type, the attributes that name its subgraphs (GE's IR names)."""

    inputs = prop_def(ArrayAttr[BufferAttr | DynBufferAttr])
    outputs = prop_def(ArrayAttr[DynBufferAttr])

    def subgraph(self, attr: str) -> list[str]:
        """The model names attribute `attr` holds (one, or a Case's list)."""
        value = self.attrs.data.get(attr)
        refs = value.data if isinstance(value, ArrayAttr) else (value,)
        return [r.root_reference.data for r in refs if isinstance(r, SymbolRefAttr)]

    def verify_(self) -> None:
        super().verify_()
        names = self.SUBGRAPHS.get(self.kernel.data)
        if names is None:
            raise VerifyException(
                f"{self.describe()} runs {self.kernel.data!r}; a control task runs one of "
                f"{', '.join(self.SUBGRAPHS)}"
            )
        for attr in names:
            if not self.subgraph(attr):
                raise VerifyException(f"{self.describe()} ({self.kernel.data}) names no {attr}")

    def verify_in_model(self) -> None:
        for attr in self.SUBGRAPHS[self.kernel.data]:
            for name in self.subgraph(attr):
                target = SymbolTable.lookup_symbol(self, name)
                if not isinstance(target, ModelOp):
                    raise VerifyException(
                        f"{self.describe()} ({self.kernel.data}) {attr} @{name} is not an "
                        "'ascend.model' of the module"
                    )


STAGE_TOKEN_TYPE = TensorType(i32, [])
"""The type of a stage's sync token (`ascend.stage`'s `after` / `sync`)."""


def _stage_token(op: StageOp, what: str, buffers: ArrayAttr[BufferAttr]) -> None:
    if len(buffers.data) > 1:
        raise VerifyException(f"{op.describe()} has {len(buffers.data)} {what} tokens; at most one")
    for b in buffers.data:
        if b.type != STAGE_TOKEN_TYPE:
            raise VerifyException(
                f"{op.describe()} {what} token {b} is {b.type}, not {STAGE_TOKEN_TYPE}"
            )


@irdl_op_definition
class StageOp(TaskOp):
    """GE KnownNodeTask (runtime v2's DavinciModelKernel): runs one pipeline stage, a static
    model of its own (`ge-partition-stage`'s `Subgraph_Level_<L>`), on the caller's buffers.

    The stage model has its own arena and memory plan: the task copies `ins` into its inputs,
    runs it, and copies its outputs into `outs`. Stages run in level order with GE's stage
    synchronisation (`ExpandLastSyncExeNodesToMainGraph` / `ExpandFirstExeNodesToMainGraph`:
    the last sync node of stage L precedes the first node of the next stage): a stage writes
    its sync token (`sync`, the last sync node's output, the value `level + 1`) and the next
    one starts by reading it (`after`, its first node's input), so the ordering is a data
    edge that stream assignment turns into events and the interpreter checks: a stage whose
    token is unwritten (0) or from a later level started too early. The model verifier
    checks the chain: stages in ascending level order, the first without `after`, each
    other's `after` the previous stage's `sync`, the last without `sync`. On one line:

        ascend.stage @Subgraph_Level_1 "Subgraph_Level_1_PartitionedCall" level 1 stream 0
            after(arena[2048] : tensor<i32>) ins(arena[1024] : tensor<2x4xf32>)
            outs(arena[1536] : tensor<2x4xf32>) sync()
    """

    name = "ascend.stage"
    GE_TYPE: ClassVar[str] = "KnownNodeTask"
    EFFECTS: ClassVar[EffectSpec] = EffectSpec(
        reads=(("after", "sync input"), ("inputs", "input")),
        writes=(("outputs", "output"), ("sync", "sync output")),
    )

    model = prop_def(SymbolRefAttr)
    node_name = prop_def(StringAttr)
    level = prop_def(IntegerAttr[I64])
    after = prop_def(ArrayAttr[BufferAttr])
    inputs = prop_def(ArrayAttr[BufferAttr])
    outputs = prop_def(ArrayAttr[BufferAttr])
    sync = prop_def(ArrayAttr[BufferAttr])

    assembly_format = (
        "$model $node_name `level` $level `stream` $stream `after` custom<BufferList>($after) "
        "`ins` custom<BufferList>($inputs) `outs` custom<BufferList>($outputs) "
        "`sync` custom<BufferList>($sync) attr-dict"
    )
    custom_directives = (BufferList,)

    def __init__(
        self,
        model: str,
        node_name: str,
        level: int,
        stream: int,
        after: Sequence[BufferAttr],
        inputs: Sequence[BufferAttr],
        outputs: Sequence[BufferAttr],
        sync: Sequence[BufferAttr],
    ) -> None:
        super().__init__(
            properties={
                "model": SymbolRefAttr(model),
                "node_name": StringAttr(node_name),
                "level": _i64(level),
                "stream": _i64(stream),
                "after": ArrayAttr(after),
                "inputs": ArrayAttr(inputs),
                "outputs": ArrayAttr(outputs),
                "sync": ArrayAttr(sync),
            }
        )

    @property
    def model_name(self) -> str:
        return self.model.root_reference.data

    def describe(self) -> str:
        return f"'{self.name}' \"{self.node_name.data}\""

    def trace_name(self) -> str:
        return self.node_name.data

    def verify_(self) -> None:
        if self.level.value.data < 0:
            raise VerifyException(f"{self.describe()} has level {self.level.value.data} < 0")
        _stage_token(self, "after", self.after)
        _stage_token(self, "sync", self.sync)

    def stage_model(self) -> ModelOp:
        """The model the stage runs: another `ascend.model` of the module."""
        target = SymbolTable.lookup_symbol(self, self.model_name)
        if not isinstance(target, ModelOp) or target is self.parent_op():
            raise VerifyException(
                f"{self.describe()} runs @{self.model_name}, which is not another "
                "'ascend.model' of the module"
            )
        return target

    def verify_in_model(self) -> None:
        target = self.stage_model()
        for what, mine, theirs in (
            ("inputs", self.inputs.data, [i.buffer for i in target.inputs()]),
            ("outputs", self.outputs.data, [o.buffer for o in target.outputs()]),
        ):
            types = [b.type for b in mine]
            expected = [b.type for b in theirs]
            if types != expected:
                raise VerifyException(
                    f"{self.describe()} {what} are ({', '.join(map(str, types))}); "
                    f"@{self.model_name} takes ({', '.join(map(str, expected))})"
                )
        self._verify_chain()

    def _verify_chain(self) -> None:
        """GE's stage order: ascending levels, each stage's first node after the previous
        stage's last sync node (the token chain)."""
        block = self.parent_block()
        assert block is not None
        stages = [op for op in block.ops if isinstance(op, StageOp)]
        k = stages.index(self)
        before = stages[k - 1] if k else None
        level = self.level.value.data
        if before is None:
            if self.after.data:
                raise VerifyException(
                    f"{self.describe()} is the first stage but waits on a sync token"
                )
        else:
            if before.level.value.data >= level:
                raise VerifyException(
                    f"{self.describe()} (level {level}) follows {before.describe()} (level "
                    f"{before.level.value.data}); stages run in ascending level order"
                )
            if tuple(self.after.data) != tuple(before.sync.data) or not self.after.data:
                raise VerifyException(
                    f"{self.describe()} must start after the sync token of {before.describe()} "
                    f"(after {_list(self.after.data)}, its sync {_list(before.sync.data)})"
                )
        if k == len(stages) - 1 and self.sync.data:
            raise VerifyException(
                f"{self.describe()} is the last stage but writes a sync token no stage reads"
            )


def _list(buffers: Sequence[BufferAttr]) -> str:
    return "(" + ", ".join(str(b) for b in buffers) + ")"


@irdl_op_definition
class KernelOp(EngineTaskOp):
    """GE MODEL_TASK_KERNEL: runs the kernel of a GE op type on arena buffers.

    All shapes are static and every buffer is planned; an output may alias an input (in-place
    kernels). In the IR, on one line:

        ascend.kernel "Relu" "relu1" engine "AIcoreEngine" stream 0
            ins(arena[1024] : tensor<4xf32>) outs(arena[1024] : tensor<4xf32>)
            attrs {negative_slope = 0.0 : f32}
    """

    name = "ascend.kernel"
    GE_TYPE: ClassVar[str] = "MODEL_TASK_KERNEL"
    EFFECTS: ClassVar[EffectSpec] = _KERNEL_EFFECTS

    inputs = prop_def(ArrayAttr[BufferAttr])
    outputs = prop_def(ArrayAttr[BufferAttr])


@irdl_op_definition
class LabelGotoOp(LabelTaskOp):
    """GE MODEL_TASK_STREAM_LABEL_GOTO: continues its stream at a label of the same stream.

    ascend.label_goto 3 stream 0
    """

    name = "ascend.label_goto"
    GE_TYPE: ClassVar[str] = "MODEL_TASK_STREAM_LABEL_GOTO"
    EFFECTS: ClassVar[EffectSpec] = EffectSpec(jumps="label")


@irdl_op_definition
class LabelSetOp(LabelTaskOp):
    """GE MODEL_TASK_LABEL_SET: marks a jump target on its stream; does nothing when run.

    ascend.label_set 1 stream 0
    """

    name = "ascend.label_set"
    GE_TYPE: ClassVar[str] = "MODEL_TASK_LABEL_SET"
    EFFECTS: ClassVar[EffectSpec] = EffectSpec(labels="label")


@irdl_op_definition
class LabelSwitchByIndexOp(TaskOp):
    """GE MODEL_TASK_STREAM_LABEL_SWITCH_BY_INDEX: jumps to `labels[index]` on its stream.

    `index` is a buffer holding one int32 (GE's Case/If branch index, a While's cond), read in
    place. An index outside `labels` (negative or too large) takes the last label: GE's device
    behaviour there is not documented, so this is the rule GE's hybrid executor and
    CondRemovePass apply to a Case, and the one that makes the label makers' lists read
    GE's truthiness: If's `[else, then]` and While's `[exit, body]` take the first label for
    0 only, as `graph.if` / `graph.while` do for a non-zero int32 cond.

        ascend.label_switch_by_index arena[512] : tensor<i32> labels [1, 2] stream 0
    """

    name = "ascend.label_switch_by_index"
    GE_TYPE: ClassVar[str] = "MODEL_TASK_STREAM_LABEL_SWITCH_BY_INDEX"
    EFFECTS: ClassVar[EffectSpec] = EffectSpec(
        reads=(("index", "index"),), jumps="labels", conditional=True
    )

    index = prop_def(BufferAttr)
    labels = prop_def(DenseArrayBase.constr(i64))

    assembly_format = (
        "custom<Buffer>($index) `labels` custom<IntList>($labels) `stream` $stream attr-dict"
    )
    custom_directives = (Buffer, IntList)

    def __init__(self, index: BufferAttr, labels: Sequence[int], stream: int) -> None:
        super().__init__(
            properties={"index": index, "labels": int_array(labels), "stream": _i64(stream)}
        )

    def verify_(self) -> None:
        itype = self.index.type
        if itype.element_type != i32 or self.index.num_elements != 1:
            raise VerifyException(
                f"{self.describe()} index {self.index} : {itype} must hold one i32"
            )
        if not int_array_values(self.labels):
            raise VerifyException(f"{self.describe()} has no labels")


@irdl_op_definition
class MemcpyAsyncOp(FastSyntax, TaskOp):
    """GE MODEL_TASK_MEMCPY_ASYNC: copies the bytes of one buffer into another.

        ascend.memcpy_async stream 0 arena[1024] : tensor<4xf32> to arena[4096] : tensor<4xf32>

    Either side may be a dynamic buffer: a copy into a planned buffer checks at run time that
    the value has that shape (where a known partition reads an unknown one's result); a copy
    into a dynamic buffer gives it the source's shape.
    """

    name = "ascend.memcpy_async"
    GE_TYPE: ClassVar[str] = "MODEL_TASK_MEMCPY_ASYNC"
    EFFECTS: ClassVar[EffectSpec] = EffectSpec(
        reads=(("src", "source"),), writes=(("dst", "destination"),)
    )

    src = prop_def(AnyBuffer)
    dst = prop_def(AnyBuffer)

    TEXT_FORMAT: ClassVar[str] = (
        "`stream` $stream custom<Buffer>($src) `to` custom<Buffer>($dst) attr-dict"
    )
    custom_directives = (Buffer,)

    def __init__(
        self, stream: int, src: BufferAttr | DynBufferAttr, dst: BufferAttr | DynBufferAttr
    ) -> None:
        _init_properties(self, {"stream": _i64(stream), "src": src, "dst": dst})

    def verify_(self) -> None:
        src, dst = self.src, self.dst
        if isinstance(src, BufferAttr) and isinstance(dst, BufferAttr):
            if src.nbytes != dst.nbytes:
                raise VerifyException(
                    f"{self.describe()} copies {src.nbytes} bytes from {src} into the "
                    f"{dst.nbytes} bytes of {dst}"
                )
            return
        s, d = src.type, dst.type
        if not (isinstance(s, TensorType) and isinstance(d, TensorType)):
            if s.element_type != d.element_type:  # an unranked side: any rank
                raise VerifyException(
                    f"{self.describe()} copies {src} : {s} into {dst} : {d}, another element type"
                )
            return
        if (
            s.element_type != d.element_type
            or s.get_num_dims() != d.get_num_dims()
            or any(
                a >= 0 and b >= 0 and a != b
                for a, b in zip(s.get_shape(), d.get_shape(), strict=False)
            )
        ):
            raise VerifyException(
                f"{self.describe()} copies {src} : {s} into {dst} : {d}; a copy with a dynamic "
                "buffer needs the same element type and rank and equal static dims"
            )


@irdl_op_definition
class StreamActiveOp(FastSyntax, TaskOp):
    """GE MODEL_TASK_STREAM_ACTIVE: starts stream `active_stream` at its first task.

    A stream some `stream_active` names is inactive until then, runs its task list once and is
    idle again after its last task, ready for the next activation (a sunk loop activates it
    every iteration); activating it while it runs is a runtime error. GE's CaseOpLabelMaker puts
    one after each branch's `label_set`, so that a branch's body runs on streams of its own
    while the control stays on the switch's stream. Activation orders like an event: the
    activated stream's tasks follow the earlier tasks of the activating one.

        ascend.stream_active 3 stream 0
    """

    name = "ascend.stream_active"
    GE_TYPE: ClassVar[str] = "MODEL_TASK_STREAM_ACTIVE"
    EFFECTS: ClassVar[EffectSpec] = EffectSpec(activates="active_stream")

    active_stream = prop_def(IntegerAttr[I64])

    TEXT_FORMAT: ClassVar[str] = "$active_stream `stream` $stream attr-dict"

    def __init__(self, active_stream: int, stream: int) -> None:
        _init_properties(self, {"active_stream": _i64(active_stream), "stream": _i64(stream)})

    def trace_name(self) -> str:
        return f"stream_active {self.active_stream.value.data}"

    def verify_(self) -> None:
        if self.active_stream.value.data == self.stream.value.data:
            raise VerifyException(f"{self.describe()} activates its own stream")


Ascend = Dialect(
    "ascend",
    [
        # Model
        ModelOp,
        # Declarations
        EventOp,
        InputOp,
        OutputOp,
        StreamOp,
        WeightOp,
        VariableOp,
        # Tasks
        DynamicControlOp,
        DynamicKernelOp,
        EndGraphOp,
        EventRecordOp,
        EventWaitOp,
        KernelOp,
        LabelGotoOp,
        LabelSetOp,
        LabelSwitchByIndexOp,
        MemcpyAsyncOp,
        StageOp,
        StreamActiveOp,
    ],
    [BufferAttr, DynBufferAttr],
)
fast_single_accessors(Ascend.operations)
fast_verify.install(Ascend, const_reads)  # compiled IRDL checks, kept verdicts
