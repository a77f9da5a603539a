"""Memory reuse and stream assignment on models and generated branchy graphs.

For each model (the shipped example, the exported ONNX models with static shapes, generated
branchy graphs), in one run: the feature arena of `ge-plan-memory` over its lower bound (the
most bytes live at once; goal <= 1.05 geomean), the same for a TFLite-style greedy-by-size
baseline (program-order intervals, no in-place, no per-gear overlay) and for GE-style size
classes, the no-reuse size over the arena, and after `ge-assign-streams` + `ge-plan-memory`
(the `ge-compile` order) the simulated makespan over two critical paths: cp with every event
free, cpx with a record and a wait on each edge between engines, which every assignment pays
(goal <= 1.10 on cpx), the streams used and the events before and after pruning. Every
compiled model is also run and compared with the graph level.

    python bench/bench_memory_streams.py --graphs 12 --seed 0
    python bench/bench_memory_streams.py --scale 100000     # planning time on a big graph
"""

from __future__ import annotations

import argparse
import math
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.parser import Parser
from xdsl.passes import PassPipeline

from gedialects import make_context
from gedialects.ascend import ModelOp
from gedialects.frontend.onnx import import_model
from gedialects.interpreters.ascend import execute_model
from gedialects.interpreters.run import find_entry, random_inputs, run, signature
from gedialects.passes.analysis.liveness import Tensor, conflicts, lower_bound, merge_blocks
from gedialects.passes.analysis.memory_plan import GE_ALIGNMENT, align, greedy_by_size
from gedialects.passes.analysis.task_graph import TaskGraph
from gedialects.passes.assign_streams import assign_model
from gedialects.passes.convert_graph_to_ascend import ConvertGraphToAscendPass
from gedialects.passes.pipelines import CompilePipelinePass
from gedialects.passes.plan_memory import _classify, plan_model

ROOT = Path(__file__).resolve().parent.parent
MODELS = ROOT / "tests" / "models"
ONNX_MODELS = ("cnn", "mlp", "mobilenet_block", "transformer")
"""The exported models with static shapes (the transformer pinned to its inputs)."""
BATCH = 16
WIDTHS = (8, 16, 32, 64)
UNARY = ("relu", "tanh", "sigmoid")


def branchy_graph(seed: int, blocks: int = 6, max_branches: int = 4, max_depth: int = 4,
                  case: bool = True) -> str:  # fmt: skip
    """Textual IR of a random fork-join network: per block, 1..max_branches chains of matmul
    projections (widths 8..64) and elementwise ops, some chains pinned to the vector engine,
    joined by adds with a skip connection; optionally a 3-gear case in the middle."""
    rng = np.random.default_rng(seed)
    width = int(rng.choice(WIDTHS))
    lines: list[str] = []
    extra: list[str] = []
    count = 0

    def t(w: int) -> str:
        return f"tensor<{BATCH}x{w}xf32>"

    def fresh(prefix: str) -> str:
        nonlocal count
        count += 1
        return f"{prefix}{count}"

    def weight(rows: int, cols: int, body: list[str]) -> str:
        name = fresh("w")
        values = (rng.standard_normal((rows, cols)) / math.sqrt(rows)).astype(np.float32)
        body.append(f"  %{name} = graph.const dense<{_nested(values)}> : tensor<{rows}x{cols}xf32>")
        return name

    def op(
        kind: str, args: list[str], types: list[str], result: str, body: list[str], engine: str = ""
    ) -> str:
        name = fresh("v")
        attrs = f'node_name = "{name}"'
        if engine:
            attrs += f', _specified_engine_name = "{engine}"'
        operands = ", ".join(f"%{a}" for a in args)
        body.append(
            f"  %{name} = graph.{kind} {operands} {{{attrs}}} : ({', '.join(types)}) -> {result}"
        )
        return name

    def chain(h: str, w: int, depth: int, body: list[str]) -> str:
        """A branch; a third of them run on the vector engine, as engine placement clusters."""
        engine = "VectorEngine" if rng.random() < 0.3 else ""
        inner = int(rng.choice(WIDTHS))
        h = op("matmul", [h, weight(w, inner, body)], [t(w), f"tensor<{w}x{inner}xf32>"],
               t(inner), body, engine)  # fmt: skip
        for _ in range(depth - 1):
            h = op(str(rng.choice(UNARY)), [h], [t(inner)], t(inner), body, engine)
        return op("matmul", [h, weight(inner, w, body)], [t(inner), f"tensor<{inner}x{w}xf32>"],
                  t(w), body, engine)  # fmt: skip

    def block(h: str, body: list[str]) -> str:
        outs = [
            chain(h, width, int(rng.integers(1, max_depth + 1)), body)
            for _ in range(int(rng.integers(1, max_branches + 1)))
        ]
        acc = h
        for o in outs:
            acc = op("add", [acc, o], [t(width), t(width)], t(width), body)
        return op("tanh", [acc], [t(width)], t(width), body)

    h = "x"
    for b in range(blocks):
        h = block(h, lines)
        if case and b == blocks // 2:
            gears = []
            for g in range(3):
                body: list[str] = []
                name = f"gear{seed}_{g}"
                out = block("a", body)
                for _ in range(g):
                    out = block(out, body)
                extra.append(
                    f"graph.graph @{name}(%a: {t(width)}) -> {t(width)} {{\n"
                    + "\n".join(body)
                    + f"\n  graph.net_output %{out} : {t(width)}\n}}"
                )
                gears.append(f"@{name}")
            r = fresh("v")
            lines.append(
                f"  %{r} = multibatch.case %i, %{h} branches [{', '.join(gears)}] : "
                f"(tensor<i32>, {t(width)}) -> {t(width)}"
            )
            h = r
    head = (
        f"graph.graph @branchy{seed}(%i: tensor<i32>, %x: {t(width)}) -> "
        f'({t(width)} {{node_name = "y"}}) {{'
    )
    main = head + "\n" + "\n".join(lines) + f"\n  graph.net_output %{h} : {t(width)}\n}}"
    return "\n".join([main, *extra]) + "\n"


def _nested(values: np.ndarray) -> str:
    rows = ", ".join("[" + ", ".join(f"{v:.4f}" for v in row) + "]" for row in values)
    return f"[{rows}]"


def parse(ctx: Context, text: str) -> ModuleOp:
    return Parser(ctx, text).parse_module()


def lowered(ctx: Context, text: str) -> tuple[ModuleOp, ModelOp]:
    module = parse(ctx, text)
    return module, to_model(ctx, module)


def tflite_baseline(model: ModelOp) -> tuple[int, int]:
    """TFLite's ArenaPlanner on the same tensors: greedy by size over program-order
    intervals, no in-place, no overlay. Returns (arena, lower bound) of the feature region."""
    graph = TaskGraph.of(model)
    info = _classify(model, graph)
    tensors: list[Tensor] = sorted(info.tensors.values(), key=lambda t: t.positions[0])
    blocks = merge_blocks(tensors, [], graph)
    sizes = [align(max(b.nbytes, 1), GE_ALIGNMENT) for b in blocks]
    found = conflicts(graph, blocks, overlay=False)
    _, arena = greedy_by_size(sizes, [b.first for b in blocks], found.neighbours)
    return arena, lower_bound(sizes, found.live)


@dataclass
class Row:
    name: str
    tasks: int
    ours: float
    tflite: float
    tflite_vs_ours: float
    ge: float
    no_reuse: float
    makespan: float
    crossing: float
    streams: int
    events_before: int
    events_after: int
    ms: float


def to_model(ctx: Context, module: ModuleOp) -> ModelOp:
    ConvertGraphToAscendPass().apply(ctx, module)
    return next(op for op in module.walk() if isinstance(op, ModelOp))


def onnx_model(ctx: Context, name: str) -> tuple[Callable[[], ModuleOp], dict[str, np.ndarray]]:
    """An exported model of tests/models, through ge-compile's graph passes (shapes pinned to
    its checked-in inputs, as atc's --input_shape), ready for task generation."""
    with np.load(MODELS / f"{name}.inputs.npz") as data:
        inputs = {k: data[k] for k in data.files}
    shape = ";".join(f"{k}:{','.join(map(str, v.shape))}" for k, v in inputs.items())
    passes = CompilePipelinePass(input_shape=shape).passes()
    lower = next(i for i, p in enumerate(passes) if isinstance(p, ConvertGraphToAscendPass))
    graph = passes[:lower]
    imported = import_model(MODELS / f"{name}.onnx")

    def make() -> ModuleOp:
        module = imported.clone()
        PassPipeline(tuple(graph)).apply(ctx, module)
        return module

    return make, inputs


def branchy(ctx: Context, text: str) -> tuple[Callable[[], ModuleOp], dict[str, np.ndarray]]:
    module = parse(ctx, text)
    inputs = random_inputs(signature(find_entry(module)), 0)
    if "i" in inputs:
        inputs["i"] = np.array(1, np.int32)
    return lambda: parse(ctx, text), inputs


def measure(
    ctx: Context,
    name: str,
    make: Callable[[], ModuleOp],
    inputs: dict[str, np.ndarray],
    check: bool,
) -> Row:
    reference = run(make(), inputs) if check else None
    model = to_model(ctx, make())
    tasks = len(model.tasks())
    base_arena, base_bound = tflite_baseline(model)
    ge_model = to_model(ctx, make())
    ge = plan_model(ge_model, strategy="ge-lifetime")
    start = time.perf_counter()
    ours = plan_model(model)
    single_ms = (time.perf_counter() - start) * 1e3

    cmodel = to_model(ctx, make())
    streams = assign_model(cmodel)
    plan_model(cmodel)
    timing = execute_model(cmodel, inputs, timing=True, check_uninitialized=check)
    timeline = timing.stats.timeline
    assert timeline is not None
    if reference is not None:
        for seed in (None, 1, 2):
            out = execute_model(cmodel, inputs, schedule_seed=seed).outputs
            for key, value in reference.items():
                np.testing.assert_allclose(
                    out[key], value, rtol=1e-6, atol=1e-7, err_msg=f"{name} seed {seed}"
                )
    return Row(
        name=name,
        tasks=tasks,
        ours=ours.features / ours.lower_bound if ours.lower_bound else 1.0,
        tflite=base_arena / base_bound if base_bound else 1.0,
        tflite_vs_ours=base_arena / ours.features if ours.features else 1.0,
        ge=ge.features / ge.lower_bound if ge.lower_bound else 1.0,
        no_reuse=ours.no_reuse / ours.features if ours.features else 1.0,
        makespan=timeline.makespan / timeline.critical_path if timeline.critical_path else 1.0,
        crossing=timeline.makespan / timeline.crossing_path if timeline.crossing_path else 1.0,
        streams=streams.streams,
        events_before=streams.events_before,
        events_after=streams.events_after,
        ms=single_ms,
    )


def geomean(values: list[float]) -> float:
    return math.exp(sum(math.log(v) for v in values) / len(values))


def scale(nodes: int) -> None:
    """Planning time of both passes on one large generated graph (no interpreter run)."""
    ctx = make_context()
    blocks = max(1, nodes // 12)
    text = branchy_graph(0, blocks=blocks, case=False)
    _, model = lowered(ctx, text)
    tasks = len(model.tasks())
    start = time.perf_counter()
    streams = assign_model(model)
    mid = time.perf_counter()
    mem = plan_model(model)
    end = time.perf_counter()
    print(f"{tasks} tasks: ge-assign-streams {mid - start:.2f} s ({streams.line()})")
    print(f"{tasks} tasks: ge-plan-memory {end - mid:.2f} s ({mem.line()})")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--graphs", type=int, default=12, help="generated graphs")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--no-check", action="store_true", help="skip the numeric checks")
    parser.add_argument("--scale", type=int, help="time the passes on one graph of ~N tasks")
    args = parser.parse_args()
    if args.scale:
        scale(args.scale)
        return
    ctx = make_context()
    models = [("conv_block", branchy(ctx, (ROOT / "examples" / "conv_block.mlir").read_text()))]
    models += [(name, onnx_model(ctx, name)) for name in ONNX_MODELS]
    models += [
        (f"branchy{s}", branchy(ctx, branchy_graph(s)))
        for s in range(args.seed, args.seed + args.graphs)
    ]
    rows = [measure(ctx, name, make, inputs, not args.no_check) for name, (make, inputs) in models]
    header = (
        f"{'model':<12} {'tasks':>5} {'ours/lb':>8} {'tflite/lb':>9} {'tflite/ours':>11} "
        f"{'ge/lb':>7} "
        f"{'noreuse/ours':>12} {'span/cp':>8} {'span/cpx':>8} {'streams':>7} {'events':>9} "
        f"{'plan ms':>8}"
    )
    print(header)
    for r in rows:
        print(
            f"{r.name:<12} {r.tasks:>5} {r.ours:>8.3f} {r.tflite:>9.3f} "
            f"{r.tflite_vs_ours:>11.3f} {r.ge:>7.3f} "
            f"{r.no_reuse:>12.2f} {r.makespan:>8.3f} {r.crossing:>8.3f} {r.streams:>7} "
            f"{r.events_before:>4}->{r.events_after:<4} {r.ms:>8.1f}"
        )
    print(
        f"{'geomean':<12} {'':>5} {geomean([r.ours for r in rows]):>8.3f} "
        f"{geomean([r.tflite for r in rows]):>9.3f} "
        f"{geomean([r.tflite_vs_ours for r in rows]):>11.3f} {geomean([r.ge for r in rows]):>7.3f} "
        f"{geomean([r.no_reuse for r in rows]):>12.2f} "
        f"{geomean([r.makespan for r in rows]):>8.3f} {geomean([r.crossing for r in rows]):>8.3f}"
    )
    print(
        "goals: ours/lb <= 1.05 (geomean) and tflite/ours >= 1 (our arena never larger than "
        "the TFLite baseline's); span/cpx <= 1.10 (cpx: the critical path with a record and a "
        "wait on every edge between engines, which any assignment pays; cp: all events free, "
        "a looser bound no assignment reaches where engines meet)"
    )


if __name__ == "__main__":
    main()
