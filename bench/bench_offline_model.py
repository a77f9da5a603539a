"""Offline model size and load time: an `ascend` module with `--mb` MB of weights.

Builds a graph whose MatMul weight holds `--mb` MB of float32, compiles it with
`ge-opt -p ge-compile -o model.mlir` (xDSL prints large dense attributes as one hex string),
then measures what `ge-run` does before running: read, parse and verify the module (the `ge-run`
loader) and turn the weights into arrays (the interpreter's per-model plan).
The baseline is numpy loading the same weight bytes from an .npy file (fully, and memory
mapped). Also times the whole `ge-run` command (load and one run).

    python bench/bench_offline_model.py --mb 100
"""

from __future__ import annotations

import argparse
import math
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

import numpy as np

from gedialects.ascend import ModelOp
from gedialects.tensors import numpy_from_dense
from gedialects.tools.ge_run import _parse_module

T = TypeVar("T")


def graph_text(weight: np.ndarray) -> str:
    rows, cols = weight.shape
    hexed = "0x" + weight.tobytes().hex().upper()
    return (
        f"graph.graph @big(%x: tensor<1x{rows}xf32>) -> "
        f'(tensor<1x{cols}xf32> {{node_name = "y"}}) {{\n'
        f'  %w = graph.const dense<"{hexed}"> : tensor<{rows}x{cols}xf32>\n'
        f'  %y = graph.matmul %x, %w {{node_name = "mm"}} : (tensor<1x{rows}xf32>, '
        f"tensor<{rows}x{cols}xf32>) -> tensor<1x{cols}xf32>\n"
        f"  graph.net_output %y : tensor<1x{cols}xf32>\n}}\n"
    )


def tool(name: str) -> str:
    local = Path(sys.executable).parent / name
    return str(local) if local.exists() else name


def timed(fn: Callable[[], T], repeat: int = 1) -> tuple[float, T]:
    """Best wall time of `repeat` calls, and the last result."""
    best = math.inf
    for _ in range(repeat):
        start = time.perf_counter()
        result = fn()
        best = min(best, time.perf_counter() - start)
    return best, result


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--mb", type=float, default=100.0, help="weight megabytes (10^6 bytes)")
    p.add_argument("--repeat", type=int, default=2, help="best of N for the in-process loads")
    p.add_argument("--keep", metavar="DIR", help="write the files here instead of a temp dir")
    args = p.parse_args()

    side = max(1, int(math.sqrt(args.mb * 1e6 / 4)))
    weight = np.random.default_rng(0).standard_normal((side, side)).astype(np.float32)
    with tempfile.TemporaryDirectory() as scratch:
        folder = Path(args.keep or scratch)
        folder.mkdir(parents=True, exist_ok=True)
        graph, model, npy = folder / "graph.mlir", folder / "model.mlir", folder / "weight.npy"
        graph.write_text(graph_text(weight))
        np.save(npy, weight)

        compile_s, _ = timed(
            lambda: subprocess.run(
                [tool("ge-opt"), str(graph), "-p", "ge-compile", "-o", str(model)], check=True
            )
        )
        read_s, text = timed(lambda: model.read_bytes(), args.repeat)
        load_s, module = timed(lambda: _parse_module(str(model)), args.repeat)
        entry = next(op for op in module.walk() if isinstance(op, ModelOp))
        arrays_s, arrays = timed(
            lambda: [numpy_from_dense(w.value) for w in entry.weights()], args.repeat
        )
        assert any(a.shape == weight.shape and np.array_equal(a, weight) for a in arrays)
        npy_s, _ = timed(lambda: np.load(npy), args.repeat)
        mmap_s, _ = timed(lambda: np.asarray(np.load(npy, mmap_mode="r")).sum(), args.repeat)
        run_s, _ = timed(
            lambda: subprocess.run(
                [tool("ge-run"), str(model), "--random-inputs", "0", "-q"], check=True
            )
        )
        size = model.stat().st_size
        del text, module, arrays

    mb = weight.nbytes / 1e6
    print(f"weights {mb:.1f} MB ({side}x{side} f32); model file {size / 1e6:.1f} MB "
          f"({size / weight.nbytes:.2f}x the weight bytes)")  # fmt: skip
    print(f"ge-opt -p ge-compile -o (compile and print)  {compile_s:8.2f} s")
    print(f"read file                                   {read_s:8.2f} s")
    print(f"parse + verify (ge-run loader)              {load_s:8.2f} s  "
          f"({load_s / mb * 1e3:.1f} ms/MB)")  # fmt: skip
    print(f"weights to numpy arrays                     {arrays_s:8.2f} s")
    print(f"numpy np.load of the same bytes (.npy)      {npy_s:8.3f} s")
    print(f"numpy memmap + sum (.npy)                   {mmap_s:8.3f} s")
    print(f"load / np.load                              {(load_s + arrays_s) / npy_s:8.1f}x")
    print(f"ge-run end to end (start, load, one run)    {run_s:8.2f} s")


if __name__ == "__main__":
    main()
