"""`ge-update-hostcpu-engine`: GE's `HostcpuEngineUpdatePass` (small host-side ops to host CPU).

`hicann/ge:compiler/graph/partition/optimizer/hostcpu_engine_update_pass.cc`, run after engine
placement and before the dynamic-shape partition. The walk starts from the anchors (a Data
with `_host_tensor`, a node already on host CPU, the GE-local shape ops Shape / ShapeN / Rank /
Size / GatherShapes) and the Consts, and follows their users. A user all of whose inputs are
host-executed:

- moves from AI Core / AI CPU to `DNN_VM_HOST_CPU` (with `SmallShapeHostcpu = true`) if the
  host CPU kernel store runs its type, it is not `RandomUniform`, and every input and output
  has at most 8 elements (an output of unknown dims only when 1-D; `MapIndex` is exempt);
- is only marked host-executed when it is GE-local (it stays there) and passes the size rule.

The block order of a graph is topological, so one walk in that order visits every node after
all its producers: linear in the nodes. Each graph is walked on its own; GE also enters
If/Case/While and PartitionedCall Data nodes from a host-executed parent input, which this
pass does not (their Data nodes are not anchors).
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import IntegerAttr, ModuleOp, TensorType
from xdsl.ir import Attribute, Operation
from xdsl.passes import ModulePass

from gedialects.base import (
    AICORE_ENGINE,
    AICPU_ENGINE,
    ENGINE_NAME,
    GE_LOCAL_ENGINE,
    HOST_CPU_ENGINE,
    GEOp,
    element_count,
    of_class,
)
from gedialects.graph import ConstOp, GraphOp
from gedialects.passes.analysis.graph_view import bool_value, ge_type, str_attr, string_value
from gedialects.passes.partition.place_engines import walk_graphs
from gedialects.target.engines import ENGINE_BY_NAME

HOST_TENSOR = "_host_tensor"
"""Data attribute: the input lives in host memory (GE's anchor of the walk)."""
SMALL_SHAPE_HOSTCPU = "SmallShapeHostcpu"
"""Set on a node the pass moved (GE's name)."""
MAX_ELEMENTS = 8
"""GE's element limit of every input and output of a moved node."""
SHAPE_ANCHORS = frozenset({"Shape", "ShapeN", "Rank", "Size", "GatherShapes"})
SIZE_EXEMPT = frozenset({"MapIndex"})
NEVER_MOVED = frozenset({"RandomUniform"})
MOVABLE_FROM = frozenset({AICORE_ENGINE, AICPU_ENGINE})


def small(t: Attribute, output: bool) -> bool:
    """GE's size rule for one tensor: at most 8 elements; an output of unknown dims only
    when 1-D (its range is not modelled)."""
    if not isinstance(t, TensorType):
        return False
    dims = t.get_shape()
    if any(d < 0 for d in dims):
        return output and len(dims) == 1
    return element_count(dims) <= MAX_ELEMENTS


def _sizes_ok(op: Operation) -> bool:
    if ge_type(op) in SIZE_EXEMPT:
        return True
    return all(small(v.type, False) for v in op.operands) and all(
        small(r.type, True) for r in op.results
    )


def update_graph(graph: GraphOp) -> list[Operation]:
    """The walk on one graph; returns the nodes moved to host CPU."""
    # Host-executed values by `id` (xDSL's values hash by a Python-level `__hash__`); the
    # graph keeps them alive while the walk runs.
    host: set[int] = set()
    block = graph.body.block
    attrs = graph.arg_attrs.data if graph.arg_attrs is not None else ()
    for arg, entry in zip(block.args, attrs, strict=False):
        value = entry.data.get(HOST_TENSOR)
        if value is not None and _true(value):
            host.add(id(arg))
    host_kernels = ENGINE_BY_NAME[HOST_CPU_ENGINE].host_kernels
    moved: list[Operation] = []
    for op in block.ops:
        if not of_class(op, GEOp):
            continue
        operands = op.operands
        if not operands or not all(id(v) in host for v in operands):
            # Only an anchor passes the host status on from here.
            if of_class(op, ConstOp):
                host.update(map(id, op.results))
                continue
            engine = str_attr(op, ENGINE_NAME)
            if engine == HOST_CPU_ENGINE or (
                engine == GE_LOCAL_ENGINE and ge_type(op) in SHAPE_ANCHORS
            ):
                host.update(map(id, op.results))
            continue
        engine = str_attr(op, ENGINE_NAME)
        op_type = ge_type(op)
        anchor = (
            of_class(op, ConstOp)
            or engine == HOST_CPU_ENGINE
            or (engine == GE_LOCAL_ENGINE and op_type in SHAPE_ANCHORS)
        )
        if not anchor:
            if not _sizes_ok(op):
                continue
            if engine in MOVABLE_FROM:
                if op_type not in host_kernels or op_type in NEVER_MOVED:
                    continue
                op.attributes[ENGINE_NAME] = string_value(HOST_CPU_ENGINE)
                op.attributes[SMALL_SHAPE_HOSTCPU] = bool_value(True)
                moved.append(op)
            elif engine != GE_LOCAL_ENGINE:
                continue
        host.update(map(id, op.results))
    return moved


def _true(value: Attribute) -> bool:
    """A GE bool: `true` or any non-zero integer attribute."""
    return isinstance(value, IntegerAttr) and bool(value.value.data)


@dataclass(frozen=True)
class UpdateHostcpuEnginePass(ModulePass):
    """Moves small host-side nodes to the host CPU engine (GE `HostcpuEngineUpdatePass`).

    From the anchors (Data with `_host_tensor`, host-CPU nodes, GE-local Shape / ShapeN / Rank
    / Size / GatherShapes) and the Consts, a node whose inputs are all host-executed moves from
    AI Core or AI CPU to `DNN_VM_HOST_CPU`, marked `SmallShapeHostcpu = true`, when host CPU
    runs its type (not RandomUniform) and all its inputs and outputs have at most 8 elements
    (an unknown-dim output only when 1-D; MapIndex exempt). Qualifying GE-local nodes stay
    where they are but pass the host status on. Run after `ge-place-engines`; the
    dynamic-shape partition then makes the moved nodes unknown-shape (its rule 2).
    """

    name = "ge-update-hostcpu-engine"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for graph in walk_graphs(op):
            if ENGINE_NAME not in graph.attributes:
                update_graph(graph)
