"""Kernels of the spectral ops: numpy's FFT over all frames and batches at once, in the
input's precision (complex64 for float32 and float16, as onnxruntime's float kernels and
onnx's reference compute; complex128 for float64)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from xdsl.ir import Attribute

from gedialects.graph import DFTOp, STFTOp
from gedialects.interpreters.graph.common import Arrays, bool_, int_
from gedialects.interpreters.kernels import KernelAttrs, KernelError, kernel


def _complex(x: np.ndarray) -> np.ndarray:
    """`[..., 1 | 2]` as a complex array without the last axis."""
    real = np.float64 if x.dtype == np.float64 else np.float32
    if x.shape[-1] == 1:
        return x[..., 0].astype(real)
    if x.shape[-1] == 2:
        return (x[..., 0].astype(real) + 1j * x[..., 1].astype(real)).astype(
            np.complex128 if real is np.float64 else np.complex64
        )
    raise KernelError(f"the last dim must be 1 (real) or 2 (complex), got {x.shape[-1]}")


def _pairs(z: np.ndarray, dtype: np.dtype) -> np.ndarray:
    return np.stack([np.real(z), np.imag(z)], axis=-1).astype(dtype)


@kernel("DFT")
def dft(
    inputs: Sequence[np.ndarray], attrs: KernelAttrs, result_types: Sequence[Attribute]
) -> Arrays:
    x = inputs[0]
    if x.ndim < 2:
        raise KernelError(f"DFT: x must have a signal axis and a last axis, got {list(x.shape)}")
    axis = int_(attrs, "axis", DFTOp)
    if not -x.ndim <= axis < x.ndim or axis % x.ndim == x.ndim - 1:
        raise KernelError(f"DFT: axis {axis} is not a signal axis of x {list(x.shape)}")
    axis %= x.ndim
    inverse, onesided = bool_(attrs, "inverse", DFTOp), bool_(attrs, "onesided", DFTOp)
    n = int_(attrs, "dft_length", DFTOp) or (
        2 * (x.shape[axis] - 1) if inverse and onesided else x.shape[axis]
    )
    if n <= 0:
        raise KernelError(f"DFT: the transform's length must be positive, got {n}")
    z = _complex(x)
    if inverse and onesided:
        return (np.fft.irfft(z, n=n, axis=axis)[..., None].astype(x.dtype),)
    if inverse:
        return (_pairs(np.fft.ifft(z, n=n, axis=axis), x.dtype),)
    y = np.fft.fft(z, n=n, axis=axis)
    if onesided:
        y = np.take(y, np.arange(n // 2 + 1), axis=axis)
    return (_pairs(y, x.dtype),)


@kernel("STFT")
def stft(
    inputs: Sequence[np.ndarray], attrs: KernelAttrs, result_types: Sequence[Attribute]
) -> Arrays:
    signal = inputs[0]
    step = int_(attrs, "frame_step", STFTOp)
    length = int_(attrs, "frame_length", STFTOp)
    if signal.ndim != 3:
        raise KernelError(f"STFT: signal must be [batch, length, 1 | 2], got {list(signal.shape)}")
    if signal.shape[1] < length:
        raise KernelError(
            f"STFT: signal length {signal.shape[1]} is shorter than frame_length {length}"
        )
    z = _complex(signal)
    frames = (signal.shape[1] - length) // step + 1
    starts = np.arange(frames)[:, None] * step + np.arange(length)[None, :]
    framed = z[:, starts]  # [B, frames, length]
    if len(inputs) > 1:
        window = inputs[1]
        if window.shape != (length,):
            raise KernelError(f"STFT: window must be [{length}], got {list(window.shape)}")
        framed = framed * window.astype(np.real(framed).dtype)
    y = np.fft.fft(framed, axis=-1)
    if bool_(attrs, "onesided", STFTOp):
        y = y[..., : length // 2 + 1]
    return (_pairs(y, signal.dtype),)
