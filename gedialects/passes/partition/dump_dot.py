"""`ge-dump-dot`: a Graphviz picture of a module's graphs and partitions, and of its ascend
models' streams, tasks and events."""

from __future__ import annotations

import itertools
import sys
from dataclasses import dataclass
from typing import TextIO

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.utils.exceptions import PassFailedException

from gedialects.ascend import ModelOp, TaskOp
from gedialects.base import (
    AICORE_ENGINE,
    AICPU_ENGINE,
    DVPP_ENGINE,
    ENGINE_NAME,
    GE_LOCAL_ENGINE,
    HOST_CPU_ENGINE,
    IS_UNKNOWN_SHAPE,
    NODE_NAME,
    RTS_ENGINE,
    VECTOR_ENGINE,
)
from gedialects.graph import GraphOp, NetOutputOp
from gedialects.partition import EndOp, PartitionedCallOp, PlaceHolderOp
from gedialects.passes.analysis.graph_view import bool_attr, called_symbols, ge_type, str_attr
from gedialects.target.engines import INPUT_NODES_SUBGRAPH

ENGINE_COLOURS: dict[str, str] = {
    AICORE_ENGINE: "#cfe2ff",
    VECTOR_ENGINE: "#d2f4ea",
    AICPU_ENGINE: "#fff3cd",
    DVPP_ENGINE: "#e2d9f3",
    HOST_CPU_ENGINE: "#f8d7da",
    GE_LOCAL_ENGINE: "#e9ecef",
    RTS_ENGINE: "#dee2e6",
    INPUT_NODES_SUBGRAPH: "#ffffff",
    "ffts_plus": "#cfe2ff",
}
"""Fill colour of nodes and engine subgraphs, per engine."""
KNOWN_COLOUR = "#d1e7dd"
UNKNOWN_COLOUR = "#ffe5d0"


def _quote(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


def type_label(t: Attribute) -> str:
    """`2x4xf32` for `tensor<2x4xf32>`."""
    text = str(t)
    return text[len("tensor<") : -1] if text.startswith("tensor<") else text


def graph_fill(graph: GraphOp) -> tuple[str, str]:
    """(fill colour, caption) of a graph's box: by engine, else by known/unknown shape."""
    engine = str_attr(graph, ENGINE_NAME)
    if engine is not None:
        return ENGINE_COLOURS.get(engine, "#ffffff"), engine or "(no composite engine)"
    unknown = bool_attr(graph, IS_UNKNOWN_SHAPE)
    if unknown is None:
        return "#ffffff", ""
    return (UNKNOWN_COLOUR, "unknown shape") if unknown else (KNOWN_COLOUR, "known shape")


def to_dot(module: ModuleOp) -> str:
    """The DOT text: one cluster per graph, coloured by engine or shape kind."""
    lines = [
        "digraph module {",
        "  compound=true; rankdir=TB; newrank=true;",
        '  node [shape=box, style="rounded,filled", fillcolor="#ffffff", fontname="Helvetica",'
        " fontsize=10];",
        '  edge [fontname="Helvetica", fontsize=9];',
    ]
    ids: dict[SSAValue, str] = {}
    op_ids: dict[Operation, str] = {}
    arg_ids: dict[str, list[str]] = {}
    outputs: dict[str, str] = {}
    ends: dict[int, str] = {}
    edges: list[str] = []
    graphs = [g for g in module.ops if isinstance(g, GraphOp)]
    for gi, graph in enumerate(graphs):
        name = graph.sym_name.data
        fill, caption = graph_fill(graph)
        label = f"@{name}" + (f"\n{caption}" if caption else "")
        lines.append(f"  subgraph cluster_{gi} {{")
        lines.append(f'    label={_quote(label)}; style="rounded,filled"; fillcolor="{fill}";')
        block = graph.body.block
        arg_ids[name] = []
        for i, (arg, arg_name) in enumerate(zip(block.args, graph.input_names, strict=True)):
            node = f"g{gi}_a{i}"
            ids[arg] = node
            arg_ids[name].append(node)
            text = f"Data\n{arg_name}\n{type_label(arg.type)}"
            lines.append(f'    {node} [label={_quote(text)}, shape=ellipse, fillcolor="#ffffff"];')
        for k, op in enumerate(block.ops):
            node = f"g{gi}_n{k}"
            op_ids[op] = node
            parts = [ge_type(op)]
            if (node_name := str_attr(op, NODE_NAME)) is not None:
                parts.append(node_name)
            if isinstance(op, EndOp | PlaceHolderOp):
                parts.append(f"peerIndex {op.peerIndex.value.data}")
            if op.results:
                parts.append(", ".join(type_label(r.type) for r in op.results))
            engine = str_attr(op, ENGINE_NAME)
            fill_node = ENGINE_COLOURS.get(engine, "#ffffff") if engine else "#ffffff"
            shape = ""
            if isinstance(op, NetOutputOp):
                shape, outputs[name] = ", shape=house", node
            elif isinstance(op, EndOp | PlaceHolderOp):
                shape = ", shape=cds"
            elif called_symbols(op):
                shape = ", shape=box3d"
            lines.append(
                f'    {node} [label={_quote(chr(10).join(parts))}, fillcolor="{fill_node}"{shape}];'
            )
            for r in op.results:
                ids[r] = node
            for v in op.operands:
                if v in ids:
                    edges.append(f"  {ids[v]} -> {node};")
            if isinstance(op, EndOp):
                ends[op.peerIndex.value.data] = node
        lines.append("  }")
    for graph in graphs:
        for op in graph.body.block.ops:
            if isinstance(op, PlaceHolderOp) and op.peerIndex.value.data in ends:
                peer = op.peerIndex.value.data
                edges.append(
                    f'  {ends[peer]} -> {op_ids[op]} [style=dashed, color="#c0392b", '
                    f'label="{peer}"];'
                )
            for callee in called_symbols(op):
                for i, node in enumerate(arg_ids.get(callee, [])):
                    if isinstance(op, PartitionedCallOp) and i < len(op.args):
                        edges.append(f"  {op_ids[op]} -> {node} [style=dotted];")
                if callee in outputs:
                    edges.append(
                        f"  {outputs[callee]} -> {op_ids[op]} [style=dotted, arrowhead=empty];"
                    )
    for mi, model in enumerate(m for m in module.ops if isinstance(m, ModelOp)):
        model_lines, model_edges = model_dot(model, mi)
        lines += model_lines
        edges += model_edges
    lines.extend(edges)
    lines.append("}")
    return "\n".join(lines) + "\n"


def task_label(task: TaskOp) -> str:
    """`Relu\nr` for a kernel task (GE type, node name), `event_record 3` for the others."""
    effects = task.effects()
    if effects.kernel is None:
        return task.trace_name()
    return f"{effects.kernel}\n{task.trace_name()}" + ("\n(dynamic)" if effects.hybrid else "")


def model_dot(model: ModelOp, mi: int) -> tuple[list[str], list[str]]:
    """The DOT lines of one `ascend.model`: a box per model, in it a box per stream (filled by
    its engine) holding its tasks in program order (solid edges); dashed red edges join each
    event record to the wait that consumes it (the n-th record of an event to its n-th wait),
    dotted edges a `stream_active` to the first task of the stream it starts and a jump
    (goto, switch) to the `label_set` of its label on the same stream."""
    name = model.sym_name.data
    lines = [f"  subgraph cluster_model_{mi} {{"]
    caption = f"ascend.model @{name}\narena {model.arena_size.value.data} B"
    lines.append(f'    label={_quote(caption)}; style="rounded,filled"; fillcolor="#f8f9fa";')
    engines = {s.id.value.data: s.engine.data for s in model.streams()}
    by_stream: dict[int, list[tuple[str, TaskOp]]] = {sid: [] for sid in engines}
    for k, task in enumerate(model.tasks()):
        by_stream.setdefault(task.stream.value.data, []).append((f"m{mi}_t{k}", task))
    edges: list[str] = []
    records: dict[int, list[str]] = {}
    waits: dict[int, list[str]] = {}
    label_sets: dict[tuple[int, int], str] = {}
    for sid, tasks in sorted(by_stream.items()):
        engine = engines.get(sid, "")
        fill = ENGINE_COLOURS.get(engine, "#ffffff")
        lines.append(f"    subgraph cluster_model_{mi}_stream_{sid} {{")
        stream_caption = f"stream {sid}" + (f"\n{engine}" if engine else "")
        lines.append(
            f'      label={_quote(stream_caption)}; style="rounded,filled"; fillcolor="{fill}";'
        )
        for node, task in tasks:
            effects = task.effects()
            shape = ", shape=cds" if effects.records or effects.waits else ""
            shape = ", shape=octagon" if effects.control else shape
            lines.append(f"      {node} [label={_quote(task_label(task))}{shape}];")
            for event in effects.records:
                records.setdefault(event, []).append(node)
            for event in effects.waits:
                waits.setdefault(event, []).append(node)
            for label in effects.labels:
                label_sets[(sid, label)] = node
        lines.append("    }")
        edges += [f"  {a} -> {b};" for (a, _), (b, _) in itertools.pairwise(tasks)]
    first = {sid: tasks[0][0] for sid, tasks in by_stream.items() if tasks}
    for sid, tasks in by_stream.items():
        for node, task in tasks:
            effects = task.effects()
            for active in effects.activates:
                if active in first:
                    edges.append(
                        f'  {node} -> {first[active]} [style=dotted, label="active {active}"];'
                    )
            for label in effects.jumps:
                if (sid, label) in label_sets:
                    target = label_sets[(sid, label)]
                    edges.append(
                        f'  {node} -> {target} [style=dotted, label="label {label}", '
                        "constraint=false];"
                    )
    for event, recorded in sorted(records.items()):
        for a, b in zip(recorded, waits.get(event, []), strict=False):  # unmatched: no edge
            edges.append(f'  {a} -> {b} [style=dashed, color="#c0392b", label="event {event}"];')
    lines.append("  }")
    return lines, edges


@dataclass(frozen=True)
class DumpDotPass(ModulePass):
    """Writes the module as a Graphviz DOT picture and leaves the IR unchanged.

    One box per `graph.graph`, filled by its `_engine_name` (engine subgraphs) or by
    `_is_unknown_shape` (green known, orange unknown); nodes are labelled with GE type,
    `node_name` and result shapes and filled by their `_engine_name`. Dotted edges join a
    call to its callee's inputs and the callee's NetOutput back to the call; dashed red edges
    join each `partition.end` to its `partition.place_holder` (labelled with `peerIndex`).
    An `ascend.model` is drawn as its streams (one box each, filled by engine) holding their
    tasks in order, with dashed red edges from each event record to its wait and dotted
    edges for `stream_active` and label jumps. `ge-opt -t dot` prints the same picture.
    Option `file`: the output path, `-` (default) for stdout (send the IR elsewhere with `-o`).
    Render with `dot -Tsvg`.
    """

    name = "ge-dump-dot"

    file: str = "-"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        text = to_dot(op)
        if self.file == "-":
            _write(sys.stdout, text)
            return
        try:
            with open(self.file, "w", encoding="utf-8") as out:
                _write(out, text)
        except OSError as e:
            raise PassFailedException(f"ge-dump-dot: cannot write {self.file}: {e}") from None


def _write(out: TextIO, text: str) -> None:
    out.write(text)
    out.flush()
