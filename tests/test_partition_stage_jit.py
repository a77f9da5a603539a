"""ge-partition-stage and JIT slicing on random DAGs: stages as an independent oracle predicts
them (or the cycle error), slices that run to the original numbers, and the refusals."""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from xdsl.dialects.builtin import ModuleOp
from xdsl.utils.exceptions import PassFailedException

from gedialects.base import NODE_NAME
from gedialects.graph import GraphOp, NetOutputOp
from gedialects.interpreters.run import run
from gedialects.partition import PartitionedCallOp
from gedialects.passes.analysis.graph_view import GraphNodes, bool_attr
from gedialects.passes.partition.inline import InlinePartitionsPass
from gedialects.passes.partition.jit import PartitionJitPass, SliceError, slice_known, static_nodes
from gedialects.passes.partition.stage import PartitionStagePass
from tests.test_partition_passes import apply, canonical, inputs_for, node_names, parse

STAGE_ATTRS = frozenset({"_stage_level"})


@dataclass(frozen=True)
class Node:
    kind: str  # const | relu | neg | add | sub | mul
    inputs: tuple[int, ...]
    level: int | None
    dynamic: bool


Program = tuple[int, list[Node], list[int]]


@st.composite
def dags(draw: st.DrawFn, max_nodes: int = 120, levels: bool = True) -> Program:
    n_inputs = draw(st.integers(1, 3))
    n_nodes = draw(st.integers(1, max_nodes))
    nodes: list[Node] = []
    for i in range(n_nodes):
        kind = draw(st.sampled_from(["const", "relu", "neg", "add", "sub", "mul", "add"]))
        arity = {"const": 0, "relu": 1, "neg": 1}.get(kind, 2)
        # Mostly recent producers, so that chains are long and stages interleave.
        inputs = tuple(
            draw(st.integers(max(0, n_inputs + i - 8), n_inputs + i - 1)) for _ in range(arity)
        )
        # Levels mostly follow the node order, as pipeline stages do; some go against it.
        level = None
        if levels and draw(st.integers(0, 5)) == 0:
            in_order = draw(st.integers(0, 4)) > 0
            level = i * 4 // n_nodes if in_order else draw(st.integers(0, 3))
        dynamic = kind != "const" and draw(st.integers(0, 9)) == 0
        nodes.append(Node(kind, inputs, level, dynamic))
    total = n_inputs + n_nodes
    outputs = sorted({total - 1, *draw(st.lists(st.integers(0, total - 1), max_size=3))})
    return n_inputs, nodes, outputs


def to_text(program: Program) -> str:
    n_inputs, nodes, outputs = program
    types = ["tensor<2x3xf32>"] * n_inputs
    lines = []
    for i, node in enumerate(nodes):
        v = n_inputs + i
        attrs = [f'node_name = "n{v}"']
        if node.level is not None:
            attrs.append(f"_stage_level = {node.level}")
        if node.kind == "const":
            values = ", ".join(f"{((v * 7 + k) % 11 - 5) / 4}" for k in range(3))
            types.append("tensor<2x3xf32>")
            lines.append(
                f"  %v{v} = graph.const dense<[[{values}], [{values}]]> : tensor<2x3xf32>"
                f" {{{', '.join(attrs)}}}"
            )
            continue
        ins = [types[j] for j in node.inputs]
        t = "tensor<?x3xf32>" if node.dynamic or any("?" in s for s in ins) else "tensor<2x3xf32>"
        types.append(t)
        operands = ", ".join(f"%v{j}" for j in node.inputs)
        lines.append(
            f"  %v{v} = graph.{node.kind} {operands} {{{', '.join(attrs)}}}"
            f" : ({', '.join(ins)}) -> {t}"
        )
    args = ", ".join(f"%v{i}: tensor<2x3xf32>" for i in range(n_inputs))
    out_types = ", ".join(types[o] for o in outputs)
    outs = ", ".join(f"%v{o}" for o in outputs)
    return (
        f"graph.graph @g({args}) -> ({out_types}) {{\n"
        + "\n".join(lines)
        + f"\n  graph.net_output {outs} : {out_types}\n}}\n"
    )


# --------------------------------------------------------------------------------------------
# ge-partition-stage
# --------------------------------------------------------------------------------------------


def oracle_levels(program: Program) -> dict[int, int]:
    """Each op node's stage, computed differently from GE's walk: a marked node keeps its
    level; an unmarked one takes the lowest level marked on a node it reaches through unmarked
    nodes only, else the tail level (max + 1)."""
    n_inputs, nodes, _ = program
    marks = {n_inputs + i: n.level for i, n in enumerate(nodes) if n.level is not None}
    if not marks:
        return {}
    consumers: dict[int, list[int]] = {}
    for i, n in enumerate(nodes):
        for p in n.inputs:
            consumers.setdefault(p, []).append(n_inputs + i)
    inf = 1 << 30
    reach: dict[int, int] = {}
    for v in reversed(range(n_inputs, n_inputs + len(nodes))):
        best = inf
        for c in consumers.get(v, []):
            best = min(best, marks[c] if c in marks else reach[c])
        reach[v] = best
    tail = max(marks.values()) + 1
    return {
        v: marks.get(v, reach[v] if reach[v] < inf else tail)
        for v in range(n_inputs, n_inputs + len(nodes))
    }


def stages_cyclic(program: Program, levels: dict[int, int]) -> bool:
    n_inputs, nodes, _ = program
    edges: dict[int, set[int]] = {}
    for i, n in enumerate(nodes):
        for p in n.inputs:
            if p >= n_inputs and levels[p] != levels[n_inputs + i]:
                edges.setdefault(levels[p], set()).add(levels[n_inputs + i])
    state: dict[int, int] = {}

    def visit(s: int) -> bool:
        state[s] = 1
        for t in edges.get(s, ()):
            if state.get(t) == 1 or (t not in state and visit(t)):
                return True
        state[s] = 2
        return False

    return any(s not in state and visit(s) for s in set(levels.values()))


def graph_of_node(module: ModuleOp) -> dict[str, str]:
    where: dict[str, str] = {}
    for graph in module.ops:
        if isinstance(graph, GraphOp):
            for op in graph.body.block.ops:
                name = op.attributes.get(NODE_NAME)
                if name is not None and re.fullmatch(r"n\d+", name.data):
                    where[name.data] = graph.sym_name.data
    return where


@settings(max_examples=60, deadline=None)
@given(dags())
def test_stage_partition_matches_the_oracle_and_the_numbers(program: Program) -> None:
    module = parse(to_text(program))
    original = canonical(module, STAGE_ATTRS)
    expected = run(module, inputs_for(program[0]))
    levels = oracle_levels(program)
    if levels and stages_cyclic(program, levels):
        with pytest.raises(PassFailedException, match="the stages form a cycle"):
            apply(module, PartitionStagePass())
        return
    names = node_names(module)
    apply(module, PartitionStagePass())
    assert node_names(module) == names  # every node in exactly one graph
    where = graph_of_node(module)
    for v, level in levels.items():
        assert where[f"n{v}"] == f"Subgraph_Level_{level}"
    if not levels:
        assert set(where.values()) == {"g"} and canonical(module, STAGE_ATTRS) == original
        return
    root = next(g for g in module.ops if isinstance(g, GraphOp) and g.sym_name.data == "g")
    calls = [op for op in root.body.block.ops if isinstance(op, PartitionedCallOp)]
    assert len(calls) == len(root.body.block.ops) - 1  # the root holds only the stage calls
    assert len(calls) == len(set(levels.values()))
    for call in calls:
        level = call.attributes["_stage_level"].value.data
        assert call.callee.root_reference.data == f"Subgraph_Level_{level}"
        assert bool_attr(call, "_force_unknown_shape") is True
    got = run(module, inputs_for(program[0]))
    for name, value in expected.items():
        np.testing.assert_array_equal(got[name], value)
    apply(module, InlinePartitionsPass())
    assert canonical(module, STAGE_ATTRS) == original


def test_stage_partition_twice_is_an_error() -> None:
    program: Program = (1, [Node("relu", (0,), 0, False)], [1])
    module = apply(parse(to_text(program)), PartitionStagePass())
    with pytest.raises(PassFailedException, match="symbol @Subgraph_Level_0 already exists"):
        apply(module, PartitionStagePass())


# --------------------------------------------------------------------------------------------
# JIT slicing
# --------------------------------------------------------------------------------------------


@st.composite
def sliced_programs(draw: st.DrawFn) -> tuple[Program, list[str]]:
    """A DAG and a random known set closed under predecessors (node names)."""
    program = draw(dags(max_nodes=60, levels=False))
    n_inputs, nodes, _ = program
    known: set[int] = set()
    for i, node in enumerate(nodes):
        v = n_inputs + i
        if draw(st.booleans()) and all(p < n_inputs or p in known for p in node.inputs):
            known.add(v)
    return program, [f"n{v}" for v in sorted(known)]


def op_names(graph: GraphOp) -> set[str]:
    return {
        op.attributes[NODE_NAME].data
        for op in graph.body.block.ops
        if not isinstance(op, NetOutputOp)
    }


def run_graph(graph: GraphOp, inputs: list[np.ndarray]) -> list[np.ndarray]:
    module = ModuleOp([graph.clone()])
    module.verify()
    named = dict(zip(graph.input_names, inputs, strict=True))
    out = run(module, named)
    return [out[name] for name in graph.output_names]


@settings(max_examples=60, deadline=None)
@given(sliced_programs())
def test_slices_run_to_the_original_numbers(case: tuple[Program, list[str]]) -> None:
    program, known = case
    module = parse(to_text(program))
    before = canonical(module)
    inputs = inputs_for(program[0])
    graph = next(g for g in module.ops if isinstance(g, GraphOp))
    expected = [run(module, inputs)[name] for name in graph.output_names]
    if not known:
        with pytest.raises(SliceError, match="the known node set is empty"):
            slice_known(module, known)
        return
    sliced, remaining, wiring = slice_known(module, known)
    assert canonical(module) == before  # the input is not changed
    # Every node is in one slice; Consts the remaining graph reads are copied into it.
    in_sliced, in_remaining = op_names(sliced), op_names(remaining)
    assert in_sliced == set(known)
    copied = in_sliced & in_remaining
    assert all(program[1][int(n[1:]) - program[0]].kind == "const" for n in copied)
    assert in_sliced | in_remaining == set(node_names(module))
    # The remaining graph reads each sliced output once.
    sources = [s for s in wiring.inputs if s[0] == "sliced"]
    assert sorted(j for _, j in sources) == list(range(len(sliced.function_type.outputs.data)))
    args = [inputs[name] for name in graph.input_names]
    sliced_out = run_graph(sliced, args)
    got = run_graph(remaining, wiring.remaining_args(args, sliced_out))
    for g, e in zip(got, expected, strict=True):
        np.testing.assert_array_equal(g, e)
    # The pass wires the same slices in the root, and inlining gives the graph back.
    apply(module, PartitionJitPass(nodes=tuple(known)))
    got_pass = run(module, inputs)
    for name, e in zip(graph.output_names, expected, strict=True):
        np.testing.assert_array_equal(got_pass[name], e)
    # Inlining gives the graph back, with the Const copies next to their originals.
    apply(module, InlinePartitionsPass())
    ops, out = canonical(module, frozenset({NODE_NAME}))
    original_ops, original_out = canonical(parse(to_text(program)), frozenset({NODE_NAME}))
    assert out == original_out and ops.keys() == original_ops.keys()
    assert ops.total() == original_ops.total() + len(copied)


@settings(max_examples=40, deadline=None)
@given(sliced_programs(), st.data())
def test_a_set_reading_the_remaining_part_is_refused(
    case: tuple[Program, list[str]], data: st.DataObject
) -> None:
    program, known = case
    n_inputs, nodes, _ = program
    known_set = {int(n[1:]) for n in known}
    # A node outside the set that reads an op node outside the set.
    candidates = [
        n_inputs + i
        for i, node in enumerate(nodes)
        if n_inputs + i not in known_set
        and any(p >= n_inputs and p not in known_set for p in node.inputs)
    ]
    if not candidates:
        return
    bad = data.draw(st.sampled_from(candidates))
    module = parse(to_text(program))
    with pytest.raises(SliceError) as info:
        slice_known(module, [*known, f"n{bad}"])
    match = re.search(r"known node 'n(\d+)' reads 'n(\d+)', which is not known", str(info.value))
    assert match is not None
    reader, read = int(match[1]), int(match[2])
    chosen = known_set | {bad}
    assert reader in chosen and read not in chosen
    assert read in nodes[reader - n_inputs].inputs
    with pytest.raises(PassFailedException, match=f"known node 'n{reader}' reads 'n{read}'"):
        apply(module, PartitionJitPass(nodes=(*known, f"n{bad}")))


@settings(max_examples=40, deadline=None)
@given(dags(levels=False))
def test_auto_takes_the_static_nodes_closed_under_predecessors(program: Program) -> None:
    module = parse(to_text(program))
    graph = next(g for g in module.ops if isinstance(g, GraphOp))
    n_inputs, nodes, _ = program
    static: set[int] = set()
    for i, node in enumerate(nodes):
        # `?` spreads to consumers in `to_text`, so a static node has static producers.
        dynamic = node.dynamic or any(p >= n_inputs and p not in static for p in node.inputs)
        if not dynamic:
            static.add(n_inputs + i)
    assert static_nodes(GraphNodes.of(graph)) == [f"n{v}" for v in sorted(static)]
    if not static:
        with pytest.raises(PassFailedException, match="no node has static shapes"):
            apply(module, PartitionJitPass(known="auto"))
        return
    expected = run(module, inputs_for(n_inputs))
    apply(module, PartitionJitPass(known="auto"))
    sliced = next(
        g for g in module.ops if isinstance(g, GraphOp) and g.sym_name.data == "Sliced_Graph"
    )
    assert all("?" not in str(t) for op in sliced.body.block.ops for t in op.result_types)
    got = run(module, inputs_for(n_inputs))
    for name, value in expected.items():
        np.testing.assert_array_equal(got[name], value)


def test_slice_known_needs_one_root() -> None:
    text = to_text((1, [Node("relu", (0,), None, False)], [1]))
    module = parse(text + text.replace("@g", "@h"))
    with pytest.raises(SliceError, match=r"expected one root graph to slice, found 2 \(@g, @h\)"):
        slice_known(module, ["n1"])
    graph = next(g for g in module.ops if isinstance(g, GraphOp))
    sliced, remaining, wiring = slice_known(graph, ["n1"], sliced_name="S", remaining_name="R")
    assert (sliced.sym_name.data, remaining.sym_name.data) == ("S", "R")
    assert wiring.inputs == (("sliced", 0),) and wiring.out_idx_2_in_idxs == ((0, 0),)


def test_the_remaining_graph_slices_again() -> None:
    """GE's onion peeling: each run slices what is left; three slices give the numbers."""
    program: Program = (
        2,
        [
            Node("relu", (0,), None, False),
            Node("add", (2, 1), None, True),
            Node("mul", (3, 2), None, False),
            Node("neg", (4,), None, False),
        ],
        [3, 5],
    )
    module = parse(to_text(program))
    graph = next(g for g in module.ops if isinstance(g, GraphOp))
    inputs = inputs_for(2)
    expected = [run(module, inputs)[name] for name in graph.output_names]
    first, rest, wiring = slice_known(module, ["n2"])
    second, last, wiring2 = slice_known(rest, ["n3", "n4"], sliced_name="Sliced_Graph_1")
    assert op_names(first) == {"n2"} and op_names(second) == {"n3", "n4"}
    assert op_names(last) == {"n5"}
    args = [inputs[name] for name in graph.input_names]
    rest_args = wiring.remaining_args(args, run_graph(first, args))
    last_args = wiring2.remaining_args(rest_args, run_graph(second, rest_args))
    for got, e in zip(run_graph(last, last_args), expected, strict=True):
        np.testing.assert_array_equal(got, e)
