"""Gears (GE multi-batch): atc's options, their validation, and the run-time gear table.

One place for everything about gears that is not an IR rewrite, so that the compiler pass
(`ge-expand-multibatch`), the runtime (`gedialects.interpreters.run`) and `ge-atc` share it
 without depending on `passes`:

- `parse_options(input_shape=..., dynamic_batch_size=... | dynamic_image_size=... |
  dynamic_dims=...)` parses atc's spelling with lark grammars and applies every check of
  GE's `option_utils.cc` / `multi_batch_options.cc`, returning a `GearConfig`;
  `check_graph_inputs` checks a config against a graph's inputs. Errors are `GearError`s whose
  first line is GE's message (`E10xxx: ...`, naming the option, the value and the reason);
  syntax errors add the option text with a caret under the bad character.
- `GearInfo.from_module(module)` reads the gear table back from an expanded module, the ACL
  query API (`aclmdlGetInputDynamicGearCount`, `aclmdlGetInputDynamicDims`,
  `aclmdlSetInputDynamicDims`), and `gear_signature` lets `run()` take inputs of any gear.

numpy and lark are imported only when needed (every lit RUN line starts a process).
"""

from __future__ import annotations

import functools
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from enum import IntEnum
from typing import TYPE_CHECKING

from xdsl.dialects.builtin import (
    ArrayAttr,
    BoolAttr,
    DenseArrayBase,
    DictionaryAttr,
    IntegerAttr,
    ModuleOp,
    StringAttr,
    TensorType,
)
from xdsl.ir import Attribute, Operation

from gedialects.base import NODE_NAME, int_array_values
from gedialects.graph import GraphOp, NetOutputOp
from gedialects.multibatch import (
    BATCH_NUM,
    DYNAMIC_TYPE,
    MAX_GEAR_COUNT,
    PRED_VALUE_PREFIX,
    USER_DESIGNATE_SHAPE_ORDER,
    CaseOp,
    GetDynamicDimsOp,
)

if TYPE_CHECKING:
    import numpy as np
    from lark import Lark

    from gedialects.ascend import ModelOp
    from gedialects.interpreters.run import Signature

MIN_GEAR_COUNT = 2
"""GE's kMinShapesCount (E10035)."""

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
        return _OPTION_OF[self]


_OPTION_OF = {
    DynamicType.FIXED: "input_shape",
    DynamicType.BATCH: "dynamic_batch_size",
    DynamicType.IMAGE_SIZE: "dynamic_image_size",
    DynamicType.DIMS: "dynamic_dims",
}


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


def _dims_text(dims: Sequence[int]) -> str:
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


def _parse(option: str, text: str, syntax_error: object) -> object:
    """Parses `text` with the option's grammar; `syntax_error(pos, expected)` builds the error."""
    from lark.exceptions import UnexpectedCharacters, UnexpectedEOF, UnexpectedToken

    try:
        return _parser(option).parse(text)
    except UnexpectedCharacters as e:
        raise syntax_error(e.pos_in_stream, set(e.allowed or ())) from None  # type: ignore[operator]
    except UnexpectedEOF as e:
        raise syntax_error(len(text), set(e.expected or ())) from None  # type: ignore[operator]
    except UnexpectedToken as e:
        pos = e.token.start_pos if e.token.start_pos is not None else len(text)
        raise syntax_error(pos, set(e.expected or ())) from None  # type: ignore[operator]


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
    for item in tree.children:  # type: ignore[attr-defined]
        name_token, dims_tree = item.children
        name = str(name_token).strip()
        if not name:
            raise syntax_error(name_token.start_pos, {"NAME"})
        from gedialects.base import INT64_MAX

        _check_range("input_shape", text, dims_tree.children, INT64_MAX, "i64")
        dims = tuple(int(tok) for tok in dims_tree.children)
        shape = InputShape(name, dims)
        for d, tok in zip(dims, dims_tree.children, strict=True):
            if (d <= 0 and not dynamic) or d < -1:
                raise GearError(
                    "E10011",
                    f"Value {shape.text} for parameter --input_shape is invalid. Shape values "
                    f"must be positive integers. The error value in the shape is {d}.",
                    option="input_shape",
                    text=text,
                    at=tok.start_pos,
                )
        if any(s.name == name for s in shapes):
            raise GearError(
                "E10001",
                f"Value {name} for parameter --input_shape is invalid. Reason: The input is "
                "given twice.",
                option="input_shape",
                text=text,
                at=name_token.start_pos,
            )
        shapes.append(shape)
    return tuple(shapes)


# --------------------------------------------------------------------------------------------
# Gear options
# --------------------------------------------------------------------------------------------

_BATCH_REASON = 'It can only contain digits and ",".'
_IMAGE_REASON = 'It can only contain digits, ",", " " and ";".'


def _gear_syntax_error(option: str, text: str) -> object:
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


def _check_range(option: str, text: str, tokens: Sequence[object], limit: int, bits: str) -> None:
    """Refuses option values beyond the integer type that holds them (E10001): shapes are i64
    dims, gear values also travel as the i32 `ascend_mbatch_shape_data`."""
    from gedialects.base import INT64_MAX

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
                at=tok.start_pos,  # type: ignore[attr-defined]
            )


def parse_gears(option: str, text: str) -> tuple[tuple[int, ...], ...]:
    """The gears one of `--dynamic_batch_size`, `--dynamic_image_size`, `--dynamic_dims` lists.

    Only syntax here (and E10020, two values per image size): counts, ranges and duplicates are
    `check_gears`, the per-graph checks `parse_options`.
    """
    if option == "dynamic_dims" and not text.rstrip(";").strip():
        raise GearError("E10058", "Parameter --dynamic_dims is not configured or is empty.")
    tree = _parse(option, text, _gear_syntax_error(option, text))
    from gedialects.base import INT32_MAX

    if option == "dynamic_batch_size":
        _check_range(option, text, tree.children, INT32_MAX, "i32")  # type: ignore[attr-defined]
    else:
        for g in tree.children:  # type: ignore[attr-defined]
            _check_range(option, text, g.children, INT32_MAX, "i32")
    if option == "dynamic_batch_size":
        return tuple((int(tok),) for tok in tree.children)  # type: ignore[attr-defined]
    gears = tuple(tuple(int(tok) for tok in g.children) for g in tree.children)  # type: ignore[attr-defined]
    if option == "dynamic_image_size":
        for group, gear in zip(tree.children, gears, strict=True):  # type: ignore[attr-defined]
            if len(gear) != 2:
                raise GearError(
                    "E10020",
                    f"Value {text} for parameter --dynamic_image_size is invalid. Each profile "
                    f"is height,width; this one has {len(gear)} values.",
                    option=option,
                    text=text,
                    at=group.children[0].start_pos,
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
                    f"(profile {_dims_text(gear)}).",
                )
    seen: set[tuple[int, ...]] = set()
    for gear in gears:
        if tuple(gear) in seen:
            raise GearError(
                "E10039",
                "The --dynamic_batch_size, --dynamic_image_size, or --dynamic_dims argument has "
                f"duplicate profiles ({_dims_text(gear)} appears twice).",
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
                    f"(profile {_dims_text(gear)} has {len(gear)} values, --input_shape has "
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
                f"Value {_dims_text(graph_dims)} for parameter {shape.name} is invalid. Reason: "
                f"The output shape of {shape.name} is {_dims_text(graph_dims)}, the input shape "
                f"from options of {shape.name} is {_dims_text(shape.dims)}, graph:{graph}.",
            )
        for j, (want, have) in enumerate(zip(shape.dims, graph_dims, strict=True)):
            if want != -1 and have >= 0 and want != have:
                raise GearError(
                    "E10001",
                    f"Value {_dims_text(shape.dims)} for parameter input_shape is invalid. "
                    f"Reason: Value of input shape {_dims_text(shape.dims)} from option and "
                    f"output shape {_dims_text(graph_dims)} of data op:{shape.name} should be "
                    f"equal, index:{j}, graph:{graph}.",
                )


# --------------------------------------------------------------------------------------------
# Reading an expanded module back: the ACL-like query API
# --------------------------------------------------------------------------------------------


class GearMismatchError(ValueError):
    """Input dims that are not a configured gear (GE's E13025 at run time)."""


def _int_list(attr: Attribute | None) -> tuple[int, ...] | None:
    if isinstance(attr, DenseArrayBase):
        return int_array_values(attr)
    return None


def _flag(attrs: Mapping[str, Attribute], key: str) -> bool:
    value = attrs.get(key)
    return isinstance(value, IntegerAttr) and bool(value.value.data)


def _arg_attrs(graph: GraphOp, index: int) -> dict[str, Attribute]:
    if graph.arg_attrs is None:
        return {}
    return dict(graph.arg_attrs.data[index].data)


@dataclass(frozen=True)
class GearInfo:
    """The gears of an expanded root graph, as ACL's model description reports them.

    `from_module` / `from_graph` read them from the Case attributes (`_batch_num`,
    `_pred_value_<i>`, `mbatch_dynamic_type`, `user_designate_shape_order`), the inputs'
    `_mbatch_origin_input_dims` and the root output's `_dynamic_output_dims`.
    """

    graph: str
    config: GearConfig
    input_names: tuple[str, ...]
    """User inputs in root-graph order (the shape-data input excluded)."""
    shape_data_index: int | None
    """Position of `ascend_mbatch_shape_data` among the root inputs; None with GetDynamicDims."""
    output_names: tuple[str, ...]
    output_dims: dict[int, dict[int, tuple[int, ...]]]
    """Gear (-1 = any gear) -> output index -> dims, from `_dynamic_output_dims`."""

    @classmethod
    def from_module(cls, module: ModuleOp, entry: str | None = None) -> GearInfo:
        from gedialects.interpreters.run import find_entry

        graph = find_entry(module, entry)
        if not isinstance(graph, GraphOp):
            raise ValueError(f"@{graph.sym_name.data} is not a graph.graph")  # type: ignore[attr-defined]
        return cls.from_graph(graph)

    @classmethod
    def from_graph(cls, graph: GraphOp) -> GearInfo:
        info = cls.find(graph)
        if info is None:
            raise ValueError(
                f"@{graph.sym_name.data} has no gears (no multibatch.case with {BATCH_NUM}); "
                "run ge-expand-multibatch first"
            )
        return info

    @classmethod
    def find(cls, graph: GraphOp) -> GearInfo | None:
        """The gears of `graph`, or None when it is not an expanded multi-batch root."""
        case = next(
            (
                op
                for op in graph.body.block.ops
                if isinstance(op, CaseOp) and BATCH_NUM in op.attributes
            ),
            None,
        )
        if case is None:
            return None
        inputs = [
            (name, _arg_attrs(graph, i), graph.function_type.inputs.data[i])
            for i, name in enumerate(graph.input_names)
        ]
        has_dims_op = any(isinstance(op, GetDynamicDimsOp) for op in graph.body.block.ops)
        last = graph.body.block.last_op
        out_attr = (
            last.attributes.get(DYNAMIC_OUTPUT_DIMS) if isinstance(last, NetOutputOp) else None
        )
        return cls._build(
            graph.sym_name.data,
            case.attributes,
            inputs,
            graph.output_names,
            out_attr,
            has_dims_op,
        )

    @classmethod
    def find_model(cls, model: Operation) -> GearInfo | None:
        """The gears of a lowered `ascend.model`, or None: the lowering copies the Case's gear
        attributes and `_dynamic_output_dims` onto the model and the root inputs' attributes
        onto its `ascend.input`s (what GE's DavinciModel reads from the OM file)."""
        from gedialects.ascend import KernelOp, ModelOp

        if not isinstance(model, ModelOp) or BATCH_NUM not in model.attributes:
            return None
        inputs = [(op.input_name.data, op.attributes, op.buffer.type) for op in model.inputs()]
        has_dims_op = any(
            isinstance(op, KernelOp) and op.kernel.data == GetDynamicDimsOp.GE_TYPE
            for op in model.tasks()
        )
        return cls._build(
            model.sym_name.data,
            model.attributes,
            inputs,
            model.output_names,
            model.attributes.get(DYNAMIC_OUTPUT_DIMS),
            has_dims_op,
        )

    @classmethod
    def _build(
        cls,
        name: str,
        attrs: Mapping[str, Attribute],
        inputs: Sequence[tuple[str, Mapping[str, Attribute], Attribute]],
        output_names: tuple[str, ...],
        output_dims: Attribute | None,
        has_dims_op: bool,
    ) -> GearInfo:
        count = attrs[BATCH_NUM]
        kind = attrs.get(DYNAMIC_TYPE)
        order = attrs.get(USER_DESIGNATE_SHAPE_ORDER)
        if not isinstance(count, IntegerAttr) or not isinstance(kind, IntegerAttr):
            raise ValueError(f"@{name}: malformed {BATCH_NUM}/{DYNAMIC_TYPE}")
        gears = []
        for i in range(count.value.data):
            gear = _int_list(attrs.get(f"{PRED_VALUE_PREFIX}{i}"))
            if gear is None:
                raise ValueError(f"@{name}: no {PRED_VALUE_PREFIX}{i}")
            gears.append(gear)
        shape_data = None
        dims: dict[str, tuple[int, ...]] = {}
        for i, (input_name, arg, t) in enumerate(inputs):
            if _flag(arg, IS_MULTI_BATCH_SHAPE_DATA):
                shape_data = i
                continue
            origin = _int_list(arg.get(ORIGIN_INPUT_DIMS))
            if origin is None:
                origin = tuple(t.get_shape()) if isinstance(t, TensorType) else ()
                origin = tuple(-1 if d < 0 else d for d in origin)
            dims[input_name] = origin
        user_order = (
            [s.data for s in order.data if isinstance(s, StringAttr)]
            if isinstance(order, ArrayAttr)
            else list(dims)
        )
        if shape_data is None and not has_dims_op:
            raise ValueError(
                f"@{name}: no {SHAPE_DATA_NAME} input and no "
                "multibatch.get_dynamic_dims feed the gear lookup"
            )
        config = GearConfig(
            tuple(InputShape(n, dims[n]) for n in user_order),
            DynamicType(kind.value.data),
            tuple(gears),
        )
        return cls(
            name,
            config,
            tuple(n for i, (n, _, _) in enumerate(inputs) if i != shape_data),
            shape_data,
            output_names,
            _parse_output_dims(output_dims),
        )

    # aclmdlGetInputDynamicGearCount / aclmdlGetInputDynamicDims
    @property
    def gear_count(self) -> int:
        return self.config.gear_count

    @property
    def dynamic_type(self) -> DynamicType:
        return self.config.dynamic_type

    @property
    def gears(self) -> tuple[tuple[int, ...], ...]:
        """The gear table: the values of the -1 dims, one row per gear (`_pred_value_<i>`)."""
        return self.config.gears

    def input_dims(self, gear: int) -> dict[str, tuple[int, ...]]:
        """The full dims of every input in gear `gear` (what aclmdlGetInputDynamicDims lists)."""
        self._check_index(gear)
        return {name: self.config.shape(name, gear) for name in self.input_names}

    def output_dims_of(self, gear: int) -> dict[str, tuple[int, ...]]:
        """The output dims in gear `gear` (GE's GetGearAndRealOutShapeInfo)."""
        self._check_index(gear)
        merged = self.output_dims.get(-1, {}) | self.output_dims.get(gear, {})
        return {self.output_names[i]: dims for i, dims in sorted(merged.items())}

    def max_input_dims(self) -> dict[str, tuple[int, ...]]:
        """The buffer shape of every input: its largest gear (E.4)."""
        return {name: self.config.max_shape(name) for name in self.input_names}

    # aclmdlSetInputDynamicDims
    def set_dims(self, dims: Sequence[int]) -> int:
        """The index of the gear `dims` (values of the -1 dims, in `--input_shape` order)."""
        gear = self.config.gear_of(dims)
        if gear is None:
            raise GearMismatchError(self._mismatch(_dims_text([int(d) for d in dims])))
        return gear

    def select(self, shapes: Mapping[str, Sequence[int]]) -> int:
        """The gear the actual input shapes belong to (GE's GetCurDynamicDims + check)."""
        gear = self.config.match(shapes)
        if gear is None:
            values = [int(shapes[s.name][i]) for s in self.config.inputs for i in s.unknown]
            given = ", ".join(f"{n}:{_dims_text(shapes[n])}" for n in self.input_names)
            raise GearMismatchError(self._mismatch(f"{_dims_text(values)} ({given})"))
        return gear

    def _mismatch(self, what: str) -> str:
        table = "[" + ", ".join(_dims_text(g) for g in self.gears) + "]"
        return (
            f"E13025: Input tensor is invalid. Reason: The input tensor dimension {what} is not "
            f"in the dynamic dimension list {table} configured by --{self.config.option}."
        )

    def _check_index(self, gear: int) -> None:
        if not 0 <= gear < self.gear_count:
            raise IndexError(f"gear {gear} out of range: @{self.graph} has {self.gear_count}")

    def bind(self, inputs: Sequence[np.ndarray]) -> tuple[np.ndarray, ...]:
        """The root's arguments for user `inputs` (root order): the gear's dims go into
        `ascend_mbatch_shape_data`, as GE's runtime appends them as an extra input blob."""
        import numpy as np

        shapes = {n: tuple(a.shape) for n, a in zip(self.input_names, inputs, strict=True)}
        gear = self.select(shapes)
        args = list(inputs)
        if self.shape_data_index is not None:
            args.insert(self.shape_data_index, np.array(self.gears[gear], dtype=np.int32))
        return tuple(args)

    def crop(self, inputs: Mapping[str, np.ndarray], gear: int) -> dict[str, np.ndarray]:
        """Inputs cut to gear `gear`: the leading elements of each buffer (ACL passes buffers
        of the largest gear's size and sets the dims with aclmdlSetInputDynamicDims)."""
        import numpy as np

        out: dict[str, np.ndarray] = dict(inputs)
        for name, shape in self.input_dims(gear).items():
            if name not in inputs:
                continue
            flat = np.asarray(inputs[name]).reshape(-1)
            need = math.prod(shape)
            if flat.size < need:
                raise GearMismatchError(
                    f"input '{name}' holds {flat.size} elements, gear {gear} "
                    f"{_dims_text(self.gears[gear])} needs {_dims_text(shape)} ({need})"
                )
            out[name] = flat[:need].reshape(shape)
        return out


def _parse_output_dims(attr: Attribute | None) -> dict[int, dict[int, tuple[int, ...]]]:
    """Parses `_dynamic_output_dims` ("<gear>,<output>,<d0>,<d1>,...")."""
    result: dict[int, dict[int, tuple[int, ...]]] = {}
    if not isinstance(attr, ArrayAttr):
        return result
    for item in attr.data:
        if not isinstance(item, StringAttr):
            continue
        gear, index, *dims = (int(v) for v in item.data.split(",") if v)
        result.setdefault(gear, {})[index] = tuple(dims)
    return result


def output_dims_entry(gear: int, index: int, dims: Sequence[int]) -> StringAttr:
    """One `_dynamic_output_dims` string: `"<gear>,<output>,<d0>,<d1>,..."`."""
    return StringAttr(",".join(str(v) for v in (gear, index, *dims)))


def input_attrs(name: str, shape: InputShape, max_dims: Sequence[int]) -> DictionaryAttr:
    """Root input attributes of a user Data (GE's SetMaxShapeToData and the clone pass)."""
    attrs: dict[str, Attribute] = {NODE_NAME: StringAttr(name)}
    if shape.unknown:
        from gedialects.base import int_array

        attrs[ORIGIN_INPUT_DIMS] = int_array(shape.dims)
        attrs[MAX_INPUT_DIMS] = int_array(max_dims)
        attrs[UNKNOWN_DIM_INDEX] = int_array(shape.unknown)
        attrs[MBATCH_SWITCH_NAME] = StringAttr(CASE_NAME)
    return DictionaryAttr(attrs)


def shape_data_attrs(unknown_inputs: Sequence[int]) -> DictionaryAttr:
    """Attributes of the `ascend_mbatch_shape_data` input (CreateIndexDataNode)."""
    from gedialects.base import int_array

    return DictionaryAttr(
        {
            NODE_NAME: StringAttr(SHAPE_DATA_NAME),
            IS_MULTI_BATCH_SHAPE_DATA: BoolAttr.from_bool(True),
            INSERT_BY_MBATCH: BoolAttr.from_bool(True),
            LOWERING_FUNC: StringAttr("multi_batch_shape_data"),
            UNKNOWN_DATA_INDEX: int_array(unknown_inputs),
        }
    )


# --------------------------------------------------------------------------------------------
# run() integration
# --------------------------------------------------------------------------------------------


def hybrid_graph(entry: Operation) -> GraphOp | ModelOp | None:
    """The fully dynamic graph an expanded root falls back to (hybrid mode), or the model
    (of dynamic tasks) `ge-convert-graph-to-ascend` made of it, for the root's model."""
    from xdsl.dialects.builtin import SymbolRefAttr
    from xdsl.traits import SymbolTable

    from gedialects.ascend import ModelOp

    ref = entry.attributes.get(HYBRID_GRAPH)
    parent = entry.parent_op()
    if not isinstance(ref, SymbolRefAttr) or parent is None:
        return None
    graph = SymbolTable.lookup_symbol(parent, ref.root_reference.data)
    return graph if isinstance(graph, GraphOp | ModelOp) else None


class HybridFallbackError(ValueError):
    """A hybrid root whose dynamic graph cannot take the root's inputs (a hand-edited model)."""


def hybrid_route(
    entry: Operation, info: GearInfo, inputs: Mapping[str, np.ndarray]
) -> tuple[Operation, tuple[np.ndarray, ...]] | None:
    """Where hybrid mode sends user `inputs` (by name, no shape data): None when their shapes
    are a gear or `entry` has no dynamic graph (the entry runs them, E13025 when no gear),
    else the dynamic graph and its arguments. The one routing rule of every run: `run()`,
    its instrumented form, `execute_model` and ge-run (GE's hybrid executor picks the
    dynamic graph for shapes of no gear the same way)."""
    dynamic = hybrid_graph(entry)
    if dynamic is None:
        return None
    shapes = {n: tuple(a.shape) for n, a in inputs.items() if n in info.input_names}
    if len(shapes) != len(info.input_names) or info.config.match(shapes) is not None:
        return None
    root = entry.sym_name.data  # type: ignore[attr-defined]
    names = dynamic.input_names
    extra = [n for n in names if n not in inputs]
    if extra:
        raise HybridFallbackError(
            f"hybrid fallback @{dynamic.sym_name.data} of @{root} takes input '{extra[0]}', "
            f"which @{root} does not have (its inputs: {', '.join(info.input_names)})"
        )
    if dynamic.output_names != info.output_names:
        raise HybridFallbackError(
            f"hybrid fallback @{dynamic.sym_name.data} of @{root} has outputs "
            f"({', '.join(dynamic.output_names)}), @{root} has "
            f"({', '.join(info.output_names)})"
        )
    return dynamic, tuple(inputs[n] for n in names)


def gear_signature(entry: Operation, sig: Signature) -> Signature | None:
    """For an expanded root or its lowered model: the user-facing signature (no shape-data
    input, `?` on the gear dims), with a binder that selects the gear (E13025 when none
    matches) and fills the shape data, gear 0's shapes for random inputs, and in hybrid mode a
    route that sends shapes of no gear to the dynamic graph. None for any other entry."""
    import dataclasses

    from xdsl.dialects.builtin import DYNAMIC_INDEX

    from gedialects.interpreters.run import RunError

    try:
        info = GearInfo.find(entry) if isinstance(entry, GraphOp) else GearInfo.find_model(entry)
    except ValueError as e:
        raise RunError(f"cannot run the gears of {e}") from None
    if info is None:
        return None
    keep = [i for i in range(len(sig.input_names)) if i != info.shape_data_index]
    types: list[Attribute] = []
    example: list[Attribute] = []
    configured = {s.name for s in info.config.inputs}
    for i, name in zip(keep, info.input_names, strict=True):
        t = sig.input_types[i]
        if isinstance(t, TensorType) and name in configured:
            dims = info.config.input(name).dims
            types.append(TensorType(t.element_type, [DYNAMIC_INDEX if d < 0 else d for d in dims]))
            example.append(TensorType(t.element_type, info.config.shape(name, 0)))
        else:
            types.append(t)
            example.append(t)

    def bind(inputs: tuple[np.ndarray, ...]) -> tuple[np.ndarray, ...]:
        from gedialects.interpreters.run import RunError

        try:
            return info.bind(inputs)
        except GearMismatchError as e:
            raise RunError(str(e)) from None

    route = None
    if hybrid_graph(entry) is not None:

        def route(
            inputs: tuple[np.ndarray, ...],
        ) -> tuple[Operation, tuple[np.ndarray, ...]] | None:
            from gedialects.interpreters.run import RunError

            try:
                return hybrid_route(entry, info, dict(zip(info.input_names, inputs, strict=True)))
            except HybridFallbackError as e:
                raise RunError(str(e)) from None

    return dataclasses.replace(
        sig,
        input_names=info.input_names,
        input_types=tuple(types),
        binder=bind,
        example_types=tuple(example),
        route=route,
    )
