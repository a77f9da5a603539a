"""How the Session compiles a graph: `ge-compile` (`CompilePipelinePass`, the one definition of
the stage list, shared with `ge-opt` and `ge-atc`) with the graph's GE options, run stage by
stage so that `Session.stages` has the IR after each."""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from gedialects import budget
from gedialects.errors import GraphError, OptionError
from gedialects.runtime.graphs import GraphState, first_line, print_module, root_inputs
from gedialects.runtime.session_options import (
    GETNEXT_NODE_TYPE,
    NODE_TYPE_OPTION,
    hybrid_mode,
    stream_count,
)

if TYPE_CHECKING:
    from xdsl.dialects.builtin import ModuleOp
    from xdsl.passes import ModulePass

    from gedialects.passes.pipelines import CompilePipelinePass

logger = logging.getLogger(__name__)

GEAR_OPTIONS = {
    "ge.dynamicBatchSize": "dynamic_batch_size",
    "ge.dynamicImageSize": "dynamic_image_size",
    "ge.dynamicDims": "dynamic_dims",
}
"""GE's gear options -> the `ge-compile` option of the same meaning."""


def compile_pipeline(options: Mapping[str, str], *, gears: bool = True) -> CompilePipelinePass:
    """`ge-compile` configured by the (checked) GE options; `gears=False` leaves the gear
    options out (a JIT slice, the dynamic graph of hybrid mode). Hybrid mode is not a stage:
    `compile_graph` compiles its two graphs apart (GE's UserHybridGraphManager). The
    Session's one choice of its own, `partition-static=false`:
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
    """Applies and verifies each stage (not again when it left the IR as last verified:
    `gedialects.fingerprint`); `printed` gets the IR after each stage that ran. A
    stage that fails is a GraphError with its first line (and GE's code when it leads)."""
    from xdsl.utils.exceptions import DiagnosticException

    from gedialects import make_context, progress
    from gedialects.fingerprint import fingerprint, mark_verified
    from gedialects.passes.pipelines import StageProgress, expand_pipelines, skips

    ctx = make_context()
    passes = expand_pipelines(stages)
    verified: list[object] | None = None  # the fingerprint of the IR last verified
    with progress.task("compiling", total=len(passes), unit="passes") as bar:
        log = StageProgress(bar)
        for p in passes:
            if skips(p, module):
                bar.advance()
                continue
            log(None, module, p)
            try:
                p.apply(ctx, module)
                now = fingerprint(module)  # a stage that changed nothing needs no verify
                if now != verified:
                    module.verify()
                    verified = now
                    mark_verified(module, now)  # ge-verify-graph need not verify it again
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
    table. In hybrid mode (`session_options.hybrid_mode`: GE's four conditions) the gear
    graph and the graph without gears compile concurrently on two workers, as GE's
    UserHybridGraphManager compiles them on a two-thread pool; the compiled model then keeps
    the fully dynamic model `@<root>_dynamic` (named by `_hybrid_dynamic_graph`), which the
    interpreter runs for input shapes of no gear. When `ge.compileHybridMode=1` asks for
    hybrid mode and the conditions do not hold, a note (logged as a warning) says why."""
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
    if graph.options.get(NODE_TYPE_OPTION) == GETNEXT_NODE_TYPE:
        from gedialects.passes.getnext import SinkInputsPass

        # GetNext sink: the inputs come from a GetNext, the gear from their shapes
        run_stages(module, [SinkInputsPass()], stages)
    hybrid, note = hybrid_mode(graph.options)
    if note is not None:
        logger.warning("%s", note)
    graph.notes = [note] if note is not None else []
    if hybrid and graph.gears is not None:
        pipeline = compile_pipeline(graph.options)
        compile_hybrid(module, pipeline, compile_pipeline(graph.options, gears=False), stages)
    else:
        compile_gears(module, compile_pipeline(graph.options), stages)
    entry = find_entry(module)
    graph.stages = stages
    graph.compiled, graph.level = module, "ascend"
    graph.signature = signature(entry)
    graph.info = GearInfo.find(entry) if isinstance(entry, GraphOp) else GearInfo.find_model(entry)


INSTANTIATED_STAGE = "gears instantiated"
"""`Session.stages` key of the model of every gear written from the probe gears' (the stages
before it show the probes' compile)."""


def compile_gears(
    module: ModuleOp, pipeline: CompilePipelinePass, stages: dict[str, str] | None
) -> None:
    """`pipeline` on `module` stage by stage; with many gears on probe gears first and every
    gear instantiated from them (`pipelines.compile_symbolically`, GE's
    SymbolizeMultiBatchSubGraph), each gear through every stage when the probes do not
    explain one (the probes' stages are then dropped). `stages` None: no IR kept."""
    from gedialects.passes.multibatch.symbolic import NotSymbolic
    from gedialects.passes.pipelines import compile_symbolically

    def probes(probe_module: ModuleOp, probe: CompilePipelinePass) -> None:
        try:
            run_stages(probe_module, [probe], stages)
        except (GraphError, OptionError) as e:  # reported by the compile of every gear
            raise NotSymbolic(f"the probes failed: {e}") from None

    before = None if stages is None else dict(stages)
    if pipeline.gears and pipeline.symbolic_gears:
        if compile_symbolically(module, pipeline, probes):
            module.verify()
            if stages is not None:
                stages[INSTANTIATED_STAGE] = print_module(module)
            return
        if stages is not None and before is not None:
            stages.clear()
            stages.update(before)
    run_stages(module, [pipeline], stages)


DYNAMIC_STAGE_SUFFIX = " (dynamic graph)"
"""`Session.stages` lists the dynamic graph's stages of hybrid mode under this suffix."""


def compile_hybrid(
    module: ModuleOp,
    gear_pipeline: CompilePipelinePass,
    dynamic_pipeline: CompilePipelinePass,
    stages: dict[str, str] | None,
) -> None:
    """Hybrid mode: `module` compiled by `gear_pipeline` (with its gears) and, concurrently,
    a copy of it by `dynamic_pipeline` (without gears) whose root is renamed
    `@<root>_dynamic`; the dynamic model joins `module` and the gear model names it
    (`_hybrid_dynamic_graph`). The Session and `ge-atc --hybrid` both compile this way. Both
    workers run to the end; a failure of either is raised once, the gear graph's first (with
    the dynamic graph's message added when it failed differently). `stages` (None: not
    kept) gets the IR after each stage, the dynamic graph's under `DYNAMIC_STAGE_SUFFIX`."""
    from concurrent.futures import ThreadPoolExecutor

    from xdsl.dialects.builtin import StringAttr, SymbolRefAttr
    from xdsl.rewriter import InsertPoint, Rewriter
    from xdsl.utils.exceptions import PassFailedException

    from gedialects.base import symbol_name
    from gedialects.graph import GraphOp
    from gedialects.interpreters.run import find_entry
    from gedialects.multibatch import HYBRID_GRAPH, HYBRID_SUFFIX
    from gedialects.passes.multibatch.expand import hybrid_dynamic_graph

    name, _, _ = root_inputs(module)
    dynamic = module.clone()
    root = find_entry(dynamic)
    try:
        config = gear_pipeline.expansion().config()
    except PassFailedException:
        config = None  # the gear worker reports the bad option
    if isinstance(root, GraphOp) and config is not None:
        # an input's fixed dim where the gears have -1 held for one shape only
        Rewriter.replace_op(root, hybrid_dynamic_graph(root, config))
    else:
        root.sym_name = StringAttr(name + HYBRID_SUFFIX)
    dynamic_stages: dict[str, str] | None = None if stages is None else {}
    jobs = ((module, gear_pipeline, stages), (dynamic, dynamic_pipeline, dynamic_stages))
    with ThreadPoolExecutor(max_workers=2, thread_name_prefix="ge-hybrid") as pool:
        # the gear graph as any gear graph (probes and instances with many gears)
        futures = [pool.submit(compile_gears, m, p, printed) for m, p, printed in jobs]
        errors = [f.exception() for f in futures]
    gear_error, dynamic_error = errors
    if gear_error is not None:
        if (
            dynamic_error is not None
            and isinstance(gear_error, GraphError | OptionError)
            and str(dynamic_error) != str(gear_error)
        ):
            raise type(gear_error)(
                f"{gear_error} (the dynamic graph of hybrid mode failed too: {dynamic_error})",
                gear_error.code,
            ) from None
        raise gear_error
    if dynamic_error is not None:
        if isinstance(dynamic_error, GraphError | OptionError):
            raise type(dynamic_error)(
                f"the dynamic graph of hybrid mode: {dynamic_error}", dynamic_error.code
            ) from None
        raise dynamic_error
    taken = {symbol_name(op) for op in module.ops} - {None}
    clash = [s for op in dynamic.ops if (s := symbol_name(op)) in taken]
    if clash:
        raise GraphError(
            f"hybrid mode: the dynamic graph's @{clash[0]} is also a symbol of the gear graph"
        )
    first = module.body.block.first_op
    for op in list(dynamic.ops):
        op.detach()
        if first is None:
            module.body.block.add_op(op)
        else:
            Rewriter.insert_op(op, InsertPoint.before(first))
    find_entry(module, name).attributes[HYBRID_GRAPH] = SymbolRefAttr(name + HYBRID_SUFFIX)
    module.verify()
    if stages is not None and dynamic_stages is not None:
        for stage, text in dynamic_stages.items():
            stages[stage + DYNAMIC_STAGE_SUFFIX] = text
