"""Decision-tree ensembles: TreeEnsemble of ONNX's `ai.onnx.ml` domain (opset 5), the op that
scikit-learn and gradient-boosting exports end in. GE has no prototype for it (its ML ops run
as AI CPU kernels of the framework that brought them), so the op is named after ONNX's and
placed on AI CPU (`gedialects.target.engines.AICPU_ONLY_OPS`)."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import ClassVar

from xdsl.dialects.builtin import (
    I64,
    DenseArrayBase,
    Float16Type,
    Float32Type,
    Float64Type,
    IntegerAttr,
    StringAttr,
    f64,
    i64,
)
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.irdl import irdl_op_definition, operand_def, prop_def, result_def, traits_def
from xdsl.traits import Pure

from gedialects.base import GEOp, NodeSyntax, OperandValues, element_type, int_array, tensor_shape
from gedialects.graph.common import (
    AnyTensor,
    fail,
    i64_attr,
    init_node,
    prop_floats,
    prop_int,
    prop_ints,
    prop_str,
    tensor_of,
    verify_inferred,
)

TREE_MODES = ("LEQ", "LT", "GTE", "GT", "EQ", "NEQ", "MEMBER")
"""`nodes_modes` values, by number: how a branch node compares its feature with its split."""
MEMBER = TREE_MODES.index("MEMBER")
AGGREGATE_FUNCTIONS = ("AVERAGE", "SUM", "MIN", "MAX")
"""`aggregate_function`, ONNX's numbering: how the leaves of the trees combine per target."""
POST_TRANSFORMS = ("NONE", "SOFTMAX", "LOGISTIC", "SOFTMAX_ZERO", "PROBIT")
"""`post_transform`, ONNX's numbering. Only NONE is supported: onnx's reference applies no
transform, and onnxruntime's SOFTMAX, LOGISTIC and PROBIT of opset 5 gave other numbers than
their textbook forms in our test, so the others are refused rather than guessed."""


def _f64_array(values: Sequence[float]) -> DenseArrayBase:
    return DenseArrayBase.from_list(f64, tuple(float(v) for v in values))


@irdl_op_definition
class TreeEnsembleOp(GEOp, NodeSyntax):
    """GE TreeEnsemble (no GE prototype: ONNX `ai.onnx.ml` opset 5): `y[n, t]` aggregates, over
    the trees, the weight of the leaf that row `n` of `x` `[N, F]` reaches, for the leaf's
    target `t` (`y` is `[N, n_targets]`, x's float type).

    Node `i` compares `x[n, nodes_featureids[i]]` with `nodes_splits[i]` by `nodes_modes[i]`
    (`TREE_MODES`; MEMBER tests membership in the node's set, the next NaN-terminated run of
    `membership_values`); a NaN feature takes the true branch where
    `nodes_missing_value_tracks_true[i]` is 1. The branch taken goes to node
    `nodes_truenodeids[i]` (or `falsenodeids`), or to that leaf when `nodes_trueleafs[i]` (or
    `falseleafs`) is 1. A tree starts at `tree_roots[k]`; a root whose two branches are the
    same leaf is that leaf. Splits, weights and members are kept as f64, which holds every
    f16, f32 and f64 value exactly. ONNX's `nodes_hitrates` change no number and are dropped.

        %y = graph.tree_ensemble %x n_targets 1 nodes_featureids [0] nodes_modes [0]
            nodes_splits array<f64: 0.5> nodes_truenodeids [0] nodes_falsenodeids [1]
            nodes_trueleafs [1] nodes_falseleafs [1] leaf_targetids [0, 0]
            leaf_weights array<f64: 1.0, 2.0> tree_roots [0] : (tensor<3x2xf32>) -> tensor<3x1xf32>
    """

    name = "graph.tree_ensemble"
    GE_TYPE: ClassVar[str] = "TreeEnsemble"

    x = operand_def(AnyTensor)
    y = result_def(AnyTensor)

    n_targets = prop_def(IntegerAttr[I64])
    aggregate_function = prop_def(StringAttr, default_value=StringAttr("SUM"))
    post_transform = prop_def(StringAttr, default_value=StringAttr("NONE"))
    nodes_featureids = prop_def(DenseArrayBase.constr(i64))
    nodes_modes = prop_def(DenseArrayBase.constr(i64))
    nodes_splits = prop_def(DenseArrayBase.constr(f64))
    nodes_truenodeids = prop_def(DenseArrayBase.constr(i64))
    nodes_falsenodeids = prop_def(DenseArrayBase.constr(i64))
    nodes_trueleafs = prop_def(DenseArrayBase.constr(i64))
    nodes_falseleafs = prop_def(DenseArrayBase.constr(i64))
    nodes_missing_value_tracks_true = prop_def(
        DenseArrayBase.constr(i64), default_value=int_array(())
    )
    membership_values = prop_def(DenseArrayBase.constr(f64), default_value=_f64_array(()))
    leaf_targetids = prop_def(DenseArrayBase.constr(i64))
    leaf_weights = prop_def(DenseArrayBase.constr(f64))
    tree_roots = prop_def(DenseArrayBase.constr(i64))

    traits = traits_def(Pure())

    def __init__(
        self,
        x: SSAValue | Operation,
        *,
        n_targets: int,
        nodes_featureids: Sequence[int],
        nodes_modes: Sequence[int],
        nodes_splits: Sequence[float],
        nodes_truenodeids: Sequence[int],
        nodes_falsenodeids: Sequence[int],
        nodes_trueleafs: Sequence[int],
        nodes_falseleafs: Sequence[int],
        leaf_targetids: Sequence[int],
        leaf_weights: Sequence[float],
        tree_roots: Sequence[int],
        nodes_missing_value_tracks_true: Sequence[int] = (),
        membership_values: Sequence[float] = (),
        aggregate_function: str = "SUM",
        post_transform: str = "NONE",
    ) -> None:
        props: dict[str, Attribute] = {
            "n_targets": i64_attr(n_targets),
            "aggregate_function": StringAttr(aggregate_function),
            "post_transform": StringAttr(post_transform),
            "nodes_featureids": int_array(nodes_featureids),
            "nodes_modes": int_array(nodes_modes),
            "nodes_splits": _f64_array(nodes_splits),
            "nodes_truenodeids": int_array(nodes_truenodeids),
            "nodes_falsenodeids": int_array(nodes_falsenodeids),
            "nodes_trueleafs": int_array(nodes_trueleafs),
            "nodes_falseleafs": int_array(nodes_falseleafs),
            "nodes_missing_value_tracks_true": int_array(nodes_missing_value_tracks_true),
            "membership_values": _f64_array(membership_values),
            "leaf_targetids": int_array(leaf_targetids),
            "leaf_weights": _f64_array(leaf_weights),
            "tree_roots": int_array(tree_roots),
        }
        init_node(self, [x], None, props)

    @classmethod
    def check_trees(cls, properties: Mapping[str, Attribute], features: int | None) -> None:
        """ValueError unless the arrays describe trees: equal lengths, indexes in range, each
        MEMBER node with its set, and no cycle (a walk from a root reaches a leaf in at most
        as many steps as there are nodes, which the kernel relies on)."""
        ints = {
            name: prop_ints(cls, properties, name)
            for name in (
                "nodes_featureids",
                "nodes_modes",
                "nodes_truenodeids",
                "nodes_falsenodeids",
                "nodes_trueleafs",
                "nodes_falseleafs",
            )
        }
        count = len(ints["nodes_modes"])
        splits = prop_floats(cls, properties, "nodes_splits")
        lengths = {name: len(v) for name, v in ints.items()} | {"nodes_splits": len(splits)}
        tracks = prop_ints(cls, properties, "nodes_missing_value_tracks_true")
        if tracks:
            lengths["nodes_missing_value_tracks_true"] = len(tracks)
        if count == 0 or len(set(lengths.values())) != 1:
            raise ValueError(f"the nodes_* arrays need one length >= 1, got {lengths}")
        targets = prop_ints(cls, properties, "leaf_targetids")
        weights = prop_floats(cls, properties, "leaf_weights")
        if not all(math.isfinite(w) for w in weights):
            raise ValueError("leaf_weights must be finite")
        if not targets or len(targets) != len(weights):
            raise ValueError(
                f"leaf_targetids ({len(targets)}) and leaf_weights ({len(weights)}) need one "
                "length >= 1"
            )
        n_targets = prop_int(cls, properties, "n_targets")
        if n_targets < 1 or not all(0 <= t < n_targets for t in targets):
            raise ValueError(f"leaf_targetids must be in [0, n_targets = {n_targets})")
        for name, allowed in (
            ("aggregate_function", AGGREGATE_FUNCTIONS),
            ("post_transform", ("NONE",)),
        ):
            if prop_str(cls, properties, name) not in allowed:
                raise ValueError(f"{name} must be one of {', '.join(allowed)}")
        modes = ints["nodes_modes"]
        if not all(0 <= m < len(TREE_MODES) for m in modes):
            raise ValueError(f"nodes_modes must be in [0, {len(TREE_MODES)}): {list(modes)}")
        if any(t not in (0, 1) for t in (*ints["nodes_trueleafs"], *ints["nodes_falseleafs"])):
            raise ValueError("nodes_trueleafs and nodes_falseleafs hold 0 or 1")
        if any(t not in (0, 1) for t in tracks):
            raise ValueError("nodes_missing_value_tracks_true holds 0 or 1")
        limit = features if features is not None else math.inf
        if not all(0 <= f < limit for f in ints["nodes_featureids"]):
            bound = "" if features is None else f" (x has {features} features)"
            raise ValueError(f"nodes_featureids out of range{bound}")
        members = prop_floats(cls, properties, "membership_values")
        sets = sum(1 for v in members if math.isnan(v))
        wanted = modes.count(MEMBER)
        if sets != wanted or (members and not math.isnan(members[-1])):
            raise ValueError(
                f"membership_values holds {sets} NaN-terminated sets for {wanted} MEMBER nodes"
            )
        children: list[list[int]] = [[] for _ in range(count)]
        for i in range(count):
            for side in ("true", "false"):
                child = ints[f"nodes_{side}nodeids"][i]
                leaf = ints[f"nodes_{side}leafs"][i]
                if not 0 <= child < (len(targets) if leaf else count):
                    kind = "leaf" if leaf else "node"
                    raise ValueError(f"node {i}: {side} branch {kind} {child} is out of range")
                if not leaf:
                    children[i].append(child)
        roots = prop_ints(cls, properties, "tree_roots")
        if not roots or not all(0 <= r < count for r in roots):
            raise ValueError(f"tree_roots must be node indexes in [0, {count})")
        # Kahn's algorithm over the branch-node edges: what is left over lies on a cycle
        indegree = [0] * count
        for edges in children:
            for c in edges:
                indegree[c] += 1
        ready = [i for i in range(count) if indegree[i] == 0]
        seen = 0
        while ready:
            seen += 1
            for c in children[ready.pop()]:
                indegree[c] -= 1
                if indegree[c] == 0:
                    ready.append(c)
        if seen != count:
            raise ValueError("the branches form a cycle: a walk from a root would never end")

    @classmethod
    def infer_result_types(
        cls,
        operand_types: Sequence[Attribute],
        properties: Mapping[str, Attribute],
        values: OperandValues,
    ) -> tuple[Attribute, ...]:
        """`[N, n_targets]` of x's float type."""
        x = tensor_shape(operand_types[0])
        if x is not None and len(x) != 2:
            raise ValueError(f"x must be [N, F], got rank {len(x)}")
        cls.check_trees(properties, x[1] if x is not None and x[1] >= 0 else None)
        n = x[0] if x is not None else -1
        elem = element_type(operand_types[0])
        return (tensor_of(elem, (n, prop_int(cls, properties, "n_targets"))),)

    def verify_(self) -> None:
        if not isinstance(element_type(self.x.type), Float16Type | Float32Type | Float64Type):
            fail(self, f"x must be an f16, f32 or f64 tensor, got {self.x.type}")
        verify_inferred(self, "the ensemble's shape")


__all__ = [
    "AGGREGATE_FUNCTIONS",
    "MEMBER",
    "POST_TRANSFORMS",
    "TREE_MODES",
    "TreeEnsembleOp",
]

OPS = (TreeEnsembleOp,)
"""The ops of this module, in the order the dialect lists them."""
