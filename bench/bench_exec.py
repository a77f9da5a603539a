"""Execution speed on compute-bound models (issue 14 part 4, `make bench`).

Two models built with onnx.helper, at batch 8:

- cnn: a ResNet-like CNN at 112x112 (Conv+BatchNorm+Relu stem, MaxPool, residual blocks of
  two 3x3 convolutions with a strided projection block, global average pool, Gemm head);
- encoder: a two-layer BERT-like encoder (d_model 256, 4 heads, FFN 1024, sequence 128,
  LayerNormalization, Softmax attention, erf Gelu as PyTorch exports it).

Each runs through `gedialects.interpreters.run.run` at graph level (the imported module) and
after `ge-compile` (ascend level), on one interpreter per level made before timing (the model
loaded once, as GE's LoadModel then ExecuteModel and an onnxruntime session do: the plan, the
decoded program and the arena are reused, a run costs the execution only), against a plain
op-by-op numpy loop over the same ONNX graph (`NumpyFloor`: straightforward numpy per node, no
fusion, no preallocation) and against onnxruntime (a bench extra). Times are medians, ratios
are measured in the same run; outputs are checked against onnxruntime.

    python bench/bench_exec.py [--repeat 5] [--models cnn,encoder] [--threads N]
                               [--clock wall|cpu] [--profile cnn:graph]

On a shared machine, threaded BLAS is erratic (threads spin and wait for cores that other
processes hold: a 2 ms GEMM takes 2 to 100 ms); `--threads 1` compares single-threaded numpy
with single-threaded onnxruntime, which is stable under load.
"""

from __future__ import annotations

import argparse
import cProfile
import math
import os
import pstats
import statistics
import sys
import time
from collections.abc import Callable, Mapping
from typing import Any

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

from gedialects import make_context
from gedialects.frontend.onnx import import_model
from gedialects.interpreters import make_interpreter
from gedialects.interpreters.run import run
from gedialects.passes.pipelines import CompilePipelinePass

BATCH = 8

# --------------------------------------------------------------------------------------------
# Models
# --------------------------------------------------------------------------------------------


class Builder:
    """Nodes and initializers of one ONNX graph, with fresh names."""

    def __init__(self, seed: int) -> None:
        self.rng = np.random.default_rng(seed)
        self.nodes: list[onnx.NodeProto] = []
        self.inits: list[onnx.TensorProto] = []
        self.count = 0

    def name(self, hint: str) -> str:
        self.count += 1
        return f"{hint}{self.count}"

    def const(self, array: np.ndarray, hint: str = "w") -> str:
        name = self.name(hint)
        self.inits.append(numpy_helper.from_array(np.asarray(array), name))
        return name

    def weight(self, shape: tuple[int, ...], fan_in: int) -> str:
        w = self.rng.standard_normal(shape) * math.sqrt(2.0 / fan_in)
        return self.const(w.astype(np.float32))

    def node(self, op: str, inputs: list[str], **attrs: Any) -> str:
        out = self.name(op.lower())
        self.nodes.append(helper.make_node(op, inputs, [out], name=out, **attrs))
        return out

    def model(
        self, name: str, x: tuple[str, list[int]], y: str, y_shape: list[int]
    ) -> onnx.ModelProto:
        assert self.nodes[-1].output[0] == y, "the output is the last node's"
        self.nodes[-1].output[0] = "y"
        graph = helper.make_graph(
            self.nodes,
            name,
            [helper.make_tensor_value_info(x[0], TensorProto.FLOAT, x[1])],
            [helper.make_tensor_value_info("y", TensorProto.FLOAT, y_shape)],
            self.inits,
        )
        model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
        onnx.checker.check_model(model)
        return model


def conv_bn(b: Builder, x: str, cin: int, cout: int, k: int, stride: int, relu: bool) -> str:
    w = b.weight((cout, cin, k, k), cin * k * k)
    pad = k // 2
    y = b.node("Conv", [x, w], kernel_shape=[k, k], strides=[stride, stride], pads=[pad] * 4)
    scale = b.const((1.0 + 0.1 * b.rng.standard_normal(cout)).astype(np.float32), "g")
    bias = b.const((0.1 * b.rng.standard_normal(cout)).astype(np.float32), "b")
    mean = b.const((0.1 * b.rng.standard_normal(cout)).astype(np.float32), "m")
    var = b.const((1.0 + 0.1 * b.rng.random(cout)).astype(np.float32), "v")
    y = b.node("BatchNormalization", [y, scale, bias, mean, var], epsilon=1e-5)
    return b.node("Relu", [y]) if relu else y


def res_block(b: Builder, x: str, cin: int, cout: int, stride: int) -> str:
    h = conv_bn(b, x, cin, cout, 3, stride, relu=True)
    h = conv_bn(b, h, cout, cout, 3, 1, relu=False)
    skip = x if stride == 1 and cin == cout else conv_bn(b, x, cin, cout, 1, stride, relu=False)
    return b.node("Relu", [b.node("Add", [h, skip])])


def cnn(batch: int = BATCH, size: int = 112) -> onnx.ModelProto:
    b = Builder(seed=1)
    h = conv_bn(b, "x", 3, 32, 3, 2, relu=True)  # 56x56
    h = b.node("MaxPool", [h], kernel_shape=[3, 3], strides=[2, 2], pads=[1, 1, 1, 1])  # 28
    h = res_block(b, h, 32, 32, 1)
    h = res_block(b, h, 32, 32, 1)
    h = res_block(b, h, 32, 64, 2)  # 14x14
    h = res_block(b, h, 64, 64, 1)
    h = b.node("Flatten", [b.node("GlobalAveragePool", [h])])
    w = b.weight((64, 10), 64)
    y = b.node("Gemm", [h, w, b.const(np.zeros(10, np.float32), "b")])
    return b.model("cnn", ("x", [batch, 3, size, size]), y, [batch, 10])


def layer_norm(b: Builder, x: str, d: int) -> str:
    g = b.const((1.0 + 0.1 * b.rng.standard_normal(d)).astype(np.float32), "g")
    beta = b.const((0.1 * b.rng.standard_normal(d)).astype(np.float32), "b")
    return b.node("LayerNormalization", [x, g, beta], axis=-1, epsilon=1e-5)


def linear(b: Builder, x: str, din: int, dout: int) -> str:
    y = b.node("MatMul", [x, b.weight((din, dout), din)])
    return b.node("Add", [y, b.const((0.02 * b.rng.standard_normal(dout)).astype(np.float32))])


def gelu(b: Builder, x: str) -> str:
    """erf Gelu in the order of PyTorch's export (ge-fuse-gelu's pattern)."""
    inner = b.node("Erf", [b.node("Div", [x, b.const(np.array(math.sqrt(2), np.float32))])])
    one_plus = b.node("Add", [inner, b.const(np.array(1.0, np.float32))])
    return b.node("Mul", [b.node("Mul", [x, one_plus]), b.const(np.array(0.5, np.float32))])


def encoder_layer(b: Builder, x: str, batch: int, seq: int, d: int, heads: int, ffn: int) -> str:
    dh = d // heads
    split = b.const(np.array([batch, seq, heads, dh], np.int64), "shape")
    merge = b.const(np.array([batch, seq, d], np.int64), "shape")

    def heads_of(t: str, perm: list[int]) -> str:
        return b.node("Transpose", [b.node("Reshape", [t, split])], perm=perm)

    q = heads_of(linear(b, x, d, d), [0, 2, 1, 3])
    k = heads_of(linear(b, x, d, d), [0, 2, 3, 1])
    v = heads_of(linear(b, x, d, d), [0, 2, 1, 3])
    scores = b.node("Div", [b.node("MatMul", [q, k]), b.const(np.array(math.sqrt(dh), np.float32))])
    ctx = b.node("MatMul", [b.node("Softmax", [scores], axis=-1), v])
    ctx = b.node("Reshape", [b.node("Transpose", [ctx], perm=[0, 2, 1, 3]), merge])
    h = layer_norm(b, b.node("Add", [x, linear(b, ctx, d, d)]), d)
    f = linear(b, gelu(b, linear(b, h, d, ffn)), ffn, d)
    return layer_norm(b, b.node("Add", [h, f]), d)


def encoder(
    batch: int = BATCH, seq: int = 128, d: int = 256, heads: int = 4, ffn: int = 1024
) -> onnx.ModelProto:
    b = Builder(seed=2)
    h = "x"
    for _ in range(2):
        h = encoder_layer(b, h, batch, seq, d, heads, ffn)
    return b.model("encoder", ("x", [batch, seq, d]), h, [batch, seq, d])


MODELS: dict[str, Callable[[], onnx.ModelProto]] = {"cnn": cnn, "encoder": encoder}


def model_input(name: str, model: onnx.ModelProto) -> dict[str, np.ndarray]:
    vi = model.graph.input[0]
    shape = [d.dim_value for d in vi.type.tensor_type.shape.dim]
    rng = np.random.default_rng(3)
    return {vi.name: rng.standard_normal(shape).astype(np.float32)}


# --------------------------------------------------------------------------------------------
# The numpy floor: one straightforward numpy expression per ONNX node
# --------------------------------------------------------------------------------------------


def _attrs(node: onnx.NodeProto) -> dict[str, Any]:
    return {a.name: helper.get_attribute_value(a) for a in node.attribute}


def _conv(x: np.ndarray, w: np.ndarray, a: dict[str, Any]) -> np.ndarray:
    """im2col by sliding_window_view, one tensordot (BLAS)."""
    s = a.get("strides", [1, 1])
    p = a.get("pads", [0, 0, 0, 0])
    x = np.pad(x, ((0, 0), (0, 0), (p[0], p[2]), (p[1], p[3])))
    kh, kw = w.shape[2:]
    win = np.lib.stride_tricks.sliding_window_view(x, (kh, kw), axis=(2, 3))[:, :, :: s[0], :: s[1]]
    y = np.tensordot(win, w, axes=([1, 4, 5], [1, 2, 3]))  # N, OH, OW, C_out
    return np.ascontiguousarray(y.transpose(0, 3, 1, 2))


def _max_pool(x: np.ndarray, a: dict[str, Any]) -> np.ndarray:
    k, s, p = a["kernel_shape"], a.get("strides", [1, 1]), a.get("pads", [0, 0, 0, 0])
    x = np.pad(x, ((0, 0), (0, 0), (p[0], p[2]), (p[1], p[3])), constant_values=-np.inf)
    win = np.lib.stride_tricks.sliding_window_view(x, tuple(k), axis=(2, 3))[:, :, :: s[0], :: s[1]]
    return win.max(axis=(4, 5))


def _batch_norm(
    x: np.ndarray, g: np.ndarray, b: np.ndarray, m: np.ndarray, v: np.ndarray, a: dict[str, Any]
) -> np.ndarray:
    shape = (1, -1) + (1,) * (x.ndim - 2)
    inv = g / np.sqrt(v + a.get("epsilon", 1e-5))
    return (x - m.reshape(shape)) * inv.reshape(shape) + b.reshape(shape)


def _layer_norm(x: np.ndarray, g: np.ndarray, b: np.ndarray, a: dict[str, Any]) -> np.ndarray:
    mean = x.mean(axis=-1, keepdims=True)
    var = ((x - mean) ** 2).mean(axis=-1, keepdims=True)
    return (x - mean) / np.sqrt(var + a.get("epsilon", 1e-5)) * g + b


def _softmax(x: np.ndarray, a: dict[str, Any]) -> np.ndarray:
    e = np.exp(x - x.max(axis=a.get("axis", -1), keepdims=True))
    return e / e.sum(axis=a.get("axis", -1), keepdims=True)


def _gemm(x: np.ndarray, w: np.ndarray, c: np.ndarray, a: dict[str, Any]) -> np.ndarray:
    x = x.T if a.get("transA") else x
    w = w.T if a.get("transB") else w
    return a.get("alpha", 1.0) * (x @ w) + a.get("beta", 1.0) * c


def _erf(x: np.ndarray) -> np.ndarray:
    from scipy.special import erf

    return erf(x)


FLOOR_OPS: dict[str, Callable[..., np.ndarray]] = {
    "Conv": lambda a, x, w: _conv(x, w, a),
    "BatchNormalization": lambda a, *xs: _batch_norm(*xs, a),
    "Relu": lambda a, x: np.maximum(x, 0),
    "Add": lambda a, x, y: x + y,
    "Mul": lambda a, x, y: x * y,
    "Div": lambda a, x, y: x / y,
    "MaxPool": lambda a, x: _max_pool(x, a),
    "GlobalAveragePool": lambda a, x: x.mean(axis=(2, 3), keepdims=True),
    "Flatten": lambda a, x: x.reshape(x.shape[0], -1),
    "Gemm": lambda a, x, w, c: _gemm(x, w, c, a),
    "MatMul": lambda a, x, y: x @ y,
    "Reshape": lambda a, x, s: x.reshape(s),
    "Transpose": lambda a, x: np.transpose(x, a["perm"]),
    "Softmax": lambda a, x: _softmax(x, a),
    "LayerNormalization": lambda a, *xs: _layer_norm(*xs, a),
    "Erf": lambda a, x: _erf(x),
}


class NumpyFloor:
    """The ONNX graph run node by node in plain numpy: the floor the issue's goal is against."""

    def __init__(self, model: onnx.ModelProto) -> None:
        self.consts = {t.name: numpy_helper.to_array(t) for t in model.graph.initializer}
        self.nodes = [
            (FLOOR_OPS[n.op_type], _attrs(n), list(n.input), n.output[0]) for n in model.graph.node
        ]
        self.outputs = [o.name for o in model.graph.output]

    def __call__(self, inputs: Mapping[str, np.ndarray]) -> dict[str, np.ndarray]:
        env = {**self.consts, **inputs}
        for fn, attrs, ins, out in self.nodes:
            env[out] = fn(attrs, *(env[i] for i in ins))
        return {name: env[name] for name in self.outputs}


# --------------------------------------------------------------------------------------------
# Measuring
# --------------------------------------------------------------------------------------------


def median_times(
    runners: Mapping[str, Callable[[], object]], repeat: int, clock: Callable[[], float]
) -> dict[str, float]:
    """The median time of each runner, timed round-robin (one call of each per round) so that
    the load of a shared machine falls on all of them alike; one warm-up call each."""
    for fn in runners.values():
        fn()  # warm-up: plans, caches, first-use imports
    times: dict[str, list[float]] = {k: [] for k in runners}
    for _ in range(repeat):
        for k, fn in runners.items():
            start = clock()
            fn()
            times[k].append(clock() - start)
    return {k: statistics.median(v) for k, v in times.items()}


CLOCKS: dict[str, Callable[[], float]] = {"wall": time.perf_counter, "cpu": time.process_time}
"""cpu: the process's CPU time (all its threads), which waiting for a core does not count."""


def max_rel_diff(got: Mapping[str, np.ndarray], want: Mapping[str, np.ndarray]) -> float:
    worst = 0.0
    for k, w in want.items():
        scale = float(np.max(np.abs(w))) or 1.0
        worst = max(worst, float(np.max(np.abs(got[k].astype(np.float64) - w))) / scale)
    return worst


def levels(model: onnx.ModelProto) -> dict[str, Any]:
    graph = import_model(model)
    ascend = graph.clone()
    CompilePipelinePass().apply(make_context(), ascend)
    return {"graph": graph, "ascend": ascend}


def bench(name: str, repeat: int, ort: Any, threads: int, clock: str) -> list[str]:
    model = MODELS[name]()
    inputs = model_input(name, model)
    floor = NumpyFloor(model)
    want = floor(inputs)
    runners: dict[str, Callable[[], Mapping[str, np.ndarray]]] = {"numpy": lambda: floor(inputs)}
    if ort is not None:
        options = ort.SessionOptions()
        if threads:  # as the help says: otherwise ORT spins a thread per core, counted in cpu time
            options.intra_op_num_threads = threads
        session = ort.InferenceSession(
            model.SerializeToString(), options, providers=["CPUExecutionProvider"]
        )
        names = [o.name for o in model.graph.output]
        runners["onnxruntime"] = lambda: dict(zip(names, session.run(names, inputs), strict=True))
        want = runners["onnxruntime"]()
    for level, module in levels(model).items():
        interp = make_interpreter(module)  # loaded once, as an onnxruntime session is
        runners[level] = lambda module=module, interp=interp: run(
            module, inputs, interpreter=interp
        )
    times = median_times(runners, repeat, CLOCKS[clock])
    diffs = {k: max_rel_diff(fn(), want) for k, fn in runners.items()}
    rows = []
    for level in ("graph", "ascend"):
        t = times[level]
        ort_ratio = f"{t / times['onnxruntime']:.2f}" if "onnxruntime" in times else "n/a"
        ort_ms = f"{times['onnxruntime'] * 1e3:.1f}" if "onnxruntime" in times else "n/a"
        numpy_ms = times["numpy"] * 1e3
        rows.append(
            f"{name:<8} {level:<7} {len(model.graph.node):>5} {t * 1e3:>9.1f} {numpy_ms:>9.1f} "
            f"{ort_ms:>9} {t / times['numpy']:>8.2f} {ort_ratio:>8} {diffs[level]:>9.1e}"
        )
    return rows


def profile(spec: str) -> None:
    """cProfile of one model at one level (`cnn:graph`), the top 25 by own time."""
    name, level = spec.split(":")
    model = MODELS[name]()
    inputs = model_input(name, model)
    module = levels(model)[level]
    interp = make_interpreter(module)
    run(module, inputs, interpreter=interp)
    prof = cProfile.Profile()
    prof.enable()
    for _ in range(3):
        run(module, inputs, interpreter=interp)
    prof.disable()
    pstats.Stats(prof).sort_stats("tottime").print_stats(25)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--repeat", type=int, default=5, help="timed runs per model and level")
    p.add_argument("--models", default="cnn,encoder", help="comma-separated: cnn, encoder")
    p.add_argument("--profile", metavar="MODEL:LEVEL", help="cProfile one run instead")
    p.add_argument(
        "--threads",
        type=int,
        default=0,
        help="BLAS threads (numpy, via OPENBLAS_NUM_THREADS/OMP_NUM_THREADS) and onnxruntime "
        "intra-op threads; 0: each library's default",
    )
    p.add_argument(
        "--clock",
        choices=sorted(CLOCKS),
        default="wall",
        help="wall time, or CPU time (stable on a loaded machine; fair with --threads 1)",
    )
    args = p.parse_args()
    if args.threads and os.environ.get("OPENBLAS_NUM_THREADS") != str(args.threads):
        # BLAS reads its thread count when numpy loads: start again with it set
        env = {**os.environ, "OPENBLAS_NUM_THREADS": str(args.threads)}
        env["OMP_NUM_THREADS"] = str(args.threads)
        os.execve(sys.executable, [sys.executable, *sys.argv], env)
    if args.profile:
        profile(args.profile)
        return
    try:
        import onnxruntime as ort
    except ImportError:
        ort = None
        print("onnxruntime is not installed (pip install -e '.[bench]'): its columns are n/a")
    else:
        print(f"onnxruntime {ort.__version__}")
    threads = f"{args.threads} thread(s)" if args.threads else "default threads"
    print(
        f"== execution at batch {BATCH}, {threads}, {args.clock} time, median of {args.repeat} "
        "round-robin runs (ms; ratios of this run)"
    )
    print(
        f"{'model':<8} {'level':<7} {'nodes':>5} {'ge ms':>9} {'numpy ms':>9} {'ort ms':>9} "
        f"{'ge/numpy':>8} {'ge/ort':>8} {'max rel':>9}"
    )
    for name in args.models.split(","):
        for line in bench(name, args.repeat, ort, args.threads, args.clock):
            print(line)
        sys.stdout.flush()


if __name__ == "__main__":
    main()
