"""The TreeEnsemble kernel: every row walks every tree at once, one level per numpy step
(a gather of the features, the comparison of each node's mode, the step to a child), so the
cost is the depth of the deepest tree in numpy calls, not rows x trees x depth in Python."""

from __future__ import annotations

import functools
import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from xdsl.ir import Attribute

from gedialects.graph import MEMBER, TreeEnsembleOp
from gedialects.interpreters.graph.common import Arrays, attr, floats, int_, ints, str_
from gedialects.interpreters.kernels import KernelAttrs, KernelError, kernel


@dataclass(frozen=True)
class _Trees:
    """The ensemble's arrays as numpy, built once per distinct attribute set."""

    feature: np.ndarray
    mode: np.ndarray
    split: np.ndarray
    true_id: np.ndarray
    false_id: np.ndarray
    true_leaf: np.ndarray
    false_leaf: np.ndarray
    tracks: np.ndarray
    member_row: np.ndarray
    """Node -> its row of `members` (MEMBER nodes only)."""
    members: np.ndarray
    """[MEMBER nodes, largest set], NaN-padded (NaN equals nothing)."""
    roots: np.ndarray
    root_is_leaf: np.ndarray
    target: np.ndarray
    weight: np.ndarray
    n_targets: int
    aggregate: str


_NAMES = (
    "nodes_featureids",
    "nodes_modes",
    "nodes_splits",
    "nodes_truenodeids",
    "nodes_falsenodeids",
    "nodes_trueleafs",
    "nodes_falseleafs",
    "nodes_missing_value_tracks_true",
    "membership_values",
    "leaf_targetids",
    "leaf_weights",
    "tree_roots",
    "n_targets",
    "aggregate_function",
    "post_transform",
)


@functools.lru_cache(maxsize=64)
def _trees(attrs: tuple[Attribute, ...]) -> _Trees:
    """Keyed by the (hashable, immutable) attributes: a model's ensemble is decoded once."""
    named: dict[str, Attribute] = dict(zip(_NAMES, attrs, strict=True))
    op = TreeEnsembleOp
    try:
        op.check_trees(named, None)
    except ValueError as e:
        raise KernelError(f"TreeEnsemble: {e}") from None

    def i64(name: str) -> np.ndarray:
        return np.asarray(ints(named, name, op), np.int64)

    mode = i64("nodes_modes")
    count = mode.size
    tracks = i64("nodes_missing_value_tracks_true").astype(bool)
    sets: list[list[float]] = [[]]
    for v in floats(named, "membership_values", op):
        if math.isnan(v):
            sets.append([])
        else:
            sets[-1].append(v)
    sets.pop()  # the run after the last NaN (empty: check_trees wants a final NaN)
    width = max((len(s) for s in sets), default=0)
    members = np.full((len(sets), max(width, 1)), np.nan)
    for r, values in enumerate(sets):
        members[r, : len(values)] = values
    member_row = np.zeros(count, np.int64)
    member_row[mode == MEMBER] = np.arange(len(sets))
    roots = i64("tree_roots")
    true_id, false_id = i64("nodes_truenodeids"), i64("nodes_falsenodeids")
    true_leaf = i64("nodes_trueleafs").astype(bool)
    false_leaf = i64("nodes_falseleafs").astype(bool)
    return _Trees(
        feature=i64("nodes_featureids"),
        mode=mode,
        split=np.asarray(floats(named, "nodes_splits", op), np.float64),
        true_id=true_id,
        false_id=false_id,
        true_leaf=true_leaf,
        false_leaf=false_leaf,
        tracks=tracks if tracks.size else np.zeros(count, bool),
        member_row=member_row,
        members=members,
        roots=roots,
        root_is_leaf=true_leaf[roots] & false_leaf[roots] & (true_id[roots] == false_id[roots]),
        target=i64("leaf_targetids"),
        weight=np.asarray(floats(named, "leaf_weights", op), np.float64),
        n_targets=int_(named, "n_targets", op),
        aggregate=str_(named, "aggregate_function", op),
    )


def _branch(t: _Trees, node: np.ndarray, value: np.ndarray) -> np.ndarray:
    """Whether each (node, feature value) pair takes the true branch."""
    mode, split = t.mode[node], t.split[node]
    taken = np.select(
        [mode == m for m in range(MEMBER)],
        [
            value <= split,
            value < split,
            value >= split,
            value > split,
            value == split,
            value != split,
        ],
        default=False,
    )
    member = mode == MEMBER
    if member.any():
        rows = t.members[t.member_row[node[member]]]
        taken[member] = (rows == value[member, None]).any(axis=1)
    return taken | (t.tracks[node] & np.isnan(value))


def _leaves(t: _Trees, x: np.ndarray) -> np.ndarray:
    """[N, trees]: the leaf each row reaches in each tree."""
    rows = x.shape[0]
    node = np.broadcast_to(t.roots, (rows, t.roots.size)).copy()
    at_leaf = np.broadcast_to(t.root_is_leaf, node.shape).copy()
    node[at_leaf] = t.true_id[node[at_leaf]]  # a degenerate tree: its root's leaf
    features = x.astype(np.float64, copy=False)
    for _ in range(t.mode.size + 1):  # check_trees: no cycle, so at most `nodes` steps
        walking = np.nonzero(~at_leaf)
        if walking[0].size == 0:
            return node
        here = node[walking]
        taken = _branch(t, here, features[walking[0], t.feature[here]])
        node[walking] = np.where(taken, t.true_id[here], t.false_id[here])
        at_leaf[walking] = np.where(taken, t.true_leaf[here], t.false_leaf[here])
    raise KernelError("TreeEnsemble: a walk from a root did not reach a leaf")


@kernel("TreeEnsemble")
def tree_ensemble(
    inputs: Sequence[np.ndarray], attrs: KernelAttrs, result_types: Sequence[Attribute]
) -> Arrays:
    """Leaf weights aggregated in f64 (`np.add.at` and its min/max twins), then one
    rounding to x's type. A target no leaf reaches is 0 under every aggregate, as onnxruntime
    gives (onnx's reference leaves MIN's and MAX's at the dtype's extreme value)."""
    x = inputs[0]
    if x.ndim != 2:
        raise KernelError(f"TreeEnsemble: x must be [N, F], got {list(x.shape)}")
    key = tuple(attr(attrs, name, TreeEnsembleOp) for name in _NAMES)
    t = _trees(key)
    if x.shape[0] and t.feature.size and int(t.feature.max()) >= x.shape[1]:
        raise KernelError(
            f"TreeEnsemble: a node reads feature {int(t.feature.max())} of {x.shape[1]}"
        )
    leaves = _leaves(t, x)
    rows = np.broadcast_to(np.arange(x.shape[0])[:, None], leaves.shape)
    index = (rows.ravel(), t.target[leaves].ravel())
    weights = t.weight[leaves].ravel()
    shape = (x.shape[0], t.n_targets)
    if t.aggregate in ("SUM", "AVERAGE"):
        y = np.zeros(shape)
        np.add.at(y, index, weights)
        if t.aggregate == "AVERAGE":
            y /= t.roots.size
    else:
        y = np.full(shape, np.inf if t.aggregate == "MIN" else -np.inf)
        (np.minimum if t.aggregate == "MIN" else np.maximum).at(y, index, weights)
        y[np.isinf(y)] = 0.0  # no leaf of that target (a weight is finite: check_trees)
    return (y.astype(x.dtype),)
