"""The Session's options: GE's option names (`ge_api_types.h`), each with its value check, and
what they configure (the memory budget, the gears, JIT mode)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from contextlib import AbstractContextManager, nullcontext
from typing import TYPE_CHECKING

from gedialects import budget
from gedialects.errors import OptionError

if TYPE_CHECKING:
    from gedialects.gear_options import GearConfig

INVALID_PARAM = "E10001"

NODE_TYPE_OPTION = "ge.dynamicNodeType"
GETNEXT_NODE_TYPE = "0"
"""GE's kDynamicDimsTypeIsGetNext: the gear dims come from a GetNext's shapes (GetNext sink)."""
DATA_NODE_TYPE = "1"
"""GE's kDynamicDimsTypeIsData: the inputs are Data (placeholder) nodes; the host passes the
gear as the `ascend_mbatch_shape_data` input."""
HYBRID_OPTION = "ge.compileHybridMode"
"""GE's "Value %s for parameter %s is invalid. Reason: %s"."""


def _text(name: str, value: str) -> str:
    """text, checked with the other gear options when the graph is added"""
    return value


def _input_shape(name: str, value: str) -> str:
    """`name:d0,d1,...;...` in ASCII digits, checked with the gear options when the graph is
    added"""
    from gedialects.passes.infer_shapes import parse_input_shape

    try:
        parse_input_shape(value)
    except ValueError as e:
        raise OptionError(
            f"Value {value} for parameter {name} is invalid. Reason: {e}.", INVALID_PARAM
        ) from None
    return value


def _flag(name: str, value: str) -> str:
    """`0` or `1`"""
    if value not in ("0", "1"):
        raise OptionError(
            f"Value {value} for parameter {name} is invalid. Reason: it must be 0 or 1.",
            INVALID_PARAM,
        )
    return value


def _node_type(name: str, value: str) -> str:
    """`0` (GetNext) or `1` (Data / placeholder)"""
    if value not in (GETNEXT_NODE_TYPE, DATA_NODE_TYPE):
        raise OptionError(
            f"Value {value} for parameter {name} is invalid. Reason: it must be 0 (GetNext) or "
            "1 (Data).",
            INVALID_PARAM,
        )
    return value


def _bool_word(name: str, value: str) -> str:
    """`true` or `false`"""
    if value not in ("true", "false"):
        raise OptionError(
            f"Value {value} for parameter {name} is invalid. Reason: it must be true or false.",
            INVALID_PARAM,
        )
    return value


def _lower_limit(name: str, value: str) -> str:
    """an integer >= -1"""
    from gedialects.base import INT64_MAX, ascii_int

    number = ascii_int(value)
    if number is None or not -1 <= number <= INT64_MAX:
        raise OptionError(
            f"Value {value} for parameter {name} is invalid. Reason: it must be an integer "
            "in [-1, INT64_MAX].",
            INVALID_PARAM,
        )
    return value


def _memory_size(name: str, value: str) -> str:
    """a byte count with an optional K/M/G/T suffix (`512M`, `8G`)"""
    try:
        budget.parse_size(value, name)
    except budget.MemorySizeError:
        raise OptionError(
            f"Value {value} for parameter {name} is invalid. Reason: it must be a positive byte "
            "count with an optional K/M/G/T suffix (e.g. 512M, 8G).",
            INVALID_PARAM,
        ) from None
    return value


def _positive_int(name: str, value: str) -> str:
    """a positive integer"""
    if not (value.isascii() and value.isdigit()) or int(value) < 1:
        raise OptionError(
            f"Value {value} for parameter {name} is invalid. Reason: it must be a positive "
            "integer.",
            INVALID_PARAM,
        )
    return value


def _stream_limit(name: str, value: str) -> str:
    """`ENGINE:N[,ENGINE:N...]`, N >= 1"""
    stream_count(value)
    return value


def stream_count(value: str) -> int:
    """`ge.streamMaxParallelNum` ("ENGINE:N,ENGINE:N", or a bare N) -> the stream cap: the
    sum of the per-engine counts (gedialects has one cap for all engines)."""
    from gedialects.base import INT32_MAX, ascii_int

    total = 0
    for item in value.split(","):
        _, _, text = item.rpartition(":")
        count = ascii_int(text.strip())
        if count is None or not 1 <= count <= INT32_MAX:
            raise OptionError(
                f"Value {value} for parameter ge.streamMaxParallelNum is invalid. Reason: "
                "expected ENGINE:N[,ENGINE:N...] with N >= 1 (e.g. AIcoreEngine:4).",
                INVALID_PARAM,
            )
        total += count
    return total


MEMORY_OPTION = "ge.maxMemory"
"""The memory budget of the graph's import, compilation and runs (`gedialects.budget`); GE's
nearest is the device memory a model may take at load."""


def _fusion_switch_file(name: str, value: str) -> str:
    """A readable GE fusion switch JSON naming only `ge-fuse` kinds (`runtime.fusion_switch`)."""
    from gedialects.runtime.fusion_switch import FusionSwitchError, read_fusion_switch

    try:
        read_fusion_switch(value)
    except FusionSwitchError as e:
        raise OptionError(
            f"Value {value} for parameter {name} is invalid. Reason: {e}.", INVALID_PARAM
        ) from None
    return value


def _engine_list(name: str, value: str) -> str:
    """Engine names separated by `|`, each one placement knows."""
    from gedialects.target.engines import ENGINE_BY_NAME

    for engine in value.split("|"):
        if engine not in ENGINE_BY_NAME:
            raise OptionError(
                f"Value {value} for parameter {name} is invalid. Reason: unknown engine "
                f"'{engine}' (known: {', '.join(ENGINE_BY_NAME)}).",
                INVALID_PARAM,
            )
    return value


OPTIONS: dict[str, Callable[[str, str], str]] = {
    "ge.inputShape": _input_shape,
    "ge.dynamicBatchSize": _text,
    "ge.dynamicImageSize": _text,
    "ge.dynamicDims": _text,
    NODE_TYPE_OPTION: _node_type,
    HYBRID_OPTION: _flag,
    "ge.exec.static_model_ops_lower_limit": _lower_limit,
    "ge.exec.disableReuseMemory": _flag,
    "ge.exec.exclude_engines": _engine_list,
    "ge.fusionSwitchFile": _fusion_switch_file,
    "ge.streamMaxParallelNum": _stream_limit,
    "ge.enableSingleStream": _bool_word,
    "ge.jit": _flag,
    MEMORY_OPTION: _memory_size,
    "ge.maxSteps": _positive_int,
}
"""GE option name -> its value check. Gear options are checked together by `gears.parse_options`
when the graph is added."""

JIT_OPTION = "ge.jit"
"""JIT mode. GE has no session or graph option for it: its JIT executor is switched on for the
whole process by the environment, `AUTOFUSE_FLAGS="--enable_autofuse=true
--experimental_enable_jit_executor_v2=true"` (`EnableSliceSchedule`); here it is a session or
graph option so that one graph can use it."""

OPTION_HELP: dict[str, str] = {
    "ge.inputShape": "atc's `--input_shape`: pins `?` input dims (`x:1,3,16,16;y:2,-1`); with a "
    "gear option, marks the dims the gears fill (-1)",
    "ge.dynamicBatchSize": "gears over the batch dim (`1,4,8`): one static graph per batch size",
    "ge.dynamicImageSize": "gears over H and W (`224,224;448,448`)",
    "ge.dynamicDims": "gears over any `-1` dims of `ge.inputShape` (`1,16;4,32`)",
    NODE_TYPE_OPTION: "what feeds the gear inputs: `1` Data (placeholder) nodes, the host passes "
    "the gear; `0` a GetNext (GetNext sink): the root's inputs come from a queue of input sets "
    "and `GetDynamicDims` reads the gear off their shapes on the device",
    HYBRID_OPTION: "`1`: hybrid mode, when `ge.inputShape` and `ge.dynamicDims` are set and "
    "`ge.dynamicNodeType` is `1` (GE's four conditions; otherwise a note says which is "
    "missing): the gear graph and the graph without gears compile concurrently, and input "
    "shapes of no gear run the latter instead of raising E13025",
    "ge.exec.static_model_ops_lower_limit": "known-shape partitions smaller than this many ops "
    "merge into unknown ones (`ge-partition-dynamic-shape`; -1: never merge)",
    "ge.exec.disableReuseMemory": "`1`: every value gets its own arena block (`ge-plan-memory` "
    "without reuse)",
    "ge.exec.exclude_engines": "engines placement never chooses, `A|B` (GE's EXCLUDE_ENGINES; "
    "engine names as `ge-place-engines` knows them, e.g. `AIcoreEngine|VectorEngine`)",
    "ge.fusionSwitchFile": "GE's fusion switch JSON: `GraphFusion` entries `ALL` or a "
    "`ge-fuse` kind, `on`/`off`, switch graph fusions (AI Core's original-graph hook)",
    "ge.streamMaxParallelNum": "stream cap, `ENGINE:N[,ENGINE:N]` (the counts are summed)",
    "ge.enableSingleStream": "`true`: every task on stream 0 (no events)",
    JIT_OPTION: "`1`: JIT mode: compile at `run_graph`, slice by slice with the real shapes, "
    "cached per input signature (GE's JIT executor; not with gears or hybrid mode)",
    MEMORY_OPTION: "memory budget (`512M`, `8G`; default `GE_MAX_MEMORY`, else half of physical "
    "memory): files read, declared shapes, folded constants, the arena (as `device-memory`) and "
    "run-time tensors larger than this are refused with a one-line error before allocation",
    "ge.maxSteps": "most tasks one model run executes (not a GE option; default: 16 x the "
    "model's tasks x its `iterations_per_loop`, which stops a label loop that never exits)",
}
"""What each option does (the generated reference page shows it)."""


def max_steps(options: Mapping[str, str]) -> int | None:
    """`ge.maxSteps` (checked by `_positive_int`), None for the model's step budget."""
    value = options.get("ge.maxSteps")
    return int(value) if value else None


def check_options(options: Mapping[str, str] | None, where: str) -> dict[str, str]:
    """Validated copy of `options`; OptionError for an unknown name or a bad value."""
    if options is None:
        return {}
    if not isinstance(options, Mapping):
        raise OptionError(
            f"{where} options must be a mapping of option names to strings (a dict), not "
            f"{type(options).__name__}",
            INVALID_PARAM,
        )
    checked: dict[str, str] = {}
    for name, value in options.items():
        if not isinstance(name, str):
            raise OptionError(
                f"{where} option names are strings, got {name!r} ({type(name).__name__})",
                INVALID_PARAM,
            )
        if name not in OPTIONS:
            known = ", ".join(OPTIONS)
            raise OptionError(f"unknown {where} option '{name}' (known: {known})")
        if not isinstance(value, str):
            raise OptionError(
                f"Value {value!r} for parameter {name} is invalid. Reason: option values are "
                "strings, as in GE.",
                INVALID_PARAM,
            )
        checked[name] = OPTIONS[name](name, value)
    return checked


def memory_limit(options: Mapping[str, str]) -> AbstractContextManager[None]:
    """The budget of `ge.maxMemory` (checked already) around one Session call."""
    value = options.get(MEMORY_OPTION)
    if not value:
        return nullcontext()  # the process's limit (set_max_memory, GE_MAX_MEMORY, default)
    return budget.max_memory_set(budget.parse_size(value, MEMORY_OPTION))


def gear_config(options: Mapping[str, str]) -> GearConfig | None:
    """The gears the options configure, or None without a gear option."""
    from gedialects.gear_options import GearError, parse_options

    keys = ("ge.dynamicBatchSize", "ge.dynamicImageSize", "ge.dynamicDims")
    if not any(options.get(k) for k in keys):
        return None
    try:
        return parse_options(
            input_shape=options.get("ge.inputShape", ""),
            dynamic_batch_size=options.get("ge.dynamicBatchSize", ""),
            dynamic_image_size=options.get("ge.dynamicImageSize", ""),
            dynamic_dims=options.get("ge.dynamicDims", ""),
        )
    except GearError as e:
        raise OptionError(e.one_line, e.code) from None


def hybrid_mode(options: Mapping[str, str]) -> tuple[bool, str | None]:
    """GE's UserHybridGraphManager::IsHybridMode: hybrid mode exactly when `ge.inputShape` and
    `ge.dynamicDims` are non-empty, `ge.dynamicNodeType` is `1` and `ge.compileHybridMode` is
    `1`. Returns whether it holds and, when `ge.compileHybridMode=1` asked for it in vain,
    a note naming the conditions that fail."""
    if options.get(HYBRID_OPTION) != "1":
        return False, None
    missing: list[str] = []
    if not options.get("ge.inputShape"):
        missing.append("ge.inputShape is empty")
    if not options.get("ge.dynamicDims"):
        others = [k for k in ("ge.dynamicBatchSize", "ge.dynamicImageSize") if options.get(k)]
        given = f" ({others[0]} is given; hybrid mode takes only ge.dynamicDims)" if others else ""
        missing.append(f"ge.dynamicDims is empty{given}")
    node_type = options.get(NODE_TYPE_OPTION)
    if node_type != DATA_NODE_TYPE:
        missing.append(
            f"{NODE_TYPE_OPTION} is {'unset' if node_type is None else repr(node_type)}, not '1'"
        )
    if not missing:
        return True, None
    return False, (
        f"note: {HYBRID_OPTION}=1 is ignored, no hybrid mode: GE's four conditions "
        f"(ge.inputShape, ge.dynamicDims, {NODE_TYPE_OPTION}=1, {HYBRID_OPTION}=1) do not "
        f"hold: {'; '.join(missing)}"
    )


def check_jit_options(options: Mapping[str, str]) -> None:
    """GE refuses its JIT executor with hybrid mode (E10003); gears need static branches, which
    JIT mode does not build, so they are refused the same way."""
    for name in ("ge.dynamicBatchSize", "ge.dynamicImageSize", "ge.dynamicDims"):
        if options.get(name):
            raise OptionError(
                f"Value 1 for parameter {JIT_OPTION} is invalid. Reason: JIT mode and gears "
                f"({name}) cannot be enabled at the same time.",
                "E10003",
            )
    if options.get("ge.compileHybridMode") == "1":
        raise OptionError(
            f"Value 1 for parameter {JIT_OPTION} is invalid. Reason: JIT mode and "
            "ge.compileHybridMode cannot be enabled at the same time.",
            "E10003",
        )
