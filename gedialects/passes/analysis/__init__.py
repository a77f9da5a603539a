"""Analyses that passes compute and rewrites materialise (the style rule "analyses apart from the
rewrites"): the task graph of an `ascend.model` (`task_graph`), its stream and event plan
(`stream_plan`), buffer liveness (`liveness`), the slot-level memory plan (`memory_plan`), and
the node view of a `graph.graph` that the partitioners share (`graph_view`). Nothing here
rewrites IR.

Each plan has `verify()`, which raises `PlanError` naming what is inconsistent, and `dump()`,
its readable text; the pass that materialises a plan verifies it first (as the partitioners do
with `partition.clusters.Clustering`).
"""


class PlanError(Exception):
    """An analysis result contradicts itself (a plan's `verify()`): a bug in the analysis that
    built it, caught before a pass writes the plan into the IR."""
