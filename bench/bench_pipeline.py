"""Times parse, verify, ge-compile and print on generated graphs of growing size.

The graphs are MLP stacks (MatMul, bias Add, Relu and a shift Sub per block, plus their three
Consts), built directly with the dialect builders. Each size is timed in one process
run and reported as ratios to the parse time of the same graph, because these machines are
noisy: ratios measured together are stable where seconds are not. A pass whose ratio grows
with the size is not linear.

    python bench/bench_pipeline.py --sizes 1000,10000,100000
"""

from __future__ import annotations

import argparse
import gc
import io
import time
from collections.abc import Callable
from typing import TypeVar

import numpy as np
from xdsl.dialects.builtin import ModuleOp, StringAttr, TensorType, f32
from xdsl.parser import Parser
from xdsl.printer import Printer

from gedialects import make_context
from gedialects.graph import AddOp, ConstOp, GraphOp, MatMulOp, NetOutputOp, ReluOp, SubOp
from gedialects.interpreters.run import run
from gedialects.passes.pipelines import CompilePipelinePass
from gedialects.tensors import dense_from_numpy

T = TypeVar("T")
WIDTH = 16
BATCH = 4
NODES_PER_BLOCK = 7


def build_mlp(nodes: int, seed: int = 0) -> ModuleOp:
    """A graph of about `nodes` GE nodes (7 per block); values stay bounded at any depth."""
    rng = np.random.default_rng(seed)
    t = TensorType(f32, [BATCH, WIDTH])
    graph = GraphOp("mlp", [t], [t], input_names=["x"], output_names=["y"])
    block = graph.body.block
    h = block.args[0]
    ops = []
    for i in range(max(1, nodes // NODES_PER_BLOCK)):
        w = ConstOp(dense_from_numpy((rng.standard_normal((WIDTH, WIDTH)) * 0.1).astype("f4")))
        b = ConstOp(dense_from_numpy((rng.standard_normal(WIDTH) * 0.1).astype("f4")))
        c = ConstOp(dense_from_numpy((rng.standard_normal(WIDTH) * 0.1).astype("f4")))
        mm = MatMulOp(h, w)
        add = AddOp(mm, b)
        relu = ReluOp(add)
        shift = SubOp(relu, c)
        for op, name in ((mm, "fc"), (add, "bias"), (relu, "relu"), (shift, "shift")):
            op.attributes["node_name"] = StringAttr(f"{name}{i}")
        ops += [w, b, c, mm, add, relu, shift]
        h = shift.results[0]
    block.add_ops([*ops, NetOutputOp([h])])
    return ModuleOp([graph])


def timed(fn: Callable[[], T]) -> tuple[T, float]:
    gc.collect()
    start = time.perf_counter()
    result = fn()
    return result, time.perf_counter() - start


def to_text(module: ModuleOp) -> str:
    out = io.StringIO()
    Printer(stream=out).print_op(module)
    return out.getvalue()


def bench(nodes: int, run_interpreter: bool) -> dict[str, float]:
    ctx = make_context()
    built, t_build = timed(lambda: build_mlp(nodes))
    text, t_print_graph = timed(lambda: to_text(built))
    module, t_parse = timed(lambda: Parser(ctx, text).parse_module())
    _, t_verify = timed(module.verify)
    graph_ops = sum(1 for _ in module.walk())
    inputs = {"x": np.random.default_rng(1).standard_normal((BATCH, WIDTH)).astype("f4")}
    reference = run(module, inputs) if run_interpreter else None
    _, t_compile = timed(lambda: CompilePipelinePass().apply(ctx, module))
    _, t_verify_ascend = timed(module.verify)
    _, t_print = timed(lambda: to_text(module))
    row = {
        "nodes": graph_ops,
        "parse_s": t_parse,
        "build/parse": t_build / t_parse,
        "verify/parse": t_verify / t_parse,
        "ge-compile/parse": t_compile / t_parse,
        "verify-ascend/parse": t_verify_ascend / t_parse,
        "print/parse": t_print / t_parse,
        "print-graph/parse": t_print_graph / t_parse,
    }
    if reference is not None:
        result, t_run = timed(lambda: run(module, inputs))
        assert np.isfinite(reference["y"]).all()
        np.testing.assert_array_equal(result["y"], reference["y"])
        row["run-ascend/parse"] = t_run / t_parse
    return row


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="1000,10000", help="comma-separated node counts")
    parser.add_argument("--no-run", action="store_true", help="skip the interpreter runs")
    args = parser.parse_args()
    rows = [bench(int(n), not args.no_run) for n in args.sizes.split(",")]
    keys = list(rows[0])
    print(" | ".join(f"{k:>17}" for k in keys))
    for row in rows:
        print(" | ".join(f"{row.get(k, float('nan')):>17.3f}" for k in keys))
    per_op = [r["parse_s"] / r["nodes"] * 1e6 for r in rows]
    print("parse us/op: " + ", ".join(f"{p:.0f}" for p in per_op))


if __name__ == "__main__":
    main()
