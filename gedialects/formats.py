"""GE data formats on tensor types: `#graph.format<...>` as the encoding of a builtin tensor.

GE's tensor desc carries a storage `format`/`shape` and the user's `origin_format`/
`origin_shape` (graph_metadef `GeTensorDesc`); FE rewrites only the storage pair. Here the
tensor type's shape is the storage shape and its encoding names the storage format with the
origin format and shape, so everything that sizes or moves bytes (memory planning, buffers,
the arena) sees the padded storage, and everything that reasons about the op's meaning
(verifiers, shape inference: `base.tensor_shape`) sees the origin shape:

    tensor<1x1x8x8x16xf16, #graph.format<NC1HWC0 origin NCHW [1, 3, 8, 8]>>

A tensor whose storage format is its origin format carries no encoding (the plain tensor of
every graph before format selection). Layouts and C0 follow GE's format transfers
(`format_transfer_nchw_nc1hwc0.cc`, `format_transfer_fractal_z.cc`,
`format_transfer_fractal_nz.cc`) and `transfer_shape_utils.cc` `GetC0Value`. Kept free of
numpy: packing is `gedialects.interpreters.layouts`, the TransData kernel
`gedialects.interpreters.formats`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from xdsl.dialects.builtin import ArrayAttr, IntAttr, IntegerType, StringAttr, TensorType
from xdsl.ir import Attribute, ParametrizedAttribute
from xdsl.irdl import irdl_attr_definition
from xdsl.parser import AttrParser
from xdsl.printer import Printer
from xdsl.utils.exceptions import VerifyException

FORMATS: tuple[str, ...] = ("NCHW", "NHWC", "ND", "NC1HWC0", "FRACTAL_Z", "FRACTAL_NZ")
"""GE's names (graph/types.h `Format`) of the formats modelled here."""

ORIGIN_FORMATS: tuple[str, ...] = ("NCHW", "NHWC", "ND")
"""Formats a user tensor (origin format) may have."""

HEAVY_FORMATS: tuple[str, ...] = ("NC1HWC0", "FRACTAL_Z", "FRACTAL_NZ")
"""FE's `FE_HEAVY_FORMAT_SET` members modelled here: padded, blocked layouts of Cube ops."""

INPUT_DESC = "_input_desc"
"""Kernel attribute with the op's operand types when one carries a storage format: a kernel
is handed arrays and result types only, and a heavy-format input needs its origin shape."""

CUBE = 16
"""The M/N block of the Cube unit (FRACTAL_Z's 16 output channels, FRACTAL_NZ's 16 rows)."""


def c0_of(element: Attribute) -> int:
    """GE's C0 for an element type (`GetC0Value`, platform `DtypeMKN` K0): 16 by default
    (float16, float32, bfloat16, int32, ...), 32 for 8-bit integers, 64 for int4."""
    if isinstance(element, IntegerType):
        width = element.width.data
        if width == 8:
            return 32
        if width == 4:
            return 64
    return 16


def _ceil(a: int, b: int) -> int:
    return -(-a // b)


def nchw_axes(origin_format: str) -> tuple[int, int, int, int]:
    """Axes (N, C, H, W) of a rank-4 shape in `origin_format`."""
    return (0, 3, 1, 2) if origin_format == "NHWC" else (0, 1, 2, 3)


def storage_shape(
    origin_shape: Sequence[int], origin_format: str, fmt: str, c0: int
) -> tuple[int, ...]:
    """The storage shape GE gives an `origin_shape` tensor in `fmt` (ValueError when `fmt`
    cannot hold it: a rank-4 format of a tensor of another rank, a dynamic heavy shape)."""
    shape = tuple(origin_shape)
    if fmt == origin_format or fmt == "ND":
        return shape
    if fmt in HEAVY_FORMATS and any(d < 0 for d in shape):
        raise ValueError(f"{fmt} needs a static shape, got {list(shape)}")
    if fmt == "FRACTAL_NZ":
        if len(shape) == 0:
            raise ValueError("FRACTAL_NZ needs rank >= 1, got a scalar")
        if len(shape) == 1:  # TransShapeToFracNz's 1-D rule
            return (_ceil(shape[0], c0), 1, CUBE, c0)
        *batch, h, w = shape
        return (*batch, _ceil(w, c0), _ceil(h, CUBE), CUBE, c0)
    if fmt == "FRACTAL_Z" and len(shape) == 2 and origin_format == "ND":
        return (_ceil(shape[0], c0), _ceil(shape[1], CUBE), CUBE, c0)
    if len(shape) != 4 or origin_format == "ND":
        raise ValueError(
            f"{fmt} holds a rank-4 NCHW or NHWC tensor, got {origin_format} {list(shape)}"
        )
    n, c, h, w = (shape[a] for a in nchw_axes(origin_format))
    if fmt == "NCHW":
        return (n, c, h, w)
    if fmt == "NHWC":
        return (n, h, w, c)
    if fmt == "NC1HWC0":
        return (n, _ceil(c, c0), h, w, c0)
    if fmt == "FRACTAL_Z":
        return (_ceil(c, c0) * h * w, _ceil(n, CUBE), CUBE, c0)
    raise ValueError(f"unknown data format '{fmt}'")


@irdl_attr_definition
class FormatAttr(ParametrizedAttribute):
    """A tensor's storage format with its origin format and shape (GE `GeTensorDesc`).

    `#graph.format<NC1HWC0 origin NCHW [1, 3, 8, 8]>` as the encoding of
    `tensor<1x1x8x8x16xf32, ...>`: storage format NC1HWC0, user format NCHW and shape.
    """

    name = "graph.format"

    format: StringAttr
    origin_format: StringAttr
    origin_shape: ArrayAttr[IntAttr]

    def __init__(self, fmt: str, origin_format: str, origin_shape: Sequence[int]) -> None:
        super().__init__(
            StringAttr(fmt), StringAttr(origin_format), ArrayAttr(IntAttr(d) for d in origin_shape)
        )

    @property
    def fmt(self) -> str:
        return self.format.data

    @property
    def origin(self) -> str:
        return self.origin_format.data

    @property
    def shape(self) -> tuple[int, ...]:
        return tuple(d.data for d in self.origin_shape.data)

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> Sequence[Attribute]:
        with parser.in_angle_brackets():
            fmt = _parse_format(parser, FORMATS)
            parser.parse_keyword("origin")
            pos = parser.pos
            origin = _parse_format(parser, ORIGIN_FORMATS)
            if origin == fmt:
                parser.raise_error(
                    f"storage format {fmt} is the origin format (a tensor in its origin "
                    "format carries no encoding)",
                    pos,
                    parser.pos,
                )
            dims = parser.parse_comma_separated_list(
                parser.Delimiter.SQUARE, lambda: parser.parse_integer(allow_boolean=False)
            )
        return (StringAttr(fmt), StringAttr(origin), ArrayAttr(IntAttr(d) for d in dims))

    def print_parameters(self, printer: Printer) -> None:
        dims = ", ".join(str(d) for d in self.shape)
        printer.print_string(f"<{self.fmt} origin {self.origin} [{dims}]>")

    def verify(self) -> None:
        if self.fmt not in FORMATS:
            raise VerifyException(f"#graph.format: unknown data format '{self.fmt}'")
        if self.origin not in ORIGIN_FORMATS:
            raise VerifyException(f"#graph.format: '{self.origin}' is not an origin format")
        if self.fmt == self.origin:
            raise VerifyException(
                f"#graph.format: storage format {self.fmt} is the origin format "
                "(a tensor in its origin format carries no encoding)"
            )


def _parse_format(parser: AttrParser, allowed: tuple[str, ...]) -> str:
    pos = parser.pos
    name = parser.parse_optional_identifier()
    if name is None or name not in allowed:
        got = f"'{name}'" if name is not None else "no name"
        parser.raise_error(
            f"unknown data format {got}, expected one of {', '.join(allowed)}", pos, parser.pos
        )
    return name


def format_of(t: Attribute) -> FormatAttr | None:
    """The storage format encoding of a tensor type, None for a tensor in its origin format."""
    if isinstance(t, TensorType) and isinstance(t.encoding, FormatAttr):
        return t.encoding
    return None


def storage_format(t: Attribute, origin_default: str) -> str:
    """The storage format name of `t` (`origin_default` for a plain tensor)."""
    enc = format_of(t)
    return origin_default if enc is None else enc.fmt


def origin_type(t: Attribute) -> Attribute:
    """`t` in its origin format and shape (a plain tensor type); other types unchanged."""
    enc = format_of(t)
    if enc is None:
        return t
    assert isinstance(t, TensorType)
    return TensorType(t.element_type, enc.shape)


def with_format(t: Attribute, fmt: str, origin_format: str) -> Attribute:
    """The type of `t`'s origin tensor stored in `fmt` (plain when `fmt` is its origin
    format). ValueError when `fmt` cannot hold it."""
    plain = origin_type(t)
    if not isinstance(plain, TensorType):
        raise ValueError(f"{fmt} needs a ranked tensor, got {t}")
    enc = format_of(t)
    if enc is not None:
        origin_format = enc.origin
    if fmt == origin_format:
        return plain
    shape = storage_shape(plain.get_shape(), origin_format, fmt, c0_of(plain.element_type))
    return TensorType(plain.element_type, shape, FormatAttr(fmt, origin_format, plain.get_shape()))


def memory_size(t: TensorType, nbytes: int) -> int:
    """Bytes memory planning reserves for `t` (whose storage takes `nbytes`): for a tensor in
    a storage format GE's `GetTensorMemorySizeInBytes`, `((nbytes + 64 - 1) / 32) * 32`
    (round up to 32 after 32 bytes of slack: fp16 [1, 3, 4, 4] as 5HD is 512 -> 544 B);
    `nbytes` for any other tensor, as the plans have always sized them."""
    if not isinstance(t.encoding, FormatAttr):
        return nbytes
    return (nbytes + 64 - 1) // 32 * 32


def kernel_attrs(
    operand_types: Sequence[Attribute], attrs: Mapping[str, Attribute]
) -> Mapping[str, Attribute]:
    """`attrs` with `INPUT_DESC` (the operand types) when an operand is in a storage format:
    what the graph interpreter and task generation hand a kernel."""
    if not any(format_of(t) is not None for t in operand_types):
        return attrs
    return {**attrs, INPUT_DESC: ArrayAttr(operand_types)}


def verify_tensor_format(t: Attribute) -> str | None:
    """Why the storage shape of `t` does not follow from its encoding, or None."""
    enc = format_of(t)
    if enc is None:
        return None
    assert isinstance(t, TensorType)
    try:
        expected = storage_shape(enc.shape, enc.origin, enc.fmt, c0_of(t.element_type))
    except ValueError as e:
        return f"type {t}: {e}"
    if tuple(t.get_shape()) != expected:
        dims = ", ".join(map(str, expected))
        return f"type {t}: {enc.fmt} storage of {enc.origin} {list(enc.shape)} is [{dims}]"
    return None


def verify_op_formats(
    name: str,
    ports: Sequence[tuple[str, Attribute]],
    agnostic: bool,
    heavy: Mapping[str, str],
) -> None:
    """The generic format rule of `GEOp`s: every storage-format encoding is consistent; a
    format-agnostic op (GE's `_format_agnostic`) has one storage format on all its tensors;
    a heavy op has its heavy formats on its heavy ports, all or none; any other op sees
    origin formats only (FE inserts TransData in front of it)."""
    formatted = [(port, enc) for port, t in ports if (enc := format_of(t)) is not None]
    if not formatted:
        return
    for _port, t in ports:
        if (why := verify_tensor_format(t)) is not None:
            raise VerifyException(f"'{name}' {why}")
    if agnostic:
        first_port, first = formatted[0]
        for port, t in ports:
            enc = format_of(t)
            ranked = isinstance(t, TensorType) and t.get_num_dims() > 0
            if ranked and (enc is None or (enc.fmt, enc.origin) != (first.fmt, first.origin)):
                got = "its origin format" if enc is None else enc.fmt
                raise VerifyException(
                    f"'{name}' is format-agnostic: {port} is in {got}, {first_port} in {first.fmt}"
                )
        stored = {
            (enc.shape, tuple(t.get_shape()))
            for _, t in ports
            if isinstance(t, TensorType) and (enc := format_of(t)) is not None
        }
        by_origin: dict[tuple[int, ...], tuple[int, ...]] = {}
        for origin_shape, shape in sorted(stored):
            if by_origin.setdefault(origin_shape, shape) != shape:
                raise VerifyException(
                    f"'{name}' is format-agnostic but its {first.fmt} tensors of one shape "
                    f"are stored as {list(by_origin[origin_shape])} and {list(shape)} "
                    "(their C0 differs with the element type)"
                )
        return
    if heavy:
        for port, enc in formatted:
            if heavy.get(port) != enc.fmt:
                raise VerifyException(
                    f"'{name}' {port} cannot be in {enc.fmt}"
                    + (f" (it takes {heavy[port]})" if port in heavy else "")
                )
        present = {port for port, _ in ports}
        missing = [p for p in heavy if p in present and p not in {q for q, _ in formatted}]
        if missing:
            raise VerifyException(
                f"'{name}' has heavy formats on some ports only: {', '.join(missing)} "
                f"must be in {', '.join(heavy[p] for p in missing)} too"
            )
        return
    port, enc = formatted[0]
    raise VerifyException(
        f"'{name}' takes origin formats only: {port} is in {enc.fmt} (insert graph.trans_data)"
    )
