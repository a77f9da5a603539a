"""The shared helpers of issue 15 part 4: one `element_count`, graph helpers in graph/common.py;
`set_block_ops`."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
from xdsl.dialects.builtin import DYNAMIC_INDEX, TensorType, UnrankedTensorType, f32, i8
from xdsl.dialects.test import TestOp as Op
from xdsl.ir import Block, Operation

from gedialects.base import (
    IdentityMemo,
    element_count,
    set_block_ops,
    static_element_count,
    tensor_nbytes,
)

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "gedialects"


def test_element_count_is_the_product_of_dims() -> None:
    assert element_count([]) == 1
    assert element_count((2, 3, 4)) == 24
    assert element_count([5, 0, 7]) == 0
    assert element_count(d for d in (2, 2)) == 4


def test_static_element_count_refuses_dynamic_and_unranked_types() -> None:
    assert static_element_count(TensorType(f32, [2, 3])) == 6
    assert static_element_count(TensorType(f32, [])) == 1
    assert static_element_count(TensorType(f32, [2, DYNAMIC_INDEX])) is None
    assert static_element_count(UnrankedTensorType(f32)) is None
    assert static_element_count(f32) is None
    assert tensor_nbytes(TensorType(i8, [3, 5])) == 15


def _product_loops(tree: ast.AST) -> list[int]:
    """Lines of `for d in dims: n *= d` loops (the hand-written products element_count
    replaces)."""
    found = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.For) or not isinstance(node.target, ast.Name):
            continue
        for stmt in node.body:
            if (
                isinstance(stmt, ast.AugAssign)
                and isinstance(stmt.op, ast.Mult)
                and isinstance(stmt.value, ast.Name)
                and stmt.value.id == node.target.id
            ):
                found.append(node.lineno)
    return found


def test_no_hand_written_product_of_dims_loops_remain() -> None:
    loops = [
        f"{path.relative_to(ROOT)}:{line}"
        for path in sorted(PACKAGE.rglob("*.py"))
        for line in _product_loops(ast.parse(path.read_text(), str(path)))
    ]
    assert loops == [], f"use gedialects.base.element_count instead of: {loops}"


def test_category_modules_import_shared_helpers_from_graph_common_only() -> None:
    """A category module may import op classes and op-specific shape rules of another
    category, but not the shared operand/property/layout helpers (they live in common.py)."""
    shared = {
        "Shape",
        "const_ints",
        "i64_attr",
        "index_dtype",
        "known_dims",
        "normalize_axis",
        "operand_count",
        "prop_bool",
        "prop_float",
        "prop_floats",
        "prop_int",
        "prop_ints",
        "prop_str",
        "vector_length",
        "verify_dtype",
        "verify_index_tensor",
        "verify_same_type",
        "channels_last",
        "spatial_axes",
        "window_output_size",
    }
    bad = []
    for path in sorted((PACKAGE / "graph").glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and node.module in (
                "gedialects.graph.array",
                "gedialects.graph.nn",
            ):
                bad += [f"{path.name}: {a.name}" for a in node.names if a.name in shared]
    assert bad == []
    import gedialects.graph.common as common

    assert all(hasattr(common, name) for name in shared)


def _chain(block: Block) -> list[Operation]:
    """The block's ops read both ways (next and prev links must agree)."""
    forward = list(block.ops)
    backward: list[Operation] = []
    op = block.last_op
    while op is not None:
        backward.append(op)
        op = op.prev_op
    assert backward[::-1] == forward
    assert all(op.parent is block for op in forward)
    return forward


def test_set_block_ops_is_detach_all_then_add_ops() -> None:
    a, b, c, d = (Op() for _ in range(4))
    block = Block([a, b, c])
    new = Op()
    set_block_ops(block, [c, new, a])
    assert _chain(block) == [c, new, a]
    assert b.parent is None and b.next_op is None and b.prev_op is None  # dropped: detached
    reference = Block([d])
    for op in list(reference.ops):
        reference.detach_op(op)
    reference.add_ops([b])
    assert _chain(reference) == [b]
    set_block_ops(block, [])
    assert _chain(block) == [] and block.first_op is None and block.last_op is None
    assert all(op.parent is None for op in (a, c, new))


def test_set_block_ops_refuses_ops_of_another_block_and_repeats() -> None:
    a, b = Op(), Op()
    Block([b])
    with pytest.raises(ValueError, match="already attached"):
        set_block_ops(Block([a]), [a, b])
    with pytest.raises(ValueError, match="already attached"):
        set_block_ops(Block(), [a, a])


def test_identity_memo_answers_per_object_and_starts_over_at_its_limit() -> None:
    """Kept by identity, not equality (two equal lists are two entries), each object held so
    its id stays its own; the table clears at its limit and answers anew."""
    calls: list[object] = []

    def length(obj: object) -> int:
        calls.append(obj)
        return len(obj)  # type: ignore[arg-type]

    memo = IdentityMemo(length, limit=2)
    a, b, c = [1], [1], [1, 2]
    assert memo(a) == 1 and memo(a) == 1 and calls == [a]
    assert memo(b) == 1 and len(calls) == 2 and calls[1] is b
    assert memo.table[id(a)][0] is a  # held alive: its id is not reused while kept
    assert memo(c) == 2 and len(memo.table) == 1  # the limit reached: started over
    assert memo(a) == 1 and len(calls) == 4
