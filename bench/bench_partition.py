"""Times the partitioners on generated graphs with parallel branches and mixed engines.

Each graph has `BRANCHES` parallel chains of elementwise ops fed by one input, with a cross
link between neighbouring chains every 4 nodes, Consts along the way, engines in segments of
`SEGMENT` nodes per chain (every 3rd segment on the AI CPU, every 5th on the Vector Core, the
rest on the AI Core), a forced-unknown node every 997, and a reduction of all chains at the end.
The stage partitioner gets `_stage_level` 0..3 on every 1000th op (levels rising in op order);
JIT slicing gets the first half of the ops (closed under predecessors) as the known set.
Graphs are built with the dialect builders; the text is printed once to time parsing, the
reference cost. Each partitioner runs on a fresh copy of the graph, and is
reported as a ratio to that parse time and as the growth from the smallest size (the targets:
every ratio below 1 at 100k nodes, growth at most 11x for 10x the nodes).

    python bench/bench_partition.py --sizes 10000,100000
"""

from __future__ import annotations

import argparse
import gc
import io
import time
from collections.abc import Callable

import numpy as np
from xdsl.context import Context
from xdsl.dialects.builtin import (
    BoolAttr,
    IntegerAttr,
    ModuleOp,
    StringAttr,
    TensorType,
    f32,
    i64,
)
from xdsl.ir import Operation, SSAValue
from xdsl.parser import Parser
from xdsl.passes import ModulePass
from xdsl.printer import Printer

from gedialects import make_context
from gedialects.graph import AddOp, ConstOp, GraphOp, MulOp, NetOutputOp, ReluOp, SubOp
from gedialects.passes.analysis.graph_view import GraphNodes
from gedialects.passes.partition.dynamic_shape import PartitionDynamicShapePass
from gedialects.passes.partition.engine import PartitionEnginePass
from gedialects.passes.partition.inline import InlinePartitionsPass
from gedialects.passes.partition.jit import PartitionJitPass
from gedialects.passes.partition.merge_engine_partitions import MergeEnginePartitionsPass
from gedialects.passes.partition.place_engines import PlaceEnginesPass
from gedialects.passes.partition.stage import PartitionStagePass
from gedialects.tensors import dense_from_numpy

BRANCHES = 16
SEGMENT = 12
T = TensorType(f32, [4])


def build(nodes: int) -> ModuleOp:
    """A graph of about `nodes` ops (see the module docstring)."""
    graph = GraphOp("bench", [T], [T], input_names=["x"], output_names=["y"])
    block = graph.body.block
    heads: list[SSAValue] = [block.args[0]] * BRANCHES
    weight = dense_from_numpy(np.full(4, 0.5, dtype=np.float32))
    ops: list[Operation] = []
    aicpu, vector = StringAttr("DNN_VM_AICPU"), StringAttr("VectorEngine")
    forced = BoolAttr.from_bool(True)
    count = 0
    while count < nodes - BRANCHES:
        for b in range(BRANCHES):
            kind = count % 4
            if kind == 0:
                const = ConstOp(weight)
                ops.append(const)
                op: Operation = MulOp(heads[b], const)
            elif kind == 1 and b > 0:
                op = AddOp(heads[b], heads[b - 1])  # cross link
            elif kind == 2:
                op = SubOp(heads[b], heads[b])
            else:
                op = ReluOp(heads[b])
            op.attributes["node_name"] = StringAttr(f"n{count}")
            segment = count // (BRANCHES * SEGMENT)
            if segment % 3 == 2:
                op.attributes["_specified_engine_name"] = aicpu
            elif segment % 5 == 4:
                op.attributes["_specified_engine_name"] = vector
            if count % 997 == 996:
                op.attributes["_force_unknown_shape"] = forced
            ops.append(op)
            heads[b] = op.results[0]
            count += 1
    total = heads[0]
    for h in heads[1:]:
        add = AddOp(total, h)
        ops.append(add)
        total = add.results[0]
    block.add_ops([*ops, NetOutputOp([total])])
    return ModuleOp([graph])


def mark_stages(module: ModuleOp, stages: int = 4, every: int = 1000) -> None:
    """`_stage_level` on every `every`-th op, rising with the op order (no stage cycle)."""
    graph = next(iter(module.ops))
    assert isinstance(graph, GraphOp)
    ops = list(graph.body.block.ops)[:-1]
    for k in range(0, len(ops), every):
        ops[k].attributes["_stage_level"] = IntegerAttr(k * stages // len(ops), i64)


def first_half(module: ModuleOp) -> tuple[str, ...]:
    """Names of the first half of the ops: closed under predecessors (ops are in order)."""
    graph = next(iter(module.ops))
    assert isinstance(graph, GraphOp)
    nodes = GraphNodes.of(graph)
    first = len(nodes.args)
    return tuple(nodes.names[first : first + len(nodes.ops) // 2])


def timed(fn: Callable[[], object]) -> float:
    """As `timeit` does: collect first and pause cyclic GC inside, so that collections over the
    other modules this run keeps alive (several 100k-node graphs) are not billed to a pass."""
    gc.collect()
    gc.disable()
    try:
        start = time.perf_counter()
        fn()
        return time.perf_counter() - start
    finally:
        gc.enable()


def run_pass(ctx: Context, module: ModuleOp, p: ModulePass) -> Callable[[], None]:
    return lambda: p.apply(ctx, module)


def bench(nodes: int) -> dict[str, float]:
    """Each pass on a fresh module, the others' modules freed first (a heap of several
    100k-node graphs slows every pass through cache misses, not through its algorithm)."""
    ctx = make_context()
    module = build(nodes)
    out = io.StringIO()
    Printer(stream=out).print_op(module)
    text = out.getvalue()
    t_parse = timed(lambda: Parser(ctx, text).parse_module())
    row = {"nodes": float(sum(1 for _ in module.walk())), "parse_s": t_parse}
    del module, out
    text = ""  # the parsed text of a 100k-node graph is tens of MB

    placed = build(nodes)
    row["ge-place-engines"] = timed(run_pass(ctx, placed, PlaceEnginesPass()))
    row["ge-partition-dynamic-shape"] = timed(run_pass(ctx, placed, PartitionDynamicShapePass()))
    row["ge-inline-partitions"] = timed(run_pass(ctx, placed, InlinePartitionsPass()))
    del placed
    engine = build(nodes)
    PlaceEnginesPass().apply(ctx, engine)
    row["ge-partition-engine"] = timed(run_pass(ctx, engine, PartitionEnginePass()))
    row["ge-merge-engine-partitions"] = timed(run_pass(ctx, engine, MergeEnginePartitionsPass()))
    del engine
    composite = build(nodes)
    row["ge-partition-engine{composite}"] = timed(
        run_pass(ctx, composite, PartitionEnginePass(mode="composite"))
    )
    del composite
    staged = build(nodes)
    mark_stages(staged)
    row["ge-partition-stage"] = timed(run_pass(ctx, staged, PartitionStagePass()))
    del staged
    jit = build(nodes)
    known = first_half(jit)
    row["ge-partition-jit{nodes}"] = timed(run_pass(ctx, jit, PartitionJitPass(nodes=known)))
    return row


PASSES = (
    "ge-place-engines",
    "ge-partition-dynamic-shape",
    "ge-inline-partitions",
    "ge-partition-engine",
    "ge-merge-engine-partitions",
    "ge-partition-engine{composite}",
    "ge-partition-stage",
    "ge-partition-jit{nodes}",
)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="10000,100000", help="comma-separated node counts")
    args = parser.parse_args()
    rows = [bench(int(n)) for n in args.sizes.split(",")]
    first = rows[0]
    print(f"{'pass':<32}" + "".join(f"{int(r['nodes']):>12} ops" for r in rows) + "   growth")
    print(f"{'parse (s)':<32}" + "".join(f"{r['parse_s']:>16.2f}" for r in rows))
    ok = True
    for name in PASSES:
        ratios = "".join(f"{r[name]:>9.2f}s {r[name] / r['parse_s']:>4.2f}" for r in rows)
        growth = rows[-1][name] / first[name]
        print(f"{name:<32}{ratios}   {growth:6.1f}x")
        size_growth = rows[-1]["nodes"] / first["nodes"]
        ok &= rows[-1][name] < rows[-1]["parse_s"] and growth <= 1.1 * size_growth
    print("targets met" if ok else "TARGETS MISSED")


if __name__ == "__main__":
    main()
