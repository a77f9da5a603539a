"""Data formats (issue 18 part 3/4): GE's layouts, C0, TransData for every pair, heavy kernels."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from xdsl.dialects.builtin import TensorType, f16, f32, i8, i32

from gedialects.formats import FORMATS, FormatAttr, c0_of, storage_shape, with_format
from gedialects.interpreters.kernels import KernelError, run_kernel
from gedialects.interpreters.layouts import pack, pack_into, unpack
from gedialects.tensors import numpy_dtype

RNG = np.random.default_rng(18)


def _formats_for(origin: str, rank: int) -> list[str]:
    out = []
    for fmt in FORMATS:
        try:
            storage_shape((5,) * rank, origin, fmt, 16)
        except ValueError:
            continue
        out.append(fmt)
    return out


def test_c0_per_dtype() -> None:
    assert c0_of(f16) == c0_of(f32) == c0_of(i32) == 16
    assert c0_of(i8) == 32


@pytest.mark.parametrize(
    ("shape", "origin", "fmt", "c0", "expected"),
    [
        ((1, 3, 4, 4), "NCHW", "NC1HWC0", 16, (1, 1, 4, 4, 16)),
        ((2, 40, 5, 5), "NCHW", "NC1HWC0", 32, (2, 2, 5, 5, 32)),
        ((2, 5, 5, 40), "NHWC", "NC1HWC0", 16, (2, 3, 5, 5, 16)),
        ((20, 3, 3, 3), "NCHW", "FRACTAL_Z", 16, (9, 2, 16, 16)),
        ((20, 33), "ND", "FRACTAL_Z", 16, (2, 3, 16, 16)),
        ((2, 20, 33), "ND", "FRACTAL_NZ", 16, (2, 3, 2, 16, 16)),
        ((5,), "ND", "FRACTAL_NZ", 16, (1, 1, 16, 16)),
        ((1, 3, 4, 5), "NCHW", "NHWC", 16, (1, 4, 5, 3)),
    ],
)
def test_storage_shapes_follow_ge(
    shape: tuple[int, ...], origin: str, fmt: str, c0: int, expected: tuple[int, ...]
) -> None:
    assert storage_shape(shape, origin, fmt, c0) == expected


def test_nc1hwc0_index_formula() -> None:
    """(n, c, h, w) at (((n*C1 + c/C0)*H + h)*W + w)*C0 + c%C0; padding zero."""
    n_, c_, h_, w_, c0 = 2, 19, 3, 2, 16
    x = RNG.standard_normal((n_, c_, h_, w_)).astype(np.float32) + 10
    flat = pack(x, "NCHW", "NC1HWC0", c0).reshape(-1)
    c1 = 2
    seen = np.zeros(flat.shape, bool)
    for n, c, h, w in itertools.product(range(n_), range(c_), range(h_), range(w_)):
        i = (((n * c1 + c // c0) * h_ + h) * w_ + w) * c0 + c % c0
        assert flat[i] == x[n, c, h, w]
        seen[i] = True
    assert not flat[~seen].any()


def test_fractal_z_index_formula() -> None:
    """dst (vfi*N1 + n/16)*16*C0 + (n%16)*C0 + c%C0, vfi = (c/C0)*H*W + h*W + w."""
    n_, c_, h_, w_, c0 = 20, 3, 3, 2, 16
    x = RNG.standard_normal((n_, c_, h_, w_)).astype(np.float32) + 10
    flat = pack(x, "NCHW", "FRACTAL_Z", c0).reshape(-1)
    n1 = 2
    seen = np.zeros(flat.shape, bool)
    for n, c, h, w in itertools.product(range(n_), range(c_), range(h_), range(w_)):
        vfi = (c // c0) * h_ * w_ + h * w_ + w
        i = (vfi * n1 + n // 16) * 16 * c0 + (n % 16) * c0 + c % c0
        assert flat[i] == x[n, c, h, w]
        seen[i] = True
    assert not flat[~seen].any()


def test_fractal_nz_index_formula() -> None:
    """(t, h, w) at t*W1*H1*16*W0 + (w/W0)*H1*16*W0 + h*W0 + w%W0."""
    t_, h_, w_, w0 = 2, 18, 20, 16
    x = RNG.standard_normal((t_, h_, w_)).astype(np.float32) + 10
    flat = pack(x, "ND", "FRACTAL_NZ", w0).reshape(-1)
    w1, h1 = 2, 2
    seen = np.zeros(flat.shape, bool)
    for t, h, w in itertools.product(range(t_), range(h_), range(w_)):
        i = t * w1 * h1 * 16 * w0 + (w // w0) * h1 * 16 * w0 + h * w0 + w % w0
        assert flat[i] == x[t, h, w]
        seen[i] = True
    assert not flat[~seen].any()


PAIRS = [
    (origin, shape, src, dst)
    for origin, shape in (("NCHW", (3, 19, 5, 4)), ("NHWC", (2, 5, 4, 35)), ("ND", (20, 33)))
    for src in _formats_for(origin, len(shape))
    for dst in _formats_for(origin, len(shape))
]


@pytest.mark.parametrize(("origin", "shape", "src", "dst"), PAIRS)
@pytest.mark.parametrize("dtype", [f32, f16, i8])
def test_trans_data_every_pair(
    origin: str, shape: tuple[int, ...], src: str, dst: str, dtype: object
) -> None:
    """TransData from every format to every other gives the direct layout of the origin
    tensor, with zero padding, and back."""
    assert isinstance(dtype, f32.__class__ | f16.__class__ | i8.__class__)
    npdt = numpy_dtype(dtype)
    x = (RNG.standard_normal(shape) * 10 + 20).astype(npdt)
    plain = TensorType(dtype, shape)
    src_t = with_format(plain, src, origin)
    dst_t = with_format(plain, dst, origin)
    c0 = c0_of(dtype)
    stored = pack(x, origin, src, c0)
    assert stored.shape == tuple(src_t.get_shape()) if isinstance(src_t, TensorType) else False
    attrs = {"src_format": _s(src), "dst_format": _s(dst)}
    (y,) = run_kernel("TransData", [stored], attrs, [dst_t])
    np.testing.assert_array_equal(y, pack(x, origin, dst, c0))
    np.testing.assert_array_equal(unpack(y, origin, shape, dst, c0), x)
    # padding: the stored bytes beyond the origin tensor are zero
    assert np.count_nonzero(y) == np.count_nonzero(x)


def _s(text: str) -> object:
    from xdsl.dialects.builtin import StringAttr

    return StringAttr(text)


def test_trans_data_kernel_refuses_a_wrong_storage_shape() -> None:
    t = with_format(TensorType(f32, (1, 3, 4, 4)), "NC1HWC0", "NCHW")
    attrs = {"src_format": _s("NC1HWC0"), "dst_format": _s("NCHW")}
    with pytest.raises(KernelError, match=r"NC1HWC0 storage of NCHW \[1, 3, 4, 4\] is"):
        run_kernel(
            "TransData",
            [np.zeros((1, 2, 4, 4, 16), np.float32)],
            attrs,
            [TensorType(f32, (1, 3, 4, 4))],
        )
    assert isinstance(t, TensorType)


def test_format_attr_round_trips_through_text() -> None:
    from xdsl.parser import Parser

    from gedialects import make_context

    t = with_format(TensorType(f16, (1, 3, 4, 4)), "NC1HWC0", "NCHW")
    assert str(t) == "tensor<1x1x4x4x16xf16, #graph.format<NC1HWC0 origin NCHW [1, 3, 4, 4]>>"
    assert Parser(make_context(), str(t)).parse_type() == t
    assert isinstance(t, TensorType) and isinstance(t.encoding, FormatAttr)


@pytest.mark.parametrize("channels", [3, 16, 19, 35])
def test_pack_into_nc1hwc0_equals_pack_padded_lanes_zero(channels: int) -> None:
    """`pack_into` writes `pack`'s bytes over an output full of garbage (the padded lanes
    zeroed by a fill of the last block before its lanes are copied in)."""
    x = RNG.standard_normal((2, channels, 5, 6)).astype(np.float32)
    t = with_format(TensorType(f32, x.shape), "NC1HWC0", "NCHW")
    want = pack(x, "NCHW", "NC1HWC0", 16)
    out = np.full_like(want, np.nan)
    pack_into(x, t, out)
    assert out.tobytes() == want.tobytes()
