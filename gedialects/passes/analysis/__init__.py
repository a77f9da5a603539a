"""Analyses that passes compute and rewrites materialise (the style rule "analyses apart from the
rewrites"): the task graph of an `ascend.model` (`task_graph`), its stream and event plan
(`stream_plan`), buffer liveness (`liveness`), the slot-level memory plan (`memory_plan`), and
the node view of a `graph.graph` that the partitioners share (`graph_view`). Nothing here
rewrites IR.
"""
