"""What `ge-opt` knows about its passes: `--list-passes`, and pipelines checked as users type them.

xDSL builds a pipeline with `PassPipeline.parse_spec`, whose errors speak Python
(`Provided arguments ["max_stream"] not found`, `Incompatible types: given ('abc',), expected
<class 'int'>`, `Unrecognized passes: [...]`). `build_pipeline` parses the same text with xDSL's
parser, checks every pass name and option first, and says what is wrong in the syntax of `-p`:
the option in kebab-case, the type it expects, its valid choices, and a "did you mean" (difflib)
for a misspelt pass, option or choice. Only then does it hand each spec to xDSL's `from_spec`.

A pass may declare `OPTION_CHOICES: ClassVar[Mapping[str, tuple[str, ...]]]` (field name ->
the values it takes, for a string or a list of strings) so that a wrong value is refused
before any pass runs, with the choices named.
"""

from __future__ import annotations

import argparse
import dataclasses
import difflib
import sys
import textwrap
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from types import NoneType, UnionType
from typing import Any, Union, get_args, get_origin, get_type_hints

from xdsl.passes import ModulePass
from xdsl.utils.arg_spec import ArgSpec, parse_pipeline
from xdsl.utils.hints import isa

PassFactories = Mapping[str, Callable[[], type[ModulePass]]]

STOCK_SUMMARIES: dict[str, str] = {
    "canonicalize": "Applies every canonicalization pattern of the loaded dialects (xDSL).",
    "cse": "Common subexpression elimination (xDSL).",
    "dce": "Removes operations whose results are unused and that have no effects (xDSL).",
}
"""One-line summaries of the stock xDSL passes whose classes carry no docstring."""


class PipelineError(ValueError):
    """A pass pipeline that names an unknown pass or option, or a value of the wrong type."""


@dataclass(frozen=True)
class PassOption:
    name: str
    """As users type it: kebab-case."""
    type_text: str
    default: str
    description: str
    choices: tuple[str, ...] = ()


@dataclass(frozen=True)
class PassInfo:
    name: str
    summary: str
    options: tuple[PassOption, ...]


def kebab(field_name: str) -> str:
    return field_name.replace("_", "-")


def type_text(hint: Any) -> str:
    """The type of an option in words users know: int, bool, string, list of int, ..."""
    origin = get_origin(hint)
    if origin in (Union, UnionType):
        args = [a for a in get_args(hint) if a is not NoneType]
        inner = " or ".join(type_text(a) for a in args)
        return f"{inner} (optional)" if NoneType in get_args(hint) else inner
    if origin is tuple:
        args = get_args(hint)
        item = type_text(args[0]) if args else "value"
        return f"list of {item}"
    names = {int: "int", float: "float", bool: "bool", str: "string"}
    return names.get(hint, getattr(hint, "__name__", str(hint)))


def default_text(field: dataclasses.Field[Any]) -> str:
    """An option's default as a pipeline spells it (`--list-passes` and docs/passes.md).

    Not xDSL's `PassOptionInfo.default_value`: it lower-cases strings (`aicoreengine`)."""
    if field.default is not dataclasses.MISSING:
        value = field.default
    elif field.default_factory is not dataclasses.MISSING:
        value = field.default_factory()
    else:
        return "(required)"
    return spelled(value)


def spelled(value: object) -> str:
    """A value as it is written in a pass pipeline: `true`, `8`, `"NCHW"`, `a,b`, `""`."""
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, str):
        return f'"{value}"'
    if isinstance(value, tuple):
        items: tuple[object, ...] = value
        return ",".join(spelled(v) for v in items) if items else "(none)"
    return "(none)" if value is None else str(value)


def summary(cls: type[ModulePass]) -> str:
    """The first sentence-paragraph of the pass docstring, on one line."""
    doc = cls.__dict__.get("__doc__") or ""
    first = doc.strip().split("\n\n")[0]
    text = " ".join(line.strip() for line in first.splitlines())
    return text or STOCK_SUMMARIES.get(cls.name, "")


def option_description(doc: str, option: str) -> str:
    """What the pass docstring says of `option`: the parenthesis after `` `option` ``."""
    text = " ".join(doc.split())
    start = _mention_end(text, option)
    if start is None:
        return ""
    depth = 1
    for i in range(start, len(text)):
        depth += {"(": 1, ")": -1}.get(text[i], 0)
        if depth == 0:
            return text[start:i]
    return ""


def _mention_end(text: str, option: str) -> int | None:
    """Where the parenthesis after the first `` `option` `` or `` `option=...` `` begins (string
    search, not a pattern built from the name: every regex of the package is audited)."""
    head = "`" + option
    at = text.find(head)
    while at >= 0:
        rest = at + len(head)
        close = text.find("`", rest)
        named = close >= 0 and (close == rest or text[rest] == "=")
        if named and text.startswith(" (", close + 1):
            return close + 3
        at = text.find(head, at + 1)
    return None


def choices_of(cls: type[ModulePass]) -> Mapping[str, tuple[str, ...]]:
    return getattr(cls, "OPTION_CHOICES", {})


def pass_info(cls: type[ModulePass]) -> PassInfo:
    """The pass's name, summary and options (from its dataclass fields and docstring)."""
    hints = get_type_hints(cls)
    doc = cls.__dict__.get("__doc__") or ""
    choices = choices_of(cls)
    options = tuple(
        PassOption(
            kebab(f.name),
            type_text(hints[f.name]),
            default_text(f),
            option_description(doc, kebab(f.name)),
            tuple(choices.get(f.name, ())),
        )
        for f in dataclasses.fields(cls)
        if f.init and f.name != "name"
    )
    return PassInfo(cls.name, summary(cls), options)


def list_passes(passes: PassFactories, width: int = 100) -> str:
    """The text of `ge-opt --list-passes`: every pass, its summary and its options."""
    out = [
        "Passes (run with -p 'NAME' or -p 'NAME{option=value option=value}', "
        "several joined by commas):",
        "",
    ]
    wrap = textwrap.TextWrapper(width=width, break_on_hyphens=False)
    for name in sorted(passes):
        info = pass_info(passes[name]())
        out.append(f"  {name}")
        wrap.initial_indent = wrap.subsequent_indent = "      "
        out += wrap.wrap(info.summary) if info.summary else []
        for option in info.options:
            head = f"      {option.name}: {option.type_text} = {option.default}"
            if option.choices:
                head += f" (one of: {', '.join(option.choices)})"
            out.append(head)
            if option.description:
                wrap.initial_indent = wrap.subsequent_indent = "          "
                out += wrap.wrap(option.description)
    return "\n".join(out) + "\n"


def did_you_mean(word: str, candidates: Sequence[str]) -> str:
    """`; did you mean 'x'?` for the closest candidate, or nothing. The `ge-` every pass name
    starts with is left out of the comparison (it made `ge-no-such-pass` "close" to
    `ge-infer-shapes`)."""

    def bare(name: str) -> str:
        return name.removeprefix("ge-")

    by_bare = {bare(c): c for c in candidates}
    close = difflib.get_close_matches(bare(word), list(by_bare), n=1, cutoff=0.6)
    return f"; did you mean '{by_bare[close[0]]}'?" if close else ""


def _value_text(values: tuple[object, ...]) -> str:
    return ",".join(spelled(v) if not isinstance(v, str) else v for v in values)


def _fits(values: tuple[object, ...], hint: Any) -> bool:
    """xDSL's own test (`from_spec` takes one value or the tuple), except that `true` is no
    number (Python's bool is an int, so xDSL would take `max-streams=true` as 1)."""
    numeric = hint in (int, float) or (
        get_origin(hint) is tuple and get_args(hint)[:1] in ((int,), (float,))
    )
    if numeric and any(isinstance(v, bool) for v in values):
        return False
    return (len(values) == 1 and isa(values[0], hint)) or isa(values, hint)


def check_spec(cls: type[ModulePass], spec: ArgSpec) -> None:
    """Every option of `spec` exists on the pass, has a value of its type and a valid choice."""
    fields = {f.name: f for f in dataclasses.fields(cls) if f.init and f.name != "name"}
    names = [kebab(n) for n in fields]
    hints = get_type_hints(cls)
    choices = choices_of(cls)
    for key, values in spec.parameters.items():
        field_name = key.replace("-", "_")
        option = kebab(key)
        if field_name not in fields:
            if not names:
                raise PipelineError(f"{cls.name} takes no options, got '{option}'")
            raise PipelineError(
                f"{cls.name} has no option '{option}'{did_you_mean(option, names)} "
                f"(its options: {', '.join(names)}; see ge-opt --list-passes)"
            )
        hint = hints[field_name]
        where = f"{cls.name}{{{option}={_value_text(values)}}}" if values else f"{cls.name}"
        if not _fits(values, hint):
            expected = type_text(hint)
            if not values:
                raise PipelineError(f"{where}: option '{option}' needs a value ({expected})")
            hint_text = ""
            if "string" in expected and all(isinstance(v, int | float) for v in values):
                hint_text = f' (quote it: {option}="{_value_text(values)}")'
            if expected == "bool":
                expected = "bool (true or false)"
            article = "an" if expected[0] in "aeiou" else "a"
            raise PipelineError(
                f"{where}: option '{option}' expects {article} {expected}, got "
                f"'{_value_text(values)}'{hint_text}"
            )
        valid = choices.get(field_name, ())
        for value in values if valid else ():
            if isinstance(value, str) and value not in valid:
                raise PipelineError(
                    f"{where}: option '{option}' takes one of {', '.join(valid)}; got "
                    f"'{value}'{did_you_mean(value, valid)}"
                )
    for field_name, field in fields.items():
        has_default = (
            field.default is not dataclasses.MISSING
            or field.default_factory is not dataclasses.MISSING
        )
        if not has_default and kebab(field_name) not in {kebab(k) for k in spec.parameters}:
            hint = type_text(hints[field_name])
            if "(optional)" not in hint:
                raise PipelineError(f"{cls.name} needs option '{kebab(field_name)}' ({hint})")


def build_pipeline(passes: PassFactories, text: str) -> tuple[ModulePass, ...]:
    """The passes of a `-p` pipeline, each name and option checked (PipelineError: one line).

    Syntax errors stay xDSL's `ArgSpecParseError` (the caller keeps its reason line)."""
    specs = list(parse_pipeline(text))
    for spec in specs:
        if spec.name not in passes:
            raise PipelineError(
                f"unknown pass '{spec.name}'{did_you_mean(spec.name, sorted(passes))} "
                "(ge-opt --list-passes lists every pass)"
            )
    built: list[ModulePass] = []
    for spec in specs:
        cls = passes[spec.name]()
        check_spec(cls, spec)
        built.append(cls.from_spec(spec))
    return tuple(built)


PASSES_HELP = (
    "pass pipeline, e.g. 'ge-compile' or 'ge-infer-shapes,ge-assign-streams{{max-streams=2}}'; "
    "`ge-opt --list-passes` describes every pass and its options. Available passes are: {names}"
)


class ListPassesAction(argparse.Action):
    """`--list-passes`: prints the catalog and exits 0, before any input is read."""

    def __init__(self, *args: Any, passes: PassFactories, **kwargs: Any) -> None:
        super().__init__(*args, nargs=0, **kwargs)
        self.passes = passes

    def __call__(
        self,
        parser: argparse.ArgumentParser,
        namespace: argparse.Namespace,
        values: object,
        option_string: str | None = None,
    ) -> None:
        sys.stdout.write(list_passes(self.passes))
        sys.stdout.flush()
        parser.exit()


@contextmanager
def overriding_help(parser: argparse.ArgumentParser, helps: Mapping[str, str]) -> Iterator[None]:
    """Within the block, arguments added under one of `helps`' option strings get that help
    (xDSL's `register_all_arguments` writes its own; argparse has no public way to change an
    action's help afterwards)."""
    add = parser.add_argument

    def add_argument(*names: Any, **kwargs: Any) -> argparse.Action:
        for name in names:
            if name in helps:
                kwargs["help"] = helps[name]
        return add(*names, **kwargs)

    parser.add_argument = add_argument
    try:
        yield
    finally:
        del parser.add_argument  # the class's method again


def add_arguments(parser: argparse.ArgumentParser, passes: PassFactories) -> None:
    parser.add_argument(
        "--list-passes",
        action=ListPassesAction,
        passes=passes,
        help="list every pass with its summary and options (name, type, default) and exit",
    )
