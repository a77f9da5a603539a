"""Kernels of the comparison, logical and selection ops, and Cast."""

from __future__ import annotations
