"""What runs: the entry point of a module and the signature it declares.

Below `interpreters.gears` (the gear table builds on the declared signature) and
`interpreters.run` (which gives every entry its user-facing signature and runs it).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from xdsl.dialects.builtin import ModuleOp, SymbolRefAttr
from xdsl.ir import Attribute, Operation

from gedialects.ascend import DynamicControlOp, InputOp, ModelOp, OutputOp, StageOp
from gedialects.graph import GraphOp

if TYPE_CHECKING:
    import numpy as np


class RunError(Exception):
    """A program cannot be run on the inputs given; the message is one line for the user."""


@dataclass(frozen=True)
class Signature:
    """Named inputs and outputs of an entry point (a root graph or an ascend model)."""

    entry: str
    input_names: tuple[str, ...]
    input_types: tuple[Attribute, ...]
    output_names: tuple[str, ...]
    binder: Callable[[tuple[np.ndarray, ...]], tuple[np.ndarray, ...]] | None = None
    """Turns the checked user inputs into the entry's arguments (a multi-batch root selects
    the gear and adds its shape data); raises RunError. None: the inputs are the arguments."""
    example_types: tuple[Attribute, ...] | None = None
    """Static types for random inputs when `input_types` has `?` dims (a multi-batch root:
    its first gear)."""
    route: (
        Callable[[tuple[np.ndarray, ...]], tuple[Operation, tuple[np.ndarray, ...]] | None] | None
    ) = None
    """Hybrid mode: for checked user inputs, the op that runs them instead of the entry (the
    dynamic graph, for shapes of no gear) and its arguments; None: the entry runs them."""
    getnext: int = 0
    """GetNext sink: how many of the last inputs a GetNext pulls (they are not arguments of
    the entry: each input set goes into the queue, `interpreters.getnext`); outputs beyond
    `output_names` (the hidden GetDynamicDims output) are dropped."""


def _entry_ops(module: ModuleOp) -> list[GraphOp | ModelOp]:
    return [op for op in module.ops if isinstance(op, GraphOp | ModelOp)]


def _referenced_symbols(module: ModuleOp) -> set[str]:
    """Symbols named by any op property (callees, case branches): those graphs are not roots."""
    used: set[str] = set()
    for op in module.walk():
        for value in (*op.properties.values(), *op.attributes.values()):
            data = getattr(value, "data", None)
            items = data if isinstance(data, tuple) else ()
            for attr in (value, *items):
                if isinstance(attr, SymbolRefAttr):
                    used.add(attr.root_reference.data)
    return used


def find_entry(module: ModuleOp, name: str | None = None) -> GraphOp | ModelOp:
    """The op to run: `name` if given, else the single ascend model or the single root graph."""
    candidates = _entry_ops(module)
    if name is not None:
        for op in candidates:
            if op.sym_name.data == name:
                return op
        known = ", ".join(op.sym_name.data for op in candidates) or "none"
        raise RunError(f"no graph or model named '{name}' (available: {known})")
    models = [op for op in candidates if isinstance(op, ModelOp)]
    if models:
        # A model another model names (a hybrid gear model's dynamic fallback) is not an entry.
        named = {
            v.root_reference.data
            for m in models
            for v in m.attributes.values()
            if isinstance(v, SymbolRefAttr)
        }
        if len(models) > 1:  # and the subgraph models of dynamic control tasks
            for m in models:
                for task in m.body.block.ops:
                    if isinstance(task, DynamicControlOp):
                        for attr in task.SUBGRAPHS.get(task.kernel.data, ()):
                            named.update(task.subgraph(attr))
                    elif isinstance(task, StageOp):  # a stage's own model
                        named.add(task.model_name)
        roots = [m for m in models if m.sym_name.data not in named]
    else:
        used = _referenced_symbols(module)
        roots = [op for op in candidates if op.sym_name.data not in used]
    if not roots:
        raise RunError("the input has no graph.graph or ascend.model to run")
    if len(roots) > 1:
        names = ", ".join(op.sym_name.data for op in roots)
        raise RunError(f"several entry points ({names}): choose one with --entry")
    return roots[0]


def _declared_io(model: ModelOp) -> tuple[list[InputOp], list[OutputOp]]:
    """The model's inputs and outputs in one walk of its body (`ModelOp.inputs()`,
    `input_names` and `outputs()` walk all of it each, a model of 10k nodes has 18k ops)."""
    inputs: list[InputOp] = []
    outputs: list[OutputOp] = []
    for op in model.body.block.ops:
        if isinstance(op, InputOp):
            inputs.append(op)
        elif isinstance(op, OutputOp):
            outputs.append(op)
    return inputs, outputs


def declared_signature(entry: Operation) -> Signature:
    """The entry's inputs and outputs as it declares them (`run.signature` adds the gears)."""
    if isinstance(entry, GraphOp):
        return Signature(
            entry.sym_name.data,
            entry.input_names,
            entry.function_type.inputs.data,
            entry.output_names,
        )
    if isinstance(entry, ModelOp):
        inputs, outputs = _declared_io(entry)
        return Signature(
            entry.sym_name.data,
            tuple(op.input_name.data for op in inputs),
            tuple(op.buffer.type for op in inputs),
            tuple(op.output_name.data for op in outputs),
        )
    raise RunError(f"'{entry.name}' is not runnable")
