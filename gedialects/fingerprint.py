"""The fingerprint of a module: equal fingerprints, same IR, same verification result.

`ge-opt` verifies the whole module after each stage of `ge-compile`, as MLIR verifies after
each pass; many stages leave a module as it is (a check, a partition with nothing to split,
a placement already made), and verifying it again can only give the same answer. The
fingerprint is a flat list of everything a verifier can see, in walk order: each op's name
and class, its operands (numbered by the op or block argument that defined them earlier in
the walk), result types, properties, attributes, regions, blocks and their argument types,
successors. Values and blocks are numbered within the fingerprint (no id of a dead object
is kept); attributes, and the rare value used before its definition, are kept by reference
(attributes are immutable, and the list holds them alive, so an equal list means equal
attributes). Costs a few µs per op, against tens for a verification.
"""

from __future__ import annotations

import weakref

from xdsl.ir import Operation


def fingerprint(root: Operation) -> list[object]:
    """Everything about `root` and the ops it holds that a verifier reads, as a list."""
    numbers: dict[int, int] = {}
    out: list[object] = []
    add, extend = out.append, out.extend
    for op in root.walk():
        add(type(op))
        add(op.name)
        operands = op._operands  # pyright: ignore[reportPrivateUsage]
        add(len(operands))
        # a value not numbered yet (a forward reference, or one defined outside `root`) is
        # kept itself, alive with the list
        extend([numbers.get(id(v), v) for v in operands])
        results = op.results
        add(len(results))
        for r in results:
            numbers[id(r)] = len(numbers)
            add(r.type)
        for table in (op.properties, op.attributes):
            add(len(table))
            for item in table.items():
                extend(item)
        successors = op._successors  # pyright: ignore[reportPrivateUsage]
        add(len(successors))
        extend([numbers.get(id(b), b) for b in successors])
        regions = op.regions
        add(len(regions))
        for region in regions:
            add(len(region.blocks))
            for block in region.blocks:
                numbers[id(block)] = len(numbers)
                args = block.args
                add(len(args))
                for a in args:
                    numbers[id(a)] = len(numbers)
                    add(a.type)
                add(len(block.ops))
    return out


_verified: tuple[weakref.ref[Operation], list[object]] | None = None
"""The root a whole verification last passed on, and its fingerprint then."""


def mark_verified(root: Operation, seen: list[object]) -> None:
    """`root.verify()` just passed on the IR whose fingerprint is `seen`."""
    global _verified
    _verified = (weakref.ref(root), seen)


def still_verified(root: Operation) -> bool:
    """Whether `root` is the IR a whole verification last passed on, unchanged since (its
    fingerprint is equal): verifying it again can only pass. A pass that verifies (GE's
    graph validation, `ge-verify-graph`) keeps only the checks of its own."""
    if _verified is None or _verified[0]() is not root:
        return False
    return fingerprint(root) == _verified[1]
