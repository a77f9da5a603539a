"""The binary IR (`.gebc`) and GE's offline model (`.om`): one container for any module.

GE keeps a compiled model as an `.om` file (atc's output, loaded by `aclmdlLoadFromFile`) rather
than as text; this is our form of it, and of any module of our dialects at any level. The
format is documented in docs/binary-format.md. In short: a fixed 48-byte header (magic,
version, kind, section sizes and CRC-32s), one protobuf message `Module` (string table,
attribute table, op records as one packed array of integers) and a weights section of raw
bytes, each blob 64-byte aligned.

Why protobuf: it is already installed (onnx depends on it), its C implementation (upb) parses
and bounds-checks the wire format at memory speed, and the schema is built here in Python from
`descriptor_pb2` (no generated file, no protoc). Op records are a packed integer array rather
than one message per op because reading fields of 100k small messages from Python costs more
than the 20 us/op this format is for.

The IR is built with xDSL's classes directly (`Operation.create`, `ParametrizedAttribute.new`,
`Data.new`), never through the textual printer or parser. Loading evaluates no code and
unpickles nothing: every count, index and offset is checked, and any inconsistency is a
`BinaryFormatError` with a one-line message. The caller verifies the module as after a text
parse (`module.verify()`, `verify_models`).
"""

from __future__ import annotations

import dataclasses
import struct
import zlib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from enum import Enum
from typing import TYPE_CHECKING, Any, NoReturn

from xdsl.dialects.builtin import UnknownLoc
from xdsl.ir import (
    Attribute,
    Block,
    Data,
    Operation,
    ParametrizedAttribute,
    Region,
    SSAValue,
)

from gedialects import budget
from gedialects.base import new_op, paused_gc
from gedialects.nesting import MAX_NESTING

if TYPE_CHECKING:
    from xdsl.context import Context
    from xdsl.dialects.builtin import ModuleOp

MAGIC = b"\x89GEBC\r\n\x1a"
"""PNG's trick: a high byte (7-bit transfer), the name, CR LF (line-ending conversion), ^Z."""
VERSION = 1
HEADER = struct.Struct("<8sIIQQQII")
"""magic, version, kind, ir_size, weights_offset, weights_size, ir_crc32, weights_crc32."""
ALIGN = 64
"""Alignment of the weights section and of each blob in it (a cache line; numpy views)."""
INLINE_BYTES = 64
"""Byte payloads shorter than this stay in the protobuf message; longer ones are weights."""
KIND_IR = 0
KIND_OFFLINE_MODEL = 1
KINDS = {KIND_IR: "binary IR", KIND_OFFLINE_MODEL: "offline model"}
EXTENSIONS = {".gebc": KIND_IR, ".om": KIND_OFFLINE_MODEL}
"""File extensions every tool reads and writes as binary, and the kind each one writes."""
PRODUCER = "gedialects"

# Attribute kinds (field `kind` of an Attribute record).
PARAMS, STRING, INT, BOOL, FLOAT, BYTES, ARRAY, DICT, ENUM, BIGINT = range(1, 11)
KIND_NAMES = {
    PARAMS: "parameters",
    STRING: "string",
    INT: "integer",
    BOOL: "boolean",
    FLOAT: "float",
    BYTES: "bytes",
    ARRAY: "array",
    DICT: "dictionary",
    ENUM: "enum",
    BIGINT: "big integer",
}


def _article(kind: int) -> str:
    return "an" if KIND_NAMES.get(kind, "x")[0] in "aeiou" else "a"


class BinaryFormatError(ValueError):
    """A file that is no valid binary IR; the message is the one-line reason, `path` the file
    (tools print `path: error: reason`, the Session raises `GraphError("path: reason")`)."""

    def __init__(self, path: str, reason: str) -> None:
        self.path = path
        self.reason = reason
        super().__init__(reason)


def is_binary_path(path: object) -> bool:
    """True for a path whose extension selects the binary form (`.gebc`, `.om`)."""
    import os

    if not isinstance(path, str | os.PathLike):
        return False
    return os.path.splitext(os.fspath(path))[1] in EXTENSIONS


def kind_for_path(path: str) -> int:
    import os

    return EXTENSIONS.get(os.path.splitext(path)[1], KIND_IR)


# --------------------------------------------------------------------------------------------
# The protobuf schema, built from descriptor_pb2 (docs/binary-format.md prints it as .proto)
# --------------------------------------------------------------------------------------------

_MESSAGES: dict[str, Any] = {}


def _schema() -> dict[str, Any]:
    """The message classes `Module`, `Attribute` and `Entry`, built once in a private pool."""
    if _MESSAGES:
        return _MESSAGES
    from google.protobuf import descriptor_pb2, descriptor_pool, message_factory

    fdp = descriptor_pb2.FileDescriptorProto(name="gebc.proto", package="gebc", syntax="proto3")
    F = descriptor_pb2.FieldDescriptorProto
    optional, repeated = F.LABEL_OPTIONAL, F.LABEL_REPEATED

    def message(name: str, fields: Sequence[tuple[str, int, int, int, str]]) -> None:
        m = fdp.message_type.add(name=name)
        for fname, number, ftype, label, type_name in fields:
            f = m.field.add(name=fname, number=number, type=ftype, label=label)
            if type_name:
                f.type_name = f".gebc.{type_name}"

    message(
        "Attribute",
        [
            ("kind", 1, F.TYPE_UINT32, optional, ""),
            ("name", 2, F.TYPE_UINT32, optional, ""),
            ("refs", 3, F.TYPE_UINT64, repeated, ""),
            ("int", 4, F.TYPE_SINT64, optional, ""),
            ("float_bits", 5, F.TYPE_FIXED64, optional, ""),
            ("str", 6, F.TYPE_UINT32, optional, ""),
            ("bytes", 7, F.TYPE_BYTES, optional, ""),
            ("weight_offset", 8, F.TYPE_UINT64, optional, ""),
            ("weight_size", 9, F.TYPE_UINT64, optional, ""),
            ("in_weights", 10, F.TYPE_BOOL, optional, ""),
        ],
    )
    message(
        "Entry",
        [("key", 1, F.TYPE_STRING, optional, ""), ("value", 2, F.TYPE_STRING, optional, "")],
    )
    message(
        "Module",
        [
            ("producer", 1, F.TYPE_STRING, optional, ""),
            ("strings", 2, F.TYPE_STRING, repeated, ""),
            ("attributes", 3, F.TYPE_MESSAGE, repeated, "Attribute"),
            ("ops", 4, F.TYPE_UINT64, repeated, ""),
            ("value_count", 5, F.TYPE_UINT64, optional, ""),
            ("block_count", 6, F.TYPE_UINT64, optional, ""),
            ("op_count", 7, F.TYPE_UINT64, optional, ""),
            ("metadata", 8, F.TYPE_MESSAGE, repeated, "Entry"),
        ],
    )
    pool = descriptor_pool.DescriptorPool()
    pool.Add(fdp)
    for name in ("Module", "Attribute", "Entry"):
        desc = pool.FindMessageTypeByName(f"gebc.{name}")
        _MESSAGES[name] = message_factory.GetMessageClass(desc)
    _MESSAGES["file"] = fdp
    return _MESSAGES


def schema_text() -> str:
    """The schema as .proto text (docs/binary-format.md quotes it; a test keeps them equal)."""
    from google.protobuf import descriptor_pb2

    fdp = _schema()["file"]
    F = descriptor_pb2.FieldDescriptorProto
    names = {
        F.TYPE_UINT32: "uint32",
        F.TYPE_UINT64: "uint64",
        F.TYPE_SINT64: "sint64",
        F.TYPE_FIXED64: "fixed64",
        F.TYPE_STRING: "string",
        F.TYPE_BYTES: "bytes",
        F.TYPE_BOOL: "bool",
    }
    lines = ['syntax = "proto3";', f"package {fdp.package};", ""]
    for m in fdp.message_type:
        lines.append(f"message {m.name} {{")
        for f in m.field:
            ftype = f.type_name.rsplit(".", 1)[-1] if f.type_name else names[f.type]
            label = "repeated " if f.label == F.LABEL_REPEATED else ""
            lines.append(f"  {label}{ftype} {f.name} = {f.number};")
        lines.append("}")
    return "\n".join(lines) + "\n"


# --------------------------------------------------------------------------------------------
# Writing
# --------------------------------------------------------------------------------------------


def _enum_class(cls: type) -> type[Enum] | None:
    """The enum of a Data attribute whose payload is an enum member (EnumAttribute's
    `enum_type`; builtin's SignednessAttr)."""
    from xdsl.dialects.builtin import Signedness, SignednessAttr

    if cls is SignednessAttr:
        return Signedness
    enum_type = getattr(cls, "enum_type", None)
    return enum_type if isinstance(enum_type, type) and issubclass(enum_type, Enum) else None


def _class_shape(cls: type) -> tuple[tuple[str, ...] | None, type[Enum] | None]:
    """(parameter fields of a parametrized attribute class, or None; its enum if a Data)."""
    if issubclass(cls, ParametrizedAttribute):
        return tuple(f for f, _ in cls.get_irdl_definition().parameters), None
    return None, _enum_class(cls)


class _Index(dict[Any, int]):
    """Numbers keys in order of first use: `ids[key]` is a dict lookup in C when the key is
    known (the writer asks for ~12 strings per op, nearly all known)."""

    __slots__ = ()

    def __missing__(self, key: Any) -> int:
        i = self[key] = len(self)
        return i


@dataclass
class _Writer:
    string_ids: _Index = field(default_factory=_Index)
    attrs: list[tuple[Any, ...]] = field(default_factory=list)
    attr_by_key: dict[tuple[Any, ...], int] = field(default_factory=dict)
    attr_by_id: dict[int, int] = field(default_factory=dict)
    by_data: dict[type, dict[object, int]] = field(default_factory=dict)
    """StringAttr and IntAttr records by payload: passes build a fresh attribute object per
    op (after ge-compile five times as many objects as records), and a str or int (never a
    bool: True == 1) payload is the whole record, so equal payloads are the same record."""
    keep: list[Attribute] = field(default_factory=list)
    weights: list[bytes] = field(default_factory=list)
    weights_size: int = 0
    values: dict[int, int] = field(default_factory=dict)
    blocks: dict[int, int] = field(default_factory=dict)
    code: list[int] = field(default_factory=list)
    op_count: int = 0
    shapes: dict[type, tuple[tuple[str, ...] | None, type[Enum] | None]] = field(
        default_factory=dict
    )

    def __post_init__(self) -> None:
        from xdsl.dialects.builtin import IntAttr, StringAttr

        self.string = self.string_ids.__getitem__
        self.by_data[StringAttr] = {}
        self.by_data[IntAttr] = {}

    @property
    def strings(self) -> list[str]:
        return list(self.string_ids)

    def attr(self, a: Attribute) -> int:
        """The index of `a`'s record, added when new (hot callers look `id(a)` up first)."""
        i = self.attr_by_id.get(id(a))
        if i is not None:
            return i
        table = self.by_data.get(type(a))
        if table is not None:
            data = a.data  # pyright: ignore[reportAttributeAccessIssue]
            if type(data) is str or type(data) is int:
                i = table.get(data)
                if i is None:
                    i = table[data] = self.record(self.encode(a))
                return i
        i = self.attr_by_id[id(a)] = self.record(self.encode(a))
        self.keep.append(a)  # ids stay unique while the writer lives
        return i

    def record(self, key: tuple[Any, ...]) -> int:
        i = self.attr_by_key.get(key)
        if i is None:
            i = self.attr_by_key[key] = len(self.attrs)
            self.attrs.append(key)
        return i

    def encode(self, a: Attribute) -> tuple[Any, ...]:
        """The record of `a` (children interned first, so references always point back); the
        record is also its interning key: floats by their bits, bools apart from ints."""
        cls = type(a)
        shape = self.shapes.get(cls)
        if shape is None:
            shape = self.shapes[cls] = _class_shape(cls)
        name = self.string(a.name)
        fields, enum = shape
        if fields is not None:
            attr, known = self.attr, self.attr_by_id.get
            params: list[Attribute] = [getattr(a, f) for f in fields]
            return (PARAMS, name, tuple([known(id(p)) or attr(p) for p in params]))
        if not isinstance(a, Data):
            raise ValueError(f"attribute {a} has no binary form (not Data or parametrized)")
        data: object = a.data
        kind = type(data)
        if kind is str:
            return (STRING, name, self.string(data))
        if kind is tuple:
            attr, known = self.attr, self.attr_by_id.get
            return (ARRAY, name, tuple([known(id(x)) or attr(x) for x in data]))  # pyright: ignore[reportGeneralTypeIssues]
        if enum is not None and isinstance(data, enum):
            return (ENUM, name, self.string(data.name))
        if isinstance(data, bool):
            return (BOOL, name, int(data))
        if isinstance(data, int):
            if -(2**63) <= data < 2**63:
                return (INT, name, data)
            size = (data.bit_length() + 8) // 8
            return (BIGINT, name, data.to_bytes(size, "little", signed=True))
        if isinstance(data, float):
            return (FLOAT, name, float_bits(data))
        if isinstance(data, str):
            return (STRING, name, self.string(data))
        if isinstance(data, bytes):
            if len(data) < INLINE_BYTES:
                return (BYTES, name, data)
            offset = self.weight(data)
            return (BYTES, name, (offset, len(data)))
        if isinstance(data, tuple):
            return (ARRAY, name, tuple(self.attr(x) for x in data))
        if isinstance(data, Mapping):
            refs: list[int] = []
            for k, v in data.items():
                refs += (self.string(str(k)), self.attr(v))
            return (DICT, name, tuple(refs))
        raise ValueError(f"attribute {a.name} has no binary form (a {type(data).__name__} payload)")

    def weight(self, data: bytes) -> int:
        offset = self.weights_size
        self.weights.append(data)
        pad = -len(data) % ALIGN
        if pad:
            self.weights.append(b"\0" * pad)
        self.weights_size += len(data) + pad
        return offset

    # values and blocks are numbered first, in the order the loader creates them, so that an
    # operand may refer to a value defined later (graph regions, xDSL's forward references);
    # both tables are keyed by id (an SSAValue's hash is a Python call; the module keeps the
    # objects alive while the writer runs)
    def number_op(self, op: Operation, depth: int = 0) -> None:
        if depth > MAX_NESTING:
            raise ValueError(f"the module nests regions more than {MAX_NESTING} levels deep")
        values = self.values
        for r in op.results:
            values[id(r)] = len(values)
        for region in op.regions:
            for block in region.blocks:
                self.blocks[id(block)] = len(self.blocks)
                for arg in block.args:
                    values[id(arg)] = len(values)
            for block in region.blocks:
                for inner in block.ops:
                    self.number_op(inner, depth + 1)

    def op(self, op: Operation, depth: int = 0) -> None:
        if depth > MAX_NESTING:
            raise ValueError(f"the module nests regions more than {MAX_NESTING} levels deep")
        self.op_count += 1
        code = self.code
        attr = self.attr
        known = self.attr_by_id.get
        string = self.string
        values = self.values
        append = code.append
        append(string(op.name))
        loc = op.location
        append(0 if isinstance(loc, UnknownLoc) else attr(loc) + 1)
        operands = op._operands  # pyright: ignore[reportPrivateUsage]
        append(len(operands))
        if operands:
            code += [values[id(v)] for v in operands]
        results = op.results
        append(len(results))
        for r in results:
            hint = r.name_hint
            append(known(id(r.type)) or attr(r.type))
            append(0 if hint is None else string(hint) + 1)
        table = op.properties
        append(len(table))
        for k, v in table.items():
            append(string(k))
            append(known(id(v)) or attr(v))
        table = op.attributes
        append(len(table))
        for k, v in table.items():
            append(string(k))
            append(known(id(v)) or attr(v))
        successors = op._successors  # pyright: ignore[reportPrivateUsage]
        append(len(successors))
        if successors:
            code += [self.blocks[id(b)] for b in successors]
        regions = op.regions
        append(len(regions))
        for region in regions:
            blocks = region.blocks
            append(len(blocks))
            for block in blocks:
                args = block.args
                append(len(args))
                for arg in args:
                    hint = arg.name_hint
                    append(attr(arg.type))
                    append(0 if hint is None else string(hint) + 1)
            for block in blocks:
                at = len(code)
                append(0)  # the op count, known at the end (BlockOps' len walks the ops)
                count = 0
                for inner in block.ops:
                    self.op(inner, depth + 1)
                    count += 1
                code[at] = count


def dump(
    module: Operation, kind: int = KIND_IR, metadata: Mapping[str, str] | None = None
) -> bytes:
    """The binary form of `module` (any op, normally a `builtin.module`)."""
    w = _Writer()
    with paused_gc():
        w.number_op(module)
        w.op(module)
    messages = _schema()
    msg = messages["Module"]()
    msg.producer = PRODUCER
    msg.strings.extend(w.strings)
    attrs = msg.attributes
    for rec in w.attrs:
        kind_, name, value = rec
        a = attrs.add()
        a.kind = kind_
        a.name = name
        if kind_ in (PARAMS, ARRAY, DICT):
            a.refs.extend(value)
        elif kind_ in (INT, BOOL):
            a.int = value
        elif kind_ == FLOAT:
            a.float_bits = value
        elif kind_ in (STRING, ENUM):
            a.str = value
        elif isinstance(value, bytes):  # BIGINT, inline BYTES
            a.bytes = value
        else:
            a.in_weights = True
            a.weight_offset, a.weight_size = value
    msg.ops.extend(w.code)
    msg.value_count = len(w.values)
    msg.block_count = len(w.blocks)
    msg.op_count = w.op_count
    for k, v in (metadata or {}).items():
        msg.metadata.add(key=k, value=v)
    ir = msg.SerializeToString()
    return pack(ir, w.weights, kind)


def pack(ir: bytes, weights: Sequence[bytes], kind: int = KIND_IR) -> bytes:
    """Header + IR message + padding + weights: the file's bytes."""
    weights_offset = HEADER.size + len(ir)
    weights_offset += -weights_offset % ALIGN
    blob = b"".join(weights)
    header = HEADER.pack(
        MAGIC,
        VERSION,
        kind,
        len(ir),
        weights_offset,
        len(blob),
        zlib.crc32(ir),
        zlib.crc32(blob),
    )
    pad = b"\0" * (weights_offset - HEADER.size - len(ir))
    return b"".join((header, ir, pad, blob))


# --------------------------------------------------------------------------------------------
# Loading
# --------------------------------------------------------------------------------------------


@dataclass
class Header:
    kind: int
    ir: memoryview
    weights: memoryview


def read_header(data: bytes | memoryview, path: str) -> Header:
    """The checked header: magic, version, kind, section bounds and checksums."""
    view = memoryview(data)
    if len(view) < HEADER.size:
        if bytes(view[: len(MAGIC)]) != MAGIC[: len(view)]:
            raise BinaryFormatError(path, "not a gedialects binary file (bad magic)")
        raise BinaryFormatError(
            path, f"truncated header ({len(view)} bytes, the header has {HEADER.size})"
        )
    magic, version, kind, ir_size, w_offset, w_size, ir_crc, w_crc = HEADER.unpack_from(view)
    if magic != MAGIC:
        raise BinaryFormatError(path, "not a gedialects binary file (bad magic)")
    if version != VERSION:
        raise BinaryFormatError(
            path, f"unsupported format version {version} (this gedialects reads {VERSION})"
        )
    if kind not in KINDS:
        raise BinaryFormatError(path, f"unknown file kind {kind} (known: 0 IR, 1 offline model)")
    size = len(view)
    if HEADER.size + ir_size > size:
        raise BinaryFormatError(
            path,
            f"truncated: the IR section needs {ir_size} bytes at offset {HEADER.size}, the file "
            f"has {size} bytes",
        )
    if w_offset < HEADER.size + ir_size or w_offset % ALIGN:
        raise BinaryFormatError(path, f"bad weights offset {w_offset}")
    if w_offset + w_size != size:
        what = "truncated" if w_offset + w_size > size else "trailing bytes"
        raise BinaryFormatError(
            path,
            f"{what}: the weights section ends at byte {w_offset + w_size}, the file has "
            f"{size} bytes",
        )
    ir = view[HEADER.size : HEADER.size + ir_size]
    weights = view[w_offset:size]
    if any(view[HEADER.size + ir_size : w_offset]):  # every byte is checked: the pad is zeros
        raise BinaryFormatError(path, "corrupt padding before the weights section (not zero)")
    if zlib.crc32(ir) != ir_crc:
        raise BinaryFormatError(path, "corrupt IR section (CRC-32 mismatch)")
    if zlib.crc32(weights) != w_crc:
        raise BinaryFormatError(path, "corrupt weights section (CRC-32 mismatch)")
    return Header(kind, ir, weights)


def _parse_message(ir: memoryview, path: str) -> Any:
    from google.protobuf.message import DecodeError

    msg = _schema()["Module"]()
    try:
        msg.ParseFromString(ir)
    except (DecodeError, RuntimeError, ValueError) as e:
        raise BinaryFormatError(path, f"corrupt IR section ({e})") from None
    return msg


@dataclass
class BinaryInfo:
    """What an `.om` records besides the module (docs/binary-format.md)."""

    kind: int
    producer: str
    metadata: dict[str, str]
    op_count: int


def read_info(data: bytes, path: str) -> BinaryInfo:
    """Kind, producer, metadata (the compile options of an offline model) and op count."""
    header = read_header(data, path)
    msg = _parse_message(header.ir, path)
    return BinaryInfo(
        header.kind, msg.producer, {e.key: e.value for e in msg.metadata}, msg.op_count
    )


class _Loader:
    def __init__(self, ctx: Context, msg: Any, weights: memoryview, path: str) -> None:
        self.ctx = ctx
        self.path = path
        self.strings: list[str] = list(msg.strings)
        self.code: list[int] = list(msg.ops)
        code_len = len(self.code)
        value_count = msg.value_count
        block_count = msg.block_count
        # every value and block takes at least one integer of the op records, so counts larger
        # than the records are corrupt; checked before the tables are allocated
        if value_count > code_len or block_count > code_len:
            self.fail(
                f"value count {value_count} or block count {block_count} exceeds the "
                f"{code_len} integers of the op records"
            )
        self.value_count = value_count
        self.values: list[SSAValue | None] = [None] * value_count
        self.nvalues = 0
        self.forward: dict[int, SSAValue] = {}
        self.blocks: list[Block] = []
        self.block_count = block_count
        self.op_classes: dict[int, type[Operation]] = {}
        self.attrs = self.load_attributes(msg.attributes, weights)

    def fail(self, reason: str) -> NoReturn:
        raise BinaryFormatError(self.path, reason)

    def string(self, i: int, what: str) -> str:
        if i >= len(self.strings):
            self.fail(f"{what}: string index {i} out of range ({len(self.strings)} strings)")
        return self.strings[i]

    def plan(
        self, name_id: int, kind: int, i: int
    ) -> tuple[type[Any], int, Any, Callable[[Any], Attribute]]:
        """(class, parameter count or -1 for a Data, its enum, its constructor) of a record's
        name and kind; a kind the class cannot hold is refused here (an IntAttr never gets a
        string)."""
        name = self.string(name_id, f"attribute #{i}")
        cls = self.attr_class(name, kind == PARAMS)
        if cls is None:
            self.fail(f"attribute #{i}: unknown attribute or type '{name}'")
        where = f"attribute #{i} ({cls.name})"
        held = f"{_article(kind)} {KIND_NAMES.get(kind, kind)} record"
        if issubclass(cls, ParametrizedAttribute):
            if kind != PARAMS:
                self.fail(f"{where} cannot hold {held}")
            return cls, len(cls.get_irdl_definition().parameters), None, cls.new
        if not issubclass(cls, Data):
            self.fail(f"{where}: not a Data or parametrized attribute")
        enum = _enum_class(cls)
        allowed = _DATA_KINDS.get(cls) or ((ENUM,) if enum is not None else ())
        if kind not in allowed:
            self.fail(f"{where} cannot hold {held}")
        return cls, -1, enum, _data_constructor(cls)

    def load_attributes(self, records: Any, weights: memoryview) -> list[Attribute]:
        from xdsl.dialects.builtin import DictionaryAttr
        from xdsl.utils.exceptions import VerifyException

        out: list[Attribute] = []
        plans: dict[tuple[int, int], tuple[type[Any], int, Any, Callable[[Any], Attribute]]] = {}
        strings = self.strings
        nstrings = len(strings)
        wsize = len(weights)
        for i, rec in enumerate(records):
            kind = rec.kind
            plan = plans.get((rec.name, kind))
            if plan is None:
                plan = plans[(rec.name, kind)] = self.plan(rec.name, kind, i)
            cls, nparams, enum, new = plan
            try:
                if nparams >= 0:
                    refs = list(rec.refs)
                    if len(refs) != nparams:
                        self.fail(
                            f"attribute #{i} ({cls.name}): {len(refs)} parameters, "
                            f"expected {nparams}"
                        )
                    if refs and max(refs) >= i:
                        self.fail(f"attribute #{i} ({cls.name}): a reference does not point back")
                    out.append(cls.new([out[r] for r in refs]))
                    continue
                payload: object
                if kind == STRING:
                    k = rec.str
                    if k >= nstrings:
                        self.fail(f"attribute #{i}: string index {k} out of range")
                    payload = strings[k]
                elif kind == INT:
                    payload = rec.int
                elif kind == BOOL:
                    if rec.int not in (0, 1):
                        self.fail(f"attribute #{i}: boolean {rec.int}")
                    payload = bool(rec.int)
                elif kind == BIGINT:
                    payload = int.from_bytes(rec.bytes, "little", signed=True)
                elif kind == FLOAT:
                    payload = struct.unpack("<d", struct.pack("<Q", rec.float_bits))[0]
                elif kind == BYTES:
                    if rec.in_weights:
                        start, size = rec.weight_offset, rec.weight_size
                        if start % ALIGN or start + size > wsize:
                            self.fail(
                                f"attribute #{i}: weight bytes [{start}, {start + size}) beyond "
                                f"the {wsize}-byte weights section"
                            )
                        budget.check(size, f"loading {size} bytes of weights")
                        payload = bytes(weights[start : start + size])
                    else:
                        payload = rec.bytes
                elif kind == ARRAY:
                    refs = list(rec.refs)
                    if refs and max(refs) >= i:
                        self.fail(f"attribute #{i} (array): a reference does not point back")
                    payload = tuple([out[r] for r in refs])
                elif kind == DICT:
                    refs = list(rec.refs)
                    if len(refs) % 2:
                        self.fail(f"attribute #{i}: odd number of dictionary references")
                    items: dict[str, Attribute] = {}
                    for k in range(0, len(refs), 2):
                        key, ref = refs[k], refs[k + 1]
                        if key >= nstrings or ref >= i:
                            self.fail(
                                f"attribute #{i}: dictionary entry ({key}, {ref}) out of range"
                            )
                        items[strings[key]] = out[ref]
                    out.append(DictionaryAttr(items))
                    continue
                else:  # ENUM, the only other kind `plan` lets through
                    k = rec.str
                    member = strings[k] if k < nstrings else ""
                    if member not in enum.__members__:
                        self.fail(f"attribute #{i}: '{member}' is no member of {enum.__name__}")
                    payload = enum[member]
                out.append(new(payload))
            except VerifyException as e:
                text = " ".join(str(e).split())
                self.fail(f"attribute #{i} ({cls.name}): {text}")
        return out

    def attr_class(self, name: str, parametrized: bool) -> type[Attribute] | None:
        """The context's class for `name` (an attribute or a type); builtin's undotted names
        (`string`, `array`) are not dialect names to the context, so they come from the
        Builtin dialect itself (where `array` names both ArrayAttr, a Data, and
        DenseArrayBase, a parametrized one)."""
        if "." not in name:
            return _builtin_attributes().get((name, parametrized))
        try:  # types (`!graph.string`) live in the context's type table
            return self.ctx.get_optional_attr(name) or self.ctx.get_optional_type(name)
        except ValueError:
            return None

    def attr(self, i: int, what: str) -> Attribute:
        if i >= len(self.attrs):
            self.fail(f"{what}: attribute index {i} out of range ({len(self.attrs)} attributes)")
        return self.attrs[i]

    def define(self, value: SSAValue) -> None:
        n = self.nvalues
        if n >= self.value_count:
            self.fail(f"more values than the declared {self.value_count}")
        self.values[n] = value
        self.nvalues = n + 1
        if self.forward:
            fwd = self.forward.pop(n, None)
            if fwd is not None:
                fwd.replace_all_uses_with(value)

    def operand(self, i: int) -> SSAValue:
        if i < self.nvalues:
            v = self.values[i]
            assert v is not None
            return v
        if i >= self.value_count:
            self.fail(f"operand value {i} out of range ({self.value_count} values)")
        fwd = self.forward.get(i)
        if fwd is None:
            from xdsl.dialects.builtin import NoneType
            from xdsl.parser.core import ForwardDeclaredValue

            fwd = self.forward[i] = ForwardDeclaredValue(NoneType())
        return fwd

    def op_class(self, name_id: int) -> type[Operation]:
        name = self.string(name_id, "op name")
        try:
            found = self.ctx.get_optional_op(name)
        except ValueError:
            found = None
        if found is None:
            self.fail(f"unknown operation '{name}'")
        self.op_classes[name_id] = found
        return found

    def op(self, read: Callable[[], int], depth: int) -> Operation:
        """One op record (`read` yields the next integer; StopIteration: the records end)."""
        if depth > MAX_NESTING:
            self.fail(f"regions nest more than {MAX_NESTING} levels deep")
        attrs = self.attrs
        nattrs = len(attrs)
        strings = self.strings
        nstrings = len(strings)
        name_id = read()
        cls = self.op_classes.get(name_id) or self.op_class(name_id)
        loc_id = read()
        location = None
        if loc_id:
            if loc_id > nattrs:
                self.fail(f"op '{cls.name}': location index {loc_id - 1} out of range")
            location = attrs[loc_id - 1]
        operands: list[SSAValue] = []
        values = self.values
        nvalues = self.nvalues
        for _ in range(read()):
            v = read()
            operands.append(values[v] if v < nvalues else self.operand(v))  # pyright: ignore[reportArgumentType]
        result_types: list[Attribute] = []
        hints: list[int] = []
        for _ in range(read()):
            t = read()
            if t >= nattrs:
                self.fail(f"op '{cls.name}': result type index {t} out of range")
            result_types.append(attrs[t])
            hint = read()
            if hint > nstrings:
                self.fail(f"op '{cls.name}': result name index {hint - 1} out of range")
            hints.append(hint)
        properties: dict[str, Attribute] = {}
        for _ in range(read()):
            k = read()
            v = read()
            if k >= nstrings or v >= nattrs:
                self.fail(f"op '{cls.name}': property index ({k}, {v}) out of range")
            properties[strings[k]] = attrs[v]
        attributes: dict[str, Attribute] = {}
        for _ in range(read()):
            k = read()
            v = read()
            if k >= nstrings or v >= nattrs:
                self.fail(f"op '{cls.name}': attribute index ({k}, {v}) out of range")
            attributes[strings[k]] = attrs[v]
        successors: list[Block] = []
        for _ in range(read()):
            b = read()
            if b >= len(self.blocks):
                self.fail(f"op '{cls.name}': successor block {b} out of range")
            successors.append(self.blocks[b])
        op = new_op(cls, operands, result_types, properties, attributes, location, successors)
        if hints:
            n = self.nvalues
            if n + len(hints) > self.value_count:
                self.fail(f"more values than the declared {self.value_count}")
            forward = self.forward
            for r, hint in zip(op.results, hints, strict=True):
                if hint:
                    r.name_hint = strings[hint - 1]
                values[n] = r
                if forward and n in forward:
                    forward.pop(n).replace_all_uses_with(r)
                n += 1
            self.nvalues = n
        for _ in range(read()):
            op.add_region(self.region(read, depth, cls.name))
        return op

    def region(self, read: Callable[[], int], depth: int, owner: str) -> Region:
        attrs = self.attrs
        strings = self.strings
        blocks: list[Block] = []
        for _ in range(read()):
            types: list[Attribute] = []
            hints: list[int] = []
            for _ in range(read()):
                t = read()
                hint = read()
                if t >= len(attrs) or hint > len(strings):
                    self.fail(f"op '{owner}': block argument index ({t}, {hint}) out of range")
                types.append(attrs[t])
                hints.append(hint)
            if len(self.blocks) >= self.block_count:
                self.fail(f"more blocks than the declared {self.block_count}")
            block = Block(arg_types=types)
            for arg, hint in zip(block.args, hints, strict=True):
                if hint:
                    arg.name_hint = strings[hint - 1]
                self.define(arg)
            self.blocks.append(block)
            blocks.append(block)
        op = self.op
        for block in blocks:
            ops: list[Operation] = []
            for _ in range(read()):
                ops.append(op(read, depth + 1))
            block.add_ops(ops)
        return Region(blocks)


_BUILTIN: dict[tuple[str, bool], type[Attribute]] = {}


def _data_constructor(cls: type[Data[Any]]) -> Callable[[Any], Attribute]:
    """`cls.new`, or for a Data class whose checks are Attribute's own no-ops (StringAttr,
    IntAttr, ArrayAttr, BytesAttr...) what `Data.new` leaves of it: the object with its
    payload set (a load makes one per record; the no-op calls were a fifth of the load)."""
    from xdsl.ir import Attribute

    plain = (
        cls.verify is Attribute.verify
        and cls._verify is Attribute._verify  # pyright: ignore[reportPrivateUsage]
        and cls.__post_init__ is Attribute.__post_init__
        and getattr(cls.new, "__func__", None) is Data.new.__func__
        and [f.name for f in dataclasses.fields(cls)] == ["data"]
    )
    if not plain:
        return cls.new
    create, set_field = cls.__new__, object.__setattr__

    def new(payload: Any) -> Attribute:
        attr = create(cls)
        set_field(attr, "data", payload)
        return attr

    return new


def _data_kinds() -> dict[type[Attribute], tuple[int, ...]]:
    from xdsl.dialects import builtin

    return {
        builtin.StringAttr: (STRING,),
        builtin.IntAttr: (INT, BOOL, BIGINT),
        builtin.FloatData: (FLOAT,),
        builtin.BytesAttr: (BYTES,),
        builtin.ArrayAttr: (ARRAY,),
        builtin.DictionaryAttr: (DICT,),
    }


_DATA_KINDS = _data_kinds()
"""The record kinds each builtin Data class may hold (others: enums only)."""


def _builtin_attributes() -> dict[tuple[str, bool], type[Attribute]]:
    """Builtin's attributes by (name, parametrized), with the Data classes its dialect object
    does not list (`bytes`, `float_data`, ...)."""
    from xdsl.dialects import builtin
    from xdsl.ir import ParametrizedAttribute

    if _BUILTIN:
        return _BUILTIN
    import inspect

    from xdsl.ir import Attribute

    listed = list(builtin.Builtin.attributes)
    # then every other attribute class builtin defines (DenseArrayBase, BytesAttr, IntAttr...)
    others = [
        c
        for _, c in inspect.getmembers(builtin, inspect.isclass)
        if issubclass(c, Attribute)
        and c.__module__ == builtin.__name__
        and not inspect.isabstract(c)
    ]
    for cls in (*listed, *others):
        name = getattr(cls, "name", None)
        if isinstance(name, str) and name and "." not in name:
            _BUILTIN.setdefault((name, issubclass(cls, ParametrizedAttribute)), cls)
    return _BUILTIN


def load(data: bytes, ctx: Context, path: str = "<binary>") -> ModuleOp:
    """The `builtin.module` in `data`; unverified (callers verify as after a text parse)."""
    with paused_gc():
        return _load(data, ctx, path)


def _load(data: bytes, ctx: Context, path: str) -> ModuleOp:
    from xdsl.dialects.builtin import ModuleOp

    header = read_header(data, path)
    msg = _parse_message(header.ir, path)
    loader = _Loader(ctx, msg, header.weights, path)
    records = iter(loader.code)
    try:
        module: Operation = loader.op(records.__next__, 0)
    except StopIteration:
        loader.fail("truncated op records (they end inside an op)")
    rest = sum(1 for _ in records)
    if rest:
        loader.fail(f"{rest} integers after the last op record")
    if loader.forward:
        first = min(loader.forward)
        loader.fail(f"value {first} is used but never defined")
    if loader.nvalues != loader.value_count or len(loader.blocks) != loader.block_count:
        loader.fail(
            f"{loader.nvalues} values and {len(loader.blocks)} blocks, the header declares "
            f"{loader.value_count} and {loader.block_count}"
        )
    if not isinstance(module, ModuleOp):
        loader.fail(f"the top-level op is '{module.name}', not 'builtin.module'")
    return module


def load_file(path: str, ctx: Context) -> ModuleOp:
    """`load` of a file read within the memory budget."""
    try:
        data = budget.read_file(path)
    except OSError as e:
        raise BinaryFormatError(path, f"cannot read: {e.strerror or e}") from None
    return load(data, ctx, path)


def float_bits(value: float) -> int:
    """The IEEE-754 bits of a double (how FloatData is stored: -0.0 and NaN payloads kept)."""
    return struct.unpack("<Q", struct.pack("<d", value))[0]


__all__ = [
    "EXTENSIONS",
    "KIND_IR",
    "KIND_OFFLINE_MODEL",
    "BinaryFormatError",
    "BinaryInfo",
    "dump",
    "is_binary_path",
    "load",
    "load_file",
    "read_info",
]
