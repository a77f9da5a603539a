"""Partitioning passes on random DAGs: every node in one partition, partitions acyclic, the
merge-back and inlining give the original graph, and the interpreter (graph level and after
`ge-compile`) gives the original numbers."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Operation, SSAValue
from xdsl.parser import Parser
from xdsl.passes import ModulePass
from xdsl.utils.exceptions import PassFailedException

from gedialects import make_context
from gedialects.ascend import ModelOp
from gedialects.base import NODE_NAME
from gedialects.graph import GraphOp, NetOutputOp
from gedialects.interpreters.ascend import execute_model
from gedialects.interpreters.run import run
from gedialects.partition import EndOp, PartitionedCallOp, PlaceHolderOp
from gedialects.passes.partition import dynamic_shape, engine
from gedialects.passes.partition.dump_dot import DumpDotPass, to_dot
from gedialects.passes.partition.dynamic_shape import PartitionDynamicShapePass, ShapeClassifier
from gedialects.passes.partition.engine import PartitionEnginePass
from gedialects.passes.partition.inline import InlinePartitionsPass
from gedialects.passes.partition.merge_engine_partitions import MergeEnginePartitionsPass
from gedialects.passes.partition.place_engines import PlaceEnginesPass
from gedialects.passes.pipelines import CompilePipelinePass

ENGINES = (None, "AIcoreEngine", "VectorEngine", "DNN_VM_AICPU", "DNN_VM_HOST_CPU")
PARTITION_ATTRS = frozenset({"_is_unknown_shape", "OwnerGraphIsUnknown", "_engine_name"})


@dataclass(frozen=True)
class Node:
    kind: str  # const | relu | add | sub | mul
    inputs: tuple[int, ...]
    unknown: bool
    engine: str | None
    label: bool
    force_unknown: bool


@st.composite
def programs(draw: st.DrawFn, static: bool = False) -> tuple[int, list[Node], list[int]]:
    n_inputs = draw(st.integers(1, 2))
    n_nodes = draw(st.integers(1, 40))
    nodes: list[Node] = []
    for i in range(n_nodes):
        available = n_inputs + i
        kind = draw(st.sampled_from(["const", "relu", "add", "sub", "mul", "add"]))
        arity = {"const": 0, "relu": 1}.get(kind, 2)
        inputs = tuple(draw(st.integers(0, available - 1)) for _ in range(arity))
        nodes.append(
            Node(
                kind,
                inputs,
                unknown=not static and kind != "const" and draw(st.integers(0, 9)) == 0,
                engine=None if kind == "const" else draw(st.sampled_from(ENGINES)),
                label=draw(st.integers(0, 5)) == 0,
                force_unknown=draw(st.integers(0, 7)) == 0,
            )
        )
    total = n_inputs + n_nodes
    outputs = sorted({total - 1, *draw(st.lists(st.integers(0, total - 1), max_size=3))})
    return n_inputs, nodes, outputs


def to_text(program: tuple[int, list[Node], list[int]]) -> str:
    n_inputs, nodes, outputs = program
    types: list[str] = ["tensor<2x3xf32>"] * n_inputs
    lines = []
    for i, node in enumerate(nodes):
        v = n_inputs + i
        attrs = [f'node_name = "n{v}"']
        if node.engine:
            attrs.append(f'_specified_engine_name = "{node.engine}"')
        if node.label:
            attrs.append('_stream_label = "s1"')
        if node.force_unknown and node.kind != "const":
            attrs.append("_force_unknown_shape = true")
        ins = [types[j] for j in node.inputs]
        unknown = node.unknown or any("?" in t for t in ins)
        t = "tensor<?x3xf32>" if unknown else "tensor<2x3xf32>"
        types.append(t)
        if node.kind == "const":
            values = ", ".join(f"{((v * 7 + k) % 11 - 5) / 4}" for k in range(3))
            lines.append(
                f"  %v{v} = graph.const dense<[[{values}], [{values}]]> : tensor<2x3xf32>"
                f" {{{', '.join(attrs)}}}"
            )
            continue
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


def parse(text: str) -> ModuleOp:
    module = Parser(make_context(), text).parse_module()
    module.verify()
    return module


def apply(module: ModuleOp, *passes: ModulePass) -> ModuleOp:
    ctx = make_context()
    for p in passes:
        p.apply(ctx, module)
        module.verify()
    return module


def inputs_for(n_inputs: int) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(n_inputs)
    return {f"v{i}": rng.standard_normal((2, 3)).astype(np.float32) for i in range(n_inputs)}


def assert_same_outputs(module: ModuleOp, expected: dict[str, np.ndarray], n_inputs: int) -> None:
    got = run(module, inputs_for(n_inputs))
    assert got.keys() == expected.keys()
    for name in expected:
        np.testing.assert_array_equal(got[name], expected[name])


def canonical(
    module: ModuleOp, ignore: frozenset[str] = frozenset(), name: str = "g"
) -> tuple[Counter, int]:
    """Graph `name` up to op order: a multiset of structural op hashes and the output's.

    A value's hash covers its op and, recursively, the hashes of the op's operands, so it does
    not depend on the order in which ops are visited."""

    def intern(key: object) -> int:
        return hash(key)

    (root,) = [g for g in module.ops if isinstance(g, GraphOp) and g.sym_name.data == name]
    ids: dict[SSAValue, int] = {
        a: intern(("arg", i, str(a.type))) for i, a in enumerate(root.body.block.args)
    }
    ops: Counter = Counter()
    out = -1
    for op in root.body.block.ops:
        attrs = sorted((k, str(v)) for k, v in op.attributes.items() if k not in ignore)
        props = sorted((k, str(v)) for k, v in op.properties.items())
        key = (op.name, tuple(props), tuple(attrs), tuple(ids[v] for v in op.operands))
        key_id = intern((key, tuple(str(t) for t in op.result_types)))
        for j, r in enumerate(op.results):
            ids[r] = intern(("res", key_id, j))
        if isinstance(op, NetOutputOp):
            out = key_id
        else:
            ops[key_id] += 1
    return ops, out


def node_names(module: ModuleOp) -> Counter:
    """Names of the original nodes (`n<i>`) wherever they are in the module."""
    names: Counter = Counter()
    for op in module.walk():
        name = op.attributes.get(NODE_NAME)
        if name is not None and name.data.startswith("n") and name.data[1:].isdigit():
            names[name.data] += 1
    return names


@settings(max_examples=40, deadline=None)
@given(programs(), st.sampled_from([-1, 0, 1, 2, 4, 8]))
def test_dynamic_shape_partition_preserves_nodes_and_numbers(
    program: tuple[int, list[Node], list[int]], limit: int
) -> None:
    module = parse(to_text(program))
    expected = run(module, inputs_for(program[0]))
    original_names = node_names(module)
    graph = next(g for g in module.ops if isinstance(g, GraphOp))
    analysis = dynamic_shape.analyse(graph, ShapeClassifier(module), limit)
    if analysis.clustering is not None:
        analysis.clustering.verify()
    apply(module, PartitionDynamicShapePass(static_model_ops_lower_limit=limit))
    assert node_names(module) == original_names  # every node in exactly one subgraph
    assert_same_outputs(module, expected, program[0])
    # Small known clusters were demoted: no known subgraph is smaller than the limit.
    for sub in module.ops:
        if isinstance(sub, GraphOp) and sub.sym_name.data.endswith("_know"):
            assert len(sub.body.block.ops) - 1 >= limit
    inlined = apply(module, InlinePartitionsPass())
    assert [g.sym_name.data for g in inlined.ops if isinstance(g, GraphOp)] == ["g"]
    assert canonical(inlined, PARTITION_ATTRS) == canonical(
        parse(to_text(program)), PARTITION_ATTRS
    )


@settings(max_examples=40, deadline=None)
@given(programs(), st.sampled_from(["atomic", "composite"]))
def test_engine_partition_preserves_numbers_and_merges_back(
    program: tuple[int, list[Node], list[int]], mode: str
) -> None:
    module = apply(parse(to_text(program)), PlaceEnginesPass())
    placed = canonical(module)
    expected = run(module, inputs_for(program[0]))
    original_names = node_names(module)
    graph = next(g for g in module.ops if isinstance(g, GraphOp))
    engine.analyse(graph, mode).clustering.verify()
    apply(module, PartitionEnginePass(mode=mode))
    assert node_names(module) == original_names
    subgraphs = [g for g in module.ops if isinstance(g, GraphOp) and g.sym_name.data != "g"]
    # Each engine subgraph holds nodes of a single engine (or the inputs, or the composite).
    for sub in subgraphs:
        engines = {
            op.attributes["_engine_name"].data
            for op in sub.body.block.ops
            if "_engine_name" in op.attributes
            and op.attributes.get(NODE_NAME) is not None
            and op.attributes[NODE_NAME].data.startswith("n")
        }
        if mode == "atomic" and "inputNodeGraph" not in sub.sym_name.data:
            assert engines <= {sub.attributes["_engine_name"].data}
    ends = Counter(op.peerIndex.value.data for op in module.walk() if isinstance(op, EndOp))
    plds = Counter(op.peerIndex.value.data for op in module.walk() if isinstance(op, PlaceHolderOp))
    assert ends == plds and set(ends.values()) <= {1}
    assert_same_outputs(module, expected, program[0])
    apply(module, MergeEnginePartitionsPass())
    assert [g.sym_name.data for g in module.ops if isinstance(g, GraphOp)] == ["g"]
    assert canonical(module) == placed


@settings(max_examples=25, deadline=None)
@given(programs(static=True))
def test_partitioned_modules_compile_to_the_same_numbers(
    program: tuple[int, list[Node], list[int]],
) -> None:
    module = parse(to_text(program))
    expected = run(module, inputs_for(program[0]))
    apply(
        module,
        PlaceEnginesPass(),
        PartitionDynamicShapePass(static_model_ops_lower_limit=2),
        PartitionEnginePass(),
    )
    assert_same_outputs(module, expected, program[0])
    apply(module, CompilePipelinePass())
    assert_same_outputs(module, expected, program[0])


@settings(max_examples=25, deadline=None)
@given(programs())
def test_engine_partition_of_dynamic_shape_subgraphs_merges_back(
    program: tuple[int, list[Node], list[int]],
) -> None:
    module = apply(
        parse(to_text(program)),
        PlaceEnginesPass(),
        PartitionDynamicShapePass(),
        PlaceEnginesPass(),  # the new calls and NetOutputs get engines before the snapshot
    )
    expected = run(module, inputs_for(program[0]))
    before = {
        g.sym_name.data: canonical(module, name=g.sym_name.data)
        for g in module.ops
        if isinstance(g, GraphOp)
    }
    apply(module, PartitionEnginePass())
    assert_same_outputs(module, expected, program[0])
    apply(module, MergeEnginePartitionsPass())
    after = {g.sym_name.data: g for g in module.ops if isinstance(g, GraphOp)}
    assert after.keys() == before.keys()
    for name, form in before.items():
        assert canonical(module, name=name) == form
    dot = to_dot(module)
    assert dot.count("subgraph cluster_") == len(after)


def test_place_engines_reports_an_unknown_engine() -> None:
    module = parse(to_text((1, [Node("relu", (0,), False, None, False, False)], [1])))
    with pytest.raises(PassFailedException, match="unknown engine 'NoSuchEngine' in exclude"):
        apply(module, PlaceEnginesPass(exclude_engines=("NoSuchEngine",)))


def test_dump_dot_writes_a_file(tmp_path: object) -> None:
    module = parse(to_text((1, [Node("relu", (0,), False, None, False, False)], [1])))
    path = f"{tmp_path}/g.dot"
    apply(module, PlaceEnginesPass(), PartitionEnginePass(), DumpDotPass(file=path))
    with open(path, encoding="utf-8") as f:
        text = f.read()
    assert text.startswith("digraph module {") and '[style=dashed, color="#c0392b"' in text


def _calls(module: ModuleOp) -> list[Operation]:
    return [op for op in module.walk() if isinstance(op, PartitionedCallOp)]


def test_partition_engine_twice_is_an_error() -> None:
    module = parse(to_text((1, [Node("relu", (0,), False, None, False, False)], [1])))
    apply(module, PartitionEnginePass())
    assert _calls(module)
    with pytest.raises(PassFailedException, match="already engine-partitioned"):
        apply(module, PartitionEnginePass())


def test_docs_picture_source_is_current() -> None:
    """docs/design/partitioning.dot is what `make partition-picture` makes from the example."""
    with open("docs/design/partitioning-example.mlir", encoding="utf-8") as f:
        module = parse(f.read())
    apply(
        module,
        PlaceEnginesPass(),
        PartitionDynamicShapePass(static_model_ops_lower_limit=2),
    )
    with open("docs/design/partitioning.dot", encoding="utf-8") as f:
        committed = f.read()
    assert to_dot(module) == committed, "run `make partition-picture`"


@settings(max_examples=30, deadline=None)
@given(programs(), st.sampled_from([1, 2, 4]), st.booleans())
def test_unknown_partitions_compile_to_dynamic_tasks_with_the_same_numbers(
    program: tuple[int, list[Node], list[int]], limit: int, engine_partition: bool
) -> None:
    """Unknown dims and forced-unknown nodes: ge-compile's known partitions become static tasks,
    the unknown ones dynamic tasks; outputs equal the graph level under a random schedule and
    with the uninitialised-memory check (values crossing from unknown to known partitions are
    copied into planned buffers)."""
    module = parse(to_text(program))
    inputs = inputs_for(program[0])
    expected = run(module, inputs)
    if engine_partition:
        apply(
            module,
            PlaceEnginesPass(),
            PartitionDynamicShapePass(static_model_ops_lower_limit=limit),
            PartitionEnginePass(),
        )
    apply(module, CompilePipelinePass(static_model_ops_lower_limit=limit))
    (model,) = module.ops
    assert isinstance(model, ModelOp)
    got = execute_model(model, inputs, schedule_seed=len(program[1]), check_uninitialized=True)
    assert got.outputs.keys() == expected.keys()
    for name in expected:
        np.testing.assert_array_equal(got.outputs[name], expected[name])


def _use_lists() -> tuple[list[Operation], Operation, Operation]:
    """Three producers and a user reading them as a, b, a, c (a and b also read by a second
    op)."""
    from xdsl.dialects.builtin import i32
    from xdsl.dialects.test import TestOp

    a, b, c = (TestOp(result_types=[i32]) for _ in range(3))
    user = TestOp([a.results[0], b.results[0], a.results[0], c.results[0]])
    other = TestOp([a.results[0], b.results[0]])
    return [a, b, c], user, other


def _uses(values: list[Operation], user: Operation) -> list[list[tuple[bool, int]]]:
    """Each value's use list, front first, as (read by `user`, operand index)."""
    return [[(u.operation is user, u.index) for u in op.results[0].uses] for op in values]


def test_batched_operand_writes_match_xdsl() -> None:
    """The operand writes the two passes batch (the tuple built once, not per operand) leave
    the operands and every use list as xDSL's one-at-a-time writes do."""
    from gedialects.passes.partition.merge_engine_partitions import PendingOperands

    (a, b, c), user, _ = _use_lists()
    (a2, b2, c2), user2, _ = _use_lists()
    user.operands[2] = c.results[0]
    user.operands[0] = b.results[0]
    engine.replace_operands(user2, {2: c2.results[0], 0: b2.results[0]})
    assert [v.owner for v in user.operands] == [b, b, c, c]
    assert [v.owner for v in user2.operands] == [b2, b2, c2, c2]
    assert _uses([a, b, c], user) == _uses([a2, b2, c2], user2)
    (a, b, c), user, _ = _use_lists()
    (a2, b2, c2), user2, other2 = _use_lists()
    a.results[0].replace_all_uses_with(c.results[0])
    b.results[0].replace_all_uses_with(c.results[0])
    pending = PendingOperands()
    pending.replace_all_uses(a2.results[0], c2.results[0])
    pending.replace_all_uses(b2.results[0], c2.results[0])
    assert [v.owner for v in user2.operands] == [a2, b2, a2, c2]  # not written yet
    pending.flush()
    assert [v.owner for v in user2.operands] == [c2, c2, c2, c2]
    assert [v.owner for v in other2.operands] == [c2, c2]
    assert _uses([a, b, c], user) == _uses([a2, b2, c2], user2)
    assert len(_uses([c], user)[0]) == 6
