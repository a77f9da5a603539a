"""Exports the three control-flow models of `tests/test_control_flow_models.py` from PyTorch to
ONNX, with fixed inputs and the outputs onnxruntime computes for them (issue 17, part 7).

- `branch`: a data-dependent `if` on a tensor value (`x.sum() > 0`), scripted, so the
  TorchScript exporter keeps it as an ONNX `If` with both branches;
- `rnn_loop`: an RNN cell written as a `for` loop over `x.size(0)` (a dynamic trip count)
  carrying the hidden state, scripted: an ONNX `Loop` whose `M` comes from `Shape`;
- `cumulative`: an exponentially decaying cumulative sum through `torch`'s higher-order
  `scan`, exported by the dynamo exporter (which needs onnxscript) as an ONNX `Scan`.

Every model has a dynamic batch axis (and the loops a dynamic step count). For each input set
`<case>` it writes `<case>.inputs.npz` and `<case>.expected.npz` as `export_models.py` does;
torch and onnxruntime must agree on each. The files are committed; tests need neither torch nor
onnxruntime. torch is never a dependency of the project: run this from a venv of its own,

    python3 -m venv /tmp/torchvenv
    /tmp/torchvenv/bin/pip install torch onnx onnxruntime onnxscript numpy
    /tmp/torchvenv/bin/python tests/models/export_control_flow_models.py [--out tests/models]
"""

from __future__ import annotations

import argparse
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

try:
    import onnxruntime  # noqa: F401 (record_cases runs it; refused here with the others)
    import torch
    from torch import nn
    from torch._higher_order_ops.scan import scan
except ImportError as e:
    raise SystemExit(f"export_control_flow_models.py needs torch and onnxruntime ({e})") from None

from export_models import record_cases  # the script's folder is on sys.path

HERE = Path(__file__).resolve().parent
MAX_BYTES = 16 << 10  # per .onnx file: these stay a few KB


class Branch(nn.Module):
    """`relu(a(x)) * 2` when the sum of `x` is positive, else `b(x) - 1`."""

    def __init__(self) -> None:
        super().__init__()
        self.a = nn.Linear(4, 4)
        self.b = nn.Linear(4, 3)
        self.c = nn.Linear(3, 4)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if bool(x.sum() > 0):
            y = torch.relu(self.a(x)) * 2.0
        else:
            y = self.c(torch.tanh(self.b(x))) - 1.0
        return y


class RNNLoop(nn.Module):
    """`h = tanh(Wx x[t] + Wh h)` for t in range(steps): an Elman cell as a Python loop."""

    def __init__(self) -> None:
        super().__init__()
        self.wx = nn.Linear(3, 5)
        self.wh = nn.Linear(5, 5, bias=False)

    def forward(self, x: torch.Tensor, h: torch.Tensor) -> torch.Tensor:
        for t in range(x.size(0)):
            h = torch.tanh(self.wx(x[t]) + self.wh(h))
        return h


class Cumulative(nn.Module):
    """`s_t = 0.5 * s_{t-1} + w * x_t`: the final state and every `s_t`, by `scan`."""

    def __init__(self) -> None:
        super().__init__()
        self.w = nn.Parameter(torch.randn(3))

    def forward(self, x: torch.Tensor, init: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        def step(carry: torch.Tensor, xt: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
            following = carry * 0.5 + xt * self.w
            return following, following.clone()

        return scan(step, init, x)


@dataclass
class Spec:
    name: str
    make: Callable[[], nn.Module]
    exporter: str  # "script" (TorchScript exporter on torch.jit.script) or "dynamo"
    input_names: list[str]
    output_names: list[str]
    dynamic: dict[str, dict[int, str]]
    cases: dict[str, list[np.ndarray]]


def _normal(seed: int, *shape: int, shift: float = 0.0) -> np.ndarray:
    return (np.random.default_rng(seed).standard_normal(shape) + shift).astype(np.float32)


SPECS = [
    Spec(
        "branch",
        Branch,
        "script",
        ["x"],
        ["y"],
        {"x": {0: "batch"}, "y": {0: "batch"}},
        {
            "branch_then": [_normal(1, 2, 4, shift=1.0)],
            "branch_else": [_normal(2, 2, 4, shift=-1.0)],
        },
    ),
    Spec(
        "rnn_loop",
        RNNLoop,
        "script",
        ["x", "h0"],
        ["h"],
        {"x": {0: "steps", 1: "batch"}, "h0": {0: "batch"}, "h": {0: "batch"}},
        {
            "rnn_loop": [_normal(3, 6, 2, 3), _normal(4, 2, 5) * 0.1],
            "rnn_loop_b3_t2": [_normal(5, 2, 3, 3), _normal(6, 3, 5) * 0.1],
        },
    ),
    Spec(
        "cumulative",
        Cumulative,
        "dynamo",
        ["x", "init"],
        ["final", "states"],
        {"x": {0: "steps", 1: "batch"}, "init": {0: "batch"}},
        {
            "cumulative": [_normal(7, 5, 2, 3), _normal(8, 2, 3)],
            "cumulative_t8": [_normal(9, 8, 2, 3), _normal(10, 2, 3)],
        },
    ),
]


def _export(spec: Spec, model: nn.Module, example: tuple[torch.Tensor, ...], path: Path) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if spec.exporter == "script":
            torch.onnx.export(
                torch.jit.script(model),
                example,
                str(path),
                dynamo=False,
                opset_version=17,
                input_names=spec.input_names,
                output_names=spec.output_names,
                dynamic_axes=spec.dynamic,
            )
            return
        dims = {n: torch.export.Dim(n, min=1) for d in spec.dynamic.values() for n in d.values()}
        shapes = tuple(
            {axis: dims[n] for axis, n in spec.dynamic.get(name, {}).items()}
            for name in spec.input_names
        )
        program = torch.onnx.export(
            model,
            example,
            dynamo=True,
            opset_version=18,
            input_names=spec.input_names,
            output_names=spec.output_names,
            dynamic_shapes=shapes,
        )
        assert program is not None
        program.save(str(path))


def export(spec: Spec, out: Path) -> None:
    torch.manual_seed(0)
    model = spec.make().eval()
    path = out / f"{spec.name}.onnx"
    example = tuple(torch.from_numpy(a) for a in next(iter(spec.cases.values())))
    _export(spec, model, example, path)
    proto, _ = record_cases(model, path, spec.cases, spec.input_names, spec.output_names, MAX_BYTES)
    size = path.stat().st_size
    ops = sorted({n.op_type for n in proto.graph.node})
    print(f"{path.name}: {len(proto.graph.node)} nodes, {size} bytes: {ops}")


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--out", type=Path, default=HERE, help="output folder (default: %(default)s)")
    args = p.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    for spec in SPECS:
        export(spec, args.out)


if __name__ == "__main__":
    main()
