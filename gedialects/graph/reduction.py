"""Reductions, arg-reductions, TopK and CumSum (GE reduce_ops.h, selection_ops.h)."""

from __future__ import annotations

from xdsl.ir import Operation

__all__: list[str] = []

OPS: tuple[type[Operation], ...] = ()
"""The ops of this module, in the order the dialect lists them."""
