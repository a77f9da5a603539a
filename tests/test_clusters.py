"""The cluster framework against its naive reference, and the checks of its result."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gedialects.passes.partition.clusters import (
    ClusterError,
    ClusterGraph,
    Clustering,
    NaiveClusterGraph,
    topological_order,
)

UNKNOWN, KNOWN, STAGE = "U", "K", "S"


def unknown_wins(this: str, other: str) -> str:
    return UNKNOWN if UNKNOWN in (this, other) else this


@st.composite
def dags(draw: st.DrawFn, max_nodes: int = 16) -> tuple[list[list[int]], list[str]]:
    n = draw(st.integers(1, max_nodes))
    preds = [
        sorted(set(draw(st.lists(st.integers(0, i - 1), max_size=3)))) if i else []
        for i in range(n)
    ]
    kinds = draw(st.lists(st.sampled_from([KNOWN, UNKNOWN, STAGE]), min_size=n, max_size=n))
    return preds, kinds


@settings(max_examples=150, deadline=None)
@given(dags(), st.lists(st.tuples(st.booleans(), st.integers(0, 99), st.integers(0, 99))))
def test_merges_agree_with_the_naive_reference(
    dag: tuple[list[list[int]], list[str]], steps: list[tuple[bool, int, int]]
) -> None:
    preds, kinds = dag
    n = len(preds)
    fast = ClusterGraph(preds, kinds, independent=(STAGE,), merge_kind=unknown_wins)
    slow = NaiveClusterGraph(preds, kinds, independent=(STAGE,), merge_kind=unknown_wins)
    for all_paths, a, b in steps:
        this, other = fast.cluster_of(a % n), fast.cluster_of(b % n)
        assert (this, other) == (slow.cluster_of(a % n), slow.cluster_of(b % n))
        if all_paths:
            assert sorted(fast.merge_all_paths_from(this, other)) == (
                slow.merge_all_paths_from(this, other)
            )
        else:
            assert fast.try_merge(this, other) == slow.try_merge(this, other)
        result = fast.result()
        result.verify()
        assert [frozenset(m) for m in result.members] == slow.partition()
        assert result.kinds == [slow.kinds[slow.label[m[0]]] for m in result.members]


@settings(max_examples=100, deadline=None)
@given(dags(), st.lists(st.tuples(st.integers(0, 99), st.integers(0, 99)), max_size=8))
def test_reachability_agrees_with_the_naive_reference(
    dag: tuple[list[list[int]], list[str]], steps: list[tuple[int, int]]
) -> None:
    """`has_path` and `would_create_cycle` (whose input check answers most calls without a
    search) against reachability and acyclicity of the quotient graph, after some merges."""
    preds, _ = dag
    n = len(preds)
    kinds = [KNOWN] * n
    fast = ClusterGraph(preds, kinds)
    slow = NaiveClusterGraph(preds, kinds)
    for a, b in steps:
        this, other = fast.cluster_of(a % n), fast.cluster_of(b % n)
        assert fast.try_merge(this, other) == slow.try_merge(this, other)
    live = fast.clusters()
    for a in live:
        reach = slow._reach(a)  # pyright: ignore[reportPrivateUsage]
        for b in live:
            assert fast.has_path(a, b) == (b in reach)
            merged = slow._relabel(a, [b])  # pyright: ignore[reportPrivateUsage]
            assert fast.would_create_cycle(a, b) == (not slow._acyclic(merged))  # pyright: ignore[reportPrivateUsage]


def test_try_merge_refuses_a_second_path() -> None:
    # 0 -> 1 -> 2 and 0 -> 2: merging 0 and 2 would put 1 on a cycle.
    clusters = ClusterGraph([[], [0], [0, 1]], [KNOWN] * 3)
    assert not clusters.try_merge(2, 0)
    assert clusters.try_merge(1, 0)  # the direct edge is the only path
    assert clusters.try_merge(2, 1)
    assert clusters.result().members == [[0, 1, 2]]


def test_merge_all_paths_absorbs_the_clusters_between() -> None:
    # 0 -> {1, 2} -> 3, and 4 off the path.
    clusters = ClusterGraph([[], [0], [0], [1, 2], [0]], [UNKNOWN, KNOWN, KNOWN, UNKNOWN, KNOWN])
    absorbed = clusters.merge_all_paths_from(3, 0)
    assert sorted(absorbed) == [0, 1, 2]
    result = clusters.result()
    assert result.members == [[0, 1, 2, 3], [4]]
    assert result.ids == [3, 4]  # the surviving cluster keeps GE's id: `this`


def test_independent_clusters_never_merge() -> None:
    clusters = ClusterGraph([[], [0], [1]], [UNKNOWN, STAGE, UNKNOWN], independent=(STAGE,))
    assert not clusters.try_merge(1, 0)
    assert clusters.merge_all_paths_from(2, 0) == []  # the path crosses the stage
    clusters.merge(1, 0)  # GE's Merge leaves an independent `other` alone: no-op
    assert clusters.result().num_clusters == 3


def test_merge_that_closes_a_cycle_is_an_error() -> None:
    clusters = ClusterGraph([[], [0], [1]], [KNOWN] * 3)
    with pytest.raises(ClusterError, match="creates a cycle"):
        clusters.merge(2, 0)


def test_topological_clusters_is_kahn_bfs_seeded_in_node_order() -> None:
    # Sources 0 and 2; 1 depends on 0, 3 on 2 and 1.
    clusters = ClusterGraph([[], [0], [], [2, 1]], [KNOWN] * 4)
    assert clusters.topological_clusters() == [0, 2, 1, 3]
    assert clusters.topological_clusters(lambda c: c % 2 == 1) == [1, 3]


def test_verify_rejects_broken_results() -> None:
    preds = [[], [0], [1]]
    good = Clustering(["a", "b", "c"], preds, [0, 1, 0], [[0, 2], [1]], [KNOWN, KNOWN])
    with pytest.raises(ClusterError, match="cycle"):
        good.verify()  # {a, c} and {b}: a -> b -> c
    lost = Clustering(["a", "b", "c"], preds, [0, 0, 0], [[0, 1]], [KNOWN])
    with pytest.raises(ClusterError, match="c is in no cluster"):
        lost.verify()
    twice = Clustering(["a", "b", "c"], preds, [0, 0, 1], [[0, 1], [1, 2]], [KNOWN, KNOWN])
    with pytest.raises(ClusterError, match="b is in two clusters"):
        twice.verify()


def test_dump_lists_kind_inputs_and_nodes() -> None:
    clusters = ClusterGraph([[], [0], [1]], [KNOWN, UNKNOWN, UNKNOWN], names=["x", "y", "z"])
    clusters.try_merge(2, 1)
    assert clusters.result().dump().splitlines() == [
        "cluster 0 [K] (size:1) ()->|x|",
        "cluster 1 [U] (size:2) (0)->|y|z|",
    ]


def test_producers_must_come_first() -> None:
    with pytest.raises(ClusterError, match="not an earlier node"):
        ClusterGraph([[1], []], [KNOWN, KNOWN])


def test_topological_order_detects_cycles() -> None:
    assert topological_order(3, [(0, 1), (1, 2)]) == [0, 1, 2]
    assert topological_order(2, [(0, 1), (1, 0)]) is None


def test_greedy_merging_of_a_wide_graph_stays_acyclic() -> None:
    """Many parallel branches with cross links, merged greedily: still a DAG, and equal to
    the naive result on a size the naive version can handle."""
    rng = random.Random(7)
    n = 400
    preds = [
        sorted({rng.randrange(i) for _ in range(rng.randint(1, 2))}) if i else [] for i in range(n)
    ]
    kinds = [rng.choice([KNOWN, UNKNOWN]) for _ in range(n)]
    fast = ClusterGraph(preds, kinds, merge_kind=unknown_wins)
    slow = NaiveClusterGraph(preds, kinds, merge_kind=unknown_wins)
    for c in fast.topological_clusters():
        for i in fast.inputs(c):
            if fast.kind(i) == fast.kind(c):
                assert fast.try_merge(c, i) == slow.try_merge(c, i)
    fast.result().verify()
    assert [frozenset(m) for m in fast.result().members] == slow.partition()
