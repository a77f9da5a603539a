"""The binary IR (`gedialects.bytecode`, docs/binary-format.md): exact round trips of the whole
text corpus and of the values text is bad at, and a clean one-line error for every kind of
corrupt or truncated file, in-process, through the tools and through the Session."""

from __future__ import annotations

import random
import re
import struct
import subprocess
import sys
import time
from pathlib import Path

import pytest
from text_corpus import ROOT, chunks, parse, printed
from xdsl.parser import Parser

from gedialects import bytecode, make_context
from gedialects.bytecode import HEADER, BinaryFormatError

BIN = Path(sys.executable).parent


def load(data: bytes, name: str = "t.gebc"):
    return bytecode.load(data, make_context(), name)


def round_trip(text: str) -> tuple[str, str]:
    module = Parser(make_context(), text, "<test>").parse_module()
    return printed(module), printed(load(bytecode.dump(module)))


# --------------------------------------------------------------------------------------------
# Exact round trips
# --------------------------------------------------------------------------------------------


def test_every_lit_input_round_trips_text_binary_text_byte_identical() -> None:
    """Every chunk of every lit file and example that parses: text -> binary -> text gives the
    same bytes, in the custom and in the generic form."""
    checked = 0
    failures: list[str] = []
    for name, text in chunks():
        try:
            module = parse(text, name)
        except Exception:  # the corpus has negative cases that do not parse
            continue
        back = load(bytecode.dump(module), name)
        if printed(back) != printed(module):
            failures.append(f"{name} (custom)")
        elif printed(back, generic=True) != printed(module, generic=True):
            failures.append(f"{name} (generic)")
        checked += 1
    assert not failures, failures[:10]
    assert checked > 500  # the corpus holds about 560 parsing chunks


SPECIAL = """builtin.module {
  graph.graph @special(%x: tensor<2xf32>) -> (tensor<2xf32> {node_name = "y"}) {
    %nan = graph.const dense<[0x7FC00001, 0xFFC00000]> : tensor<2xf32> {node_name = "nan"}
    %inf = graph.const dense<[0x7F800000, 0xFF800000]> : tensor<2xf32> {node_name = "inf"}
    %nz = graph.const dense<-0.000000e+00> : tensor<2xf32> {node_name = "neg_zero"}
    %e = graph.const dense<> : tensor<0xf32> {node_name = "empty"}
    %e2 = graph.const dense<> : tensor<3x0xi64> {node_name = "empty2"}
    %h = graph.const dense<[1.5, -2.0]> : tensor<2xf16> {node_name = "h"}
    %b = graph.const dense<[1.5, -2.0]> : tensor<2xbf16> {node_name = "b"}
    %d = graph.const dense<[1.0e-300, 0x7FF0000000000001]> : tensor<2xf64> {node_name = "d"}
    %i1 = graph.const dense<[true, false]> : tensor<2xi1> {node_name = "i1"}
    %i8 = graph.const dense<[-128, 127]> : tensor<2xi8> {node_name = "i8"}
    %i16 = graph.const dense<[-32768, 32767]> : tensor<2xi16> {node_name = "i16"}
    %i32 = graph.const dense<[-2147483648, 2147483647]> : tensor<2xi32> {node_name = "i32"}
    %i64 = graph.const dense<[-9223372036854775808, 9223372036854775807]> : tensor<2xi64>
      {node_name = "i64"}
    %u8 = graph.const dense<[0, 255]> : tensor<2xui8> {node_name = "u8"}
    %u64 = graph.const dense<[0, 18446744073709551615]> : tensor<2xui64> {node_name = "u64"}
    %s = graph.const dense<7> : tensor<100x100xi32>
      {node_name = "splat \\C3\\A9\\E2\\86\\92 \\22q\\22"}
    %y = graph.add %x, %nz {node_name = "y", note = "caf\\C3\\A9 \\F0\\9F\\98\\80",
      f = -0.0 : f32, g = 0x7FF8000000000001 : f64, big = 18446744073709551615 : ui64,
      flag = true, u, arr = [1, -0.0 : f64, "s"], dict = {a = 1 : i64},
      dims = array<i64: 3, -1>} : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    graph.net_output %y : tensor<2xf32>
  }
}
"""


def test_neg_zero_nan_inf_non_ascii_every_dtype_splat_and_empty_survive_binary_round_trip() -> None:
    before, after = round_trip(SPECIAL)
    assert after == before
    assert "-0.000000e+00" in before and "0x7fc00001" in before


def test_float_attribute_bits_are_kept_exactly() -> None:
    """-0.0 and 0.0 compare equal, and NaN payloads print alike: the table keys by bits."""
    from xdsl.dialects.builtin import FloatAttr

    module = Parser(make_context(), SPECIAL, "<test>").parse_module()
    y = next(op for op in module.walk() if op.attributes.get("note") is not None)
    back = load(bytecode.dump(module))
    y2 = next(op for op in back.walk() if op.attributes.get("note") is not None)
    for key in ("f", "g"):
        a, b = y.attributes[key], y2.attributes[key]
        assert isinstance(a, FloatAttr) and isinstance(b, FloatAttr)
        assert bytecode.float_bits(a.value.data) == bytecode.float_bits(b.value.data)
    f = y2.attributes["f"]
    assert isinstance(f, FloatAttr) and str(f.value.data) == "-0.0"


def test_zero_and_neg_zero_in_one_module_stay_apart() -> None:
    text = (
        "builtin.module {\n"
        '  "test.op"() {a = 0.0 : f64, b = -0.0 : f64, c = 1 : i64, d = true} : () -> ()\n'
        "}\n"
    )
    before, after = round_trip(text)
    assert after == before and "-0.0" in after and "true" in after


def test_forward_references_and_successors_round_trip() -> None:
    text = """builtin.module {
  func.func @f(%a: i32) -> i32 {
    %0 = "test.op"(%1) : (i32) -> i32
    %1 = "test.op"(%a) : (i32) -> i32
    "test.termop"(%0)[^bb1, ^bb2] : (i32) -> ()
  ^bb1(%b: i32):
    func.return %b : i32
  ^bb2:
    "test.termop"(%1)[^bb1] : (i32) -> ()
  }
}
"""
    before, after = round_trip(text)
    assert after == before


def _links(module: object) -> list[tuple[object, ...]]:
    """Every op's operand and successor uses and every value's use list, by position: what
    `Operation.create` links and what the loader's own op builder must link the same."""
    ops = list(module.walk())  # type: ignore[attr-defined]
    where = {id(op): i for i, op in enumerate(ops)}
    blocks = {id(b): i for i, b in enumerate(b for op in ops for r in op.regions for b in r.blocks)}
    out: list[tuple[object, ...]] = []
    for i, op in enumerate(ops):
        out.append((i, op.name, tuple(blocks[id(b)] for b in op.successors), dict(op.properties)))
        for k, operand in enumerate(op.operands):
            linked = sum(1 for u in operand.uses if u.operation is op and u.index == k)
            out.append(("operand", k, linked, where.get(id(operand.owner))))
        for r in op.results:
            uses = sorted((where[id(u.operation)], u.index) for u in r.uses)
            out.append(("result", r.index, r.op is op, r.name_hint, r.type, tuple(uses)))
        for region in op.regions:
            assert region.parent is op
            for block in region.blocks:
                out.append(
                    ("block", tuple(sorted((where[id(u.operation)], u.index) for u in block.uses)))
                )
    return out


def test_loaded_ops_link_uses_results_and_successors_as_create_does() -> None:
    """The loader builds ops without `Operation.create` (half of a load): every operand, result
    and successor use, and the IRDL defaults, come out as the text parser makes them, and the
    loaded module can be rewritten (a use list that was not linked would not empty)."""
    text = """builtin.module {
  func.func @f(%a: i32) -> i32 {
    %0 = "test.op"(%1, %a) : (i32, i32) -> i32
    %1 = "test.op"(%a) {k = 1 : i64} : (i32) -> i32
    "test.termop"(%0, %0)[^bb1, ^bb2] : (i32, i32) -> ()
  ^bb1(%b: i32):
    func.return %b : i32
  ^bb2:
    "test.termop"(%1)[^bb1] : (i32) -> ()
  }
}
"""
    module = Parser(make_context(), text, "<test>").parse_module()
    loaded = load(bytecode.dump(module))
    assert _links(loaded) == _links(module)
    first = next(op for op in loaded.walk() if op.name == "test.op")
    first.results[0].replace_all_uses_with(first.operands[1])
    assert not list(first.results[0].uses)
    loaded.verify()


def test_weights_are_raw_aligned_bytes_in_their_own_section() -> None:
    import numpy as np

    module = Parser(make_context(), SPECIAL, "<test>").parse_module()
    data = bytecode.dump(module)
    _, _, _, ir_size, w_offset, w_size, _, _ = HEADER.unpack_from(data)
    assert w_offset % bytecode.ALIGN == 0 and w_offset >= HEADER.size + ir_size
    assert w_offset + w_size == len(data)
    # the 100x100 splat is one element; the 8-byte f64 pair stays inline: no weights needed
    big = np.arange(1000, dtype=np.float32)
    hexed = big.tobytes().hex().upper()
    text = (
        "builtin.module {\n"
        f'  "test.op"() {{w = dense<"0x{hexed}"> : tensor<1000xf32>}} : () -> ()\n'
        "}\n"
    )
    m = Parser(make_context(), text, "<test>").parse_module()
    data = bytecode.dump(m)
    _, _, _, ir_size, w_offset, w_size, _, _ = HEADER.unpack_from(data)
    assert w_size == 4000 + (-4000 % bytecode.ALIGN)
    assert data[w_offset : w_offset + 4000] == big.tobytes()
    assert ir_size < 1000  # the weights are not in the message
    assert printed(load(data)) == printed(m)


def test_offline_model_records_its_metadata() -> None:
    module = Parser(make_context(), SPECIAL, "<test>").parse_module()
    data = bytecode.dump(module, bytecode.KIND_OFFLINE_MODEL, {"input_shape": "x:2"})
    info = bytecode.read_info(data, "m.om")
    assert info.kind == bytecode.KIND_OFFLINE_MODEL
    assert info.metadata == {"input_shape": "x:2"}
    assert info.op_count == sum(1 for _ in module.walk())


def test_schema_in_the_docs_is_the_one_the_code_builds() -> None:
    doc = (ROOT / "docs" / "binary-format.md").read_text()
    assert bytecode.schema_text() in doc


# --------------------------------------------------------------------------------------------
# Corrupt files: crafted with valid checksums, so that every structural check is reached
# --------------------------------------------------------------------------------------------

SMALL = """builtin.module {
  graph.graph @g(%x: tensor<2xf32>) -> (tensor<2xf32> {node_name = "y"}) {
    %k = graph.const dense<[1.0, 2.0]> : tensor<2xf32> {node_name = "k"}
    %y = graph.add %x, %k {node_name = "y"} : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    graph.net_output %y : tensor<2xf32>
  }
}
"""


def small_message():
    module = Parser(make_context(), SMALL, "<test>").parse_module()
    data = bytecode.dump(module)
    header = bytecode.read_header(data, "x")
    msg = bytecode._schema()["Module"]()
    msg.ParseFromString(bytes(header.ir))
    return msg, bytes(header.weights)


def repack(msg, weights: bytes = b"") -> bytes:
    return bytecode.pack(msg.SerializeToString(), [weights])


def refused(data: bytes, pattern: str) -> None:
    with pytest.raises(BinaryFormatError, match=pattern) as e:
        load(data, "c.gebc")
    assert "\n" not in str(e.value)


def with_header(data: bytes, **fields: int) -> bytes:
    names = ("magic", "version", "kind", "ir_size", "w_offset", "w_size", "ir_crc", "w_crc")
    values = dict(zip(names, HEADER.unpack_from(data), strict=True))
    values.update(fields)
    return HEADER.pack(*values.values()) + data[HEADER.size :]


def test_bad_magic_is_refused() -> None:
    msg, _ = small_message()
    refused(b"XXXX" + repack(msg)[4:], "bad magic")
    refused(b"", "truncated header \\(0 bytes")
    refused(b"\x89GEB", "truncated header")


def test_wrong_version_and_unknown_kind_are_refused() -> None:
    msg, _ = small_message()
    data = repack(msg)
    refused(with_header(data, version=2), "unsupported format version 2")
    refused(with_header(data, kind=7), "unknown file kind 7")


def test_truncated_sections_and_trailing_bytes_are_refused() -> None:
    msg, _ = small_message()
    data = repack(msg)
    refused(data[: HEADER.size - 1], "truncated header")
    refused(data[: HEADER.size + 3], "truncated: the IR section")
    refused(data + b"\0" * 64, "trailing bytes")
    refused(with_header(data, w_offset=HEADER.size + 1), "bad weights offset")


def test_weight_length_beyond_the_file_is_refused_before_reading() -> None:
    msg, weights = small_message()
    data = repack(msg, weights)
    refused(with_header(data, w_size=2**62), "truncated: the weights section ends at byte")
    rec = msg.attributes.add(kind=bytecode.BYTES, name=0, in_weights=True)
    rec.weight_offset, rec.weight_size = 0, 2**40
    msg.strings.append("bytes")
    rec.name = len(msg.strings) - 1
    refused(repack(msg, weights), r"weight bytes \[0, 1099511627776\) beyond")
    rec.weight_offset, rec.weight_size = 3, 1
    refused(repack(msg, weights), "beyond")


def test_checksum_mismatch_is_refused() -> None:
    msg, _ = small_message()
    data = bytearray(repack(msg))
    data[HEADER.size + 5] ^= 1
    refused(bytes(data), "corrupt IR section")


def test_corrupt_protobuf_is_refused() -> None:
    junk = b"\xff" * 40
    refused(bytecode.pack(junk, []), "corrupt IR section")


def test_out_of_range_indices_are_refused() -> None:
    msg, _ = small_message()
    ops = list(msg.ops)
    cases = {
        0: ("string index", 10**6),  # the module's op name
    }
    for pos, (pattern, value) in cases.items():
        m2 = type(msg)()
        m2.CopyFrom(msg)
        del m2.ops[:]
        m2.ops.extend([*ops[:pos], value, *ops[pos + 1 :]])
        refused(repack(m2), pattern)
    # every integer of the records replaced by a huge one: each is refused cleanly
    for pos in range(len(ops)):
        m2 = type(msg)()
        m2.CopyFrom(msg)
        del m2.ops[:]
        m2.ops.extend([*ops[:pos], 2**40, *ops[pos + 1 :]])
        with pytest.raises(BinaryFormatError):
            load(repack(m2))


def test_attribute_references_must_point_back() -> None:
    msg, _ = small_message()
    i = next(i for i, a in enumerate(msg.attributes) if a.kind == bytecode.PARAMS and a.refs)
    msg.attributes[i].refs[0] = i
    refused(repack(msg), "does not point back")


def test_payload_of_the_wrong_kind_is_refused() -> None:
    msg, _ = small_message()
    i = next(i for i, a in enumerate(msg.attributes) if a.kind == bytecode.STRING)
    msg.attributes[i].kind = bytecode.INT
    refused(repack(msg), "cannot hold an integer record")


def test_unknown_op_and_attribute_names_are_refused() -> None:
    msg, _ = small_message()
    m2 = type(msg)()
    m2.CopyFrom(msg)
    m2.strings[msg.ops[0]] = "nosuch.op"
    refused(repack(m2), "unknown operation 'nosuch.op'")
    m3 = type(msg)()
    m3.CopyFrom(msg)
    m3.strings[msg.attributes[0].name] = "nosuch.attr"
    refused(repack(m3), "unknown attribute or type 'nosuch.attr'")


def test_counts_beyond_the_records_are_refused_before_allocating() -> None:
    msg, _ = small_message()
    msg.value_count = 2**60
    refused(repack(msg), "exceeds the")


def test_extra_records_and_undefined_forward_values_are_refused() -> None:
    msg, _ = small_message()
    msg.ops.append(0)
    refused(repack(msg), "1 integers after the last op record")


def test_truncated_op_records_are_refused() -> None:
    msg, _ = small_message()
    ops = list(msg.ops)
    for cut in range(len(ops)):
        m2 = type(msg)()
        m2.CopyFrom(msg)
        del m2.ops[cut:]
        with pytest.raises(BinaryFormatError):
            load(repack(m2))


def test_regions_nested_too_deep_are_refused_on_write_and_read() -> None:
    from gedialects.nesting import MAX_NESTING

    depth = MAX_NESTING + 2
    inner = '"test.op"() : () -> ()'
    for _ in range(depth):
        inner = f'"test.op"() ({{\n{inner}\n}}) : () -> ()'
    module = Parser(make_context(), f"builtin.module {{\n{inner}\n}}", "<t>").parse_module()
    with pytest.raises(ValueError, match="levels deep"):
        bytecode.dump(module)


# --------------------------------------------------------------------------------------------
# Sweeps over a real model file
# --------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def model_file() -> bytes:
    """The compiled conv_block example as an offline model (ascend level, with weights)."""
    from gedialects.passes.pipelines import CompilePipelinePass

    text = (ROOT / "examples" / "conv_block.mlir").read_text()
    module = Parser(make_context(), text, "conv_block.mlir").parse_module()
    CompilePipelinePass().apply(make_context(), module)
    return bytecode.dump(module, bytecode.KIND_OFFLINE_MODEL, {"input_shape": ""})


def test_truncation_sweep_over_a_real_model_file(model_file: bytes) -> None:
    """Every prefix of the file is refused, each within a second."""
    step = max(1, len(model_file) // 3000)
    for n in range(0, len(model_file), step):
        start = time.thread_time()
        with pytest.raises(BinaryFormatError):
            load(model_file[:n], "m.om")
        assert time.thread_time() - start < 1.0


def test_truncation_sweep_with_valid_checksums(model_file: bytes) -> None:
    """Truncated IR sections re-packed with matching sizes and CRCs: the protobuf and record
    checks, not the header, refuse them."""
    header = bytecode.read_header(model_file, "m.om")
    ir, weights = bytes(header.ir), bytes(header.weights)
    for n in range(0, len(ir), max(1, len(ir) // 300)):
        start = time.thread_time()
        with pytest.raises(BinaryFormatError):
            load(bytecode.pack(ir[:n], [weights], bytecode.KIND_OFFLINE_MODEL), "m.om")
        assert time.thread_time() - start < 1.0


def test_bit_flip_sample_is_refused(model_file: bytes) -> None:
    rng = random.Random(14)
    for _ in range(300):
        data = bytearray(model_file)
        pos = rng.randrange(len(data))
        data[pos] ^= 1 << rng.randrange(8)
        start = time.thread_time()
        with pytest.raises(BinaryFormatError):
            load(bytes(data), "m.om")
        assert time.thread_time() - start < 1.0


def test_a_flip_in_the_padding_before_the_weights_is_refused(model_file: bytes) -> None:
    """The zero pad between the IR and the 64-byte aligned weights is no CRC's: it is checked
    to be zeros, so no byte of the file goes unchecked."""
    header = bytecode.read_header(model_file, "m.om")
    pad_at = HEADER.size + len(bytes(header.ir))
    assert model_file[pad_at] == 0, "the compiled model has a pad before its weights"
    data = bytearray(model_file)
    data[pad_at] ^= 0x10
    with pytest.raises(BinaryFormatError, match="corrupt padding before the weights section"):
        load(bytes(data), "m.om")


def test_bit_flips_behind_valid_checksums_are_clean_errors_in_the_session(
    model_file: bytes, tmp_path: Path
) -> None:
    """Flips in the IR section, re-packed with a matching CRC: loading and verifying either
    succeeds or raises the Session's one-line GraphError, never another exception."""
    from gedialects import Session
    from gedialects.errors import GraphError

    header = bytecode.read_header(model_file, "m.om")
    ir, weights = bytes(header.ir), bytes(header.weights)
    rng = random.Random(1414)
    path = tmp_path / "flip.om"
    refusals = 0
    for i in range(120):
        data = bytearray(ir)
        pos = rng.randrange(len(data))
        data[pos] ^= 1 << rng.randrange(8)
        path.write_bytes(bytecode.pack(bytes(data), [weights], bytecode.KIND_OFFLINE_MODEL))
        start = time.thread_time()
        try:
            Session().add_graph(i, str(path))
        except GraphError as e:
            refusals += 1
            assert "\n" not in str(e)
        assert time.thread_time() - start < 1.0
    assert refusals > 0


def test_memory_budget_applies_to_the_file_read(model_file: bytes, tmp_path: Path) -> None:
    from gedialects.budget import MemoryBudgetError, max_memory_set

    path = tmp_path / "m.om"
    path.write_bytes(model_file)
    with max_memory_set(1024), pytest.raises(MemoryBudgetError):
        bytecode.load_file(str(path), make_context())


# --------------------------------------------------------------------------------------------
# The tools and the Session, as users run them
# --------------------------------------------------------------------------------------------


def run(tool: str, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(BIN / tool), *args], capture_output=True, text=True, timeout=300, check=False
    )


def test_tools_choose_the_binary_form_by_extension(tmp_path: Path) -> None:
    model = ROOT / "tests" / "models" / "mlp.onnx"
    gebc, mlir = tmp_path / "g.gebc", tmp_path / "g.mlir"
    assert run("ge-import", str(model), "-o", str(gebc)).returncode == 0
    assert run("ge-import", str(model), "-o", str(mlir)).returncode == 0
    text = run("ge-opt", str(gebc))
    assert text.returncode == 0, text.stderr
    assert text.stdout == run("ge-opt", str(mlir)).stdout
    atc = run("ge-atc", f"--model={model}", f"--output={tmp_path / 'out'}")
    assert atc.returncode == 0, atc.stderr
    om, out_mlir = tmp_path / "out.om", tmp_path / "out.mlir"
    assert om.exists() and out_mlir.exists()
    assert run("ge-opt", str(om)).stdout == run("ge-opt", str(out_mlir)).stdout
    info = bytecode.read_info(om.read_bytes(), str(om))
    assert info.kind == bytecode.KIND_OFFLINE_MODEL
    assert info.metadata["model"] == "mlp.onnx" and info.metadata["framework"] == "5"
    ref = ROOT / "tests" / "models" / "mlp.expected.npz"
    inputs = ROOT / "tests" / "models" / "mlp.inputs.npz"
    for path in (om, gebc):
        r = run("ge-run", str(path), "--inputs", str(inputs), "--reference", str(ref), "-q")
        assert r.returncode == 0, r.stderr
        assert "MATCH" in r.stdout


def test_ge_atc_emit_chooses_the_files(tmp_path: Path) -> None:
    model = ROOT / "tests" / "models" / "mlp.onnx"
    r = run("ge-atc", f"--model={model}", f"--output={tmp_path / 'a.om'}", "--emit=om")
    assert r.returncode == 0, r.stderr
    assert (tmp_path / "a.om").exists() and not (tmp_path / "a.mlir").exists()
    r = run("ge-atc", f"--model={model}", f"--output={tmp_path / 'b'}", "--emit=mlir")
    assert r.returncode == 0, r.stderr
    assert (tmp_path / "b.mlir").exists() and not (tmp_path / "b.om").exists()
    r = run("ge-atc", f"--model={model}", f"--output={tmp_path / 'c'}", "--emit=json")
    assert r.returncode == 1 and r.stderr.count("\n") == 1


def test_corrupt_file_is_one_line_error_exit_1_in_every_tool(tmp_path: Path) -> None:
    bad = tmp_path / "bad.gebc"
    module = Parser(make_context(), SMALL, "<test>").parse_module()
    bad.write_bytes(bytecode.dump(module)[:-7])
    for tool, args in (("ge-opt", [str(bad)]), ("ge-run", [str(bad), "--random-inputs", "0"])):
        r = run(tool, *args)
        assert r.returncode == 1, (tool, r.stderr)
        assert re.fullmatch(rf"{re.escape(str(bad))}: error: truncated: .*\n", r.stderr), r.stderr
    r = run("ge-run", "--compare", str(bad), str(bad), "--random-inputs", "0")
    assert r.returncode == 1 and r.stderr.startswith(f"{bad}: error:")


def test_ge_opt_binary_output_after_passes_and_from_stdin(tmp_path: Path) -> None:
    src = tmp_path / "s.mlir"
    src.write_text(SMALL)
    out = tmp_path / "s.om"
    r = run("ge-opt", str(src), "-p", "ge-compile", "-o", str(out))
    assert r.returncode == 0, r.stderr
    compiled = run("ge-opt", str(src), "-p", "ge-compile").stdout
    with out.open("rb") as f:
        r2 = subprocess.run(
            [str(BIN / "ge-opt"), "-f", "om"], stdin=f, capture_output=True, text=True, check=False
        )
    assert r2.returncode == 0, r2.stderr
    assert r2.stdout == compiled


def test_ge_opt_binary_output_refuses_several_modules(tmp_path: Path) -> None:
    src = tmp_path / "two.mlir"
    src.write_text(SMALL + "// -----\n" + SMALL)
    r = run("ge-opt", str(src), "--split-input-file", "-o", str(tmp_path / "two.gebc"))
    assert r.returncode == 1 and "holds one module" in r.stderr
    assert not (tmp_path / "two.gebc").exists()


def test_session_adds_a_binary_graph_and_refuses_a_corrupt_one(tmp_path: Path) -> None:
    import numpy as np

    from gedialects import Session
    from gedialects.errors import GraphError

    module = Parser(make_context(), SMALL, "<test>").parse_module()
    path = tmp_path / "g.gebc"
    path.write_bytes(bytecode.dump(module))
    session = Session()
    session.add_graph(1, str(path))
    session.add_graph(2, path)  # a PathLike
    x = np.array([1.0, -1.0], np.float32)
    assert session.run_graph(1, {"x": x})["y"].tolist() == [2.0, 1.0]
    assert session.run_graph(2, {"x": x})["y"].tolist() == [2.0, 1.0]
    bad = tmp_path / "bad.gebc"
    bad.write_bytes(path.read_bytes()[:-1])
    with pytest.raises(GraphError, match=r"bad\.gebc: truncated"):
        Session().add_graph(1, str(bad))
    data = bytearray(path.read_bytes())
    struct.pack_into("<I", data, 8, 99)
    bad.write_bytes(bytes(data))
    with pytest.raises(GraphError, match="unsupported format version 99"):
        Session().add_graph(1, str(bad))


def test_loader_verifies_as_the_text_path(tmp_path: Path) -> None:
    """A module that parses but does not verify is refused on load by every tool, as its
    text is (the binary form does not skip the verifier)."""
    from gedialects import Session
    from gedialects.errors import GraphError

    text = """graph.graph @g(%x: tensor<4xf32>, %y: tensor<3xf32>) -> (tensor<4xf32>) {
  %s = graph.add %x, %y : (tensor<4xf32>, tensor<3xf32>) -> tensor<4xf32>
  graph.net_output %s : tensor<4xf32>
}
"""
    module = Parser(make_context(), text, "<test>").parse_module()
    path = tmp_path / "v.gebc"
    path.write_bytes(bytecode.dump(module))
    (tmp_path / "v.mlir").write_text(text)
    with pytest.raises(GraphError, match="do not broadcast"):
        Session().add_graph(1, str(path))
    r = run("ge-run", str(path), "--random-inputs", "0")
    r_text = run("ge-run", str(tmp_path / "v.mlir"), "--random-inputs", "0")
    assert r.returncode == r_text.returncode == 1
    assert r.stderr.count("\n") == 1 and "do not broadcast" in r.stderr
