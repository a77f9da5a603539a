"""`ge-place-engines`: GE's EnginePlacer, the engine of every node as `_engine_name`."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Attribute, Operation
from xdsl.passes import ModulePass
from xdsl.utils.exceptions import PassFailedException

from gedialects.base import (
    ENGINE_NAME,
    NODE_NAME,
    SPECIFIED_ENGINE_NAME,
    GEOp,
    of_class,
    walk_holders,
)
from gedialects.graph import GraphOp
from gedialects.passes.analysis.graph_view import ge_type, str_attr, string_value
from gedialects.target.engines import ENGINE_BY_NAME, ENGINE_SPECS

_NAME = "ge-place-engines"


def describe(op: Operation) -> str:
    """`'graph.relu' (relu1)`: an op as diagnostics name it."""
    name = str_attr(op, NODE_NAME)
    return f"'{op.name}'" + (f" ({name})" if name else "")


def check_engine_name(engine: str, where: str) -> None:
    if engine not in ENGINE_BY_NAME:
        known = ", ".join(ENGINE_BY_NAME)
        raise PassFailedException(f"{_NAME}: unknown engine '{engine}' {where} (known: {known})")


EngineMemo = dict[tuple[object, ...], tuple[list[Attribute], str]]
"""(op type, ids of the operand and result types) -> (those types, kept alive, and the
engine chosen for them): what `EngineSpec.check` reads, so nodes alike are placed once."""


def select_engine(op: Operation, excluded: frozenset[str], memo: EngineMemo | None = None) -> str:
    """GE `EnginePlacer::SelectEngine` + `DNNEngineManager::GetDNNEngineName` for one node.

    A placed engine (`_engine_name`) is kept; a user-specified one (`_specified_engine_name`)
    wins next; otherwise engines are tried in cost order, skipping excluded ones, and the first
    whose support check passes is taken. No engine: GE's EZ3003, with the reason of each.
    `memo` (one pass's, for one `excluded`) keeps the choice per op type and types: the checks
    read nothing else, and a graph has few distinct such signatures (100k nodes, a dozen).
    """
    for key, where in ((ENGINE_NAME, "placed"), (SPECIFIED_ENGINE_NAME, "specified")):
        engine = str_attr(op, key)
        if engine is None:
            continue
        if engine not in ENGINE_BY_NAME:  # the error's text (`describe`) only when it fails
            check_engine_name(engine, f"in {key} of {describe(op)}")
        if key == SPECIFIED_ENGINE_NAME and engine in excluded:
            raise PassFailedException(
                f"{_NAME}: {describe(op)} is {where} on {engine}, which exclude-engines excludes"
            )
        return engine
    op_type = ge_type(op)
    types = [*op.operand_types, *op.result_types]
    signature = (op_type, *map(id, types)) if memo is not None else ()
    if memo is not None:
        found = memo.get(signature)
        if found is not None:
            return found[1]
    reasons = []
    for spec in ENGINE_SPECS:
        if spec.name in excluded:
            reasons.append(f"{spec.name}: excluded")
            continue
        reason = spec.check(op_type, types)
        if reason is None:
            if memo is not None:
                memo[signature] = (types, spec.name)
            return spec.name
        reasons.append(f"{spec.name}: {reason}")
    raise PassFailedException(
        f"{_NAME}: no engine supports {describe(op)} (GE {op_type}): {'; '.join(reasons)}"
    )


def walk_graphs(op: Operation) -> Iterator[GraphOp]:
    """The graphs `op.walk()` yields, in its order (`walk_holders`: a graph's nodes are not
    visited one by one; the passes that place engines loop over them)."""
    return walk_holders(op, GraphOp)


@dataclass(frozen=True)
class PlaceEnginesPass(ModulePass):
    """Assigns every GE node of every graph an engine, kept as `_engine_name` (GE EnginePlacer).

    Engines are tried in GE's cost order (AIcoreEngine, VectorEngine, DNN_VM_AICPU, DNN_VM_DVPP,
    DNN_VM_HOST_CPU, DNN_VM_GE_LOCAL, DNN_VM_RTS) and the first whose kernel store supports the
    op type, dtypes and shapes wins (tables in `gedialects.target.engines`). A node that
    already has `_engine_name` keeps it; `_specified_engine_name` pins a node. Option
    `exclude-engines` (GE's EXCLUDE_ENGINES): engines never chosen, e.g.
    `ge-place-engines{exclude-engines=AIcoreEngine,VectorEngine}`. Unknown engine names, in the
    option or an attribute, and nodes no engine supports are errors.
    """

    name = "ge-place-engines"

    exclude_engines: tuple[str, ...] = ()

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for engine in self.exclude_engines:
            check_engine_name(engine, "in exclude-engines")
        excluded = frozenset(self.exclude_engines)
        memo: EngineMemo = {}
        for graph in walk_graphs(op):
            for node in graph.body.block.ops:
                if of_class(node, GEOp):
                    engine = select_engine(node, excluded, memo)
                    node.attributes[ENGINE_NAME] = string_value(engine)
