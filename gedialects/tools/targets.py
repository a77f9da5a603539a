"""The output targets of `ge-opt -t`: only those that work on gedialects modules.

xDSL's multiverse offers `llvm` (needs llvmlite, absent), `riscv-asm`, `x86-asm`, `wgsl`,
`csl`... which expect their own dialects and crash on ours (`-t riscv-asm` printed a multi-KB
AssertionError). `ge-opt` offers `mlir` (the IR text, xDSL's target) and `dot` (the Graphviz
picture `ge-dump-dot` draws, with the IR itself not printed).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import IO

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.utils.target import Target


@dataclass(frozen=True)
class DotTarget(Target):
    """`-t dot`: the module as Graphviz DOT (graphs and partitions, or an ascend model's
    streams, tasks and events), the picture `ge-dump-dot` writes."""

    name = "dot"

    def emit(self, ctx: Context, module: ModuleOp, output: IO[str]) -> None:
        from gedialects.passes.partition.dump_dot import to_dot

        output.write(to_dot(module))


def _mlir() -> type[Target]:
    from xdsl.targets.mlir import MLIRTarget

    return MLIRTarget


def _dot() -> type[Target]:
    return DotTarget


TARGETS: dict[str, Callable[[], type[Target]]] = {"mlir": _mlir, "dot": _dot}
"""Target name -> lazy factory of its class, in the order `--help` lists them."""

TARGET_HELP = "output target: mlir (the IR text, default) or dot (a Graphviz picture)"
