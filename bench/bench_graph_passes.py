"""Times ge-infer-shapes, ge-fold-constants and ge-verify-graph on generated graphs of 10k and
100k nodes and checks that each stays near-linear: time(100k) <= 11 x time(10k).

Each block of the generated graph (12 nodes) has work for every pass: the input's batch dim is
`?` and every result type says `?` until `input-shape` pins it (inference touches every op);
a Mul of two constants folds; a second Relu of the same value with another name merges by
CSE; an Exp nobody uses is dead. Each pass is timed on its own copy of the graph (min of
`--repeat` runs), with Python's cyclic GC paused as the passes do. Exit status 1 if a ratio is
above the limit.

    python bench/bench_graph_passes.py [--sizes 10000,100000] [--repeat 3] [--limit 11]
"""

from __future__ import annotations

import argparse
import gc
import sys
import time
from collections.abc import Callable

import numpy as np
from xdsl.dialects.builtin import ModuleOp, StringAttr, TensorType, f32

from gedialects import make_context
from gedialects.graph import (
    AddOp,
    ConstOp,
    ExpOp,
    GraphOp,
    MatMulOp,
    MulOp,
    NetOutputOp,
    ReluOp,
    SubOp,
)
from gedialects.passes.fold_constants import FoldConstantsPass
from gedialects.passes.infer_shapes import InferShapesPass
from gedialects.passes.verify_graph import VerifyGraphPass
from gedialects.tensors import dense_from_numpy

WIDTH = 16
BATCH = 4
NODES_PER_BLOCK = 12
DYNAMIC = -1


def build(nodes: int, seed: int = 0) -> ModuleOp:
    """About `nodes` GE nodes with `?` batch dims everywhere (see the module docstring)."""
    rng = np.random.default_rng(seed)
    t = TensorType(f32, [DYNAMIC, WIDTH])
    graph = GraphOp("main", [t], [t], input_names=["x"], output_names=["y"])
    block = graph.body.block
    h = block.args[0]
    ops = []
    for i in range(max(1, nodes // NODES_PER_BLOCK)):
        w = ConstOp(dense_from_numpy((rng.standard_normal((WIDTH, WIDTH)) * 0.1).astype("f4")))
        b = ConstOp(dense_from_numpy((rng.standard_normal(WIDTH) * 0.1).astype("f4")))
        k1 = ConstOp(dense_from_numpy((rng.standard_normal(WIDTH) * 0.1).astype("f4")))
        k2 = ConstOp(dense_from_numpy(np.full(WIDTH, 0.5, "f4")))
        shift = MulOp(k1, k2)
        mm = MatMulOp(h, w, result_type=t)
        add = AddOp(mm, b, result_type=t)
        relu = ReluOp(add, result_type=t)
        twin = ReluOp(add, result_type=t)
        dead = ExpOp(add, result_type=t)
        both = AddOp(relu, twin, result_type=t)
        out = SubOp(both, shift, result_type=t)
        for op, name in ((mm, "fc"), (add, "bias"), (relu, "relu"), (twin, "twin"), (out, "out")):
            op.attributes["node_name"] = StringAttr(f"{name}{i}")
        ops += [w, b, k1, k2, shift, mm, add, relu, twin, dead, both, out]
        h = out.results[0]
    block.add_ops([*ops, NetOutputOp([h])])
    return ModuleOp([graph])


def time_pass(
    make: Callable[[], ModuleOp], apply: Callable[[ModuleOp], None], repeat: int
) -> float:
    best = float("inf")
    for _ in range(repeat):
        module = make()
        gc.collect()
        start = time.perf_counter()
        apply(module)
        best = min(best, time.perf_counter() - start)
    return best


def bench(nodes: int, repeat: int) -> dict[str, float]:
    ctx = make_context()
    infer = InferShapesPass(input_shape=f"x:{BATCH},{WIDTH}")

    def static() -> ModuleOp:
        module = build(nodes)
        infer.apply(ctx, module)
        return module

    return {
        "ge-infer-shapes": time_pass(lambda: build(nodes), lambda m: infer.apply(ctx, m), repeat),
        "ge-fold-constants": time_pass(static, lambda m: FoldConstantsPass().apply(ctx, m), repeat),
        "ge-verify-graph": time_pass(
            static, lambda m: VerifyGraphPass(device_memory=1 << 40).apply(ctx, m), repeat
        ),
    }


def check_result(nodes: int) -> None:
    """The passes do what the bench claims: all static, folded, merged, dead code gone."""
    ctx = make_context()
    module = build(nodes)
    InferShapesPass(input_shape=f"x:{BATCH},{WIDTH}").apply(ctx, module)
    FoldConstantsPass().apply(ctx, module)
    VerifyGraphPass(device_memory=1 << 40).apply(ctx, module)
    module.verify()
    names = [op.name for op in module.walk()]
    blocks = max(1, nodes // NODES_PER_BLOCK)
    assert names.count("graph.mul") == 0 and names.count("graph.exp") == 0
    assert names.count("graph.relu") == blocks, names.count("graph.relu")
    static = TensorType(f32, [BATCH, WIDTH])
    assert all(
        r.type == static for op in module.walk() if op.name == "graph.sub" for r in op.results
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="10000,100000", help="two comma-separated node counts")
    parser.add_argument("--repeat", type=int, default=3, help="runs per pass and size (min)")
    parser.add_argument("--limit", type=float, default=11.0, help="largest allowed time ratio")
    args = parser.parse_args()
    small, large = (int(n) for n in args.sizes.split(","))
    check_result(1200)
    rows = {n: bench(n, args.repeat) for n in (small, large)}
    scale = large / small
    print(f"{'pass':>18} | {small:>9} nodes s | {large:>9} nodes s | ratio (size x{scale:g})")
    failed = False
    for name in rows[small]:
        a, b = rows[small][name], rows[large][name]
        ratio = b / a
        ok = ratio <= args.limit
        failed |= not ok
        print(f"{name:>18} | {a:>17.3f} | {b:>17.3f} | {ratio:6.2f} {'ok' if ok else 'TOO SLOW'}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
