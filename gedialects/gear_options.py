"""atc's gear options: the grammars, GE's checks, and `GearConfig`, the gear table they describe.

- `parse_options(input_shape=..., dynamic_batch_size=... | dynamic_image_size=... |
  dynamic_dims=...)` parses atc's spelling with lark grammars and applies every check of
  GE's `option_utils.cc` / `multi_batch_options.cc`, returning a `GearConfig`;
  `check_graph_inputs` checks a config against a graph's inputs. Errors are `GearError`s whose
  first line is GE's message (`E10xxx: ...`, naming the option, the value and the reason);
  syntax errors add the option text with a caret under the bad character.

Beside the `multibatch` dialect, below the interpreters: the `ge-expand-multibatch` pass parses
its options here, and the gear table the interpreter reads back (`interpreters.gears.GearInfo`)
is a `GearConfig`. lark is imported only when an option is parsed (every lit RUN line starts a
process).
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from gedialects.base import INT32_MAX, INT64_MAX
from gedialects.multibatch import MAX_GEAR_COUNT, MIN_GEAR_COUNT, DynamicType

if TYPE_CHECKING:
    from lark import Lark, Token, Tree


class GearError(ValueError):
    """A gear option or gear table GE would refuse; the first line is GE's message."""

    def __init__(
        self, code: str, message: str, *, option: str | None = None, text: str = "", at: int = -1
    ) -> None:
        self.code = code
        self.message = f"{code}: {message}"
        self.option = option
        self.text = text
        self.at = at
        detail = ""
        if option is not None and at >= 0:
            prefix = f"  --{option}="
            detail = f"\n{prefix}{text}\n{' ' * (len(prefix) + at)}^"
        super().__init__(self.message + detail)

    @property
    def one_line(self) -> str:
        """The message with the position in words, for tools that print one line."""
        if self.option is None or self.at < 0:
            return self.message
        return f"{self.message} [--{self.option}={self.text} at column {self.at + 1}]"


def dims_text(dims: Sequence[int]) -> str:
    return "[" + ",".join(str(d) for d in dims) + "]"


# --------------------------------------------------------------------------------------------
# Grammars
# --------------------------------------------------------------------------------------------

_GRAMMARS = {
    # Items split on ';'; the LAST ':' of an item splits name and value (names may hold ':').
    # NAME starts with neither ' ' nor ';': a failed NAME scans to the end of its item, and were
    # it tried again after each ignored space, a run of n spaces would cost n**2 (10 kB: 1.4 s).
    "input_shape": r"""
        start: item (";" item)* ";"?
        item: NAME ":" dims
        dims: (DIM ("," DIM)*)?
        NAME: /[^; ][^;]*?(?=:[^:;]*(;|$))/
        DIM: /-?[0-9]+/
        %ignore " "
    """,
    "dynamic_batch_size": r"""
        start: INT ("," INT)* ","?
        INT: /[0-9]+/
    """,
    "dynamic_image_size": r"""
        start: group (";" group)* ";"?
        group: INT ("," INT)*
        INT: /[0-9]+/
        %ignore " "
    """,
    "dynamic_dims": r"""
        start: group (";" group)* ";"?
        group: INT ("," INT)*
        INT: /[0-9]+/
    """,
}


@functools.cache
def _parser(option: str) -> Lark:
    from lark import Lark

    return Lark(_GRAMMARS[option], parser="lalr")


def _parse(
    option: str, text: str, syntax_error: Callable[[int, set[str]], Exception]
) -> Tree[Token]:
    """Parses `text` with the option's grammar; `syntax_error(pos, expected)` builds the error."""
    from lark.exceptions import UnexpectedCharacters, UnexpectedEOF, UnexpectedToken

    try:
        return _parser(option).parse(text)
    except UnexpectedCharacters as e:
        raise syntax_error(e.pos_in_stream, set(e.allowed or ())) from None
    except UnexpectedEOF as e:
        raise syntax_error(len(text), set(e.expected or ())) from None
    except UnexpectedToken as e:
        pos = e.token.start_pos if e.token.start_pos is not None else len(text)
        raise syntax_error(pos, set(e.expected or ())) from None


def _subtrees(tree: Tree[Token]) -> list[Tree[Token]]:
    """The rule children of a parse tree (each grammar rule holds rules or tokens, not both)."""
    from lark import Tree

    return [c for c in tree.children if isinstance(c, Tree)]


def _tokens(tree: Tree[Token]) -> list[Token]:
    """The token children of a parse tree."""
    from lark import Token

    return [c for c in tree.children if isinstance(c, Token)]


def _start(token: Token) -> int:
    return token.start_pos if token.start_pos is not None else -1


def _item_around(text: str, pos: int, seps: str) -> str:
    """The `seps`-delimited piece of `text` that holds position `pos`."""
    start = max((text.rfind(s, 0, pos) for s in seps), default=-1) + 1
    ends = [i for i in (text.find(s, pos) for s in seps) if i >= 0]
    return text[start : min(ends) if ends else len(text)]


# --------------------------------------------------------------------------------------------
# --input_shape
# --------------------------------------------------------------------------------------------

_SHAPE_SAMPLE = '"input_name1:n1,c1,h1,w1"'


@dataclass(frozen=True)
class InputShape:
    """One `name:d0,d1,...` item of `--input_shape`; -1 marks a dim that changes per gear."""

    name: str
    dims: tuple[int, ...]

    @property
    def unknown(self) -> tuple[int, ...]:
        """Positions of the -1 dims (GE's `_dynamic_batch_unknown_dim_index`)."""
        return tuple(i for i, d in enumerate(self.dims) if d == -1)

    @property
    def text(self) -> str:
        return f"{self.name}:{','.join(map(str, self.dims))}"


def parse_input_shape(text: str, *, dynamic: bool) -> tuple[InputShape, ...]:
    """`--input_shape`: syntax (E10002), '~' (E10040), values (E10011), names (E10001)."""
    if dynamic and "~" in text:
        raise GearError(
            "E10040",
            "As the --dynamic_batch_size, --dynamic_image_size, or --dynamic_dims argument is "
            "included, the corresponding nodes specified in --input_shape must have -1 axes and "
            "cannot have '~'.",
            option="input_shape",
            text=text,
            at=text.index("~"),
        )

    def syntax_error(pos: int, expected: set[str]) -> GearError:
        item = _item_around(text, pos, ";")
        char = text[pos] if pos < len(text) else ""
        if "NAME" in expected:
            reason = (
                "The input name is empty"
                if char == ":"
                else "The shape must contain two parts: name and value"
            )
        elif char == ".":
            reason = "The float number is unsupported"
        elif char:
            reason = f"It is not a digit ('{char}')"
        else:
            reason = "A dim is missing at the end"
        return GearError(
            "E10002",
            f"Value {item} for parameter --input_shape is invalid. Reason: {reason}. "
            f"The value must be formatted as {_SHAPE_SAMPLE}.",
            option="input_shape",
            text=text,
            at=pos,
        )

    tree = _parse("input_shape", text, syntax_error)
    shapes: list[InputShape] = []
    for item in _subtrees(tree):
        (name_token,), (dims_tree,) = _tokens(item), _subtrees(item)  # item: NAME ":" dims
        name = str(name_token).strip()
        if not name:
            raise syntax_error(_start(name_token), {"NAME"})
        dim_tokens = _tokens(dims_tree)
        _check_range("input_shape", text, dim_tokens, INT64_MAX, "i64")
        dims = tuple(int(tok) for tok in dim_tokens)
        shape = InputShape(name, dims)
        for d, tok in zip(dims, dim_tokens, strict=True):
            if (d <= 0 and not dynamic) or d < -1:
                raise GearError(
                    "E10011",
                    f"Value {shape.text} for parameter --input_shape is invalid. Shape values "
                    f"must be positive integers. The error value in the shape is {d}.",
                    option="input_shape",
                    text=text,
                    at=_start(tok),
                )
        if any(s.name == name for s in shapes):
            raise GearError(
                "E10001",
                f"Value {name} for parameter --input_shape is invalid. Reason: The input is "
                "given twice.",
                option="input_shape",
                text=text,
                at=_start(name_token),
            )
        shapes.append(shape)
    return tuple(shapes)


# --------------------------------------------------------------------------------------------
# Gear options
# --------------------------------------------------------------------------------------------

_BATCH_REASON = 'It can only contain digits and ",".'
_IMAGE_REASON = 'It can only contain digits, ",", " " and ";".'


def _gear_syntax_error(option: str, text: str) -> Callable[[int, set[str]], GearError]:
    def error(pos: int, expected: set[str]) -> GearError:
        if option == "dynamic_dims":
            value = _item_around(text, pos, ",;")
            return GearError(
                "E10001",
                f"Value {value} for parameter --dynamic_dims is invalid. Reason: Dynamic dims "
                "must be a positive integer.",
                option=option,
                text=text,
                at=pos,
            )
        reason = _BATCH_REASON if option == "dynamic_batch_size" else _IMAGE_REASON
        seps = "," if option == "dynamic_batch_size" else ",;"
        if pos >= len(text) or (text[pos] in seps and (pos == 0 or text[pos - 1] in seps)):
            reason += " A value is missing here."
        return GearError(
            "E10003",
            f"Value {text} for parameter --{option} is invalid. Reason: {reason}",
            option=option,
            text=text,
            at=pos,
        )

    return error


def _check_range(option: str, text: str, tokens: Sequence[Token], limit: int, bits: str) -> None:
    """Refuses option values beyond the integer type that holds them (E10001): shapes are i64
    dims, gear values also travel as the i32 `ascend_mbatch_shape_data`."""
    for tok in tokens:
        value = int(str(tok))
        if abs(value) > limit:
            kind, most = ("i64", INT64_MAX) if abs(value) > INT64_MAX else (bits, limit)
            raise GearError(
                "E10001",
                f"Value {value} for parameter --{option} is invalid. Reason: value out of range "
                f"for {kind} in option --{option} (at most {most}).",
                option=option,
                text=text,
                at=_start(tok),
            )


def parse_gears(option: str, text: str) -> tuple[tuple[int, ...], ...]:
    """The gears one of `--dynamic_batch_size`, `--dynamic_image_size`, `--dynamic_dims` lists.

    Only syntax here (and E10020, two values per image size): counts, ranges and duplicates are
    `check_gears`, the per-graph checks `parse_options`.
    """
    if option == "dynamic_dims" and not text.rstrip(";").strip():
        raise GearError("E10058", "Parameter --dynamic_dims is not configured or is empty.")
    tree = _parse(option, text, _gear_syntax_error(option, text))

    if option == "dynamic_batch_size":
        _check_range(option, text, _tokens(tree), INT32_MAX, "i32")
        return tuple((int(tok),) for tok in _tokens(tree))
    groups = [_tokens(g) for g in _subtrees(tree)]
    for group in groups:
        _check_range(option, text, group, INT32_MAX, "i32")
    gears = tuple(tuple(int(tok) for tok in group) for group in groups)
    if option == "dynamic_image_size":
        for group, gear in zip(groups, gears, strict=True):
            if len(gear) != 2:
                raise GearError(
                    "E10020",
                    f"Value {text} for parameter --dynamic_image_size is invalid. Each profile "
                    f"is height,width; this one has {len(gear)} values.",
                    option=option,
                    text=text,
                    at=_start(group[0]),
                )
    return gears


def check_gears(gears: Sequence[Sequence[int]]) -> None:
    """GE's CheckDynamicParams: 2..100 gears (E10035/E10036), one length (E10037), values
    greater than 0 (E10038; GE tests `< 0` but its message says `> 0`: we follow the message,
    a 0 batch runs nothing), no duplicates (E10039)."""
    count = len(gears)
    if count < MIN_GEAR_COUNT:
        raise GearError(
            "E10035",
            f"--dynamic_batch_size, --dynamic_image_size, or --dynamic_dims has {count} "
            f"profiles, which is less than the minimum {MIN_GEAR_COUNT}.",
        )
    if count > MAX_GEAR_COUNT:
        raise GearError(
            "E10036",
            f"--dynamic_batch_size, --dynamic_image_size, or --dynamic_dims has {count} "
            f"profiles, which is greater than the maximum {MAX_GEAR_COUNT}.",
        )
    first = len(gears[0])
    for gear in gears:
        if len(gear) != first:
            raise GearError(
                "E10037",
                "The profiles configured in --dynamic_batch_size, --dynamic_image_size, or "
                "--dynamic_dims have inconsistent dimension counts. A profile has "
                f"{first} dimensions while another has {len(gear)} dimensions.",
            )
        for d in gear:
            if d <= 0:
                raise GearError(
                    "E10038",
                    f"Dimension size {d} is invalid. The value must be greater than 0 "
                    f"(profile {dims_text(gear)}).",
                )
    seen: set[tuple[int, ...]] = set()
    for gear in gears:
        if tuple(gear) in seen:
            raise GearError(
                "E10039",
                "The --dynamic_batch_size, --dynamic_image_size, or --dynamic_dims argument has "
                f"duplicate profiles ({dims_text(gear)} appears twice).",
            )
        seen.add(tuple(gear))


# --------------------------------------------------------------------------------------------
# The configuration
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class GearConfig:
    """What atc's shape options say: the inputs' dims and the gears (validated on creation).

    Gear `g` gives each input, in `--input_shape` order, as many values as it has -1 dims
    (GE's ParserDataToDynamicInfo); with one gear value per input (dynamic batch, or an image
    size per 4-D input) every dynamic input takes the whole gear.
    """

    inputs: tuple[InputShape, ...]
    dynamic_type: DynamicType
    gears: tuple[tuple[int, ...], ...] = ()
    input_format: str = "NCHW"
    _slices: dict[str, tuple[int, int]] = field(
        default_factory=dict, init=False, compare=False, repr=False
    )

    def __post_init__(self) -> None:
        if self.dynamic_type is DynamicType.FIXED:
            return
        check_gears(self.gears)
        length = len(self.gears[0])
        pos = 0
        for shape in self.inputs:
            count = len(shape.unknown)
            if count == length:
                self._slices[shape.name] = (0, length)
            elif count < length:
                self._slices[shape.name] = (pos, pos + count)
            else:
                raise GearError(
                    "E10046",
                    "The total number of -1 axes in the --input_shape argument is greater than "
                    f"the dimension count per profile in --{self.option} ({shape.text}).",
                )
            pos += count

    @property
    def option(self) -> str:
        return self.dynamic_type.option

    @property
    def gear_count(self) -> int:
        return len(self.gears)

    @property
    def gear_length(self) -> int:
        """Values per gear: the length of the shape data MapIndex looks up."""
        return len(self.gears[0]) if self.gears else 0

    def input(self, name: str) -> InputShape:
        for shape in self.inputs:
            if shape.name == name:
                return shape
        raise KeyError(name)

    def input_gear(self, name: str, gear: int) -> tuple[int, ...]:
        """The values the -1 dims of input `name` take in gear `gear`."""
        start, stop = self._slices[name]
        return self.gears[gear][start:stop]

    def shape(self, name: str, gear: int) -> tuple[int, ...]:
        """The static shape of input `name` in gear `gear`."""
        values = iter(self.input_gear(name, gear))
        return tuple(next(values) if d == -1 else d for d in self.input(name).dims)

    def symbols(self) -> list[list[tuple[str, int]]]:
        """For each gear value `j` (the symbol `s<j>` of `multibatch.SHAPE_ENV`), the input
        dims it fills: (input name, dim position), in `--input_shape` order."""
        found: list[list[tuple[str, int]]] = [[] for _ in range(self.gear_length)]
        for shape in self.inputs:
            if shape.name not in self._slices:
                continue
            start, _ = self._slices[shape.name]
            for k, d in enumerate(shape.unknown):
                found[start + k].append((shape.name, d))
        return found

    def max_gear(self, name: str) -> int:
        """GE's SetMaxShape: the gear whose product of this input's values is largest
        (zeros skipped, first gear on ties)."""
        best, best_size = 0, -1
        for g in range(self.gear_count):
            size = math.prod(v for v in self.input_gear(name, g) if v != 0)
            if size > best_size:
                best, best_size = g, size
        return best

    def max_shape(self, name: str) -> tuple[int, ...]:
        return self.shape(name, self.max_gear(name))

    def match(self, actual: Mapping[str, Sequence[int]]) -> int | None:
        """The gear whose shapes the `actual` input shapes have, or None."""
        for g in range(self.gear_count):
            if all(tuple(actual[s.name]) == self.shape(s.name, g) for s in self.inputs):
                return g
        return None

    def gear_of(self, dims: Sequence[int]) -> int | None:
        """The index of gear `dims` (the values MapIndex compares), or None."""
        try:
            return self.gears.index(tuple(int(d) for d in dims))
        except ValueError:
            return None


def parse_options(
    *,
    input_shape: str = "",
    dynamic_batch_size: str = "",
    dynamic_image_size: str = "",
    dynamic_dims: str = "",
    input_shape_range: str = "",
    input_format: str = "NCHW",
) -> GearConfig:
    """atc's shape options -> a validated `GearConfig`, in GE's order of checks
    (CheckDynamicInputParamValid, then CheckDynamicParams)."""
    given = {
        "dynamic_batch_size": dynamic_batch_size,
        "dynamic_image_size": dynamic_image_size,
        "dynamic_dims": dynamic_dims,
    }
    chosen = [name for name, value in given.items() if value]
    exclusive = [*chosen, *(["input_shape_range"] if input_shape_range else [])]
    if len(exclusive) > 1:
        raise GearError(
            "E10009",
            "--dynamic_batch_size, --dynamic_image_size, --input_shape_range, and "
            f"--dynamic_dims are mutually exclusive (given: "
            f"{', '.join('--' + c for c in exclusive)}).",
        )
    if not chosen:
        shapes = parse_input_shape(input_shape, dynamic=False) if input_shape else ()
        return GearConfig(shapes, DynamicType.FIXED, input_format=input_format)
    option = chosen[0]
    if not input_shape.strip():
        raise GearError("E10004", f"Value for --input_shape is empty (--{option} needs it).")
    shapes = parse_input_shape(input_shape, dynamic=True)
    text = given[option]
    if option == "dynamic_batch_size":
        _check_batch_shapes(shapes)
        dynamic_type = DynamicType.BATCH
    elif option == "dynamic_image_size":
        _check_image_shapes(shapes, input_format)
        dynamic_type = DynamicType.IMAGE_SIZE
    else:
        _check_dims_shapes(shapes)
        dynamic_type = DynamicType.DIMS
    gears = parse_gears(option, text)
    if dynamic_type is DynamicType.DIMS:
        unknown = sum(len(s.unknown) for s in shapes)
        for gear in gears:
            if len(gear) != unknown:
                raise GearError(
                    "E10003",
                    f"Value {text} for parameter --dynamic_dims is invalid. Reason: Each setting "
                    "needs to be consistent with the number of -1 in the input shape "
                    f"(profile {dims_text(gear)} has {len(gear)} values, --input_shape has "
                    f"{unknown} -1 dims).",
                    option=option,
                    text=text,
                    at=_gear_position(text, gears.index(gear)),
                )
    return GearConfig(shapes, dynamic_type, gears, input_format)


def _gear_position(text: str, index: int) -> int:
    pos = 0
    for _ in range(index):
        pos = text.index(";", pos) + 1
    return pos


def _check_batch_shapes(shapes: Sequence[InputShape]) -> None:
    """E10012 (a scalar input), E10018 (-1 beyond N), E10031 (no -1 at N)."""
    for shape in shapes:
        if not shape.dims:
            raise GearError(
                "E10012",
                "--dynamic_batch_size is included, but the dimension count of the "
                "dynamic-shape input configured in --input_shape is less than 1 "
                f"({shape.name} is a scalar).",
            )
        for i in shape.unknown:
            if i != 0:
                raise GearError(
                    "E10018",
                    f"Value -1 for shape {i} is invalid. When --dynamic_batch_size is included, "
                    f"only batch size N can be -1 in --input_shape ({shape.text}).",
                )
    if not any(shape.dims[0] == -1 for shape in shapes):
        raise GearError(
            "E10031",
            "--dynamic_batch_size is included, but none of the nodes specified in --input_shape "
            "has a batch size equaling -1.",
        )


_HW = {"NCHW": (2, 3), "NHWC": (1, 2)}


def _check_image_shapes(shapes: Sequence[InputShape], input_format: str) -> None:
    """E10003 (format), E10019 (-1 only on H and W of a 4-D input, and somewhere)."""
    if input_format not in _HW:
        raise GearError(
            "E10003",
            f"Value {input_format} for parameter --input_format is invalid. Reason: When "
            "--dynamic_image_size is set, the input format only supports NCHW or NHWC.",
        )
    found = False
    for shape in shapes:
        if not shape.unknown:
            continue
        if len(shape.dims) != 4 or shape.unknown != _HW[input_format]:
            raise GearError(
                "E10019",
                "When --dynamic_image_size is included, only the height and width axes can be "
                f"-1 in --input_shape ({shape.text}, format {input_format}).",
            )
        found = True
    if not found:
        raise GearError(
            "E10019",
            "When --dynamic_image_size is included, only the height and width axes can be -1 "
            "in --input_shape (no input has -1 height and width).",
        )


def _check_dims_shapes(shapes: Sequence[InputShape]) -> None:
    if not any(shape.unknown for shape in shapes):
        raise GearError(
            "E10001",
            "Value 0 for parameter --input_shape's dynamic dim num is invalid. Reason: At least "
            "one dim should be -1 when dynamic_dims is set.",
        )


def check_graph_inputs(
    config: GearConfig, graph: str, names: Sequence[str], dims: Sequence[Sequence[int] | None]
) -> None:
    """`--input_shape` against the graph's inputs (`dims` None = unknown rank, < 0 = `?`):
    every name is an input (E10016), every input is named (E10001, GE's CheckNodeSize), ranks
    (E10001) and fixed dims (E10001) agree. A `?` dim of the graph takes any value."""
    known = dict(zip(names, dims, strict=True))
    for shape in config.inputs:
        if shape.name not in known:
            raise GearError(
                "E10016",
                f"Op name {shape.name} specified in --input_shape is not found in the model. "
                "Confirm whether this node name exists, or whether the node is not split with "
                f"the specified delimiter ';' (inputs of @{graph}: {', '.join(names)}).",
            )
    missing = [n for n in names if n not in {s.name for s in config.inputs}]
    if missing:
        raise GearError(
            "E10001",
            f"Value {len(config.inputs)} for parameter input_shape is invalid. Reason: Count:"
            f"{len(names)} of data_nodes in graph:{graph} should be equal to input_shape count:"
            f"{len(config.inputs)} from option (missing: {', '.join(missing)}).",
        )
    for shape in config.inputs:
        graph_dims = known[shape.name]
        if graph_dims is None:
            continue
        if len(graph_dims) != len(shape.dims):
            raise GearError(
                "E10001",
                f"Value {dims_text(graph_dims)} for parameter {shape.name} is invalid. Reason: "
                f"The output shape of {shape.name} is {dims_text(graph_dims)}, the input shape "
                f"from options of {shape.name} is {dims_text(shape.dims)}, graph:{graph}.",
            )
        for j, (want, have) in enumerate(zip(shape.dims, graph_dims, strict=True)):
            if want != -1 and have >= 0 and want != have:
                raise GearError(
                    "E10001",
                    f"Value {dims_text(shape.dims)} for parameter input_shape is invalid. "
                    f"Reason: Value of input shape {dims_text(shape.dims)} from option and "
                    f"output shape {dims_text(graph_dims)} of data op:{shape.name} should be "
                    f"equal, index:{j}, graph:{graph}.",
                )
