"""ONNX front end and interpreter timings (`make bench-onnx`).

1. Import time of a generated model with about 100 MB of float32 weights and 10,000 nodes
   (MatMul, Add, Relu, Mul blocks built with onnx.helper), as a ratio to `onnx.load` of the same
   file: the import reads, checks and converts the model, so a ratio near a small constant
   means the converter costs no more than a few passes over the protobuf.
2. For each model of tests/models/ (PyTorch exports): `ge-run`'s interpreter on the checked-in
   inputs at graph level and after `ge-compile`, against onnxruntime on the same inputs, as ratios
   measured in the same run (these machines are noisy: ratios are stable where seconds are not).
   Skipped with a message when onnxruntime is not installed (`pip install -e '.[bench]'`).

    python bench/bench_onnx.py [--blocks 2500] [--width 100] [--repeat 20]
"""

from __future__ import annotations

import argparse
import gc
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from types import ModuleType
from typing import TypeVar

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper
from xdsl.dialects.builtin import ModuleOp

from gedialects import make_context
from gedialects.frontend.onnx import import_model
from gedialects.interpreters.run import run
from gedialects.passes.pipelines import CompilePipelinePass

T = TypeVar("T")
ROOT = Path(__file__).resolve().parent.parent
MODELS = ROOT / "tests" / "models"


def timed(fn: Callable[[], T]) -> tuple[T, float]:
    gc.collect()
    start = time.perf_counter()
    result = fn()
    return result, time.perf_counter() - start


def best_of(fn: Callable[[], object], repeat: int) -> float:
    """The median of `repeat` timed calls (after one warm-up call)."""
    fn()
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def big_model(blocks: int, width: int, seed: int = 0) -> onnx.ModelProto:
    """`blocks` x (MatMul by a width x width weight, bias Add, Relu, scale Mul): 4 nodes and
    (width + 2) * width floats per block; the scale keeps values bounded at any depth."""
    rng = np.random.default_rng(seed)
    nodes, inits = [], []
    h = "x"
    scale = numpy_helper.from_array(np.array(0.5, np.float32), "scale")
    for i in range(blocks):
        w = (rng.standard_normal((width, width)) / np.sqrt(width)).astype(np.float32)
        b = (rng.standard_normal(width) * 0.1).astype(np.float32)
        inits += [numpy_helper.from_array(w, f"w{i}"), numpy_helper.from_array(b, f"b{i}")]
        nodes += [
            helper.make_node("MatMul", [h, f"w{i}"], [f"mm{i}"], name=f"fc{i}"),
            helper.make_node("Add", [f"mm{i}", f"b{i}"], [f"pre{i}"], name=f"bias{i}"),
            helper.make_node("Relu", [f"pre{i}"], [f"act{i}"], name=f"relu{i}"),
            helper.make_node("Mul", [f"act{i}", "scale"], [f"h{i}"], name=f"scale{i}"),
        ]
        h = f"h{i}"
    nodes[-1].output[0] = "y"
    graph = helper.make_graph(
        nodes,
        "big",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, width])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, width])],
        [scale, *inits],
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])


def bench_import(blocks: int, width: int) -> None:
    import_model(big_model(2, 4))  # warm-up: the converter modules load on first use
    proto = big_model(blocks, width)
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "big.onnx"
        onnx.save(proto, str(path))
        del proto
        size_mb = path.stat().st_size / 1e6
        loaded, t_load = timed(lambda: onnx.load(str(path)))
        nodes = len(loaded.graph.node)
        del loaded
        module, t_import = timed(lambda: import_model(path))
        ops = sum(1 for _ in module.walk())
    print(f"== import: generated model, {size_mb:.0f} MB, {nodes} ONNX nodes -> {ops} ops")
    print(f"onnx.load {t_load:.2f} s, import_model {t_import:.2f} s, ratio {t_import / t_load:.1f}")


def pinned(proto: onnx.ModelProto, inputs: dict[str, np.ndarray]) -> onnx.ModelProto:
    """A copy with the static input shapes of `inputs`: ge-compile needs static shapes."""
    copy = onnx.ModelProto()
    copy.CopyFrom(proto)
    for vi in copy.graph.input:
        for dim, size in zip(vi.type.tensor_type.shape.dim, inputs[vi.name].shape, strict=True):
            dim.Clear()
            dim.dim_value = size
    return copy


def compiled(module: ModuleOp) -> ModuleOp:
    lowered = module.clone()
    CompilePipelinePass().apply(make_context(), lowered)
    return lowered


def max_diff(got: dict[str, np.ndarray], want: dict[str, np.ndarray]) -> float:
    return max(
        float(np.max(np.abs(got[k].astype(np.float64) - want[k]), initial=0.0)) for k in want
    )


def row(cells: Sequence[str]) -> str:
    return " | ".join([f"{cells[0]:<15}", *(f"{c:>10}" for c in cells[1:])])


def bench_model(path: Path, ort: ModuleType, repeat: int) -> str:
    """One table row: onnxruntime, graph-level and ascend-level run times of one model."""
    proto = onnx.load(str(path))
    with np.load(MODELS / f"{path.stem}.inputs.npz") as data:
        inputs = {k: data[k] for k in data.files}
    session = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
    names = [o.name for o in proto.graph.output]
    want = dict(zip(names, session.run(names, inputs), strict=True))
    module = import_model(proto)
    diffs = [max_diff(run(module, inputs), want)]
    t_ort = best_of(lambda: session.run(names, inputs), repeat)
    t_graph = best_of(lambda: run(module, inputs), repeat)
    note, t_ascend = "", None
    try:
        lowered = compiled(import_model(pinned(proto, inputs)))
    except Exception as e:  # data-dependent shapes: no static task plan
        note = "  ascend: " + str(e).split(";")[0]
    else:
        diffs.append(max_diff(run(lowered, inputs), want))
        t_ascend = best_of(lambda: run(lowered, inputs), repeat)
    cells = [path.stem, str(len(proto.graph.node)), f"{t_ort * 1e3:.3f}", f"{t_graph * 1e3:.2f}"]
    cells += [f"{t_ascend * 1e3:.2f}" if t_ascend is not None else "n/a"]
    cells += [f"{t_graph / t_ort:.0f}x"]
    cells += [f"{t_ascend / t_ort:.0f}x" if t_ascend is not None else "n/a"]
    return row(cells) + f" | {max(diffs):.1e}{note}"


def bench_models(repeat: int) -> None:
    try:
        import onnxruntime as ort
    except ImportError:
        print("== models: skipped, onnxruntime is not installed (pip install -e '.[bench]')")
        return
    print(f"== ge-run interpreter vs onnxruntime {ort.__version__} (median of {repeat} runs)")
    header = ("model", "nodes", "ort ms", "graph ms", "ascend ms", "graph/ort", "ascend/ort")
    print(row(header) + " | max |ge - ort|")
    for path in sorted(MODELS.glob("*.onnx")):
        print(bench_model(path, ort, repeat))


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--blocks", type=int, default=2500, help="4-node blocks of the big model")
    p.add_argument("--width", type=int, default=100, help="weights per block: width^2 + width")
    p.add_argument("--repeat", type=int, default=20, help="timed runs per model and level")
    p.add_argument("--skip-import", action="store_true", help="only the model runs")
    args = p.parse_args()
    if not args.skip_import:
        bench_import(args.blocks, args.width)
    bench_models(args.repeat)
    sys.stdout.flush()


if __name__ == "__main__":
    main()
