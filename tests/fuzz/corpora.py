"""Generated fuzz inputs: one generator per family, each `(random.Random) -> Case`.

Families:
- `lit`: a `// -----` chunk of a file under tests/lit (or examples/), mutated (byte flips,
  deleted and duplicated lines, interesting integers, other dtypes and op names, special
  floats, truncation), run through `ge-opt` (with a pipeline) or `ge-run`;
- `onnx`: tests/models/*.onnx and small onnx.helper models, truncated, byte-flipped, with
  fields of the wrong wire type, or edited as protobufs (huge, negative and zero dims, bad
  dtypes, raw data of the wrong length, attributes of the wrong type, dangling names),
  through `ge-import` and `ge-atc`;
- `npz`: bad `--inputs`/`--input` files for `ge-run` (truncated archives, wrong names,
  dtypes and shapes, pickles, `.npy` headers claiming huge shapes, deflated members);
- `atc-options`, `pass-options`, `run-options`: option strings of `ge-atc`, of the passes
  (`-p 'ge-compile{...}'`, every pass's options) and of `ge-run`;
- `session`: Session options, graph options and run inputs of the wrong types and values;
- `resource`: huge shapes, deep nesting, long strings and names, many ops.

`UNTERMINATED_STRINGS` keeps string literals without their closing quote out of the
generated text while the xDSL 0.74 lexer backtracks on them for hours (the `hangs` fix).
"""

from __future__ import annotations

import io
import json
import random
import re
import zipfile
import zlib
from collections.abc import Callable
from functools import cache

from tests.fuzz.harness import ROOT, Case, arena_refs

UNTERMINATED_STRINGS = True
"""True once string literals without a closing quote get their error in milliseconds (the
`hangs` fix is on main)."""

INTERESTING_INTS = (
    "0",
    "1",
    "-1",
    "2",
    "3",
    "7",
    "-3",
    "2147483647",
    "2147483648",
    "-2147483649",
    "4294967296",
    "9223372036854775807",
    "9223372036854775808",
    "-9223372036854775809",
    "18446744073709551616",
    "99999999999999999999",
    "400000000",
    "100000000000",
    "1000000",
)
DTYPES = (
    "f16",
    "bf16",
    "f32",
    "f64",
    "i1",
    "i8",
    "i16",
    "i32",
    "i64",
    "ui8",
    "si32",
    "index",
    "complex<f32>",
    "f8E4M3FN",
    "none",
)
SPECIAL_FLOATS = (
    "0x7F800000",
    "0xFF800000",
    "0x7FC00000",
    "0x7FC00001",
    "-0.0",
    "1.0e+39",
    "-3.4e+38",
    "1.0e-45",
    "nan",
    "inf",
    "1e400",
)
TOKENS = (
    "{",
    "}",
    "(",
    ")",
    "[",
    "]",
    "<",
    ">",
    ",",
    ":",
    "=",
    "->",
    "%0",
    "%x",
    "@main",
    "^bb0",
    "dense<>",
    "dense<[]>",
    "tensor<?xf32>",
    "tensor<*xf32>",
    "tensor<0xf32>",
    "tensor<f32>",
    "#ascend",
    "!graph",
    "loc(unknown)",
    "unit",
    "''",
    '"x"',
    "0x",
    "-",
    "...",
    "\\",
    "\x00",
    "\u00e9",
    "\U0001f600",
)
PIPELINES = (
    "",
    "",
    "ge-compile",
    "ge-compile",
    "ge-infer-shapes",
    "ge-verify-graph",
    "ge-fold-constants",
    "ge-fuse",
    "ge-place-engines,ge-partition-engine",
    "ge-place-engines,ge-partition-dynamic-shape",
    "ge-plan-memory",
    "ge-assign-streams",
    "canonicalize,cse",
    'ge-expand-multibatch{input_shape="x:-1,4" dynamic_batch_size="1,2"}',
)


# --------------------------------------------------------------------------------------------
# seeds
# --------------------------------------------------------------------------------------------


def _strip_comments(text: str) -> str:
    return "\n".join(ln for ln in text.splitlines() if not ln.lstrip().startswith("//")).strip()


@cache
def lit_chunks() -> tuple[str, ...]:
    """Every `// -----` chunk of the lit tests and examples, comments removed."""
    files = sorted((ROOT / "tests" / "lit").rglob("*.mlir")) + sorted(
        (ROOT / "examples").glob("*.mlir")
    )
    chunks: list[str] = []
    for path in files:
        if "Output" in path.parts:
            continue
        for chunk in path.read_text().split("// -----"):
            body = _strip_comments(chunk)
            if body and len(body) < 200_000:
                chunks.append(body)
    return tuple(chunks)


@cache
def op_names() -> tuple[str, ...]:
    names = set()
    for chunk in lit_chunks():
        names.update(re.findall(r"\b(?:graph|partition|multibatch|ascend)\.[a-z_0-9]+\b", chunk))
    return tuple(sorted(names))


def has_unterminated_string(text: str) -> bool:
    """A line with an odd count of unescaped double quotes (the xDSL 0.74 lexer hang)."""
    return any(len(re.findall(r'(?<!\\)"', line)) % 2 for line in text.splitlines())


# --------------------------------------------------------------------------------------------
# text mutators
# --------------------------------------------------------------------------------------------


def _flip(rng: random.Random, text: str) -> tuple[str, str]:
    i = rng.randrange(len(text))
    c = rng.choice("{}()[]<>:,%@=x0123456789- \n" + chr(rng.randrange(32, 127)))
    return text[:i] + c + text[i + 1 :], f"flip@{i}"


def _delete_span(rng: random.Random, text: str) -> tuple[str, str]:
    i = rng.randrange(len(text))
    n = rng.choice((1, 2, 5, 20, 100))
    return text[:i] + text[i + n :], f"delete@{i}+{n}"


def _line_edit(rng: random.Random, text: str) -> tuple[str, str]:
    lines = text.splitlines()
    i, j = rng.randrange(len(lines)), rng.randrange(len(lines))
    kind = rng.choice(("dup", "del", "swap"))
    if kind == "dup":
        lines.insert(j, lines[i])
    elif kind == "del":
        del lines[i]
    else:
        lines[i], lines[j] = lines[j], lines[i]
    return "\n".join(lines), f"line-{kind}@{i},{j}"


def _replace_match(
    rng: random.Random, text: str, pattern: str, choices: tuple[str, ...], label: str
) -> tuple[str, str]:
    matches = list(re.finditer(pattern, text))
    if not matches:
        return _flip(rng, text)
    m = rng.choice(matches)
    new = rng.choice(choices)
    return text[: m.start()] + new + text[m.end() :], f"{label}@{m.start()}={new}"


def _int(rng: random.Random, text: str) -> tuple[str, str]:
    return _replace_match(rng, text, r"(?<![\w.%#^x])-?\d+(?![\w.])", INTERESTING_INTS, "int")


def _dim(rng: random.Random, text: str) -> tuple[str, str]:
    dims = ("0", "1", "?", "400000000", "100000000000", "4294967296", "99999999999999999999")
    return _replace_match(rng, text, r"(?<=[<x])\d+(?=x)", dims, "dim")


def _dtype(rng: random.Random, text: str) -> tuple[str, str]:
    return _replace_match(rng, text, r"\b(?:f16|bf16|f32|f64|i1|i8|i32|i64|ui8)\b", DTYPES, "dtype")


def _float(rng: random.Random, text: str) -> tuple[str, str]:
    return _replace_match(rng, text, r"-?\d+\.\d+(?:e[+-]?\d+)?", SPECIAL_FLOATS, "float")


def _op(rng: random.Random, text: str) -> tuple[str, str]:
    return _replace_match(
        rng, text, r"\b(?:graph|partition|multibatch|ascend)\.[a-z_0-9]+\b", op_names(), "op"
    )


def _token(rng: random.Random, text: str) -> tuple[str, str]:
    i = rng.randrange(len(text) + 1)
    t = rng.choice(TOKENS)
    return text[:i] + t + text[i:], f"token@{i}={t!r}"


def _truncate(rng: random.Random, text: str) -> tuple[str, str]:
    i = rng.randrange(len(text))
    return text[:i], f"truncate@{i}"


TEXT_MUTATORS: tuple[Callable[[random.Random, str], tuple[str, str]], ...] = (
    _flip,
    _delete_span,
    _line_edit,
    _int,
    _int,
    _dim,
    _dtype,
    _dtype,
    _float,
    _op,
    _token,
    _truncate,
)


def mutate_text(rng: random.Random, text: str, rounds: int | None = None) -> tuple[str, str]:
    """1-3 mutations; never an unterminated string literal unless UNTERMINATED_STRINGS."""
    for _attempt in range(50):
        out, notes = text, []
        for _ in range(rounds or rng.choice((1, 1, 1, 2, 3))):
            if not out:
                break
            out, note = rng.choice(TEXT_MUTATORS)(rng, out)
            notes.append(note)
        if UNTERMINATED_STRINGS or not has_unterminated_string(out):
            return out, "+".join(notes)
    return text, "unmutated"


def _dense_values(rng: random.Random, text: str) -> tuple[str, str]:
    """Other numbers inside `dense<...>` literals: the input usually stays valid, so it reaches
    the level and text checks."""
    literals = list(re.finditer(r"dense<(\[[^<>\"]*\]|[-0-9.e+]+)>", text))
    if not literals:
        return text, "no-dense"
    m = rng.choice(literals)
    body = re.sub(
        r"-?\d+\.\d+(?:e[+-]?\d+)?",
        lambda _: rng.choice(("0.0", "-0.0", "1.5", "-2.25", "3.0e+38", "1.0e-40", "65504.0")),
        m.group(1),
    )
    return text[: m.start(1)] + body + text[m.end(1) :], f"dense-values@{m.start()}"


def _dim_everywhere(rng: random.Random, text: str) -> tuple[str, str]:
    """One dim size changed in every tensor type that has it: shapes stay consistent more
    often than with one change, so the graph reaches the runs (0-size and 1-size tensors)."""
    dims = sorted(set(re.findall(r"(?<=[<x])(\d+)(?=x)", text)))
    if not dims:
        return text, "no-dims"
    old = rng.choice(dims)
    new = rng.choice(("0", "1", "2", "3", "5"))

    def retype(m: re.Match[str]) -> str:
        return re.sub(rf"(?<=[<x]){old}(?=[x>])", new, m.group(0))

    return re.sub(r"tensor<[^<>]*>", retype, text), f"dims-{old}->{new}"


@cache
def lit_files() -> tuple[str, ...]:
    """Whole lit files (`// -----` kept), for `--split-input-file` runs."""
    files = sorted((ROOT / "tests" / "lit").rglob("*.mlir"))
    return tuple(
        p.read_text() for p in files if "Output" not in p.parts and "// -----" in p.read_text()
    )


def lit_case(rng: random.Random) -> Case:
    if rng.random() < 0.08:
        index = rng.randrange(len(lit_files()))
        text, note = mutate_text(rng, lit_files()[index])
        files = {"input.mlir": text.encode("utf-8", "surrogatepass")}
        argv = ["input.mlir", "--split-input-file", "-o", "out.mlir"]
        return Case("lit", "ge-opt", argv, files, note=f"file{index}:split:{note}")
    seed_index = rng.randrange(len(lit_chunks()))
    roll = rng.random()
    if roll < 0.1:
        text, note = lit_chunks()[seed_index], "unmutated"
    elif roll < 0.25:
        text, note = _dense_values(rng, lit_chunks()[seed_index])
    elif roll < 0.4:
        text, note = _dim_everywhere(rng, lit_chunks()[seed_index])
    else:
        text, note = mutate_text(rng, lit_chunks()[seed_index])
    note = f"chunk{seed_index}:{note}"
    files = {"input.mlir": text.encode("utf-8", "surrogatepass")}
    if rng.random() < 0.25:
        return Case("lit", "ge-run", ["input.mlir", "--random-inputs", "0", "-q"], files, note=note)
    pipeline = rng.choice(PIPELINES)
    argv = ["input.mlir", "-o", "out.mlir"]
    if pipeline:
        argv[1:1] = ["-p", pipeline]
    # a pipeline that changes the signature (gears) runs on other random inputs
    same_signature = bool(pipeline) and "multibatch" not in pipeline
    return Case(
        "lit",
        "ge-opt",
        argv,
        files,
        check_levels=not pipeline,
        note=note,
        check_output=same_signature,
    )


# --------------------------------------------------------------------------------------------
# ONNX
# --------------------------------------------------------------------------------------------


@cache
def onnx_seeds() -> tuple[tuple[str, bytes], ...]:
    """The repository's models and a few small onnx.helper models (serialized)."""
    seeds = [(p.name, p.read_bytes()) for p in sorted((ROOT / "tests" / "models").glob("*.onnx"))]
    for name, model in small_models():
        seeds.append((name, model.SerializeToString()))
    return tuple(seeds)


def small_models() -> list[tuple[str, object]]:
    import numpy as np
    from onnx import TensorProto, helper, numpy_helper

    def model(name: str, nodes: list, inputs: list, outputs: list, inits: list = ()) -> tuple:
        graph = helper.make_graph(nodes, name, inputs, outputs, list(inits))
        m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
        m.ir_version = 8
        return (f"{name}.onnx", m)

    f32 = TensorProto.FLOAT
    x = helper.make_tensor_value_info("x", f32, [2, 3])
    y = helper.make_tensor_value_info("y", f32, [2, 3])
    w = numpy_helper.from_array(np.arange(6, dtype=np.float32).reshape(2, 3), "w")
    shape = numpy_helper.from_array(np.array([3, 2], dtype=np.int64), "shape")
    idx = numpy_helper.from_array(np.array([1, 0], dtype=np.int64), "idx")
    return [
        model("relu", [helper.make_node("Relu", ["x"], ["y"])], [x], [y]),
        model("add", [helper.make_node("Add", ["x", "w"], ["y"])], [x], [y], [w]),
        model(
            "reshape",
            [helper.make_node("Reshape", ["x", "shape"], ["y"])],
            [x],
            [helper.make_tensor_value_info("y", f32, [3, 2])],
            [shape],
        ),
        model(
            "gather",
            [helper.make_node("Gather", ["x", "idx"], ["y"], axis=0)],
            [x],
            [y],
            [idx],
        ),
        model(
            "where",
            [
                helper.make_node("Less", ["x", "w"], ["m"]),
                helper.make_node("Where", ["m", "x", "w"], ["y"]),
            ],
            [x],
            [y],
            [w],
        ),
        model(
            "softmax",
            [helper.make_node("Softmax", ["x"], ["y"], axis=-1)],
            [x],
            [y],
        ),
    ]


def _read_varint(data: bytes, i: int) -> tuple[int, int]:
    value = shift = 0
    while i < len(data):
        b = data[i]
        value |= (b & 0x7F) << shift
        i += 1
        if not b & 0x80:
            return value, i
        shift += 7
    raise ValueError("truncated varint")


def proto_fields(data: bytes) -> list[tuple[int, int, int]]:
    """The top-level fields of a serialized message: (tag start, payload end, wire type)."""
    fields, i = [], 0
    try:
        while i < len(data):
            start = i
            tag, i = _read_varint(data, i)
            wire = tag & 7
            if wire == 0:
                _, i = _read_varint(data, i)
            elif wire == 1:
                i += 8
            elif wire == 2:
                n, i = _read_varint(data, i)
                i += n
            elif wire == 5:
                i += 4
            else:
                break
            fields.append((start, i, wire))
    except ValueError:
        pass
    return fields


def _wire_type(rng: random.Random, data: bytes) -> tuple[bytes, str]:
    """One field's tag rewritten with another wire type (a field of the wrong type)."""
    fields = proto_fields(data)
    if not fields:
        return data, "no-fields"
    start, _end, wire = rng.choice(fields)
    tag, after = _read_varint(data, start)
    new_wire = rng.choice([w for w in (0, 1, 2, 5) if w != wire])
    new_tag = (tag & ~7) | new_wire
    out = bytearray()
    v = new_tag
    while True:
        b = v & 0x7F
        v >>= 7
        out.append(b | (0x80 if v else 0))
        if not v:
            break
    return data[:start] + bytes(out) + data[after:], f"wire@{start}:{wire}->{new_wire}"


def _bytes_flip(rng: random.Random, data: bytes) -> tuple[bytes, str]:
    out = bytearray(data)
    notes = []
    for _ in range(rng.choice((1, 2, 8))):
        i = rng.randrange(len(out))
        out[i] = rng.randrange(256)
        notes.append(str(i))
    return bytes(out), "bytes-flip@" + ",".join(notes)


def _bytes_truncate(rng: random.Random, data: bytes) -> tuple[bytes, str]:
    i = rng.randrange(len(data))
    return data[:i], f"bytes-truncate@{i}"


def _proto_edit(rng: random.Random, data: bytes) -> tuple[bytes, str]:
    """An edit of the parsed model: huge/negative dims, bad dtypes, wrong attributes, ..."""
    import onnx

    m = onnx.ModelProto()
    m.ParseFromString(data)
    g = m.graph
    kind = rng.choice(
        (
            "dim",
            "dim",
            "dtype",
            "raw",
            "attr",
            "dangling",
            "opset",
            "optype",
            "init-dims",
            "dup-output",
            "no-nodes",
            "ir",
            "values",
            "values",
            "batch",
        )
    )
    note = kind
    if kind == "dim" and g.input:
        vi = rng.choice(list(g.input))
        dims = vi.type.tensor_type.shape.dim
        if dims:
            d = rng.choice(list(dims))
            value = rng.choice((0, -1, -5, 1 << 31, 10**16, (1 << 63) - 1))
            d.dim_value = value
            note += f"={vi.name}:{value}"
    elif kind == "dtype":
        target = rng.choice([*g.input, *g.output] or [None])
        value = rng.choice((0, 8, 14, 15, 16, 17, 23, 99))
        if target is not None:
            target.type.tensor_type.elem_type = value
        elif g.initializer:
            g.initializer[0].data_type = value
        note += f"={value}"
    elif kind == "raw" and g.initializer:
        t = rng.choice(list(g.initializer))
        raw = t.raw_data or b"\0" * 8
        t.raw_data = raw[: rng.randrange(len(raw) + 1)] if rng.random() < 0.7 else raw * 3
        note += f"={t.name}"
    elif kind == "init-dims" and g.initializer:
        t = rng.choice(list(g.initializer))
        if t.dims:
            t.dims[rng.randrange(len(t.dims))] = rng.choice((0, -1, 10**12, 3))
        note += f"={t.name}"
    elif kind == "attr":
        nodes = [n for n in g.node if n.attribute]
        if nodes:
            n = rng.choice(nodes)
            a = rng.choice(list(n.attribute))
            a.type = rng.choice(
                (1, 2, 3, 4, 6, 7, 8)
            )  # FLOAT INT STRING TENSOR FLOATS INTS STRINGS
            if rng.random() < 0.5:
                a.i = rng.choice((-1, 0, 1 << 40))
            note += f"={n.op_type}.{a.name}:{a.type}"
    elif kind == "dangling" and g.node:
        n = rng.choice(list(g.node))
        if n.input:
            n.input[rng.randrange(len(n.input))] = "no_such_value"
        note += f"={n.op_type}"
    elif kind == "opset":
        m.opset_import[0].version = rng.choice((1, 6, 9, 25, 999, -1))
        note += f"={m.opset_import[0].version}"
    elif kind == "optype" and g.node:
        n = rng.choice(list(g.node))
        n.op_type = rng.choice(
            ("Relu", "Conv", "MatMul", "Loop", "If", "Scan", "NoSuchOp", "Add", "Range", "")
        )
        note += f"={n.op_type}"
    elif kind == "dup-output" and g.node:
        g.node[-1].output[0] = g.node[0].output[0]
    elif kind == "no-nodes":
        del g.node[:]
    elif kind == "ir":
        m.ir_version = rng.choice((0, 1, 3, 99))
    elif kind == "values":
        import numpy as np
        from onnx import numpy_helper

        floats = [t for t in g.initializer if t.data_type == onnx.TensorProto.FLOAT]
        if floats:
            t = rng.choice(floats)
            array = numpy_helper.to_array(t).copy()
            if array.size:
                special = (np.inf, -np.inf, np.nan, -0.0, 3.0e38, 1.0e-40, 0.0)
                flat = array.reshape(-1)
                for _ in range(rng.choice((1, 3))):
                    flat[rng.randrange(flat.size)] = rng.choice(special)
            t.CopyFrom(numpy_helper.from_array(array, t.name))
            note += f"={t.name}"
    elif kind == "batch" and g.input:
        dims = g.input[0].type.tensor_type.shape.dim
        if dims:
            dims[0].dim_value = rng.choice((0, 1, 3))
            note += f"={dims[0].dim_value}"
    return m.SerializeToString(), note


def onnx_case(rng: random.Random) -> Case:
    name, data = rng.choice(onnx_seeds())
    mutator = rng.choice((_bytes_flip, _bytes_truncate, _wire_type, _proto_edit, _proto_edit))
    try:
        mutated, note = mutator(rng, data)
    except Exception as e:  # a protobuf that does not parse back: keep the bytes flipped
        mutated, note = _bytes_flip(rng, data)
        note = f"{type(e).__name__}->{note}"
    files = {"model.onnx": mutated}
    note = f"{name}:{note}"
    if rng.random() < 0.3:
        argv = ["--model=model.onnx", "--output=out"]
        return Case("onnx", "ge-atc", argv, files, note=note, check_model=True)
    return Case(
        "onnx", "ge-import", ["model.onnx", "-o", "input.mlir"], files, check_levels=True, note=note
    )


# --------------------------------------------------------------------------------------------
# npz / npy inputs
# --------------------------------------------------------------------------------------------

NPZ_MODEL = """graph.graph @main(%x: tensor<2x3xf32> {node_name = "x"})
    -> (tensor<2x3xf32> {node_name = "y"}) {
  %y = graph.relu %x : (tensor<2x3xf32>) -> tensor<2x3xf32>
  graph.net_output %y : tensor<2x3xf32>
}
"""


def _npy(array: object) -> bytes:
    import numpy as np

    out = io.BytesIO()
    np.save(out, array, allow_pickle=True)
    return out.getvalue()


def _npz(members: dict[str, bytes], compress: bool = False) -> bytes:
    out = io.BytesIO()
    method = zipfile.ZIP_DEFLATED if compress else zipfile.ZIP_STORED
    with zipfile.ZipFile(out, "w", method) as z:
        for name, data in members.items():
            z.writestr(name, data)
    return out.getvalue()


def _npy_header(shape: tuple[int, ...], descr: str = "<f4", extra: str = "") -> bytes:
    header = f"{{'descr': '{descr}', 'fortran_order': False, 'shape': {shape}, {extra}}}"
    header = header.ljust(118) + "\n"
    return b"\x93NUMPY\x01\x00" + len(header).to_bytes(2, "little") + header.encode() + b"\0" * 16


@cache
def _deflated_zeros(nbytes: int) -> bytes:
    """A raw deflate stream of `nbytes` zeros (1 KiB per MiB): one MiB compressed with a
    full flush (byte-aligned, no back references across it) repeated, then a final block."""
    comp = zlib.compressobj(9, zlib.DEFLATED, -15)
    block = comp.compress(b"\0" * (1 << 20)) + comp.flush(zlib.Z_FULL_FLUSH)
    return block * (nbytes >> 20) + zlib.compressobj(9, zlib.DEFLATED, -15).flush()


@cache
def _bomb_npz(nbytes: int) -> bytes:
    """An npz whose second member inflates to `nbytes` (written by hand: zipfile would deflate
    it itself)."""
    import struct

    good = _npy(__import__("numpy").ones((2, 3), "float32"))
    comp = _deflated_zeros(nbytes)
    crc = 0
    chunk = b"\0" * (1 << 20)
    for _ in range(nbytes >> 20):
        crc = zlib.crc32(chunk, crc)
    out = io.BytesIO()
    entries = []
    for name, data, method, size, c in (
        (b"x.npy", good, 0, len(good), zlib.crc32(good)),
        (b"extra.npy", comp, 8, nbytes, crc),
    ):
        offset = out.tell()
        out.write(
            struct.pack(
                "<IHHHHHIIIHH",
                0x04034B50,
                20,
                0,
                method,
                0,
                0,
                c,
                len(data),
                size & 0xFFFFFFFF,
                len(name),
                0,
            )
        )
        out.write(name)
        out.write(data)
        entries.append((name, method, c, len(data), size, offset))
    cd = out.tell()
    for name, method, c, csize, size, offset in entries:
        out.write(
            struct.pack(
                "<IHHHHHHIIIHHHHHII",
                0x02014B50,
                20,
                20,
                0,
                method,
                0,
                0,
                c,
                csize,
                size & 0xFFFFFFFF,
                len(name),
                0,
                0,
                0,
                0,
                0,
                offset,
            )
        )
        out.write(name)
    end = out.tell()
    out.write(struct.pack("<IHHHHIIH", 0x06054B50, 0, 0, 2, 2, end - cd, cd, 0))
    return out.getvalue()


def npz_case(rng: random.Random) -> Case:
    import numpy as np

    good = np.ones((2, 3), np.float32)
    kinds: dict[str, Callable[[], bytes]] = {
        "good": lambda: _npz({"x.npy": _npy(good)}),
        "truncated": lambda: _npz({"x.npy": _npy(good)})[: rng.randrange(1, 200)],
        "empty": lambda: b"",
        "not-zip": lambda: b"PK\x03\x04 not really a zip" * 3,
        "wrong-key": lambda: _npz({"z.npy": _npy(good)}),
        "extra-key": lambda: _npz({"x.npy": _npy(good), "w.npy": _npy(good)}),
        "int64": lambda: _npz({"x.npy": _npy(good.astype(np.int64))}),
        "f16": lambda: _npz({"x.npy": _npy(good.astype(np.float16))}),
        "complex": lambda: _npz({"x.npy": _npy(good.astype(np.complex64))}),
        "bool": lambda: _npz({"x.npy": _npy(good > 0)}),
        "str": lambda: _npz({"x.npy": _npy(np.array([["a"] * 3] * 2))}),
        "object": lambda: _npz({"x.npy": _npy(np.array([None, 1], dtype=object))}),
        "shape": lambda: _npz({"x.npy": _npy(np.ones((3, 2), np.float32))}),
        "scalar": lambda: _npz({"x.npy": _npy(np.float32(1))}),
        "empty-array": lambda: _npz({"x.npy": _npy(np.ones((0, 3), np.float32))}),
        "big-endian": lambda: _npz({"x.npy": _npy(good.astype(">f4"))}),
        "fortran": lambda: _npz({"x.npy": _npy(np.asfortranarray(good))}),
        "nan": lambda: _npz({"x.npy": _npy(np.full((2, 3), np.nan, np.float32))}),
        "huge-header": lambda: _npz({"x.npy": _npy_header((100000, 100000))}),
        "huge-header-1e10": lambda: _npz({"x.npy": _npy_header((10**10,))}),
        "negative-header": lambda: _npz({"x.npy": _npy_header((-1, 3))}),
        "bad-header": lambda: _npz({"x.npy": b"\x93NUMPY\x01\x00\x10\x00{'descr': 5}    \n"}),
        "bad-descr": lambda: _npz({"x.npy": _npy_header((2, 3), "<q9")}),
        "deflated": lambda: _npz({"x.npy": _npy(good)}, compress=True),
        "bomb": lambda: _bomb_npz(512 << 20),
        "bytes-flip": lambda: bytes(
            b if rng.random() > 0.02 else rng.randrange(256) for b in _npz({"x.npy": _npy(good)})
        ),
    }
    kind = rng.choice(sorted(kinds))
    data = kinds[kind]()
    files = {"model.mlir": NPZ_MODEL.encode(), "in.npz": data}
    if rng.random() < 0.3:
        # the same payload as one .npy (the npz member or the raw bytes)
        try:
            with zipfile.ZipFile(io.BytesIO(data)) as z:
                member = z.read(z.namelist()[0])
        except Exception:
            member = data
        files = {"model.mlir": NPZ_MODEL.encode(), "x.npy": member}
        return Case("npz", "ge-run", ["model.mlir", "--input", "x=x.npy", "-q"], files, note=kind)
    return Case("npz", "ge-run", ["model.mlir", "--inputs", "in.npz", "-q"], files, note=kind)


# --------------------------------------------------------------------------------------------
# option strings
# --------------------------------------------------------------------------------------------

ODD_TEXT = (
    "",
    " ",
    ",",
    ";",
    ":",
    "-1",
    "0",
    "a",
    "1,,2",
    "\u0661,\u0662",
    "1e3",
    "0x10",
    "+1",
    "1.5",
    "99999999999999999999",
    "-9223372036854775809",
    "x" * 300,
    "\u00e9",
    "{",
    "}",
    '"',
    "'",
    "\\",
)


def _gear_list(rng: random.Random, per: int) -> str:
    values = (
        "1",
        "2",
        "4",
        "8",
        "0",
        "-1",
        "1000000000",
        "99999999999999999999",
        "\u0661",
        "a",
        "",
    )
    gears = [",".join(rng.choice(values) for _ in range(per)) for _ in range(rng.randint(1, 4))]
    return ";".join(gears) if per > 1 else ",".join(gears)


def atc_case(rng: random.Random) -> Case:
    name, data = rng.choice(onnx_seeds()[:4])
    input_name = {"cnn.onnx": "image", "mlp.onnx": "features", "mobilenet_block.onnx": "image"}
    x = input_name.get(name, "x")
    argv = ["--model=model.onnx"]
    notes = []
    if rng.random() < 0.9:
        argv.append(rng.choice(("--output=out", "--output=out.mlir", "--output=sub/out")))
    else:
        out = rng.choice(("--output=", "--output=.", "--output=sub/", "--output"))
        argv.append(out)
        notes.append(out)
    for flag, make in (
        (
            "--input_shape",
            lambda: rng.choice(
                (
                    f"{x}:-1,3,16,16",
                    f"{x}:2,3,16,16",
                    f"{x}:-1,32",
                    f"{x}:4,32",
                    f"{x}:\u0661,2",
                    f"{x}:-1,-1,16,16",
                    "nosuch:1,2",
                    f"{x}:",
                    f"{x}:1;{x}:2",
                    rng.choice(ODD_TEXT),
                    f"{x}:99999999999999999999,3,16,16",
                    f"{x}:0,3,16,16",
                )
            ),
        ),
        ("--dynamic_batch_size", lambda: _gear_list(rng, 1)),
        ("--dynamic_image_size", lambda: _gear_list(rng, 2)),
        ("--dynamic_dims", lambda: _gear_list(rng, rng.randint(1, 3))),
        ("--input_format", lambda: rng.choice(("NCHW", "NHWC", "ND", "nchw", ""))),
        ("--hybrid", lambda: rng.choice(("true", "false", "yes", ""))),
        ("--framework", lambda: rng.choice(("5", "0", "3", "7", "", "\uff15"))),
        ("--soc_version", lambda: rng.choice(("Ascend310", ""))),
    ):
        if rng.random() < (0.6 if flag in ("--input_shape", "--dynamic_batch_size") else 0.15):
            value = make()
            argv.append(f"{flag}={value}")
            notes.append(f"{flag}={value}")
    if rng.random() < 0.05:
        argv.append(rng.choice(("--bogus=1", "--input", "--model=other.onnx", "-h=1")))
    files = {"model.onnx": data}
    return Case("atc-options", "ge-atc", argv, files, note=" ".join(notes), check_model=True)


@cache
def pass_options() -> tuple[tuple[str, tuple[tuple[str, str], ...]], ...]:
    import dataclasses

    from gedialects.passes import get_all_passes

    out = []
    for name, factory in sorted(get_all_passes().items()):
        fields = tuple(
            (f.name.replace("_", "-"), str(f.type))
            for f in dataclasses.fields(factory())
            if name != "ge-dump-dot"  # its `file` writes where it is told
        )
        out.append((name, fields))
    return tuple(out)


def _option_value(rng: random.Random, kind: str) -> str:
    if kind == "int":
        return rng.choice((*INTERESTING_INTS, "-5", "1.5", "x", "", "true", "0x10", "\u0661"))
    if kind == "bool":
        return rng.choice(("true", "false", "1", "0", "yes", "", "TRUE"))
    if kind.startswith("tuple"):
        return rng.choice(("", "a", "a,b", "AIcoreEngine", "DNN_VM_GE_LOCAL", '"x"', "1,2", ","))
    return rng.choice(
        ('""', '"x:-1,3,16,16"', '"image:1,3,16,16"', '"\u0661"', "x", "-1", '"a;b"', '"{}"', "{")
    )


def pass_case(rng: random.Random) -> Case:
    name, fields = rng.choice(pass_options())
    if rng.random() < 0.4:
        name, fields = next(p for p in pass_options() if p[0] == "ge-compile")
    parts = []
    for opt, kind in rng.sample(list(fields), k=min(len(fields), rng.randint(0, 3))):
        parts.append(f"{opt}={_option_value(rng, kind)}")
    if rng.random() < 0.1 or not fields:
        parts.append(rng.choice(("bogus=1", "=1", "max-streams", "a=b=c", "")))
    spec = f"{name}{{{' '.join(parts)}}}" if parts or rng.random() < 0.5 else name
    if rng.random() < 0.1:
        spec = rng.choice(
            (
                spec + ",",
                "," + spec,
                spec + "{",
                spec.replace("{", "(", 1),
                f"builtin.module({spec})",
                spec + "," + spec,
            )
        )
    source = (ROOT / "examples" / "conv_block.mlir").read_bytes()
    files = {"input.mlir": source}
    return Case(
        "pass-options",
        "ge-opt",
        ["input.mlir", "-p", spec, "-o", "out.mlir"],
        files,
        note=spec,
        check_output="multibatch" not in spec
        and "input-shape" not in spec
        and not _long_sunk_loop(spec),
    )


SUNK_ITERATIONS = re.compile(r"iterations-per-loop=([0-9]{1,12})\b")
CHECKED_ITERATIONS = 1000
"""The largest sunk iteration count whose run the harness checks against the unsunk one. A
larger count (up to `ascend.MAX_ITERATIONS_PER_LOOP`, a million) is accepted work the user
asked for: the interpreter runs every iteration as the device would, so the run takes time in
proportion to the count, which is not a hang; its compile is still checked."""


def _long_sunk_loop(spec: str) -> bool:
    return any(int(m.group(1)) > CHECKED_ITERATIONS for m in SUNK_ITERATIONS.finditer(spec))


def run_options_case(rng: random.Random) -> Case:
    source = (ROOT / "examples" / "conv_block.mlir").read_bytes()
    files = {"input.mlir": source, "ref.npz": b"", "in.npz": b""}
    argv = ["input.mlir"]
    choices = (
        ["--random-inputs", rng.choice(("0", "-1", "99999999999999999999", "x", "1.5", ""))],
        ["--entry", rng.choice(("conv_block", "nosuch", "", "@conv_block", "head"))],
        ["--rtol", rng.choice(("nan", "-1", "inf", "x"))],
        ["--atol", rng.choice(("nan", "-1", "1e309"))],
        ["-o", rng.choice(("out.npz", ".", "sub/", "", "out"))],
        ["--trace", rng.choice(("t.json", ".", ""))],
        ["--profile"],
        ["--check-uninitialized"],
        ["--schedule-seed", rng.choice(("0", "-1", "99999999999999999999", "x"))],
        ["--inputs", rng.choice(("in.npz", "missing.npz", "."))],
        ["--input", rng.choice(("x=missing.npy", "x", "=a", "image="))],
        ["--reference", rng.choice(("ref.npz", "missing.npz"))],
        ["--compare", "input.mlir", "input.mlir"],
        ["-q"],
        ["--bogus"],
    )
    for opt in rng.sample(choices, k=rng.randint(1, 4)):
        argv += opt
    if rng.random() < 0.2:
        argv = argv[1:]
    tool = "ge-run"
    if rng.random() < 0.2:
        tool = rng.choice(("ge-opt", "ge-import"))
        argv = rng.choice(
            (
                ["input.mlir", "--no-such-flag"],
                ["input.mlir", "-o", rng.choice((".", "sub/", ""))],
                ["input.mlir", "-p", ""],
                [],
                ["--split-input-file"],
            )
        )
        if tool == "ge-import":
            files["input.onnx"] = onnx_seeds()[0][1]
            argv = [a.replace("input.mlir", "input.onnx") for a in argv if a != "-p"]
    return Case("run-options", tool, argv, files, note=" ".join(argv))


# --------------------------------------------------------------------------------------------
# Session
# --------------------------------------------------------------------------------------------

SESSION_OPTION_NAMES = (
    "ge.inputShape",
    "ge.dynamicBatchSize",
    "ge.dynamicImageSize",
    "ge.dynamicDims",
    "ge.dynamicNodeType",
    "ge.compileHybridMode",
    "ge.exec.static_model_ops_lower_limit",
    "ge.exec.disableReuseMemory",
    "ge.streamMaxParallelNum",
    "ge.enableSingleStream",
    "ge.jit",
    "ge.maxMemory",
    "ge.noSuchOption",
    "",
)


def session_value(rng: random.Random) -> object:
    return rng.choice(
        (
            "0",
            "1",
            "2",
            "true",
            "false",
            "",
            "x:-1,4",
            "x:2,4",
            "1,2",
            "\u0661",
            "AIcoreEngine:2",
            "-1",
            "99999999999999999999",
            "8G",
            1,
            None,
            True,
            [1],
            {"a": 1},
            1.5,
        )
    )


SESSION_GRAPH = """graph.graph @main(%x: tensor<?x4xf32> {node_name = "x"})
    -> (tensor<?x4xf32> {node_name = "y"}) {
  %y = graph.relu %x : (tensor<?x4xf32>) -> tensor<?x4xf32>
  graph.net_output %y : tensor<?x4xf32>
}
"""


def session_case(rng: random.Random) -> Case:
    def options() -> object:
        if rng.random() < 0.1:
            return rng.choice(([["ge.jit", "1"]], "ge.jit=1", 5, []))
        keys = rng.sample(SESSION_OPTION_NAMES, k=rng.randint(0, 3))
        return {k: session_value(rng) for k in keys}

    spec: dict[str, object] = {
        "options": options(),
        "graph": rng.choice(
            ("model.mlir", "model.mlir", "model.onnx", SESSION_GRAPH, "nosuch.mlir")
        ),
        "graph_options": options(),
        "oracle": "relu",  # both graphs compute y = relu(x)
    }
    if rng.random() < 0.1:
        spec["graph_id"] = rng.choice((-1, "1", 1.5, 2**70))
    if rng.random() < 0.8:
        rows = rng.choice((1, 2, 3, 0))
        kind = rng.choice(("named", "named", "list", "bad-name", "dtype", "shape", "nested"))
        data = [[0.5, -1.0, 2.0, -3.0]] * rows
        if kind == "named":
            spec["inputs"] = {"x": {"data": data}}
        elif kind == "list":
            spec["inputs"] = [data]
        elif kind == "bad-name":
            spec["inputs"] = {"nosuch": {"data": data}}
        elif kind == "dtype":
            spec["inputs"] = {
                "x": {"data": data, "dtype": rng.choice(("int64", "float16", "bool"))}
            }
        elif kind == "shape":
            spec["inputs"] = {"x": {"data": [1.0, 2.0, 3.0]}}
        else:
            spec["inputs"] = {"x": [[["a"]]]}
    text = json.dumps(spec)
    files = {"model.mlir": SESSION_GRAPH.encode(), "model.onnx": onnx_seeds()[-6][1]}
    return Case("session", "session", [text], files, note=text[:200])


# --------------------------------------------------------------------------------------------
# resource abuse
# --------------------------------------------------------------------------------------------


def _nested_modules(depth: int) -> str:
    return "builtin.module {" * depth + "}" * depth


def resource_case(rng: random.Random) -> Case:
    kinds: dict[str, Callable[[], tuple[str, list[str]]]] = {
        "splat-400M": lambda: (
            "graph.graph @main() -> tensor<400000000xf32> {\n"
            "  %c = graph.const dense<1.0> : tensor<400000000xf32>\n"
            "  graph.net_output %c : tensor<400000000xf32>\n}\n",
            rng.choice((["-o", "out.mlir"], ["-p", "ge-compile", "-o", "out.mlir"])),
        ),
        "huge-input": lambda: (
            "graph.graph @main(%x: tensor<100000000000xf32>) -> tensor<100000000000xf32> {\n"
            "  %y = graph.relu %x : (tensor<100000000000xf32>) -> tensor<100000000000xf32>\n"
            "  graph.net_output %y : tensor<100000000000xf32>\n}\n",
            ["--random-inputs", "0", "-q"],
        ),
        "overflow-shape": lambda: (
            "graph.graph @main(%x: tensor<4294967296x4294967296x4294967296xf32>) -> "
            "tensor<4294967296x4294967296x4294967296xf32> {\n"
            "  graph.net_output %x : tensor<4294967296x4294967296x4294967296xf32>\n}\n",
            rng.choice((["-p", "ge-compile", "-o", "out.mlir"], ["--random-inputs", "0"])),
        ),
        "nested-modules": lambda: (
            _nested_modules(rng.choice((50, 500, 3000))),
            ["-o", "out.mlir"],
        ),
        "nested-arrays": lambda: (
            "graph.graph @main() -> tensor<1xf32> {\n  %c = graph.const dense<1.0> : tensor<1xf32>"
            " {x = " + "[" * rng.choice((100, 1000, 5000)) + "]" * 0 + "}\n}\n",
            ["-o", "out.mlir"],
        ),
        "long-string": lambda: (
            "graph.graph @main(%x: tensor<2xf32> {node_name = "
            f'"{"n" * rng.choice((10**4, 10**6))}"}})'
            " -> tensor<2xf32> {\n  graph.net_output %x : tensor<2xf32>\n}\n",
            rng.choice((["-o", "out.mlir"], ["--random-inputs", "0", "-q"])),
        ),
        "long-name": lambda: (
            f"graph.graph @{'g' * 100000}(%{'v' * 100000}: tensor<2xf32>) -> tensor<2xf32> {{\n"
            f"  graph.net_output %{'v' * 100000} : tensor<2xf32>\n}}\n",
            ["-o", "out.mlir"],
        ),
        "many-ops": lambda: (
            "graph.graph @main(%x0: tensor<2xf32>) -> tensor<2xf32> {\n"
            + "".join(
                f"  %x{i + 1} = graph.relu %x{i} : (tensor<2xf32>) -> tensor<2xf32>\n"
                for i in range(300)
            )
            + "  graph.net_output %x300 : tensor<2xf32>\n}\n",
            rng.choice((["-o", "out.mlir"], ["-p", "ge-compile", "-o", "out.mlir"])),
        ),
        "huge-hex": lambda: (
            "graph.graph @main() -> tensor<4xf32> {\n"
            f'  %c = graph.const dense<"0x{"00" * 16}"> : tensor<100000000000xf32>\n'
            "  graph.net_output %c : tensor<4xf32>\n}\n",
            ["-o", "out.mlir"],
        ),
        "big-iterations": lambda: (
            (ROOT / "examples" / "conv_block.mlir").read_text(),
            [
                "-p",
                "ge-compile{iterations-per-loop=" + rng.choice(("1000", "100000000")) + "}",
                "-o",
                "out.mlir",
            ],
        ),
        "huge-arena": lambda: (
            (ROOT / "examples" / "conv_block.mlir").read_text(),
            [
                "-p",
                "ge-compile{device-memory=" + rng.choice(("1", "100", "99999999999")) + "}",
                "-o",
                "out.mlir",
            ],
        ),
    }
    kind = rng.choice(sorted(kinds))
    text, args = kinds[kind]()
    tool = "ge-run" if "--random-inputs" in args else "ge-opt"
    return Case("resource", tool, ["input.mlir", *args], {"input.mlir": text.encode()}, note=kind)


# --------------------------------------------------------------------------------------------
# ascend models: layout and synchronisation edits
# --------------------------------------------------------------------------------------------


@cache
def ascend_seeds() -> tuple[tuple[str, str], ...]:
    """Compiled models (`ge-compile`) of the example and of the small static ONNX models: the
    example in its origin formats (`formats=false`: the oracle's tests name its buffers), the
    ONNX models with AI Core's format selection (5HD buffers, TransData tasks)."""
    from io import StringIO

    from xdsl.parser import Parser
    from xdsl.printer import Printer

    from gedialects import make_context
    from gedialects.frontend.onnx import import_model
    from gedialects.passes.pipelines import CompilePipelinePass

    modules = [
        (
            "conv_block",
            Parser(
                make_context(), (ROOT / "examples" / "conv_block.mlir").read_text()
            ).parse_module(),
        )
    ]
    for name in ("cnn.onnx", "mlp.onnx", "nonzero.onnx"):
        modules.append((name, import_model(str(ROOT / "tests" / "models" / name))))
    seeds = []
    for name, module in modules:
        CompilePipelinePass(formats=name != "conv_block").apply(make_context(), module)
        out = StringIO()
        Printer(stream=out).print_op(module)
        seeds.append((name, out.getvalue() + "\n"))
    return tuple(seeds)


def _relocatable(text: str) -> list[tuple[int, int]]:
    """(offset, bytes) of the offsets whose references form whole buffers (no reference at
    another offset inside their bytes) and are not weights: relocating one of them past the
    arena keeps what the model computes."""
    refs = arena_refs(text) or []
    weights = {int(w) for w in re.findall(r"ascend\.weight arena\[(\d+)\]", text)}
    out = []
    for offset in sorted({o for o, _ in refs} - weights):
        size = max(n for o, n in refs if o == offset)
        if not any(o != offset and o < offset + size and offset < o + n for o, n in refs):
            out.append((offset, size))
    return out


def ascend_case(rng: random.Random) -> Case:
    """A compiled model with one edit of its layout or synchronisation. An edit that keeps
    what it computes by construction (`harness.relocation_keeps_numbers`: a whole buffer
    relocated to free memory, `relocate` grows the arena for it; dropped events, other
    streams, another arena size) must, if accepted, give the unedited model's numbers; an
    edit that breaks the model must be rejected by the verifier; a rewiring (most single
    moved references) must keep the other promises."""
    name, text = rng.choice(ascend_seeds())
    offsets = sorted(set(re.findall(r"arena\[(\d+)\]", text)), key=int)
    kind = rng.choice(("move-all", "move-one", "relocate", "drop-sync", "stream", "arena-size"))
    edited, note = text, kind
    size = re.search(r"arena_size (\d+)", text)
    movable = _relocatable(text)
    if kind == "relocate" and movable and size is not None:
        old, nbytes = rng.choice(movable)
        end = -(-int(size.group(1)) // 512) * 512
        grown = end + -(-nbytes // 512) * 512
        edited = text.replace(f"arena[{old}]", f"arena[{end}]")
        edited = edited.replace(f"arena_size {size.group(1)}", f"arena_size {grown}", 1)
        note += f":{old}->{end}"
    elif kind in ("move-all", "move-one") and offsets:
        old = rng.choice(offsets)
        new = rng.choice([*offsets, str(int(offsets[-1]) + 512), str(int(old) + 4), "0"])
        if kind == "move-all":
            edited = text.replace(f"arena[{old}]", f"arena[{new}]")
        else:
            hits = [m.start() for m in re.finditer(re.escape(f"arena[{old}]"), text)]
            at = rng.choice(hits)
            weights = set(re.findall(r"ascend\.weight arena\[(\d+)\]", text))
            inputs = set(re.findall(r"ascend\.input \"[^\"]*\" arena\[(\d+)\]", text))
            if ((old in weights and new in weights) or new in inputs) and new != old:
                # One reference moved onto another weight or onto an input is a rewired
                # model, well-formed (a read of its prefix) and computing other numbers by
                # design (no verifier can tell): move it off the start instead, bytes no
                # weight or input holds as a whole.
                new = str(int(old) + 4)
            edited = text[:at] + f"arena[{new}]" + text[at + len(f"arena[{old}]") :]
        note += f":{old}->{new}"
    elif kind == "drop-sync":
        lines = text.splitlines()
        sync = [i for i, ln in enumerate(lines) if re.search(r"ascend\.event_(record|wait)", ln)]
        if sync:
            i = rng.choice(sync)
            note += f":{lines[i].strip()}"
            del lines[i]
            edited = "\n".join(lines) + "\n"
    elif kind == "stream":
        m = rng.choice(list(re.finditer(r"(?<=\bstream )\d+", text)) or [None])
        if m is not None:
            new = rng.choice(("0", "1", "2", "7"))
            edited = text[: m.start()] + new + text[m.end() :]
            note += f"@{m.start()}={new}"
    else:
        m = re.search(r"arena_size (\d+)", text)
        if m is not None:
            new = str(rng.choice((0, 512, int(m.group(1)) // 2, int(m.group(1)) - 4)))
            edited = text[: m.start(1)] + new + text[m.end(1) :]
            note += f"={new}"
    files = {"input.mlir": text.encode(), "out.mlir": edited.encode()}
    argv = ["out.mlir", "--random-inputs", "0", "-q"]
    if rng.random() < 0.3:
        argv += ["--check-uninitialized", "--schedule-seed", str(rng.randrange(4))]
    return Case("ascend", "ge-run", argv, files, note=f"{name}:{note}", check_output=True)


def generated_file(spec: str) -> bytes:
    """Files too large to commit, made from a short spec: `bomb:NBYTES` (`_bomb_npz`)."""
    kind, _, arg = spec.partition(":")
    if kind == "bomb":
        return _bomb_npz(int(arg))
    raise ValueError(f"unknown generated file {spec!r}")


FAMILIES: dict[str, Callable[[random.Random], Case]] = {
    "lit": lit_case,
    "onnx": onnx_case,
    "npz": npz_case,
    "atc-options": atc_case,
    "pass-options": pass_case,
    "run-options": run_options_case,
    "session": session_case,
    "resource": resource_case,
    "ascend": ascend_case,
}
