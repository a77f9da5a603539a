"""Issue 14's scale benchmark: per-op cost of the text IR (and each ge-compile pass) on big graphs.

The model is issue 14's: 4 lanes of 16-node blocks (MatMul 8x8, Add, Mul, Sigmoid, Relu,
Transpose, Reshape, Concat, Split) with a NonZero/GatherND island every 49th block, built
with the onnx helper, imported once per size with `import_model` and compiled once with
`ge-compile`; the graph-level text `G.mlir` and its compiled form `A.mlir` are cached in
`--workdir` and reused by later runs. Each column is measured in this one process, because
these machines are noisy; `--baseline DIR` times the same files with another checkout's code
(`PYTHONPATH=DIR`, e.g. `/work/main`) in a child process of the same run, for before/after
figures.

    python bench/bench_scale.py --sizes 10000,100000 --baseline /work/main

The table is a list of rows (`Row`) so that further columns can be added as more
`measure_*` steps; `measure_binary` gives the binary IR's write
and load per op and its weights in MB/s, next to a text parse of the same file in the same run;
`measure_exec` gives the executor's rows: per-task overhead (static and dynamic tasks) and
per-node overhead at the graph level, kernels excluded, against the step-by-step dispatch.
The rebuild rows copy each parsed level op by op with `Operation.create`, the cheapest way xDSL
builds an op: the floor under any pass pipeline that materialises levels of that size, printed
over the session creation below the table.
The ge-compile rows time each pass on the parsed `G.mlir` (and the total of the passes); next
to them, onnxruntime's session creation and one run on the same ONNX model in this process
(onnxruntime is a bench extra: without it those rows are left out), `ge-atc --model=M.onnx`
end to end (import, compile, write `OUT.om` and `OUT.mlir`), the same with `--emit=om` (the
binary model only, what atc writes) and `ge-run OUT.om` (load and one run) as child
processes. Below each table: the passes and ge-atc over the session creation, ge-run OUT.om
over the session creation plus one run; after the last size, the growth of the passes from
the first size to the last.
"""

from __future__ import annotations

import argparse
import gc
import io
import json
import os
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

T = TypeVar("T")

LANES = 4
BLOCK_NODES = 16
ISLAND_EVERY = 49
WIDTH = 8
BATCH = 4
DEFAULT_WORKDIR = Path(os.environ.get("TMPDIR", "/tmp")) / "gedialects-bench-scale"


def scale_model(nodes: int, seed: int = 0) -> object:
    """The ONNX model of about `nodes` nodes: LANES chains of BLOCK_NODES-node blocks.

    Each block maps a [BATCH, WIDTH] activation to one of the same shape, with a residual
    and a 0.5 scale so that values stay bounded at any depth. Every ISLAND_EVERY-th block
    adds a data-dependent island (Greater, NonZero, Transpose, GatherND, ReduceSum) whose
    scalar result is scaled into the lane, so that ge-compile gives it dynamic tasks.
    """
    import numpy as np
    from onnx import TensorProto, helper, numpy_helper

    rng = np.random.default_rng(seed)
    blocks = max(1, nodes // BLOCK_NODES)
    nodes_: list = []
    inits = [
        numpy_helper.from_array(np.array(0.5, np.float32), "half"),
        numpy_helper.from_array(np.array(0.0, np.float32), "zero"),
        numpy_helper.from_array(np.array(1e-3, np.float32), "eps"),
        numpy_helper.from_array(np.array([BATCH, WIDTH], np.int64), "shape"),
    ]
    lanes = [f"x{lane}" for lane in range(LANES)]
    for i in range(blocks):
        lane = i % LANES
        h, p = lanes[lane], f"b{i}_"
        w1 = (rng.standard_normal((WIDTH, WIDTH)) / np.sqrt(WIDTH)).astype(np.float32)
        w2 = (rng.standard_normal((WIDTH, WIDTH)) / np.sqrt(WIDTH)).astype(np.float32)
        bias = (rng.standard_normal(WIDTH) * 0.1).astype(np.float32)
        inits += [
            numpy_helper.from_array(w1, p + "w1"),
            numpy_helper.from_array(w2, p + "w2"),
            numpy_helper.from_array(bias, p + "bias"),
        ]

        def node(
            op: str, ins: list[str], out: str, name: str = "", p: str = p, **attrs: object
        ) -> str:
            """One node named `name` (default its type) writing `out`, both under `p`."""
            outs = [p + o for o in out.split(",")]
            nodes_.append(helper.make_node(op, ins, outs, name=p + (name or op), **attrs))
            return outs[0]

        node("MatMul", [h, p + "w1"], "mm")
        node("Add", [p + "mm", p + "bias"], "biased")
        node("Mul", [p + "biased", "half"], "scaled")
        node("Sigmoid", [p + "scaled"], "sig")
        node("Mul", [p + "scaled", p + "sig"], "silu", "Silu")
        node("Relu", [p + "silu"], "relu")
        node("Transpose", [p + "relu"], "t", perm=[1, 0])
        node("Reshape", [p + "t", "shape"], "r")
        node("Concat", [p + "relu", p + "r"], "cat", axis=1)
        node("Split", [p + "cat"], "s0,s1", axis=1, num_outputs=2)
        node("Add", [p + "s0", p + "s1"], "sum", "Sum")
        node("MatMul", [p + "sum", p + "w2"], "mm2", "MatMul2")
        node("Sigmoid", [p + "mm2"], "sig2", "Sigmoid2")
        node("Mul", [p + "mm2", p + "sig2"], "gate", "Gate")
        node("Add", [p + "gate", h], "res", "Res")
        out = node("Mul", [p + "res", "half"], "out", "Out")
        if i % ISLAND_EVERY == ISLAND_EVERY - 1:
            node("Greater", [out, "zero"], "mask")
            node("NonZero", [p + "mask"], "nz")
            node("Transpose", [p + "nz"], "idx", "IdxT")
            node("GatherND", [out, p + "idx"], "picked")
            node("ReduceSum", [p + "picked"], "total", keepdims=0)
            node("Mul", [p + "total", "eps"], "small", "Small")
            out = node("Add", [out, p + "small"], "isl", "Isl")
        lanes[lane] = out
    outputs = [f"y{lane}" for lane in range(LANES)]
    for lane, y in enumerate(outputs):
        nodes_.append(helper.make_node("Identity", [lanes[lane]], [y], name=f"output{lane}"))
    value = lambda name: helper.make_tensor_value_info(name, TensorProto.FLOAT, [BATCH, WIDTH])  # noqa: E731
    graph = helper.make_graph(
        nodes_, "scale", [value(f"x{lane}") for lane in range(LANES)], list(map(value, outputs)),
        inits,
    )  # fmt: skip
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)])


def timed(fn: Callable[[], T]) -> tuple[T, float]:
    """`fn()` and the CPU seconds it took: with 8 agents on 2 cores, wall time says more about
    the neighbours than about the code (the process's CPU time is what the ratios compare)."""
    gc.collect()
    start = time.process_time()
    result = fn()
    return result, time.process_time() - start


def to_text(module: object) -> str:
    from xdsl.printer import Printer

    out = io.StringIO()
    Printer(stream=out).print_op(module)  # type: ignore[arg-type]
    return out.getvalue()


def count_ops(module: object) -> int:
    return sum(1 for _ in module.walk()) - 1  # type: ignore[attr-defined]  # not the module


def prepare(nodes: int, workdir: Path) -> tuple[Path, Path, dict[str, float]]:
    """`G.mlir` and `A.mlir` of the `nodes`-node model, built once and kept in `workdir`.

    Returns the per-pass seconds of ge-compile when it ran now (empty when the files were
    already there: delete them to time the passes again).
    """
    workdir.mkdir(parents=True, exist_ok=True)
    graph_path, ascend_path = workdir / f"G{nodes}.mlir", workdir / f"A{nodes}.mlir"
    passes: dict[str, float] = {}
    if not graph_path.exists():
        from gedialects.frontend.onnx import import_model

        module, t_import = timed(lambda: import_model(scale_model(nodes)))  # type: ignore[arg-type]
        passes["ge-import"] = t_import
        graph_path.write_text(to_text(module))
    if not ascend_path.exists() or passes:
        from xdsl.parser import Parser

        from gedialects import make_context
        from gedialects.passes.pipelines import CompilePipelinePass

        ctx = make_context()
        module = Parser(ctx, graph_path.read_text(), str(graph_path)).parse_module()
        for p in CompilePipelinePass().passes():
            _, passes[p.name] = timed(lambda p=p: p.apply(ctx, module))
        ascend_path.write_text(to_text(module))
    return graph_path, ascend_path, passes


def measure_text(path: Path, repeat: int = 1) -> dict[str, float]:
    """Seconds to parse, verify and print `path`, and its op count (this process's code)."""
    from xdsl.parser import Parser

    from gedialects import DIALECTS, make_context

    ctx = make_context()
    for name in DIALECTS:  # load the dialects first: an import is not a parse
        ctx.get_dialect(name)
    text = path.read_text()
    best = [float("inf")] * 6
    for _ in range(repeat):  # the fastest of `repeat` runs: the machine's noise only adds
        module, t_parse = timed(lambda: Parser(ctx, text, str(path)).parse_module())
        _, t_verify = timed(module.verify)
        printed, t_print = timed(lambda m=module: to_text(m))
        dense, t_dense_parse, t_dense_print = dense_values(ctx, module)
        t_rebuild = rebuild_seconds(module)
        now = (t_parse, t_verify, t_print, t_dense_parse, t_dense_print, t_rebuild)
        best = [min(a, b) for a, b in zip(best, now, strict=True)]
    t_parse, t_verify, t_print, t_dense_parse, t_dense_print, t_rebuild = best
    return {
        "ops": count_ops(module),
        "parse": t_parse,
        "verify": t_verify,
        "print": t_print,
        "same_text": float(printed == text),
        "dense_ops": dense,
        "dense_parse": t_dense_parse,
        "dense_print": t_dense_print,
        "rebuild": t_rebuild,
    }


def rebuild_seconds(module: object) -> float:
    """Seconds to build a copy of `module` op by op with xDSL's cheapest constructor
    (`Operation.create`: no verification, no IRDL argument processing, attributes shared):
    the least that materialising one level of IR of this size costs in xDSL, before any
    analysis. ge-compile materialises the partition level (about the graph's size) and the
    ascend level, so the two rows together bound its passes from below."""
    from xdsl.ir import Block, Operation, Region, SSAValue

    values: dict[SSAValue, SSAValue] = {}

    def copy_block(block: Block) -> Block:
        new = Block(arg_types=[a.type for a in block.args])
        values.update(zip(block.args, new.args, strict=True))
        new.add_ops(copy_op(op) for op in block.ops)
        return new

    def copy_op(op: Operation) -> Operation:
        regions = [Region([copy_block(b) for b in r.blocks]) for r in op.regions]
        new = type(op).create(
            operands=[values.get(v, v) for v in op.operands],
            result_types=[r.type for r in op.results],
            properties=dict(op.properties),
            attributes=dict(op.attributes),
            regions=regions,
        )
        values.update(zip(op.results, new.results, strict=True))
        return new

    _, seconds = timed(lambda: copy_op(module))  # type: ignore[arg-type]
    return seconds


def dense_values(ctx: object, module: object) -> tuple[int, float, float]:
    """The ops holding a dense value (`graph.const`, `ascend.weight`) and the seconds that
    parsing and printing just their values takes (xDSL's dense literal path, not an op's)."""
    from xdsl.dialects.builtin import DenseIntOrFPElementsAttr
    from xdsl.parser import Parser
    from xdsl.printer import Printer

    values = [
        v
        for op in module.walk()  # type: ignore[attr-defined]
        if isinstance(v := op.properties.get("value"), DenseIntOrFPElementsAttr)
    ]

    def print_all() -> list[str]:
        texts = []
        for v in values:
            out = io.StringIO()
            Printer(stream=out).print_attribute(v)
            texts.append(out.getvalue())
        return texts

    texts, t_print = timed(print_all)
    _, t_parse = timed(lambda: [Parser(ctx, t).parse_attribute() for t in texts])  # type: ignore[arg-type]
    return len(values), t_parse, t_print


def measure_binary(path: Path, repeat: int = 1) -> dict[str, float]:
    """Seconds to write and load `path`'s module in the binary IR (`gedialects.bytecode`), next
    to parsing its text in this same run, and the weights' share: bytes and the seconds the
    loader spends on them (the CRC-32 of the section and one copy per tensor)."""
    from xdsl.parser import Parser

    from gedialects import DIALECTS, bytecode, make_context

    ctx = make_context()
    for name in DIALECTS:
        ctx.get_dialect(name)
    text = path.read_text()
    best = [float("inf")] * 5
    for _ in range(repeat):
        module, t_parse = timed(lambda: Parser(ctx, text, str(path)).parse_module())
        data, t_write = timed(lambda m=module: bytecode.dump(m))
        loaded, t_load = timed(lambda d=data: bytecode.load(d, ctx, str(path)))
        _, t_verify = timed(loaded.verify)
        header = bytecode.read_header(data, str(path))
        msg = bytecode._schema()["Module"]()  # pyright: ignore[reportPrivateUsage]
        msg.ParseFromString(bytes(header.ir))
        blobs = [(a.weight_offset, a.weight_size) for a in msg.attributes if a.in_weights]

        def weights(h: bytecode.Header = header, b: list[tuple[int, int]] = blobs) -> int:
            import zlib

            zlib.crc32(h.weights)
            return sum(len(bytes(h.weights[o : o + n])) for o, n in b)

        nbytes, t_weights = timed(weights)
        now = (t_parse, t_write, t_load, t_verify, t_weights)
        best = [min(a, b) for a, b in zip(best, now, strict=True)]
    t_parse, t_write, t_load, t_verify, t_weights = best
    return {
        "ops": count_ops(module),
        "text_parse": t_parse,
        "write": t_write,
        "load": t_load,
        "verify": t_verify,
        "same_text": float(to_text(loaded) == text),
        "file_bytes": len(data),
        "text_bytes": len(text.encode()),
        "weights": len(blobs),
        "weight_bytes": nbytes,
        "weight_seconds": t_weights,
    }


def binary_rows(level: str, path: Path, repeat: int) -> list[Row]:
    """The `measure_binary` rows of one file (issue 14 part 2: write and load <= 20 us/op)."""
    m = measure_binary(path, repeat)
    if not m["same_text"]:
        print(f"warning: {path.name} does not survive the binary round trip", file=sys.stderr)
    ops = int(m["ops"])
    mb = m["weight_bytes"] / 1e6
    rate = mb / m["weight_seconds"] if m["weight_seconds"] > 0 else float("inf")
    size = f"{m['file_bytes'] / 1e6:.1f} MB vs text {m['text_bytes'] / 1e6:.1f} MB"
    return [
        Row(f"{level} text parse (binary run)", ops, m["text_parse"]),
        Row(f"{level} binary write ({size})", ops, m["write"]),
        Row(f"{level} binary load", ops, m["load"]),
        Row(f"{level} binary load + verify", ops, m["load"] + m["verify"]),
        Row(f"{level} binary weights ({mb:.2f} MB, {rate:.0f} MB/s)", int(m["weights"]),
            m["weight_seconds"]),
    ]  # fmt: skip


def measure_exec(graph_path: Path, ascend_path: Path, repeat: int = 3) -> dict[str, float]:
    """Execution overhead per task (ascend: static and dynamic tasks) and per node (graph),
    kernels excluded, of the compiled executor ("exec") and of the step-by-step dispatch
    through xDSL's interpreter ("ref", what every run did before).

    Kernel compute is taken out by memoised kernels: a first run records each kernel call's
    results in call order, later runs return them (the runs are deterministic), so a run then
    costs the executor's own work plus a call that returns a tuple; an out-variant kernel
    (`get_kernel_into`, looked up on `kernels` at both levels) becomes a call that does
    nothing. Dynamic tasks are timed one by one within those runs, less the clock's own cost
    per timing (`clock_floor`). Times are CPU time (as `timed`), the fastest of `repeat`
    runs (the dynamic tasks' fastest of their own; the static tasks' the fastest run less its
    dynamic tasks); `ms ...` are whole runs with the real kernels. Decoding and binding happen
    in a first run, not timed.
    """
    import numpy as np
    from xdsl.parser import Parser

    from gedialects import make_context
    from gedialects.interpreters import kernels, make_interpreter
    from gedialects.interpreters.ascend import configure, last_stats
    from gedialects.interpreters.graph import COMPILED, GraphFunctions
    from gedialects.interpreters.run import check_inputs, find_entry, random_inputs, signature

    ctx = make_context()
    clock = time.process_time
    memo: list[object] = []
    calls = [0, 0]  # next call index, recording (1) or replaying (0)
    real_get = kernels.get_kernel

    def memo_get(ge_type: str) -> Callable[..., object]:
        fn = real_get(ge_type)

        def call(*args: object) -> object:
            k = calls[0]
            calls[0] += 1
            if calls[1]:  # copies: a result may view the arena, which must stay resizable
                memo.append(tuple(np.array(r) for r in fn(*args)))  # type: ignore[arg-type]
            return memo[k]

        return call

    real_into = kernels.get_kernel_into

    def noop_into(ge_type: str) -> Callable[..., None] | None:
        """Out-variants run while recording, then do nothing: the outputs they would write
        feed only memoised kernels, which ignore their inputs."""
        fn = real_into(ge_type)
        if fn is None:
            return None

        def call(*args: object) -> None:
            if calls[1]:
                fn(*args)  # type: ignore[arg-type]

        return call

    out: dict[str, float] = {}
    for level, path in (("graph", graph_path), ("ascend", ascend_path)):
        module = Parser(ctx, path.read_text(), str(path)).parse_module()
        entry = find_entry(module)
        sig = signature(entry)
        args = check_inputs(sig, random_inputs(sig, 0))
        for compiled in (True, False):
            name = f"{level} {'exec' if compiled else 'ref'}"

            def fresh(
                compiled: bool = compiled,
                module: object = module,
                entry: object = entry,
                args: tuple = args,
            ) -> object:
                interpreter = make_interpreter(module)  # type: ignore[arg-type]
                configure(interpreter, compiled=compiled)
                interpreter.set_data(GraphFunctions, COMPILED, compiled)
                interpreter.call_op(entry, args)  # type: ignore[arg-type]  # decodes, binds
                return interpreter

            def fastest(
                interpreter: object, dyn: list[float], entry: object = entry, args: tuple = args
            ) -> tuple[float, float, float]:
                """(the fastest run's time, its dynamic tasks' time, the dynamic tasks'
                fastest time of all runs): the dynamic tasks are a few ms of a run, so the
                fastest run overall is not the one where they ran fastest."""
                best = (float("inf"), 0.0)
                fastest_dyn = float("inf")
                for _ in range(repeat):
                    calls[0] = 0
                    dyn[:] = [0.0, 0]
                    gc.collect()
                    start = clock()
                    interpreter.call_op(entry, args)  # type: ignore[attr-defined]
                    best = min(best, (clock() - start, dyn[0]))
                    fastest_dyn = min(fastest_dyn, dyn[0])
                return (*best, fastest_dyn)

            out[f"ms {name}"] = fastest(fresh(), [0.0, 0])[0] * 1e3
            kernels.get_kernel = memo_get  # type: ignore[assignment]
            kernels.get_kernel_into = noop_into  # type: ignore[assignment]
            try:
                memo.clear()
                calls[:] = [0, 1]
                interpreter = fresh()  # records every kernel call
                calls[1] = 0
                dyn: list[float] = [0.0, 0]
                wrapped = _time_dynamic(interpreter, entry, compiled, dyn, clock)
                total, dynamic, fastest_dynamic = fastest(interpreter, dyn)
            finally:
                kernels.get_kernel = real_get  # type: ignore[assignment]
                kernels.get_kernel_into = real_into  # type: ignore[assignment]
            if level == "graph":
                nodes = len(list(entry.body.block.ops))  # type: ignore[union-attr]
                out["graph nodes"] = nodes
                out[f"us/node {name}"] = total / nodes * 1e6
                continue
            stats = last_stats(interpreter)  # type: ignore[arg-type]
            assert stats is not None
            steps = stats.steps
            n_dyn = sum(1 for code in stats.trace if code in wrapped)
            # the clock's own cost, once inside each timed task and about once around it
            clocks = n_dyn * clock_floor(clock)
            out["ascend tasks run"] = steps
            out["ascend dynamic tasks run"] = n_dyn
            out[f"us/static task {name}"] = (total - dynamic - clocks) / max(steps - n_dyn, 1) * 1e6
            out[f"us/dynamic task {name}"] = (fastest_dynamic - clocks) / max(n_dyn, 1) * 1e6
    return out


def _time_dynamic(
    interpreter: object, entry: object, compiled: bool, acc: list[float], clock: Callable[[], float]
) -> set[tuple[int, int]]:
    """Wraps the dynamic tasks of `entry` (an ascend model) so that each adds its time to
    `acc[0]`; returns their (stream id, task index) (empty for a graph)."""
    from gedialects.ascend import ModelOp
    from gedialects.interpreters.ascend.functions import plan_for, program_for

    if not isinstance(entry, ModelOp):
        return set()
    plan = plan_for(interpreter, entry)  # type: ignore[arg-type]
    where = {
        (plan.stream_ids[i], pc)
        for i, tasks in enumerate(plan.tasks)
        for pc, task in enumerate(tasks)
        if task in plan.dynamic
    }

    def timed(fn: Callable[[], object]) -> Callable[[], object]:
        return _timed(fn, acc, clock)

    if compiled:
        for arena in program_for(interpreter, entry).spare:  # type: ignore[arg-type]
            for i, steps in enumerate(arena.steps):
                for pc, (fn, kind, arg, code) in enumerate(steps):
                    if (plan.stream_ids[i], pc) in where and fn is not None:
                        steps[pc] = (timed(fn), kind, arg, code)
        return where
    table = interpreter._impls._impl_dict  # type: ignore[attr-defined]
    for op_type in {type(t) for t in plan.dynamic}:
        ft, fn = table[op_type]

        def run_one(ft_: object, interp: object, op: object, a: object, fn: object = fn) -> object:
            if op not in plan.dynamic:
                return fn(ft_, interp, op, a)  # type: ignore[operator]
            return timed(lambda: fn(ft_, interp, op, a))()  # type: ignore[operator]

        table[op_type] = (ft, run_one)
    return where


def _timed(
    fn: Callable[[], object], acc: list[float], clock: Callable[[], float]
) -> Callable[[], object]:
    """`fn` adding the time of each call to `acc[0]`."""

    def run() -> object:
        start = clock()
        try:
            return fn()
        finally:
            acc[0] += clock() - start

    return run


def clock_floor(clock: Callable[[], float], calls: int = 2000) -> float:
    """What `_timed` measures of a call that does nothing, the fastest of `calls`: the clock's
    own cost (`process_time` is a system call, 0.6 us on the 2-core bench VM, 2% of a dynamic
    task), which the dynamic task rows take out of each task they time."""
    acc = [0.0]
    run = _timed(lambda: None, acc, clock)
    best = float("inf")
    for _ in range(calls):
        before = acc[0]
        run()
        best = min(best, acc[0] - before)
    return best


def this_checkout() -> Path:
    """The checkout whose `gedialects` this process imports."""
    import gedialects

    return Path(gedialects.__file__).resolve().parent.parent


def measure_import(nodes: int) -> float:
    """CPU seconds of `import_model` on the `nodes`-node model (building the proto is not
    counted)."""
    from gedialects.frontend.onnx import import_model

    model = scale_model(nodes)
    return timed(lambda: import_model(model))[1]  # type: ignore[arg-type]


def measure_compile(path: Path) -> dict[str, float]:
    """CPU seconds of each ge-compile pass on the parsed `path`, in pipeline order (parse and
    print are the text rows')."""
    from xdsl.parser import Parser

    from gedialects import make_context
    from gedialects.passes.pipelines import CompilePipelinePass

    ctx = make_context()
    module = Parser(ctx, path.read_text(), str(path)).parse_module()
    return {
        p.name: timed(lambda p=p: p.apply(ctx, module))[1] for p in CompilePipelinePass().passes()
    }


def measure_onnxruntime(nodes: int) -> dict[str, float]:
    """CPU seconds of onnxruntime's session creation (CPU provider, default graph
    optimisations) and of one run at batch BATCH on the same model, in this process; empty
    when onnxruntime is not installed."""
    try:
        import onnxruntime as ort
    except ImportError:
        return {}
    import numpy as np

    data = scale_model(nodes).SerializeToString()  # type: ignore[attr-defined]
    session, t_session = timed(
        lambda: ort.InferenceSession(data, ort.SessionOptions(), providers=["CPUExecutionProvider"])
    )
    rng = np.random.default_rng(0)
    feeds = {
        f"x{lane}": rng.standard_normal((BATCH, WIDTH)).astype(np.float32) for lane in range(LANES)
    }
    session.run(None, feeds)  # the first run allocates
    _, t_run = timed(lambda: session.run(None, feeds))
    return {"session": t_session, "run": t_run}


def child_seconds(cmd: list[str], env: dict[str, str], what: str) -> float:
    """CPU seconds (user + system) of `cmd` run as a child process; exits on its failure.
    The child starts in the checkout `env` names: `python -m` puts its working directory ahead
    of PYTHONPATH, so started anywhere else inside a checkout it would run that one's code."""
    import resource

    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    done = subprocess.run(
        cmd, env=env, cwd=env["PYTHONPATH"], capture_output=True, text=True, check=False
    )
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        sys.exit(f"bench_scale: {what} failed: {done.stderr.strip()}")
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def measure_atc(
    nodes: int, workdir: Path, checkout: Path | None = None, emit: str = "both"
) -> float:
    """CPU seconds of `ge-atc --model=scale{nodes}.onnx --emit={emit}` (import, compile, write
    the offline model OUT.om and, by default, the text OUT.mlir too) in a child process with
    `checkout`'s code (default: this process's). `--emit=om` is what atc itself writes and
    what issue 14's goal names (import, compile, write the binary model)."""
    onnx_path = workdir / f"scale{nodes}.onnx"
    if not onnx_path.exists():
        onnx_path.write_bytes(scale_model(nodes).SerializeToString())  # type: ignore[attr-defined]
    tag = ("base" if checkout else "new") + ("" if emit == "both" else f"-{emit}")
    out = workdir / f"atc{nodes}-{tag}.mlir"
    env = dict(os.environ, PYTHONPATH=str(checkout or this_checkout()))
    cmd = [
        sys.executable,
        "-m",
        "gedialects.tools.ge_atc",
        f"--model={onnx_path}",
        f"--output={out}",
        f"--emit={emit}",
    ]
    return child_seconds(cmd, env, f"ge-atc ({tag})")


def measure_run_om(nodes: int, workdir: Path) -> float:
    """CPU seconds of `ge-run OUT.om --random-inputs 0 -q` on the offline model that
    `measure_atc` just wrote (load, verify, run once at batch BATCH), a child process: what a
    user does after atc, next to onnxruntime's session creation plus one run."""
    om = workdir / f"atc{nodes}-new.om"
    env = dict(os.environ, PYTHONPATH=str(this_checkout()))
    cmd = [sys.executable, "-m", "gedialects.tools.ge_run", str(om), "--random-inputs", "0", "-q"]
    return child_seconds(cmd, env, "ge-run OUT.om")


@dataclass
class Row:
    what: str
    ops: int
    seconds: float
    baseline: float | None = None

    def cells(self) -> list[str]:
        us = self.seconds / max(1, self.ops) * 1e6
        base = "" if self.baseline is None else f"{self.baseline / max(1, self.ops) * 1e6:.1f}"
        ratio = (
            ""
            if self.baseline is None or not self.seconds
            else f"{self.baseline / self.seconds:.2f}x"
        )
        return [self.what, str(self.ops), f"{self.seconds:.2f}", f"{us:.1f}", base, ratio]


def in_child(checkout: Path, *args: str) -> object:
    """What this script prints (JSON) when run with `args` on `checkout`'s code."""
    env = dict(os.environ, PYTHONPATH=str(checkout))
    cmd = [sys.executable, __file__, *args]
    done = subprocess.run(cmd, env=env, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        sys.exit(f"bench_scale: baseline run in {checkout} failed: {done.stderr.strip()}")
    return json.loads(done.stdout)


def baseline_text(checkout: Path, paths: list[Path], repeat: int) -> list[dict[str, float]]:
    """`measure_text` of each path with `checkout`'s code, in a child process."""
    return in_child(checkout, "--repeat", str(repeat), "--measure-text", *map(str, paths))  # type: ignore[return-value]


COMPILE_TOTAL = "ge-compile passes"
ORT_SESSION = "onnxruntime session"
ATC = "ge-atc end to end (.om + .mlir)"
ATC_OM = "ge-atc --emit=om (.om only)"
RUN_OM = "ge-run OUT.om (load + run)"
ORT_RUN = "onnxruntime run"
REBUILD = "rebuild (xDSL floor)"


def bench(nodes: int, workdir: Path, baseline: Path | None, repeat: int) -> list[Row]:
    graph_path, ascend_path, passes = prepare(nodes, workdir)
    base = baseline_text(baseline, [graph_path, ascend_path], repeat) if baseline else [{}, {}]
    rows: list[Row] = []
    for level, path, old in (("graph", graph_path, base[0]), ("ascend", ascend_path, base[1])):
        m = measure_text(path, repeat)
        if not m["same_text"]:
            print(f"warning: printing {path.name} does not give its text back", file=sys.stderr)
        for step in ("parse", "print"):
            rows.append(Row(f"{level} {step}", int(m["ops"]), m[step], old.get(step)))
            # the same without the dense values of consts/weights (xDSL's dense literal path)
            rest = int(m["ops"] - m["dense_ops"])
            before = None if not old else old[step] - old[f"dense_{step}"]
            rows.append(
                Row(f"{level} {step} w/o dense", rest, m[step] - m[f"dense_{step}"], before)
            )
        rows.append(Row(f"{level} verify", int(m["ops"]), m["verify"], old.get("verify")))
        rows.append(Row(f"{level} {REBUILD}", int(m["ops"]), m["rebuild"], old.get("rebuild")))
    for level, path in (("graph", graph_path), ("ascend", ascend_path)):
        rows += binary_rows(level, path, repeat)
    graph_ops = rows[0].ops
    rows += compile_rows(nodes, graph_path, graph_ops, passes, baseline)
    rows += onnxruntime_rows(nodes, graph_ops)
    atc = measure_atc(nodes, workdir)
    rows.append(
        Row(ATC, graph_ops, atc, measure_atc(nodes, workdir, baseline) if baseline else None)
    )
    atc_om = measure_atc(nodes, workdir, emit="om")
    rows.append(
        Row(
            ATC_OM,
            graph_ops,
            atc_om,
            measure_atc(nodes, workdir, baseline, emit="om") if baseline else None,
        )
    )
    rows.append(Row(RUN_OM, graph_ops, measure_run_om(nodes, workdir)))
    if baseline:
        new, old = (workdir / f"atc{nodes}-{t}.mlir" for t in ("new", "base"))
        if new.read_bytes() != old.read_bytes():
            print(f"warning: ge-atc's {new.name} differs from the baseline's", file=sys.stderr)
    rows.extend(exec_rows(measure_exec(graph_path, ascend_path)))
    return rows


def exec_rows(m: dict[str, float]) -> list[Row]:
    """`measure_exec`'s figures as rows: us/op is the overhead per task or node (kernels
    excluded), "before" the step-by-step dispatch's; the run rows include the kernels."""
    tasks, dynamic = int(m["ascend tasks run"]), int(m["ascend dynamic tasks run"])
    nodes = int(m["graph nodes"])
    rows = []
    for what, count, key in (
        ("exec static task overhead", tasks - dynamic, "us/static task ascend"),
        ("exec dynamic task overhead", dynamic, "us/dynamic task ascend"),
        ("exec graph node overhead", nodes, "us/node graph"),
    ):
        scale = count / 1e6
        rows.append(Row(what, count, m[f"{key} exec"] * scale, m[f"{key} ref"] * scale))
    for what, count, level in (
        ("exec ascend run", tasks, "ascend"),
        ("exec graph run", nodes, "graph"),
    ):
        rows.append(Row(what, count, m[f"ms {level} exec"] / 1e3, m[f"ms {level} ref"] / 1e3))
    return rows


def compile_rows(
    nodes: int, graph_path: Path, ops: int, passes: dict[str, float], baseline: Path | None
) -> list[Row]:
    """ge-import and each ge-compile pass (timed again unless `prepare` just did), their total,
    and the baseline's figures for each."""
    if "ge-import" not in passes:
        passes = {"ge-import": measure_import(nodes), **measure_compile(graph_path)}
    old: dict[str, float] = {}
    if baseline:
        old = {"ge-import": in_child(baseline, "--measure-import", str(nodes))}  # type: ignore[dict-item]
        old.update(in_child(baseline, "--measure-compile", str(graph_path)))  # type: ignore[arg-type]
    rows = [Row(name, ops, seconds, old.get(name)) for name, seconds in passes.items()]
    total = sum(seconds for name, seconds in passes.items() if name != "ge-import")
    old_total = sum(v for k, v in old.items() if k != "ge-import") if old else None
    rows.append(Row(COMPILE_TOTAL, ops, total, old_total))
    return rows


def onnxruntime_rows(nodes: int, ops: int) -> list[Row]:
    ort = measure_onnxruntime(nodes)
    if not ort:
        print(
            "note: onnxruntime is not installed (pip install '.[bench]'): no ratios",
            file=sys.stderr,
        )
        return []
    return [Row(ORT_SESSION, ops, ort["session"]), Row(ORT_RUN, ops, ort["run"])]


def ratios(rows: list[Row]) -> list[str]:
    """The issue-14 goals of one size: the passes and ge-atc over the session creation."""
    by = {r.what: r for r in rows}
    session = by.get(ORT_SESSION)
    if session is None:
        return []
    lines = []
    for what, goal in ((COMPILE_TOTAL, 1.0), (ATC, 2.0), (ATC_OM, 2.0)):
        row = by[what]
        before = "" if row.baseline is None else f" (before {row.baseline / session.seconds:.2f}x)"
        lines.append(
            f"{what} / {ORT_SESSION}: {row.seconds / session.seconds:.2f}x{before}, goal <= {goal}"
        )
    floors = [
        by[f"{level} {REBUILD}"] for level in ("graph", "ascend") if f"{level} {REBUILD}" in by
    ]
    if len(floors) == 2:
        floor = sum(r.seconds for r in floors)
        lines.append(
            f"xDSL floor of ge-compile (rebuild the graph- and ascend-sized levels once) / "
            f"{ORT_SESSION}: {floor / session.seconds:.2f}x"
        )
    if RUN_OM in by and ORT_RUN in by:
        both = session.seconds + by[ORT_RUN].seconds
        lines.append(
            f"{RUN_OM} / ({ORT_SESSION} + run): {by[RUN_OM].seconds / both:.2f}x, goal <= 2.0"
        )
    return lines


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--sizes", default="10000", help="comma-separated node counts (10000,100000)")
    p.add_argument("--workdir", type=Path, default=DEFAULT_WORKDIR, help="cache of G/A files")
    p.add_argument("--baseline", type=Path, help="checkout whose code gives the 'before' column")
    p.add_argument("--repeat", type=int, default=1, help="text runs per file (the fastest counts)")
    p.add_argument("--measure-text", nargs="+", type=Path, help=argparse.SUPPRESS)
    p.add_argument("--measure-compile", type=Path, help=argparse.SUPPRESS)
    p.add_argument("--measure-import", type=int, help=argparse.SUPPRESS)
    args = p.parse_args()
    if args.measure_text:
        print(json.dumps([measure_text(path, args.repeat) for path in args.measure_text]))
        return
    if args.measure_compile:
        print(json.dumps(measure_compile(args.measure_compile)))
        return
    if args.measure_import:
        print(json.dumps(measure_import(args.measure_import)))
        return
    header = ["step", "ops", "s", "us/op", "before us/op", "speed-up"]
    totals: dict[int, Row] = {}
    for size in (int(s) for s in args.sizes.split(",")):
        print(f"== {size} nodes ({LANES} lanes of {BLOCK_NODES}-node blocks)")
        rows = bench(size, args.workdir.resolve(), args.baseline, args.repeat)
        table = [header, *(row.cells() for row in rows)]
        widths = [max(len(r[i]) for r in table) for i in range(len(header))]
        for r in table:
            print(" | ".join(c.rjust(w) for c, w in zip(r, widths, strict=True)))
        for line in ratios(rows):
            print(line)
        totals[size] = next(r for r in rows if r.what == COMPILE_TOTAL)
        sys.stdout.flush()
    if len(totals) > 1:
        (small, first), (large, last) = min(totals.items()), max(totals.items())
        growth = last.seconds / first.seconds
        before = ""
        if first.baseline and last.baseline:
            before = f" (before {last.baseline / first.baseline:.2f}x)"
        print(f"{COMPILE_TOTAL} growth {small} -> {large} nodes: {growth:.2f}x{before}, goal <= 11")


if __name__ == "__main__":
    main()
