"""The fast text path of large `ascend.weight` values: the same text as xDSL's printer, the same
bytes back, and xDSL's errors for malformed literals."""

from __future__ import annotations

import io

import numpy as np
import pytest
from xdsl.dialects.builtin import DenseIntOrFPElementsAttr, ModuleOp
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.utils.exceptions import ParseError

from gedialects import make_context
from gedialects.ascend import ModelOp, StreamOp, WeightOp
from gedialects.dense_hex import FAST_MIN_CHARS
from gedialects.tensors import dense_from_numpy, numpy_from_dense


def model_with(array: np.ndarray) -> ModuleOp:
    value = dense_from_numpy(array)
    nbytes = array.nbytes
    return ModuleOp(
        [ModelOp("m", nbytes, nbytes, [StreamOp(0, "AIcoreEngine"), WeightOp(0, value)])]
    )


def printed(op: object) -> str:
    out = io.StringIO()
    Printer(stream=out).print_op(op)  # type: ignore[arg-type]
    return out.getvalue()


def xdsl_text(value: DenseIntOrFPElementsAttr) -> str:
    out = io.StringIO()
    Printer(stream=out).print_attribute(value)
    return out.getvalue()


def parse(text: str) -> ModuleOp:
    return Parser(make_context(), text).parse_module()


def weight(module: ModuleOp) -> WeightOp:
    return next(op for op in module.walk() if isinstance(op, WeightOp))


ARRAYS = {
    "f32": np.random.default_rng(0).standard_normal((300, 200)).astype(np.float32),
    "f16": np.random.default_rng(1).standard_normal((64, 1024)).astype(np.float16),
    "i64": np.arange(20000, dtype=np.int64).reshape(100, 200),
    "i8": (np.arange(70000) % 251 - 125).astype(np.int8),
    "bool": np.random.default_rng(2).random(70000) < 0.5,
    "splat": np.full((128, 256), 0.25, np.float32),
}


@pytest.mark.parametrize("name", sorted(ARRAYS))
def test_large_weights_print_as_xdsl_and_parse_back_to_the_same_bytes(name: str) -> None:
    array = ARRAYS[name]
    module = model_with(array)
    text = printed(module)
    value = weight(module).value
    assert f"= {xdsl_text(value)}\n" in text  # xDSL's own form of the attribute
    back = weight(parse(text))
    assert back.value == value
    got = numpy_from_dense(back.value)
    assert got.dtype == array.dtype and np.array_equal(got, array)
    assert printed(parse(text)) == text


def test_large_literals_take_the_fast_path_and_small_ones_do_not() -> None:
    array = ARRAYS["f32"]
    text = printed(model_with(array))
    literal = text[text.index('"0x') + 3 : text.index('">')]
    assert len(literal) >= FAST_MIN_CHARS
    small = np.arange(10, dtype=np.float32)
    assert "dense<[0.000000e+00, 1.000000e+00" in printed(model_with(small))


def test_a_one_element_hex_literal_is_a_splat() -> None:
    array = ARRAYS["f32"]
    text = printed(model_with(array))
    start, end = text.index('"0x') + 1, text.index('">')
    one = "0x" + np.float32(1.5).tobytes().hex().upper()
    value = weight(parse(text[:start] + one + text[end:])).value
    assert np.array_equal(numpy_from_dense(value), np.full(array.shape, 1.5, np.float32))


def test_malformed_large_literals_fail_as_in_xdsl() -> None:
    array = ARRAYS["f32"]
    text = printed(model_with(array))
    short = text.replace(text[text.index('"0x') + 3 : text.index('"0x') + 11], "", 1)
    with pytest.raises(ParseError, match="Shape mismatch in dense literal"):
        parse(short)
    bad = text.replace('"0x', '"0xZZ', 1)
    with pytest.raises(ParseError, match="Hex string in denseAttr is invalid"):
        parse(bad)
    untyped = text.replace(" : tensor<300x200xf32>", " : i32", 1)
    with pytest.raises(ParseError, match="expected a static tensor type"):
        parse(untyped)
