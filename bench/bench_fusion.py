"""Times `ge-fuse` on generated graphs of growing size and checks it stays linear.

Each block of the generated graph gives every fusion kind something to do: a Gemm-like MatMul
with a transposed weight and a bias Add, a Relu, a decomposed GELU, a scale-and-shift
Mul/Add, a cancelling Transpose pair, an f32 -> f64 -> f32 Cast pair, an Identity and a Reshape
chain (18 GE nodes, constants shared between blocks). The pass time is reported per node
and as the ratio of the largest to the smallest size; `--check` exits 1 when
time(100k) > 11 x time(10k) (with sizes 10000,100000), the project's linearity bound.

    python bench/bench_fusion.py --sizes 10000,100000 --check
"""

from __future__ import annotations

import argparse
import gc
import sys
import time

import numpy as np
from xdsl.dialects.builtin import ModuleOp, TensorType, f32, f64

from gedialects import make_context
from gedialects.graph import (
    AddOp,
    CastOp,
    ConstOp,
    DivOp,
    ErfOp,
    GraphOp,
    IdentityOp,
    MatMulOp,
    MulOp,
    NetOutputOp,
    ReluOp,
    ReshapeOp,
    TransposeOp,
)
from gedialects.passes.fusion.fuse import FusePass
from gedialects.tensors import dense_from_numpy

WIDTH = 8
BATCH = 4
NODES_PER_BLOCK = 18


def const(array: np.ndarray) -> ConstOp:
    return ConstOp(dense_from_numpy(np.asarray(array)))


def build(nodes: int) -> ModuleOp:
    """A chain of about `nodes` GE nodes (NODES_PER_BLOCK per block)."""
    rng = np.random.default_rng(0)
    t = TensorType(f32, [BATCH, WIDTH])
    graph = GraphOp("fusable", [t], [t], input_names=["x"], output_names=["y"])
    shared = {
        "w": const((rng.standard_normal((WIDTH, WIDTH)) * 0.3).astype("f4")),
        "b": const((rng.standard_normal(WIDTH) * 0.1).astype("f4")),
        "scale": const(np.full(WIDTH, 0.9, dtype="f4")),
        "sqrt2": const(np.array(np.sqrt(2.0), dtype="f4")),
        "one": const(np.array(1.0, dtype="f4")),
        "half": const(np.array(0.5, dtype="f4")),
        "flat": const(np.array([BATCH * WIDTH], dtype=np.int64)),
        "shape": const(np.array([BATCH, WIDTH], dtype=np.int64)),
    }
    c = {k: v.y for k, v in shared.items()}
    ops: list = list(shared.values())
    h = graph.body.block.args[0]
    for _ in range(max(1, nodes // NODES_PER_BLOCK)):
        wt = TransposeOp(c["w"], [1, 0])
        mm = MatMulOp(h, wt)
        bias = AddOp(mm, c["b"])
        relu = ReluOp(bias)
        div = DivOp(relu, c["sqrt2"])
        erf = ErfOp(div)
        plus = AddOp(erf, c["one"])
        times = MulOp(relu, plus)
        gelu = MulOp(times, c["half"])
        scaled = MulOp(gelu, c["scale"])
        shifted = AddOp(scaled, c["b"])
        t1 = TransposeOp(shifted, [1, 0])
        t2 = TransposeOp(t1, [1, 0])
        up = CastOp(t2, f64)
        down = CastOp(up, f32)
        ident = IdentityOp(down)
        flat = ReshapeOp(ident, c["flat"])
        back = ReshapeOp(flat, c["shape"])
        block_ops = [wt, mm, bias, relu, div, erf, plus, times, gelu, scaled, shifted]
        block_ops += [t1, t2, up, down, ident, flat, back]
        ops += block_ops
        h = back.results[0]
    graph.body.block.add_ops([*ops, NetOutputOp([h])])
    return ModuleOp([graph])


def count_nodes(module: ModuleOp) -> int:
    return sum(
        1 for op in module.walk() if op.name.startswith("graph.") and op.name != "graph.graph"
    )


def time_fuse(nodes: int) -> tuple[int, int, float]:
    """(nodes before, nodes after, seconds of ge-fuse) on a fresh graph."""
    module = build(nodes)
    before = count_nodes(module)
    ctx = make_context()
    gc.collect()
    gc.disable()
    try:
        start = time.perf_counter()
        FusePass().apply(ctx, module)
        seconds = time.perf_counter() - start
    finally:
        gc.enable()
    return before, count_nodes(module), seconds


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="10000,100000", help="comma-separated node counts")
    parser.add_argument("--check", action="store_true", help="exit 1 if not near-linear")
    parser.add_argument("--repeat", type=int, default=1, help="keep the fastest of N runs")
    args = parser.parse_args(argv)
    sizes = [int(s) for s in args.sizes.split(",")]
    results = []
    for size in sizes:
        runs = [time_fuse(size) for _ in range(max(1, args.repeat))]
        before, after, seconds = min(runs, key=lambda r: r[2])
        results.append(seconds)
        per_node = seconds / before * 1e6
        print(f"{before:>8} nodes -> {after:>7}: ge-fuse {seconds:7.2f} s ({per_node:.1f} us/node)")
    if len(sizes) > 1:
        ratio = results[-1] / results[0]
        bound = 1.1 * sizes[-1] / sizes[0]
        scale = sizes[-1] / sizes[0]
        print(f"time ratio {ratio:.2f} for a size ratio {scale:.0f} (bound {bound:.0f})")
        if args.check and ratio > bound:
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
