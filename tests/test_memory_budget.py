"""The memory budget wired in: files, npz/npy, ONNX import, folding, planning, run time, options.

Each finding of issue 13 part 4 has a test named after it, in-process and through the tools
(exit 1, one line, no traceback). Most run under a small budget (`GE_MAX_MEMORY` or
`budget.max_memory_set`) so that they stay fast; a few measure the peak RSS of the tool to show
that nothing large was allocated before the refusal.
"""

from __future__ import annotations

import os
import subprocess
import sys
import zipfile
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import onnx
import pytest
from onnx import TensorProto
from onnx import helper as h
from onnx import numpy_helper as nh
from xdsl.dialects.builtin import DYNAMIC_INDEX, Float32Type, ModuleOp, TensorType

from gedialects import budget, make_context
from gedialects.ascend import ModelOp
from gedialects.budget import MemoryBudgetError
from gedialects.frontend.onnx import OnnxImportError, import_model
from gedialects.interpreters.ascend import execute_model
from gedialects.interpreters.kernels import run_kernel
from gedialects.interpreters.run import RunError, random_inputs, run, signature
from gedialects.npz import ArrayFileError, load_npy, load_npz
from gedialects.passes.fold_constants import FoldConstantsPass
from gedialects.session import ExecutionError, GraphError, OptionError, Session
from tests.conftest import BIN, ROOT, parse

LIMIT = "64M"
"""The budget most tests run under."""

OVER = "over the memory limit of"


@pytest.fixture
def small_budget() -> Iterator[None]:
    with budget.max_memory_set(LIMIT):
        yield


def tool(*args: str, limit: str | None = LIMIT, stdin: bytes | None = None) -> tuple[int, str]:
    """Runs a console script with GE_MAX_MEMORY=`limit`: (exit code, its one stderr line)."""
    env = dict(os.environ)
    env.pop("GE_DEBUG", None)
    env.pop(budget.ENV_VAR, None)
    if limit is not None:
        env[budget.ENV_VAR] = limit
    done = subprocess.run(
        [str(BIN / args[0]), *args[1:]],
        capture_output=True,
        cwd=ROOT,
        env=env,
        timeout=120,
        input=stdin,
    )
    err = done.stderr.decode()
    assert "Traceback" not in err, err
    lines = [ln for ln in err.splitlines() if ln.strip()]
    if len(lines) >= 3 and lines[-1].strip() == "^":  # a located error: source line and caret
        lines = lines[:-2]
    return done.returncode, lines[-1] if lines else ""


def one_line_error(*args: str, limit: str | None = LIMIT) -> str:
    code, line = tool(*args, limit=limit)
    assert code == 1, line
    return line


def peak_rss_mib(*args: str, limit: str | None = None) -> tuple[int, float, str]:
    """(exit code, peak RSS of the tool in MiB, its stderr): resource.getrusage of the child."""
    env = dict(os.environ)
    env.pop("GE_DEBUG", None)
    env.pop(budget.ENV_VAR, None)
    if limit is not None:
        env[budget.ENV_VAR] = limit
    probe = (
        "import resource, subprocess, sys\n"
        "done = subprocess.run(sys.argv[1:], capture_output=True, text=True)\n"
        "sys.stderr.write(done.stderr)\n"
        "print(done.returncode, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe, str(BIN / args[0]), *args[1:]],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env=env,
        timeout=120,
    )
    code, rss_kib = done.stdout.split()
    return int(code), int(rss_kib) / 1024, done.stderr


F32_DYN = TensorType(Float32Type(), [DYNAMIC_INDEX])


# --------------------------------------------------------------------------------------------
# Files: regular only, size-capped
# --------------------------------------------------------------------------------------------


def test_dev_zero_is_refused(tmp_path: Path) -> None:
    with pytest.raises(OSError, match="character device, not a regular file"):
        budget.read_file("/dev/zero")
    expected = "cannot read /dev/zero: it is a character device, not a regular file"
    assert one_line_error("ge-run", "/dev/zero") == f"error: {expected}"
    assert one_line_error("ge-import", "/dev/zero") == (
        "error: cannot read '/dev/zero': it is a character device, not a regular file"
    )
    assert "character device, not a regular file" in one_line_error(
        "ge-atc", "--model=/dev/zero", f"--output={tmp_path / 'z'}"
    )
    assert "character device, not a regular file" in one_line_error("ge-opt", "/dev/zero")
    assert not (tmp_path / "z.mlir").exists()


def test_fifo_is_refused_without_blocking(tmp_path: Path) -> None:
    """Opening a FIFO blocks until a writer comes: it is refused from its stat alone."""
    fifo = tmp_path / "graph.mlir"
    os.mkfifo(fifo)
    assert "it is a FIFO, not a regular file" in one_line_error("ge-run", str(fifo))
    assert "it is a FIFO, not a regular file" in one_line_error("ge-opt", str(fifo))
    with pytest.raises(GraphError, match="it is a FIFO, not a regular file"):
        Session().add_graph(0, str(fifo))
    onnx_fifo = tmp_path / "model.onnx"
    os.mkfifo(onnx_fifo)
    with pytest.raises(OnnxImportError, match="it is a FIFO"):
        import_model(onnx_fifo)
    npz_fifo = tmp_path / "in.npz"
    os.mkfifo(npz_fifo)
    with pytest.raises(ArrayFileError, match="it is a FIFO"):
        load_npz(npz_fifo)


def test_directory_is_refused(tmp_path: Path) -> None:
    assert "it is a directory, not a regular file" in one_line_error("ge-run", str(tmp_path))


SMALL_GRAPH = """graph.graph @main(%x: tensor<4xf32>) -> (tensor<4xf32>) {
  %y = graph.relu %x {node_name = "r"} : (tensor<4xf32>) -> tensor<4xf32>
  graph.net_output %y : tensor<4xf32>
}
"""


def test_file_larger_than_the_budget_is_refused_before_reading(tmp_path: Path) -> None:
    path = tmp_path / "padded.mlir"
    path.write_text(SMALL_GRAPH + "// " + "x" * 4096 + "\n")
    for args in (("ge-run", str(path), "--random-inputs", "0"), ("ge-opt", str(path))):
        line = one_line_error(*args, "--max-memory", "2K")
        assert f"reading {path} needs 4.2 KiB, {OVER} 2.0 KiB" in line
    with budget.max_memory_set("2K"), pytest.raises(GraphError, match=f"reading {path}"):
        Session().add_graph(0, str(path))
    with budget.max_memory_set("2K"), pytest.raises(MemoryBudgetError):
        budget.read_file(path)
    assert tool("ge-run", str(path), "--random-inputs", "0", "-q")[0] == 0


def test_stdin_beyond_the_budget_is_refused() -> None:
    text = (SMALL_GRAPH + "// " + "x" * 4096 + "\n").encode()
    code, line = tool("ge-opt", "--max-memory", "2K", stdin=text)
    assert code == 1
    assert line == (
        "error: reading stdin needs more than 2.0 KiB, over the memory limit of 2.0 KiB "
        "(raise it with --max-memory or GE_MAX_MEMORY)"
    )
    assert tool("ge-opt", stdin=SMALL_GRAPH.encode())[0] == 0


# --------------------------------------------------------------------------------------------
# npz and npy: names and headers before data
# --------------------------------------------------------------------------------------------


def _graph_file(tmp_path: Path) -> Path:
    path = tmp_path / "relu.mlir"
    path.write_text(SMALL_GRAPH)
    return path


def _deflated_zeros_member(archive: zipfile.ZipFile, name: str, nbytes: int) -> None:
    """A `.npy` member of `nbytes` zero bytes of float32 data, deflated as it is written."""
    with archive.open(name, "w", force_zip64=True) as f:
        header = {"descr": "<f4", "fortran_order": False, "shape": (nbytes // 4,)}
        np.lib.format.write_array_header_1_0(f, header)
        chunk = bytes(1 << 24)
        for _ in range(nbytes // len(chunk)):
            f.write(chunk)


def test_npz_bomb_member_is_refused_before_inflating(tmp_path: Path) -> None:
    """An extra deflated member of 512 MiB under a name the graph does not know: refused by
    its name from the zip directory; the tool's peak RSS shows it was never inflated."""
    graph = _graph_file(tmp_path)
    bomb = tmp_path / "bomb.npz"
    with zipfile.ZipFile(bomb, "w", compression=zipfile.ZIP_DEFLATED, compresslevel=1) as z:
        with z.open("x.npy", "w") as f:
            np.lib.format.write_array(f, np.ones(4, np.float32))
        _deflated_zeros_member(z, "extra.npy", 512 << 20)
    assert bomb.stat().st_size < 4 << 20
    with pytest.raises(ArrayFileError, match=r"unknown name 'extra' \(expected: x\)"):
        load_npz(bomb, ["x"])
    code, rss, err = peak_rss_mib("ge-run", str(graph), "--inputs", str(bomb))
    assert code == 1
    assert err.strip() == (
        "error: unknown input 'extra' for @main (its inputs are: x), in " + str(bomb)
    )
    assert rss < 256, f"peak RSS {rss:.0f} MiB: the member was inflated"


def test_npz_member_marked_encrypted_is_a_one_line_error(tmp_path: Path) -> None:
    """Fuzz seed 20261208: a flipped bit set a member's encrypted flag, and zipfile's
    password RuntimeError was an internal error; it is refused from the zip directory."""
    graph = _graph_file(tmp_path)
    path = tmp_path / "locked.npz"
    np.savez(path, x=np.ones(4, np.float32))
    data = bytearray(path.read_bytes())
    central = data.rindex(b"PK\x01\x02")  # the central directory entry's flags at +8
    data[central + 8] |= 0x1
    path.write_bytes(bytes(data))
    with pytest.raises(ArrayFileError, match="member 'x' is encrypted"):
        load_npz(path, ["x"])
    line = one_line_error("ge-run", str(graph), "--inputs", str(path))
    assert line == (
        f"error: cannot read {path}: member 'x' is encrypted (an npz holds plain or deflated "
        ".npy members)"
    )


def test_npz_member_larger_than_the_budget_is_refused(tmp_path: Path) -> None:
    graph = _graph_file(tmp_path)
    path = tmp_path / "big.npz"
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED, compresslevel=1) as z:
        _deflated_zeros_member(z, "x.npy", 96 << 20)
    line = one_line_error("ge-run", str(graph), "--inputs", str(path))
    assert line.startswith(f"error: {path} member 'x' needs 96.0 MiB, {OVER} 64.0 MiB")


def _npy_claiming(path: Path, shape: tuple[int, ...], payload: bytes = b"") -> Path:
    with open(path, "wb") as f:
        header = {"descr": "<f4", "fortran_order": False, "shape": shape}
        np.lib.format.write_array_header_1_0(f, header)
        f.write(payload)
    return path


def test_npy_header_claiming_37_gib_is_refused(tmp_path: Path) -> None:
    """The default budget (half of physical memory) is below 37 GiB on the test machines."""
    path = _npy_claiming(tmp_path / "x.npy", (10**10,), bytes(36))
    assert path.stat().st_size < 200
    with budget.max_memory_set("16G"), pytest.raises(MemoryBudgetError) as info:
        load_npy(path)
    assert str(info.value).startswith(f"{path} (float32[10000000000]) needs 37.3 GiB, {OVER}")
    graph = _graph_file(tmp_path)
    code, rss, err = peak_rss_mib("ge-run", str(graph), "--input", f"x={path}", limit="16G")
    assert code == 1
    assert err.strip().startswith(f"error: {path} (float32[10000000000]) needs 37.3 GiB, {OVER}")
    assert rss < 256


def test_npy_header_larger_than_its_file_is_refused(tmp_path: Path) -> None:
    """Within the budget, a header still may not claim more data than the file holds."""
    path = _npy_claiming(tmp_path / "x.npy", (1 << 20,), bytes(8))
    with pytest.raises(ArrayFileError, match=r"declares float32\[1048576\] \(4194304 bytes\), "):
        load_npy(path)
    graph = _graph_file(tmp_path)
    line = one_line_error("ge-run", str(graph), "--input", f"x={path}")
    assert "the file holds 8 bytes of data" in line


@pytest.mark.parametrize("shape", [(-1, 3), (-1, -3), (2, 0, -1)])
def test_npy_header_with_negative_dim_is_refused(tmp_path: Path, shape: tuple[int, ...]) -> None:
    """numpy's header reader accepts negative dims; two of them even give positive bytes."""
    path = _npy_claiming(tmp_path / "x.npy", shape, bytes(64))
    message = f"cannot read {path}: its header declares negative dims {list(shape)}"
    with pytest.raises(ArrayFileError) as info:
        load_npy(path)
    assert str(info.value) == message
    npz = tmp_path / "in.npz"
    with zipfile.ZipFile(npz, "w") as z:
        z.write(path, "x.npy")
    with pytest.raises(ArrayFileError) as info:
        load_npz(npz, ["x"])
    assert str(info.value) == message.replace(str(path), f"{npz} member 'x'")
    graph = _graph_file(tmp_path)
    assert one_line_error("ge-run", str(graph), "--input", f"x={path}") == f"error: {message}"


def test_npy_and_npz_still_read_back(tmp_path: Path) -> None:
    arrays = {
        "a": np.arange(12, dtype=np.int16).reshape(3, 4),
        "b": np.asfortranarray(np.arange(6, dtype=np.float64).reshape(2, 3)),
        "c": np.zeros((0, 3), np.float32),
        "d": np.array(True),
    }
    np.savez(tmp_path / "plain.npz", **arrays)
    np.savez_compressed(tmp_path / "packed.npz", **arrays)
    for name in ("plain.npz", "packed.npz"):
        got = load_npz(tmp_path / name, list(arrays))
        assert list(got) == list(arrays)
        for key, value in arrays.items():
            assert got[key].dtype == value.dtype
            np.testing.assert_array_equal(got[key], value)
    np.save(tmp_path / "b.npy", arrays["b"])
    np.testing.assert_array_equal(load_npy(tmp_path / "b.npy"), arrays["b"])
    (tmp_path / "junk.npy").write_bytes(b"not an npy file")
    with pytest.raises(ArrayFileError, match="cannot read"):
        load_npy(tmp_path / "junk.npy")
    np.save(tmp_path / "obj.npy", np.array([{}], dtype=object), allow_pickle=True)
    with pytest.raises(ArrayFileError, match="object arrays are not supported"):
        load_npy(tmp_path / "obj.npy")


def test_reference_npz_names_are_checked_before_inflating(tmp_path: Path) -> None:
    graph = _graph_file(tmp_path)
    ref = tmp_path / "ref.npz"
    np.savez(ref, y=np.zeros(4, np.float32))
    line = one_line_error("ge-run", str(graph), "--random-inputs", "0", "--reference", str(ref))
    assert line.startswith("error: unknown output 'y' for @main (its outputs are: output0)")


# --------------------------------------------------------------------------------------------
# ONNX import: declared shapes, protobufs, external data
# --------------------------------------------------------------------------------------------


def _relu_model(shape: list[int | str]) -> onnx.ModelProto:
    x = h.make_tensor_value_info("x", TensorProto.FLOAT, shape)
    y = h.make_tensor_value_info("y", TensorProto.FLOAT, shape)
    graph = h.make_graph([h.make_node("Relu", ["x"], ["y"])], "g", [x], [y])
    return h.make_model(graph, opset_imports=[h.make_opsetid("", 17)])


def test_onnx_input_of_1e16_elements_is_refused(tmp_path: Path) -> None:
    model = _relu_model([10**16])
    with pytest.raises(OnnxImportError) as info:
        import_model(model)
    assert str(info.value).startswith(
        f"graph input 'x' (tensor<10000000000000000xf32>) needs 35.5 PiB, {OVER}"
    )
    path = tmp_path / "big.onnx"
    onnx.save(model, path)
    expected = "error: graph input 'x' (tensor<10000000000000000xf32>) needs 35.5 PiB"
    assert one_line_error("ge-import", str(path)).startswith(expected)
    assert one_line_error("ge-atc", f"--model={path}", f"--output={tmp_path / 'o'}").startswith(
        expected
    )
    assert "35.5 PiB" in one_line_error("ge-opt", str(path))
    with pytest.raises(GraphError, match=r"35\.5 PiB"):
        Session().add_graph(0, str(path))


def test_onnx_dynamic_input_is_not_sized() -> None:
    with budget.max_memory_set("1K"):
        import_model(_relu_model(["N", 1024]))


def test_sparse_constant_of_huge_dims_is_refused_before_densifying() -> None:
    sparse = h.make_sparse_tensor(
        nh.from_array(np.array([5.0], np.float32), "v"), nh.from_array(np.array([3]), "i"), [10**12]
    )
    node = h.make_node("Constant", [], ["y"], name="c", sparse_value=sparse)
    y = h.make_tensor_value_info("y", TensorProto.FLOAT, [10**12])
    graph = h.make_graph([node], "g", [], [y])
    model = h.make_model(graph, opset_imports=[h.make_opsetid("", 17)])
    with pytest.raises(OnnxImportError) as info:
        import_model(model)
    assert f"sparse initializer 'v' (dims [1000000000000]) needs 3.6 TiB, {OVER}" in str(info.value)


def test_onnx_file_larger_than_the_budget_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "m.onnx"
    onnx.save(_relu_model([4]), path)
    line = one_line_error("ge-import", str(path), "--max-memory", "32")
    assert line == (
        f"error: reading {path} needs 61 B, over the memory limit of 32 B (raise it with "
        "--max-memory or GE_MAX_MEMORY)"
    )
    line = one_line_error("ge-import", str(path), "--max-memory", "100")
    assert line.startswith(f"error: parsing '{path}' needs 122 B, {OVER} 100 B")


def test_external_data_on_a_device_is_refused(tmp_path: Path) -> None:
    model = _relu_model([4])
    weight = nh.from_array(np.ones(4, np.float32), "w")
    model.graph.initializer.append(weight)
    model.graph.node[0].input[:] = ["x"]
    add = h.make_node("Add", ["y0", "w"], ["y"])
    model.graph.node[0].output[:] = ["y0"]
    model.graph.node.append(add)
    onnx.external_data_helper.convert_model_to_external_data(
        model, all_tensors_to_one_file=True, location="weights.bin", size_threshold=0
    )
    onnx.save(model, tmp_path / "m.onnx")
    (tmp_path / "weights.bin").unlink()
    os.mkfifo(tmp_path / "weights.bin")
    with pytest.raises(OnnxImportError, match="cannot load external data: it is a FIFO"):
        import_model(tmp_path / "m.onnx")


# --------------------------------------------------------------------------------------------
# Folding and planning
# --------------------------------------------------------------------------------------------

FILL = """graph.graph @main() -> (tensor<{n}xf32>) {{
  %d = graph.const dense<[{n}]> : tensor<1xi64>
  %v = graph.const dense<1.0> : tensor<f32>
  %y = graph.fill %d, %v {{node_name = "f"}} : (tensor<1xi64>, tensor<f32>) -> tensor<{n}xf32>
  graph.net_output %y : tensor<{n}xf32>
}}
"""


def test_fold_result_over_the_budget_is_not_computed(small_budget: None) -> None:
    module = parse(FILL.format(n=1 << 25))  # 128 MiB of f32, folded twice over
    FoldConstantsPass(max_size=1 << 30).apply(make_context(), module)
    assert "graph.fill" in str(module)
    small = parse(FILL.format(n=1 << 21))
    FoldConstantsPass(max_size=1 << 30).apply(make_context(), small)
    assert "graph.fill" not in str(small)


def _arena_model(size: int) -> str:
    return f"""ascend.model @main arena_size {size} weight_size 0 {{
  ascend.stream 0 engine "AIcoreEngine"
  ascend.input "x" arena[0] : tensor<4xf32>
  ascend.output "y" arena[512] : tensor<4xf32>
  ascend.kernel "Relu" "r" engine "AIcoreEngine" stream 0
      ins(arena[0] : tensor<4xf32>) outs(arena[512] : tensor<4xf32>)
  ascend.end_graph stream 0
}}
"""


def test_arena_size_1e11_is_refused_at_load(tmp_path: Path) -> None:
    module = parse(_arena_model(10**11))
    model = next(iter(module.ops))
    x = np.arange(-2, 2, dtype=np.float32)
    expected = f"'ascend.model' @main: its arena (arena_size 100000000000) needs 93.1 GiB, {OVER}"
    with budget.max_memory_set("16G"), pytest.raises(MemoryBudgetError) as info:
        execute_model(model, {"x": x})  # type: ignore[arg-type]
    assert str(info.value).startswith(expected)
    with budget.max_memory_set("16G"), pytest.raises(RunError, match="arena_size 100000000000"):
        run(module, {"x": x})
    with budget.max_memory_set("200G"), pytest.raises(MemoryBudgetError) as info:
        execute_model(model, {"x": x}, check_uninitialized=True, timing=True)  # type: ignore[arg-type]
    assert "with the writer of each byte (check-uninitialized) and the ready time" in str(
        info.value
    )
    path = tmp_path / "arena.mlir"
    path.write_text(_arena_model(10**11))
    code, rss, err = peak_rss_mib("ge-run", str(path), "--random-inputs", "0", limit="16G")
    assert code == 1 and err.strip().startswith(f"error: {expected}"), err
    assert rss < 256
    np.testing.assert_array_equal(
        execute_model(next(iter(parse(_arena_model(1024)).ops)), {"x": x}).outputs["y"],  # type: ignore[arg-type]
        np.maximum(x, 0),
    )


@pytest.fixture
def dyn_onnx(tmp_path: Path) -> Path:
    path = tmp_path / "dyn.onnx"
    onnx.save(_relu_model(["N", 3, 16, 16]), path)
    return path


def test_atc_huge_dynamic_batch_exceeds_device_memory(dyn_onnx: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    common = (f"--model={dyn_onnx}", f"--output={out}")
    line = one_line_error(
        "ge-atc", *common, "--input_shape=x:-1,3,16,16", "--dynamic_batch_size=1,1000000000"
    )
    assert line.startswith("error: ge-plan-memory: @g: needs an arena of 6144000001024 bytes")
    assert "more than device-memory=67108864" in line
    line = one_line_error(
        "ge-atc", *common, "--input_shape=x:1,3,-1,-1", "--dynamic_image_size=100000,100000;16,16"
    )
    assert "needs an arena of 240000001024 bytes" in line
    assert not out.with_suffix(".mlir").exists()
    assert tool("ge-atc", *common, "--input_shape=x:-1,3,16,16", "--dynamic_batch_size=1,4")[0] == 0


def test_compile_device_memory_defaults_to_the_budget(tmp_path: Path) -> None:
    path = tmp_path / "g.mlir"
    path.write_text(SMALL_GRAPH.replace("4xf32", "65536xf32"))
    line = one_line_error("ge-opt", str(path), "-p", "ge-compile", "--max-memory", "256K")
    assert "more than device-memory=262144" in line
    assert tool("ge-opt", str(path), "-p", "ge-compile{device-memory=1000000}")[0] == 0


# --------------------------------------------------------------------------------------------
# Run time: data-dependent outputs, static results, random inputs, the dynamic heap
# --------------------------------------------------------------------------------------------

RANGE = """graph.graph @main(%n: tensor<f32>) -> (tensor<?xf32>) {
  %s = graph.const dense<0.0> : tensor<f32>
  %d = graph.const dense<1.0> : tensor<f32>
  %y = graph.range %s, %n, %d {node_name = "r"}
      : (tensor<f32>, tensor<f32>, tensor<f32>) -> tensor<?xf32>
  graph.net_output %y : tensor<?xf32>
}
"""


def test_range_of_1e12_elements_is_refused(tmp_path: Path) -> None:
    n = np.array(1e12, np.float32)
    expected = f"'graph.range' \"r\": Range output float32[999999995904] needs 3.6 TiB, {OVER}"
    with pytest.raises(RunError) as info:
        run(parse(RANGE), {"n": n})
    assert str(info.value).startswith(expected)
    graph = tmp_path / "range.mlir"
    graph.write_text(RANGE)
    np.save(tmp_path / "n.npy", n)
    code, rss, err = peak_rss_mib("ge-run", str(graph), "--input", f"n={tmp_path / 'n.npy'}")
    assert code == 1 and err.strip().startswith(f"error: {expected}"), err
    assert rss < 256
    model = tmp_path / "range.ascend.mlir"
    assert tool("ge-opt", str(graph), "-p", "ge-compile", "-o", str(model))[0] == 0
    line = one_line_error("ge-run", str(model), "--input", f"n={tmp_path / 'n.npy'}")
    assert line.startswith("error: 'ascend.dynamic_kernel' \"r\" (Range): Range output ")
    assert tool("ge-run", str(graph), "--input", f"n={tmp_path / 'n.npy'}", limit=None)[0] == 1
    np.save(tmp_path / "m.npy", np.array(5.0, np.float32))
    assert tool("ge-run", str(model), "--input", f"m={tmp_path / 'm.npy'}")[0] == 1  # unknown
    assert tool("ge-run", str(model), "--input", f"n={tmp_path / 'm.npy'}")[0] == 0


I64 = np.int64
E10 = 10**10


@pytest.mark.parametrize(
    ("ge_type", "inputs", "needs"),
    [
        ("Fill", [np.array([E10], I64), np.array(0.0, np.float32)], "Fill output float32"),
        ("Expand", [np.ones(1, np.float32), np.array([E10], I64)], "Expand output float32"),
        ("Tile", [np.ones(2, np.float32), np.array([E10], I64)], "Tile output float32"),
        (
            "PadV3",
            [np.ones((2, 2), np.float32), np.array([0, 0, E10, E10], I64), np.array(0.0)],
            "PadV3 output float32[2, 20000000002]",
        ),
        (
            "Resize",
            [
                np.ones((1, 1, 2, 2), np.float32),
                np.zeros(0, np.float32),
                np.zeros(0, np.float32),
                np.array([1, 1, 100000, 100000], I64),
            ],
            "Resize output float64[1, 1, 100000, 100000]",
        ),
        (
            "OneHot",
            [np.arange(10, dtype=I64), np.array(E10), np.array(1.0), np.array(0.0)],
            "OneHot output float64[10, 10000000000]",
        ),
        ("NonZero", [np.ones(1 << 17, np.bool_)], "NonZero output int64[1, 131072] needs 2.0 MiB"),
        (
            "Range",
            [np.array(0, I64), np.array(10**12, I64), np.array(1, I64)],
            "Range output int64[1000000000000]",
        ),
    ],
)
def test_data_dependent_output_is_refused_before_allocation(
    ge_type: str, inputs: list[np.ndarray], needs: str
) -> None:
    with budget.max_memory_set("1M"), pytest.raises(MemoryBudgetError) as info:
        run_kernel(ge_type, inputs, {}, [F32_DYN])
    assert str(info.value).startswith(needs), str(info.value)
    assert f"{OVER} 1.0 MiB" in str(info.value)


def test_resize_of_an_empty_tensor_to_1e12_is_refused(small_budget: None) -> None:
    inputs = [
        np.ones((0, 1), np.float32),
        np.zeros(0, np.float32),
        np.zeros(0, np.float32),
        np.array([0, 10**12], I64),
    ]
    with pytest.raises(MemoryBudgetError, match=r"Resize output float64\[1000000000000, 16\]"):
        run_kernel("Resize", inputs, {}, [F32_DYN])


def test_static_result_over_the_budget_is_refused_before_the_kernel(small_budget: None) -> None:
    result = TensorType(Float32Type(), [1 << 30])
    with pytest.raises(MemoryBudgetError, match=r"Relu outputs \(tensor<1073741824xf32>\)"):
        run_kernel("Relu", [np.ones(4, np.float32)], {}, [result])


def test_broadcast_of_unknown_shape_is_sized_first(small_budget: None) -> None:
    """[N, 1] + [1, M] with `?` result dims: N * M elements, refused before numpy allocates."""
    a, b = np.ones((1 << 14, 1), np.float32), np.ones((1, 1 << 14), np.float32)
    result = TensorType(Float32Type(), [DYNAMIC_INDEX, DYNAMIC_INDEX])
    with pytest.raises(
        MemoryBudgetError, match=r"Add output float32\[16384, 16384\] needs 1\.0 GiB"
    ):
        run_kernel("Add", [a, b], {}, [result])
    assert run_kernel("Add", [a[:4], b[:, :4]], {}, [result])[0].shape == (4, 4)


def test_random_inputs_for_huge_tensor_are_refused(tmp_path: Path) -> None:
    text = SMALL_GRAPH.replace("4xf32", "100000000000xf32")
    module = parse(text)
    sig = signature(next(iter(module.ops)))
    with pytest.raises(MemoryBudgetError) as info:
        random_inputs(sig, 0)
    expected = f"random input 'x' (tensor<100000000000xf32>) needs 1.1 TiB, {OVER}"
    assert str(info.value).startswith(expected)
    path = tmp_path / "huge.mlir"
    path.write_text(text)
    assert one_line_error("ge-run", str(path), "--random-inputs", "0", limit=None).startswith(
        f"error: {expected}"
    )


def test_dynamic_heap_growth_is_checked() -> None:
    """A Range output of 1.5 MiB fits a 2 MiB budget, but with check-uninitialized every heap
    byte also has a 4-byte writer tag: the heap's growth is what is refused."""
    module = _compiled_range_i64()
    model = next(op for op in module.ops if isinstance(op, ModelOp))
    n = np.array(3 << 16, I64)
    with budget.max_memory_set("2M"):
        ok = execute_model(model, {"n": np.array(1000, I64)}, check_uninitialized=True)
        np.testing.assert_array_equal(ok.outputs["output0"], np.arange(1000))
        assert len(execute_model(model, {"n": n}).outputs["output0"]) == 3 << 16
        with pytest.raises(MemoryBudgetError, match=rf"the dynamic heap, placing .* {OVER}"):
            execute_model(model, {"n": n}, check_uninitialized=True)


def _compiled_range_i64() -> ModuleOp:
    from gedialects.passes.pipelines import CompilePipelinePass

    text = RANGE.replace("f32", "i64").replace("dense<0.0>", "dense<0>")
    module = parse(text.replace("dense<1.0>", "dense<1>"))
    CompilePipelinePass().apply(make_context(), module)
    return module


# --------------------------------------------------------------------------------------------
# Options
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "args",
    [
        ("ge-run", "x.mlir"),
        ("ge-opt", "x.mlir"),
        ("ge-import", "x.onnx"),
        ("ge-atc", "--model=x.onnx", "--output=x"),
    ],
)
def test_bad_max_memory_is_one_line(args: tuple[str, ...]) -> None:
    for bad in ("12Q", "-1", "0", "\u0661G"):
        line = one_line_error(*args, f"--max-memory={bad}", limit=None)
        assert "--max-memory: " in line, line
        assert repr(bad) in line or "must be positive" in line, line


def test_bad_environment_limit_is_one_line(tmp_path: Path) -> None:
    graph = _graph_file(tmp_path)
    line = one_line_error("ge-run", str(graph), "--random-inputs", "0", limit="lots")
    assert line.startswith("error: GE_MAX_MEMORY: expected a byte count")


def test_session_max_memory_option(tmp_path: Path) -> None:
    with pytest.raises(OptionError, match=r"E10001: Value 8X for parameter ge.maxMemory"):
        Session({"ge.maxMemory": "8X"})
    session = Session({"ge.maxMemory": "1M"})
    session.add_graph(0, RANGE)
    assert session.run_graph(0, {"n": np.array(5.0, np.float32)})["output0"].tolist() == [
        0.0,
        1.0,
        2.0,
        3.0,
        4.0,
    ]
    with pytest.raises(ExecutionError, match=rf"Range output float32\[1000000\] .*{OVER} 1.0 MiB"):
        session.run_graph(0, {"n": np.array(1e6, np.float32)})
    assert budget.max_memory() != 1 << 20  # the option holds for the Session's calls only
    session.add_graph(1, RANGE, {"ge.maxMemory": "16M"})
    assert len(session.run_graph(1, {"n": np.array(1e6, np.float32)})["output0"]) == 1000000
    big = tmp_path / "big.onnx"
    onnx.save(_relu_model([1 << 20]), big)
    with pytest.raises(GraphError, match=rf"graph input 'x' .* needs 4.0 MiB, {OVER} 1.0 MiB"):
        session.add_graph(2, str(big))
    wide = SMALL_GRAPH.replace("4xf32", "262144xf32")
    session.add_graph(3, wide)
    with pytest.raises(GraphError, match="more than device-memory=1048576"):
        session.compile_graph(3)
