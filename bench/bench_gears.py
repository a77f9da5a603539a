"""Memory and compile time of multi-batch (gear) models: the two goals of issue 6.

1. Arena of an N-gear model / the largest arena of its gears compiled alone (goal <= 1.05):
   `ge-plan-memory` overlays the branches of the gear Case (GE's DynamicBatchMemAssigner) and
   the lowering stores each weight once, so N gears cost about one (the largest) gear.
2. Compile time (`ge-expand-multibatch` + `ge-compile`) of 100 gears / one gear (goal <= 20):
   one gear is one branch graph compiled alone with `ge-compile`. With six gears or more
   `ge-compile` compiles three probe gears and instantiates the others from them (GE's
   SymbolizeMultiBatchSubGraph, `passes.multibatch.symbolic`); `--each-gear` times the
   compile of every branch through every stage for comparison.

The model is the exported CNN (tests/models/cnn.onnx, `make models`), batch gears.

    python bench/bench_gears.py [--gears 1,2,4,8,16] [--many 100] [--repeat 3]
"""

from __future__ import annotations

import argparse
import gc
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from xdsl.dialects.builtin import ModuleOp

from gedialects import make_context
from gedialects.ascend import ModelOp
from gedialects.frontend.onnx import import_model
from gedialects.graph import GraphOp
from gedialects.passes.multibatch.expand import MultibatchExpandPass
from gedialects.passes.pipelines import CompilePipelinePass

MODEL = Path(__file__).resolve().parent.parent / "tests" / "models" / "cnn.onnx"
INPUT_SHAPE = "image:-1,3,16,16"


def expanded(original: ModuleOp, gears: list[int]) -> ModuleOp:
    module = original.clone()
    MultibatchExpandPass(
        input_shape=INPUT_SHAPE, dynamic_batch_size=",".join(map(str, gears))
    ).apply(make_context(), module)
    return module


def arena(module: ModuleOp) -> int:
    (model,) = [op for op in module.ops if isinstance(op, ModelOp)]
    return model.arena_size.value.data


def branch_modules(module: ModuleOp) -> list[ModuleOp]:
    """Each gear's branch graph alone in a module: that gear compiled without the others."""
    return [
        ModuleOp([g.clone()])
        for g in module.ops
        if isinstance(g, GraphOp) and g.sym_name.data.startswith("Batch_")
    ]


def compiled(module: ModuleOp) -> ModuleOp:
    module = module.clone()
    CompilePipelinePass().apply(make_context(), module)
    return module


@contextmanager
def timed_region() -> Iterator[None]:
    """As `timeit` does: collect before, no cyclic GC inside, so that whether a collection of
    earlier garbage lands in a timed run does not decide the ratio (both sides alike)."""
    gc.collect()
    gc.disable()
    try:
        yield
    finally:
        gc.enable()


def best_time(module: ModuleOp, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        copy = module.clone()
        with timed_region():
            start = time.perf_counter()
            CompilePipelinePass().apply(make_context(), copy)
            times.append(time.perf_counter() - start)
    return min(times)


def best_expand_compile(
    original: ModuleOp, gears: list[int], repeat: int, *, symbolic: bool = True
) -> float:
    """`ge-compile` with the gears (its first stage the expansion), as ge-atc runs it."""
    times = []
    for _ in range(repeat):
        copy = original.clone()
        with timed_region():
            start = time.perf_counter()
            CompilePipelinePass(
                input_shape=INPUT_SHAPE,
                dynamic_batch_size=",".join(map(str, gears)),
                symbolic_gears=symbolic,
            ).apply(make_context(), copy)
            times.append(time.perf_counter() - start)
    return min(times)


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--gears", default="1,2,4,8,16", help="batch gears of the memory test")
    p.add_argument("--many", type=int, default=100, help="gear count of the compile-time test")
    p.add_argument("--repeat", type=int, default=3)
    p.add_argument(
        "--each-gear",
        action="store_true",
        help="also time every gear branch through every stage (symbolic-gears=false)",
    )
    args = p.parse_args()
    if not MODEL.exists():
        print(f"{MODEL} is not exported (make models)", file=sys.stderr)
        return 1
    original = import_model(MODEL)
    gears = [int(g) for g in args.gears.split(",")]

    module = expanded(original, gears)
    singles = [arena(compiled(m)) for m in branch_modules(module)]
    together = arena(compiled(module))
    many = list(range(1, args.many + 1))
    symbolic = original.clone()
    CompilePipelinePass(input_shape=INPUT_SHAPE, dynamic_batch_size=",".join(map(str, many))).apply(
        make_context(), symbolic
    )
    largest = arena(compiled(branch_modules(expanded(original, [1, args.many]))[-1]))
    print(f"arena, {len(gears)} gears {gears}: {together} bytes")
    for gear, size in zip(gears, singles, strict=True):
        print(f"  gear {gear:>3} alone: {size} bytes")
    ratio = together / max(singles)
    print(f"arena(all gears) / max arena(one gear) = {ratio:.3f} (goal <= 1.05)")
    print(
        f"arena, {args.many} gears (probes instantiated): {arena(symbolic)} bytes; gear "
        f"{args.many} alone: {largest} bytes; ratio {arena(symbolic) / largest:.3f}"
    )

    one = best_time(branch_modules(expanded(original, [1, 2]))[0], args.repeat)
    tenth_count = max(args.many // 10, 2)
    tenth = best_expand_compile(original, many[:tenth_count], args.repeat)
    all_gears = best_expand_compile(original, many, args.repeat)
    print(
        f"compile time: 1 gear {one * 1e3:.1f} ms, {tenth_count} gears "
        f"{tenth * 1e3:.1f} ms, {args.many} gears {all_gears * 1e3:.1f} ms"
    )
    print(
        f"  {args.many} gears / 1 gear = {all_gears / one:.1f} (goal <= 20); "
        f"{args.many} gears / {tenth_count} gears = {all_gears / tenth:.1f}"
    )
    if args.each_gear:
        each = best_expand_compile(original, many, args.repeat, symbolic=False)
        print(
            f"  every gear through every stage: {args.many} gears {each * 1e3:.1f} ms, "
            f"{each / one:.1f} x 1 gear"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
