"""String ops on `!graph.string` tensors (GE DT_STRING, `gedialects.strings`): GE's
StringNormalizer, StaticRegexFullMatch and StringJoin (`string_ops.h`), ONNX's padded
StringSplit (GE's StringSplit is sparse), and LabelEncoder of ONNX's `ai.onnx.ml` domain, which
GE has no prototype for. All run on AI CPU
(`gedialects.target.engines.AICPU_ONLY_OPS`), as GE places every DT_STRING kernel, and at graph
level only: `ge-convert-graph-to-ascend` refuses string tensors."""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from typing import ClassVar

from xdsl.dialects.builtin import (
    I64,
    ArrayAttr,
    BoolAttr,
    DenseIntOrFPElementsAttr,
    IntegerAttr,
    StringAttr,
    i64,
)
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.irdl import (
    IRDLOperation,
    irdl_op_definition,
    operand_def,
    opt_prop_def,
    prop_def,
    result_def,
    traits_def,
    var_operand_def,
)
from xdsl.traits import Pure

from gedialects.base import (
    GEOp,
    NodeSyntax,
    OperandValues,
    element_count,
    element_type,
    tensor_shape,
)
from gedialects.graph.common import (
    AnyTensor,
    bool_attr,
    broadcast_shape,
    build_result_types,
    fail,
    i64_attr,
    infer_or_fail,
    init_node,
    prop,
    prop_int,
    prop_str,
    tensor_of,
    verify_inferred,
)
from gedialects.strings import STRING, StringsAttr, is_string_tensor

FALSE = BoolAttr.from_bool(False)
CASE_CHANGE_ACTIONS = ("NONE", "LOWER", "UPPER")
"""StringNormalizer's `case_change_action` values."""


def _strings_prop(cls: type[GEOp], properties: Mapping[str, Attribute], name: str) -> list[str]:
    attr = prop(cls, properties, name)
    if not isinstance(attr, ArrayAttr) or not all(isinstance(s, StringAttr) for s in attr.data):
        raise ValueError(f"{name} must be a list of strings")
    return [s.data for s in attr.data if isinstance(s, StringAttr)]


@irdl_op_definition
class StringNormalizerOp(GEOp, NodeSyntax):
    """GE StringNormalizer: `x` (`[C]` or `[1, C]` strings) without the elements equal to a
    stop word, then lower- or upper-cased (`case_change_action` NONE, LOWER or UPPER).

    Stop words match whole elements, case-insensitively unless `is_case_sensitive` (both
    sides lower-cased as LOWER does). The result keeps x's rank with C' elements,
    data-dependent (`?`); when every element is removed it is one empty string (`[1]`, or
    `[1, 1]`). Case changes map one character at a time, so lengths never change: under the
    C, POSIX, "" and C.UTF-8 locales only ASCII letters change (onnxruntime's results,
    measured); under any other `locale` every character whose Unicode upper/lower case is one
    character changes, and those whose case is more ("ß", "ﬁ", "İ") stay (no locale's
    tailoring, such as a Turkish dotless i, is modelled).

        %y = graph.string_normalizer %x stopwords ["monday"] case_change_action "UPPER"
            : (tensor<4x!graph.string>) -> tensor<?x!graph.string>
    """

    name = "graph.string_normalizer"
    GE_TYPE: ClassVar[str] = "StringNormalizer"

    x = operand_def(AnyTensor)
    y = result_def(AnyTensor)

    stopwords = prop_def(ArrayAttr[StringAttr], default_value=ArrayAttr(()))
    is_case_sensitive = prop_def(BoolAttr, default_value=FALSE)
    case_change_action = prop_def(StringAttr, default_value=StringAttr("NONE"))
    locale = prop_def(StringAttr, default_value=StringAttr("C"))

    traits = traits_def(Pure())

    def __init__(
        self,
        x: SSAValue | Operation,
        *,
        stopwords: Sequence[str] = (),
        is_case_sensitive: bool = False,
        case_change_action: str = "NONE",
        locale: str = "C",
        result_type: Attribute | None = None,
    ) -> None:
        props: dict[str, Attribute] = {
            "stopwords": ArrayAttr(StringAttr(s) for s in stopwords),
            "is_case_sensitive": bool_attr(is_case_sensitive),
            "case_change_action": StringAttr(case_change_action),
            "locale": StringAttr(locale),
        }
        init_node(self, [x], result_type, props)

    @classmethod
    def infer_result_types(
        cls,
        operand_types: Sequence[Attribute],
        properties: Mapping[str, Attribute],
        values: OperandValues,
    ) -> tuple[Attribute, ...]:
        """x's rank with the last dim data-dependent (`?`)."""
        action = prop_str(cls, properties, "case_change_action")
        if action not in CASE_CHANGE_ACTIONS:
            raise ValueError(f"case_change_action must be one of {', '.join(CASE_CHANGE_ACTIONS)}")
        _strings_prop(cls, properties, "stopwords")
        x = tensor_shape(operand_types[0])
        if x is None:
            return (tensor_of(STRING, None),)
        if len(x) == 1:
            return (tensor_of(STRING, (-1,)),)
        if len(x) == 2 and x[0] in (1, -1):
            return (tensor_of(STRING, (1, -1)),)
        raise ValueError(f"x must be [C] or [1, C], got {list(x)}")

    def verify_(self) -> None:
        if not is_string_tensor(self.x.type):
            fail(self, f"x must be a string tensor, got {self.x.type}")
        verify_inferred(self, "the normalized shape")


RE2_SPACE = "\\t\\n\\f\\r "
"""RE2's `\\s` class, without the brackets: Python's ASCII `\\s` also holds `\\v`."""

RE2_FLAGS = "imsU-"
"""The letters RE2 takes in a `(?flags)` group (Python's `a`, `x`, `L`, `u` are refused)."""


def _regex_problem(pattern: str) -> str | None:
    """Why `pattern` (RE2 syntax) has no equivalent Python `re` pattern, or None.

    Refused: RE2 syntax Python lacks or reads otherwise (`\\p{..}`, `\\P`, `[[:alpha:]]`,
    `\\Q..\\E`, `\\C`, `\\z`, `\\x{..}`, the `U` flag, `(?i)`, whose Unicode case folding
    Python's ASCII mode does not do, `\\S` inside a class, `$` with the `m` flag), and Python
    syntax RE2 rejects (lookaround, back references, `(?P=..)`, `(?#..)`, atomic groups,
    possessive quantifiers, `\\Z`, `\\G`, `\\u`, `\\U`, `\\N{..}`, flags other than
    `imsU`). What both read but mean otherwise `_rewrite` rewrites (`\\s`, `{,n}`, `$`);
    everything else means the same in both with `re.ASCII` (RE2's `\\w`, `\\d`, `\\b` are
    ASCII classes).

    Two shapes Python's backtracking can take exponential time on (RE2 matches any pattern in
    linear time) are refused when a group is repeated without bound (`*`, `+`, `{n,}`): a
    group holding an unbounded repetition (`(a+)+`, `(\\d*)*`), and a group holding an
    alternation `|` (its own or a nested group's: `(a|a)*`, `((a|ab))+`) unless every
    alternative of that alternation starts with a literal character that is not optional and
    those characters are distinct (`(ab|cd)*` passes, `(a|ab)*`, `(a?|b)*`, `(.|b)*` do not)."""
    i = 0
    in_class = False
    class_start = 0
    # per open group: [holds an unbounded repetition, holds an unproven alternation,
    # its alternatives' first characters (None once one is not a plain literal)]
    groups: list[list] = [[False, False, []]]
    top_first = _first_literal(pattern, 0)
    groups[0][2] = [top_first]
    multiline = False
    while i < len(pattern):
        c = pattern[i]
        if c == "\\" and i + 1 < len(pattern):
            e = pattern[i + 1]
            if e in "pP":
                return f"Unicode classes (\\{e}) differ between RE2 and Python"
            if e in "QECzZG":
                return f"\\{e} has no equivalent in Python's re (or is not RE2)"
            if e in "uUN":
                return f"\\{e} escapes are Python syntax, not RE2"
            if e.isdigit() and e != "0":
                return f"back references (\\{e}) are not RE2 syntax"
            if e == "x" and pattern[i + 2 : i + 3] == "{":
                return "\\x{...} escapes have no equivalent in Python's re"
            if in_class and e == "S":
                return "\\S inside a class has no equivalent in Python's re (RE2's \\s has no \\v)"
            if not in_class and len(groups) > 1 and _unbounded(pattern, i + 2):
                groups[-1][0] = True
            i += 2
            continue
        if in_class:
            if c == "]" and i >= class_start:
                in_class = False
                if len(groups) > 1 and _unbounded(pattern, i + 1):
                    groups[-1][0] = True
            elif pattern.startswith("[:", i):
                return "POSIX classes ([[:alpha:]]) have no equivalent in Python's re"
            i += 1
            continue
        if c == "[":
            in_class = True
            i += 1
            if pattern[i : i + 1] == "^":
                i += 1
            class_start = i + 1  # a ] first in the class (at i) is a literal
            continue
        if c == "$" and multiline:
            return "$ with the m flag is not rewritten to RE2's meaning (refused)"
        if c == "(" and pattern.startswith("(?", i):
            head = pattern[i + 2 : i + 4]
            if head[:1] in ("=", "!", "#", ">") or head in ("<=", "<!", "P="):
                return f"(?{head[:1] if head[:1] in '=!#>' else head} is not RE2 syntax"
            end = i + 2
            while end < len(pattern) and (pattern[end].isalpha() or pattern[end] == "-"):
                end += 1
            flags = "" if head.startswith("P<") else pattern[i + 2 : end]
            if "U" in flags or "i" in flags:
                return "the (?i) and (?U) flags differ between RE2 and Python"
            bad = [f for f in flags if f not in RE2_FLAGS]
            if bad:
                return f"the (?{bad[0]}) flag is Python syntax, not RE2"
            if "m" in flags.split("-")[0]:
                multiline = True
        if c == "(":
            after = i + 1
            if pattern.startswith("(?", i):
                colon = pattern.find(":", i)
                close = pattern.find(")", i)
                if pattern.startswith("(?P<", i):
                    after = pattern.find(">", i) + 1
                elif 0 < colon < close or close < 0:
                    after = colon + 1
            groups.append([False, False, [_first_literal(pattern, after)]])
        elif c == "|":
            groups[-1][2].append(_first_literal(pattern, i + 1))
        elif c == ")" and len(groups) > 1:
            unbounded_inner, alt_inner, firsts = groups.pop()
            if len(firsts) > 1 and (None in firsts or len(set(firsts)) != len(firsts)):
                alt_inner = True
            if _unbounded(pattern, i + 1):
                if unbounded_inner:
                    return (
                        "a repeated group holding a repetition ((a+)+) can take exponential "
                        "time in Python's backtracking re (RE2 matches it in linear time)"
                    )
                if alt_inner:
                    return (
                        "a repeated group holding alternatives not all starting with distinct "
                        "literals ((a|a)*) can take exponential time in Python's backtracking "
                        "re (RE2 matches it in linear time)"
                    )
            if len(groups) > 1:
                groups[-1][0] = groups[-1][0] or unbounded_inner or _unbounded(pattern, i + 1)
            groups[-1][1] = groups[-1][1] or alt_inner
        elif len(groups) > 1 and _unbounded(pattern, i + 1) and c not in "*+?{":
            groups[-1][0] = True
        if c in "*+?}" and pattern[i + 1 : i + 2] == "+":
            return "possessive quantifiers are not RE2 syntax"
        i += 1
    return None


def _first_literal(pattern: str, at: int) -> str | None:
    """The literal character an alternative starting at `at` must begin with, or None when
    it may begin otherwise (a class, a group, `.`, an escape, an anchor, an empty or
    optional first character)."""
    c = pattern[at : at + 1]
    if not c or c in "\\[](){}.^$|*+?":
        return None
    if pattern[at + 1 : at + 2] in ("?", "*", "{"):
        return None
    return c


def _rewrite(pattern: str) -> str:
    """`pattern` (RE2, `_regex_problem` found nothing) as the Python pattern meaning the same:
    `\\s` as RE2's `[\\t\\n\\f\\r ]` (in a class, its members), `\\S` as its complement,
    `{` before `,` escaped (RE2 reads `a{,3}` literally, Python as `a{0,3}`), and `$` (end of
    text in RE2 without the m flag, before a final newline too in Python) as `\\Z`."""
    out: list[str] = []
    i = 0
    in_class = False
    class_start = 0
    while i < len(pattern):
        c = pattern[i]
        if c == "\\" and i + 1 < len(pattern):
            e = pattern[i + 1]
            if e == "s":
                out.append(RE2_SPACE if in_class else f"[{RE2_SPACE}]")
            elif e == "S":
                out.append(f"[^{RE2_SPACE}]")
            else:
                out.append(pattern[i : i + 2])
            i += 2
            continue
        if in_class:
            if c == "]" and i >= class_start:
                in_class = False
            out.append(c)
            i += 1
            continue
        if c == "[":
            in_class = True
            j = i + 1
            if pattern[j : j + 1] == "^":
                j += 1
            class_start = j + 1
            out.append(pattern[i:j])
            i = j
            continue
        if c == "{" and pattern[i + 1 : i + 2] == ",":
            out.append("\\{")
        elif c == "$":
            out.append("\\Z")
        else:
            out.append(c)
        i += 1
    return "".join(out)


def _unbounded(pattern: str, at: int) -> bool:
    """Whether an unbounded quantifier (`*`, `+`, `{n,}`) starts at `at`."""
    c = pattern[at : at + 1]
    if c in ("*", "+"):
        return True
    if c == "{":
        close = pattern.find("}", at)
        return close > 0 and pattern[at + 1 : close].endswith(",")
    return False


def compile_regex(pattern: str) -> re.Pattern[str]:
    """The Python pattern equivalent to RE2 `pattern` (ValueError when there is none): refused
    by `_regex_problem`, else rewritten by `_rewrite`."""
    problem = _regex_problem(pattern)
    if problem is not None:
        raise ValueError(f"pattern {pattern!r}: {problem}")
    rewritten = _rewrite(pattern)
    try:
        return re.compile(rewritten, re.ASCII)
    except re.error as e:
        raise ValueError(f"pattern {pattern!r} is not a valid regular expression: {e}") from None


@irdl_op_definition
class StaticRegexFullMatchOp(GEOp, NodeSyntax):
    """GE StaticRegexFullMatch: whether each string of `x` matches `pattern` as a whole.

    `pattern` is RE2 syntax (as GE's and ONNX's RegexFullMatch); it runs as Python's
    `re.fullmatch` with `re.ASCII` after rewriting what Python reads otherwise (`\\s`, `{,n}`,
    `$`), and the verifier refuses the RE2 constructs Python cannot express the same way
    (Unicode classes, POSIX classes, `(?i)`), Python-only syntax, and repeated groups Python
    may backtrack on exponentially (see `compile_regex`). `y` is i1 of x's shape.

        %y = graph.static_regex_full_match %x pattern "a+b"
            : (tensor<3x!graph.string>) -> tensor<3xi1>
    """

    name = "graph.static_regex_full_match"
    GE_TYPE: ClassVar[str] = "StaticRegexFullMatch"

    x = operand_def(AnyTensor)
    y = result_def(AnyTensor)

    pattern = prop_def(StringAttr)

    traits = traits_def(Pure())

    def __init__(
        self, x: SSAValue | Operation, pattern: str, *, result_type: Attribute | None = None
    ) -> None:
        init_node(self, [x], result_type, {"pattern": StringAttr(pattern)})

    @classmethod
    def infer_result_types(
        cls,
        operand_types: Sequence[Attribute],
        properties: Mapping[str, Attribute],
        values: OperandValues,
    ) -> tuple[Attribute, ...]:
        from xdsl.dialects.builtin import i1

        compile_regex(prop_str(cls, properties, "pattern"))
        return (tensor_of(i1, tensor_shape(operand_types[0])),)

    def verify_(self) -> None:
        if not is_string_tensor(self.x.type):
            fail(self, f"x must be a string tensor, got {self.x.type}")
        verify_inferred(self, "x's shape")


@irdl_op_definition
class StringJoinOp(GEOp, NodeSyntax):
    """GE StringJoin: the strings of the inputs joined elementwise with `separator` between.

    GE's inputs share one shape or are scalars; here they broadcast as numpy does (ONNX
    StringConcat's two inputs do). GE's `N` (the input count) is implied by the operands.

        %y = graph.string_join %a, %b
            : (tensor<2x!graph.string>, tensor<1x!graph.string>) -> tensor<2x!graph.string>
    """

    name = "graph.string_join"
    GE_TYPE: ClassVar[str] = "StringJoin"

    x = var_operand_def(AnyTensor)
    y = result_def(AnyTensor)

    separator = prop_def(StringAttr, default_value=StringAttr(""))

    traits = traits_def(Pure())

    def __init__(
        self,
        inputs: Sequence[SSAValue | Operation],
        *,
        separator: str = "",
        result_type: Attribute | None = None,
    ) -> None:
        init_node(self, [list(inputs)], result_type, {"separator": StringAttr(separator)})

    @classmethod
    def infer_result_types(
        cls,
        operand_types: Sequence[Attribute],
        properties: Mapping[str, Attribute],
        values: OperandValues,
    ) -> tuple[Attribute, ...]:
        if not operand_types:
            raise ValueError("needs at least one input")
        shape: tuple[int, ...] | None = tensor_shape(operand_types[0])
        for t in operand_types[1:]:
            shape = broadcast_shape(shape, tensor_shape(t))
        return (tensor_of(STRING, shape),)

    def verify_(self) -> None:
        if not self.x:
            fail(self, "needs at least one input")
        for v in self.x:
            if not is_string_tensor(v.type):
                fail(self, f"inputs must be string tensors, got {v.type}")
        verify_inferred(self, "the broadcast shape")


@irdl_op_definition
class StringSplitPaddedOp(GEOp, NodeSyntax):
    """GE StringSplitPadded (no GE prototype: ONNX StringSplit, opset 20): each string of `x`
    split into substrings, `y` holding them padded with `""` to the longest count and
    `counts` the number of substrings of each element.

    GE's StringSplit and StringSplitV2 (`string_ops.h`) split too, but return a sparse
    tensor (`indices`, `values`, `shape`) of a 1-D input; ONNX's result is dense and padded
    and keeps x's shape, so this op is not GE's and carries its own type name rather than
    GE's StringSplit.

    With a `delimiter` every occurrence separates two substrings (`"a,,b"` gives `a`, `""`,
    `b`; `""` gives one empty substring); without one (ONNX's empty `delimiter`) the string
    splits on runs of whitespace, leading and trailing whitespace dropped (`"  "` gives
    none): Python's `str.split`, which onnx's reference runs, whitespace being Unicode's.
    `maxsplit` (absent: no limit) caps the splits from the left, the rest of the string is
    the last substring. `y` is x's shape plus the largest count, data-dependent (`?`), so
    the op partitions as unknown-shape (AI CPU); `counts` is i64 of x's shape.

        %y, %n = graph.string_split_padded %x delimiter "," maxsplit 1
            : (tensor<2x!graph.string>) -> (tensor<2x?x!graph.string>, tensor<2xi64>)
    """

    name = "graph.string_split_padded"
    GE_TYPE: ClassVar[str] = "StringSplitPadded"

    x = operand_def(AnyTensor)
    y = result_def(AnyTensor)
    counts = result_def(AnyTensor)

    delimiter = prop_def(StringAttr, default_value=StringAttr(""))
    maxsplit = opt_prop_def(IntegerAttr[I64])

    traits = traits_def(Pure())

    def __init__(
        self, x: SSAValue | Operation, *, delimiter: str = "", maxsplit: int | None = None
    ) -> None:
        props: dict[str, Attribute] = {"delimiter": StringAttr(delimiter)}
        if maxsplit is not None:
            props["maxsplit"] = i64_attr(maxsplit)
        types = build_result_types(type(self), [x], props)
        IRDLOperation.__init__(self, operands=[x], result_types=types, properties=props)

    @classmethod
    def infer_result_types(
        cls,
        operand_types: Sequence[Attribute],
        properties: Mapping[str, Attribute],
        values: OperandValues,
    ) -> tuple[Attribute, ...]:
        """`y` x's shape plus `?` (0 when x is empty), `counts` i64 of x's shape."""
        prop_str(cls, properties, "delimiter")
        if properties.get("maxsplit") is not None:
            maxsplit = prop_int(cls, properties, "maxsplit")
            if maxsplit < 0:
                raise ValueError(f"maxsplit must be >= 0 (absent: no limit), got {maxsplit}")
        x = tensor_shape(operand_types[0])
        if x is None:
            return (tensor_of(STRING, None), tensor_of(i64, None))
        last = 0 if all(d >= 0 for d in x) and element_count(x) == 0 else -1
        return (tensor_of(STRING, (*x, last)), tensor_of(i64, x))

    def verify_(self) -> None:
        if not is_string_tensor(self.x.type):
            fail(self, f"x must be a string tensor, got {self.x.type}")
        if not is_string_tensor(self.y.type):
            fail(self, f"y must be a string tensor, got {self.y.type}")
        if element_type(self.counts.type) != i64:
            fail(self, f"counts must be an i64 tensor, got {self.counts.type}")
        inferred = infer_or_fail(self)
        verify_inferred(self, "x's shape", inferred)
        # A static count claims the data (`?` is a wildcard elsewhere), as NonZero's does.
        y, want = tensor_shape(self.y.type), tensor_shape(inferred[0])
        if y and want and y[-1] >= 0 and want[-1] < 0:
            fail(self, "the number of substrings depends on the data: y's last dim must be ?")


@irdl_op_definition
class LabelEncoderOp(GEOp, NodeSyntax):
    """GE LabelEncoder (no GE prototype: ONNX `ai.onnx.ml` opsets 2-4): each element of `x`
    looked up in `keys`, giving the `values` entry at the key's position, or `default`.

    `keys` and `values` are 1-D constants of one length, `keys` of x's element type and
    `values` of y's (either may be strings, `#graph.strings`); a repeated key is allowed and
    its first entry wins (onnxruntime's rule, for string and numeric keys alike); `default` is
    one element of y's type. A NaN key matches NaN. `y` has x's shape.

        %y = graph.label_encoder %x keys #graph.strings<["a", "b"] : tensor<2x!graph.string>>
            values dense<[0, 1]> : tensor<2xi64> default dense<-1> : tensor<i64>
            : (tensor<5x!graph.string>) -> tensor<5xi64>
    """

    name = "graph.label_encoder"
    GE_TYPE: ClassVar[str] = "LabelEncoder"

    x = operand_def(AnyTensor)
    y = result_def(AnyTensor)

    keys = prop_def(DenseIntOrFPElementsAttr | StringsAttr)
    values = prop_def(DenseIntOrFPElementsAttr | StringsAttr)
    default = prop_def(DenseIntOrFPElementsAttr | StringsAttr)

    traits = traits_def(Pure())

    def __init__(
        self,
        x: SSAValue | Operation,
        keys: DenseIntOrFPElementsAttr | StringsAttr,
        values: DenseIntOrFPElementsAttr | StringsAttr,
        default: DenseIntOrFPElementsAttr | StringsAttr,
        *,
        result_type: Attribute | None = None,
    ) -> None:
        props: dict[str, Attribute] = {"keys": keys, "values": values, "default": default}
        init_node(self, [x], result_type, props)

    @classmethod
    def infer_result_types(
        cls,
        operand_types: Sequence[Attribute],
        properties: Mapping[str, Attribute],
        values: OperandValues,
    ) -> tuple[Attribute, ...]:
        """x's shape, of the element type of `values`."""
        types = {}
        for name in ("keys", "values", "default"):
            attr = prop(cls, properties, name)
            if not isinstance(attr, DenseIntOrFPElementsAttr | StringsAttr):
                raise ValueError(f"{name} must be a dense or #graph.strings constant")
            types[name] = attr.type
        shapes = {n: tuple(t.get_shape()) for n, t in types.items() if hasattr(t, "get_shape")}
        if len(shapes.get("keys", ())) != 1 or shapes.get("keys") != shapes.get("values"):
            raise ValueError(
                f"keys and values must be 1-D of one length, got {list(shapes.get('keys', ()))}"
                f" and {list(shapes.get('values', ()))}"
            )
        if math.prod(shapes.get("default", (2,))) != 1:
            raise ValueError("default must hold one element")
        elem = element_type(types["values"])
        if element_type(types["default"]) != elem:
            raise ValueError(
                f"default ({types['default']}) must have the element type of values ({elem})"
            )
        if element_type(types["keys"]) != element_type(operand_types[0]):
            raise ValueError(
                f"keys ({types['keys']}) must have x's element type "
                f"({element_type(operand_types[0])})"
            )
        return (tensor_of(elem, tensor_shape(operand_types[0])),)

    def verify_(self) -> None:
        verify_inferred(self, "x's shape")


__all__ = [
    "CASE_CHANGE_ACTIONS",
    "LabelEncoderOp",
    "StaticRegexFullMatchOp",
    "StringJoinOp",
    "StringNormalizerOp",
    "StringSplitPaddedOp",
    "compile_regex",
]

OPS = (
    StringNormalizerOp,
    StaticRegexFullMatchOp,
    StringJoinOp,
    StringSplitPaddedOp,
    LabelEncoderOp,
)
"""The ops of this module, in the order the dialect lists them."""
