"""How the Session compiles a graph: `ge-compile` (`CompilePipelinePass`, the one definition of
the stage list, shared with `ge-opt` and `ge-atc`) with the graph's GE options, run stage by
stage so that `Session.stages` has the IR after each."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from gedialects import budget
from gedialects.errors import GraphError, OptionError
from gedialects.runtime.graphs import GraphState, first_line, print_module, root_inputs
from gedialects.runtime.session_options import stream_count

if TYPE_CHECKING:
    from xdsl.dialects.builtin import ModuleOp
    from xdsl.passes import ModulePass

    from gedialects.passes.pipelines import CompilePipelinePass

GEAR_OPTIONS = {
    "ge.dynamicBatchSize": "dynamic_batch_size",
    "ge.dynamicImageSize": "dynamic_image_size",
    "ge.dynamicDims": "dynamic_dims",
}
"""GE's gear options -> the `ge-compile` option of the same meaning."""


def compile_pipeline(options: Mapping[str, str], *, gears: bool = True) -> CompilePipelinePass:
    """`ge-compile` configured by the (checked) GE options; `gears=False` leaves the gear
    options out (a JIT slice). The Session's one choice of its own, `partition-static=false`:
    a static graph skips `ge-partition-dynamic-shape`, which would only mark it, so that
    `stages` lists only stages that do something (sink loops stay off: GE's
    `iterations_per_loop` is a training option the Session does not take)."""
    from gedialects.passes.partition.dynamic_shape import DEFAULT_STATIC_MODEL_OPS_LOWER_LIMIT
    from gedialects.passes.pipelines import CompilePipelinePass
    from gedialects.runtime.fusion_switch import read_fusion_switch

    fusion, fusions_off = True, ()
    if options.get("ge.fusionSwitchFile"):
        fusion, fusions_off = read_fusion_switch(options["ge.fusionSwitchFile"])
    excluded = options.get("ge.exec.exclude_engines")
    streams = options.get("ge.streamMaxParallelNum")
    limit = options.get("ge.exec.static_model_ops_lower_limit")
    gear_values = {field: options.get(name, "") for name, field in GEAR_OPTIONS.items() if gears}
    return CompilePipelinePass(
        input_shape=options.get("ge.inputShape", ""),
        hybrid=gears and any(gear_values.values()) and options.get("ge.compileHybridMode") == "1",
        device_memory=budget.max_memory(),
        max_streams=stream_count(streams) if streams else 8,
        multi_stream=options.get("ge.enableSingleStream") != "true",
        memory_reuse=options.get("ge.exec.disableReuseMemory", "0") != "1",
        static_model_ops_lower_limit=int(limit) if limit else DEFAULT_STATIC_MODEL_OPS_LOWER_LIMIT,
        partition_static=False,
        fusion=fusion,
        disable_fusion=fusions_off,
        exclude_engines=tuple(excluded.split("|")) if excluded else (),
        # the keys are the pass's str gear fields; a checker matches `**dict[str, str]`
        # against every parameter, not by key
        **gear_values,  # pyright: ignore[reportArgumentType]
    )


def stage_key(name: str, printed: Mapping[str, str]) -> str:
    """The key of a stage's IR: its pass name, `name (2)` for its second run and so on
    (`ge-compile` places engines twice, partitions and merges once per partition mode)."""
    if name not in printed:
        return name
    n = 2
    while f"{name} ({n})" in printed:
        n += 1
    return f"{name} ({n})"


def run_stages(
    module: ModuleOp, stages: Sequence[ModulePass], printed: dict[str, str] | None
) -> None:
    """Applies and verifies each stage; `printed` gets the IR after each stage that ran. A
    stage that fails is a GraphError with its first line (and GE's code when it leads)."""
    from xdsl.utils.exceptions import DiagnosticException

    from gedialects import make_context, progress
    from gedialects.passes.pipelines import StageProgress, expand_pipelines, skips

    ctx = make_context()
    passes = expand_pipelines(stages)
    with progress.task("compiling", total=len(passes), unit="passes") as bar:
        log = StageProgress(bar)
        for p in passes:
            if skips(p, module):
                bar.advance()
                continue
            log(None, module, p)
            try:
                p.apply(ctx, module)
                module.verify()
            except DiagnosticException as e:
                message = first_line(e)
                code = message.split(":", 2)[1].strip() if message.count(":") >= 2 else ""
                raise GraphError(
                    message, code if code[:1] == "E" and code[1:].isdigit() else None
                ) from None
            log(p, module, None)
            if printed is not None:
                printed[stage_key(p.name, printed)] = print_module(module)


def compile_graph(graph: GraphState) -> None:
    """Compiles `graph` ahead (not JIT mode): its gears checked against the graph's inputs,
    then `ge-compile` with its options; fills the compiled module, stages, signature and gear
    table. Hybrid mode is `ge-expand-multibatch{hybrid}`: the compiled model keeps the fully
    dynamic model, which the interpreter runs for input shapes of no gear."""
    from gedialects.gear_options import GearError, check_graph_inputs
    from gedialects.graph import GraphOp
    from gedialects.interpreters.gears import GearInfo
    from gedialects.interpreters.run import find_entry, signature

    module = graph.module.clone()
    stages: dict[str, str] = {"import": graph.stages["import"]}
    if graph.gears is not None:
        name, names, dims = root_inputs(module)
        try:
            check_graph_inputs(graph.gears, name, names, dims)
        except GearError as e:
            raise OptionError(e.one_line, e.code) from None
    run_stages(module, [compile_pipeline(graph.options)], stages)
    entry = find_entry(module)
    graph.stages = stages
    graph.compiled, graph.level = module, "ascend"
    graph.signature = signature(entry)
    graph.info = GearInfo.find(entry) if isinstance(entry, GraphOp) else GearInfo.find_model(entry)
