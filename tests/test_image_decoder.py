"""ImageDecoder (GE DecodeImage) against onnx's reference on images of our own in each format
Pillow writes, the cases where the reference breaks ONNX's [H, W, C] contract, bad bytes and
bad attributes, and one model through the command-line tools (ge-import -> file -> ge-run,
and after ge-compile: a dynamic AI CPU task). onnxruntime has no ImageDecoder kernel."""

from __future__ import annotations

import io
from pathlib import Path

import numpy as np
import onnx
import pytest
from onnx import helper

from gedialects.frontend.onnx import OnnxImportError, import_model
from gedialects.interpreters.entry import RunError
from gedialects.interpreters.run import run
from tests.conftest import run_tool
from tests.onnx_check import check, one_node_model

PIL_Image = pytest.importorskip("PIL.Image")
RNG = np.random.default_rng(20)
FORMATS = {"PNG": {}, "BMP": {}, "TIFF": {}, "PPM": {}, "WEBP": {"lossless": True}, "JPEG": {}}


def _encode(pixels: np.ndarray, fmt: str, **options: object) -> np.ndarray:
    out = io.BytesIO()
    PIL_Image.fromarray(pixels).save(out, format=fmt, **options)
    return np.frombuffer(out.getvalue(), np.uint8).copy()


def _node(pixel_format: str | None = None) -> onnx.NodeProto:
    attrs = {} if pixel_format is None else {"pixel_format": pixel_format}
    return helper.make_node("ImageDecoder", ["x"], ["y"], **attrs)


def _image(height: int = 5, width: int = 7) -> np.ndarray:
    """Random pixels, not square: a swapped height and width shows."""
    return RNG.integers(0, 256, (height, width, 3), dtype=np.uint8)


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("pixel_format", [None, "RGB", "BGR", "Grayscale"])
def test_matches_reference(fmt: str, pixel_format: str | None) -> None:
    pixels = _image()
    got = check(_node(pixel_format), {"x": _encode(pixels, fmt, **FORMATS[fmt])}, opset=20)["y"]
    assert got.shape == (5, 7, 1 if pixel_format == "Grayscale" else 3)
    if fmt != "JPEG":  # lossless: the pixels themselves come back
        want = {"BGR": pixels[:, :, ::-1], "Grayscale": None}.get(pixel_format or "", pixels)
        if want is not None:
            np.testing.assert_array_equal(got, want)


def _decoded(data: np.ndarray, pixel_format: str) -> np.ndarray:
    outputs = {"y": np.zeros((1, 1, 1), np.uint8)}
    module = import_model(one_node_model(_node(pixel_format), {"x": data}, {}, outputs, 20))
    return run(module, {"x": data})["y"]


@pytest.mark.parametrize("mode", ["RGBA", "P", "L"])
def test_rgb_of_alpha_palette_and_gray_images_has_three_channels(mode: str) -> None:
    """ONNX's RGB output is [H, W, 3] whatever the file holds: alpha is dropped, palettes and
    gray levels expanded (onnx's reference returns the file's own layout, [H, W, 4] or
    [H, W], there)."""
    image = PIL_Image.fromarray(_image()).convert(mode)
    out = io.BytesIO()
    image.save(out, format="PNG")
    data = np.frombuffer(out.getvalue(), np.uint8).copy()
    want = np.asarray(image.convert("RGB"))
    np.testing.assert_array_equal(_decoded(data, "RGB"), want)
    np.testing.assert_array_equal(_decoded(data, "BGR"), want[:, :, ::-1])
    gray = np.asarray(image.convert("L"))[:, :, None]
    np.testing.assert_array_equal(_decoded(data, "Grayscale"), gray)


def test_gif_decodes_its_first_frame() -> None:
    frames = [PIL_Image.fromarray(_image()) for _ in range(2)]
    out = io.BytesIO()
    frames[0].save(out, format="GIF", save_all=True, append_images=frames[1:])
    data = np.frombuffer(out.getvalue(), np.uint8).copy()
    first = PIL_Image.open(io.BytesIO(data.tobytes())).convert("RGB")
    np.testing.assert_array_equal(_decoded(data, "RGB"), np.asarray(first))


@pytest.mark.parametrize(
    ("data", "reason"),
    [
        (np.arange(50, dtype=np.uint8), "not an image format Pillow reads"),
        (np.zeros(0, np.uint8), "not an image format Pillow reads"),
        (None, r"\(PNG 7x5\): "),  # a valid header, then a broken data stream
    ],
)
def test_bad_bytes_are_a_run_error_naming_the_node(data: np.ndarray | None, reason: str) -> None:
    if data is None:
        data = _encode(_image(), "PNG")
        data[60:] = 0
    with pytest.raises(RunError, match=f"cannot decode the {data.size} bytes.*{reason}") as e:
        _decoded(data, "RGB")
    assert "node 'ImageDecoder_0'" in str(e.value) and "\n" not in str(e.value)


def test_unknown_pixel_format_is_an_import_error() -> None:
    data = _encode(_image(), "PNG")
    model = one_node_model(_node("RGBA"), {"x": data}, {}, {"y": np.zeros(1, np.uint8)}, 20)
    with pytest.raises(OnnxImportError, match="pixel_format must be one of RGB, BGR, Grayscale"):
        import_model(model)


def test_through_the_tools_and_after_compile(tmp_path: Path) -> None:
    """Bytes of any length (`?`): one model decodes two images of different sizes; compiled,
    DecodeImage is a dynamic kernel on AI CPU. Corrupt bytes: one line, exit 1."""
    node = _node("BGR")
    data = _encode(_image(), "PNG")
    model = one_node_model(node, {"x": data}, {}, {"y": np.zeros(1, np.uint8)}, 20)
    model.graph.input[0].type.tensor_type.shape.dim[0].dim_param = "n"
    onnx.save(model, tmp_path / "m.onnx")
    assert run_tool("ge-import", "m.onnx", "-o", "g.mlir", cwd=tmp_path).returncode == 0
    compiled = run_tool("ge-opt", "g.mlir", "-p", "ge-compile", "-o", "c.mlir", cwd=tmp_path)
    assert compiled.returncode == 0, compiled.stderr
    text = (tmp_path / "c.mlir").read_text()
    assert 'ascend.dynamic_kernel "DecodeImage" "ImageDecoder_0" engine "DNN_VM_AICPU"' in text
    for height, width in ((5, 7), (9, 4)):
        pixels = _image(height, width)
        np.savez(tmp_path / "in.npz", x=_encode(pixels, "PNG"))
        for ir in ("g.mlir", "c.mlir"):
            ran = run_tool("ge-run", ir, "--inputs", "in.npz", "-o", "out.npz", cwd=tmp_path)
            assert ran.returncode == 0, ran.stderr
            np.testing.assert_array_equal(np.load(tmp_path / "out.npz")["y"], pixels[:, :, ::-1])
    np.savez(tmp_path / "bad.npz", x=np.arange(50, dtype=np.uint8))
    for ir in ("g.mlir", "c.mlir"):
        ran = run_tool("ge-run", ir, "--inputs", "bad.npz", "-o", "out.npz", cwd=tmp_path)
        assert ran.returncode == 1
        lines = ran.stderr.strip().splitlines()
        assert len(lines) == 1 and "ImageDecoder_0" in lines[0] and "cannot decode" in lines[0]
        assert "Traceback" not in ran.stderr


def _png_header(width: int, height: int) -> np.ndarray:
    """A PNG whose header claims `width` x `height` RGB pixels, with no pixel data."""
    import struct
    import zlib

    def chunk(kind: bytes, data: bytes) -> bytes:
        crc = struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)
        return struct.pack(">I", len(data)) + kind + data + crc

    ihdr = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    data = b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + chunk(b"IEND", b"")
    return np.frombuffer(data, np.uint8).copy()


def test_claimed_size_is_checked_against_the_memory_budget(tmp_path: Path) -> None:
    """The header's size is checked before any pixel is decoded: over --max-memory it is the
    budget's one-line refusal; under it (Pillow's decompression-bomb limit lifted: 100M
    pixels would warn, 900M fail) the missing pixel data is the error."""
    model = one_node_model(
        _node(), {"x": _encode(_image(), "PNG")}, {}, {"y": np.zeros(1, np.uint8)}, 20
    )
    model.graph.input[0].type.tensor_type.shape.dim[0].dim_param = "n"
    onnx.save(model, tmp_path / "m.onnx")
    assert run_tool("ge-import", "m.onnx", "-o", "g.mlir", cwd=tmp_path).returncode == 0
    np.savez(tmp_path / "big.npz", x=_png_header(10000, 10000))
    args = ("ge-run", "g.mlir", "--inputs", "big.npz", "-o", "out.npz")
    ran = run_tool(*args, "--max-memory", "256M", cwd=tmp_path)
    assert ran.returncode == 1
    assert "DecodeImage output uint8[10000, 10000, 3] needs" in ran.stderr
    assert "over the memory limit of 256.0 MiB" in ran.stderr
    np.savez(tmp_path / "huge.npz", x=_png_header(30000, 30000))
    for name, size in (("big.npz", "10000x10000"), ("huge.npz", "30000x30000")):
        ran = run_tool(*args[:3], name, *args[4:], "--max-memory", "64G", cwd=tmp_path)
        assert ran.returncode == 1 and len(ran.stderr.strip().splitlines()) == 1, ran.stderr
        assert f"as an image (PNG {size}): cannot load this image in op" in ran.stderr
        assert "Warning" not in ran.stderr
