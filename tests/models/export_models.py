"""Exports the small PyTorch models of `tests/test_models.py` to ONNX, with fixed inputs and the
outputs onnxruntime computes for them (`make models`; needs torch and onnxruntime).

For each model `<name>` this writes `<name>.onnx`, and for each input set `<case>` of it
`<case>.inputs.npz` (keyed by the ONNX input names) and `<case>.expected.npz` (keyed by the
ONNX output names, computed by onnxruntime). Seeds are fixed, so a re-export reproduces the
checked-in files up to the exporter's version. The files are committed: `make test` needs
neither torch nor onnxruntime.

    python tests/models/export_models.py [--out tests/models]
"""

from __future__ import annotations

import argparse
import math
import warnings
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import onnx

try:
    import onnxruntime as ort
    import torch
    from torch import nn
except ImportError as e:
    raise SystemExit(
        f"export_models.py needs torch and onnxruntime ({e}): pip install torch==2.13.0 "
        "onnxruntime (the pinned torch is the CPU build; an unpinned one pulls CUDA wheels)"
    ) from None

HERE = Path(__file__).resolve().parent
MAX_BYTES = 1 << 20  # per .onnx file


def _randomize_batchnorm(model: nn.Module, gen: torch.Generator) -> None:
    """Non-trivial running statistics and affine parameters, so BatchNorm is not an identity."""
    for m in model.modules():
        if isinstance(m, nn.BatchNorm1d | nn.BatchNorm2d):
            c = m.num_features
            m.running_mean.copy_(torch.randn(c, generator=gen) * 0.5)
            m.running_var.copy_(torch.rand(c, generator=gen) + 0.5)
            m.weight.data.copy_(torch.rand(c, generator=gen) + 0.5)
            m.bias.data.copy_(torch.randn(c, generator=gen) * 0.1)


class SmallCNN(nn.Module):
    """Conv/BatchNorm/ReLU/MaxPool twice, AdaptiveAvgPool(1) = GlobalAveragePool, Linear."""

    def __init__(self) -> None:
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(3, 8, 3, padding=1),
            nn.BatchNorm2d(8),
            nn.ReLU(),
            nn.MaxPool2d(2),
            nn.Conv2d(8, 16, 3, padding=1, bias=False),
            nn.BatchNorm2d(16),
            nn.ReLU(),
            nn.MaxPool2d(2, stride=2, ceil_mode=True),
        )
        self.pool = nn.AdaptiveAvgPool2d(1)
        self.fc = nn.Linear(16, 10)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.fc(torch.flatten(self.pool(self.features(x)), 1))


class MLP(nn.Module):
    """Linear, LayerNorm, GELU (exact and tanh), Dropout (inference), a residual, Linear."""

    def __init__(self) -> None:
        super().__init__()
        self.fc1 = nn.Linear(32, 64)
        self.norm = nn.LayerNorm(64)
        self.act = nn.GELU()
        self.drop = nn.Dropout(0.1)
        self.fc2 = nn.Linear(64, 64)
        self.act2 = nn.GELU(approximate="tanh")
        self.head = nn.Linear(64, 10)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h = self.drop(self.act(self.norm(self.fc1(x))))
        h = h + self.act2(self.fc2(h))
        return self.head(h)


class EncoderBlock(nn.Module):
    """A pre-norm transformer encoder block with hand-written multi-head attention.

    The head split reads the batch and sequence sizes from the input (`x.shape`), so with dynamic
    axes the export holds Shape -> Gather -> Concat -> Reshape chains over `?` dims.
    """

    def __init__(self, dim: int = 32, heads: int = 4, ff: int = 64) -> None:
        super().__init__()
        self.heads = heads
        self.norm1 = nn.LayerNorm(dim)
        self.qkv = nn.Linear(dim, 3 * dim)
        self.proj = nn.Linear(dim, dim)
        self.norm2 = nn.LayerNorm(dim)
        self.ff1 = nn.Linear(dim, ff)
        self.act = nn.GELU()
        self.ff2 = nn.Linear(ff, dim)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        b, s, d = x.shape
        dh = d // self.heads
        q, k, v = self.qkv(self.norm1(x)).chunk(3, dim=-1)
        q, k, v = (t.reshape(b, s, self.heads, dh).transpose(1, 2) for t in (q, k, v))
        scores = torch.matmul(q, k.transpose(-2, -1)) / math.sqrt(dh)
        attn = torch.matmul(torch.softmax(scores, dim=-1), v)
        x = x + self.proj(attn.transpose(1, 2).reshape(b, s, d))
        return x + self.ff2(self.act(self.ff1(self.norm2(x))))


class NonZeroModel(nn.Module):
    """Data-dependent shapes: the indices of the positive entries and a boolean-masked select."""

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        mask = x > 0.25
        picked = x[mask] * 2.0
        return torch.nonzero(mask), picked, picked.sum().reshape(1)


class InvertedResidual(nn.Module):
    """A MobileNetV2/V3-like block: 1x1 expand, 3x3 depthwise, 1x1 project, residual."""

    def __init__(self, c: int = 8, expand: int = 4) -> None:
        super().__init__()
        e = c * expand
        self.stem = nn.Sequential(nn.Conv2d(3, c, 3, stride=2, padding=1), nn.BatchNorm2d(c))
        self.block = nn.Sequential(
            nn.Conv2d(c, e, 1, bias=False),
            nn.BatchNorm2d(e),
            nn.ReLU6(),
            nn.Conv2d(e, e, 3, padding=1, groups=e, bias=False),
            nn.BatchNorm2d(e),
            nn.Hardswish(),
            nn.Conv2d(e, c, 1, bias=False),
            nn.BatchNorm2d(c),
        )
        self.head = nn.Linear(c, 5)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h = self.stem(x)
        h = h + self.block(h)
        return self.head(nn.functional.adaptive_avg_pool2d(h, 1).flatten(1))


@dataclass
class Spec:
    """One model to export: its module, opset, ONNX names and the input sets to record."""

    name: str
    make: Callable[[], nn.Module]
    opset: int
    input_names: list[str]
    output_names: list[str]
    # case name -> input arrays (in input_names order); the first case is the export example
    cases: dict[str, list[np.ndarray]]
    dynamic_axes: dict[str, dict[int, str]] = field(default_factory=dict)


def _normal(seed: int, *shape: int) -> np.ndarray:
    return np.random.default_rng(seed).standard_normal(shape).astype(np.float32)


SPECS = [
    Spec("cnn", SmallCNN, 17, ["image"], ["logits"], {"cnn": [_normal(1, 2, 3, 16, 16)]}),
    Spec("mlp", MLP, 13, ["features"], ["scores"], {"mlp": [_normal(2, 4, 32)]}),
    Spec(
        "transformer",
        EncoderBlock,
        17,
        ["tokens"],
        ["encoded"],
        {
            "transformer": [_normal(3, 2, 8, 32)],
            "transformer_b3_s5": [_normal(4, 3, 5, 32)],
        },
        dynamic_axes={"tokens": {0: "batch", 1: "seq"}, "encoded": {0: "batch", 1: "seq"}},
    ),
    Spec(
        "nonzero",
        NonZeroModel,
        17,
        ["x"],
        ["indices", "picked", "total"],
        {"nonzero": [_normal(5, 4, 6)]},
    ),
    Spec(
        "mobilenet_block",
        InvertedResidual,
        11,
        ["image"],
        ["logits"],
        {"mobilenet_block": [_normal(6, 1, 3, 16, 16)]},
    ),
]


def record_cases(
    model: nn.Module,
    path: Path,
    cases: dict[str, list[np.ndarray]],
    input_names: list[str],
    output_names: list[str],
    max_bytes: int = MAX_BYTES,
) -> tuple[onnx.ModelProto, list[Path]]:
    """Checks the exported model (full ONNX check, size), runs every case in onnxruntime and
    torch, refuses a disagreement, and writes the inputs and onnxruntime's outputs beside it:
    `CASE.inputs.npz`, `CASE.expected.npz`. Shared with export_control_flow_models.py."""
    proto = onnx.load(str(path))
    onnx.checker.check_model(proto, full_check=True)
    size = path.stat().st_size
    if size > max_bytes:
        raise SystemExit(f"{path.name} is {size} bytes; keep test models under {max_bytes}")
    session = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
    out = path.parent
    written = [path]
    for case, arrays in cases.items():
        feed = dict(zip(input_names, arrays, strict=True))
        outputs = session.run(output_names, feed)
        with torch.no_grad():
            torch_out = model(*(torch.from_numpy(a) for a in arrays))
        torch_out = torch_out if isinstance(torch_out, tuple) else (torch_out,)
        for name, got, want in zip(output_names, outputs, torch_out, strict=True):
            if not np.allclose(got, want.numpy(), rtol=1e-4, atol=1e-5):
                raise SystemExit(f"{case}: onnxruntime and torch disagree on '{name}'")
        np.savez(out / f"{case}.inputs.npz", **feed)
        np.savez(out / f"{case}.expected.npz", **dict(zip(output_names, outputs, strict=True)))
        written += [out / f"{case}.inputs.npz", out / f"{case}.expected.npz"]
    return proto, written


def export(spec: Spec, out: Path) -> list[Path]:
    torch.manual_seed(0)
    model = spec.make()
    _randomize_batchnorm(model, torch.Generator().manual_seed(1))
    model.eval()
    path = out / f"{spec.name}.onnx"
    example = tuple(torch.from_numpy(a) for a in next(iter(spec.cases.values())))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        # PRESERVE keeps BatchNormalization nodes (EVAL would fold them into the Convs); the
        # model is in eval mode, so they and Dropout are exported in inference form.
        torch.onnx.export(
            model,
            example,
            str(path),
            dynamo=False,
            opset_version=spec.opset,
            input_names=spec.input_names,
            output_names=spec.output_names,
            dynamic_axes=spec.dynamic_axes or None,
            training=torch.onnx.TrainingMode.PRESERVE,
            do_constant_folding=True,
        )
    proto, written = record_cases(model, path, spec.cases, spec.input_names, spec.output_names)
    size = path.stat().st_size
    ops = sorted({n.op_type for n in proto.graph.node})
    print(f"{path.name}: opset {spec.opset}, {len(proto.graph.node)} nodes, {size} bytes: {ops}")
    return written


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--out", type=Path, default=HERE, help="output folder (default: %(default)s)")
    args = p.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    for spec in SPECS:
        export(spec, args.out)


if __name__ == "__main__":
    main()
