"""GE's `PartitionNodeAttrNameManager` / `REGISTER_PARTITION_ATTR_NAME`: node attributes a
partitioner carries between a PartitionedCall and the nodes of its subgraph.

GE's partitioners copy the registered attributes when they build a PartitionedCall
(`BaseCluster::BuildPartitionFrame`) and when the call's subgraph is merged or expanded back.
Every partitioner here goes through the two functions of this module:

- `to_call` (nodes -> call): when a cluster becomes a call, an attribute registered
  `to_call` that every node of the cluster carries with one value is set on the call (and on
  the subgraph, for engine subgraphs);
- `to_nodes` (call -> nodes): when a call is merged or inlined, an attribute registered
  `to_nodes` that the call (or its subgraph) carries is set on each moved node that lacks it.

Built in: `_user_stream_label` (GE's `public_attr::USER_STREAM_LABEL`: the merge key of the
second partitioning, kept across every cut) and `_batch_label` (`ATTR_NAME_BATCH_LABEL`: the
gear branch of every op). Users register more with `register_partition_attr_name`.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from xdsl.ir import Attribute, Operation

from gedialects.base import BATCH_LABEL, USER_STREAM_LABEL


class PartitionAttrError(ValueError):
    """A malformed or duplicate registration."""


@dataclass(frozen=True)
class PartitionAttrName:
    """One registered name and the directions GE copies it in."""

    name: str
    to_call: bool = True
    to_nodes: bool = True


_REGISTRY: dict[str, PartitionAttrName] = {}


def register_partition_attr_name(name: str, *, to_call: bool = True, to_nodes: bool = True) -> None:
    """GE `REGISTER_PARTITION_ATTR_NAME`: every partitioner copies `name` from then on."""
    if not isinstance(name, str) or not name:
        raise PartitionAttrError(f"partition attribute name must be a non-empty string: {name!r}")
    if name in _REGISTRY:
        raise PartitionAttrError(f"partition attribute '{name}' is already registered")
    if not (to_call or to_nodes):
        raise PartitionAttrError(f"partition attribute '{name}': give to_call or to_nodes")
    _REGISTRY[name] = PartitionAttrName(name, to_call, to_nodes)


def unregister_partition_attr_name(name: str) -> None:
    """Drops a registration (tests)."""
    _REGISTRY.pop(name, None)


def registered() -> tuple[PartitionAttrName, ...]:
    return tuple(_REGISTRY.values())


def to_call(nodes: Iterable[Operation], *targets: Operation) -> None:
    """Sets on `targets` each `to_call` attribute all `nodes` share with one value."""
    names = [entry.name for entry in _REGISTRY.values() if entry.to_call]
    if not names:
        return
    common: dict[str, Attribute | None] = {}
    first = True
    for node in nodes:
        attrs = node.attributes
        if first:
            common = {n: attrs.get(n) for n in names}
            first = False
        else:
            for n, value in common.items():
                if value is not None and attrs.get(n) != value:
                    common[n] = None
        if not any(v is not None for v in common.values()):
            return
    for n, value in common.items():
        if value is not None:
            for target in targets:
                target.attributes[n] = value


def carried(*sources: Operation) -> dict[str, Attribute]:
    """The `to_nodes` attributes of `sources` (first source wins): what moved nodes inherit."""
    out: dict[str, Attribute] = {}
    for entry in _REGISTRY.values():
        if not entry.to_nodes:
            continue
        for source in sources:
            value = source.attributes.get(entry.name)
            if value is not None:
                out[entry.name] = value
                break
    return out


def to_nodes(values: dict[str, Attribute], node: Operation) -> None:
    """Sets the `carried` values on `node` where it has none of its own."""
    for n, value in values.items():
        if n not in node.attributes:
            node.attributes[n] = value


register_partition_attr_name(USER_STREAM_LABEL)
register_partition_attr_name(BATCH_LABEL)

__all__ = [
    "PartitionAttrError",
    "PartitionAttrName",
    "carried",
    "register_partition_attr_name",
    "registered",
    "to_call",
    "to_nodes",
    "unregister_partition_attr_name",
]
