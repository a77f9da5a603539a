"""Exports the three PyTorch models of `tests/test_issue21_models.py` (issue 21, part 4) to ONNX,
with fixed inputs and the outputs onnxruntime computes for them.

- `detector`: a small detection head: a strided conv backbone, a 1x1 box-regression conv
  (deltas on a fixed 8x8 anchor grid) and a 1x1 class-score conv with a sigmoid, ending in ONNX
  NonMaxSuppression, then the kept boxes and their scores picked by advanced indexing (the
  TorchScript exporter writes Gather chains over the selected indices). torchvision is not
  needed: the NMS is a `torch.autograd.Function` whose `symbolic` emits the ONNX node (and whose
  `forward`, a plain greedy NMS with ONNX's semantics, is what torch runs to cross-check
  onnxruntime). The kept count depends on the image: the outputs are `[?, 3]`, `[?, 4]`, `[?]`.
- `lstm_classifier`: `nn.LSTM(num_layers=2, batch_first=True)` and a Linear on the last step;
  dynamic `batch` and `seq` axes (`dim_param` on the sequence axis): two ONNX LSTM nodes.
- `qdq_cnn`: a CNN quantised with `torch.ao.quantization` (eager mode, fbgemm's qconfig:
  per-channel int8 weights, uint8 activations, calibrated on fixed random batches) and exported
  in QDQ form: QuantizeLinear/DequantizeLinear around Conv (fused with ReLU), GlobalAveragePool
  and Gemm, int32 biases dequantised from constants.

For each input set `<case>` it writes `<case>.inputs.npz` and `<case>.expected.npz` as
`export_models.py` does; torch and onnxruntime must agree on each. The files are committed; tests
need neither torch nor onnxruntime. torch is never a dependency of the project: run this from a
venv of its own,

    python3 -m venv /tmp/torchvenv
    /tmp/torchvenv/bin/pip install torch==2.13.0 onnx onnxruntime numpy
    /tmp/torchvenv/bin/python tests/models/export_issue21_models.py [--out tests/models]
"""

from __future__ import annotations

import argparse
import warnings
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

try:
    import onnxruntime  # noqa: F401 (record_cases runs it; refused here with the others)
    import torch
    import torch.ao.quantization as tq
    from torch import nn
except ImportError as e:
    raise SystemExit(f"export_issue21_models.py needs torch and onnxruntime ({e})") from None

from export_models import record_cases  # the script's folder is on sys.path

HERE = Path(__file__).resolve().parent
MAX_BYTES = 64 << 10  # per .onnx file: these stay a few KB


def _iou(box: torch.Tensor, others: torch.Tensor) -> torch.Tensor:
    """IoU of one `[y1, x1, y2, x2]` box with each of `others` (either corner order, as ONNX)."""
    ay1, ay2 = torch.minimum(box[0], box[2]), torch.maximum(box[0], box[2])
    ax1, ax2 = torch.minimum(box[1], box[3]), torch.maximum(box[1], box[3])
    by1, by2 = torch.minimum(others[:, 0], others[:, 2]), torch.maximum(others[:, 0], others[:, 2])
    bx1, bx2 = torch.minimum(others[:, 1], others[:, 3]), torch.maximum(others[:, 1], others[:, 3])
    ih = (torch.minimum(ay2, by2) - torch.maximum(ay1, by1)).clamp(min=0)
    iw = (torch.minimum(ax2, bx2) - torch.maximum(ax1, bx1)).clamp(min=0)
    inter = ih * iw
    return inter / ((ay2 - ay1) * (ax2 - ax1) + (by2 - by1) * (bx2 - bx1) - inter)


class OnnxNMS(torch.autograd.Function):
    """ONNX NonMaxSuppression (center_point_box 0): `forward` runs it greedily per batch and
    class (scores above the threshold, best first, dropping boxes whose IoU with a kept one
    exceeds the threshold, at most `max_out` per class); `symbolic` exports it as the node."""

    @staticmethod
    def forward(
        ctx: Any,
        boxes: torch.Tensor,
        scores: torch.Tensor,
        max_out: torch.Tensor,
        iou: torch.Tensor,
        score_threshold: torch.Tensor,
    ) -> torch.Tensor:
        rows: list[list[int]] = []
        for b in range(scores.shape[0]):
            for c in range(scores.shape[1]):
                s = scores[b, c]
                kept: list[int] = []
                for i in torch.argsort(s, descending=True, stable=True).tolist():
                    if s[i] <= score_threshold or len(kept) >= int(max_out):
                        break
                    if kept and bool((_iou(boxes[b, i], boxes[b, kept]) > iou).any()):
                        continue
                    kept.append(i)
                rows += [[b, c, i] for i in kept]
        return torch.tensor(rows, dtype=torch.int64).reshape(-1, 3)

    @staticmethod
    def symbolic(g: Any, boxes: Any, scores: Any, max_out: Any, iou: Any, threshold: Any) -> Any:
        return g.op("NonMaxSuppression", boxes, scores, max_out, iou, threshold)


class Detector(nn.Module):
    """Backbone (two stride-2 convs) -> per-cell box deltas on an 8x8 anchor grid and two class
    scores -> NonMaxSuppression -> the kept boxes and scores."""

    def __init__(self) -> None:
        super().__init__()
        self.backbone = nn.Sequential(
            nn.Conv2d(3, 8, 3, stride=2, padding=1),
            nn.ReLU(),
            nn.Conv2d(8, 16, 3, stride=2, padding=1),
            nn.ReLU(),
        )
        self.box = nn.Conv2d(16, 4, 1)
        self.cls = nn.Conv2d(16, 2, 1)
        ys, xs = torch.meshgrid(torch.arange(8.0), torch.arange(8.0), indexing="ij")
        centers = torch.stack([ys, xs], -1).reshape(-1, 2) * 4 + 2  # cells of a 32x32 image
        self.register_buffer("anchors", torch.cat([centers - 4, centers + 4], -1))

    def forward(self, image: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        features = self.backbone(image)
        deltas = self.box(features).flatten(2).transpose(1, 2)  # [B, 64, 4]
        boxes = self.anchors + deltas * 4.0
        scores = torch.sigmoid(self.cls(features).flatten(2))  # [B, 2, 64]
        limit, iou, threshold = torch.tensor([5]), torch.tensor([0.4]), torch.tensor([0.55])
        selected = OnnxNMS.apply(boxes, scores, limit, iou, threshold)
        kept = boxes[selected[:, 0], selected[:, 2]]
        return selected, kept, scores[selected[:, 0], selected[:, 1], selected[:, 2]]


class LSTMClassifier(nn.Module):
    """Two stacked LSTM layers over `[batch, seq, 6]`, a Linear on the last step's output."""

    def __init__(self) -> None:
        super().__init__()
        self.lstm = nn.LSTM(6, 12, num_layers=2, batch_first=True)
        self.head = nn.Linear(12, 4)

    def forward(self, tokens: torch.Tensor) -> torch.Tensor:
        out, _ = self.lstm(tokens)
        return self.head(out[:, -1])


class QuantCNN(nn.Module):
    """Conv/ReLU twice, global average pool, Linear, between a QuantStub and a DeQuantStub."""

    def __init__(self) -> None:
        super().__init__()
        self.quant = tq.QuantStub()
        self.conv1 = nn.Conv2d(3, 8, 3, padding=1)
        self.relu1 = nn.ReLU()
        self.conv2 = nn.Conv2d(8, 8, 3, stride=2, padding=1)
        self.relu2 = nn.ReLU()
        self.pool = nn.AdaptiveAvgPool2d(1)
        self.fc = nn.Linear(8, 5)
        self.dequant = tq.DeQuantStub()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = self.relu2(self.conv2(self.relu1(self.conv1(self.quant(x)))))
        return self.dequant(self.fc(self.pool(x).flatten(1)))


def quantized_cnn() -> nn.Module:
    """QuantCNN through torch.ao's eager-mode static quantisation: fuse Conv+ReLU, observe
    eight fixed calibration batches, convert to quantized modules."""
    model: Any = QuantCNN().eval()  # torch types Module attributes as Tensor | Module
    model.qconfig = tq.get_default_qconfig("fbgemm")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        tq.fuse_modules(model, [["conv1", "relu1"], ["conv2", "relu2"]], inplace=True)
        tq.prepare(model, inplace=True)
        gen = torch.Generator().manual_seed(7)
        with torch.no_grad():
            for _ in range(8):
                model(torch.randn(4, 3, 16, 16, generator=gen))
        tq.convert(model, inplace=True)
    return model


@dataclass
class Spec:
    name: str
    make: Callable[[], nn.Module]
    input_names: list[str]
    output_names: list[str]
    cases: dict[str, list[np.ndarray]]
    dynamic: dict[str, dict[int, str]] = field(default_factory=dict)


def _normal(seed: int, *shape: int) -> np.ndarray:
    return np.random.default_rng(seed).standard_normal(shape).astype(np.float32)


SPECS = [
    Spec(
        "detector",
        Detector,
        ["image"],
        ["selected", "boxes", "scores"],
        {"detector": [_normal(21, 2, 3, 32, 32)], "detector_2": [_normal(22, 2, 3, 32, 32)]},
    ),
    Spec(
        "lstm_classifier",
        LSTMClassifier,
        ["tokens"],
        ["logits"],
        {
            "lstm_classifier": [_normal(23, 2, 7, 6)],
            "lstm_classifier_b3_s4": [_normal(24, 3, 4, 6)],
        },
        dynamic={"tokens": {0: "batch", 1: "seq"}, "logits": {0: "batch"}},
    ),
    Spec("qdq_cnn", quantized_cnn, ["image"], ["logits"], {"qdq_cnn": [_normal(25, 2, 3, 16, 16)]}),
]


def export(spec: Spec, out: Path) -> None:
    torch.manual_seed(0)
    model = spec.make().eval()
    path = out / f"{spec.name}.onnx"
    example = tuple(torch.from_numpy(a) for a in next(iter(spec.cases.values())))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.onnx.export(
            model,
            example,
            str(path),
            dynamo=False,
            opset_version=17,
            input_names=spec.input_names,
            output_names=spec.output_names,
            dynamic_axes=spec.dynamic or None,
        )
    proto, _ = record_cases(model, path, spec.cases, spec.input_names, spec.output_names, MAX_BYTES)
    size = path.stat().st_size
    ops = sorted({n.op_type for n in proto.graph.node})
    print(f"{path.name}: {len(proto.graph.node)} nodes, {size} bytes: {ops}")


def main() -> None:
    p = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    p.add_argument("--out", type=Path, default=HERE, help="output folder (default: %(default)s)")
    args = p.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    for spec in SPECS:
        export(spec, args.out)


if __name__ == "__main__":
    main()
