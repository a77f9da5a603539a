"""Builds the data-dependent gear model of `tests/test_gear_models.py` (issue 19, part 5) with
onnx's helper, and the outputs onnxruntime computes at each batch (`gear_nonzero_b<N>`); and
inputs and onnxruntime's outputs at each gear of the three control-flow models (issue 17:
`gear_<model>_<k>` for the `k`-th gear of `GEARS`).

`gear_nonzero`: a static part (MatMul, Add, Relu, Mul, Sigmoid) on `x: [batch, 8]`, then NonZero
of `h > 0.5` and GatherND of those elements (a data-dependent length), then static again
(ReduceSum, Reshape); a second output `z = h @ w2` stays static per batch. The inputs are
seeded; the files are committed, so tests need no onnxruntime. Needs onnx and onnxruntime:

    python tests/models/export_gear_models.py [--out tests/models]
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

try:
    import onnxruntime as ort
except ImportError as e:
    raise SystemExit(f"export_gear_models.py needs onnxruntime ({e})") from None

HERE = Path(__file__).resolve().parent
BATCHES = (1, 3, 4, 8)
"""The gears of the tests are 1, 4 and 8; 3 is no gear (E13025, or hybrid mode's graph)."""


def gear_nonzero() -> onnx.ModelProto:
    rng = np.random.default_rng(19)
    w1 = rng.standard_normal((8, 8)).astype(np.float32) * 0.5
    b1 = rng.standard_normal(8).astype(np.float32) * 0.1
    w2 = rng.standard_normal((8, 4)).astype(np.float32) * 0.5
    inits = [
        numpy_helper.from_array(w1, "w1"),
        numpy_helper.from_array(b1, "b1"),
        numpy_helper.from_array(w2, "w2"),
        numpy_helper.from_array(np.array(1.5, np.float32), "scale"),
        numpy_helper.from_array(np.array(0.5, np.float32), "threshold"),
        numpy_helper.from_array(np.array([1], np.int64), "one"),
    ]
    nodes = [
        helper.make_node("MatMul", ["x", "w1"], ["m"], name="matmul"),
        helper.make_node("Add", ["m", "b1"], ["a"], name="bias"),
        helper.make_node("Relu", ["a"], ["r"], name="relu"),
        helper.make_node("Mul", ["r", "scale"], ["s"], name="scale_mul"),
        helper.make_node("Sigmoid", ["s"], ["h"], name="sigmoid"),
        helper.make_node("Greater", ["h", "threshold"], ["mask"], name="greater"),
        helper.make_node("NonZero", ["mask"], ["nz"], name="nonzero"),
        helper.make_node("Transpose", ["nz"], ["idx"], perm=[1, 0], name="transpose"),
        helper.make_node("GatherND", ["h", "idx"], ["picked"], name="gather"),
        helper.make_node("ReduceSum", ["picked"], ["sum"], keepdims=0, name="reduce"),
        helper.make_node("Reshape", ["sum", "one"], ["total"], name="reshape"),
        helper.make_node("MatMul", ["h", "w2"], ["z"], name="project"),
    ]
    graph = helper.make_graph(
        nodes,
        "gear_nonzero",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", 8])],
        [
            helper.make_tensor_value_info("picked", TensorProto.FLOAT, ["count"]),
            helper.make_tensor_value_info("total", TensorProto.FLOAT, [1]),
            helper.make_tensor_value_info("z", TensorProto.FLOAT, ["batch", 4]),
        ],
        inits,
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    model.ir_version = 8
    onnx.checker.check_model(model)
    return model


CONTROL_FLOW_GEARS: dict[str, list[dict[str, tuple[int, ...]]]] = {
    # ge-atc --input_shape="x:-1,4" --dynamic_batch_size="1,2,4"
    "branch": [{"x": (1, 4)}, {"x": (2, 4)}, {"x": (4, 4)}],
    # --input_shape="x:-1,-1,3;h0:-1,5" --dynamic_dims="6,2,2;2,3,3;1,1,1" (batch is dim 1)
    "rnn_loop": [
        {"x": (6, 2, 3), "h0": (2, 5)},
        {"x": (2, 3, 3), "h0": (3, 5)},
        {"x": (1, 1, 3), "h0": (1, 5)},
    ],
    # --input_shape="x:-1,2,3;init:2,3" --dynamic_dims="5;8;2" (the scan length)
    "cumulative": [
        {"x": (5, 2, 3), "init": (2, 3)},
        {"x": (8, 2, 3), "init": (2, 3)},
        {"x": (2, 2, 3), "init": (2, 3)},
    ],
}


def control_flow_gears(out: Path) -> None:
    for model, gears in CONTROL_FLOW_GEARS.items():
        session = ort.InferenceSession(str(HERE / f"{model}.onnx"))
        names = [o.name for o in session.get_outputs()]
        for k, shapes in enumerate(gears):
            rng = np.random.default_rng(100 + k)
            # alternate the sign of the data: the branch model takes both branches
            shift = 0.5 if k % 2 == 0 else -0.5
            feeds = {
                n: (rng.standard_normal(s) + shift).astype(np.float32) for n, s in shapes.items()
            }
            outputs = session.run(None, feeds)
            np.savez(out / f"gear_{model}_{k}.inputs.npz", **feeds)
            np.savez(
                out / f"gear_{model}_{k}.expected.npz", **dict(zip(names, outputs, strict=True))
            )


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--out", type=Path, default=HERE)
    args = p.parse_args()
    model = gear_nonzero()
    path = args.out / "gear_nonzero.onnx"
    onnx.save(model, path)
    session = ort.InferenceSession(str(path))
    names = [o.name for o in session.get_outputs()]
    for batch in BATCHES:
        x = np.random.default_rng(batch).standard_normal((batch, 8)).astype(np.float32)
        outputs = session.run(None, {"x": x})
        np.savez(args.out / f"gear_nonzero_b{batch}.inputs.npz", x=x)
        np.savez(
            args.out / f"gear_nonzero_b{batch}.expected.npz",
            **dict(zip(names, outputs, strict=True)),
        )
        print(f"batch {batch}: picked {outputs[0].shape[0]} of {batch * 8}")
    control_flow_gears(args.out)


if __name__ == "__main__":
    main()
