"""Kernels of the reductions, arg-reductions, TopK and CumSum."""

from __future__ import annotations
